"""The reconcile, translated statement by statement from Python's `ast` into Go.

One concept, the translation of a function, in one class: its statement and expression
rules call each other (a condition holds a call, a call holds a dict literal, a dict
literal holds a condition), so splitting them would scatter one recursive walk over
modules; that is why this module is longer than most. The subset (docs/porting.md,
"Generate the Go project"): lister gets, client get/list/create/update/patch/delete,
`except NotFound` / `AlreadyExists` / `Conflict` ... as `apierrors.IsNotFound(err)`,
dict lookups as typed fields (built-in kinds, kubenb/port/gofields.py) or unstructured
readers (CRDs, typed from the objects the prototype's cache held), if / for / while /
return / raise / try-except, `split_meta_namespace_key`, logging, Events, owner
references, string methods, and the prototype's own helper functions (translated in
turn). Names are resolved against the live prototype: `self.foos_lister` is the lister
the Python used, `FIELD_MANAGER` the constant's value.

Anything else becomes `// TODO(port): <the Python>` in place, followed by a return of an
error saying what is missing, so the function still compiles and fails loudly at that
step. Locals are declared at the top of the Go function (Python's scope is the
function), and every function is translated twice: the first pass learns what type a
dict literal must have from where it is used later (`secrets.create(secret)`).
"""

from __future__ import annotations

import ast
import copy
import inspect
import logging
import os
import re
import textwrap
import types
from collections.abc import Callable
from typing import Any

from kubenb import errors as kerrors
from kubenb.client.discovery import ResourceInfo
from kubenb.port.context import GoFunction, PortContext, Reach, Todo
from kubenb.port.gofields import EMBEDDED, NAMED_STRINGS, field_of, struct_of
from kubenb.port.resources import GoResource, go_identifier, pascal_case
from kubenb.port.values import (
    Untranslatable,
    Val,
    coerce,
    deref,
    go_string,
    is_numeric,
    truthy,
    zero_value,
)

__all__ = ["GO_PACKAGE_NAMES", "translate_function"]

#: Go package names a local may not shadow (the generated file imports them).
GO_PACKAGE_NAMES = frozenset([
    "fmt", "errors", "time", "context", "strings", "slices", "maps", "reflect", "json",
    "metav1", "apierrors", "unstructured", "schema", "types", "labels", "utilruntime", "wait",
    "cache", "workqueue", "kubernetes", "dynamic", "dynamicinformer", "record", "klog", "ptr",
    "runtime", "rate", "scheme", "corev1", "appsv1", "c", "ctx", "err", "key",
])

_API_ERRORS: list[tuple[type, str]] = [
    (kerrors.NotFound, "apierrors.IsNotFound(err)"),
    (kerrors.AlreadyExists, "apierrors.IsAlreadyExists(err)"),
    (kerrors.Conflict, "apierrors.IsConflict(err)"),
    (kerrors.Gone, "apierrors.IsGone(err)"),
    (kerrors.Invalid, "apierrors.IsInvalid(err)"),
    (kerrors.Forbidden, "apierrors.IsForbidden(err)"),
    (kerrors.Unauthorized, "apierrors.IsUnauthorized(err)"),
    (kerrors.BadRequest, "apierrors.IsBadRequest(err)"),
    (kerrors.TooManyRequests, "apierrors.IsTooManyRequests(err)"),
    (kerrors.ServerError, "apierrors.IsInternalError(err)"),
]

_LOG_LEVELS = {"debug": "klog.V(4).Infof", "info": "klog.Infof", "warning": "klog.Warningf",
               "warn": "klog.Warningf", "error": "klog.Errorf", "exception": "klog.Errorf",
               "critical": "klog.Errorf"}

_STRING_METHODS: dict[str, tuple[str, str]] = {
    "upper": ("strings.ToUpper({0})", "string"), "lower": ("strings.ToLower({0})", "string"),
    "strip": ("strings.TrimSpace({0})", "string"),
    "startswith": ("strings.HasPrefix({0}, {1})", "bool"),
    "endswith": ("strings.HasSuffix({0}, {1})", "bool"),
    "split": ("strings.Split({0}, {1})", "[]string"),
    "replace": ("strings.ReplaceAll({0}, {1}, {2})", "string"),
}

_UNSTRUCTURED_META = {
    "name": ("GetName()", "string"), "namespace": ("GetNamespace()", "string"),
    "uid": ("GetUID()", "types.UID"), "labels": ("GetLabels()", "map[string]string"),
    "annotations": ("GetAnnotations()", "map[string]string"),
    "resourceVersion": ("GetResourceVersion()", "string"),
    "generation": ("GetGeneration()", "int64"),
    "ownerReferences": ("GetOwnerReferences()", "[]metav1.OwnerReference"),
    "finalizers": ("GetFinalizers()", "[]string"),
}

#: Readers of an unstructured object's fields the generated file defines when used:
#: name -> Go type returned.
UNSTRUCTURED_READERS = {
    "nestedString": "string", "nestedInt64": "*int64", "nestedBool": "*bool",
    "nestedFloat64": "*float64", "nestedStringMap": "map[string]string",
    "nestedStringSlice": "[]string", "nestedMap": "map[string]interface{}",
}


def _python_type_reader(values: list[Any]) -> str | None:
    kinds = set()
    for value in values:
        if isinstance(value, bool):
            kinds.add("nestedBool")
        elif isinstance(value, int):
            kinds.add("nestedInt64")
        elif isinstance(value, float):
            kinds.add("nestedFloat64")
        elif isinstance(value, str):
            kinds.add("nestedString")
        elif isinstance(value, dict):
            kinds.add("nestedStringMap" if all(isinstance(v, str) for v in value.values())
                      else "nestedMap")
        elif isinstance(value, list):
            kinds.add("nestedStringSlice" if all(isinstance(v, str) for v in value)
                      else "list")
    if kinds == {"nestedInt64", "nestedFloat64"}:
        return "nestedFloat64"
    if kinds == {"nestedStringMap", "nestedMap"}:
        return "nestedMap"
    return next(iter(kinds)) if len(kinds) == 1 and "list" not in kinds else None


def _lookup(obj: Any, keys: list[str]) -> tuple[bool, Any]:
    for key in keys:
        if not isinstance(obj, dict) or key not in obj:
            return False, None
        obj = obj[key]
    return True, obj


def _is_falsy_literal(node: ast.AST) -> bool:
    if isinstance(node, ast.Dict):
        return not node.keys
    if isinstance(node, (ast.List, ast.Tuple)):
        return not node.elts
    return isinstance(node, ast.Constant) and not node.value


class _Scope:
    """Names visible to the function: locals (Go variables or aliases of prototype
    objects) and the prototype's globals, closure and `self`."""

    def __init__(self, func: Any) -> None:
        self.func = func
        self.owner = getattr(func, "__self__", None)
        raw = getattr(func, "__func__", func)
        try:
            closure = inspect.getclosurevars(raw)
            self.outer: dict[str, Any] = {**closure.builtins, **closure.globals,
                                          **closure.nonlocals}
        except TypeError:
            self.outer = {}
        self.globals: dict[str, Any] = getattr(raw, "__globals__", {})


