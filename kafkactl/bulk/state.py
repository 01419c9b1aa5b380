"""Desired-state ACL files: YAML (compact, for people), JSONL / CSV / Parquet (flat, for machines).

Every binding keeps where it came from (file and line or row), so every error names file, place and field.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from kafkactl.results import API_VERSION
from kafkactl.acl.model import (
    CLUSTER_NAME,
    AclBinding,
    PatternType,
    Permission,
    ResourceType,
    check_operation_supported,
    find_refused,
    parse_operation,
    parse_pattern_type,
    shown,
    validate_principal,
    validate_text,
)
from kafkactl.bulk.document import Map, check_schema, yaml_document
from kafkactl.bulk.sources import (
    StateFileError,
    csv_records,
    jsonl_objects,
    parquet_columns,
    parquet_file,
    parquet_metadata,
    parquet_records,
)
from kafkactl.limits import too_long
from kafkactl.errors import KafkactlError, MissingFileError

# compact YAML: resource keys of an entry, and the ResourceType they stand for
RESOURCE_KEYS = {"topic": ResourceType.TOPIC, "group": ResourceType.GROUP, "cluster": ResourceType.CLUSTER,
                 "transactional-id": ResourceType.TRANSACTIONAL_ID, "delegation-token": ResourceType.DELEGATION_TOKEN,
                 "user": ResourceType.USER}
TYPE_KEYS = {v: k for k, v in RESOURCE_KEYS.items()}
FLAT_FIELDS = ("principal", "host", "operation", "permission", "resource_type", "resource_name", "pattern_type")


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
            read_flat_head(path, state)
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
        raise MissingFileError(f"{path}: no such file")
    suffix = path.suffix.lower()
    if suffix in (".yaml", ".yml", ".json"):
        _load_yaml(path, state)
    elif suffix in FLAT_SUFFIXES:
        where = flat_where(path)
        for n, row in flat_records(path, state):
            state.add(flat_binding(where(n), row), where(n))
    else:
        raise StateFileError(f"{path}: unknown format {suffix or '(no suffix)'} (yaml, json, jsonl, csv, parquet)")


def _load_yaml(path: Path, state: DesiredState, scope_only: bool = False) -> None:
    doc = yaml_document(path)
    if not isinstance(doc, dict):
        raise StateFileError(f"{path}: expected a mapping with scope: and acls:")
    check_schema(path, doc)
    if doc.get("scope") is not None:
        state.scope = state.scope.merge(_scope(path, doc["scope"]))
    if scope_only:
        return
    state.clusters += doc.get("clusters") or []
    for entry in doc.get("acls") or []:
        line = getattr(entry, "line", "?")
        principal = _principal(f"{path}:{line}", entry.get("principal"))
        hosts = entry.get("hosts") or ["*"]
        for perm_key, perm in (("allow", Permission.ALLOW), ("deny", Permission.DENY)):
            for res in entry.get(perm_key) or []:
                where = f"{path}:{getattr(res, 'line', line)}"
                for b in _expand(where, principal, perm, res, res.get("hosts") or hosts):
                    state.add(b, where)


def _scope(path: Path | str, s: Any) -> Scope:
    """A scope from YAML's scope:, a JSONL scope line (without its kind), Parquet's kafkactl.scope or a saved
    plan: all checked against the schema's one scope definition, so a string where a list belongs (which
    would be read character by character, widening the scope) is an error naming the field."""
    check_schema(path, s, "scope", prefix="scope")
    where = f"{path}:{s.line}" if isinstance(s, Map) else str(path)
    principals = frozenset(_principal(where, p, "scope.principals") for p in s.get("principals") or [])
    prefixes = tuple(_text(where, p, "scope.principalPrefixes") for p in s.get("principalPrefixes") or [])
    res = {RESOURCE_KEYS[key]: tuple(_text(where, v, f"scope.resourcePrefixes.{key}") for v in values)
           for key, values in (s.get("resourcePrefixes") or {}).items()}
    return Scope(principals, prefixes, res)


def _principal(where: str, value: Any, field_name: str = "principal") -> str:
    if not isinstance(value, str):
        raise StateFileError(f"{where}: {field_name}: missing or not a string")
    try:
        return validate_principal(value, field_name)
    except KafkactlError as exc:
        raise StateFileError(f"{where}: {exc.message}") from None


def _text(where: str, value: str, field_name: str) -> str:
    try:
        return validate_text(value, field_name)
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
                         res.get("pattern", "literal"), name_field=keys[0])
                for op in res.get("operations") or ["All"] for h in hosts)


def _binding(where: str, principal: str, host: str, op: Any, perm: Permission, rtype: ResourceType, name: str,
             pattern: Any, supported_only: bool = True, name_field: str = "resource_name") -> AclBinding:
    try:
        if find_refused(name) or find_refused(host) or too_long(name) or too_long(host):
            validate_text(name, name_field)
            validate_text(host, "host")
        operation = parse_operation(str(op), "operation")
        pt = parse_pattern_type(str(pattern), for_create=True, option="pattern")
        if supported_only:
            check_operation_supported(rtype, operation, "operation")
    except KafkactlError as exc:
        raise StateFileError(f"{where}: {exc.message}") from None
    if not name:
        raise StateFileError(f"{where}: {TYPE_KEYS[rtype]}: the resource name is empty")
    if rtype is ResourceType.CLUSTER and (name != CLUSTER_NAME or pt is not PatternType.LITERAL):
        raise StateFileError(f"{where}: cluster: the only cluster resource is the literal {CLUSTER_NAME} "
                             f"(not {shown(name)})")
    if not host.strip():
        raise StateFileError(f"{where}: host: empty (use * for every host)")
    return AclBinding(rtype, name, pt, principal, host.strip(), operation, perm)


def flat_binding(where: str, row: dict, supported_only: bool = True) -> AclBinding:
    """A flat row (JSONL, CSV, Parquet): every field a string, enum names as Kafka spells them.
    supported_only=False accepts an operation its resource type lacks (the broker stores those)."""
    for f in FLAT_FIELDS:
        v = row.get(f)
        if v.__class__ is not str or not v:
            raise StateFileError(f"{where}: {f}: missing" if v is None or v == "" else
                                 f"{where}: {f}: {shown(v)} is not a string")
    principal = _principal(where, row["principal"])
    rtype = _enum(where, ResourceType, "resource_type", row["resource_type"])
    perm = _enum(where, Permission, "permission", row["permission"])
    if rtype in (ResourceType.ANY, ResourceType.UNKNOWN) or perm in (Permission.ANY, Permission.UNKNOWN):
        raise StateFileError(f"{where}: ANY and UNKNOWN are not allowed in a desired state")
    return _binding(where, principal, row["host"], row["operation"], perm, rtype, row["resource_name"],
                    row["pattern_type"], supported_only)


def _enum(where: str, enum_cls, field_name: str, value: str):
    try:
        return enum_cls[value.strip().upper().replace("-", "_")]
    except KeyError:
        raise StateFileError(f"{where}: {field_name}: {shown(value)} is not valid") from None


# ------------------------------------------------------------------------------------------ flat files


def flat_where(path: Path) -> Callable[[int], str]:
    """How a flat file's rows are named: by line in JSONL, by row (the header is row 1) in CSV and Parquet."""
    if path.suffix.lower() in (".jsonl", ".ndjson"):
        return lambda n: f"{path}:{n}"
    return lambda n: f"{path} row {n}"


