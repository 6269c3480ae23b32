"""The RBAC authorizer: Roles, ClusterRoles and their bindings, enforced as kube-apiserver's.

A request is allowed when a rule reaches its user: a ClusterRoleBinding's ClusterRole
anywhere, a RoleBinding's Role or ClusterRole in the binding's namespace. Rules match as
the real ones do: verbs, API groups and resources with `*`, `resource/subresource` and
`*/subresource`, resourceNames, non-resource URLs with a trailing `*`. Subjects are
Users, Groups and ServiceAccounts (`system:serviceaccount:NS:NAME`). An aggregated
ClusterRole (`aggregationRule`) holds the rules of every ClusterRole its selectors pick,
read here at the time of the question (kube-controller-manager also writes them into the
object; a bare embedded server runs no controller that would).

Members of `system:masters` are allowed before RBAC is asked, as by the apiserver's
privileged-group authorizer, so an administrator's request costs one membership test.
For everyone else the bindings are indexed by subject once and re-indexed only after an
RBAC object changes (Storage.writes), so a question costs a few dictionary lookups and
the rules reached.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from kubenb.labels import label_selector_from_dict
from kubenb.server import errors
from kubenb.server.authentication import UserInfo
from kubenb.server.request_info import Attributes
from kubenb.server.storage import Storage

__all__ = ["RBAC_RESOURCES", "Decision", "RBACAuthorizer", "Rule", "forbidden"]

_GROUP = "rbac.authorization.k8s.io"
CLUSTER_ROLES = f"clusterroles.{_GROUP}"
CLUSTER_ROLE_BINDINGS = f"clusterrolebindings.{_GROUP}"
ROLES = f"roles.{_GROUP}"
ROLE_BINDINGS = f"rolebindings.{_GROUP}"
RBAC_RESOURCES = (CLUSTER_ROLES, CLUSTER_ROLE_BINDINGS, ROLES, ROLE_BINDINGS)
_SA_PREFIX = "system:serviceaccount:"
_MAX_DECISIONS = 10_000


@dataclass(frozen=True)
class Rule:
    """One PolicyRule, its lists as tuples."""

    verbs: tuple[str, ...]
    api_groups: tuple[str, ...] = ()
    resources: tuple[str, ...] = ()
    resource_names: tuple[str, ...] = ()
    non_resource_urls: tuple[str, ...] = ()

    @classmethod
    def from_dict(cls, rule: Any) -> Rule | None:
        if not isinstance(rule, dict):
            return None

        def strings(key: str) -> tuple[str, ...]:
            value = rule.get(key)
            return tuple(str(v) for v in value) if isinstance(value, list) else ()

        return cls(strings("verbs"), strings("apiGroups"), strings("resources"),
                   strings("resourceNames"), strings("nonResourceURLs"))

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"verbs": list(self.verbs)}
        if self.non_resource_urls:
            out["nonResourceURLs"] = list(self.non_resource_urls)
        if self.api_groups or not self.non_resource_urls:
            out["apiGroups"] = list(self.api_groups)
        if self.resources:
            out["resources"] = list(self.resources)
        if self.resource_names:
            out["resourceNames"] = list(self.resource_names)
        return out

    def allows(self, attrs: Attributes) -> bool:
        """rbac/validation's RuleAllows."""
        if "*" not in self.verbs and attrs.verb not in self.verbs:
            return False
        if not attrs.resource_request:
            path = attrs.path
            return any(url == "*" or url == path or (url.endswith("*") and
                                                     path.startswith(url[:-1]))
                       for url in self.non_resource_urls)
        if "*" not in self.api_groups and attrs.api_group not in self.api_groups:
            return False
        combined = attrs.full_resource
        if not any(r == "*" or r == combined or (attrs.subresource and
                                                 r == "*/" + attrs.subresource)
                   for r in self.resources):
            return False
        return not self.resource_names or attrs.name in self.resource_names


@dataclass(frozen=True)
class Decision:
    """allowed, and why (the reason RBAC gives a SubjectAccessReview)."""

    allowed: bool
    reason: str = ""


@dataclass(frozen=True)
class _Grant:
    """The rules one binding gives, and how RBAC describes it."""

    rules: tuple[Rule, ...]
    source: str
    error: str = ""  # the binding's role is missing: RBAC says so in its reason


