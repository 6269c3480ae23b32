"""Deprecated alias of `kubenb.controllermanager`, kept for one release.

The cluster's own controllers were renamed after kube-controller-manager so that they
cannot be confused with `kubenb.controller` (the reconcile runner users write with).
Importing this package, or any `kubenb.controllers.<module>`, warns once and gives the
same module objects as `kubenb.controllermanager`.
"""

from __future__ import annotations

import importlib
import sys
import warnings

from kubenb import controllermanager as _target
from kubenb.controllermanager import *  # noqa: F403
from kubenb.controllermanager import __all__ as __all__

warnings.warn("kubenb.controllers is deprecated: import kubenb.controllermanager instead",
              DeprecationWarning, stacklevel=2)

# `import kubenb.controllers.kubelet` finds the moved module under its old name.
for _name in ("controller_utils", "deployment", "garbage_collector", "job", "kubelet",
              "manager", "replicaset", "root_ca_publisher", "serviceaccounts"):
    sys.modules[f"{__name__}.{_name}"] = importlib.import_module(
        f"{_target.__name__}.{_name}")