def binding_where(path: Path, i: int) -> str:
    """Where the i-th binding record (from 0) of a flat file is; JSONL lines are counted (an error path)."""
    where = flat_where(path)
    suffix = path.suffix.lower()
    if suffix != ".jsonl" and suffix != ".ndjson":
        return where(i + (2 if suffix == ".csv" else 1))
    for k, (n, _) in enumerate(_jsonl_records(path, DesiredState())):
        if k == i:
            return where(n)
    return f"{path}: binding line {i + 1}"


def flat_records(path: Path, state: DesiredState) -> Iterator[tuple[int, Any]]:
    """The binding records of a JSONL, CSV or Parquet file, by position (see flat_where). The file's scope (a
    JSONL scope line, Parquet metadata) and JSONL clusters lines go to `state`."""
    suffix = path.suffix.lower()
    if suffix == ".csv":
        return csv_records(path, FLAT_FIELDS)
    if suffix == ".parquet":
        pf = parquet_file(path)
        _parquet_scope(path, pf, state)
        return parquet_records(path, pf, list(FLAT_FIELDS))
    return _jsonl_records(path, state)


def _jsonl_records(path: Path, state: DesiredState, head_only: bool = False) -> Iterator[tuple[int, dict]]:
    """A JSONL file's binding lines. Its head, the scope line first and then any clusters lines, goes to `state`
    (all of it before any binding line: engines that read the rows themselves read only the head here)."""
    first, head = True, True
    for n, row in jsonl_objects(path):
        kind = row.get("kind")
        if kind is None:
            if head_only:
                return
            head = False
            if len(row) > len(FLAT_FIELDS):
                _check_other_fields(f"{path}:{n}", row)
            yield n, row
        elif kind == "scope" and first:
            state.scope = state.scope.merge(_scope(f"{path}:{n}", {k: v for k, v in row.items() if k != "kind"}))
        elif kind == "scope":
            raise StateFileError(f"{path}:{n}: a scope line must be the first line of the file (one per file)")
        elif kind == "clusters" and head:
            extra = sorted(set(row) - {"kind", "clusters"})
            if extra:
                raise StateFileError(f"{path}:{n}: a clusters line has only kind and clusters (not {shown(extra[0])})")
            check_schema(f"{path}:{n}", row.get("clusters"), "clusters", prefix="clusters")
            state.clusters += row["clusters"]
        elif kind == "clusters":
            raise StateFileError(f"{path}:{n}: clusters lines come before the first binding line")
        else:
            raise StateFileError(f"{path}:{n}: kind: {shown(kind)} is not scope or clusters (a binding line has none)")
        first = False


