"""The verbs on stored objects: get, list, create, update, patch, apply, delete,
deletecollection, and the /status and /scale subresources.

This is the apiserver's generic registry (`registry/generic/registry.Store`) in small:
metadata is managed here (uid, creationTimestamp, resourceVersion, generation,
generateName, namespace defaulting, deletionTimestamp with finalizers, managedFields) and
every write is one atomic read-modify-write under the storage lock. Writes to
CustomResourceDefinitions also start (or stop) serving their resources.

`Registry.for_dry_run()` is the apiserver's DryRunnableStorage in small: the same checks
and answers, but nothing is stored, no resourceVersion is taken and no watch sees it.

One concept, so one module past the usual length: every verb shares the same metadata
rules, the same lock and the same dry-run switch. What a verb only consults lives
beside it: query parameters in `params`, continue tokens in `continue_tokens`, what a
DELETE stores in `deletion`.
"""

from __future__ import annotations

import builtins
import copy
import json
import random
import uuid
from typing import Any

from kubenb.jsoncopy import json_copy
from kubenb.meta import dict_field
from kubenb.server import admission, defaults, errors
from kubenb.server import crd as crds
from kubenb.server.apply import Manager, server_side_apply, track_update
from kubenb.server.continue_tokens import CONTINUE_EXPIRED, decode_continue, encode_continue
from kubenb.server.deletion import marked_for_deletion
from kubenb.server.encoding import TooDeepError, check_depth, now_rfc3339
from kubenb.server.filters import Predicate, make_predicate
from kubenb.server.list_items import ListItemCache, list_item
from kubenb.server.params import int_param, parse_rv
from kubenb.server.patch import (
    JSON_PATCH,
    MERGE_PATCH,
    STRATEGIC_PATCH,
    PatchError,
    PatchFormatError,
    json_patch,
    merge_patch,
    strategic_merge_patch,
)
from kubenb.server.resources import ResourceRegistry, ResourceType, scale_of, with_replicas
from kubenb.server.storage import Obj, Storage, TooOldError
from kubenb.server.validation import list_options_problems, validate_metadata, validate_object

__all__ = ["SYSTEM_NAMESPACES", "Registry", "present"]

SYSTEM_NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease")
_GENERATE_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
_META_ORDER = ("name", "generateName", "namespace", "selfLink", "uid", "resourceVersion",
               "generation", "creationTimestamp", "deletionTimestamp",
               "deletionGracePeriodSeconds", "labels", "annotations", "ownerReferences",
               "finalizers", "managedFields")
_SYSTEM = Manager("kube-apiserver")
_CR_PATCH_TYPES = ("the body of the request was in an unknown format - accepted media types "
                   "include: application/json-patch+json, application/merge-patch+json, "
                   "application/apply-patch+yaml")


def _ordered_meta(meta: dict[str, Any]) -> dict[str, Any]:
    out = {k: meta[k] for k in _META_ORDER if k in meta}
    out.update((k, v) for k, v in meta.items() if k not in out)
    return out


def _shape(rtype: ResourceType, body: dict[str, Any], meta: dict[str, Any]) -> Obj:
    """kind, apiVersion, metadata first (as the apiserver encodes), then the rest."""
    obj: Obj = {"kind": rtype.kind, "apiVersion": rtype.stored_group_version,
                "metadata": _ordered_meta(meta)}
    for key, value in body.items():
        if key not in obj:
            obj[key] = value
    return obj


def _content(obj: Obj) -> dict[str, Any]:
    """Everything generation cares about: all but metadata and status."""
    return {k: v for k, v in obj.items() if k not in ("metadata", "status", "kind", "apiVersion")}


