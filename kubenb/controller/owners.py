"""Owner references (apimachinery's metav1 helpers): which object controls which.

A controller marks what it makes with an ownerReference that says `controller: true`
(`new_controller_ref`); `controller_of` finds that reference again, and
`is_controlled_by` checks it names a given owner by UID, so an owner deleted and made
again under the same name does not own what the old one made.
"""

from __future__ import annotations

from typing import Any

__all__ = ["controller_of", "is_controlled_by", "new_controller_ref"]


def controller_of(obj: Any) -> dict[str, Any] | None:
    """The ownerReference with `controller: true`, or None (apimachinery's `GetControllerOf`)."""
    meta = obj.get("metadata") if isinstance(obj, dict) else None
    refs = meta.get("ownerReferences") if isinstance(meta, dict) else None
    for ref in refs or ():
        if isinstance(ref, dict) and ref.get("controller") is True:
            return ref
    return None


def new_controller_ref(owner: dict[str, Any], api_version: str, kind: str) -> dict[str, Any]:
    """An ownerReference naming `owner` as the controller (apimachinery's
    `metav1.NewControllerRef`): blockOwnerDeletion and controller both true."""
    meta = owner["metadata"]
    return {"apiVersion": api_version, "kind": kind, "name": meta["name"],
            "uid": meta["uid"], "controller": True, "blockOwnerDeletion": True}


def is_controlled_by(obj: dict[str, Any], owner: dict[str, Any]) -> bool:
    """Whether `owner` is `obj`'s controller, by UID (apimachinery's `metav1.IsControlledBy`):
    an owner made again under the same name does not own what the old one made."""
    ref = controller_of(obj)
    return ref is not None and ref.get("uid") == (owner.get("metadata") or {}).get("uid")