class _Index:
    """Bindings by subject: ("User" | "Group", name) -> grants, cluster-wide and per
    namespace."""

    def __init__(self, storage: Storage) -> None:
        cluster_roles = {str((o.get("metadata") or {}).get("name")): o
                         for o in storage.list(CLUSTER_ROLES, None)[0]}
        roles = {((o.get("metadata") or {}).get("namespace"), (o.get("metadata") or {}).get(
            "name")): o for o in storage.list(ROLES, None)[0]}
        self._cluster_rules: dict[str, tuple[Rule, ...]] = {}
        for name in cluster_roles:
            self._cluster_rules[name] = self._aggregate(name, cluster_roles, set())
        # (grant, the subject as RBAC's reasons name it) by the subject's user key
        self.cluster: dict[tuple[str, str], list[tuple[_Grant, str]]] = {}
        self.namespaced: dict[tuple[str, str, str], list[tuple[_Grant, str]]] = {}
        for binding in storage.list(CLUSTER_ROLE_BINDINGS, None)[0]:
            ref = binding.get("roleRef") or {}
            name = (binding.get("metadata") or {}).get("name", "")
            rules = self._cluster_rules.get(str(ref.get("name")))
            grant = _Grant(rules or (), f'ClusterRoleBinding "{name}" of ClusterRole '
                                        f'"{ref.get("name")}"')
            if rules is None or ref.get("kind") != "ClusterRole":
                grant = _Grant((), grant.source,
                               f'clusterrole.{_GROUP} "{ref.get("name")}" not found')
            for kind, subject, shown in _subject_keys(binding.get("subjects"), ""):
                self.cluster.setdefault((kind, subject), []).append((grant, shown))
        for binding in storage.list(ROLE_BINDINGS, None)[0]:
            meta = binding.get("metadata") or {}
            namespace, name = meta.get("namespace", ""), meta.get("name", "")
            ref = binding.get("roleRef") or {}
            if ref.get("kind") == "ClusterRole":
                rules = self._cluster_rules.get(str(ref.get("name")))
                missing = f'clusterrole.{_GROUP} "{ref.get("name")}" not found'
            else:
                role = roles.get((namespace, ref.get("name")))
                rules = None if role is None else _rules(role)
                missing = f'role.{_GROUP} "{ref.get("name")}" not found'
            grant = _Grant(rules or (), f'RoleBinding "{name}/{namespace}" of '
                                        f'{ref.get("kind")} "{ref.get("name")}"',
                           missing if rules is None else "")
            for kind, subject, shown in _subject_keys(binding.get("subjects"), namespace):
                self.namespaced.setdefault((namespace, kind, subject), []).append(
                    (grant, shown))

    def _aggregate(self, name: str, roles: dict[str, dict[str, Any]], seen: set[str]
                   ) -> tuple[Rule, ...]:
        role = roles[name]
        aggregation = role.get("aggregationRule")
        if not isinstance(aggregation, dict) or name in seen:
            return _rules(role)
        seen = seen | {name}
        selectors = [label_selector_from_dict(s) for s in
                     aggregation.get("clusterRoleSelectors") or [] if isinstance(s, dict)]
        out: list[Rule] = []
        for other, obj in sorted(roles.items(), key=lambda item: str(item[0])):
            if other == name:
                continue
            labels = (obj.get("metadata") or {}).get("labels") or {}
            if any(selector.matches(labels) for selector in selectors):
                for rule in self._aggregate(other, roles, seen):
                    if rule not in out:
                        out.append(rule)
        return tuple(out)

    def grants(self, user: UserInfo, namespace: str) -> Iterator[tuple[_Grant, str]]:
        """Every grant reaching `user` for a request in `namespace` ("" cluster-wide),
        with the subject it reached through."""
        keys = [("User", user.username)] + [("Group", g) for g in user.groups]
        for key in keys:
            yield from self.cluster.get(key, ())
        if namespace:
            for kind, subject in keys:
                yield from self.namespaced.get((namespace, kind, subject), ())


def _rules(role: dict[str, Any]) -> tuple[Rule, ...]:
    rules = (Rule.from_dict(r) for r in role.get("rules") or [])
    return tuple(r for r in rules if r is not None)


