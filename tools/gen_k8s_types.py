"""Write kubenb/server/k8s_types.py: the wire shape of Kubernetes' built-in API types.

Reads the Go struct tags (json name, omitempty, protobuf field number) and the markers
(+listType, +listMapKey, +mapType, +structType, patchStrategy, patchMergeKey) of the
types.go files of k8s.io/api, k8s.io/apimachinery (meta/v1) and k8s.io/kube-aggregator
at one release, and writes one table line per struct. No documentation text is taken.

    python tools/gen_k8s_types.py API_DIR APIMACHINERY_DIR KUBE_AGGREGATOR_DIR > out.py

where each directory is a checkout of that repository at tag kubernetes-1.32.0.
"""

from __future__ import annotations

import re
import sys
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

API_PACKAGES = [
    "core/v1", "apps/v1", "batch/v1", "autoscaling/v1", "autoscaling/v2", "networking/v1",
    "rbac/v1", "policy/v1", "storage/v1", "scheduling/v1", "coordination/v1", "discovery/v1",
    "events/v1", "node/v1", "certificates/v1", "authentication/v1", "authorization/v1",
    "admissionregistration/v1", "flowcontrol/v1"]
SPECIAL = {
    "meta/v1.Time": "t", "meta/v1.MicroTime": "m", "meta/v1.Duration": "d",
    "resource.Quantity": "q", "intstr.IntOrString": "io", "runtime.RawExtension": "raw",
    "meta/v1.FieldsV1": "fv1", "types.UID": "s",
}
BUILTIN = {"string": "s", "bool": "b", "int32": "i", "int64": "i", "int": "i", "uint64": "i",
           "uint32": "i", "int16": "i", "float64": "f", "float32": "f"}


@dataclass
class Field:
    go_type: str
    json: str
    omitempty: bool
    number: int
    inline: bool
    markers: dict[str, str] = field(default_factory=dict)


@dataclass
class Package:
    pid: str
    imports: dict[str, str] = field(default_factory=dict)  # alias -> package id
    structs: dict[str, list[Field]] = field(default_factory=dict)
    atomic: set[str] = field(default_factory=set)
    kinds: list[str] = field(default_factory=list)
    named: dict[str, str] = field(default_factory=dict)


def package_id(import_path: str) -> str:
    if import_path == "k8s.io/apimachinery/pkg/apis/meta/v1":
        return "meta/v1"
    for prefix in ("k8s.io/api/", "k8s.io/kube-aggregator/pkg/apis/"):
        if import_path.startswith(prefix):
            return import_path[len(prefix):]
    return import_path.rsplit("/", 1)[-1]  # resource, intstr, runtime, types


TAG_RE = re.compile(r'(\w+):"([^"]*)"')
FIELD_RE = re.compile(r"^\s*(?:(\w+)\s+)?([\w\.\*\[\]]+(?:\[[\w\.]+\][\w\.\*\[\]]+)?)\s+`([^`]*)`")


def parse(pid: str, files: list[Path]) -> Package:
    pkg = Package(pid)
    for path in files:
        text = path.read_text()
        for alias, imp in re.findall(r'^(?:import)?\s*(\w+)?\s*"([\w\./-]+)"\s*$', text, re.M):
            name = alias or imp.rsplit("/", 1)[-1]
            pkg.imports[name] = package_id(imp)
        lines = text.splitlines()
        i = 0
        while i < len(lines):
            line = lines[i]
            match = re.match(r"^type (\w+) struct \{$", line)
            named = re.match(r"^type (\w+) ([\w\.\[\]\*]+)\s*(//.*)?$", line)
            if named and not match:
                pkg.named[named.group(1)] = named.group(2)
            if not match:
                i += 1
                continue
            name = match.group(1)
            back = i - 1
            while back >= 0 and lines[back].startswith("//"):
                if "+structType=atomic" in lines[back]:
                    pkg.atomic.add(name)
                back -= 1
            fields: list[Field] = []
            markers: dict[str, str] = {}
            has_type_meta = False
            i += 1
            while lines[i] != "}":
                stripped = lines[i].strip()
                if stripped.startswith("//"):
                    marker = re.match(r"//\s*\+(listType|listMapKey|mapType|structType)=(\S+)",
                                      stripped)
                    if marker:
                        key, value = marker.groups()
                        if key == "listMapKey" and key in markers:
                            markers[key] += "+" + value
                        else:
                            markers[key] = value
                    i += 1
                    continue
                found = FIELD_RE.match(lines[i])
                if found:
                    _, go_type, tags = found.groups()
                    tag = dict(TAG_RE.findall(tags))
                    json_tag = tag.get("json", "")
                    if go_type.endswith("TypeMeta") and json_tag.startswith(","):
                        has_type_meta = True
                    proto = tag.get("protobuf", "")
                    if proto and json_tag != "-":
                        json_name, _, options = json_tag.partition(",")
                        number = int(proto.split(",")[1])
                        extra = dict(markers)
                        if "patchStrategy" in tag:
                            extra["patchStrategy"] = tag["patchStrategy"].replace(",", "+")
                        if "patchMergeKey" in tag:
                            extra["patchMergeKey"] = tag["patchMergeKey"]
                        fields.append(Field(go_type, json_name, "omitempty" in options, number,
                                            "inline" in options, extra))
                    markers = {}
                elif stripped:
                    markers = {}
                i += 1
            pkg.structs[name] = fields
            object_meta = any(f.json == "metadata" and f.go_type.endswith("ObjectMeta")
                              for f in fields)
            if has_type_meta and (object_meta or name.endswith(("Review", "Binding"))):
                pkg.kinds.append(name)
            i += 1
    return pkg


