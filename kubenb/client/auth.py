"""How a request proves who sent it: bearer tokens, token files, basic auth, exec plugins.

Each kind is one small class with the same duck-typed interface (`Auth`), so the
REST client needs no branches: it calls `apply(headers)` before every request and,
after a 401, `refresh_after_unauthorized()` to learn whether one retry is worthwhile
(client-go does the same in its exec and token-file round trippers).

Secrets never leave these objects except in the Authorization header: reprs show
the kind only, and errors name the command, file or field but never a credential.
"""

from __future__ import annotations

import base64
import json
import logging
import os
import re
import shutil
import subprocess
import threading
from collections.abc import Mapping, MutableMapping
from datetime import datetime, timezone
from typing import Any, Protocol, runtime_checkable

from kubenb.client.transport import write_private_file
from kubenb.clock import Clock, RealClock
from kubenb.errors import KubeConfigError

__all__ = [
    "EXEC_API_VERSIONS",
    "Auth",
    "BasicAuth",
    "ExecAuth",
    "TokenAuth",
    "TokenFileAuth",
]

log = logging.getLogger(__name__)

#: The ExecCredential API versions client-go accepts (v1alpha1 was removed in 1.24).
EXEC_API_VERSIONS = ("client.authentication.k8s.io/v1", "client.authentication.k8s.io/v1beta1")
_INTERACTIVE_MODES = ("Never", "IfAvailable", "Always")
_INSTALL_HELP = (
    "It looks like you are trying to use a client-go credential plugin that is not installed.\n\n"
    "To learn more about this feature, consult the documentation available at:\n"
    "      https://kubernetes.io/docs/reference/access-authn-authz/authentication/"
    "#client-go-credential-plugins"
)
_REDACTED = "<redacted>"
_PRINTABLE_ASCII = re.compile(r"[!-~]*")


def check_token(token: str, where: str) -> str:
    """`token` if it can travel in an Authorization header, else KubeConfigError.

    A bearer token is printable ASCII; a newline or a non-ASCII character would only
    fail at the first request, inside requests or http.client, with an error quoting
    the whole header. The message names `where` (the kubeconfig entry, token file or
    plugin) and the kind of character, never the token."""
    if _PRINTABLE_ASCII.fullmatch(token):
        return token
    for char in token:
        if " " < char < "\x7f":
            continue
        if char in "\r\n":
            what = "a line break"
        elif char == " ":
            what = "a space"
        elif char < " " or char == "\x7f":
            what = "a control character"
        else:
            what = "a non-ASCII character"
        raise KubeConfigError(
            f"{where}: the token contains {what}; a bearer token must be printable ASCII "
            f"(was the file or value pasted with extra text?)")
    return token


@runtime_checkable
class Auth(Protocol):
    """What the REST client needs from an authentication method."""

    kind: str

    def apply(self, headers: MutableMapping[str, str]) -> None:
        """Set the Authorization header (if this method uses one)."""
        ...

    def refresh_after_unauthorized(self) -> bool:
        """Called after a 401: True if new credentials were obtained and a retry may help."""
        ...


class TokenAuth:
    """A static bearer token (`users[].user.token`). A 401 cannot be healed by retrying."""

    kind = "token"

    def __init__(self, token: str, source: str = "TokenAuth") -> None:
        if not isinstance(token, str) or not token.strip():
            raise KubeConfigError(f"{source}: the token is empty")
        self._token = check_token(token.strip(), source)

    def apply(self, headers: MutableMapping[str, str]) -> None:
        headers["Authorization"] = f"Bearer {self._token}"

    def refresh_after_unauthorized(self) -> bool:
        return False

    def __repr__(self) -> str:
        return "TokenAuth(token=<hidden>)"


class BasicAuth:
    """HTTP basic auth (`username` / `password`); the username is not secret, the password is."""

    kind = "basic"

    def __init__(self, username: str, password: str) -> None:
        self.username = username
        self._password = password

    def apply(self, headers: MutableMapping[str, str]) -> None:
        pair = f"{self.username}:{self._password}".encode()
        headers["Authorization"] = "Basic " + base64.b64encode(pair).decode("ascii")

    def refresh_after_unauthorized(self) -> bool:
        return False

    def __repr__(self) -> str:
        return f"BasicAuth(username={self.username!r}, password=<hidden>)"


