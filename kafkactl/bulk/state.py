"""Desired-state ACL files: YAML (compact, for people), JSONL / CSV / Parquet (flat, for machines).

Every binding keeps where it came from (file and line or row), so every error names file, place and field.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator

from kafkactl.acl.model import (
    CLUSTER_NAME,
    AclBinding,
    PatternType,
    Permission,
    ResourceType,
    check_operation_supported,
    parse_operation,
    parse_pattern_type,
    validate_principal,
)
from kafkactl.errors import KafkactlError, UsageError

# compact YAML: resource keys of an entry, and the ResourceType they stand for
RESOURCE_KEYS = {"topic": ResourceType.TOPIC, "group": ResourceType.GROUP, "cluster": ResourceType.CLUSTER,
                 "transactional-id": ResourceType.TRANSACTIONAL_ID, "delegation-token": ResourceType.DELEGATION_TOKEN,
                 "user": ResourceType.USER}
TYPE_KEYS = {v: k for k, v in RESOURCE_KEYS.items()}
FLAT_FIELDS = ("principal", "host", "operation", "permission", "resource_type", "resource_name", "pattern_type")


class StateFileError(UsageError):
    """A malformed desired-state file: the message names file, line/row and field."""


@dataclass(frozen=True)
class Scope:
    """What a file manages. Declared dimensions intersect; an undeclared one is unconstrained."""

    principals: frozenset[str] = frozenset()
    principal_prefixes: tuple[str, ...] = ()
    resource_prefixes: dict[ResourceType, tuple[str, ...]] = field(default_factory=dict)

    def declared(self) -> bool:
        return bool(self.principals or self.principal_prefixes or self.resource_prefixes)

    def contains(self, b: AclBinding) -> bool:
        if self.principals or self.principal_prefixes:
            if b.principal not in self.principals and not any(b.principal.startswith(p) for p in self.principal_prefixes):
                return False
        if self.resource_prefixes:
            prefixes = self.resource_prefixes.get(b.resource_type)
            if prefixes is None or not any(b.resource_name.startswith(p) for p in prefixes):
                return False
        return True

    def to_json(self) -> dict:
        d: dict[str, Any] = {}
        if self.principals:
            d["principals"] = sorted(self.principals)
        if self.principal_prefixes:
            d["principalPrefixes"] = list(self.principal_prefixes)
        if self.resource_prefixes:
            d["resourcePrefixes"] = {TYPE_KEYS[t]: list(p) for t, p in sorted(self.resource_prefixes.items())}
        return d

    def merge(self, other: "Scope") -> "Scope":
        res = {t: tuple(dict.fromkeys(self.resource_prefixes.get(t, ()) + other.resource_prefixes.get(t, ())))
               for t in set(self.resource_prefixes) | set(other.resource_prefixes)}
        return Scope(self.principals | other.principals,
                     tuple(dict.fromkeys(self.principal_prefixes + other.principal_prefixes)), res)


@dataclass
class DesiredState:
    bindings: dict[AclBinding, str] = field(default_factory=dict)  # binding -> where it was declared
    scope: Scope = field(default_factory=Scope)
    clusters: list[str] = field(default_factory=list)
    duplicates: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)

    def add(self, b: AclBinding, where: str) -> None:
        if b in self.bindings:
            self.duplicates.append(f"{where}: duplicate of {self.bindings[b]}")
            return
        self.bindings[b] = where


# ------------------------------------------------------------------------------------------ parsing


FLAT_SUFFIXES = (".jsonl", ".ndjson", ".csv", ".parquet")


def load(paths: Iterable[str], scope_file: str | None = None, flat_rows: bool = True) -> DesiredState:
    """Parse and validate. With flat_rows=False (the Spark engine) flat files contribute only their scope;
    Spark reads and validates their rows itself."""
    state = DesiredState()
    for p in paths:
        path = Path(p)
        if not flat_rows and path.suffix.lower() in FLAT_SUFFIXES:
            _flat_scope_only(path, state)
        else:
            load_one(path, state)
        state.sources.append(str(p))
    if scope_file:
        extra = DesiredState()
        _load_yaml(Path(scope_file), extra, scope_only=True)
        state.scope = state.scope.merge(extra.scope)
    if not state.scope.declared():
        raise StateFileError(f"{', '.join(state.sources)}: no scope declared (scope: principals, principalPrefixes "
                             "or resourcePrefixes; or --scope FILE); deletions are only ever computed inside a scope")
    for b, where in state.bindings.items():
        if not state.scope.contains(b):
            raise StateFileError(f"{where}: {b.describe()} is outside the declared scope {json.dumps(state.scope.to_json())}")
    return state


def load_one(path: Path, state: DesiredState) -> None:
    if not path.exists():
        raise StateFileError(f"{path}: no such file")
    suffix = path.suffix.lower()
    if suffix in (".yaml", ".yml", ".json"):
        _load_yaml(path, state)
    elif suffix in (".jsonl", ".ndjson"):
        _load_jsonl(path, state)
    elif suffix == ".csv":
        _load_csv(path, state)
    elif suffix == ".parquet":
        _load_parquet(path, state)
    else:
        raise StateFileError(f"{path}: unknown format {suffix or '(no suffix)'} (yaml, json, jsonl, csv, parquet)")


def _line_loader():
    import yaml

    base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    class LineLoader(base):  # type: ignore[misc,valid-type]
        pass

    def construct_mapping(loader, node, deep=False):
        mapping = yaml.SafeLoader.construct_mapping(loader, node, deep=deep)
        mapping["__line__"] = node.start_mark.line + 1
        return mapping

    LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, construct_mapping)
    return LineLoader


def _load_yaml(path: Path, state: DesiredState, scope_only: bool = False) -> None:
    import yaml

    try:
        doc = yaml.load(path.read_text(encoding="utf-8"), Loader=_line_loader())
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark else str(path)
        raise StateFileError(f"{where}: not valid YAML ({getattr(exc, 'problem', 'syntax error')})") from None
    if not isinstance(doc, dict):
        raise StateFileError(f"{path}: expected a mapping with scope: and acls:")
    _check_schema(path, doc)
    if doc.get("scope") is not None:
        state.scope = state.scope.merge(_scope(path, doc["scope"]))
    if scope_only:
        return
    state.clusters += [str(c) for c in doc.get("clusters") or []]
    for entry in doc.get("acls") or []:
        line = entry.get("__line__", "?")
        principal = _principal(f"{path}:{line}", entry.get("principal"))
        hosts = entry.get("hosts") or ["*"]
        for perm_key, perm in (("allow", Permission.ALLOW), ("deny", Permission.DENY)):
            for res in entry.get(perm_key) or []:
                rline = res.get("__line__", line)
                where = f"{path}:{rline}"
                for b in _expand(where, principal, perm, res, res.get("hosts") or hosts):
                    state.add(b, where)


def _check_schema(path: Path, doc: dict) -> None:
    import jsonschema

    schema = json.loads((Path(__file__).with_name("acl-state.schema.json")).read_text())
    clean = _strip_lines(doc)
    errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(clean), key=lambda e: list(e.absolute_path))
    if errors:
        e = errors[0]
        line = _line_of(doc, list(e.absolute_path))
        field_path = ".".join(str(p) for p in e.absolute_path) or "(top level)"
        raise StateFileError(f"{path}:{line}: {field_path}: {e.message}")


def _strip_lines(v: Any) -> Any:
    if isinstance(v, dict):
        return {k: _strip_lines(x) for k, x in v.items() if k != "__line__"}
    if isinstance(v, list):
        return [_strip_lines(x) for x in v]
    return v


def _line_of(doc: Any, path: list) -> Any:
    line, node = doc.get("__line__", "?") if isinstance(doc, dict) else "?", doc
    for p in path:
        try:
            node = node[p]
        except (KeyError, IndexError, TypeError):
            break
        if isinstance(node, dict) and "__line__" in node:
            line = node["__line__"]
    return line


def _scope(path: Path, s: dict) -> Scope:
    where = f"{path}:{s.get('__line__', '?')}"
    principals = frozenset(_principal(where, p, "scope.principals") for p in s.get("principals") or [])
    prefixes = tuple(str(p) for p in s.get("principalPrefixes") or [])
    res: dict[ResourceType, tuple[str, ...]] = {}
    for key, values in (s.get("resourcePrefixes") or {}).items():
        if key == "__line__":
            continue
        if key not in RESOURCE_KEYS:
            raise StateFileError(f"{where}: scope.resourcePrefixes.{key}: not one of {', '.join(RESOURCE_KEYS)}")
        res[RESOURCE_KEYS[key]] = tuple(str(v) for v in values or [])
    return Scope(principals, prefixes, res)


def _principal(where: str, value: Any, field_name: str = "principal") -> str:
    if not isinstance(value, str):
        raise StateFileError(f"{where}: {field_name}: missing or not a string")
    try:
        return validate_principal(value, field_name)
    except KafkactlError as exc:
        raise StateFileError(f"{where}: {exc.message}") from None


def _expand(where: str, principal: str, perm: Permission, res: dict, hosts: list) -> Iterator[AclBinding]:
    keys = [k for k in res if k in RESOURCE_KEYS]
    if len(keys) != 1:
        raise StateFileError(f"{where}: each entry names exactly one resource ({', '.join(RESOURCE_KEYS)})")
    rtype = RESOURCE_KEYS[keys[0]]
    name = res[keys[0]]
    if rtype is ResourceType.CLUSTER and name is True:
        name = CLUSTER_NAME
    yield from (_binding(where, principal, str(h), op, perm, rtype, str(name) if name is not None else "",
                         res.get("pattern", "literal"))
                for op in res.get("operations") or ["All"] for h in hosts)


def _binding(where: str, principal: str, host: str, op: Any, perm: Permission, rtype: ResourceType, name: str,
             pattern: Any, supported_only: bool = True) -> AclBinding:
    try:
        operation = parse_operation(str(op), "operation")
        pt = parse_pattern_type(str(pattern), for_create=True, option="pattern")
        if supported_only:
            check_operation_supported(rtype, operation, "operation")
    except KafkactlError as exc:
        raise StateFileError(f"{where}: {exc.message}") from None
    if not name:
        raise StateFileError(f"{where}: {TYPE_KEYS[rtype]}: the resource name is empty")
    if rtype is ResourceType.CLUSTER and (name != CLUSTER_NAME or pt is not PatternType.LITERAL):
        raise StateFileError(f"{where}: cluster: the only cluster resource is the literal {CLUSTER_NAME} (not {name!r})")
    if not host.strip():
        raise StateFileError(f"{where}: host: empty (use * for every host)")
    return AclBinding(rtype, name, pt, principal, host.strip(), operation, perm)


def flat_binding(where: str, row: dict, supported_only: bool = True) -> AclBinding:
    """A flat row (JSONL, CSV, Parquet): every field required, enum names as Kafka spells them.
    supported_only=False accepts an operation its resource type lacks (the broker stores those)."""
    for f in FLAT_FIELDS:
        if row.get(f) in (None, ""):
            raise StateFileError(f"{where}: {f}: missing")
    principal = _principal(where, row["principal"])
    rtype = _enum(where, ResourceType, "resource_type", row["resource_type"])
    perm = _enum(where, Permission, "permission", row["permission"])
    if rtype in (ResourceType.ANY, ResourceType.UNKNOWN) or perm in (Permission.ANY, Permission.UNKNOWN):
        raise StateFileError(f"{where}: ANY and UNKNOWN are not allowed in a desired state")
    return _binding(where, principal, str(row["host"]), row["operation"], perm, rtype, str(row["resource_name"]),
                    row["pattern_type"], supported_only)


def _flat_scope_only(path: Path, state: DesiredState) -> None:
    if not path.exists():
        raise StateFileError(f"{path}: no such file")
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".ndjson"):
        with path.open(encoding="utf-8") as fh:
            first = fh.readline()  # the scope line comes first in a JSONL desired state
        try:
            row = json.loads(first) if first.strip() else {}
        except json.JSONDecodeError as exc:
            raise StateFileError(f"{path}:1: not valid JSON ({exc.msg})") from None
        if isinstance(row, dict) and row.get("kind") == "scope":
            state.scope = state.scope.merge(_scope(path, {**row, "__line__": 1}))
    elif suffix == ".parquet":
        import pyarrow.parquet as pq

        meta = pq.read_schema(path).metadata or {}
        if b"kafkactl.scope" in meta:
            state.scope = state.scope.merge(_scope(path, json.loads(meta[b"kafkactl.scope"])))


def _enum(where: str, enum_cls, field_name: str, value: Any):
    try:
        return enum_cls[str(value).strip().upper().replace("-", "_")]
    except KeyError:
        raise StateFileError(f"{where}: {field_name}: {value!r} is not valid") from None


def jsonl_objects(path: Path) -> Iterator[tuple[int, dict]]:
    """(line number, object) for each non-blank line of a JSON-lines file."""
    with path.open(encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise StateFileError(f"{path}:{n}: not valid JSON ({exc.msg})") from None
            if not isinstance(row, dict):
                raise StateFileError(f"{path}:{n}: expected an object")
            yield n, row


def _load_jsonl(path: Path, state: DesiredState) -> None:
    for n, row in jsonl_objects(path):
        if row.get("kind") == "scope":
            state.scope = state.scope.merge(_scope(path, {**row, "__line__": n}))
        elif row.get("kind") == "clusters":
            state.clusters += [str(c) for c in row.get("clusters") or []]
        else:
            state.add(flat_binding(f"{path}:{n}", row), f"{path}:{n}")


def _load_csv(path: Path, state: DesiredState) -> None:
    import csv

    with path.open(encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh)
        missing = [f for f in FLAT_FIELDS if f not in (reader.fieldnames or [])]
        if missing:
            raise StateFileError(f"{path}: header row lacks {', '.join(missing)}")
        for n, row in enumerate(reader, 2):
            state.add(flat_binding(f"{path} row {n}", row), f"{path} row {n}")


def _load_parquet(path: Path, state: DesiredState) -> None:
    import pyarrow.parquet as pq

    table = pq.read_table(path)
    missing = [f for f in FLAT_FIELDS if f not in table.column_names]
    if missing:
        raise StateFileError(f"{path}: columns missing: {', '.join(missing)}")
    meta = table.schema.metadata or {}
    if b"kafkactl.scope" in meta:
        state.scope = state.scope.merge(_scope(path, json.loads(meta[b"kafkactl.scope"])))
    for n, row in enumerate(table.select(list(FLAT_FIELDS)).to_pylist(), 1):
        state.add(flat_binding(f"{path} row {n}", row), f"{path} row {n}")


# ------------------------------------------------------------------------------------------ writing


def to_yaml_doc(bindings: Iterable[AclBinding], scope: Scope) -> dict:
    """The compact form: one entry per principal (and host set), allow/deny lists of resources."""
    by: dict[tuple[str, str], dict[tuple, list[str]]] = {}
    for b in sorted(bindings):
        key = (b.principal, b.host)
        res = (b.permission, b.resource_type, b.resource_name, b.pattern_type)
        by.setdefault(key, {}).setdefault(res, []).append(b.operation.pascal)
    acls = []
    for (principal, host), resources in sorted(by.items()):
        entry: dict[str, Any] = {"principal": principal}
        if host != "*":
            entry["hosts"] = [host]
        for perm, key in ((Permission.ALLOW, "allow"), (Permission.DENY, "deny")):
            items = []
            for (p, rtype, name, pt), ops in resources.items():
                if p is not perm:
                    continue
                item: dict[str, Any] = {TYPE_KEYS[rtype]: name}
                if pt is PatternType.PREFIXED:
                    item["pattern"] = "prefixed"
                item["operations"] = ops
                items.append(item)
            if items:
                entry[key] = items
        acls.append(entry)
    return {"apiVersion": "kafkactl/v1", "kind": "AclState", "scope": scope.to_json(), "acls": acls}


def flat_row(b: AclBinding) -> dict:
    return {"principal": b.principal, "host": b.host, "operation": b.operation.name, "permission": b.permission.name,
            "resource_type": b.resource_type.name, "resource_name": b.resource_name, "pattern_type": b.pattern_type.name}

