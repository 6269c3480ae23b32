"""controller_test.go: the prototype's own behaviour, as a Go test of the sync handler.

sample-controller's test shape: a fixture with fake clientsets (`k8s.io/client-go/
kubernetes/fake`, `dynamic/fake`) and informers whose caches are seeded with the objects
the prototype's informers held when it was ported; then, for each key the prototype
reconciled, `syncHandler(ctx, key)` runs once and the requests it makes (list and watch
aside) must be the ones the prototype's last reconcile of that key made. A step left as
a TODO fails its key's test, saying what is missing.

The seeded objects are the cached ones with what changes from run to run taken out
(managed fields and times) and uids and resourceVersions renumbered consistently, so an
owner reference still names its owner and an annotation that copies a resourceVersion
still matches it; the file is the same for the same scenario.
"""

from __future__ import annotations

import json
from typing import Any

from kubenb.port.context import PortContext
from kubenb.port.controller_file import new_controller_params
from kubenb.port.gofile import go_file
from kubenb.port.spec import Watched
from kubenb.port.values import go_string

__all__ = ["controller_test_go", "scrub"]

#: How many keys the test checks (the first, sorted).
_KEYS = 10
_VOLATILE_SUFFIXES = ("Time", "Timestamp")
_VOLATILE = frozenset({"managedFields", "podIP", "podIPs", "hostIP", "hostIPs",
                       "containerStatuses", "initContainerStatuses", "containerID", "imageID",
                       "nodeName", "conditions"})


def _collect(value: Any, key: str, into: dict[str, str]) -> None:
    if isinstance(value, dict):
        for k, v in value.items():
            if k in ("uid", "resourceVersion") and isinstance(v, str) and v not in into:
                into[v] = (f"00000000-0000-0000-0000-{len(into) + 1:012d}" if k == "uid"
                           else str(len(into) + 1))
            _collect(v, k, into)
    elif isinstance(value, list):
        for v in value:
            _collect(v, key, into)


def _rewrite(value: Any, names: dict[str, str]) -> Any:
    if isinstance(value, dict):
        return {k: _rewrite(v, names) for k, v in value.items()
                if k not in _VOLATILE and not k.endswith(_VOLATILE_SUFFIXES)}
    if isinstance(value, list):
        return [_rewrite(v, names) for v in value]
    if isinstance(value, str):
        return names.get(value, value)
    return value


def scrub(objects: list[list[dict[str, Any]]]) -> list[list[dict[str, Any]]]:
    """The objects without what differs between runs, uids and versions renumbered."""
    names: dict[str, str] = {}
    for group in objects:
        for obj in group:
            _collect(obj, "", names)
    return [[_rewrite(obj, names) for obj in group] for group in objects]


def _literal(obj: dict[str, Any]) -> str:
    text = json.dumps(obj, sort_keys=True, separators=(",", ":"))
    return f"`{text}`" if "`" not in text else go_string(text)


def _var(w: Watched, i: int, seen: set[str]) -> str:
    base = w.resource.field
    name = base if base not in seen else f"{base}{i}"
    seen.add(name)
    return name


def _primary(ctx: PortContext) -> Watched | None:
    for w in ctx.spec.watched:
        if w.mapping.how == "own":
            return w
    return ctx.spec.watched[0] if ctx.spec.watched else None


def _cases(ctx: PortContext) -> list[tuple[str, list[str]]]:
    primary = _primary(ctx)
    if primary is None:
        return []
    present = set()
    for obj in primary.objects:
        meta = obj.get("metadata") or {}
        ns, name = meta.get("namespace") or "", meta.get("name") or ""
        present.add(f"{ns}/{name}" if ns else name)
    cases = []
    for key in sorted(ctx.spec.requests_by_key):
        if key not in present:
            continue
        want = sorted(f"{r.verb} {r.resource}" + (f"/{r.subresource}" if r.subresource else "")
                      for r in ctx.spec.requests_by_key[key] if r.verb not in ("list", "watch"))
        cases.append((key, want))
    return cases[:_KEYS]


