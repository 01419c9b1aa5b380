"""julie-ops topology YAML: the ACLs its simple ACL builder makes for each project's consumers, producers, streams,
connectors and ksql apps, with julie-ops' default topic naming (context, the other top-level keys in file order,
project, topic, dataType, joined by "."). RBAC-only parts (rbac, schemas, platform RBAC) have no ACL: noted."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from kafkactl.acl.model import CLUSTER_NAME, ResourceType
from kafkactl.desired.interop import Imported
from kafkactl.desired.interop.common import binding, document, line, mapping, sequence, strings, text
from kafkactl.errors import StateFileError
from kafkactl.limits import shown

T, G, C, X = ResourceType.TOPIC, ResourceType.GROUP, ResourceType.CLUSTER, ResourceType.TRANSACTIONAL_ID
# (type, name, pattern, operation[, whether the name was written as a resource pattern]): see _add
Grant = tuple[ResourceType, str, str, str] | tuple[ResourceType, str, str, str, bool]
_SPECIAL = {"projects", "context", "platform", "special_topics"}
SEP = "."


def read_julie(path: Path, out: Imported) -> None:
    doc = document(path)
    where = line(path, doc)
    context = doc.get("context")
    if not isinstance(context, str) or not context:
        raise StateFileError(f"{where}: context: missing (julie-ops requires it)")
    parts = [context]
    for k, v in doc.items():
        if k in _SPECIAL:
            continue
        if isinstance(v, bool) or not isinstance(v, (str, int)) or v == "":
            raise StateFileError(f"{where}: {k}: a part of every topic's name must be a word (not {shown(str(v))})")
        parts.append(str(v))
    if not doc.get("projects"):
        out.notes.append(f"{path}: no projects")
    for project in sequence(where, doc.get("projects"), "projects"):
        _project(path, out, parts, project)
    for topic in sequence(where, doc.get("special_topics"), "special_topics"):
        tw = line(path, topic, doc)
        _topic_users(path, out, text(tw, mapping(tw, topic, "special_topics").get("name"), "name"), topic)
    platform = mapping(where, doc.get("platform"), "platform")
    for q in sequence(where, mapping(where, platform.get("kafka"), "platform.kafka").get("quotas"),
                      "platform.kafka.quotas"):
        qw = line(path, q, doc)
        _quota(qw, out, mapping(qw, q, "quota"))
    for key in ("kafka_connect", "schema_registry", "control_center", "ksql"):
        if platform.get(key):
            out.notes.append(f"{path}: platform.{key}: RBAC role bindings, which have no ACL equivalent: left out")
    if mapping(where, platform.get("kafka"), "platform.kafka").get("rbac"):
        out.notes.append(f"{path}: platform.kafka.rbac: RBAC role bindings, left out")


def _project(path: Path, out: Imported, parts: list[str], project: Any) -> None:
    pw = line(path, project)
    project = mapping(pw, project, "project")
    name = text(pw, project.get("name"), "project name")
    prefix = SEP.join(parts + [name]) + SEP
    topics = []
    for t in sequence(pw, project.get("topics"), "topics"):
        tw = line(path, t, project)
        t = mapping(tw, t, "topic")
        data_type = _word(tw, t.get("dataType"), "dataType")
        full = prefix + text(tw, t.get("name"), "topic name") + (SEP + data_type if data_type else "")
        topics.append(full)
        _topic_users(path, out, full, t)
    if topics:  # said, never dropped silently (issue 18 new-user pass: "0 topics" and no word why)
        out.notes.append(f"{pw}: project {name}: {len(topics)} topic{'s' * (len(topics) != 1)} ({topics[0]}"
                         f"{', ...' if len(topics) > 1 else ''}) not imported: acls import takes the ACLs "
                         "julie-ops derives from them; a State file's topics: section creates topics")
    for c in sequence(pw, project.get("consumers"), "consumers"):
        _consumer(line(path, c, project), out, c, topics)
    for p in sequence(pw, project.get("producers"), "producers"):
        _producer(line(path, p, project), out, p, topics)
    for s in sequence(pw, project.get("streams"), "streams"):
        sw = line(path, s, project)
        s = mapping(sw, s, "streams")
        app = _word(sw, s.get("applicationId"), "applicationId") or prefix
        rw = mapping(sw, s.get("topics"), "topics")
        who = s.get("principal")
        if not strings(sw, rw.get("read"), "topics.read"):
            raise StateFileError(f"{sw}: streams: topics.read is empty (julie-ops refuses it)")
        _add(out, sw, who, [(T, n, "LITERAL", "READ") for n in strings(sw, rw.get("read"), "topics.read")]
             + [(T, n, "LITERAL", "WRITE") for n in strings(sw, rw.get("write"), "topics.write")]
             + [(T, app, "PREFIXED", "ALL"), (G, app, "PREFIXED", "READ")]
             + ([(X, app, "PREFIXED", "WRITE"), (X, app, "PREFIXED", "DESCRIBE")] if s.get("exactlyOnce") else []))
    connectors = project.get("connectors") or []
    if isinstance(connectors, dict):
        connectors = connectors.get("access_control") or []
    if not isinstance(connectors, list):
        raise StateFileError(f"{pw}: connectors: expected a list, or a mapping with access_control")
    for c in connectors:
        cw = line(path, c, project)
        c = mapping(cw, c, "connector")
        rw = mapping(cw, c.get("topics"), "topics")
        internal = [c.get("status_topic") or "connect-status", c.get("offset_topic") or "connect-offsets",
                    c.get("configs_topic") or "connect-configs"]
        group = _word(cw, c.get("group"), "group") or "connect-cluster"
        # (the worker's own topics are one name each: '*' there is refused, never every topic)
        _add(out, cw, c.get("principal"), [(T, n, "LITERAL", op, False) for n in internal for op in ("READ", "WRITE")]
             + [(C, CLUSTER_NAME, "LITERAL", "CREATE"), (G, group, "LITERAL", "READ")]
             + [(T, n, "LITERAL", "READ") for n in strings(cw, rw.get("read"), "topics.read")]
             + [(T, n, "LITERAL", "WRITE") for n in strings(cw, rw.get("write"), "topics.write")])
    ksql = project.get("ksql") or {}
    if not isinstance(ksql, dict):
        raise StateFileError(f"{pw}: ksql: expected a mapping (access_control, artefacts)")
    for k in sequence(pw, ksql.get("access_control"), "ksql.access_control"):
        kw = line(path, k, project)
        k = mapping(kw, k, "ksql")
        rw = mapping(kw, k.get("topics"), "topics")
        _add(out, kw, k.get("principal"),
             [(T, n, "LITERAL", "READ") for n in strings(kw, rw.get("read"), "topics.read")]
             + [(T, n, "LITERAL", "WRITE") for n in strings(kw, rw.get("write"), "topics.write")]
             + [(T, prefix, "PREFIXED", "ALL"), (G, prefix, "PREFIXED", "ALL")])
    for key in ("rbac", "schemas"):
        if project.get(key):
            out.notes.append(f"{pw}: {key}: RBAC only in julie-ops (no ACLs): left out")


def _topic_users(path: Path, out: Imported, topic: str, t: Any) -> None:
    for c in sequence(line(path, t), t.get("consumers"), "consumers"):
        _consumer(line(path, c, t), out, c, [topic])
    for p in sequence(line(path, t), t.get("producers"), "producers"):
        _producer(line(path, p, t), out, p, [topic])


def _pattern_of(name: str) -> tuple[str, str]:
    """julie-ops: a group or transactional id ending in * (and longer than it) is a prefix."""
    return (name[:-1], "PREFIXED") if name.endswith("*") and len(name) > 1 else (name, "LITERAL")


def _consumer(where: str, out: Imported, c: Any, topics: list[str]) -> None:
    c = mapping(where, c, "consumer")
    given = _word(where, c.get("group"), "group")
    if given is None:
        raise StateFileError(f"{where}: consumer without a group: julie-ops grants it every group ('*'); write "
                             "group: '*' to import that, or the consumer's group")
    group, pattern = _pattern_of(given)
    # a topic here is the one topic the consumer is listed under: never every topic
    _add(out, where, c.get("principal"), [(T, t, "LITERAL", op, False) for t in topics for op in ("DESCRIBE", "READ")]
         + [(G, group, pattern, "READ")])


def _producer(where: str, out: Imported, p: Any, topics: list[str]) -> None:
    p = mapping(where, p, "producer")
    grants: list[Grant] = [(T, t, "LITERAL", op, False) for t in topics for op in ("DESCRIBE", "WRITE")]
    if p.get("transactionId"):
        txn, pattern = _pattern_of(_word(where, p["transactionId"], "transactionId") or "")
        grants += [(X, txn, pattern, "DESCRIBE"), (X, txn, pattern, "WRITE")]
    if p.get("transactionId") or "idempotence" in p:
        grants.append((C, CLUSTER_NAME, "LITERAL", "IDEMPOTENT_WRITE"))
    _add(out, where, p.get("principal"), grants)


def _quota(where: str, out: Imported, q: dict[str, Any]) -> None:
    principal = text(where, q.get("principal"), "principal")
    kind, _, user = principal.partition(":")
    if kind != "User" or not user:
        raise StateFileError(f"{where}: quota principal {principal!r}: a quota applies to a User principal")
    values = {k: q[k] for k in ("producer_byte_rate", "consumer_byte_rate", "request_percentage")
              if q.get(k) is not None}
    for k, v in values.items():
        if isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0:
            raise StateFileError(f"{where}: {k}: {shown(str(v))} is not a number of at least 0")
    if values:
        out.quotas.append({"user": user, "values": values})


def _word(where: str, value: Any, what: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value:
        raise StateFileError(f"{where}: {what}: {shown(str(value))} is not a name")
    return value


def _add(out: Imported, where: str, principal: Any, grants: Sequence[Grant]) -> None:
    """Each grant (type, name, pattern, operation[, whether the name was written as a resource pattern: False for
    a name that is one resource, such as the topic a consumer is listed under]) for the principal as written."""
    for rtype, name, pattern, op, *written in grants:
        out.add(binding(where, principal, rtype, name, pattern, op), where, pattern_written=all(written))