class _Translator:
    def __init__(self, ctx: PortContext, func: Any, go_name: str, params: list[Val],
                 method: bool, returns: str, expected: str | None = None) -> None:
        self.expected_return = expected
        self.ctx = ctx
        self.func = func
        self.go_name = go_name
        self.method = method
        self.returns = returns  # "error" (the sync handler) or "?" (a helper: learnt)
        self.scope = _Scope(func)
        raw = getattr(func, "__func__", func)
        source = textwrap.dedent(inspect.getsource(raw))
        self.source = source.rstrip()
        self.first_line = inspect.getsourcelines(raw)[1]
        self.file_name = os.path.basename(inspect.getsourcefile(raw) or "")
        tree = ast.parse(source)
        node = tree.body[0]
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            raise Untranslatable(f"{go_name} is not a plain function")
        self.node = node
        names = [a.arg for a in node.args.args]
        if getattr(func, "__self__", None) is not None or (
                method and names and names[0] == "self"):
            names = names[1:]
        if len(names) != len(params):
            raise Untranslatable(f"{node.name} takes {len(names)} argument(s), "
                                 f"called with {len(params)}")
        self.param_names = names
        self.param_vals = params
        self.hints: dict[str, str] = {}
        self._reset()

    # -- state of one pass ---------------------------------------------------------------

    def _reset(self) -> None:
        self.lines: list[str] = []
        self.indent = 1
        self.vars: dict[str, Val] = {}
        self.declared: dict[str, str] = {}  # go name -> go type (hoisted)
        self.used_names: set[str] = set(GO_PACKAGE_NAMES)
        self.todos: list[Todo] = []
        self.reach = Reach()
        self.error_sites = 0
        self.return_type: str | None = (self.expected_return if self.returns == "?"
                                        else "")
        self.uses_ctx = False
        self.temp = 0
        self.try_capture = False
        self.captured = False
        self.todo_ids: set[int] = set()
        self.param_go: list[tuple[str, str]] = []
        for name, val in zip(self.param_names, self.param_vals, strict=True):
            go = self._fresh(go_identifier(name))
            self.vars[name] = Val(go, val.type, val.ref) if not val.pseudo else val
            if not val.pseudo:
                self.param_go.append((go, val.type))
        if self.returns == "error" and self.param_names:
            # the sync handler's parameter is the key, a string
            self.vars[self.param_names[0]] = Val("key", "string")

    def _fresh(self, base: str) -> str:
        name = base if base not in GO_PACKAGE_NAMES else base + "Value"
        n = 1
        candidate = name
        while candidate in self.used_names:
            n += 1
            candidate = f"{name}{n}"
        self.used_names.add(candidate)
        return candidate

    def emit(self, text: str) -> None:
        self.lines.append("\t" * self.indent + text if text else "")

    def emit_all(self, lines: list[str]) -> None:
        for line in lines:
            self.emit(line)

    # -- returning ----------------------------------------------------------------------

    def _ret_error(self, err: str) -> str:
        self.error_sites += 1
        if self.returns == "error":
            return f"return {err}"
        return f"return <<ZERO>>, {err}"

    def _err_check(self) -> list[str]:
        return ["if err != nil {", "\t" + self._ret_error("err"), "}"]

    # -- the function ---------------------------------------------------------------------

    def run(self) -> GoFunction:
        self._pass()
        self.hints = dict(self.hints)
        hints = self.hints
        self._reset()
        self.hints = hints
        self._pass()
        return self._finish()

    def _pass(self) -> None:
        body = self.node.body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            body = body[1:]  # the docstring
        self.block(body)
        if not self._terminates(body):
            if self.returns == "error":
                self.emit("return nil")
            elif self.return_type is None:
                self.return_type = ""  # a helper that returns nothing
                self.emit("RET()")
            elif self.return_type:
                self.emit("RET(<<ZERO>>)")
            else:
                self.emit("RET()")

    def _terminates(self, body: list[ast.stmt]) -> bool:
        """Whether the Go of `body` ends in a terminating statement (Go wants one at
        the end of a function with results, and vet flags code after one)."""
        if not body:
            return False
        last = body[-1]
        if id(last) in self.todo_ids:
            return False
        if isinstance(last, (ast.Return, ast.Raise)):
            return True
        if isinstance(last, ast.If):
            known = self._static_truth(last.test)
            if known is not None:
                return self._terminates(last.body if known else last.orelse)
            return self._terminates(last.body) and self._terminates(last.orelse)
        if isinstance(last, ast.Try):
            return all(self._terminates(h.body) for h in last.handlers) \
                and self._terminates(last.body[1:] + last.orelse)
        return False

    def _finish(self) -> GoFunction:
        pure = self.returns != "error" and self.error_sites == 0
        ret = self.return_type or ""
        zero = zero_value(ret) if ret else ""
        out: list[str] = []
        decls = [f"\tvar {name} {go_type}" for name, go_type in self.declared.items()]
        body_text = "\n".join(self.lines)
        for name in self.declared:
            if not self._is_read(name, body_text):
                decls.append(f"\t_ = {name}")
        lines = list(self.lines)
        if pure and not ret and lines and lines[-1].strip() == "RET()":
            lines.pop()
        for line in decls + lines:
            if "<<ZERO>>, " in line and not ret:
                line = line.replace("<<ZERO>>, ", "")
            line = line.replace("<<ZERO>>", zero)
            match = re.match(r"^(\s*)RET\((.*)\)$", line, re.S)
            if match:
                indent, value = match.groups()
                if self.returns == "error":
                    line = f"{indent}return {value}"
                elif pure:
                    line = f"{indent}return {value}" if ret else f"{indent}return"
                else:
                    line = f"{indent}return {value}, nil" if ret else f"{indent}return nil"
            out.append(line)
        if self.returns == "error":
            returns = "error"
        elif pure:
            returns = ret
        else:
            returns = f"{ret},error" if ret else "error"
        params = self.param_go
        if self.returns == "error":
            params = [("key", "string")]
        return GoFunction(self.go_name, self.node.name, self.source, out, self.todos,
                          self.reach, returns=returns,
                          needs_ctx=self.returns == "error" or not pure or self.uses_ctx,
                          method=self.method, params=params)

    @staticmethod
    def _is_read(name: str, text: str) -> bool:
        pattern = re.compile(rf"\b{re.escape(name)}\b")
        for line in text.splitlines():
            code = line.split("//", 1)[0]
            code = re.sub(r'"(?:[^"\\]|\\.)*"', '""', code)
            lhs = re.match(r"^\s*([\w, ]+?)\s*=\s(?!=)", code)
            if lhs:
                code = code[lhs.end():]
            if pattern.search(code):
                return True
        return False

    # -- statements -----------------------------------------------------------------------

    def block(self, body: list[ast.stmt]) -> None:
        for stmt in body:
            self.statement(stmt)

    def _count(self, node: ast.AST) -> int:
        return sum(1 for n in ast.walk(node) if isinstance(n, ast.stmt))

    def statement(self, stmt: ast.stmt) -> None:
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            return  # a string on its own: a comment
        mark = (len(self.lines), dict(self.vars), dict(self.declared), self.indent,
                self.error_sites, len(self.todos), self.reach.translated, self.reach.total)
        try:
            handler = getattr(self, f"stmt_{type(stmt).__name__}", None)
            if handler is None:
                raise Untranslatable(f"a Python `{type(stmt).__name__}` statement")
            handler(stmt)
            if not isinstance(stmt, (ast.If, ast.For, ast.While, ast.Try)):
                self.reach.translated += 1
                self.reach.total += 1
        except Untranslatable as why:
            (n_lines, self.vars, self.declared, self.indent, self.error_sites, n_todos,
             self.reach.translated, self.reach.total) = mark
            del self.lines[n_lines:]
            del self.todos[n_todos:]
            self._todo(stmt, str(why))

    def _todo(self, stmt: ast.stmt, reason: str) -> None:
        source = ast.get_source_segment(self.source + "\n", stmt) or ast.unparse(stmt)
        first = source.splitlines()[0].strip()
        line = self.first_line + stmt.lineno - 1
        for i, text in enumerate(source.splitlines()):
            if i == 0:
                self.emit(f"// TODO(port): {text.rstrip()}")
            else:
                self.emit(f"//             {text.rstrip()}" if text.strip() else "//")
        self.ctx.uses_not_ported = True
        message = f"line {line}: {first}" + (" ..." if "\n" in source.strip() else "")
        self.emit(f"if err := notPorted({go_string(message + ' (' + reason + ')')}); "
                  "err != nil {")
        self.emit("\t" + self._ret_error("err"))
        self.emit("}")
        self.todos.append(Todo(self.go_name, line, first, reason, file=self.file_name))
        self.todo_ids.add(id(stmt))
        self.reach.total += self._count(stmt)

    def _compound(self, stmt: ast.stmt) -> None:
        self.reach.translated += 1
        self.reach.total += 1

    def stmt_Pass(self, stmt: ast.Pass) -> None:
        pass

    def stmt_Break(self, stmt: ast.Break) -> None:
        self.emit("break")

    def stmt_Continue(self, stmt: ast.Continue) -> None:
        self.emit("continue")

    def stmt_Return(self, stmt: ast.Return) -> None:
        value = stmt.value
        if self.returns == "error":
            if value is None or (isinstance(value, ast.Constant) and value.value is None):
                self.emit("return nil")
                return
            if isinstance(value, ast.Call) and self._resolves_to(value.func, "Result"):
                self._return_result(value)
                return
            raise Untranslatable("the sync handler returns only None or a Result")
        if (value is None or (isinstance(value, ast.Constant) and value.value is None)) \
                and self.return_type in ("string", "[]string"):
            self.emit(f"RET({zero_value(self.return_type)})")  # no key: "" or nil
            return
        if value is None or (isinstance(value, ast.Constant) and value.value is None \
                and self.return_type in (None, "")):
            if self.return_type is None:
                self.return_type = ""
            self.emit("RET()")
            return
        val = self.expr(value, self.return_type or None)
        val = self.materialize(val)
        if val.pseudo:
            raise Untranslatable("returning a prototype object")
        if self.return_type is None:
            self.return_type = val.type
        elif self.return_type:
            val = coerce(val, self.return_type)
        else:
            raise Untranslatable("a function that returns a value only sometimes")
        self.emit_all(val.pre)
        self.emit(f"RET({val.code})")

    def _return_result(self, call: ast.Call) -> None:
        kwargs = {k.arg: k.value for k in call.keywords}
        if call.args:
            raise Untranslatable("Result() with positional arguments")
        after = kwargs.get("requeue_after")
        if after is not None and not (isinstance(after, ast.Constant) and not after.value):
            val = deref(self.expr(after))
            self.ctx.uses_requeue_after = True
            self.emit_all(val.pre)
            if isinstance(after, ast.Constant) and isinstance(after.value, int):
                delay = f"{after.value} * time.Second"
            elif isinstance(after, ast.Constant) and isinstance(after.value, float):
                delay = f"time.Duration({after.value!r} * float64(time.Second))"
            else:
                delay = f"time.Duration(float64({val.code}) * float64(time.Second))"
            self.emit(f"return requeueAfter{{delay: {delay}}}")
            return
        requeue = kwargs.get("requeue")
        if requeue is not None and not (isinstance(requeue, ast.Constant)
                                        and requeue.value is False):
            if not (isinstance(requeue, ast.Constant) and requeue.value is True):
                raise Untranslatable("Result(requeue=<an expression>)")
            self.ctx.uses_requeue = True
            self.emit("return errRequeue")
            return
        self.emit("return nil")

    def stmt_Raise(self, stmt: ast.Raise) -> None:
        if stmt.exc is None:
            err = self.vars.get("<caught>")
            if err is None:
                raise Untranslatable("a bare raise outside an except block")
            self.emit(self._ret_error("err"))
            return
        exc = stmt.exc
        if isinstance(exc, ast.Call) and len(exc.args) == 1 and not exc.keywords:
            msg = self.expr(exc.args[0])
            fmt_code = self._errorf(exc.args[0], msg)
            self.emit_all(msg.pre)
            self.emit(self._ret_error(fmt_code))
            return
        name = ast.unparse(exc.func if isinstance(exc, ast.Call) else exc)
        self.emit(self._ret_error(f"errors.New({go_string(name)})"))

    def _errorf(self, node: ast.AST, msg: Val) -> str:
        if isinstance(node, ast.JoinedStr):
            fmt_str, args = self._format_parts(node)
            return f"fmt.Errorf({', '.join([go_string(fmt_str), *args])})"
        msg = coerce(msg, "string") if msg.type in NAMED_STRINGS else msg
        if msg.type != "string":
            raise Untranslatable(f"raising with a {msg.type} message")
        if isinstance(node, ast.Constant):
            return f"errors.New({msg.code})"
        return f"errors.New({msg.code})"

    def stmt_Expr(self, stmt: ast.Expr) -> None:
        val = self.expr(stmt.value, statement=True)
        if val.type == "@done":
            self.emit_all(val.pre)
            return
        if val.errcall:
            self.emit_all(val.pre)
            if val.type:
                self.emit(f"if _, err := {val.code}; err != nil {{")
            else:
                self.emit(f"if err := {val.code}; err != nil {{")
            self.emit("\t" + self._ret_error("err"))
            self.emit("}")
            return
        if isinstance(stmt.value, ast.Call) and not val.pseudo:
            self.emit_all(val.pre)
            if val.type:
                self.emit(f"_ = {val.code}")
            else:
                self.emit(val.code)
            return
        raise Untranslatable("an expression whose value is dropped")

    def stmt_AnnAssign(self, stmt: ast.AnnAssign) -> None:
        if stmt.value is None:
            return
        self.stmt_Assign(ast.Assign(targets=[stmt.target], value=stmt.value,
                                    lineno=stmt.lineno, col_offset=stmt.col_offset))

    def stmt_AugAssign(self, stmt: ast.AugAssign) -> None:
        ops = {ast.Add: "+=", ast.Sub: "-=", ast.Mult: "*="}
        op = ops.get(type(stmt.op))
        if op is None or not isinstance(stmt.target, ast.Name):
            raise Untranslatable("this augmented assignment")
        target = self.vars.get(stmt.target.id)
        if target is None or target.pseudo:
            raise Untranslatable(f"{stmt.target.id} has no Go type here")
        val = self.materialize(self.expr(stmt.value))
        val = coerce(deref(val), target.type)
        self.emit_all(val.pre)
        self.emit(f"{target.code} {op} {val.code}")

    def stmt_Assign(self, stmt: ast.Assign) -> None:
        if len(stmt.targets) != 1:
            raise Untranslatable("chained assignment")
        target, value = stmt.targets[0], stmt.value
        if isinstance(target, ast.Tuple):
            self._assign_tuple(target, value)
            return
        if isinstance(target, ast.Subscript):
            self._assign_item(target, value)
            return
        if not isinstance(target, ast.Name):
            raise Untranslatable("assigning to an attribute")
        name = target.id
        existing = self.vars.get(name)
        expected = existing.type if existing is not None and not existing.pseudo else \
            self.hints.get(name)
        if isinstance(value, ast.Dict) and existing is not None and not existing.pseudo \
                and struct_of(existing.type) is not None:
            splats = [v for k, v in zip(value.keys, value.values, strict=True) if k is None]
            if len(splats) == 1 and isinstance(splats[0], ast.Name) and splats[0].id == name:
                self._merge_into(existing, value)
                return
        if self._is_get_by_key(value):
            self._assign_get_by_key(name, value)
            return
        val = self.expr(value, expected)
        if val.pseudo or val.type.startswith("@") or (
                struct_of(val.type) is not None and not val.type.startswith("*")
                and not val.code.endswith("}")):  # a field path; a literal is a variable
            if val.pre or val.errcall:
                raise Untranslatable("an alias that needs a call")
            self.vars[name] = val  # an alias of a prototype object or a struct field
            return
        if val.type == "@none":
            raise Untranslatable(f"{name} = None (no Go type)")
        go = self._declare(name, val.type, val.ref)
        if go == val.code and not val.pre:
            return  # `obj = getattr(obj, "obj", obj)`: Go has the object already
        self.emit_all(val.pre)
        if val.errcall:
            if val.type:
                self.emit(f"{go}, err = {val.code}")
            else:
                raise Untranslatable("assigning the result of a call that returns nothing")
            self.emit_all(self._err_check())
            self._declare_err()
        else:
            self.emit(f"{go} = {val.code}")

    def _merge_into(self, target: Val, value: ast.Dict) -> None:
        """`x = {"k": v, **x}` / `x = {**x, "k": v}` on a struct: set the fields (a key
        before the splat only where x has none, as Python's later keys win)."""
        after = False
        for key, item in zip(value.keys, value.values, strict=True):
            if key is None:
                after = True
                continue
            if not isinstance(key, ast.Constant) or not isinstance(key.value, str):
                raise Untranslatable("a computed key in a merged dict")
            found = field_of(target.type, key.value)
            if found is None:
                raise Untranslatable(f"{target.type} has no field {key.value!r} the port knows")
            go_field, go_type = found
            val = self._value_for(item, go_type)
            self.emit_all(val.pre)
            place = f"{target.code}.{go_field}"
            if after:
                self.emit(f"{place} = {val.code}")
            elif go_type.startswith(("*", "[]", "map[")):
                self.emit(f"if {place} == nil {{")
                self.emit(f"\t{place} = {val.code}")
                self.emit("}")
            else:
                raise Untranslatable("a merged key Go cannot tell absent from zero")

    def _declare(self, name: str, go_type: str, ref: Any = None) -> str:
        if not go_type:
            raise Untranslatable(f"{name} = a call that returns nothing in Go")
        existing = self.vars.get(name)
        if existing is not None and not existing.pseudo and existing.code in self.declared:
            if existing.type != go_type:
                raise Untranslatable(f"{name} changes type ({existing.type} -> {go_type})")
            if ref is not None:
                existing.ref = ref
            return existing.code
        if existing is not None and not existing.pseudo:  # a parameter or loop variable
            if existing.type != go_type:
                raise Untranslatable(f"{name} changes type ({existing.type} -> {go_type})")
            return existing.code
        go = self._fresh(go_identifier(name))
        self.declared[go] = go_type
        self.vars[name] = Val(go, go_type, ref)
        return go

    def _declare_err(self) -> None:
        self.used_names.add("err")
        if "err" not in self.declared:
            self.declared["err"] = "error"

    def _assign_tuple(self, target: ast.Tuple, value: ast.AST) -> None:
        names = [t.id if isinstance(t, ast.Name) else None for t in target.elts]
        if None in names:
            raise Untranslatable("unpacking into something other than names")
        if isinstance(value, ast.Call) and self._resolves_to(value.func,
                                                             "split_meta_namespace_key"):
            if len(names) != 2 or len(value.args) != 1:
                raise Untranslatable("split_meta_namespace_key with other arguments")
            key = self.materialize(self.expr(value.args[0]))
            first = self._declare(str(names[0]), "string")
            second = self._declare(str(names[1]), "string")
            self.emit_all(key.pre)
            self.emit(f"{first}, {second}, err = cache.SplitMetaNamespaceKey({key.code})")
            self._declare_err()
            self.emit_all(self._err_check())
            return
        if isinstance(value, ast.Tuple) and len(value.elts) == len(names):
            for name, elt in zip(names, value.elts, strict=True):
                self.stmt_Assign(ast.Assign(targets=[ast.Name(id=str(name), ctx=ast.Store())],
                                            value=elt))
            return
        raise Untranslatable("this tuple assignment")

    def _assign_item(self, target: ast.Subscript, value: ast.AST) -> None:
        if not isinstance(target.slice, ast.Constant):
            container = self.materialize(self.expr(target.value))
            match = re.fullmatch(r"map\[(\w+)\](.+)", container.type)
            if match is None:
                raise Untranslatable(f"setting a computed key of a {container.type}")
            key = coerce(self.materialize(self.expr(target.slice)), match.group(1))
            val = self._value_for(value, match.group(2))
            self.emit_all(container.pre + key.pre + val.pre)
            self._nil_map_guard(container)
            self.emit(f"{container.code}[{key.code}] = {val.code}")
            return
        root, keys, _ = self._flatten(target)
        base = self.expr(root)
        if base.type == "@upath":
            base, keys = base.ref[0], [*base.ref[1], *keys]
        if isinstance(value, ast.Dict) and any(k is None for k in value.keys):
            self._assign_merge(target, value, base, keys)
            return
        if base.type == "*unstructured.Unstructured" and keys and all(
                isinstance(k, str) for k in keys):
            val = self.materialize(self.expr(value))
            val = deref(val)
            setter, code = self._unstructured_setter(val)
            self.emit_all(val.pre)
            quoted = ", ".join(go_string(str(k)) for k in keys)
            self.emit(f"if err := unstructured.{setter}({base.code}.Object, {code}, {quoted}); "
                      "err != nil {")
            self.emit("\t" + self._ret_error("err"))
            self.emit("}")
            return
        place = self._access(base, keys, for_write=True)
        val = self.materialize(self.expr(value, place.type))
        val = coerce(val, place.type, value.value if isinstance(value, ast.Constant) else None)
        self.emit_all(base.pre + val.pre)
        if keys and place.code.endswith("]"):  # a map's key: Go's nil map would panic
            container = self._access(base, keys[:-1], for_write=True)
            if container.type.startswith("map["):
                self._nil_map_guard(container)
        self.emit(f"{place.code} = {val.code}")

    def _nil_map_guard(self, container: Val) -> None:
        """Python's dict is never None where Go's map may be nil: make it first."""
        if re.fullmatch(r"[\w.]+", container.code):
            self.emit(f"if {container.code} == nil {{")
            self.emit(f"\t{container.code} = {container.type}{{}}")
            self.emit("}")

    def _assign_merge(self, target: ast.Subscript, value: ast.Dict, base: Val,
                      keys: list[Any]) -> None:
        """`x[k] = {**(x.get(k) or {}), "a": v}`: set x[k]["a"] = v, keep the rest."""
        splats = [v for k, v in zip(value.keys, value.values, strict=True) if k is None]
        if len(splats) != 1:
            raise Untranslatable("a dict merging more than one dict")
        s_root, s_keys, _ = self._flatten(splats[0])
        t_root, _, _ = self._flatten(target)
        if ast.unparse(s_root) != ast.unparse(t_root) or s_keys != keys:
            raise Untranslatable("a dict merging another object's fields")
        for key, item in zip(value.keys, value.values, strict=True):
            if key is None:
                continue
            if not isinstance(key, ast.Constant) or not isinstance(key.value, str):
                raise Untranslatable("a computed key in a merged dict")
            sub = ast.Subscript(value=target, slice=ast.Constant(key.value), ctx=ast.Store())
            self._assign_item(sub, item)

    def _unstructured_setter(self, val: Val) -> tuple[str, str]:
        t = val.type
        if t == "map[string]string":
            return "SetNestedStringMap", val.code
        if t == "[]string":
            return "SetNestedStringSlice", val.code
        if t in ("int", "int32"):
            return "SetNestedField", f"int64({val.code})"
        if t in ("int64", "float64", "bool", "string", "map[string]interface{}"):
            return "SetNestedField", val.code
        if t in NAMED_STRINGS:
            return "SetNestedField", f"string({val.code})"
        raise Untranslatable(f"storing a {t} in an unstructured object")

    def _is_get_by_key(self, node: ast.AST) -> bool:
        return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
            and node.func.attr == "get_by_key"

    def _assign_get_by_key(self, name: str, value: ast.AST) -> None:
        assert isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
        owner = self.expr(value.func.value)
        if owner.type != "@indexer" or len(value.args) != 1:
            raise Untranslatable("get_by_key on something other than an informer's indexer")
        resource: GoResource = owner.ref
        key = self.materialize(self.expr(value.args[0]))
        go = self._declare(name, resource.go_type, resource)
        self.emit_all(key.pre)
        self.emit(f"if item, exists, err := {owner.code}.GetByKey({key.code}); err != nil {{")
        self.emit("\t" + self._ret_error("err"))
        self.emit("} else if exists {")
        self.emit(f"\t{go} = item.({resource.go_type})")
        self.emit("} else {")
        self.emit(f"\t{go} = nil")
        self.emit("}")

    def _static_truth(self, node: ast.AST) -> bool | None:
        """`isinstance(obj, DeletedFinalStateUnknown)` / `isinstance(obj, dict)` on an
        object Go already has typed (the tombstone was unwrapped before): known now."""
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            inner = self._static_truth(node.operand)
            return None if inner is None else not inner
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id == "isinstance" and len(node.args) == 2
                and isinstance(node.args[0], ast.Name)):
            return None
        val = self.vars.get(node.args[0].id)
        if val is None or not (val.type.startswith("*") and (
                struct_of(val.type) is not None or val.type == "*unstructured.Unstructured")):
            return None
        cls = self._resolve_static(node.args[1])
        if getattr(cls, "__name__", "") == "DeletedFinalStateUnknown":
            return False
        if cls is dict:
            return True
        return None

    def stmt_If(self, stmt: ast.If) -> None:
        known = self._static_truth(stmt.test)
        if known is not None:
            self._compound(stmt)
            taken = stmt.body if known else stmt.orelse
            skipped = stmt.orelse if known else stmt.body
            for node in skipped:  # never runs in Go: counted, not written
                n = self._count(node)
                self.reach.translated += n
                self.reach.total += n
            self.block(taken)
            return
        cond = self.condition(stmt.test)
        self._compound(stmt)
        self.emit_all(cond.pre)
        self.emit(f"if {cond.code} {{")
        self._nested(stmt.body)
        orelse = stmt.orelse
        while orelse:
            if len(orelse) == 1 and isinstance(orelse[0], ast.If):
                elif_ = orelse[0]
                try:
                    cond = self.condition(elif_.test)
                except Untranslatable as why:
                    self.emit("} else {")
                    self.indent += 1
                    self._todo(elif_, str(why))
                    self.indent -= 1
                    break
                self._compound(elif_)
                if cond.pre:
                    self.emit("} else {")
                    self.indent += 1
                    self.emit_all(cond.pre)
                    self.emit(f"if {cond.code} {{")
                    self._nested(elif_.body)
                    if elif_.orelse:
                        self.emit("} else {")
                        self._nested(elif_.orelse)
                    self.emit("}")
                    self.indent -= 1
                    break
                self.emit(f"}} else if {cond.code} {{")
                self._nested(elif_.body)
                orelse = elif_.orelse
            else:
                self.emit("} else {")
                self._nested(orelse)
                break
        self.emit("}")

    def _nested(self, body: list[ast.stmt]) -> None:
        self.indent += 1
        self.block(body)
        self.indent -= 1

    def stmt_While(self, stmt: ast.While) -> None:
        if stmt.orelse:
            raise Untranslatable("while ... else")
        cond = self.condition(stmt.test)
        if cond.pre:
            raise Untranslatable("a loop condition that makes a call")
        self._compound(stmt)
        self.emit(f"for {cond.code} {{")
        self._nested(stmt.body)
        self.emit("}")

    def stmt_For(self, stmt: ast.For) -> None:
        if stmt.orelse:
            raise Untranslatable("for ... else")
        it = stmt.iter
        saved = dict(self.vars)
        header, pre = self._for_header(stmt.target, it)
        self._compound(stmt)
        self.emit_all(pre)
        self.emit(header[0])
        self.indent += 1
        for line in header[1:]:
            self.emit(line)
        self.block(stmt.body)
        self.indent -= 1
        self.emit("}")
        for name in list(self.vars):
            if name not in saved:
                del self.vars[name]
            else:
                self.vars[name] = saved[name]

    def _loop_var(self, target: ast.AST, go_type: str, ref: Any = None) -> str:
        if not isinstance(target, ast.Name):
            raise Untranslatable("a loop target other than a name")
        go = self._fresh(go_identifier(target.id))
        self.vars[target.id] = Val(go, go_type, ref)
        return go

    def _for_header(self, target: ast.AST, it: ast.AST) -> tuple[list[str], list[str]]:
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range" \
                and len(it.args) == 1:
            n = deref(self.materialize(self.expr(it.args[0])))
            if not is_numeric(n.type):
                raise Untranslatable("range() of a non-number")
            i = self._loop_var(target, "int")
            return [f"for {i} := 0; {i} < int({n.code}); {i}++ {{"], n.pre
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) \
                and it.func.attr in ("items", "keys", "values") and not it.args:
            m = self.materialize(self.expr(it.func.value))
            match = re.fullmatch(r"map\[(\w+)\](.+)", m.type)
            if not match:
                raise Untranslatable(f".{it.func.attr}() of a {m.type}")
            key_t, val_t = match.groups()
            if it.func.attr == "items":
                if not (isinstance(target, ast.Tuple) and len(target.elts) == 2):
                    raise Untranslatable("items() into other than two names")
                k = self._loop_var(target.elts[0], key_t)
                v = self._loop_var(target.elts[1], val_t)
                return [f"for {k}, {v} := range {m.code} {{"], m.pre
            if it.func.attr == "keys":
                k = self._loop_var(target, key_t)
                return [f"for {k} := range {m.code} {{"], m.pre
            v = self._loop_var(target, val_t)
            return [f"for _, {v} := range {m.code} {{"], m.pre
        seq = self.materialize(self.expr(it))
        if seq.type.startswith("map["):
            key_t = seq.type[4:seq.type.index("]")]
            k = self._loop_var(target, key_t)
            return [f"for {k} := range {seq.code} {{"], seq.pre
        if seq.type == "[]interface{}" and isinstance(seq.ref, GoResource):
            item = self._fresh("item")
            v = self._loop_var(target, seq.ref.go_type, seq.ref)
            return [f"for _, {item} := range {seq.code} {{",
                    f"{v} := {item}.({seq.ref.go_type})"], seq.pre
        if seq.type.startswith("[]"):
            v = self._loop_var(target, seq.type[2:], seq.ref)
            return [f"for _, {v} := range {seq.code} {{"], seq.pre
        raise Untranslatable(f"looping over a {seq.type}")

    def stmt_Try(self, stmt: ast.Try) -> None:
        if stmt.finalbody:
            raise Untranslatable("try ... finally")
        if not stmt.body:
            raise Untranslatable("an empty try")
        lead: list[ast.stmt] = []  # statements before the call that may fail: plain Go
        body = list(stmt.body)
        while len(body) > 1 and not self._may_fail(body[0]):
            lead.append(body.pop(0))
        first, rest = body[0], body[1:]
        for later in rest:
            if any(isinstance(n, ast.Call) for n in ast.walk(later)):
                raise Untranslatable("a try block whose later statements call something "
                                     "(only the first may raise)")
        call_node = first.value if isinstance(first, (ast.Assign, ast.Expr)) else None
        if call_node is None:
            raise Untranslatable("a try block that does not start with a call")
        if isinstance(first, ast.Assign) and (len(first.targets) != 1
                                             or not isinstance(first.targets[0], ast.Name)):
            raise Untranslatable("a try block whose call is assigned to other than a name")
        self.try_capture, self.captured = True, False
        try:
            val = self.expr(call_node)
        finally:
            self.try_capture = False
        captured = self.captured  # the call was inside the statement, as in deepcopy(get())
        if not val.errcall and not captured:
            raise Untranslatable("a try block whose first statement cannot fail in Go")
        conditions = []
        catch_all = None
        for handler in stmt.handlers:
            cond = self._except_condition(handler.type)
            if cond == "err != nil":
                catch_all = handler
            conditions.append((handler, cond))
        self._compound(stmt)
        self.block(lead)
        self.reach.translated += 1
        self.reach.total += 1
        self._declare_err()
        self.emit_all(val.pre)
        success: list[str] = []  # what uses the guarded call's result, once it succeeded
        if captured:
            if isinstance(first, ast.Assign):
                assert isinstance(first.targets[0], ast.Name)
                go = self._declare(first.targets[0].id, val.type, val.ref)
                success.append(f"{go} = {val.code}")
            elif val.type and val.code:
                success.append(f"_ = {val.code}")
        elif isinstance(first, ast.Assign):
            assert isinstance(first.targets[0], ast.Name)
            if not val.type:
                raise Untranslatable("assigning the result of a call that returns nothing")
            go = self._declare(first.targets[0].id, val.type, val.ref)
            self.emit(f"{go}, err = {val.code}")
        elif val.type:
            self.emit(f"_, err = {val.code}")
        else:
            self.emit(f"err = {val.code}")
        keyword = "if"
        for handler, cond in conditions:
            self.emit(f"{keyword} {cond} {{" if keyword == "if" else f"}} else if {cond} {{")
            keyword = "else if"
            saved = self.vars.get("<caught>")
            self.vars["<caught>"] = Val("err", "error")
            if handler.name:
                self.vars[handler.name] = Val("err", "error")
            self._nested(handler.body)
            if saved is None:
                self.vars.pop("<caught>", None)
        if catch_all is None:
            self.emit("} else if err != nil {")
            self.emit("\t" + self._ret_error("err"))
        else_body = rest + stmt.orelse
        if else_body or success:
            self.emit("} else {")
            self.indent += 1
            self.emit_all(success)
            self.indent -= 1
            self._nested(else_body)
        self.emit("}")

    def _may_fail(self, stmt: ast.stmt) -> bool:
        """Whether a statement's Go could return an error (it makes a call that can)."""
        if not isinstance(stmt, (ast.Assign, ast.Expr, ast.AnnAssign)):
            return True
        value = stmt.value
        if value is None:
            return False
        saved = (len(self.lines), dict(self.vars), dict(self.declared), self.error_sites)
        try:
            val = self.expr(value)
            return val.errcall or bool(val.pre)
        except Untranslatable:
            return True
        finally:
            del self.lines[saved[0]:]
            self.vars, self.declared, self.error_sites = saved[1], saved[2], saved[3]

    def _except_condition(self, node: ast.AST | None) -> str:
        if node is None:
            return "err != nil"
        if isinstance(node, ast.Tuple):
            parts = [self._except_condition(e) for e in node.elts]
            if "err != nil" in parts:
                return "err != nil"
            return " || ".join(parts)
        cls = self._resolve_static(node)
        if not isinstance(cls, type) or not issubclass(cls, BaseException):
            raise Untranslatable(f"except {ast.unparse(node)}")
        for error_type, check in _API_ERRORS:
            if issubclass(cls, error_type):
                return check
        if cls in (Exception, BaseException, kerrors.KubenbError, kerrors.ApiError):
            return "err != nil"
        raise Untranslatable(f"except {cls.__name__} (not an API error Go can tell apart)")

    # -- names ----------------------------------------------------------------------------

    def _resolve_static(self, node: ast.AST) -> Any:
        """The prototype object a dotted name refers to (no locals), or a sentinel."""
        if isinstance(node, ast.Name):
            if node.id in self.scope.outer:
                return self.scope.outer[node.id]
            if node.id in self.scope.globals:
                return self.scope.globals[node.id]
            return _MISSING
        if isinstance(node, ast.Attribute):
            base = self._resolve_static(node.value)
            if base is _MISSING or not isinstance(base, types.ModuleType | type):
                return _MISSING
            return getattr(base, node.attr, _MISSING)
        return _MISSING

    def _resolves_to(self, node: ast.AST, name: str) -> bool:
        value = self._resolve_static(node)
        return getattr(value, "__name__", None) == name

    def name(self, node: ast.Name) -> Val:
        if node.id in self.vars:
            return self.vars[node.id]
        if node.id == "self" and self.scope.owner is not None:
            return Val("c", "@self", self.scope.owner)
        if node.id in ("True", "False"):
            return Val("true" if node.id == "True" else "false", "bool")
        value = self._resolve_static(node)
        if value is _MISSING:
            raise Untranslatable(f"{node.id} is not defined before this line")
        return self.runtime_value(node.id, value)

    def runtime_value(self, py_name: str, value: Any) -> Val:
        """A prototype object, as Go sees it."""
        if isinstance(value, bool):
            return self._constant(py_name, value, "bool")
        if isinstance(value, int):
            return self._constant(py_name, value, "int64")
        if isinstance(value, float):
            return self._constant(py_name, value, "float64")
        if isinstance(value, str):
            return self._constant(py_name, value, "string")
        cls_name = type(value).__name__
        if isinstance(value, logging.Logger):
            return Val("klog", "@log")
        if isinstance(value, types.ModuleType):
            return Val(value.__name__, "@module", value)
        if isinstance(value, type):
            return Val(value.__name__, "@class", value)
        if callable(value) and isinstance(value, (types.FunctionType, types.MethodType)):
            return Val(py_name, "@func", value)
        if cls_name == "Clientset" or hasattr(value, "core_v1"):
            return Val("c.kubeclientset", "@clientset", value)
        group, version = getattr(value, "group", None), getattr(value, "version", None)
        if isinstance(group, str) and isinstance(version, str) and hasattr(
                value, "rest_client"):  # a group version client: clientset.core_v1()
            return Val("", "@group", (group, version))
        info = getattr(type(value), "info", None)
        if isinstance(info, ResourceInfo):
            resource = self.ctx.resource(info.group, info.resource) or GoResource(info)
            if cls_name.endswith("Lister"):
                return Val(resource.lister_expr(None), "@lister", resource)
            return Val("", "@typedinformer", resource)
        if cls_name == "Lister" and hasattr(value, "indexer"):  # a generic lister
            for watched in self.ctx.spec.watched:
                info = watched.resource.info
                if (info.group, info.resource) == (value.group, value.resource):
                    return Val(watched.resource.lister_expr(None), "@lister", watched.resource)
            raise Untranslatable(f"{py_name} lists {value.resource}, which no informer watches")
        if hasattr(value, "get_indexer") and hasattr(value, "add_event_handler"):
            for watched in self.ctx.spec.watched:
                if watched.resource.key and self._is_watched_informer(value, watched):
                    return Val(f"c.{watched.resource.field}Informer", "@informer",
                               watched.resource)
            raise Untranslatable(f"{py_name} is an informer the controller does not watch")
        if cls_name == "ResourceClient":
            group = value.api_version.rpartition("/")[0]
            client_resource = self.ctx.resource(group, value.resource)
            if client_resource is None:
                raise Untranslatable(f"{py_name}: {value.resource} is not a resource the "
                                     "port knows")
            resource = client_resource
            namespace = value.namespace_name
            ns = go_string(namespace) if namespace else None
            if resource.info.namespaced and not namespace:
                ns = '""'
            return Val(resource.client_expr(ns), "@client", (resource, ns))
        if cls_name in ("EventRecorder", "FakeRecorder"):
            self.ctx.uses_recorder = True
            return Val("c.recorder", "@recorder")
        raise Untranslatable(f"{py_name} is a {cls_name}, which the port cannot translate")

    def _is_watched_informer(self, informer: Any, watched: Any) -> bool:
        for w in self.ctx.spec.watched:
            if w is watched:
                break
        description = getattr(getattr(informer, "list_watcher", None), "description", "")
        info = watched.resource.info
        return str(description).split(" ")[:2] == [info.api_version, info.resource]

    def _constant(self, py_name: str, value: Any, go_type: str) -> Val:
        go = pascal_case(py_name) if py_name.isupper() else go_identifier(py_name)
        if go in GO_PACKAGE_NAMES:
            go += "Value"
        self.ctx.constants[go] = (py_name, value)
        return Val(go, "string" if go_type == "string" else go_type)

    # -- expressions ------------------------------------------------------------------------

    def materialize(self, val: Val) -> Val:
        """An error-returning call as a plain value: into a temporary, error checked."""
        if not val.errcall:
            return val
        if not val.type:
            raise Untranslatable("using the result of a call that returns nothing")
        self.temp += 1
        tmp = self._fresh("result")
        self.declared[tmp] = val.type
        self._declare_err()
        if self.try_capture:  # the call a try block guards: its except clauses check err
            if self.captured:
                raise Untranslatable("a try block whose statement makes two calls that "
                                     "may fail")
            self.captured = True
            return Val(tmp, val.type, val.ref, [*val.pre, f"{tmp}, err = {val.code}"])
        pre = [*val.pre, f"{tmp}, err = {val.code}", *self._err_check()]
        return Val(tmp, val.type, val.ref, pre)

    def condition(self, node: ast.AST) -> Val:
        if isinstance(node, ast.BoolOp):
            parts = [self.condition(v) for v in node.values]
            if any(p.pre for p in parts[1:]):
                raise Untranslatable("a condition whose later part makes a call")
            op = " && " if isinstance(node.op, ast.And) else " || "
            code = op.join(f"({p.code})" if (" && " in p.code or " || " in p.code)
                           else p.code for p in parts)
            return Val(code, "bool", None, parts[0].pre)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            inner = self.condition(node.operand)
            code = inner.code
            negations = {" != nil": " == nil", ' != ""': ' == ""', " != 0": " == 0"}
            for positive, negative in negations.items():
                if code.endswith(positive) and " " not in code[:-len(positive)].replace(
                        ", ", ","):
                    return Val(code[:-len(positive)] + negative, "bool", None, inner.pre)
            if code.startswith("len(") and code.endswith(") != 0") and code.count("(") == 1:
                return Val(code[:-5] + "== 0", "bool", None, inner.pre)
            if re.fullmatch(r"[\w.]+(\([^()]*\))?", code):
                return Val(f"!{code}", "bool", None, inner.pre)
            return Val(f"!({code})", "bool", None, inner.pre)
        val = self.materialize(self.expr(node))
        if val.pseudo:
            raise Untranslatable("the truth of a prototype object")
        return Val(truthy(val), "bool", None, val.pre)

    def expr(self, node: ast.AST, expected: str | None = None, statement: bool = False) -> Val:
        method = getattr(self, f"expr_{type(node).__name__}", None)
        if method is None:
            raise Untranslatable(f"a Python `{type(node).__name__}` expression")
        if type(node).__name__ in ("Call",):
            return method(node, expected, statement)
        if type(node).__name__ in ("Dict", "List", "Subscript", "BoolOp", "Constant",
                                   "ListComp"):
            return method(node, expected)
        return method(node)

    def expr_Name(self, node: ast.Name) -> Val:
        return self.name(node)

    def expr_Constant(self, node: ast.Constant, expected: str | None = None) -> Val:
        value = node.value
        if value is None:
            return Val("nil", "@none")
        if isinstance(value, bool):
            return Val("true" if value else "false", "bool")
        if isinstance(value, int):
            t = expected if expected in ("int", "int32", "int64", "float64") else "int64"
            return Val(str(value), t)
        if isinstance(value, float):
            return Val(repr(value), "float64")
        if isinstance(value, str):
            return Val(go_string(value), "string")
        raise Untranslatable(f"the constant {value!r}")

    def expr_JoinedStr(self, node: ast.JoinedStr) -> Val:
        fmt_str, args = self._format_parts(node)
        pre: list[str] = []
        if not args:
            return Val(go_string(fmt_str), "string")
        return Val(f"fmt.Sprintf({', '.join([go_string(fmt_str), *args])})", "string", None, pre)

    def _format_parts(self, node: ast.JoinedStr) -> tuple[str, list[str]]:
        fmt_parts: list[str] = []
        args: list[str] = []
        for part in node.values:
            if isinstance(part, ast.Constant):
                fmt_parts.append(str(part.value).replace("%", "%%"))
            elif isinstance(part, ast.FormattedValue):
                if part.format_spec is not None:
                    raise Untranslatable("a format spec in an f-string")
                val = deref(self.materialize(self.expr(part.value)))
                if val.pre:
                    raise Untranslatable("an f-string that makes a call")
                verb = "%q" if part.conversion == ord("r") else (
                    "%s" if val.type == "string" else "%v")
                fmt_parts.append(verb)
                args.append(val.code)
        return "".join(fmt_parts), args

    def expr_BoolOp(self, node: ast.BoolOp, expected: str | None = None) -> Val:
        if isinstance(node.op, ast.Or) and len(node.values) == 2 \
                and _is_falsy_literal(node.values[1]):
            return self.expr(node.values[0], expected)  # `x or {}`: Go's zero values
        for value in node.values:
            val = self.expr(value)
            if val.type != "bool":
                raise Untranslatable("`and`/`or` used to pick a value (Go's && and || "
                                     "give a bool)")
        return self.condition(node)

    def expr_UnaryOp(self, node: ast.UnaryOp) -> Val:
        if isinstance(node.op, ast.Not):
            return self.condition(node)
        if isinstance(node.op, ast.USub):
            val = deref(self.materialize(self.expr(node.operand)))
            if not is_numeric(val.type):
                raise Untranslatable("negating a non-number")
            return Val(f"-{val.code}", val.type, None, val.pre)
        raise Untranslatable("this unary operator")

    def expr_Compare(self, node: ast.Compare) -> Val:
        if len(node.ops) != 1:
            raise Untranslatable("a chained comparison")
        op, right_node = node.ops[0], node.comparators[0]
        left = self.materialize(self.expr(node.left))
        if isinstance(op, (ast.Is, ast.IsNot)):
            if not (isinstance(right_node, ast.Constant) and right_node.value is None):
                raise Untranslatable("`is` with something other than None")
            symbol = "==" if isinstance(op, ast.Is) else "!="
            t = left.type
            if t.startswith(("*", "[]", "map[")) or t in ("interface{}", "error"):
                return Val(f"{left.code} {symbol} nil", "bool", None, left.pre)
            if t == "string":
                return Val(f'{left.code} {symbol} ""', "bool", None, left.pre)
            raise Untranslatable(f"comparing a {t} with None")
        right = self.materialize(self.expr(right_node))
        pre = left.pre + right.pre
        if isinstance(op, (ast.In, ast.NotIn)):
            code = self._contains(left, right)
            if isinstance(op, ast.NotIn):
                code = f"!{code}"
            return Val(code, "bool", None, pre)
        symbols = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">",
                   ast.GtE: ">="}
        found = symbols.get(type(op))
        if found is None:
            raise Untranslatable("this comparison")
        symbol = found
        left, right = deref(left), deref(right)
        left, right = self._unify(left, right, left_node=node.left, right_node=right_node)
        if left.type.startswith(("map[", "[]")) or struct_of(left.type) is not None:
            if symbol not in ("==", "!="):
                raise Untranslatable("ordering maps or lists")
            code = f"reflect.DeepEqual({left.code}, {right.code})"
            return Val(code if symbol == "==" else f"!{code}", "bool", None, pre)
        return Val(f"{left.code} {symbol} {right.code}", "bool", None, pre)

    def _unify(self, left: Val, right: Val, left_node: ast.AST | None = None,
               right_node: ast.AST | None = None) -> tuple[Val, Val]:
        if left.type == right.type:
            return left, right
        if is_numeric(left.type) and is_numeric(right.type):
            if isinstance(right_node, ast.Constant):
                return left, Val(right.code, left.type)
            if isinstance(left_node, ast.Constant):
                return Val(left.code, right.type), right
            wide = "float64" if "float64" in (left.type, right.type) else "int64"
            return coerce(left, wide), coerce(right, wide)
        strings = {"string", *NAMED_STRINGS}
        if left.type in strings and right.type in strings:
            if isinstance(right_node, ast.Constant) or isinstance(left_node, ast.Constant):
                return left, right
            return coerce(left, "string"), coerce(right, "string")
        if right.type == "@none" or left.type == "@none":
            raise Untranslatable("comparing with None by ==")
        raise Untranslatable(f"comparing a {left.type} with a {right.type}")

    def _contains(self, item: Val, container: Val) -> str:
        t = container.type
        if struct_of(t) is not None and item.code.startswith('"'):
            found = field_of(t, item.code[1:-1])
            if found is not None and found[1].startswith("*"):
                return f"{container.code}.{found[0]} != nil"
            if found is not None and found[1].startswith(("[]", "map[")):
                return f"len({container.code}.{found[0]}) != 0"
        if t.startswith("map["):
            return (f"func() bool {{ _, ok := {container.code}[{item.code}]; return ok }}()")
        if t.startswith("[]"):
            return f"slices.Contains({container.code}, {item.code})"
        if t == "string":
            return f"strings.Contains({container.code}, {item.code})"
        raise Untranslatable(f"`in` on a {t}")

    def expr_BinOp(self, node: ast.BinOp) -> Val:
        left = deref(self.materialize(self.expr(node.left)))
        if isinstance(node.op, ast.Mod) and left.type == "string":
            return self._percent_format(node.left, node.right)
        right = deref(self.materialize(self.expr(node.right)))
        ops = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "/",
               ast.Mod: "%"}
        symbol = ops.get(type(node.op))
        if symbol is None:
            raise Untranslatable("this operator")
        left, right = self._unify(left, right, node.left, node.right)
        if left.type == "string" and symbol != "+":
            raise Untranslatable("this operator on strings")
        if not (is_numeric(left.type) or left.type == "string"):
            raise Untranslatable(f"{symbol} on a {left.type}")
        return Val(f"{left.code} {symbol} {right.code}", left.type, None, left.pre + right.pre)

    def _percent_format(self, fmt_node: ast.AST, args_node: ast.AST) -> Val:
        if not isinstance(fmt_node, ast.Constant):
            raise Untranslatable("a computed %-format")
        items = args_node.elts if isinstance(args_node, ast.Tuple) else [args_node]
        fmt_str = self._go_format(str(fmt_node.value))
        args = [deref(self.materialize(self.expr(a))) for a in items]
        if any(a.pre for a in args):
            raise Untranslatable("a %-format whose arguments make calls")
        return Val(f"fmt.Sprintf({', '.join([go_string(fmt_str), *(a.code for a in args)])})",
                   "string")

    @staticmethod
    def _go_format(text: str) -> str:
        return re.sub(r"%(\d*)s", r"%\1v", re.sub(r"%(\d*)r", r"%\1q", text))

    def expr_Dict(self, node: ast.Dict, expected: str | None = None) -> Val:
        if any(k is None for k in node.keys):
            raise Untranslatable("a dict built with ** (merge it key by key)")
        if expected is None:
            values = [self.materialize(self.expr(v)) for v in node.values]
            types_ = {v.type for v in values}
            if len(types_) == 1 and values and all(
                    isinstance(k, ast.Constant) and isinstance(k.value, str) for k in node.keys):
                expected = f"map[string]{types_.pop()}"
            elif not values:
                raise Untranslatable("an empty dict whose type is not known here")
            else:
                raise Untranslatable("a dict whose Go type is not known here (mixed values)")
        return self._composite(node, expected)

    def _composite(self, node: ast.Dict, expected: str) -> Val:
        pre: list[str] = []
        if expected == "*unstructured.Unstructured":
            inner = self._composite(node, "map[string]interface{}")
            return Val(f"&unstructured.Unstructured{{Object: {inner.code}}}", expected,
                       None, inner.pre)
        if expected.startswith("map["):
            match = re.fullmatch(r"map\[(\w+)\](.+)", expected)
            assert match is not None
            key_t, val_t = match.groups()
            items = []
            for k, v in zip(node.keys, node.values, strict=True):
                assert k is not None
                key = coerce(self.materialize(self.expr(k)), key_t)
                val = self._value_for(v, val_t)
                pre += key.pre + val.pre
                items.append(f"{key.code}: {val.code}")
            return Val(f"{expected}{{{', '.join(items)}}}", expected, None, pre)
        struct = expected.lstrip("*")
        fields = struct_of(struct)
        if fields is None:
            raise Untranslatable(f"building a {expected} from a dict")
        parts = []
        for k, v in zip(node.keys, node.values, strict=True):
            if not isinstance(k, ast.Constant) or not isinstance(k.value, str):
                raise Untranslatable("a computed key in an object literal")
            if k.value in ("apiVersion", "kind") and "metadata" in [
                    getattr(x, "value", None) for x in node.keys]:
                continue  # the typed client knows its kind
            found = fields.get(k.value)
            if found is None:
                raise Untranslatable(f"{struct} has no field {k.value!r} the port knows")
            go_field, go_type = found
            val = self._value_for(v, go_type)
            pre += val.pre
            parts.append(f"{go_field}: {val.code}")
        amp = "&" if expected.startswith("*") else ""
        return Val(f"{amp}{struct}{{{', '.join(parts)}}}", expected, None, pre)

    def _value_for(self, node: ast.AST, go_type: str) -> Val:
        if isinstance(node, ast.Name) and go_type != "interface{}":
            known = self.vars.get(node.id)
            if known is None or known.type != go_type:
                self.hints.setdefault(node.id, go_type)
        if go_type == "interface{}" and isinstance(node, ast.Dict):
            return self._composite(node, "map[string]interface{}")
        if go_type == "interface{}" and isinstance(node, ast.List):
            items = [self._value_for(e, "interface{}") for e in node.elts]
            return Val(f"[]interface{{}}{{{', '.join(i.code for i in items)}}}", "[]interface{}",
                       None, [line for i in items for line in i.pre])
        if isinstance(node, ast.Dict):
            return self._composite(node, go_type)
        if isinstance(node, ast.List):
            return self.expr_List(node, go_type)
        val = self.materialize(self.expr(node, go_type))
        literal = node.value if isinstance(node, ast.Constant) else None
        if go_type == "interface{}":
            val = deref(val)
            if val.type in NAMED_STRINGS:
                return Val(f"string({val.code})", "string", None, val.pre)
            if val.type.startswith(("map[", "[]")) and val.type not in (
                    "map[string]interface{}", "[]interface{}"):
                raise Untranslatable(f"a {val.type} inside an unstructured object")
        return coerce(val, go_type, literal)

    def expr_List(self, node: ast.List, expected: str | None = None) -> Val:
        if expected is None or not expected.startswith("[]"):
            values = [self.materialize(self.expr(e)) for e in node.elts]
            kinds = {v.type for v in values}
            if len(kinds) != 1:
                raise Untranslatable("a list whose Go type is not known here")
            expected = f"[]{kinds.pop()}"
        elem = expected[2:]
        items = []
        pre: list[str] = []
        for e in node.elts:
            if isinstance(e, ast.Dict):
                val = self._composite(e, elem)
                code = val.code
                prefix = f"{elem}{{"
                if code.startswith(prefix):
                    code = "{" + code[len(prefix):]  # Go elides the element type
            else:
                val = self._value_for(e, elem)
                code = val.code
            pre += val.pre
            items.append(code)
        return Val(f"{expected}{{{', '.join(items)}}}", expected, None, pre)

    def expr_IfExp(self, node: ast.IfExp) -> Val:
        """`a if cond else b`: Go has no conditional expression; a function literal."""
        cond = self.condition(node.test)
        a = deref(self.materialize(self.expr(node.body)))
        b = deref(self.materialize(self.expr(node.orelse)))
        if a.type == "@none" and b.type.startswith(("*", "[]", "map[")):
            a = Val("nil", b.type)
        if b.type == "@none" and a.type.startswith(("*", "[]", "map[")):
            b = Val("nil", a.type)
        if a.type != b.type:
            a, b = self._unify(a, b, node.body, node.orelse)
        if a.pre or b.pre or a.pseudo or a.type != b.type:
            raise Untranslatable("a conditional expression whose branches differ in Go")
        lines = [f"func() {a.type} {{", f"\tif {cond.code} {{", f"\t\treturn {a.code}", "\t}",
                 f"\treturn {b.code}", "}()"]
        return Val(("\n" + "\t" * self.indent).join(lines), a.type, None, cond.pre)

    def expr_Tuple(self, node: ast.Tuple) -> Val:
        raise Untranslatable("a tuple value")

    def expr_DictComp(self, node: ast.DictComp) -> Val:
        return self._comprehension(node, node.generators, key=node.key, value=node.value)

    def expr_ListComp(self, node: ast.ListComp, expected: str | None = None) -> Val:
        elem = expected[2:] if expected and expected.startswith("[]") else None
        return self._comprehension(node, node.generators, value=node.elt, elem=elem)

    def _comprehension(self, node: ast.AST, generators: list[ast.comprehension],
                       value: ast.AST, key: ast.AST | None = None,
                       elem: str | None = None) -> Val:
        if len(generators) != 1 or generators[0].is_async:
            raise Untranslatable("a comprehension with more than one for")
        gen = generators[0]
        saved_vars, saved_lines, saved_indent = dict(self.vars), self.lines, self.indent
        self.lines, self.indent = [], 1
        try:
            header, pre = self._for_header(gen.target, gen.iter)
            conds = [self.condition(c) for c in gen.ifs]
            val = deref(self.materialize(self.expr(value)))
            if elem is not None and val.type != elem:
                val = coerce(val, elem)
            k = deref(self.materialize(self.expr(key))) if key is not None else None
            if any(c.pre for c in conds) or val.pre or (k is not None and k.pre):
                raise Untranslatable("a comprehension that makes calls")
        finally:
            body_vars = self.vars
            self.vars, self.lines, self.indent = saved_vars, saved_lines, saved_indent
        del body_vars
        out_type = f"map[{k.type}]{val.type}" if k is not None else f"[]{val.type}"
        lines = [f"func() {out_type} {{", f"\tout := {out_type}{{}}", "\t" + header[0]]
        lines += ["\t\t" + h for h in header[1:]]
        indent = "\t\t"
        for c in conds:
            lines.append(f"{indent}if {c.code} {{")
            indent += "\t"
        if k is not None:
            lines.append(f"{indent}out[{k.code}] = {val.code}")
        else:
            lines.append(f"{indent}out = append(out, {val.code})")
        for _ in conds:
            indent = indent[:-1]
            lines.append(f"{indent}}}")
        lines += ["\t}", "\treturn out", "}()"]
        pad = "\t" * self.indent
        code = ("\n" + pad).join(lines)
        return Val(code, out_type, None, pre)

    def fold(self, how: str, gen: ast.GeneratorExp) -> Val:
        """`sum(x for ...)`, `any(cond for ...)`, `all(cond for ...)` as a function literal."""
        if len(gen.generators) != 1 or gen.generators[0].is_async:
            raise Untranslatable(f"{how}() over more than one for")
        comp = gen.generators[0]
        saved_vars = dict(self.vars)
        try:
            header, pre = self._for_header(comp.target, comp.iter)
            conds = [self.condition(c) for c in comp.ifs]
            if how == "sum":
                val = deref(self.materialize(self.expr(gen.elt)))
                if not is_numeric(val.type):
                    raise Untranslatable("sum() of non-numbers")
                out_type = "int64" if val.type != "float64" else "float64"
                step = f"out += {coerce(val, out_type).code}"
                start, result = f"var out {out_type}", "out"
            else:
                cond = self.condition(gen.elt)
                conds.append(cond if how == "any" else Val(f"!({cond.code})", "bool"))
                out_type = "bool"
                step = f"return {'true' if how == 'any' else 'false'}"
                start, result = "", "true" if how == "all" else "false"
            if any(c.pre for c in conds):
                raise Untranslatable(f"{how}() whose condition makes a call")
        finally:
            self.vars = saved_vars
        lines = [f"func() {out_type} {{"] + ([f"\t{start}"] if start else [])
        lines += ["\t" + header[0]] + ["\t\t" + h for h in header[1:]]
        indent = "\t\t"
        for c in conds:
            lines.append(f"{indent}if {c.code} {{")
            indent += "\t"
        lines.append(f"{indent}{step}")
        for _ in conds:
            indent = indent[:-1]
            lines.append(f"{indent}}}")
        lines += ["\t}", f"\treturn {result}", "}()"]
        pad = "\t" * self.indent
        return Val(("\n" + pad).join(lines), out_type, None, pre)

    # -- lookups ----------------------------------------------------------------------------

    def _flatten(self, node: ast.AST) -> tuple[ast.AST, list[Any], ast.AST | None]:
        """`(x.get("a") or {})["b"].get("c", 1)` -> (x, ["a", "b", "c"], 1)."""
        keys: list[Any] = []
        default = None
        first = True
        while True:
            if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
                keys.insert(0, node.slice.value)
                node = node.value
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr == "get" and 1 <= len(node.args) <= 2 \
                    and isinstance(node.args[0], ast.Constant) \
                    and isinstance(node.args[0].value, str) and not node.keywords:
                if len(node.args) == 2 and not _is_falsy_literal(node.args[1]):
                    if not first:
                        raise Untranslatable("a default in the middle of a lookup")
                    default = node.args[1]
                keys.insert(0, node.args[0].value)
                node = node.func.value
            elif isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or) \
                    and len(node.values) == 2 and _is_falsy_literal(node.values[1]):
                node = node.values[0]
            else:
                return node, keys, default
            first = False

    def expr_Subscript(self, node: ast.Subscript, expected: str | None = None) -> Val:
        if not isinstance(node.slice, ast.Constant):
            container = self.materialize(self.expr(node.value))
            index = self.materialize(self.expr(node.slice))
            match = re.fullmatch(r"map\[(\w+)\](.+)", container.type)
            if match is not None:
                key = coerce(index, match.group(1))
                return Val(f"{container.code}[{key.code}]", match.group(2), None,
                           container.pre + key.pre)
            if container.type.startswith("[]") and is_numeric(index.type):
                return Val(f"{container.code}[{index.code}]", container.type[2:], None,
                           container.pre + index.pre)
            raise Untranslatable(f"indexing a {container.type}")
        return self._lookup_expr(node)

    def _lookup_expr(self, node: ast.AST) -> Val:
        root, keys, default = self._flatten(node)
        if not keys:
            raise Untranslatable("this subscript")
        base = self.materialize(self.expr(root))
        if base.type == "@upath":
            base, keys = base.ref[0], [*base.ref[1], *keys]
        val = self._access(base, keys)
        if default is not None:
            dval = self.materialize(self.expr(default))
            if (val.type.startswith("*") and is_numeric(val.type[1:])) or val.type in (
                    "*bool", "*string"):
                d = coerce(dval, val.type[1:], getattr(default, "value", None))
                return Val(f"ptr.Deref({val.code}, {d.code})", val.type[1:], None, val.pre)
            raise Untranslatable("a lookup default Go has no place for")
        return val

    def _access(self, base: Val, keys: list[Any], for_write: bool = False) -> Val:
        code, t = base.code, base.type
        pre = list(base.pre)
        i = 0
        while i < len(keys):
            key = keys[i]
            if t == "*unstructured.Unstructured":
                return self._unstructured(base, keys[i:], code, pre, for_write)
            if t.startswith("map["):
                match = re.fullmatch(r"map\[(\w+)\](.+)", t)
                assert match is not None
                if not isinstance(key, str):
                    raise Untranslatable("a non-string map key")
                code, t = f"{code}[{go_string(key)}]", match.group(2)
            elif t.startswith("[]") and isinstance(key, int):
                code, t = f"{code}[{key}]", t[2:]
            else:
                found = field_of(t, str(key))
                if found is None:
                    raise Untranslatable(f"the port does not know {t.lstrip('*')}'s "
                                         f"field {key!r}")
                go_field, go_type = found
                if go_field not in EMBEDDED or i == len(keys) - 1:  # promoted fields
                    code = f"{code}.{go_field}"
                t = go_type
            i += 1
        if struct_of(t) is not None and not t.startswith("*") and not for_write:
            return Val(code, t, base.ref, pre)  # a struct: aliased by assignment
        return Val(code, t, None, pre)

    def _unstructured(self, base: Val, keys: list[Any], code: str, pre: list[str],
                      for_write: bool) -> Val:
        resource = base.ref if isinstance(base.ref, GoResource) else None
        if for_write:
            raise Untranslatable("writing into an unstructured object (use x[...] = value)")
        if keys[:1] == ["metadata"] and len(keys) >= 2 and keys[1] in _UNSTRUCTURED_META:
            getter, go_type = _UNSTRUCTURED_META[keys[1]]
            val = Val(f"{code}.{getter}", go_type, None, pre)
            return self._access(val, keys[2:]) if len(keys) > 2 else val
        if not all(isinstance(k, str) for k in keys):
            raise Untranslatable("a list index inside an unstructured object")
        samples = self.ctx.samples(resource)
        values = [v for ok, v in (_lookup(o, keys) for o in samples) if ok]
        reader = _python_type_reader(values)
        if reader is None:
            if len(keys) < 3 and not values:
                # a prefix (`spec = foo["spec"]`): an alias until a leaf is read
                return Val("", "@upath", (base, list(keys)))
            what = resource.kind if resource else "object"
            raise Untranslatable(f"no captured {what} has {'.'.join(keys)} to tell its Go "
                                 "type (run the prototype before porting)")
        if reader in ("nestedMap",) and len(keys) < 3:
            return Val("", "@upath", (base, list(keys)))
        self.ctx.unstructured_readers.add(reader)
        quoted = ", ".join(go_string(k) for k in keys)
        return Val(f"{reader}({code}, {quoted})", UNSTRUCTURED_READERS[reader], None, pre)

    def expr_Attribute(self, node: ast.Attribute) -> Val:
        base = self.expr(node.value)
        if base.type == "@self":
            return self._self_attribute(base.ref, node.attr)
        if base.type == "@module":
            value = getattr(base.ref, node.attr, _MISSING)
            if value is _MISSING:
                raise Untranslatable(f"{ast.unparse(node)} is not defined")
            return self.runtime_value(node.attr, value)
        if base.type == "@class":
            value = getattr(base.ref, node.attr, _MISSING)
            if isinstance(value, (str, int, float, bool)):
                return self.runtime_value(f"{base.ref.__name__}_{node.attr}", value)
        raise Untranslatable(f"the attribute .{node.attr} of a {base.type}")

    def _self_attribute(self, owner: Any, attr: str) -> Val:
        static = inspect.getattr_static(owner, attr, _MISSING)
        if static is _MISSING:
            raise Untranslatable(f"self.{attr} is not set on the prototype")
        if isinstance(static, property):
            raise Untranslatable(f"self.{attr} is a property")
        if isinstance(static, (staticmethod, classmethod)):
            return Val(attr, "@func", getattr(owner, attr))
        if isinstance(static, types.FunctionType):
            return Val(attr, "@method", getattr(owner, attr))
        return self.runtime_value(attr, getattr(owner, attr))

    # -- calls --------------------------------------------------------------------------------

    def expr_Call(self, node: ast.Call, expected: str | None = None,
                  statement: bool = False) -> Val:
        if any(isinstance(a, ast.Starred) for a in node.args) or any(
                k.arg is None for k in node.keywords):
            raise Untranslatable("*args or **kwargs in a call")
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "get" and self._is_lookup(node):
            return self._lookup_expr(node)
        if isinstance(func, ast.Attribute):
            base = self.expr(func.value)
            return self._method_call(base, func.attr, node, expected, statement)
        if isinstance(func, ast.Name) and func.id in self.vars:
            raise Untranslatable(f"calling the local {func.id}")
        if isinstance(func, ast.Name) and func.id in _BUILTINS:
            return _BUILTINS[func.id](self, node)
        target = self.expr(func)
        if target.type in ("@func", "@method"):
            return self._call_function(target, node, expected)
        if target.type == "@class":
            raise Untranslatable(f"making a {target.ref.__name__} outside raise/return")
        raise Untranslatable(f"calling a {target.type}")

    def _is_lookup(self, node: ast.Call) -> bool:
        if not (node.args and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)):
            return False
        try:
            root, _, _ = self._flatten(node)
            base = self.expr(root)
        except Untranslatable:
            return False
        return not base.pseudo or base.type == "@upath"

    def _kwargs(self, node: ast.Call, allowed: set[str]) -> dict[str, ast.AST]:
        kwargs: dict[str, ast.AST] = {str(k.arg): k.value for k in node.keywords}
        extra = set(kwargs) - allowed
        if extra:
            raise Untranslatable(f"the keyword argument(s) {', '.join(sorted(extra))}")
        return kwargs

    def _options(self, kind: str, node: ast.Call) -> tuple[str, list[str]]:
        kwargs = self._kwargs(node, {"field_manager", "dry_run"})
        parts, pre = [], []
        if "field_manager" in kwargs:
            fm = coerce(self.materialize(self.expr(kwargs["field_manager"])), "string")
            pre += fm.pre
            parts.append(f"FieldManager: {fm.code}")
        dry = kwargs.get("dry_run")
        if dry is not None and not (isinstance(dry, ast.Constant) and not dry.value):
            parts.append("DryRun: []string{metav1.DryRunAll}")
        return f"metav1.{kind}Options{{{', '.join(parts)}}}", pre

    def _method_call(self, base: Val, attr: str, node: ast.Call, expected: str | None,
                     statement: bool) -> Val:
        t = base.type
        args = node.args
        if t == "@self":
            return self._call_function(self._self_attribute(base.ref, attr), node, expected)
        if t == "@module":
            value = getattr(base.ref, attr, _MISSING)
            if base.ref is copy and attr in ("deepcopy", "copy") and len(args) == 1:
                return self._deepcopy(args[0])
            if value is _MISSING:
                raise Untranslatable(f"{base.code}.{attr} is not defined")
            fn = self.runtime_value(attr, value)
            if fn.type in ("@func", "@method"):
                return self._call_function(fn, node, expected)
            raise Untranslatable(f"calling {base.code}.{attr}")
        if t == "@log":
            return self._log(attr, node)
        if t == "@recorder":
            return self._event(attr, node)
        if t == "@clientset":
            for (group, version) in self._group_versions():
                if attr == _group_accessor_name(group, version):
                    return Val("", "@group", (group, version))
            raise Untranslatable(f"the clientset has no group {attr} the port knows")
        if t == "@group":
            group, version = base.ref
            resource = self._resource_by_accessor(group, version, attr)
            ns = None
            if args:
                nsv = coerce(self.materialize(self.expr(args[0])), "string")
                if nsv.pre:
                    raise Untranslatable("a namespace that makes a call")
                ns = nsv.code
            elif resource.info.namespaced:
                ns = '""'
            return Val(resource.client_expr(ns), "@client", (resource, ns))
        if t == "@client":
            return self._client_call(base, attr, node)
        if t == "@typedinformer":
            resource = base.ref
            if attr == "lister":
                return Val(resource.lister_expr(None), "@lister", resource)
            if attr == "informer":
                return Val(f"c.{resource.field}Informer", "@informer", resource)
        if t == "@informer" and attr in ("get_indexer", "get_store"):
            return Val(f"{base.code}.GetIndexer()", "@indexer", base.ref)
        if t == "@indexer":
            return self._indexer_call(base, attr, node)
        if t in ("@lister", "@nslister"):
            return self._lister_call(base, attr, node)
        if t.startswith("@"):
            raise Untranslatable(f".{attr}() on a {t[1:]}")
        return self._value_method(base, attr, node, expected)

    def _group_versions(self) -> list[tuple[str, str]]:
        from kubenb.client.typed.builtin import BUILTIN_RESOURCES
        seen = {(i.group, i.version): None for i in BUILTIN_RESOURCES}
        for resource in list(self.ctx.spec.resources.values()) + [
                w.resource for w in self.ctx.spec.watched]:
            seen[(resource.info.group, resource.info.version)] = None
        return list(seen)

    def _resource_by_accessor(self, group: str, version: str, attr: str) -> GoResource:
        from kubenb.client.typed.builtin import BUILTIN_RESOURCES
        candidates = [w.resource.info for w in self.ctx.spec.watched] + [
            r.info for r in self.ctx.spec.resources.values()] + list(BUILTIN_RESOURCES)
        for info in candidates:
            if (info.group, info.version) == (group, version) \
                    and GoResource(info).python_accessor == attr:
                found = self.ctx.resource(info.group, info.resource)
                if found is None:
                    found = GoResource(info)
                    if not found.typed:
                        self.ctx.dynamic[found.key] = found
                return found
        raise Untranslatable(f"{group or 'core'}/{version} has no resource {attr} the port knows")

    def _client_call(self, base: Val, attr: str, node: ast.Call) -> Val:
        resource, _ = base.ref
        args = node.args
        self.uses_ctx = True
        go = resource.go_type
        if attr == "namespace" and len(args) == 1:
            nsv = coerce(self.materialize(self.expr(args[0])), "string")
            return Val(resource.client_expr(nsv.code), "@client", (resource, nsv.code))
        if attr == "get" and len(args) == 1:
            self._kwargs(node, set())
            name = coerce(self.materialize(self.expr(args[0])), "string")
            return Val(f"{base.code}.Get(ctx, {name.code}, metav1.GetOptions{{}})", go,
                       resource, name.pre, errcall=True)
        if attr in ("create", "update", "update_status") and len(args) == 1:
            obj = self.materialize(self._value_for(args[0], go) if isinstance(
                args[0], ast.Dict) else self.expr(args[0], go))
            if isinstance(args[0], ast.Name) and obj.type != go:
                self.hints[args[0].id] = go
            obj = coerce(obj, go)
            kind = "Create" if attr == "create" else "Update"
            opts, pre = self._options(kind, node)
            method = {"create": "Create", "update": "Update", "update_status": "UpdateStatus"}
            return Val(f"{base.code}.{method[attr]}(ctx, {obj.code}, {opts})", go, resource,
                       obj.pre + pre, errcall=True)
        if attr == "delete" and len(args) == 1:
            self._kwargs(node, set())
            name = coerce(self.materialize(self.expr(args[0])), "string")
            return Val(f"{base.code}.Delete(ctx, {name.code}, metav1.DeleteOptions{{}})", "",
                       resource, name.pre, errcall=True)
        if attr == "patch" and len(args) == 2:
            kwargs = self._kwargs(node, {"patch_type", "field_manager"})
            patch_type = kwargs.get("patch_type")
            kind = str(patch_type.value) if isinstance(patch_type, ast.Constant) else "merge"
            pt = {"merge": "types.MergePatchType", "json": "types.JSONPatchType",
                  "strategic": "types.StrategicMergePatchType"}.get(str(kind))
            if pt is None:
                raise Untranslatable(f"patch_type={kind!r}")
            name = coerce(self.materialize(self.expr(args[0])), "string")
            if isinstance(args[1], ast.Name):
                self.hints.setdefault(args[1].id, "map[string]interface{}")
            body = self._value_for(args[1], "interface{}") if isinstance(
                args[1], (ast.Dict, ast.List)) else self.materialize(self.expr(args[1]))
            data = self._fresh("patchData")
            self.declared[data] = "[]byte"
            self._declare_err()
            opts = "metav1.PatchOptions{}"
            if "field_manager" in kwargs:
                fm = coerce(self.materialize(self.expr(kwargs["field_manager"])), "string")
                opts = f"metav1.PatchOptions{{FieldManager: {fm.code}}}"
            pre = name.pre + body.pre + [f"{data}, err = json.Marshal({body.code})",
                                         *self._err_check()]
            return Val(f"{base.code}.Patch(ctx, {name.code}, {pt}, {data}, {opts})", go,
                       resource, pre, errcall=True)
        if attr == "list" and not args:
            kwargs = self._kwargs(node, {"label_selector", "field_selector"})
            parts, pre = [], []
            for py, go_field in (("label_selector", "LabelSelector"),
                                 ("field_selector", "FieldSelector")):
                if py in kwargs:
                    sel = coerce(self.materialize(self.expr(kwargs[py])), "string")
                    pre += sel.pre
                    parts.append(f"{go_field}: {sel.code}")
            list_type = (f"*{resource.api_package}.{resource.kind}List" if resource.typed
                         else "*unstructured.UnstructuredList")
            return Val(f"{base.code}.List(ctx, metav1.ListOptions{{{', '.join(parts)}}})",
                       list_type, resource, pre, errcall=True)
        raise Untranslatable(f"the client method {attr}() with these arguments")

    def _lister_call(self, base: Val, attr: str, node: ast.Call) -> Val:
        resource: GoResource = base.ref
        args = node.args
        if base.type == "@lister" and len(args) == 1 and (
                attr == resource.python_accessor or attr in ("by_namespace", "namespace")):
            ns = coerce(self.materialize(self.expr(args[0])), "string")
            if ns.pre:
                raise Untranslatable("a namespace that makes a call")
            return Val(resource.lister_expr(ns.code), "@nslister", (resource, ns.code))
        if isinstance(base.ref, tuple):
            resource, ns_code = base.ref
        else:
            ns_code = None
        if resource.key not in [w.resource.key for w in self.ctx.spec.watched]:
            raise Untranslatable(f"a lister of {resource.key}, which no informer watches")
        if attr == "get" and len(args) == 1 and base.type == "@lister" \
                and resource.info.namespaced:
            key = coerce(self.materialize(self.expr(args[0])), "string")
            self.ctx.key_getters[resource.key] = resource
            return Val(f"c.get{resource.go_name()}ByKey({key.code})", resource.go_type,
                       resource, key.pre, errcall=True)
        if attr == "get" and len(args) == 1:
            name = coerce(self.materialize(self.expr(args[0])), "string")
            if resource.typed:
                return Val(f"{base.code}.Get({name.code})", resource.go_type, resource,
                           name.pre, errcall=True)
            self.ctx.dynamic_getters[resource.key] = resource
            ns_arg = ns_code if ns_code is not None else '""'
            return Val(f"c.get{resource.go_name()}({ns_arg}, {name.code})", resource.go_type,
                       resource, name.pre, errcall=True)
        if attr == "list" and not args and resource.typed:
            return Val(f"{base.code}.List(labels.Everything())", f"[]{resource.go_type}",
                       resource, [], errcall=True)
        raise Untranslatable(f"the lister method {attr}() with these arguments")

    def _indexer_call(self, base: Val, attr: str, node: ast.Call) -> Val:
        resource: GoResource = base.ref
        args = [self.materialize(self.expr(a)) for a in node.args]
        pre = [line for a in args for line in a.pre]
        if attr == "by_index" and len(args) == 2:
            index, value = (coerce(a, "string") for a in args)
            return Val(f"{base.code}.ByIndex({index.code}, {value.code})", "[]interface{}",
                       resource, pre, errcall=True)
        if attr == "index_keys" and len(args) == 2:
            index, value = (coerce(a, "string") for a in args)
            return Val(f"{base.code}.IndexKeys({index.code}, {value.code})", "[]string",
                       resource, pre, errcall=True)
        if attr == "list" and not args:
            return Val(f"{base.code}.List()", "[]interface{}", resource)
        if attr == "list_keys" and not args:
            return Val(f"{base.code}.ListKeys()", "[]string", resource)
        raise Untranslatable(f"the indexer method {attr}()")

    def _value_method(self, base: Val, attr: str, node: ast.Call, expected: str | None) -> Val:
        if attr == "setdefault" and len(node.args) == 2 and _is_falsy_literal(node.args[1]) \
                and isinstance(node.args[0], ast.Constant):
            found = field_of(base.type, str(node.args[0].value))
            if found is not None and struct_of(found[1]) is not None \
                    and not found[1].startswith("*"):
                return Val("", "@done")  # a struct field is always there in Go
        base = deref(self.materialize(base))
        args = [self.materialize(self.expr(a)) for a in node.args]
        pre = base.pre + [line for a in args for line in a.pre]
        if base.type == "string" and attr in _STRING_METHODS:
            template, result = _STRING_METHODS[attr]
            codes = [base.code] + [coerce(deref(a), "string").code for a in args]
            if template.count("{") - 1 != len(args):
                raise Untranslatable(f"str.{attr}() with {len(args)} argument(s)")
            return Val(template.format(*codes), result, None, pre)
        if base.type == "string" and attr == "join" and len(args) == 1 \
                and args[0].type == "[]string":
            return Val(f"strings.Join({args[0].code}, {base.code})", "string", None, pre)
        if base.type == "error" and attr == "__str__":
            return Val(f"{base.code}.Error()", "string", None, pre)
        if base.type.startswith("map[") and attr == "get" and (
                len(args) == 1 or (len(args) == 2 and _is_falsy_literal(node.args[1]))):
            match = re.fullmatch(r"map\[(\w+)\](.+)", base.type)
            assert match is not None
            key = coerce(args[0], match.group(1))
            return Val(f"{base.code}[{key.code}]", match.group(2), None, pre)
        if base.type.startswith("map[") and attr == "copy" and not args:
            return Val(f"maps.Clone({base.code})", base.type, None, pre)
        raise Untranslatable(f".{attr}() on a {base.type}")

    def _deepcopy(self, node: ast.AST) -> Val:
        val = self.materialize(self.expr(node))
        if val.type.startswith("*") and (struct_of(val.type) is not None
                                         or val.type == "*unstructured.Unstructured"):
            return Val(f"{val.code}.DeepCopy()", val.type, val.ref, val.pre)
        if val.type.startswith("map[") and val.type.count("map[") == 1 \
                and "interface" not in val.type:
            return Val(f"maps.Clone({val.code})", val.type, val.ref, val.pre)
        raise Untranslatable(f"copying a {val.type}")

    def _log(self, level: str, node: ast.Call) -> Val:
        func = _LOG_LEVELS.get(level)
        if func is None or node.keywords or not node.args:
            raise Untranslatable(f"log.{level}() with these arguments")
        first = node.args[0]
        if isinstance(first, ast.JoinedStr):
            fmt_str, codes = self._format_parts(first)
            rest: list[Val] = []
        elif isinstance(first, ast.Constant) and isinstance(first.value, str):
            fmt_str, codes = self._go_format(first.value), []
            rest = [deref(self.materialize(self.expr(a))) for a in node.args[1:]]
        else:
            raise Untranslatable("logging a computed message")
        pre = [line for a in rest for line in a.pre]
        args = [go_string(fmt_str), *codes, *(a.code for a in rest)]
        if not codes and not rest:
            func = func[:-1]  # Infof -> Info
            args = [go_string(fmt_str.replace("%%", "%"))]
        return Val("", "@done", None, [*pre, f"{func}({', '.join(args)})"])

    def _event(self, attr: str, node: ast.Call) -> Val:
        if attr not in ("event", "eventf") or node.keywords:
            raise Untranslatable(f"recorder.{attr}()")
        if len(node.args) < 4:
            raise Untranslatable(f"recorder.{attr}() with {len(node.args)} arguments")
        obj = self.materialize(self.expr(node.args[0]))
        if not (obj.type.startswith("*") and (struct_of(obj.type) is not None
                                              or obj.type == "*unstructured.Unstructured")):
            raise Untranslatable(f"an Event about a {obj.type} (not an API object)")
        rest = [deref(self.materialize(self.expr(a))) for a in node.args[1:]]
        rest = [coerce(r, "string") if r.type in NAMED_STRINGS else r for r in rest]
        pre = obj.pre + [line for r in rest for line in r.pre]
        self.ctx.uses_recorder = True
        name = "Event" if attr == "event" else "Eventf"
        codes = [r.code for r in rest]
        if attr == "eventf" and isinstance(node.args[3], ast.Constant):
            codes[2] = go_string(self._go_format(str(node.args[3].value)))
        return Val("", "@done", None, [*pre, f"c.recorder.{name}({obj.code}, "
                                             f"{', '.join(codes)})"])

    def _call_function(self, target: Val, node: ast.Call, expected: str | None) -> Val:
        func = target.ref
        raw = getattr(func, "__func__", func)
        module = getattr(raw, "__module__", "") or ""
        name = getattr(raw, "__name__", "")
        known = _KNOWN_FUNCTIONS.get(name) if module.startswith("kubenb.") else None
        if known is not None:
            return known(self, node)
        if module.startswith("kubenb.") and not module.startswith(_PROTOTYPE_MODULES):
            raise Untranslatable(f"kubenb's {name}() has no Go translation here")
        if node.keywords:
            raise Untranslatable(f"{name}() called with keyword arguments")
        args = [self.materialize(self.expr(a)) for a in node.args]
        pre = [line for a in args for line in a.pre]
        method = target.type == "@method"
        go_fn = translate_helper(self.ctx, func, args, method, expected)
        ctx_arg = ["ctx"] if go_fn.needs_ctx else []
        call_args = ", ".join(ctx_arg + [a.code for a in args if not a.pseudo])
        receiver = "c." if go_fn.method else ""
        code = f"{receiver}{go_fn.name}({call_args})"
        if go_fn.needs_ctx:
            self.uses_ctx = True
        if go_fn.returns == "error":
            return Val(code, "", None, pre, errcall=True)
        if go_fn.returns.endswith(",error"):
            return Val(code, go_fn.returns[:-6], None, pre, errcall=True)
        return Val(code, go_fn.returns, None, pre)


