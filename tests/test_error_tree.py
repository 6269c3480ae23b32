"""One error tree: every exception a user can catch is a KubenbError defined in
kubenb.errors, and the tree its docstring draws names each of them."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import warnings

import pytest

import kubenb
import kubenb.errors

# Exceptions that never leave the embedded server: it answers them as HTTP Statuses
# (or turns them into the ApiError a client would get at its Python entry points).
SERVER_INTERNAL = {"StatusError", "TooOldError", "PatchError", "PatchFormatError",
                   "ProtobufError", "UnsupportedKind", "TooDeepError", "InvalidToken",
                   "ImpersonationError", "HeaderBlockError"}
# The same for the simulated kubelet's log endpoint: it answers them as HTTP errors.
KUBELET_INTERNAL = {"LogNotFound", "LogOptionsError"}
# kubenb.port's own signal, caught where a construct becomes a TODO(port) line.
PORT_INTERNAL = {"Untranslatable"}
# Not an error: a BaseException, like SystemExit, that ends a simulated container's
# program when the kubelet kills it (a program is not meant to catch it).
CONTAINER_EXIT = {"ContainerKilled"}
# A sample's own error, as sample-controller has one (it is still a KubenbError).
SAMPLES = {"ResourceExistsError"}


def _modules() -> list[str]:
    names = ["kubenb"]
    with warnings.catch_warnings():  # walking imports each package, the alias included
        warnings.simplefilter("ignore", DeprecationWarning)
        infos = list(pkgutil.walk_packages(kubenb.__path__, "kubenb."))
    for info in infos:
        # not the deprecated alias (it warns on import), nor `python -m kubenb` (it runs)
        if info.name.split(".")[1] not in ("controllers", "__main__"):
            names.append(info.name)
    return names


ERRORS = sorted(name for name in kubenb.errors.__all__
                if inspect.isclass(getattr(kubenb.errors, name))
                and issubclass(getattr(kubenb.errors, name), BaseException))


def test_every_public_exception_is_defined_in_kubenb_errors() -> None:
    elsewhere = set()
    for name in _modules():
        module = importlib.import_module(name)
        for attr, value in vars(module).items():
            if (inspect.isclass(value) and issubclass(value, BaseException)
                    and value.__module__.startswith("kubenb.") and not attr.startswith("_")
                    and value.__module__ != "kubenb.errors"
                    and attr not in (SERVER_INTERNAL | KUBELET_INTERNAL | CONTAINER_EXIT
                                     | PORT_INTERNAL | SAMPLES)):
                elsewhere.add(f"{value.__module__}.{attr}")
    assert elsewhere == set()


@pytest.mark.parametrize("name", ERRORS)
def test_each_error_is_a_kubenb_error_and_drawn_in_the_tree(name: str) -> None:
    cls = getattr(kubenb.errors, name)
    assert issubclass(cls, kubenb.errors.KubenbError)
    assert f"── {name}" in (kubenb.errors.__doc__ or "") or name == "KubenbError"


def test_the_samples_error_is_still_a_kubenb_error() -> None:
    from kubenb.controller.samples.foo import ResourceExistsError

    assert issubclass(ResourceExistsError, kubenb.errors.KubenbError)
