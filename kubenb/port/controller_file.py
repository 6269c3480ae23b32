"""controller.go, written from a described controller and its translation.

The layout is sample-controller's: the `Controller` struct, `NewController` (listers,
indexers, event handlers, the rate-limited workqueue), `Run`, `processNextWorkItem`,
the translated `syncHandler` and the helpers it calls, the event-mapping, index and
predicate stubs, and the few helpers the translation uses (unstructured readers,
requeue errors, `notPorted`).
"""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass
from typing import Any

from kubenb.port.context import GoFunction, PortContext, Todo
from kubenb.port.gofile import comment, go_duration, go_file
from kubenb.port.resources import GoResource, go_identifier
from kubenb.port.spec import Mapping, Watched
from kubenb.port.translate import UNSTRUCTURED_READERS, translate_helper
from kubenb.port.values import Untranslatable, Val, go_string

__all__ = ["controller_go", "new_controller_params"]


@dataclass
class _Informer:
    watched: Watched

    @property
    def resource(self) -> GoResource:
        return self.watched.resource

    @property
    def param(self) -> str:
        return go_identifier(self.resource.field[:1].lower() + self.resource.field[1:]) + \
            "Informer"

    @property
    def param_type(self) -> str:
        r = self.resource
        return f"{r.informer_package}.{r.kind}Informer" if r.typed else \
            "kubeinformers.GenericInformer"


def _handler_name(mapping: Mapping, resource: GoResource) -> str:
    if mapping.how == "own":
        return "enqueue"
    if mapping.how == "owner":
        return f"enqueueOwner{re.sub(r'[^0-9A-Za-z]', '', mapping.owner_kind)}"
    ident = go_identifier(mapping.name.lstrip("_")) or resource.go_name()
    return "enqueue" + ident[:1].upper() + ident[1:]


def _returns(func: Any) -> str | None:
    """The Go type a mapping or index function's annotation asks for: a key or keys."""
    try:
        annotation = str(inspect.signature(func).return_annotation)
    except (TypeError, ValueError):
        return None
    if "list" in annotation or "Iterable" in annotation or "Sequence" in annotation:
        return "[]string"
    if "str" in annotation:
        return "string"
    return None


def _translate_callbacks(ctx: PortContext, informers: list[_Informer]) -> dict[Any, GoFunction]:
    """Custom event mappings and index functions, translated as helpers of one typed
    object (the Go handler unwraps tombstones and asserts the type first); those that
    cannot be read stay stubs."""
    done: dict[Any, GoFunction] = {}
    for inf in informers:
        w, r = inf.watched, inf.resource
        funcs = list(w.index_funcs.values())
        if w.mapping.how == "custom" and w.mapping.func is not None:
            funcs.append(w.mapping.func)
        for func in funcs:
            key = (getattr(func, "__func__", func), r.key)
            if key in done:
                continue
            try:
                fn = translate_helper(ctx, func, [Val("obj", r.go_type, r)],
                                      getattr(func, "__self__", None) is not None,
                                      _returns(func))
            except Untranslatable:
                continue
            if fn.returns.split(",")[0] in ("string", "[]string"):
                done[key] = fn
    return done


def _call_callback(fn: GoFunction, arg: str) -> str:
    args = ", ".join((["context.TODO()"] if fn.needs_ctx else []) + [arg])
    return f"{'c.' if fn.method else ''}{fn.name}({args})"


def _stub_name(name: str, suffix: str) -> str:
    ident = go_identifier(re.sub(r"[^0-9A-Za-z_]", "_", name).strip("_") or "index")
    return ident + suffix


def _index_func(resource: GoResource, index: str) -> str:
    """`podsByNodeIndexFunc`: one per resource and index (two informers may share an
    index name)."""
    name = _stub_name(index, "IndexFunc")
    return resource.field + name[:1].upper() + name[1:]