def _check_other_fields(where: str, row: dict) -> None:
    """Fields other than a binding's are ignored, but an unpaired surrogate escape ("\\ud800") in one makes the
    line invalid JSON to Arrow's reader (large files): the Python reader refuses it too."""
    todo = [(k, v) for k, v in row.items() if k not in FLAT_FIELDS]
    while todo:
        k, v = todo.pop()
        if isinstance(v, str) and find_refused(v) and any("\ud800" <= c <= "\udfff" for c in v):
            _text(where, v, k)
        elif isinstance(v, dict):
            todo += [(k, x) for x in v.values()] + [(k, x) for x in v]
        elif isinstance(v, list):
            todo += [(k, x) for x in v]


def _parquet_scope(path: Path, pf: Any, state: DesiredState) -> None:
    value = parquet_metadata(path, pf, b"kafkactl.scope")
    if value is not None:
        state.scope = state.scope.merge(_scope(f"{path} metadata kafkactl.scope", value))


def read_flat_head(path: Path, state: DesiredState) -> None:
    """For engines that read a flat file's rows themselves (Spark, Arrow): the scope, into `state`, and what can
    be checked cheaply before they start (the JSONL scope line, the CSV header, the Parquet schema)."""
    if not path.exists():
        raise MissingFileError(f"{path}: no such file")
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".ndjson"):
        for _ in _jsonl_records(path, state, head_only=True):
            pass
    elif suffix == ".parquet":
        pf = parquet_file(path)
        parquet_columns(path, pf, list(FLAT_FIELDS))
        _parquet_scope(path, pf, state)
    elif suffix == ".csv":
        records = csv_records(path, FLAT_FIELDS)
        next(records, None)
        records.close()


def checked_rows(path: Path) -> Iterator[dict]:
    """A flat file's binding rows as read, each checked by the in-process loader: for an engine whose own
    reader failed, this raises the error the loader names (file, line or row, field), or reads the file."""
    where = flat_where(path)
    for n, row in flat_records(path, DesiredState()):
        flat_binding(where(n), row)
        yield row


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
        for perm, section in ((Permission.ALLOW, "allow"), (Permission.DENY, "deny")):
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
                entry[section] = items
        acls.append(entry)
    return {"apiVersion": API_VERSION, "kind": "AclState", "scope": scope.to_json(), "acls": acls}


def flat_row(b: AclBinding) -> dict:
    return {"principal": b.principal, "host": b.host, "operation": b.operation.name, "permission": b.permission.name,
            "resource_type": b.resource_type.name, "resource_name": b.resource_name, "pattern_type": b.pattern_type.name}