class TokenFileAuth:
    """A bearer token read from a file that may be rewritten (`tokenFile`, in-cluster tokens).

    Projected service-account tokens rotate (the kubelet swaps the file about hourly), so
    the file is stat()ed at most once per `recheck_interval` seconds of `clock` time and
    re-read when it changed; a 401 re-reads it at once. client-go re-reads every minute.
    """

    kind = "token-file"

    def __init__(self, path: str | os.PathLike[str], clock: Clock | None = None, *,
                 recheck_interval: float = 1.0, source: str | None = None) -> None:
        self.path = os.fspath(path)
        self._clock = clock or RealClock()
        self._recheck = recheck_interval
        self._source = source or self.path
        self._lock = threading.Lock()
        self._stamp: tuple[int, ...] | None = None
        self._token = self._read()  # fail now, naming the file, rather than at first request
        self._checked_at = self._clock.now()

    def _read(self) -> str:
        try:
            stat = os.stat(self.path)
            with open(self.path, encoding="utf-8") as handle:
                token = handle.read().strip()
        except OSError as err:
            raise KubeConfigError(
                f"{self._source}: cannot read token file {self.path}: {err.strerror}") from None
        except UnicodeDecodeError:
            raise KubeConfigError(
                f"{self._source}: token file {self.path} is not UTF-8 text") from None
        if not token:
            raise KubeConfigError(f"{self._source}: token file {self.path} is empty")
        check_token(token, f"{self._source}: token file {self.path}")
        self._stamp = (stat.st_mtime_ns, stat.st_size, stat.st_ino, stat.st_dev)
        return token

    def _maybe_reload_locked(self, force: bool) -> None:
        now = self._clock.now()
        if not force and now - self._checked_at < self._recheck:
            return
        self._checked_at = now
        try:
            stat = os.stat(self.path)
        except OSError as err:
            log.warning("token file %s: %s; keeping the last token", self.path, err.strerror)
            return
        if not force and (stat.st_mtime_ns, stat.st_size, stat.st_ino, stat.st_dev) == self._stamp:
            return
        try:
            self._token = self._read()
        except KubeConfigError as err:
            log.warning("%s; keeping the last token", err)

    def apply(self, headers: MutableMapping[str, str]) -> None:
        with self._lock:
            self._maybe_reload_locked(force=False)
            token = self._token
        headers["Authorization"] = f"Bearer {token}"

    def refresh_after_unauthorized(self) -> bool:
        with self._lock:
            before = self._token
            self._maybe_reload_locked(force=True)
            return self._token != before

    def __repr__(self) -> str:
        return f"TokenFileAuth(path={self.path!r})"