def _subject_keys(subjects: Any, namespace: str) -> Iterable[tuple[str, str, str]]:
    """(User | Group, the user or group name it matches, how RBAC's reasons name it)."""
    for subject in subjects if isinstance(subjects, list) else []:
        if not isinstance(subject, dict):
            continue
        kind, name = subject.get("kind"), str(subject.get("name") or "")
        if kind == "ServiceAccount":
            sa_namespace = subject.get("namespace") or namespace
            if sa_namespace:
                yield ("User", f"{_SA_PREFIX}{sa_namespace}:{name}",
                       f'ServiceAccount "{name}/{sa_namespace}"')
        elif kind in ("User", "Group") and name:
            yield kind, name, f'{kind} "{name}"'



class RBACAuthorizer:
    """Answers "may `user` do `attrs`?" from the RBAC objects in a Storage."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        self._lock = threading.Lock()
        self._index: _Index | None = None
        self._version: tuple[int, ...] = ()
        # Answers given since the index was built: a client repeats its requests.
        self._decisions: dict[tuple[str, tuple[str, ...], Attributes], Decision] = {}

    def _current(self) -> _Index:
        version = tuple(self.storage.writes(r) for r in RBAC_RESOURCES)
        with self._lock:
            if self._index is None or version != self._version:
                with self.storage.lock:
                    version = tuple(self.storage.writes(r) for r in RBAC_RESOURCES)
                    self._index = _Index(self.storage)
                self._version = version
                self._decisions = {}
            return self._index

    def authorize(self, user: UserInfo, attrs: Attributes) -> Decision:
        """Allowed or not, with RBAC's reason; `system:masters` without looking."""
        if user.privileged:
            return Decision(True)
        index = self._current()
        key = (user.username, user.groups, attrs)
        decisions = self._decisions
        decision = decisions.get(key)
        if decision is not None:
            return decision
        missing = []
        for grant, subject in index.grants(user, attrs.namespace):
            if grant.error:
                missing.append(grant.error)
            elif any(rule.allows(attrs) for rule in grant.rules):
                decision = Decision(True, f"RBAC: allowed by {grant.source} to {subject}")
                break
        else:
            # As rbac.go: the roles it could not find, in its reason (errors.NewAggregate).
            shown = missing[0] if len(missing) == 1 else "[" + ", ".join(missing) + "]"
            decision = Decision(False, f"RBAC: {shown}" if missing else "")
        if len(decisions) >= _MAX_DECISIONS:
            decisions.clear()
        decisions[key] = decision
        return decision

    def rules_for(self, user: UserInfo, namespace: str
                  ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """(resourceRules, nonResourceRules) reaching `user` in `namespace`, as a
        SelfSubjectRulesReview lists them."""
        resource: list[dict[str, Any]] = []
        non_resource: list[dict[str, Any]] = []
        if user.privileged:
            resource.append({"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]})
            non_resource.append({"verbs": ["*"], "nonResourceURLs": ["*"]})
        for grant, _ in self._current().grants(user, namespace):
            for rule in grant.rules:
                if rule.non_resource_urls:
                    entry = {"verbs": list(rule.verbs),
                             "nonResourceURLs": list(rule.non_resource_urls)}
                    if entry not in non_resource:
                        non_resource.append(entry)
                else:
                    entry = rule.to_dict()
                    if entry not in resource:
                        resource.append(entry)
        return resource, non_resource


def forbidden(user: UserInfo, attrs: Attributes, reason: str = "") -> errors.StatusError:
    """The real server's 403 for a request RBAC denied (responsewriters.Forbidden)."""
    if not attrs.resource_request:
        message = f'User "{user.username}" cannot {attrs.verb} path "{attrs.path}"'
    elif attrs.namespace:
        message = (f'User "{user.username}" cannot {attrs.verb} resource '
                   f'"{attrs.full_resource}" in API group "{attrs.api_group}" in the namespace '
                   f'"{attrs.namespace}"')
    else:
        message = (f'User "{user.username}" cannot {attrs.verb} resource '
                   f'"{attrs.full_resource}" in API group "{attrs.api_group}" at the cluster '
                   "scope")
    if reason:
        message = f"{message}: {reason}"
    return errors.forbidden(attrs.resource, attrs.api_group, attrs.name, message)
