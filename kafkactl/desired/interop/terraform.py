"""terraform's kafka provider (Mongey/kafka): kafka_acl, kafka_quota, kafka_topic and kafka_user_scram_credential
resources read from HCL (python-hcl2), and kafka_acl resources written with import blocks carrying the provider's
import id (principal|host|operation|permission|type|name|pattern). Only literal values are read: a variable or an
expression is refused, naming the resource, since its value is known to terraform alone."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any, TextIO

from kafkactl.acl.model import AclBinding, Permission, ResourceType, parse_resource_type
from kafkactl.desired.formats.text import decode, read_bytes
from kafkactl.desired.interop import Imported
from kafkactl.desired.interop.common import binding
from kafkactl.errors import KafkactlError, StateFileError
from kafkactl.limits import shown

_TF_TYPES = {ResourceType.TOPIC: "Topic", ResourceType.GROUP: "Group", ResourceType.CLUSTER: "Cluster",
             ResourceType.TRANSACTIONAL_ID: "TransactionalID", ResourceType.DELEGATION_TOKEN: "DelegationToken"}


def read_terraform(path: Path, out: Imported) -> None:
    import hcl2
    from hcl2.utils import SerializationOptions

    text = decode(read_bytes(path), path)
    try:
        doc = hcl2.loads(text, serialization_options=SerializationOptions(strip_string_quotes=True))
    except Exception as exc:  # lark's parse errors: the message names line and column
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise StateFileError(f"{path}: not valid HCL ({first})") from None
    seen: set[str] = set()
    for block in doc.get("resource") or []:
        for kind, named in block.items():
            for name, attrs in named.items():
                where = f"{path}: {kind}.{name}"
                if f"{kind}.{name}" in seen:
                    raise StateFileError(f"{where}: declared twice (terraform refuses that too)")
                seen.add(f"{kind}.{name}")
                for meta in ("count", "for_each"):
                    if meta in attrs and kind in _READERS:
                        raise StateFileError(f"{where}: {meta}: how many of it terraform makes is known to terraform "
                                             "alone; kafkactl reads resources written out one by one")
                reader = _READERS.get(kind)
                if reader is None:
                    out.notes.append(f"{where}: not a kafka provider resource kafkactl reads: left out")
                    continue
                reader(where, {k: v for k, v in attrs.items() if not k.startswith("__")}, out)


def _literal(where: str, attrs: dict[str, Any], key: str, default: Any = None, kind: type = str) -> Any:
    value = attrs.get(key, default)
    if value is None:
        raise StateFileError(f"{where}: {key}: missing")
    if isinstance(value, str):
        if "${" in value.replace("$${", "") or "%{" in value.replace("%%{", ""):
            raise StateFileError(f"{where}: {key}: {shown(value)} is an expression, not a literal: kafkactl reads "
                                 "literal values only")
        value = value.replace("$${", "${").replace("%%{", "%{")  # HCL's escapes of a template's start
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        raise StateFileError(f"{where}: {key}: {shown(str(value))} is not a {kind.__name__}")
    return value


def _acl(where: str, attrs: dict[str, Any], out: Imported) -> None:
    def get(k: str, d: Any = None) -> Any:
        return _literal(where, attrs, k, d)

    kind = get("resource_type")
    try:
        rtype = parse_resource_type(kind, "resource_type")
    except KafkactlError as exc:
        raise StateFileError(f"{where}: {exc.message}") from None
    perm = get("acl_permission_type")
    if perm not in ("Allow", "Deny"):
        raise StateFileError(f"{where}: acl_permission_type: {shown(perm)} is not Allow or Deny")
    out.add(binding(where, get("acl_principal"), rtype, get("resource_name"),
                    get("resource_pattern_type_filter", "Literal"), get("acl_operation"),
                    Permission.ALLOW if perm == "Allow" else Permission.DENY, get("acl_host")), where)


def _quota(where: str, attrs: dict[str, Any], out: Imported) -> None:
    etype = _literal(where, attrs, "entity_type")
    from kafkactl.desired.configs.desired import WORD_OF_WIRE

    word = WORD_OF_WIRE.get(etype) if isinstance(etype, str) else None
    if word is None:
        raise StateFileError(f"{where}: entity_type: {shown(etype)} is not user, client-id or ip")
    name = _literal(where, attrs, "entity_name", "")
    values = {}
    for key, value in (attrs.get("config") or {}).items():
        if isinstance(value, str):  # the provider's config is a map of strings
            try:
                value = float(value) if "." in value else int(value)
            except ValueError:
                pass
        if not isinstance(value, (int, float)) or isinstance(value, bool) or value < 0:
            raise StateFileError(f"{where}: config.{key}: {shown(str(value))} is not a number of at least 0")
        values[str(key)] = value
    entry: dict[str, Any] = {word: name} if name else {"default": [word]}
    entry["values"] = values
    out.quotas.append(entry)


def _topic(where: str, attrs: dict[str, Any], out: Imported) -> None:
    entry: dict[str, Any] = {"name": _literal(where, attrs, "name"),
                             "partitions": _literal(where, attrs, "partitions", kind=int),
                             "replicationFactor": _literal(where, attrs, "replication_factor", kind=int)}
    config = attrs.get("config") or {}
    if config:
        entry["configs"] = {str(k): str(_literal(where, config, k, kind=object)) for k in config}
    out.topics.append(entry)


def _scram(where: str, attrs: dict[str, Any], out: Imported) -> None:
    from kafkactl.desired.configs.desired import env_name

    user = _literal(where, attrs, "username")
    mech = _literal(where, attrs, "scram_mechanism")
    if mech not in ("SCRAM-SHA-256", "SCRAM-SHA-512"):
        raise StateFileError(f"{where}: scram_mechanism: {shown(mech)} is not SCRAM-SHA-256 or SCRAM-SHA-512")
    iterations = _literal(where, attrs, "scram_iterations", 4096, kind=int)
    if not 4096 <= iterations <= 16384:
        raise StateFileError(f"{where}: scram_iterations: {iterations} is not from 4096 to 16384")
    env = env_name("PASSWORD", user)
    out.users.append({"name": user, "scram": [{"mechanism": mech, "iterations": iterations,
                                               "password": {"env": env}}]})
    out.notes.append(f"{where}: the password stays in terraform's state: kafkactl's file reads it from ${env}")


_READERS = {"kafka_acl": _acl, "kafka_quota": _quota, "kafka_topic": _topic,
            "kafka_user_scram_credential": _scram}


def import_id(b: AclBinding) -> str:
    return "|".join((b.principal, b.host, b.operation.pascal, b.permission.pascal,
                     _TF_TYPES[b.resource_type], b.resource_name, b.pattern_type.pascal))


def write_terraform(bindings: Iterable[AclBinding], out: TextIO, notes: list[str]) -> None:
    """One kafka_acl per binding, and an import block (terraform >= 1.5) adopting the ACL the cluster has."""
    import json

    n = 0
    for b in sorted(bindings):
        if b.resource_type not in _TF_TYPES or "|" in b.principal + b.host + b.resource_name:
            notes.append(f"{b.describe()}: the provider cannot name it (a USER resource, or '|' in a value): "
                         "left out")
            continue
        n += 1
        def q(value: str) -> str:  # HCL's escapes are JSON's, and ${ and %{ would start a template
            return json.dumps(value).replace("${", "$${").replace("%{", "%%{")

        out.write(f'resource "kafka_acl" "acl_{n}" {{\n'
                  f"  resource_name                = {q(b.resource_name)}\n"
                  f"  resource_type                = {q(_TF_TYPES[b.resource_type])}\n"
                  f"  resource_pattern_type_filter = {q(b.pattern_type.pascal)}\n"
                  f"  acl_principal                = {q(b.principal)}\n"
                  f"  acl_host                     = {q(b.host)}\n"
                  f"  acl_operation                = {q(b.operation.pascal)}\n"
                  f"  acl_permission_type          = {q(b.permission.pascal)}\n"
                  "}\n\n"
                  f"import {{\n  to = kafka_acl.acl_{n}\n  id = {q(import_id(b))}\n}}\n\n")