def controller_go(ctx: PortContext, sync: GoFunction, extra_todos: list[Todo]) -> str:
    """The text of controller.go."""
    spec = ctx.spec
    informers = [_Informer(w) for w in spec.watched]
    out: list[str] = [f"const controllerAgentName = {go_string(spec.name)}", ""]
    if ctx.constants:
        out.append("// Constants the Python reconcile read (module or class level).")
        out.append("const (")
        for go, (py, value) in sorted(ctx.constants.items()):
            literal = go_string(value) if isinstance(value, str) else (
                "true" if value is True else "false" if value is False else repr(value))
            out.append(f"\t{go} = {literal} // {py}")
        out += [")", ""]
    dynamic = {w.resource.key: w.resource for w in spec.watched if not w.resource.typed}
    dynamic.update(ctx.dynamic)
    if dynamic:
        out.append("// The custom resources, reached through the dynamic client.")
        out.append("var (")
        for resource in dynamic.values():
            info = resource.info
            out.append(f"\t{resource.gvr_var} = schema.GroupVersionResource{{Group: "
                       f"{go_string(info.group)}, Version: {go_string(info.version)}, "
                       f"Resource: {go_string(info.resource)}}}")
        out += [")", ""]
    translated = _translate_callbacks(ctx, informers)
    out += _struct(ctx, informers)
    out += _new_controller(ctx, informers)
    out += _run(ctx, informers)
    out += _function(sync)
    for helper in ctx.helpers.values():
        out += _function(helper)
    out += _handlers(informers, extra_todos, translated)
    out += _support(ctx)
    return go_file(spec.name, "\n".join(out))


def _struct(ctx: PortContext, informers: list[_Informer]) -> list[str]:
    out = ["// Controller is the Python controller's state in Go: clients, one lister and",
           "// informer per watched resource, and the rate-limited workqueue of keys.",
           "type Controller struct {",
           "\tkubeclientset kubernetes.Interface"]
    if ctx.dynamic or any(not i.resource.typed for i in informers):
        out.append("\tdynamicClient dynamic.Interface")
    if ctx.uses_recorder:
        out.append("\trecorder record.EventRecorder")
    out.append("")
    for inf in informers:
        r = inf.resource
        lister = f"{r.lister_package}.{r.kind}Lister" if r.typed else "cache.GenericLister"
        out += [f"\t{r.field}Lister {lister}",
                f"\t{r.field}Informer cache.SharedIndexInformer",
                f"\t{r.field}Synced cache.InformerSynced"]
    out += ["", "\tworkqueue workqueue.TypedRateLimitingInterface[string]", "}", ""]
    return out


def new_controller_params(ctx: PortContext, informers: list[Watched]) -> list[str]:
    """The arguments main.go passes to NewController, in order (Go expressions)."""
    args = ["ctx", "kubeClient"]
    if ctx.dynamic or any(not w.resource.typed for w in informers):
        args.append("dynamicClient")
    if ctx.uses_recorder:
        args.append("recorder")
    return args