def _sorted_keys(value: Any) -> Any:
    """Custom resources are unstructured: the apiserver writes their keys sorted."""
    if isinstance(value, dict):
        return {k: _sorted_keys(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [_sorted_keys(v) for v in value]
    return value


def present(rtype: ResourceType, obj: Obj) -> Obj:
    """A stored object as seen through `rtype`'s version (conversion strategy None)."""
    if rtype.version == rtype.stored_version or obj.get("kind") == "Status":
        return obj
    return dict(obj, apiVersion=rtype.group_version)


def _same_but_times(new: Obj, old: Obj) -> bool:
    """Whether two objects differ in nothing but managedFields timestamps (a no-op apply)."""
    def strip(obj: Obj) -> Obj:
        managed = obj["metadata"].get("managedFields") or []
        meta = dict(obj["metadata"], managedFields=[
            {k: v for k, v in e.items() if k != "time"} for e in managed if isinstance(e, dict)])
        return dict(obj, metadata=meta)

    return strip(new) == strip(old)


def _as_dry_run(obj: Obj, prev: Obj | None) -> Obj:
    """What a dry-run write answers instead of storing `obj`: its resourceVersion is the
    one of the object it would replace, and none at all for a create (as the apiserver's
    dry-run storage answers, since only a real etcd write assigns one)."""
    meta = dict(obj["metadata"])
    rv = (prev or {}).get("metadata", {}).get("resourceVersion")
    if rv:
        meta["resourceVersion"] = rv
    else:
        meta.pop("resourceVersion", None)
    return dict(obj, metadata=meta)



def _missing_for_uid(rtype: ResourceType, namespace: str, name: str, uid: str) -> str:
    """kube-apiserver's words for an update whose uid names an object that is gone (etcd's
    key: /registry/<resource>, with the group for custom resources)."""
    group = f"{rtype.group}/" if rtype.custom else ""
    key = "/".join(p for p in ("/registry", f"{group}{rtype.plural}", namespace, name) if p)
    return (f"StorageError: invalid object, Code: 4, Key: {key}, ResourceVersion: 0, "
            f"AdditionalErrorMsg: Precondition failed: UID in precondition: {uid}, UID in "
            "object meta: ")

class Registry:
    """The REST verbs for every served type, over one Storage."""

    def __init__(self, storage: Storage, types: ResourceRegistry,
                 too_large_rv_wait: float = 3.0) -> None:
        self.storage = storage
        self.types = types
        self.too_large_rv_wait = too_large_rv_wait
        self.continue_expired = False  # fault switch: every continue token is too old
        self.dry_run = False  # True only on the views for_dry_run() hands out
        self.list_items = ListItemCache()

    def for_dry_run(self) -> Registry:
        """A view of this registry for `?dryRun=All`: every write is checked and answered
        as for real (404, 409, 422, generated names, managedFields), but nothing is stored,
        no watch event is sent and CRDs start serving nothing."""
        view = copy.copy(self)
        view.dry_run = True
        return view

    # -- helpers -------------------------------------------------------------------

    def _namespace_must_exist(self, namespace: str, rtype: ResourceType | None = None,
                              name: str = "") -> None:
        """404 without the namespace; with `rtype` (a create), 403 while it is being
        deleted, as the apiserver's NamespaceLifecycle admission answers."""
        ns = self.storage.get("namespaces", "", namespace)
        if ns is None:
            raise errors.not_found("namespaces", namespace)
        if rtype is not None and ns["metadata"].get("deletionTimestamp"):
            raise errors.namespace_terminating(rtype.plural, name, namespace, rtype.group)

    def _get_or_404(self, rtype: ResourceType, namespace: str, name: str) -> Obj:
        obj = self.storage.get(rtype.key, namespace, name)
        if obj is None:
            raise errors.not_found(rtype.plural, name, rtype.group)
        return obj

    def _check_body(self, rtype: ResourceType, body: Any) -> dict[str, Any]:
        if not isinstance(body, dict):
            raise errors.bad_request(
                f"the object provided is unrecognized (must be of type {rtype.kind}): "
                "couldn't get version/kind; json parse error: expected an object")
        kind = body.get("kind")
        version = body.get("apiVersion")
        if (kind and kind != rtype.kind) or (version and version != rtype.group_version):
            raise errors.bad_request(
                f'{kind or rtype.kind} in version "{version or rtype.group_version}" cannot be '
                f"handled as a {rtype.kind}: no kind \"{kind}\" is registered for version "
                f'"{version}"' if kind != rtype.kind else
                f'the API version in the data ({version}) does not match the expected API '
                f"version ({rtype.group_version})")
        meta = body.get("metadata")
        if meta is None:
            meta = {}
        if not isinstance(meta, dict):
            raise errors.bad_request("metadata must be an object")
        return meta

    @staticmethod
    def _key(rtype: ResourceType, namespace: str | None, obj: Obj) -> str:
        meta = obj["metadata"]
        if rtype.namespaced and namespace is None:
            return f"{meta.get('namespace', '')}/{meta['name']}"
        return meta["name"]

    # -- reads ---------------------------------------------------------------------

    def get(self, rtype: ResourceType, namespace: str, name: str) -> Obj:
        """GET of one object."""
        return present(rtype, self._get_or_404(rtype, namespace if rtype.namespaced else "",
                                               name))

    def list(self, rtype: ResourceType, namespace: str | None, params: dict[str, str],
             *, encoded_items: bool = False) -> Obj:
        """A list with selectors, paging and resourceVersion semantics (W6-W8).
        `encoded_items`: the items of a built-in list come as their JSON (`msgspec.Raw`,
        kept per stored object by kubenb.server.list_items), for an answer that is
        plain JSON."""
        problems = list_options_problems(params, watch=False)
        if problems:
            raise errors.invalid_list_options(problems)
        predicate = make_predicate(rtype, params.get("labelSelector", ""),
                                   params.get("fieldSelector", ""))
        limit = int_param(params, "limit", 0)
        token = params.get("continue", "")
        rv_param = params.get("resourceVersion", "")
        match = params.get("resourceVersionMatch", "")
        ns = namespace if rtype.namespaced else ""
        start = ""
        if token:
            if rv_param:
                raise errors.bad_request(
                    "specifying resource version is not allowed when using continue")
            rv, start = decode_continue(token)
            if rv >= 0 and (self.continue_expired or rv < self.storage.oldest_resource_version):
                raise errors.expired(CONTINUE_EXPIRED,
                                     {"continue": encode_continue(-1, start)})
            items, rv = self._read(rtype, ns, None if rv < 0 else rv)
        elif rv_param in ("", "0"):
            if rv_param == "0":
                limit = 0  # served "from the watch cache", which ignores limit (W8)
            items, rv = self._read(rtype, ns, None)
        else:
            wanted = parse_rv(rv_param)
            current = self.storage.resource_version
            if wanted > current and not self.storage.wait_for(wanted, self.too_large_rv_wait):
                raise errors.too_large_resource_version(wanted, self.storage.resource_version)
            exact = match == "Exact" or (not match and limit > 0)
            if exact:
                try:
                    items = self.storage.list_at(rtype.key, ns or None, wanted)
                except TooOldError:
                    raise errors.expired(
                        "The resourceVersion for the provided list is too old.") from None
                rv = wanted
            else:
                items, rv = self._read(rtype, ns, None)
        return self._page(rtype, namespace, items, rv, start, limit, predicate, encoded_items)

    def _read(self, rtype: ResourceType, ns: str | None,
              rv: int | None) -> tuple[builtins.list[Obj], int]:
        if rv is None:
            return self.storage.list(rtype.key, ns or None)
        try:
            return self.storage.list_at(rtype.key, ns or None, rv), rv
        except TooOldError:
            raise errors.expired(CONTINUE_EXPIRED) from None

    def _page(self, rtype: ResourceType, namespace: str | None, items: builtins.list[Obj], rv: int,
              start: str, limit: int, predicate: Predicate | None, encoded_items: bool) -> Obj:
        if start:
            items = [o for o in items if self._key(rtype, namespace, o) >= start]
        meta: dict[str, Any] = {"resourceVersion": str(rv)}
        if limit > 0:
            page: list[Obj] = []
            rest_index = len(items)
            for index, obj in enumerate(items):
                if predicate is None or predicate(obj):
                    if len(page) == limit:
                        rest_index = index
                        break
                    page.append(obj)
            if rest_index < len(items):
                last = self._key(rtype, namespace, page[-1])
                meta["continue"] = encode_continue(rv, last + "\x00")
                if predicate is None:
                    meta["remainingItemCount"] = len(items) - rest_index
            items = page
        elif predicate is not None:
            items = [o for o in items if predicate(o)]
        if rtype.custom:  # unstructured lists: sorted keys, items keep kind/apiVersion
            meta.setdefault("continue", "")
            return {"apiVersion": rtype.group_version,
                    "items": [present(rtype, o) for o in items], "kind": rtype.list_kind,
                    "metadata": dict(sorted(meta.items()))}
        if encoded_items:
            listed: builtins.list[Any] = self.list_items.raw_items(
                f"{rtype.group_version}/{rtype.key}", items,
                lambda: self.storage.count(rtype.key))
        else:
            listed = [list_item(o) for o in items]
        return {"kind": rtype.list_kind, "apiVersion": rtype.group_version,
                "metadata": meta, "items": listed}

    # -- writes --------------------------------------------------------------------

    def create(self, rtype: ResourceType, namespace: str, body: Any,
               manager: Manager | None = None,
               managed_fields: builtins.list[dict[str, Any]] | None = None) -> Obj:
        """POST: a new object with server-managed metadata; 201 on success.

        `manager` records an Update entry in managedFields (None: none recorded);
        `managed_fields` stores exactly those (what a server-side apply computed).
        """
        meta = dict(self._check_body(rtype, body))
        body = json_copy(body)
        if rtype.namespaced:
            body_ns = meta.get("namespace")
            if body_ns and body_ns != namespace:
                raise errors.bad_request("the namespace of the provided object does not match "
                                         "the namespace sent on the request")
            meta["namespace"] = namespace
        else:
            meta.pop("namespace", None)
            namespace = ""
        with self.storage.lock:
            if rtype.namespaced:
                self._namespace_must_exist(namespace, rtype, str(meta.get("name") or ""))
            causes = validate_metadata(rtype.plural, meta)
            if causes:
                raise errors.invalid(rtype.kind, str(meta.get("name") or ""), causes,
                                     rtype.group)
            if not meta.get("name"):
                meta["name"] = self._generate_name(rtype, namespace, meta["generateName"])
            name = meta["name"]
            if self.storage.get(rtype.key, namespace, name) is not None:
                raise errors.already_exists(rtype.plural, name, rtype.group)
            for drop in ("resourceVersion", "deletionTimestamp", "deletionGracePeriodSeconds",
                         "selfLink", "managedFields"):
                meta.pop(drop, None)
            meta["uid"] = str(uuid.uuid4())
            meta["resourceVersion"] = ""  # keeps its place in the key order; set on put
            meta["creationTimestamp"] = now_rfc3339()
            if rtype.has_generation:
                meta["generation"] = 1
            else:
                meta.pop("generation", None)
            self._prepare_create(rtype, name, meta, body)  # on the copy made above
            obj = _shape(rtype, body, json_copy(meta))
            defaults.set_defaults(rtype, obj)
            if crds.is_crd(rtype):
                self._check_crd(obj, None)
            if managed_fields is not None:
                managed = managed_fields
            elif manager is not None:
                managed = track_update(None, obj, manager, rtype.group_version,
                                       meta["creationTimestamp"], custom=rtype.custom)
            else:
                managed = []
            self._admit(rtype, obj, None)
            if managed:
                obj["metadata"]["managedFields"] = managed
            obj = defaults.as_written(rtype, obj)
            stored = self._put(rtype, namespace, name, obj)
            if crds.is_crd(rtype):
                self._establish(rtype, stored)
            return present(rtype, stored)

    def _admit(self, rtype: ResourceType, obj: Obj, old: Obj | None) -> None:
        """Admission and allocation (kubenb.server.admission), then the type's validation."""
        if rtype.custom:
            return
        if old is None:
            admission.admit_create(rtype, obj, self.storage)
        else:
            admission.admit_update(rtype, old, obj, self.storage)
        causes = validate_object(rtype.group, rtype.kind, obj, old)
        if causes:
            raise errors.invalid(rtype.kind, obj["metadata"].get("name", ""), causes,
                                 rtype.group)

    def _put(self, rtype: ResourceType, namespace: str, name: str, obj: Obj) -> Obj:
        if rtype.custom:
            obj = _sorted_keys(obj)
        if self.dry_run:
            return _as_dry_run(obj, self.storage.get(rtype.key, namespace, name))
        return self.storage.put(rtype.key, namespace, name, obj)

    def _delete_stored(self, rtype: ResourceType, namespace: str, name: str) -> Obj | None:
        """Remove from storage; in a dry run only say what would have been removed."""
        if self.dry_run:
            return self.storage.get(rtype.key, namespace, name)
        return self.storage.delete(rtype.key, namespace, name)

    def _generate_name(self, rtype: ResourceType, namespace: str, prefix: str) -> str:
        prefix = prefix[:58]
        for _ in range(100):
            name = prefix + "".join(random.choices(_GENERATE_ALPHABET, k=5))
            if self.storage.get(rtype.key, namespace, name) is None:
                return name
        raise errors.internal_error("could not generate a unique name")

    @staticmethod
    def _prepare_create(rtype: ResourceType, name: str, meta: dict[str, Any],
                        body: dict[str, Any]) -> None:
        if rtype.key == "namespaces":  # spec.finalizers and status: admission.admit_create
            meta["labels"] = dict(meta.get("labels") or {},
                                  **{"kubernetes.io/metadata.name": name})
            body.pop("status", None)
        elif crds.is_crd(rtype):
            crds.set_defaults(body)
            body["status"] = crds.initial_status(body)
        elif "status" in rtype.subresources and rtype.key != "nodes":
            body.pop("status", None)
        if rtype.key == "secrets" and not body.get("type"):
            body["type"] = "Opaque"  # the API's default
        defaulted = body.get("spec")
        if isinstance(defaulted, dict) and not rtype.custom:
            if rtype.group == "apps" and rtype.kind != "DaemonSet":
                defaulted.setdefault("replicas", 1)
            elif rtype.key == "services":
                defaulted.setdefault("type", "ClusterIP")

    def update(self, rtype: ResourceType, namespace: str, name: str, body: Any,
               subresource: str = "", manager: Manager | None = None) -> Obj:
        """PUT: replace (or replace the status), with optimistic concurrency."""
        meta = self._check_body(rtype, body)
        if meta.get("name") and meta["name"] != name:
            raise errors.bad_request(f"the name of the object ({meta['name']}) does not match "
                                     f"the name on the URL ({name})")
        ns = namespace if rtype.namespaced else ""
        if rtype.namespaced and meta.get("namespace") and meta["namespace"] != namespace:
            raise errors.bad_request("the namespace of the provided object does not match the "
                                     "namespace sent on the request")
        with self.storage.lock:
            if meta.get("uid") and self.storage.get(rtype.key, ns, name) is None:
                # The body's uid is a precondition: the real server checks it against
                # the stored object first, and a missing object fails it with a 409.
                raise errors.conflict(rtype.plural, name, rtype.group, _missing_for_uid(
                    rtype, ns, name, str(meta["uid"])))
            old = self._get_or_404(rtype, ns, name)
            return present(rtype, self._replace(rtype, ns, name, old, json_copy(body),
                                                subresource, manager))

    def _replace(self, rtype: ResourceType, ns: str, name: str, old: Obj,
                 body: dict[str, Any], subresource: str, manager: Manager | None = None,
                 managed_fields: builtins.list[dict[str, Any]] | None = None) -> Obj:
        meta = dict(body.get("metadata") or {})
        old_meta = old["metadata"]
        wanted_rv = meta.get("resourceVersion")
        if wanted_rv and str(wanted_rv) != old_meta["resourceVersion"]:
            raise errors.conflict(rtype.plural, name, rtype.group)
        if meta.get("uid") and meta["uid"] != old_meta["uid"]:
            raise errors.conflict(
                rtype.plural, name, rtype.group,
                f"Precondition failed: UID in precondition: {meta['uid']}, UID in object meta: "
                f"{old_meta['uid']}")
        requested = meta.pop("managedFields", None)
        if subresource == "status":
            new_body = {k: v for k, v in old.items() if k != "status"}
            if "status" in body:
                new_body["status"] = body["status"]
            meta = dict(old_meta)
            requested = None
        else:
            new_body = dict(body)
            if "status" in rtype.subresources and rtype.key != "nodes":
                new_body.pop("status", None)
                if "status" in old:
                    new_body["status"] = old["status"]
            for keep in ("uid", "creationTimestamp", "deletionTimestamp",
                         "deletionGracePeriodSeconds", "generation", "generateName"):
                if keep in old_meta and (keep != "generateName" or keep not in meta):
                    meta[keep] = old_meta[keep]
                elif keep != "generateName":
                    meta.pop(keep, None)
            meta["name"] = name
            if rtype.namespaced:
                meta["namespace"] = ns
            else:
                meta.pop("namespace", None)
            meta.pop("selfLink", None)
            causes = validate_metadata(rtype.plural, meta)
            if causes:
                raise errors.invalid(rtype.kind, name, causes, rtype.group)
            if old_meta.get("deletionTimestamp") and meta.get("finalizers") and not set(
                    meta["finalizers"]) <= set(old_meta.get("finalizers") or []):
                raise errors.invalid(rtype.kind, name, [errors.cause(
                    "FieldValueForbidden", "metadata.finalizers",
                    "Forbidden: no new finalizers can be added if the object is being deleted")],
                    rtype.group)
            if old_meta.get("managedFields") is not None:
                meta["managedFields"] = old_meta["managedFields"]
        if rtype.key == "namespaces":
            labels = dict(meta.get("labels") or {})
            labels["kubernetes.io/metadata.name"] = name
            meta["labels"] = labels
        meta["resourceVersion"] = old_meta["resourceVersion"]
        new = _shape(rtype, new_body, meta)
        new["kind"], new["apiVersion"] = rtype.kind, rtype.stored_group_version
        if subresource != "status":
            defaults.set_defaults(rtype, new)
            self._admit(rtype, new, old)
        if crds.is_crd(rtype) and subresource != "status":
            crds.set_defaults(new)
            self._check_crd(new, old)
        if rtype.has_generation and _content(new) != _content(old):
            new["metadata"]["generation"] = int(old_meta.get("generation") or 1) + 1
            new["metadata"] = _ordered_meta(new["metadata"])
        self._set_managed(rtype, old, new, manager, managed_fields, requested)
        new = defaults.as_written(rtype, new, "status" if subresource == "status" else "")
        if new == old or (managed_fields is not None and _same_but_times(new, old)):
            return old  # a no-op update: no new resourceVersion, no event
        if (new["metadata"].get("deletionTimestamp") and not new["metadata"].get("finalizers")
                and not old_meta.get("deletionGracePeriodSeconds")):  # graceful: the kubelet
            last = self._put(rtype, ns, name, new)
            if self.dry_run:
                return last
            final = self.storage.delete(rtype.key, ns, name)
            if final is not None:
                self._removed(rtype, final)
            return final or new
        stored = self._put(rtype, ns, name, new)
        if crds.is_crd(rtype):
            stored = self._crd_written(rtype, stored, subresource != "status")
        return stored

    def _set_managed(self, rtype: ResourceType, old: Obj, new: Obj, manager: Manager | None,
                     managed_fields: builtins.list[dict[str, Any]] | None, requested: Any) -> None:
        """managedFields of `new`: given (apply), tracked (an Update by `manager`), or the
        request's own when it replaced them. `[{}]` strips them all (the documented reset);
        `[]` counts as not set."""
        old_managed = old["metadata"].get("managedFields")
        replaced = bool(requested) and isinstance(requested, list) and requested != old_managed
        if requested == [{}] and managed_fields is None:
            managed: Any = []
        elif managed_fields is not None:
            managed = managed_fields
        elif manager is not None:
            managed = track_update(old, new, manager, rtype.group_version, now_rfc3339(),
                                   requested if replaced else None, rtype.custom)
        else:
            managed = requested if replaced else old_managed
        meta = dict(new["metadata"])
        meta.pop("managedFields", None)
        if managed:
            meta["managedFields"] = managed
        new["metadata"] = _ordered_meta(meta)

    def patch(self, rtype: ResourceType, namespace: str, name: str, patch_type: str,
              patch: Any, subresource: str = "", manager: Manager | None = None) -> Obj:
        """PATCH with merge, JSON or strategic merge patch (not strategic on CRs: 415)."""
        if rtype.custom and patch_type == STRATEGIC_PATCH:
            raise errors.unsupported_media_type(_CR_PATCH_TYPES)
        ns = namespace if rtype.namespaced else ""
        with self.storage.lock:
            old = self._get_or_404(rtype, ns, name)
            new = self._patched(rtype, present(rtype, old), patch_type, patch)
            meta = new.get("metadata")
            if not isinstance(meta, dict):
                raise errors.bad_request("metadata must be an object")
            if meta.get("name") != name:
                raise errors.bad_request(f"the name of the object ({meta.get('name')}) does not "
                                         f"match the name on the URL ({name})")
            return present(rtype, self._replace(rtype, ns, name, old, new, subresource,
                                                manager))

    @staticmethod
    def _patched(rtype: ResourceType, target: Obj, patch_type: str, patch: Any) -> Obj:
        try:
            if patch_type == MERGE_PATCH:
                if not isinstance(patch, dict):
                    raise PatchFormatError("merge patch must be a JSON object")
                new = merge_patch(target, patch)
            elif patch_type == JSON_PATCH:
                new = json_patch(target, patch)
                check_depth(new)  # an add or copy can nest deeper than the body did
            elif patch_type == STRATEGIC_PATCH:
                if not isinstance(patch, dict):
                    raise PatchFormatError("strategic merge patch must be a JSON object")
                new = strategic_merge_patch(target, patch, rtype.kind)
            else:
                raise errors.unsupported_media_type()
        except PatchFormatError as exc:
            raise errors.bad_request(str(exc)) from None
        except TooDeepError as exc:
            raise errors.bad_request(f"the patched object is not valid: {exc}") from None
        except PatchError:
            raise errors.StatusError(errors.status_body(
                422, "Invalid", "the server rejected our request due to an error in our request",
                {})) from None
        if not isinstance(new, dict):
            raise errors.bad_request("the patched object is not a JSON object")
        return json_copy(new)

    def apply(self, rtype: ResourceType, namespace: str, name: str, config: Any,
              manager: Manager, force: bool = False, subresource: str = ""
              ) -> tuple[Obj, bool]:
        """Server-side apply (PATCH application/apply-patch+yaml): (object, created).

        Creates the object when it is missing; otherwise merges the configuration into it
        and records field ownership (see kubenb.server.apply), 409 on conflicts.
        """
        if not isinstance(config, dict):
            raise errors.bad_request("error decoding patch: the apply configuration must be "
                                     "an object")
        for key in ("apiVersion", "kind"):
            if not config.get(key):
                raise errors.bad_request(
                    f"Object '{'Kind' if key == 'kind' else 'apiVersion'}' is missing in the "
                    "apply configuration; server-side apply needs apiVersion and kind")
        meta = self._check_body(rtype, config)
        if meta.get("name") and meta["name"] != name:
            raise errors.bad_request(f"the name of the object ({meta['name']}) does not match "
                                     f"the name on the URL ({name})")
        ns = namespace if rtype.namespaced else ""
        if rtype.namespaced and meta.get("namespace") and meta["namespace"] != ns:
            raise errors.bad_request("the namespace of the provided object does not match the "
                                     "namespace sent on the request")
        applied = json_copy(config)
        applied["metadata"] = dict(applied.get("metadata") or {}, name=name)
        if rtype.namespaced:
            applied["metadata"]["namespace"] = ns
        if subresource == "status":
            applied = {k: v for k, v in applied.items() if k in (
                "apiVersion", "kind", "metadata", "status")}
            applied["metadata"] = {"name": name}
        elif "status" in rtype.subresources and rtype.key != "nodes":
            applied.pop("status", None)
        if rtype.custom:
            def merge(live: Obj, cfg: Obj) -> Obj:
                return merge_patch(live, cfg)
        else:
            def merge(live: Obj, cfg: Obj) -> Obj:
                return strategic_merge_patch(live, cfg, rtype.kind)
        now = now_rfc3339()
        with self.storage.lock:
            live = self.storage.get(rtype.key, ns, name)
            if live is None:
                if subresource:
                    raise errors.not_found(rtype.plural, name, rtype.group)
                obj, managed = server_side_apply(None, applied, manager, rtype.group_version,
                                                 now, merge, force, rtype.custom)
                return self.create(rtype, ns, obj, managed_fields=managed), True
            merged, managed = server_side_apply(present(rtype, live), applied, manager,
                                                rtype.group_version, now, merge, force,
                                                rtype.custom)
            new = self._replace(rtype, ns, name, live, json_copy(merged), subresource,
                                managed_fields=managed)
            return present(rtype, new), False

    # -- /scale ----------------------------------------------------------------------------

    def get_scale(self, rtype: ResourceType, namespace: str, name: str) -> Obj:
        """GET /scale: the autoscaling/v1 Scale of a workload or scalable custom resource."""
        return scale_of(rtype, self.get(rtype, namespace, name))

    def update_scale(self, rtype: ResourceType, namespace: str, name: str, body: Any,
                     manager: Manager | None = None) -> Obj:
        """PUT /scale: set the desired replicas (optimistic concurrency on the parent)."""
        ns = namespace if rtype.namespaced else ""
        with self.storage.lock:
            old = self._get_or_404(rtype, ns, name)
            return self._write_scale(rtype, ns, name, old, body, manager)

    def patch_scale(self, rtype: ResourceType, namespace: str, name: str, patch_type: str,
                    patch: Any, manager: Manager | None = None) -> Obj:
        """PATCH /scale (what `kubectl scale` sends): the patch applies to the Scale."""
        ns = namespace if rtype.namespaced else ""
        with self.storage.lock:
            old = self._get_or_404(rtype, ns, name)
            current = scale_of(rtype, present(rtype, old))
            if patch_type == STRATEGIC_PATCH:
                patch_type = MERGE_PATCH  # Scale has no list fields: the same result
            body = self._patched(rtype, current, patch_type, patch)
            return self._write_scale(rtype, ns, name, old, body, manager)

    def _write_scale(self, rtype: ResourceType, ns: str, name: str, old: Obj, body: Any,
                     manager: Manager | None) -> Obj:
        if not isinstance(body, dict):
            raise errors.bad_request("the object provided is unrecognized (must be of type "
                                     "Scale): expected an object")
        if (body.get("kind") and body["kind"] != "Scale") or (
                body.get("apiVersion") and body["apiVersion"] != "autoscaling/v1"):
            raise errors.bad_request(
                f'{body.get("kind") or "Scale"} in version "{body.get("apiVersion")}" cannot '
                "be handled as a Scale: no kind is registered for that version")
        meta = dict_field(body, "metadata")
        if meta.get("name") and meta["name"] != name:
            raise errors.bad_request(f"the name of the object ({meta['name']}) does not match "
                                     f"the name on the URL ({name})")
        replicas = (body.get("spec") or {}).get("replicas", 0)
        if not isinstance(replicas, int) or isinstance(replicas, bool) or replicas < 0:
            raise errors.invalid("Scale", name, [errors.cause(
                "FieldValueInvalid", "spec.replicas",
                f"Invalid value: {json.dumps(replicas)}: must be greater than or equal to 0")],
                "autoscaling")
        parent = with_replicas(rtype, present(rtype, old), replicas)
        parent["metadata"]["resourceVersion"] = meta.get("resourceVersion") or old[
            "metadata"]["resourceVersion"]
        if manager is not None:
            manager = Manager(manager.name, manager.operation, "scale")
        new = self._replace(rtype, ns, name, old, parent, "", manager)
        return scale_of(rtype, present(rtype, new))

    # -- CustomResourceDefinitions ------------------------------------------------------------

    def _check_crd(self, crd: Obj, old: Obj | None) -> None:
        causes = crds.validate(crd, old)
        if causes:
            raise errors.invalid(crds.KIND, str(crd["metadata"].get("name", "")), causes,
                                 crds.GROUP)

    def _establish(self, rtype: ResourceType, crd: Obj) -> Obj:
        """What the apiextensions controllers do after a create: accept the names, then
        establish the CRD (each a status write watchers see), then serve it. A dry run
        stops before: the controllers never see an object that was not stored."""
        if self.dry_run:
            return crd
        name = crd["metadata"]["name"]
        conflict = crds.name_conflict(crd, self.types)
        current = crd
        for status in crds.establishing_statuses(crd, conflict, now_rfc3339()):
            current = self._replace(rtype, "", name, current, dict(current, status=status),
                                    "status", Manager("kube-apiserver", subresource="status"))
        return current

    def _crd_written(self, rtype: ResourceType, crd: Obj, spec_changed: bool) -> Obj:
        if self.dry_run:
            return crd
        if spec_changed:
            status = crds.renamed_status(crd)
            if status is not None:
                return self._replace(rtype, "", crd["metadata"]["name"], crd,
                                     dict(crd, status=status), "status",
                                     Manager("kube-apiserver", subresource="status"))
        self.types.replace_crd(crd["metadata"]["name"], crds.served_types(crd))
        return crd

    def _removed(self, rtype: ResourceType, final: Obj) -> None:
        """Called once an object is gone from storage; a CRD takes its objects with it."""
        if not crds.is_crd(rtype) or self.dry_run:
            return
        name = final["metadata"]["name"]
        spec = final.get("spec") or {}
        key = f"{(spec.get('names') or {}).get('plural')}.{spec.get('group')}"
        for obj in self.storage.list(key, None)[0]:
            meta = obj["metadata"]
            self.storage.delete(key, meta.get("namespace", ""), meta["name"])
        self.types.replace_crd(name, [])

    def delete(self, rtype: ResourceType, namespace: str, name: str,
               options: dict[str, Any]) -> Obj:
        """DELETE: immediate, or deletionTimestamp while finalizers remain."""
        ns = namespace if rtype.namespaced else ""
        if rtype.key == "namespaces" and name in SYSTEM_NAMESPACES[:3]:
            raise errors.StatusError(errors.status_body(
                403, "Forbidden",
                f'namespaces "{name}" is forbidden: this namespace may not be deleted',
                {"name": name, "kind": "namespaces"}))
        with self.storage.lock:
            old = self._get_or_404(rtype, ns, name)
            pre = options.get("preconditions") or {}
            if pre.get("uid") and pre["uid"] != old["metadata"]["uid"]:
                raise errors.conflict(
                    rtype.kind, name, rtype.group,
                    f"the UID in the precondition ({pre['uid']}) does not match the UID in "
                    f"record ({old['metadata']['uid']}). The object might have been deleted "
                    "and then recreated")
            if pre.get("resourceVersion") and pre["resourceVersion"] != old["metadata"][
                    "resourceVersion"]:
                raise errors.conflict(
                    rtype.kind, name, rtype.group,
                    f"the ResourceVersion in the precondition ({pre['resourceVersion']}) does "
                    f"not match the ResourceVersion in record "
                    f"({old['metadata']['resourceVersion']}). The object might have been "
                    "modified")
            meta = old["metadata"]
            marked = marked_for_deletion(rtype, old, options)
            if marked is old:
                return present(rtype, old)
            if marked is not None:
                marked = dict(marked, metadata=_ordered_meta(marked["metadata"]))
                if rtype.key == "namespaces":  # finalizers hold it: Terminating, emptied
                    marked = dict(marked, status=dict(marked.get("status") or {},
                                                      phase="Terminating"))
                    if not self.dry_run:
                        self._empty_namespace(name)
                return present(rtype, self._put(rtype, ns, name, marked))
            if rtype.key == "namespaces":
                return self._delete_namespace(name, old)
            final = self._delete_stored(rtype, ns, name)
            assert final is not None
            self._removed(rtype, final)
            final = present(rtype, final)
            if rtype.returns_deleted_object:
                shown = dict(final, metadata=_ordered_meta(dict(
                    final["metadata"], deletionTimestamp=now_rfc3339(),
                    deletionGracePeriodSeconds=0)))
                return shown
            return errors.success_status(name, rtype.plural, meta["uid"], rtype.group)

    def _delete_namespace(self, name: str, old: Obj) -> Obj:
        """Mark Terminating, empty the namespace, then remove it (the controller's job)."""
        terminating = dict(old, metadata=_ordered_meta(dict(
            old["metadata"], deletionTimestamp=now_rfc3339())),
            status={"phase": "Terminating"})
        if self.dry_run:
            return terminating
        shown = self.storage.put("namespaces", "", name, terminating)
        self._empty_namespace(name)
        self.storage.delete("namespaces", "", name)
        return shown

    def _empty_namespace(self, name: str) -> None:
        """Remove every object in namespace `name` (the namespace controller's work,
        done at once)."""
        for rtype in self.types.types():
            if rtype.namespaced:
                for obj in self.storage.list(rtype.key, name)[0]:
                    self.storage.delete(rtype.key, name, obj["metadata"]["name"])

    def delete_collection(self, rtype: ResourceType, namespace: str | None,
                          params: dict[str, str], options: dict[str, Any]) -> Obj:
        """DELETE on a collection: deletes what the selectors match, returns them as a list."""
        predicate = make_predicate(rtype, params.get("labelSelector", ""),
                                   params.get("fieldSelector", ""))
        deleted = []
        with self.storage.lock:
            items, _ = self.storage.list(rtype.key, namespace if rtype.namespaced else None)
            for obj in items:
                if predicate is None or predicate(obj):
                    meta = obj["metadata"]
                    result = self.delete(rtype, meta.get("namespace", ""), meta["name"], options)
                    deleted.append(present(rtype, obj) if result.get("kind") == "Status"
                                   else result)
            rv = self.storage.resource_version
        return {"kind": rtype.list_kind, "apiVersion": rtype.group_version,
                "metadata": {"resourceVersion": str(rv)}, "items": deleted}

    def ensure_namespace(self, name: str) -> None:
        """Create a namespace at start-up if it is missing."""
        if self.storage.get("namespaces", "", name) is None:
            ns_type = self.types.lookup("", "v1", "namespaces")
            assert ns_type is not None
            self.create(ns_type, "", {"metadata": {"name": name}}, manager=_SYSTEM)