def controller_test_go(ctx: PortContext) -> str | None:
    """The text of controller_test.go, or None when the prototype reconciled no key
    whose object its cache still held (there is nothing to replay)."""
    spec = ctx.spec
    cases = _cases(ctx)
    if not cases:
        return None
    groups = scrub([w.objects for w in spec.watched])
    seen: set[str] = set()
    names = [_var(w, i, seen) for i, w in enumerate(spec.watched)]
    out = ["// The objects the prototype's informers held when it was ported (times and "
           "managed",
           "// fields left out, uids and resourceVersions renumbered).",
           "var ("]
    for w, name, objects in zip(spec.watched, names, groups, strict=True):
        info = w.resource.info
        out.append(f"\t{name}Objects = []string{{")
        for obj in objects:
            obj = {"apiVersion": info.api_version, "kind": info.kind, **obj}
            out.append(f"\t\t{_literal(obj)},")
        out.append("\t}")
    out += [")", ""]
    dynamic = {w.resource.key: w.resource for w in spec.watched if not w.resource.typed}
    uses_dynamic = bool(ctx.dynamic or dynamic)
    out += ["type fixture struct {",
            "\tt *testing.T",
            "\tkubeclient *k8sfake.Clientset"]
    if uses_dynamic:
        out.append("\tdynamicClient *dynamicfake.FakeDynamicClient")
    out += ["}", "",
            "func newFixture(t *testing.T) *fixture {",
            "\treturn &fixture{t: t}",
            "}", "",
            "// newController builds the controller over fake clients and informers whose",
            "// caches hold the fixture objects.",
            "func (f *fixture) newController(ctx context.Context) *Controller {",
            "\tvar kubeObjects []runtime.Object"]
    if uses_dynamic:
        out.append("\tvar dynamicObjects []runtime.Object")
    for w, name in zip(spec.watched, names, strict=True):
        r = w.resource
        item = f"*{r.api_package}.{r.kind}" if r.typed else "*unstructured.Unstructured"
        decode = (f"decode[{r.api_package}.{r.kind}](f.t, text)" if r.typed
                  else "decodeUnstructured(f.t, text)")
        target = "kubeObjects" if r.typed else "dynamicObjects"
        out += [f"\t{name} := []{item}{{}}",
                f"\tfor _, text := range {name}Objects {{",
                f"\t\tobj := {decode}",
                f"\t\t{name} = append({name}, obj)",
                f"\t\t{target} = append({target}, obj)",
                "\t}"]
    out.append("\tf.kubeclient = k8sfake.NewSimpleClientset(kubeObjects...)")
    if uses_dynamic:
        kinds = {**ctx.dynamic, **dynamic}
        out.append("\tlistKinds := map[schema.GroupVersionResource]string{")
        for r in kinds.values():
            out.append(f"\t\t{r.gvr_var}: {go_string(r.kind + 'List')},")
        out += ["\t}",
                "\tf.dynamicClient = dynamicfake.NewSimpleDynamicClientWithCustomListKinds("
                "runtime.NewScheme(), listKinds, dynamicObjects...)"]
    factories = []
    if any(w.resource.typed for w in spec.watched):
        out.append("\tkubeInformerFactory := kubeinformers.NewSharedInformerFactory("
                   "f.kubeclient, 0)")
        factories.append("kubeInformerFactory")
    if dynamic:
        out.append("\tdynamicInformerFactory := dynamicinformer.NewDynamicSharedInformerFactory("
                   "f.dynamicClient, 0)")
    args = [{"ctx": "ctx", "kubeClient": "f.kubeclient", "dynamicClient": "f.dynamicClient",
             "recorder": "record.NewFakeRecorder(100)"}[a]
            for a in new_controller_params(ctx, spec.watched)]
    for w, name in zip(spec.watched, names, strict=True):
        factory = "kubeInformerFactory" if w.resource.typed else "dynamicInformerFactory"
        out.append(f"\t{name}Informer := {w.resource.informer_expr(factory)}")
        args.append(f"{name}Informer")
    out += [f"\tc, err := NewController({', '.join(args)})",
            "\tif err != nil {",
            "\t\tf.t.Fatalf(\"NewController: %v\", err)",
            "\t}"]
    for name in names:
        out += [f"\tfor _, obj := range {name} {{",
                f"\t\tif err := {name}Informer.Informer().GetIndexer().Add(obj); err != nil {{",
                "\t\t\tf.t.Fatalf(\"seeding the cache: %v\", err)",
                "\t\t}",
                "\t}"]
    out.append("\tf.kubeclient.ClearActions()")
    if uses_dynamic:
        out.append("\tf.dynamicClient.ClearActions()")
    out += ["\treturn c", "}", "",
            "// actions lists the requests the sync handler made, as \"verb resource[/sub]\",",
            "// sorted (list and watch aside).",
            "func (f *fixture) actions() []string {",
            "\tall := f.kubeclient.Actions()"]
    if uses_dynamic:
        out.append("\tall = append(all, f.dynamicClient.Actions()...)")
    out += ["\tout := []string{}",
            "\tfor _, action := range all {",
            "\t\tif action.GetVerb() == \"list\" || action.GetVerb() == \"watch\" {",
            "\t\t\tcontinue",
            "\t\t}",
            "\t\tname := action.GetVerb() + \" \" + action.GetResource().Resource",
            "\t\tif sub := action.GetSubresource(); sub != \"\" {",
            "\t\t\tname += \"/\" + sub",
            "\t\t}",
            "\t\tout = append(out, name)",
            "\t}",
            "\tslices.Sort(out)",
            "\treturn out",
            "}", "",
            "func decode[T any](t *testing.T, text string) *T {",
            "\tt.Helper()",
            "\tobj := new(T)",
            "\tif err := json.Unmarshal([]byte(text), obj); err != nil {",
            "\t\tt.Fatalf(\"decoding a fixture object: %v\", err)",
            "\t}",
            "\treturn obj",
            "}", ""]
    if uses_dynamic:
        out += ["func decodeUnstructured(t *testing.T, text string) *unstructured.Unstructured {",
                "\tt.Helper()",
                "\tobj := &unstructured.Unstructured{}",
                "\tif err := obj.UnmarshalJSON([]byte(text)); err != nil {",
                "\t\tt.Fatalf(\"decoding a fixture object: %v\", err)",
                "\t}",
                "\treturn obj",
                "}", ""]
    ok = []
    if ctx.uses_requeue_after:
        ok.append("!errors.As(err, &after)")
    if ctx.uses_requeue:
        ok.append("!errors.Is(err, errRequeue)")
    check = " && ".join(["err != nil", *ok])
    run = (["\t\t\tvar after requeueAfter"] if ctx.uses_requeue_after else []) + [
        f"\t\t\tif err := c.syncHandler(ctx, tc.key); {check} {{",
        "\t\t\t\tt.Fatalf(\"syncHandler(%q): %v\", tc.key, err)",
        "\t\t\t}"]
    out += ["// TestSyncHandler replays each key the prototype reconciled: the Go sync handler",
            "// must ask for what the prototype's last reconcile of that key asked for.",
            "func TestSyncHandler(t *testing.T) {",
            "\ttests := []struct {",
            "\t\tkey  string",
            "\t\twant []string",
            "\t}{"]
    for key, want in cases:
        items = ", ".join(go_string(w) for w in want)
        out.append(f"\t\t{{key: {go_string(key)}, want: []string{{{items}}}}},")
    out += ["\t}",
            "\tfor _, tc := range tests {",
            "\t\tt.Run(tc.key, func(t *testing.T) {",
            "\t\t\tctx, cancel := context.WithCancel(context.Background())",
            "\t\t\tdefer cancel()",
            "\t\t\tf := newFixture(t)",
            "\t\t\tc := f.newController(ctx)",
            *run,
            "\t\t\tif got := f.actions(); !slices.Equal(got, tc.want) {",
            "\t\t\t\tt.Errorf(\"syncHandler(%q) asked for %v; the prototype asked for %v\", "
            "tc.key, got, tc.want)",
            "\t\t\t}",
            "\t\t})",
            "\t}",
            "}"]
    return go_file(spec.name, "\n".join(out))