def _new_controller(ctx: PortContext, informers: list[_Informer]) -> list[str]:
    spec = ctx.spec
    params = ["ctx context.Context", "kubeclientset kubernetes.Interface"]
    fields = ["\t\tkubeclientset: kubeclientset,"]
    if ctx.dynamic or any(not i.resource.typed for i in informers):
        params.append("dynamicClient dynamic.Interface")
        fields.append("\t\tdynamicClient: dynamicClient,")
    if ctx.uses_recorder:
        params.append("recorder record.EventRecorder")
        fields.append("\t\trecorder: recorder,")
    for inf in informers:
        params.append(f"{inf.param} {inf.param_type}")
        r = inf.resource
        fields += [f"\t\t{r.field}Lister: {inf.param}.Lister(),",
                   f"\t\t{r.field}Informer: {inf.param}.Informer(),",
                   f"\t\t{r.field}Synced: {inf.param}.Informer().HasSynced,"]
    rl = spec.rate_limiter
    limiters = [f"\t\tworkqueue.NewTypedItemExponentialFailureRateLimiter[string]("
                f"{go_duration(rl.base_delay, in_call=True)}, "
                f"{go_duration(rl.max_delay, in_call=True)}),"]
    if rl.qps is not None:
        qps = int(rl.qps) if float(rl.qps).is_integer() else rl.qps
        limiters.append(f"\t\t&workqueue.TypedBucketRateLimiter[string]{{Limiter: "
                        f"rate.NewLimiter(rate.Limit({qps}), {rl.burst})}},")
    out = ["// NewController wires the informers to the workqueue as the Python controller's",
           "// watch() calls did.",
           f"func NewController({', '.join(params)}) (*Controller, error) {{",
           "\tlogger := klog.FromContext(ctx)"]
    if rl.note:
        out.append(f"\t// TODO(port): {rl.note}.")
    out += ["\tratelimiter := workqueue.NewTypedMaxOfRateLimiter(", *limiters, "\t)",
            "", "\tc := &Controller{", *fields,
            "\t\tworkqueue: workqueue.NewTypedRateLimitingQueueWithConfig(ratelimiter,",
            "\t\t\tworkqueue.TypedRateLimitingQueueConfig[string]{Name: controllerAgentName}),",
            "\t}", ""]
    for inf in informers:
        w = inf.watched
        if w.indexers:
            out.append(f"\tif err := {inf.param}.Informer().AddIndexers(cache.Indexers{{")
            for name in w.indexers:
                out.append(f"\t\t{go_string(name)}: c.{_index_func(inf.resource, name)},")
            out += ["\t}); err != nil {", "\t\treturn nil, err", "\t}"]
    out.append('\tlogger.Info("Setting up event handlers")')
    for inf in informers:
        w = inf.watched
        handler = _handler_name(w.mapping, inf.resource)
        update = (f"c.{handler}(newObj)" if w.mapping.how == "own"
                  else f"c.{handler}(newObj)\n\t\t\tc.{handler}(oldObj)")
        funcs = ["cache.ResourceEventHandlerFuncs{",
                 f"\tAddFunc: c.{handler},",
                 "\tUpdateFunc: func(oldObj, newObj interface{}) {",
                 *[f"\t\t{line.strip()}" for line in update.split("\n")],
                 "\t},",
                 f"\tDeleteFunc: c.{handler},",
                 "}"]
        if w.predicate is not None:
            pred = _stub_name(f"{inf.resource.field}_predicate", "")
            funcs = ["cache.FilteringResourceEventHandler{",
                     f"\tFilterFunc: {pred},",
                     f"\tHandler: {funcs[0]}", *["\t" + f for f in funcs[1:-1]], "\t},", "}"]
        out.append(f"\tif _, err := {inf.param}.Informer().AddEventHandler({funcs[0]}")
        out += ["\t" + line for line in funcs[1:-1]]
        out += ["\t}); err != nil {", "\t\treturn nil, err", "\t}"]
    out += ["\treturn c, nil", "}", ""]
    return out


def _run(ctx: PortContext, informers: list[_Informer]) -> list[str]:
    synced = ", ".join(f"c.{i.resource.field}Synced" for i in informers)
    out = ["// Run waits for the caches, then runs `workers` workers until ctx is done.",
           "func (c *Controller) Run(ctx context.Context, workers int) error {",
           "\tdefer utilruntime.HandleCrash()",
           "\tdefer c.workqueue.ShutDown()",
           "\tlogger := klog.FromContext(ctx)",
           '\tlogger.Info("Starting controller", "controller", controllerAgentName)',
           f"\tif ok := cache.WaitForCacheSync(ctx.Done(){', ' + synced if synced else ''});"
           " !ok {",
           '\t\treturn fmt.Errorf("failed to wait for caches to sync")',
           "\t}",
           '\tlogger.Info("Starting workers", "count", workers)',
           "\tfor i := 0; i < workers; i++ {",
           "\t\tgo wait.UntilWithContext(ctx, c.runWorker, time.Second)",
           "\t}",
           "\t<-ctx.Done()",
           '\tlogger.Info("Shutting down workers")',
           "\treturn nil",
           "}",
           "",
           "func (c *Controller) runWorker(ctx context.Context) {",
           "\tfor c.processNextWorkItem(ctx) {",
           "\t}",
           "}",
           "",
           "// processNextWorkItem reconciles one key: forgotten on success, retried with",
           "// backoff on an error, as the Python runner did.",
           "func (c *Controller) processNextWorkItem(ctx context.Context) bool {",
           "\tkey, shutdown := c.workqueue.Get()",
           "\tif shutdown {",
           "\t\treturn false",
           "\t}",
           "\tdefer c.workqueue.Done(key)",
           "",
           "\terr := c.syncHandler(ctx, key)"]
    if ctx.uses_requeue_after:
        out += ["\tvar after requeueAfter",
                "\tif errors.As(err, &after) {",
                "\t\tc.workqueue.Forget(key)",
                "\t\tc.workqueue.AddAfter(key, after.delay)",
                "\t\treturn true",
                "\t}"]
    if ctx.uses_requeue:
        out += ["\tif errors.Is(err, errRequeue) {",
                "\t\tc.workqueue.AddRateLimited(key)",
                "\t\treturn true",
                "\t}"]
    out += ["\tif err == nil {",
            "\t\tc.workqueue.Forget(key)",
            "\t\treturn true",
            "\t}"]
    if ctx.spec.max_retries is not None:
        out += [f"\tif c.workqueue.NumRequeues(key) >= {ctx.spec.max_retries} {{",
                "\t\tc.workqueue.Forget(key)",
                '\t\tutilruntime.HandleErrorWithContext(ctx, err, "Dropping key after too many '
                'retries", "key", key)',
                "\t\treturn true",
                "\t}"]
    out += ['\tutilruntime.HandleErrorWithContext(ctx, err, "Error syncing; requeuing for '
            'later retry", "key", key)',
            "\tc.workqueue.AddRateLimited(key)",
            "\treturn true",
            "}",
            ""]
    return out