class ExecAuth:
    """Credentials from an exec plugin (`users[].user.exec`), as client-go runs them.

    The command runs with `args`, `env` merged over os.environ and KUBERNETES_EXEC_INFO
    describing the request; stdin is never a terminal (a notebook has none), so
    `interactiveMode: Always` is refused. Its ExecCredential (v1 or v1beta1) is cached
    until `status.expirationTimestamp` (measured on `clock`), and re-fetched after a 401.
    One thread runs the plugin at a time; the others wait for its result.
    """

    kind = "exec"

    def __init__(self, exec_config: Mapping[str, Any], source: str = "exec",
                 clock: Clock | None = None, *, cluster: Mapping[str, Any] | None = None,
                 timeout: float = 120.0) -> None:
        self._source = source
        self._clock = clock or RealClock()
        self._cluster = dict(cluster) if cluster else None
        self._timeout = timeout
        self._parse(exec_config)
        self._lock = threading.Lock()
        self._local = threading.local()
        self._generation = 0
        self._token: str | None = None
        self._cert_files: tuple[str, str] | None = None
        self._expiry: float | None = None
        self._secrets: set[str] = set()  # every token seen, redacted from plugin stderr

    # -- configuration ---------------------------------------------------------------

    def _parse(self, conf: Mapping[str, Any]) -> None:
        if not isinstance(conf, Mapping):
            raise KubeConfigError(f"{self._source}: expected a mapping")
        self.api_version = self._required_str(conf, "apiVersion")
        if self.api_version not in EXEC_API_VERSIONS:
            raise KubeConfigError(
                f"{self._source}.apiVersion: {self.api_version!r} is not supported; "
                f"use one of {', '.join(EXEC_API_VERSIONS)}")
        self.command = self._required_str(conf, "command")
        args = conf.get("args") or []
        if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
            raise KubeConfigError(f"{self._source}.args: expected a list of strings")
        self.args = list(args)
        env = conf.get("env") or []
        if not isinstance(env, list):
            raise KubeConfigError(f"{self._source}.env: expected a list of name/value pairs")
        self._env: list[tuple[str, str]] = []
        for i, item in enumerate(env):
            name = item.get("name") if isinstance(item, Mapping) else None
            value = item.get("value", "") if isinstance(item, Mapping) else None
            if not isinstance(name, str) or not name:
                raise KubeConfigError(f"{self._source}.env[{i}].name: must be specified")
            if not isinstance(value, str):
                raise KubeConfigError(f"{self._source}.env[{i}].value: expected a string")
            self._env.append((name, value))
        self.install_hint = self._optional_str(conf, "installHint") or ""
        provide = conf.get("provideClusterInfo", False)
        if not isinstance(provide, bool):
            raise KubeConfigError(f"{self._source}.provideClusterInfo: expected true or false")
        self.provide_cluster_info = provide
        mode = self._optional_str(conf, "interactiveMode")
        if not mode:
            if self.api_version.endswith("/v1"):
                raise KubeConfigError(
                    f"{self._source}.interactiveMode: must be specified for {self.api_version} "
                    f"(Never or IfAvailable)")
            mode = "IfAvailable"  # the v1beta1 default
        if mode not in _INTERACTIVE_MODES:
            raise KubeConfigError(
                f"{self._source}.interactiveMode: invalid value {mode!r}; "
                f"use one of {', '.join(_INTERACTIVE_MODES)}")
        self.interactive_mode = mode

    def _required_str(self, conf: Mapping[str, Any], key: str) -> str:
        value = self._optional_str(conf, key)
        if value is None:
            raise KubeConfigError(f"{self._source}.{key}: must be specified")
        return value

    def _optional_str(self, conf: Mapping[str, Any], key: str) -> str | None:
        value = conf.get(key)
        if value is None or value == "":
            return None
        if not isinstance(value, str):
            raise KubeConfigError(
                f"{self._source}.{key}: expected a string, got {type(value).__name__}")
        return value

    # -- the Auth interface ------------------------------------------------------------

    def apply(self, headers: MutableMapping[str, str]) -> None:
        token, _ = self._credentials()
        if token:
            headers["Authorization"] = f"Bearer {token}"

    def cert_files(self) -> tuple[str, str] | None:
        """(certificate file, key file) if the plugin returned a client certificate."""
        _, cert = self._credentials()
        return cert

    def refresh_after_unauthorized(self) -> bool:
        """Re-run the plugin unless another thread already did since this one's request.

        Raises KubeConfigError if the plugin fails, which says more than the 401."""
        seen = getattr(self._local, "generation", None)
        with self._lock:
            if seen is not None and seen != self._generation:
                return True  # rotated by someone else after our request was sent
            before = (self._token, self._cert_files)
            self._run_locked()
            return (self._token, self._cert_files) != before

    @property
    def expiry(self) -> float | None:
        """Clock time when the cached credentials expire (None: no expiry or none yet)."""
        return self._expiry

    def _credentials(self) -> tuple[str | None, tuple[str, str] | None]:
        with self._lock:
            if self._generation == 0 or self._expired_locked():
                self._run_locked()
            self._local.generation = self._generation
            return self._token, self._cert_files

    def _expired_locked(self) -> bool:
        return self._expiry is not None and self._clock.now() > self._expiry

    # -- running the plugin ------------------------------------------------------------

    def exec_info(self) -> dict[str, Any]:
        """The ExecCredential given to the plugin in KUBERNETES_EXEC_INFO."""
        spec: dict[str, Any] = {"interactive": False}
        if self.provide_cluster_info and self._cluster:
            spec["cluster"] = self._cluster
        return {"kind": "ExecCredential", "apiVersion": self.api_version, "spec": spec}

    def _run_locked(self) -> None:
        if self.interactive_mode == "Always":
            raise KubeConfigError(
                f"{self._source}: exec plugin {self.command} cannot support interactive mode: "
                f"interactiveMode is Always but standard input is not a terminal "
                f"(kubenb never gives plugins a terminal); set interactiveMode to Never or "
                f"IfAvailable, or log in with the tool first")
        executable = self._resolve_command()
        env = dict(os.environ)
        env.update(self._env)
        env["KUBERNETES_EXEC_INFO"] = json.dumps(self.exec_info(), separators=(",", ":"))
        log.debug("%s: running exec plugin %s", self._source, self.command)
        try:
            done = subprocess.run(
                [executable, *self.args], env=env, stdin=subprocess.DEVNULL,
                capture_output=True, timeout=self._timeout, check=False)
        except FileNotFoundError:
            raise self._not_found() from None
        except subprocess.TimeoutExpired:
            raise KubeConfigError(
                f"{self._source}: exec: executable {self.command} did not finish within "
                f"{self._timeout:g}s{self._hint()}") from None
        except OSError as err:
            raise KubeConfigError(
                f"{self._source}: exec: executable {self.command} could not be started: "
                f"{err.strerror}{self._hint()}") from None
        if done.returncode != 0:
            tail = self._stderr_tail(done.stderr)
            raise KubeConfigError(
                f"{self._source}: exec: executable {self.command} failed with exit code "
                f"{done.returncode}" + (f"\nstderr:\n{tail}" if tail else "") + self._hint())
        self._accept(done.stdout)  # first, so the new token is redacted from stderr below
        if done.stderr:
            log.debug("%s: exec plugin %s wrote to stderr:\n%s", self._source, self.command,
                      self._stderr_tail(done.stderr))

    def _resolve_command(self) -> str:
        if os.sep in self.command or (os.altsep and os.altsep in self.command):
            return self.command
        found = shutil.which(self.command)
        if found is None:
            raise self._not_found()
        return found

    def _not_found(self) -> KubeConfigError:
        text = f"{self._source}: exec: executable {self.command} not found\n\n{_INSTALL_HELP}"
        if self.install_hint:
            text += f"\n\n{self.install_hint}"
        return KubeConfigError(text)

    def _hint(self) -> str:
        return f"\n\n{self.install_hint}" if self.install_hint else ""

    def _stderr_tail(self, raw: bytes, lines: int = 20, chars: int = 2000) -> str:
        text = raw.decode("utf-8", errors="replace").strip()
        text = "\n".join(text.splitlines()[-lines:])[-chars:]
        for secret in self._secrets:
            text = text.replace(secret, _REDACTED)
        return text

    def _accept(self, stdout: bytes) -> None:
        """Decode the plugin's ExecCredential; messages never quote its contents."""
        where = f"{self._source}: exec plugin {self.command}"
        try:
            cred = json.loads(stdout)
        except ValueError:
            raise KubeConfigError(f"{where}: decoding stdout: not valid JSON") from None
        if not isinstance(cred, dict):
            raise KubeConfigError(f"{where}: decoding stdout: not a JSON object")
        if cred.get("kind") not in (None, "ExecCredential"):
            raise KubeConfigError(f"{where}: returned kind {cred.get('kind')!r}, "
                                  f"expected ExecCredential")
        returned = cred.get("apiVersion")
        if returned != self.api_version:
            raise KubeConfigError(
                f"{where}: exec plugin is configured to use API version {self.api_version}, "
                f"plugin returned version {returned}")
        status = cred.get("status")
        if not isinstance(status, dict):
            raise KubeConfigError(f"{where}: exec plugin didn't return a status field")
        token = status.get("token") or None
        cert = status.get("clientCertificateData") or None
        key = status.get("clientKeyData") or None
        for name, value in (("token", token), ("clientCertificateData", cert),
                            ("clientKeyData", key)):
            if value is not None and not isinstance(value, str):
                raise KubeConfigError(f"{where}: status.{name} is not a string")
        if token is None and cert is None and key is None:
            raise KubeConfigError(f"{where}: exec plugin didn't return a token or cert/key pair")
        if token is not None:
            check_token(token, f"{where}: status.token")
        if (cert is None) != (key is None):
            raise KubeConfigError(
                f"{where}: exec plugin returned only certificate or key, not both")
        cert_files = None
        if cert is not None and key is not None:
            if "-----BEGIN" not in cert or "-----BEGIN" not in key:
                raise KubeConfigError(
                    f"{where}: status.clientCertificateData/clientKeyData are not PEM")
            cert_files = (write_private_file(cert.encode(), ".crt"),
                          write_private_file(key.encode(), ".key"))
        expiry = self._expiry_from(status.get("expirationTimestamp"), where)
        if token:
            self._secrets.add(token)
        self._token, self._cert_files, self._expiry = token, cert_files, expiry
        self._generation += 1
        log.debug("%s: credentials from exec plugin %s (%s)", self._source, self.command,
                  "no expiry" if expiry is None else
                  f"valid for {expiry - self._clock.now():.0f}s")

    def _expiry_from(self, stamp: Any, where: str) -> float | None:
        if stamp is None or stamp == "":
            return None
        if not isinstance(stamp, str):
            raise KubeConfigError(f"{where}: status.expirationTimestamp is not a string")
        try:
            when = _parse_rfc3339(stamp)
        except ValueError:
            raise KubeConfigError(
                f"{where}: status.expirationTimestamp {stamp!r} is not an RFC 3339 time"
            ) from None
        remaining = (when - datetime.now(timezone.utc)).total_seconds()
        return self._clock.now() + remaining

    def __repr__(self) -> str:
        return f"ExecAuth(command={self.command!r}, apiVersion={self.api_version!r})"


def _parse_rfc3339(text: str) -> datetime:
    """RFC 3339 with 'Z' or an offset and any fraction (fromisoformat in 3.10 takes neither)."""
    value = text.strip()
    if value[-1:] in ("Z", "z"):
        value = value[:-1] + "+00:00"
    if "." in value:
        head, _, rest = value.partition(".")
        digits = len(rest) - len(rest.lstrip("0123456789"))
        fraction, zone = rest[:digits], rest[digits:]
        value = f"{head}.{(fraction + '000000')[:6]}{zone}"
    if len(value) > 10 and value[10] in "t ":
        value = f"{value[:10]}T{value[11:]}"
    parsed = datetime.fromisoformat(value)
    if parsed.tzinfo is None:
        raise ValueError("no time zone")
    return parsed
