"""`kubenb.controllers`, the package's old name, keeps working for one release: it warns,
and it gives the very objects of `kubenb.controllermanager`, submodules included."""

from __future__ import annotations

import subprocess
import sys

CHECK = """
import warnings
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    import kubenb.controllers as old
    from kubenb.controllers.kubelet import Kubelet
    from kubenb.controllers import ControllerManager
import kubenb.controllermanager as new
import kubenb.controllermanager.kubelet as kubelet
assert Kubelet is kubelet.Kubelet and ControllerManager is new.ControllerManager
assert old.__all__ == new.__all__
messages = [str(w.message) for w in caught if w.category is DeprecationWarning]
assert messages == ["kubenb.controllers is deprecated: import kubenb.controllermanager "
                    "instead"], messages
"""


def test_the_old_name_warns_and_gives_the_same_objects() -> None:
    # A fresh interpreter: the warning is given once, when the alias is first imported.
    run = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True,
                         timeout=60)
    assert run.returncode == 0, run.stderr[-2000:]