def _function(fn: GoFunction) -> list[str]:
    out = [f"// {fn.name} is the Python {fn.python_name}(), translated statement by "
           "statement:", "//", *comment(fn.source)]
    params = [f"{name} {go_type}" for name, go_type in fn.params]
    if fn.needs_ctx:
        params.insert(0, "ctx context.Context")
    if fn.returns == "error":
        result = " error"
    elif fn.returns.endswith(",error"):
        result = f" ({fn.returns[:-6]}, error)"
    else:
        result = f" {fn.returns}" if fn.returns else ""
    receiver = "(c *Controller) " if fn.method else ""
    out.append(f"func {receiver}{fn.name}({', '.join(params)}){result} {{")
    out += fn.lines
    out += ["}", ""]
    return out


def _handlers(informers: list[_Informer], extra_todos: list[Todo],
              translated: dict[Any, GoFunction]) -> list[str]:
    out: list[str] = []
    done: set[str] = set()
    for inf in informers:
        w = inf.watched
        name = _handler_name(w.mapping, inf.resource)
        if name in done:
            continue
        done.add(name)
        if w.mapping.how == "own":
            out += ["// enqueue queues an object's own namespace/name key (kubenb's enqueue_key).",
                    "func (c *Controller) enqueue(obj interface{}) {",
                    "\tkey, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)",
                    "\tif err != nil {",
                    "\t\tutilruntime.HandleError(err)",
                    "\t\treturn",
                    "\t}",
                    "\tc.workqueue.Add(key)",
                    "}",
                    ""]
        elif w.mapping.how == "owner":
            kind = w.mapping.owner_kind
            group_check = []
            if w.mapping.owner_group is not None:
                group_check = [
                    "\tif gv, err := schema.ParseGroupVersion(ref.APIVersion); err != nil || "
                    f"gv.Group != {go_string(w.mapping.owner_group)} {{",
                    "\t\treturn",
                    "\t}"]
            out += [f"// {name} queues the key of the {kind} that controls obj (kubenb's",
                    f"// enqueue_owner({kind!r})); a deleted object's tombstone is unwrapped.",
                    f"func (c *Controller) {name}(obj interface{{}}) {{",
                    "\tobject, ok := obj.(metav1.Object)",
                    "\tif !ok {",
                    "\t\ttombstone, ok := obj.(cache.DeletedFinalStateUnknown)",
                    "\t\tif !ok {",
                    '\t\t\tutilruntime.HandleError(fmt.Errorf("error decoding object, invalid '
                    'type %T", obj))',
                    "\t\t\treturn",
                    "\t\t}",
                    "\t\tif object, ok = tombstone.Obj.(metav1.Object); !ok {",
                    '\t\t\tutilruntime.HandleError(fmt.Errorf("error decoding object tombstone, '
                    'invalid type %T", tombstone.Obj))',
                    "\t\t\treturn",
                    "\t\t}",
                    "\t}",
                    "\tref := metav1.GetControllerOf(object)",
                    f'\tif ref == nil || ref.Kind != {go_string(kind)} || ref.Name == "" {{',
                    "\t\treturn",
                    "\t}",
                    *group_check,
                    "\tkey := ref.Name",
                    '\tif namespace := object.GetNamespace(); namespace != "" {',
                    '\t\tkey = namespace + "/" + ref.Name',
                    "\t}",
                    "\tc.workqueue.Add(key)",
                    "}",
                    ""]
        elif (fn := translated.get((getattr(w.mapping.func, "__func__", w.mapping.func),
                                    inf.resource.key))) is not None:
            out += _mapping_handler(name, inf.resource, fn)
        else:
            out += [f"// {name} maps an object to the keys to reconcile. The Python mapping:",
                    "//", *comment(w.mapping.source),
                    "//",
                    "// TODO(port): translate the mapping above; until then these events",
                    "// queue nothing.",
                    f"func (c *Controller) {name}(obj interface{{}}) {{",
                    f'\tklog.V(2).Info("event mapping {w.mapping.name} is not ported yet")',
                    "}",
                    ""]
            extra_todos.append(Todo(name, 0, f"def {w.mapping.name}(...)",
                                    "a custom event mapping"))
        for index, source in w.indexers.items():
            func = _index_func(inf.resource, index)
            index_func = w.index_funcs.get(index)
            fn = translated.get((getattr(index_func, "__func__", index_func),
                                 inf.resource.key))
            if fn is not None:
                out += _index_handler(func, index, inf.resource, fn)
                continue
            out += [f"// {func} is the index {index!r}. The Python index function:",
                    "//", *comment(source), "//",
                    "// TODO(port): translate it; until then it indexes nothing.",
                    f"func (c *Controller) {func}(obj interface{{}}) ([]string, error) {{",
                    "\treturn nil, nil",
                    "}",
                    ""]
            extra_todos.append(Todo(func, 0, f"index {index!r}", "an index function"))
        if w.predicate is not None:
            pred = _stub_name(f"{inf.resource.field}_predicate", "")
            out += [f"// {pred} filters {inf.resource.key} events. The Python predicate:",
                    "//", *comment(w.predicate), "//",
                    "// TODO(port): translate it; until then every event passes.",
                    f"func {pred}(obj interface{{}}) bool {{",
                    "\treturn true",
                    "}",
                    ""]
            extra_todos.append(Todo(pred, 0, "predicate", "a watch predicate"))
    return out