_MISSING = object()

#: kubenb modules whose functions are controllers' own code (translated like a user's);
#: every other kubenb function is library, with a Go twin or none.
_PROTOTYPE_MODULES = ("kubenb.controller.samples", "kubenb.controllermanager")


def _group_accessor_name(group: str, version: str) -> str:
    from kubenb.client.typed.names import group_accessor
    return group_accessor(group, version)


def _builtin_len(t: _Translator, node: ast.Call) -> Val:
    val = t.materialize(t.expr(node.args[0]))
    if not (val.type.startswith(("[]", "map[")) or val.type == "string"):
        raise Untranslatable(f"len() of a {val.type}")
    return Val(f"int64(len({val.code}))", "int64", None, val.pre)


def _builtin_str(t: _Translator, node: ast.Call) -> Val:
    val = deref(t.materialize(t.expr(node.args[0])))
    if val.type == "string":
        return val
    if val.type in NAMED_STRINGS:
        return coerce(val, "string")
    if val.type == "error":
        return Val(f"{val.code}.Error()", "string", None, val.pre)
    return Val(f"fmt.Sprint({val.code})", "string", None, val.pre)


def _builtin_int(t: _Translator, node: ast.Call) -> Val:
    val = deref(t.materialize(t.expr(node.args[0])))
    if not is_numeric(val.type):
        raise Untranslatable(f"int() of a {val.type}")
    return Val(f"int64({val.code})", "int64", None, val.pre)


