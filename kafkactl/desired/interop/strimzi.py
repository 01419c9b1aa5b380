"""Strimzi KafkaUser resources (kafka.strimzi.io/v1beta2): one per User principal, its ACLs under
spec.authorization (type simple) and its user quota under spec.quotas. Strimzi's User Operator names the principal
after the resource: User:NAME for scram-sha-512, User:CN=NAME for tls, so only such principals can be written."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any, TextIO

from kafkactl.acl.model import CLUSTER_NAME, AclBinding, Permission, ResourceType
from kafkactl.desired.interop import Imported
from kafkactl.desired.interop.common import binding, line, mapping, sequence, text
from kafkactl.errors import StateFileError
from kafkactl.limits import shown

_TYPES = {ResourceType.TOPIC: "topic", ResourceType.GROUP: "group", ResourceType.CLUSTER: "cluster",
          ResourceType.TRANSACTIONAL_ID: "transactionalId"}
_QUOTAS = {"producer_byte_rate": "producerByteRate", "consumer_byte_rate": "consumerByteRate",
           "request_percentage": "requestPercentage", "controller_mutation_rate": "controllerMutationRate"}
API_VERSIONS = ("kafka.strimzi.io/v1beta2", "kafka.strimzi.io/v1")
_NAME = re.compile(r"[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?")  # a Kubernetes object name (DNS-1123 subdomain)


def user_of(principal: str, scram_users: frozenset[str] | set[str]) -> tuple[str, str] | None:
    """(resource name, authentication type) Strimzi gives this principal, or None when no KafkaUser has it. The
    type is "tls" for User:CN=NAME, "scram-sha-512" for a user with such a credential on the cluster, else ""
    (the KafkaUser has no spec.authentication: Strimzi then issues it no credential)."""
    kind, _, name = principal.partition(":")
    if kind != "User":
        return None
    auth = "scram-sha-512" if name in scram_users else ""
    if name.startswith("CN=") and "," not in name:
        name, auth = name[3:], "tls"
    return (name, auth) if _NAME.fullmatch(name) else None


def write_strimzi(bindings: Iterable[AclBinding], quotas: dict[str, dict[str, float]], cluster: str, out: TextIO,
                  notes: list[str], scram_users: frozenset[str] | set[str] = frozenset()) -> None:
    """KafkaUser resources; a user without a SCRAM credential on the cluster (or a certificate name) gets no
    spec.authentication (issue 18 new-user pass: scram-sha-512 for every user made Strimzi issue each a password)."""
    import yaml

    users: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for b in sorted(bindings):
        who = user_of(b.principal, scram_users)
        if who is None or b.resource_type not in _TYPES:
            notes.append(f"{b.describe()}: no KafkaUser holds it (Strimzi names User:NAME or User:CN=NAME principals, "
                         "NAME a Kubernetes name, on topics, groups, transactional ids and the cluster): left out")
            continue
        resource: dict[str, Any] = {"type": _TYPES[b.resource_type]}
        if b.resource_type is not ResourceType.CLUSTER:
            resource["name"] = b.resource_name
            resource["patternType"] = "prefix" if b.pattern_type.name == "PREFIXED" else "literal"
        users.setdefault(who, []).append({"resource": resource, "operations": [b.operation.pascal],
                                          "host": b.host, "type": b.permission.name.lower()})
    for user in quotas:
        who = user_of(f"User:{user}", scram_users)
        if who is not None and who not in users:
            users[who] = []
    docs = []
    bare: list[str] = []  # the KafkaUsers written without spec.authentication: said once, not once each
    for (name, auth), acls in sorted(users.items()):
        spec: dict[str, Any] = {"authentication": {"type": auth}} if auth else {}
        if not auth:
            bare.append(name)
        if acls:
            spec["authorization"] = {"type": "simple", "acls": acls}
        q = quotas.get(name if auth != "tls" else f"CN={name}") or {}
        if q:
            spec["quotas"] = {_QUOTAS[k]: (int(v) if k != "controller_mutation_rate" else v)
                              for k, v in sorted(q.items()) if k in _QUOTAS}
        docs.append({"apiVersion": "kafka.strimzi.io/v1beta2", "kind": "KafkaUser",
                     "metadata": {"name": name, "labels": {"strimzi.io/cluster": cluster}}, "spec": spec})
    if bare:
        from kafkactl.limits import plural

        notes.append(f"{plural(len(bare), 'KafkaUser')} ({', '.join(bare[:3])}{', ...' if len(bare) > 3 else ''}) "
                     "with no SCRAM-SHA-512 credential on the cluster: written without spec.authentication (Strimzi "
                     "manages their ACLs and quotas, and issues them no credential)")
    yaml.safe_dump_all(docs, out, sort_keys=False, default_flow_style=False, allow_unicode=True)


def read_strimzi(path: Path, out: Imported) -> None:
    from kafkactl.desired.formats.yamldoc import yaml_documents

    for doc in yaml_documents(path):
        if doc is None:
            continue
        where = line(path, doc)
        doc = mapping(where, doc, "document")
        if doc.get("kind") != "KafkaUser":
            kind = doc.get("kind")
            out.notes.append(f"{where}: a {kind if isinstance(kind, str) else 'document'}, not a KafkaUser: left out")
            continue
        if doc.get("apiVersion") not in API_VERSIONS:
            raise StateFileError(f"{where}: apiVersion: {doc.get('apiVersion')!r} is not one kafkactl reads "
                                 f"({', '.join(API_VERSIONS)})")
        name = text(where, mapping(where, doc.get("metadata"), "metadata").get("name"), "metadata.name")
        if not _NAME.fullmatch(name):
            # the User Operator names the principal after the resource: '*' would be every user, a comma another
            # DN, 'User:x' the principal User:User:x; Kubernetes refuses such a name anyway
            raise StateFileError(f"{where}: metadata.name: {shown(name)} is not a Kubernetes object name (lower-case "
                                 "letters, digits, '-' and '.'), which a KafkaUser's principal is made from")
        spec = mapping(where, doc.get("spec"), "spec")
        auth = mapping(where, spec.get("authentication"), "spec.authentication").get("type")
        principal = f"User:CN={name}" if auth in ("tls", "tls-external") else f"User:{name}"
        authz = mapping(where, spec.get("authorization"), "spec.authorization")
        if authz and authz.get("type") != "simple":
            raise StateFileError(f"{where}: spec.authorization.type: {authz.get('type')!r}: only simple holds ACLs")
        for rule in sequence(where, authz.get("acls"), "spec.authorization.acls"):
            _acl_rule(path, doc, out, principal, rule)
        q = mapping(where, spec.get("quotas"), "spec.quotas")
        if q:
            out.quotas.append(_quotas(where, principal, q))


def _acl_rule(path: Path, doc: Any, out: Imported, principal: str, rule: Any) -> None:
    """The bindings of one rule of spec.authorization.acls, one per operation."""
    rw = line(path, rule, doc)
    rule = mapping(rw, rule, "acl")
    res = mapping(rw, rule.get("resource"), "resource")
    rtype = {v: k for k, v in _TYPES.items()}.get(str(res.get("type")))
    if rtype is None:
        raise StateFileError(f"{rw}: resource.type: {res.get('type')!r} is not topic, group, transactionalId "
                             "or cluster")
    pattern = {"literal": "LITERAL", "prefix": "PREFIXED"}.get(res.get("patternType") or "literal")
    if pattern is None:
        raise StateFileError(f"{rw}: resource.patternType: {res.get('patternType')!r} is not literal or prefix")
    rname = CLUSTER_NAME if rtype is ResourceType.CLUSTER else res.get("name")
    ops = rule.get("operations") if "operations" in rule else [rule.get("operation")]
    if not isinstance(ops, list) or not ops or not all(isinstance(o, str) for o in ops):
        raise StateFileError(f"{rw}: operations: expected a list of operations (Read, Write, ...)")
    kind = rule.get("type", "allow")
    if kind not in ("allow", "deny"):
        raise StateFileError(f"{rw}: type: {kind!r} is not allow or deny")
    perm = Permission.DENY if kind == "deny" else Permission.ALLOW
    for op in ops:
        out.add(binding(rw, principal, rtype, rname, pattern, str(op), perm, str(rule.get("host") or "*")), rw,
                principal_written=False)  # (made from metadata.name)


def _quotas(where: str, principal: str, q: dict[str, Any]) -> dict[str, Any]:
    """spec.quotas as the State file's quota of the user."""
    back = {v: k for k, v in _QUOTAS.items()}
    unknown = [k for k in q if k not in back]
    if unknown:
        raise StateFileError(f"{where}: spec.quotas.{unknown[0]}: not a Strimzi quota")
    for k, v in q.items():
        if isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0:
            raise StateFileError(f"{where}: spec.quotas.{k}: {v!r} is not a number of at least 0")
    return {"user": principal.partition(":")[2], "values": {back[k]: v for k, v in q.items()}}