def _typed(resource: GoResource) -> list[str]:
    return ["\tif tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {",
            "\t\tobj = tombstone.Obj",
            "\t}",
            f"\tobject, ok := obj.({resource.go_type})",
            "\tif !ok {"]


def _keys_of(fn: GoFunction, call: str, on_error: list[str]) -> list[str]:
    """Lines that leave the function's keys in `keys` ([]string)."""
    result, _, with_error = fn.returns.partition(",")
    target = "keys" if result == "[]string" else "key"
    lines = [f"\t{target}, err := {call}" if with_error else f"\t{target} := {call}"]
    if with_error:
        lines += ["\tif err != nil {", *on_error, "\t}"]
    if result == "string":
        lines += ["\tkeys := []string{}", '\tif key != "" {', "\t\tkeys = append(keys, key)",
                  "\t}"]
    return lines


def _mapping_handler(name: str, resource: GoResource, fn: GoFunction) -> list[str]:
    return [f"// {name} queues the keys {fn.name} (the Python {fn.python_name}) maps an",
            "// object to; a deleted object's tombstone is unwrapped first.",
            f"func (c *Controller) {name}(obj interface{{}}) {{",
            *_typed(resource),
            f'\t\tutilruntime.HandleError(fmt.Errorf("{name}: unexpected %T", obj))',
            "\t\treturn", "\t}",
            *_keys_of(fn, _call_callback(fn, "object"),
                      ["\t\tutilruntime.HandleError(err)", "\t\treturn"]),
            "\tfor _, key := range keys {",
            "\t\tc.workqueue.Add(key)",
            "\t}",
            "}",
            ""]


def _index_handler(func: str, index: str, resource: GoResource, fn: GoFunction) -> list[str]:
    keys = _keys_of(fn, _call_callback(fn, "object"),
                    ["\t\tutilruntime.HandleError(err) // an error would panic the informer",
                     "\t\treturn nil, nil"])
    return [f"// {func} is the index {index!r}: {fn.name} (the Python {fn.python_name}),",
            "// on the object a tombstone holds when it is one.",
            f"func (c *Controller) {func}(obj interface{{}}) ([]string, error) {{",
            *_typed(resource),
            f'\t\treturn nil, fmt.Errorf("index {index}: unexpected %T", obj)',
            "\t}", *keys, "\treturn keys, nil", "}", ""]