def _builtin_bool(t: _Translator, node: ast.Call) -> Val:
    return t.condition(node.args[0])


def _builtin_dict(t: _Translator, node: ast.Call) -> Val:
    if len(node.args) != 1 or node.keywords:
        raise Untranslatable("dict() other than a copy")
    val = t.materialize(t.expr(node.args[0]))
    if not val.type.startswith("map["):
        raise Untranslatable(f"dict() of a {val.type}")
    return Val(f"maps.Clone({val.code})", val.type, None, val.pre)


def _builtin_max_min(t: _Translator, node: ast.Call) -> Val:
    assert isinstance(node.func, ast.Name)
    if len(node.args) < 2:
        raise Untranslatable(f"{node.func.id}() of one iterable")
    args = [deref(t.materialize(t.expr(a))) for a in node.args]
    wide = "float64" if any(a.type == "float64" for a in args) else "int64"
    if not all(is_numeric(a.type) for a in args):
        raise Untranslatable(f"{node.func.id}() of non-numbers")
    if len({a.type for a in args}) > 1:
        args = [a if isinstance(n, ast.Constant) else coerce(a, wide)
                for a, n in zip(args, node.args, strict=True)]
    kind = next((a.type for a, n in zip(args, node.args, strict=True)
                 if not isinstance(n, ast.Constant)), wide)
    return Val(f"{node.func.id}({', '.join(a.code for a in args)})", kind, None,
               [line for a in args for line in a.pre])