class Resolver:
    def __init__(self, packages: dict[str, Package]) -> None:
        self.packages = packages
        self.wanted: list[str] = []
        self.seen: set[str] = set()

    def qualify(self, pkg: Package, name: str) -> tuple[Package | None, str]:
        if "." in name:
            alias, _, short = name.partition(".")
            pid = pkg.imports.get(alias, alias)
            return self.packages.get(pid), f"{pid}.{short}"
        return pkg, f"{pkg.pid}.{name}"

    def resolve(self, pkg: Package, go_type: str) -> str:
        go_type = go_type.lstrip("*")
        if go_type == "[]byte":
            return "y"
        if go_type.startswith("[]"):
            return "[]" + self.resolve(pkg, go_type[2:])
        if go_type.startswith("map["):
            value = go_type[go_type.index("]") + 1:]
            return "{}" + self.resolve(pkg, value)
        if go_type in BUILTIN:
            return BUILTIN[go_type]
        owner, qualified = self.qualify(pkg, go_type)
        if qualified in SPECIAL:
            return SPECIAL[qualified]
        if owner is None:
            raise KeyError(f"unknown type {go_type} ({qualified}) in {pkg.pid}")
        short = qualified.rsplit(".", 1)[1]
        if short in owner.named and short not in owner.structs:
            return self.resolve(owner, owner.named[short])
        if short not in owner.structs:
            raise KeyError(f"unknown type {go_type} ({qualified})")
        if qualified not in self.seen:
            self.seen.add(qualified)
            self.wanted.append(qualified)
        return "@" + qualified

    def line(self, qualified: str) -> str:
        pid, _, name = qualified.rpartition(".")
        pkg = self.packages[pid]
        tokens = []
        for f in pkg.structs[name]:
            kind = self.resolve(pkg, f.go_type)
            flags = []
            if f.go_type.startswith("*"):
                flags.append("p")
            if f.omitempty:
                flags.append("o")
            if f.inline:
                flags.append("n")
            for key, short in (("listType", "L"), ("listMapKey", "M"), ("mapType", "T"),
                               ("structType", "T"), ("patchStrategy", "P"),
                               ("patchMergeKey", "K")):
                if key in f.markers:
                    flags.append(f"{short}={f.markers[key]}")
            token = f"{f.json or '-'}:{f.number}:{kind}"
            if flags:
                token += ":" + ",".join(flags)
            tokens.append(token)
        head = qualified + ("!" if name in pkg.atomic else "")
        return head + " " + " ".join(tokens)


def main(api: str, machinery: str, aggregator: str) -> None:
    packages: dict[str, Package] = {}
    for pid in API_PACKAGES:
        files = sorted(p for p in (Path(api) / pid).glob("*.go")
                       if not p.name.endswith("_test.go") and not p.name.startswith(
                           ("zz_", "generated")))
        packages[pid] = parse(pid, files)
    meta = Path(machinery) / "pkg/apis/meta/v1"
    packages["meta/v1"] = parse("meta/v1", [meta / "types.go"])
    agg = Path(aggregator) / "pkg/apis/apiregistration/v1"
    packages["apiregistration/v1"] = parse("apiregistration/v1", [agg / "types.go"])
    resolver = Resolver(packages)
    kinds = []
    for pid, pkg in packages.items():
        if pid == "meta/v1":
            continue
        for kind in pkg.kinds:
            resolver.resolve(pkg, kind)
            kinds.append(f"{pid}.{kind}")
    out = []
    index = 0
    while index < len(resolver.wanted):
        out.append(resolver.line(resolver.wanted[index]))
        index += 1
    print(HEADER)
    print('TABLE = """')
    for line in sorted(out):
        print("\n".join(textwrap.wrap(line, 99, subsequent_indent="  ",
                                      break_long_words=False, break_on_hyphens=False)))
    print('"""')
    print()
    print("KINDS = (")
    print("\n".join(textwrap.wrap(" ".join(kinds), 95, initial_indent='    "',
                                  subsequent_indent='    "')).replace("\n", ' "\n') + '"')
    print(")")


HEADER = '''\
"""The wire shape of Kubernetes v1.32's built-in API types (generated table data; do not edit).

Made by tools/gen_k8s_types.py from the Go struct tags of k8s.io/api, k8s.io/apimachinery
(meta/v1) and k8s.io/kube-aggregator at tag kubernetes-1.32.0: per struct, in Go field order
(the order the apiserver writes JSON keys in), one token per field:

    jsonName:protobufNumber:type[:flags]

type: s string, b bool, i integer, f float, y bytes (base64 in JSON), q Quantity, t Time,
m MicroTime, d Duration, io IntOrString, raw RawExtension, fv1 FieldsV1, @pkg.Struct a
struct, []T a list of T, {}T a map from string to T. flags: p pointer, o omitempty,
n inline (the struct's fields appear in its parent's JSON), L= listType, M= listMapKey
(keys joined by +), T= mapType or structType, P= patchStrategy, K= patchMergeKey.
A struct name ending in ! is +structType=atomic. An inline field's json name is "-".
"""

__all__ = ["KINDS", "TABLE"]
'''

if __name__ == "__main__":
    main(*sys.argv[1:4])