_READERS = {
    "nestedString": ("string", "unstructured.NestedString", '""'),
    "nestedStringMap": ("map[string]string", "unstructured.NestedStringMap", "nil"),
    "nestedStringSlice": ("[]string", "unstructured.NestedStringSlice", "nil"),
    "nestedMap": ("map[string]interface{}", "unstructured.NestedMap", "nil"),
}
_POINTER_READERS = {
    "nestedInt64": ("int64", "unstructured.NestedInt64"),
    "nestedBool": ("bool", "unstructured.NestedBool"),
    "nestedFloat64": ("float64", "unstructured.NestedFloat64"),
}


def _support(ctx: PortContext) -> list[str]:
    out: list[str] = []
    for key in sorted(ctx.dynamic_getters):
        r = ctx.dynamic_getters[key]
        get = (f"c.{r.field}Lister.ByNamespace(namespace).Get(name)" if r.info.namespaced
               else f"c.{r.field}Lister.Get(name)")
        out += [f"// get{r.go_name()} reads a {r.kind} from the informer's cache "
                "(the Python lister's get).",
                f"func (c *Controller) get{r.go_name()}(namespace, name string) "
                "(*unstructured.Unstructured, error) {"]
        if not r.info.namespaced:
            out.append("\t_ = namespace")
        out += [f"\tobj, err := {get}",
                "\tif err != nil {",
                "\t\treturn nil, err",
                "\t}",
                "\tu, ok := obj.(*unstructured.Unstructured)",
                "\tif !ok {",
                f'\t\treturn nil, fmt.Errorf("unexpected %T in the {r.kind} cache", obj)',
                "\t}",
                "\treturn u, nil",
                "}",
                ""]
    for key in sorted(ctx.key_getters):
        r = ctx.key_getters[key]
        out += [f"// get{r.go_name()}ByKey reads a {r.kind} from the informer's cache by its "
                "namespace/name",
                "// key (the Python lister's get(key)); NotFound when it is not there.",
                f"func (c *Controller) get{r.go_name()}ByKey(key string) ({r.go_type}, error) {{",
                f"\tobj, exists, err := c.{r.field}Informer.GetIndexer().GetByKey(key)",
                "\tif err != nil {",
                "\t\treturn nil, err",
                "\t}",
                "\tif !exists {",
                "\t\treturn nil, apierrors.NewNotFound(schema.GroupResource{Group: "
                f"{go_string(r.info.group)}, Resource: {go_string(r.info.resource)}}}, key)",
                "\t}",
                f"\treturn obj.({r.go_type}), nil",
                "}",
                ""]
    for reader in sorted(ctx.unstructured_readers):
        assert reader in UNSTRUCTURED_READERS
        if reader in _READERS:
            go_type, func, _ = _READERS[reader]
            out += [f"// {reader} reads a field as the Python's dict lookups did (zero when "
                    "absent).",
                    f"func {reader}(obj *unstructured.Unstructured, fields ...string) "
                    f"{go_type} {{",
                    f"\tvalue, _, _ := {func}(obj.Object, fields...)",
                    "\treturn value",
                    "}",
                    ""]
        else:
            go_type, func = _POINTER_READERS[reader]
            out += [f"// {reader} reads a field as the Python's dict lookups did (nil when "
                    "absent, as None).",
                    f"func {reader}(obj *unstructured.Unstructured, fields ...string) "
                    f"*{go_type} {{",
                    f"\tvalue, found, err := {func}(obj.Object, fields...)",
                    "\tif !found || err != nil {",
                    "\t\treturn nil",
                    "\t}",
                    "\treturn &value",
                    "}",
                    ""]
    if ctx.uses_requeue:
        out += ["// errRequeue asks for the key again, with backoff, without logging an error",
                "// (the Python's Result(requeue=True)).",
                'var errRequeue = errors.New("requeue requested")', ""]
    if ctx.uses_requeue_after:
        out += ["// requeueAfter asks for the key again after a delay (the Python's",
                "// Result(requeue_after=...)).",
                "type requeueAfter struct{ delay time.Duration }", "",
                "func (r requeueAfter) Error() string {",
                '\treturn fmt.Sprintf("requeue after %s", r.delay)',
                "}", ""]
    if ctx.uses_not_ported:
        out += ["// notPorted is the error a step `kubenb port` could not translate returns:",
                "// the controller fails there, saying what is missing, until it is ported.",
                "func notPorted(what string) error {",
                '\treturn fmt.Errorf("not ported from Python yet: %s", what)',
                "}", ""]
    return out