def _builtin_fold(t: _Translator, node: ast.Call) -> Val:
    """sum/any/all over a generator: a function literal with a loop."""
    assert isinstance(node.func, ast.Name)
    if len(node.args) != 1 or not isinstance(node.args[0], ast.GeneratorExp):
        raise Untranslatable(f"{node.func.id}() of something other than a generator")
    return t.fold(node.func.id, node.args[0])


def _builtin_getattr(t: _Translator, node: ast.Call) -> Val:
    """`getattr(obj, "obj", obj)`: a tombstone's object, or the object; Go unwrapped it."""
    if len(node.args) == 3 and isinstance(node.args[0], ast.Name) \
            and isinstance(node.args[2], ast.Name) and node.args[0].id == node.args[2].id \
            and isinstance(node.args[1], ast.Constant) and node.args[1].value == "obj":
        return t.expr(node.args[0])
    raise Untranslatable("getattr()")


_BUILTINS: dict[str, Callable[[_Translator, ast.Call], Val]] = {
    "getattr": _builtin_getattr,
    "len": _builtin_len, "str": _builtin_str, "int": _builtin_int, "bool": _builtin_bool,
    "dict": _builtin_dict, "max": _builtin_max_min, "min": _builtin_max_min,
    "sum": _builtin_fold, "any": _builtin_fold, "all": _builtin_fold,
}


