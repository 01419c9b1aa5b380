"""The compact document (YAML, or JSON, for people): one entry per principal and host set, allow and deny lists of
resources. Read into a DesiredState with every binding's line; written from bindings by acls export."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, TextIO

from kafkactl.acl.model import CLUSTER_NAME, AclBinding, PatternType, Permission, ResourceType
from kafkactl.desired.formats.yamldoc import Map, check_schema, yaml_document
from kafkactl.desired.state import (
    RESOURCE_KEYS,
    TYPE_KEYS,
    DesiredState,
    Scope,
    StateFileError,
    checked_binding,
    checked_principal,
    checked_text,
)
from kafkactl.results import API_VERSION


def read_compact(path: Path, state: DesiredState, scope_only: bool = False) -> None:
    doc = yaml_document(path)
    if not isinstance(doc, dict):
        raise StateFileError(f"{path}: expected a mapping with scope: and acls:")
    if scope_only and "acls" not in doc:
        doc["acls"] = []  # a --scope file may hold only its scope
    check_schema(path, doc)
    if doc.get("scope") is not None:
        scope = doc["scope"]
        state.scope = state.scope.merge(parse_scope(path, scope),
                                        f"{path}:{scope.line}" if hasattr(scope, "line") else str(path))
    if scope_only:
        return
    if "acls" not in doc:  # a State file of configs only: without a scope it would manage every ACL, as none
        raise StateFileError(f"{path}: no acls: section (its topics, configs, quotas and users are read by "
                             "kafkactl configs plan and apply)")
    state.clusters += doc.get("clusters") or []
    for entry in doc.get("acls") or []:
        line = getattr(entry, "line", "?")
        principal = checked_principal(f"{path}:{line}", entry.get("principal"))
        hosts = entry.get("hosts") or ["*"]
        for role in entry.get("roles") or []:
            where = f"{path}:{getattr(role, 'line', line)}"
            for b in _role(where, principal, role, hosts):
                state.add(b, where)
        for perm_key, perm in (("allow", Permission.ALLOW), ("deny", Permission.DENY)):
            for res in entry.get(perm_key) or []:
                where = f"{path}:{getattr(res, 'line', line)}"
                for b in _expand(where, principal, perm, res, res.get("hosts") or hosts):
                    state.add(b, where)


def parse_scope(path: Path | str, s: Any) -> Scope:
    """A scope from YAML's scope:, a JSONL scope line (without its kind), Parquet's kafkactl.scope or a saved
    plan: all checked against the schema's one scope definition, so a string where a list belongs (which
    would be read character by character, widening the scope) is an error naming the field."""
    check_schema(path, s, "scope", prefix="scope")
    where = f"{path}:{s.line}" if isinstance(s, Map) else str(path)
    principals = frozenset(checked_principal(where, p, "scope.principals") for p in s.get("principals") or [])
    prefixes = tuple(checked_text(where, p, "scope.principalPrefixes") for p in s.get("principalPrefixes") or [])
    res = {RESOURCE_KEYS[key]: tuple(checked_text(where, v, f"scope.resourcePrefixes.{key}") for v in values)
           for key, values in (s.get("resourcePrefixes") or {}).items()}
    return Scope(principals, prefixes, res)


def _role(where: str, principal: str, role: dict[str, Any], hosts: list[Any]) -> list[AclBinding]:
    """A preset (the schema has checked its shape): what acls create's shortcut of that name grants."""
    from kafkactl.acl.options import role_bindings
    from kafkactl.errors import UsageError

    (kind, spec), = role.items()
    try:
        return role_bindings(kind, spec, principal, [str(h) for h in hosts])
    except UsageError as exc:
        message = str(exc)
        for option, key in _ROLE_FIELDS.get(kind, {}).items():  # the file's words for acls create's options
            message = message.replace(option, key)
        raise StateFileError(f"{where}: roles.{kind}: {message}") from None


_COMMON = {"--topic": "topics", "--group": "groups", "--transactional-id": "transactionalIds", "--allow-host": "hosts",
           "--allow-principal": "principal"}
_ROLE_FIELDS = {"streams": {"--streams": "applicationId", "--topic": "inputs", "--output-topic": "outputs",
                            "--allow-host": "hosts", "--allow-principal": "principal"},
                "connectWorker": {"--connect-worker": "group", "--config-topic": "configTopic",
                                  "--offset-topic": "offsetTopic", "--status-topic": "statusTopic",
                                  "--allow-host": "hosts", "--allow-principal": "principal"},
                "connector": {"--connector": "name", **_COMMON}, "producer": _COMMON, "consumer": _COMMON,
                "shareConsumer": _COMMON, "twoPhaseCommit": _COMMON,
                "mirrorMaker": {"--mirror-maker": "source", "--target-alias": "target", "--side": "side", **_COMMON}}


def _expand(where: str, principal: str, perm: Permission, res: dict[str, Any], hosts: list[Any]
            ) -> Iterator[AclBinding]:
    keys = [k for k in res if k in RESOURCE_KEYS]
    if len(keys) != 1:
        raise StateFileError(f"{where}: each entry names exactly one resource ({', '.join(RESOURCE_KEYS)})")
    rtype = RESOURCE_KEYS[keys[0]]
    name = res[keys[0]]
    if rtype is ResourceType.CLUSTER and name is True:
        name = CLUSTER_NAME
    yield from (checked_binding(where, principal, str(h), op, perm, rtype, str(name) if name is not None else "",
                         res.get("pattern", "literal"), name_field=keys[0])
                for op in res.get("operations") or ["All"] for h in hosts)


# ------------------------------------------------------------------------------------------ writing


def to_yaml_doc(bindings: Iterable[AclBinding], scope: Scope) -> dict[str, Any]:
    """The compact form: one entry per principal (and host set), allow/deny lists of resources."""
    by: dict[tuple[str, str], dict[tuple[Permission, ResourceType, str, PatternType], list[str]]] = {}
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


def write_compact(bindings: Iterable[AclBinding], scope: Scope, out: TextIO) -> None:
    import yaml

    yaml.safe_dump(to_yaml_doc(bindings, scope), out, sort_keys=False, default_flow_style=False, width=120)