def _object_arg(t: _Translator, node: ast.AST) -> Val:
    val = t.materialize(t.expr(node))
    if not (val.type.startswith("*") and (struct_of(val.type) is not None
                                          or val.type == "*unstructured.Unstructured")):
        raise Untranslatable(f"an owner reference of a {val.type}")
    return val


def _controller_of(t: _Translator, node: ast.Call) -> Val:
    obj = _object_arg(t, node.args[0])
    return Val(f"metav1.GetControllerOf({obj.code})", "*metav1.OwnerReference", None, obj.pre)


def _is_controlled_by(t: _Translator, node: ast.Call) -> Val:
    a, b = (_object_arg(t, n) for n in node.args[:2])
    return Val(f"metav1.IsControlledBy({a.code}, {b.code})", "bool", None, a.pre + b.pre)


def _new_controller_ref(t: _Translator, node: ast.Call) -> Val:
    if len(node.args) != 3:
        raise Untranslatable("new_controller_ref() with other arguments")
    obj = _object_arg(t, node.args[0])
    api_version, kind = (coerce(t.materialize(t.expr(a)), "string") for a in node.args[1:])
    return Val(f"*metav1.NewControllerRef({obj.code}, schema.FromAPIVersionAndKind("
               f"{api_version.code}, {kind.code}))", "metav1.OwnerReference", None, obj.pre)


def _get_reference(t: _Translator, node: ast.Call) -> Val:
    return _object_arg(t, node.args[0])  # Go's recorder takes the object itself


def _enqueue_key(t: _Translator, node: ast.Call) -> Val:
    obj = _object_arg(t, node.args[0])
    return Val(f"cache.MetaNamespaceKeyFunc({obj.code})", "string", None, obj.pre,
               errcall=True)


def _split_key(t: _Translator, node: ast.Call) -> Val:
    raise Untranslatable("split_meta_namespace_key() other than `ns, name = ...`")


_KNOWN_FUNCTIONS: dict[str, Callable[[_Translator, ast.Call], Val]] = {
    "controller_of": _controller_of, "is_controlled_by": _is_controlled_by,
    "new_controller_ref": _new_controller_ref, "get_reference": _get_reference,
    "split_meta_namespace_key": _split_key, "enqueue_key": _enqueue_key,
}


def translate_helper(ctx: PortContext, func: Any, args: list[Val], method: bool,
                     expected: str | None = None) -> GoFunction:
    """Translate a function the reconcile calls (once per argument types; `expected`
    is the Go type the caller needs back, when the call's place says so)."""
    raw = getattr(func, "__func__", func)
    key = (raw, tuple(a.type for a in args), expected)
    done = ctx.helpers.get(key)
    if done is not None:
        return done
    if key in ctx.in_progress:
        raise Untranslatable(f"{raw.__name__}() calls itself")
    if any(a.pseudo for a in args):
        raise Untranslatable(f"passing a prototype object to {raw.__name__}()")
    base = go_identifier(raw.__name__.lstrip("_"))
    taken = {f.name for f in ctx.helpers.values()} | {"syncHandler"}
    name, n = base, 1
    while name in taken:
        n += 1
        name = f"{base}{n}"
    ctx.in_progress.add(key)
    try:
        try:
            translator = _Translator(ctx, func, name, args, method, "?", expected)
        except (OSError, TypeError) as err:
            raise Untranslatable(f"the source of {raw.__name__}() is not available") from err
        result = translator.run()
    finally:
        ctx.in_progress.discard(key)
    result.method = method or any(re.search(r"\bc\.", line.split("//", 1)[0])
                                  for line in result.lines)
    ctx.helpers[key] = result
    return result


def translate_function(ctx: PortContext, func: Any) -> GoFunction:
    """The reconcile as `func (c *Controller) syncHandler(ctx, key string) error`."""
    try:
        translator = _Translator(ctx, func, "syncHandler", [Val("key", "string")], True,
                                 "error")
    except (OSError, TypeError) as err:
        raise Untranslatable("the reconcile's source is not available") from err
    return translator.run()
