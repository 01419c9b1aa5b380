"""kafka-gitops state YAML: the ACLs its services (application, kafka-streams, kafka-connect), user roles (reader,
writer, operator) and custom ACLs make, and its topics (partitions, replication, configs) as State topics."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kafkactl.acl.model import CLUSTER_NAME, Permission, ResourceType
from kafkactl.desired.interop import Imported
from kafkactl.desired.interop.common import binding, document, line, mapping, strings, text
from kafkactl.errors import StateFileError
from kafkactl.limits import shown

T, G, C = ResourceType.TOPIC, ResourceType.GROUP, ResourceType.CLUSTER
ROLES = {"reader": [(T, "*", "READ"), (G, "*", "READ")], "writer": [(T, "*", "WRITE")],
         "operator": [(C, CLUSTER_NAME, "DESCRIBE"), (T, "*", "DESCRIBE"), (T, "*", "DESCRIBE_CONFIGS"),
                      (G, "*", "READ"), (G, "*", "DESCRIBE")]}
STREAMS_TOPIC_OPS = ("READ", "WRITE", "DESCRIBE", "DELETE", "CREATE", "ALTER", "ALTER_CONFIGS", "DESCRIBE_CONFIGS")


def read_gitops(path: Path, out: Imported) -> None:
    doc = document(path)
    where = line(path, doc)
    settings = mapping(where, doc.get("settings"), "settings")
    if mapping(where, settings.get("ccloud"), "settings.ccloud").get("enabled"):
        raise StateFileError(f"{where}: settings.ccloud.enabled: Confluent Cloud service accounts are looked up by "
                             "kafka-gitops at run time; their principals are not in the file")
    if settings.get("files"):
        out.notes.append(f"{where}: settings.files: the files it names are not read; give them as more FILE "
                         "arguments")
    describe = bool(mapping(where, mapping(where, settings.get("services"), "settings.services").get("acls"),
                            "settings.services.acls").get("describeTopicEnabled"))
    for name, t in mapping(where, doc.get("topics"), "topics").items():
        out.topics.append(_topic(path, doc, name, t))
    for name, s in mapping(where, doc.get("services"), "services").items():
        _service(path, out, str(name), s, describe)
    for name, u in mapping(where, doc.get("users"), "users").items():
        _user_roles(path, doc, out, name, u)
    for section, owners in (("customServiceAcls", doc.get("services") or {}),
                            ("customUserAcls", doc.get("users") or {})):
        for owner, acls in mapping(where, doc.get(section), section).items():
            for label, a in mapping(where, acls, f"{section}.{owner}").items():
                _custom_acl(path, doc, out, section, owners, owner, label, a)


def _topic(path: Path, doc: Any, name: str, t: Any) -> dict[str, Any]:
    """A kafka-gitops topic as a State topic: partitions, replication factor and configs."""
    tw = line(path, t, doc)
    t = mapping(tw, t, f"topics.{name}")
    for key, top in (("partitions", 100000), ("replication", 10000)):
        v = t.get(key)
        if (v is not None or key == "partitions") and (isinstance(v, bool) or not isinstance(v, int)
                                                        or not 1 <= v <= top):
            raise StateFileError(f"{tw}: topics.{name}.{key}: {shown(str(v))} is not a number from 1 to {top:,}")
    entry: dict[str, Any] = {"name": str(name), "partitions": t["partitions"]}
    if t.get("replication") is not None:
        entry["replicationFactor"] = t["replication"]
    if t.get("configs"):
        configs = mapping(tw, t["configs"], "configs")
        bad = [k for k, v in configs.items() if isinstance(v, (dict, list)) or v is None]
        if bad:
            raise StateFileError(f"{tw}: topics.{name}.configs.{bad[0]}: expected a value")
        entry["configs"] = {str(k): str(v).lower() if isinstance(v, bool) else str(v) for k, v in configs.items()}
    return entry


def _user_roles(path: Path, doc: Any, out: Imported, name: str, u: Any) -> None:
    """The ACLs of a user's roles (reader, writer, operator)."""
    uw = line(path, u, doc)
    u = mapping(uw, u, f"users.{name}")
    for role in strings(uw, u.get("roles"), "roles"):
        grants = ROLES.get(role.lower())
        if grants is None:
            raise StateFileError(f"{uw}: users.{name}.roles: {role!r} is not reader, writer or operator")
        for rtype, rname, op in grants:
            out.add(binding(uw, u.get("principal"), rtype, rname, "LITERAL", op), uw)


def _custom_acl(path: Path, doc: Any, out: Imported, section: str, owners: Any, owner: str, label: str, a: Any
                ) -> None:
    """One ACL of customServiceAcls or customUserAcls; a user's ACL without a principal takes the user's."""
    aw = line(path, a, doc)
    a = mapping(aw, a, f"{section}.{owner}.{label}")
    principal = a.get("principal")
    if principal is None and section == "customUserAcls":
        principal = mapping(aw, owners.get(owner), owner).get("principal")
    if principal is None:
        raise StateFileError(f"{aw}: {section}.{owner}.{label}.principal: missing")
    pattern = str(a.get("pattern") or "")
    if pattern.upper() not in ("LITERAL", "PREFIXED"):
        raise StateFileError(f"{aw}: {section}.{owner}.{label}.pattern: {pattern!r} is not LITERAL or "
                             "PREFIXED")
    perm = str(a.get("permission") or "ALLOW").upper()
    if perm not in ("ALLOW", "DENY"):
        raise StateFileError(f"{aw}: {section}.{owner}.{label}.permission: {perm!r} is not ALLOW or DENY")
    rtype = _type(aw, a.get("type"))
    host = a.get("host") or "*"
    if not isinstance(host, str):
        raise StateFileError(f"{aw}: {section}.{owner}.{label}.host: expected one host")
    out.add(binding(aw, principal, rtype, a.get("name"), pattern, str(a.get("operation")),
                    Permission[perm], host), aw)


def _type(where: str, value: Any) -> ResourceType:
    try:
        rtype = ResourceType[str(value)]
    except KeyError:
        rtype = None
    if rtype in (None, ResourceType.ANY, ResourceType.UNKNOWN):
        raise StateFileError(f"{where}: type: {value!r} is not a resource type (TOPIC, GROUP, CLUSTER, "
                             "TRANSACTIONAL_ID, DELEGATION_TOKEN, USER)")
    assert rtype is not None
    return rtype


def _service(path: Path, out: Imported, name: str, s: Any, describe: bool) -> None:
    sw = line(path, s)
    s = mapping(sw, s, f"services.{name}")
    kind = s.get("type")
    who = s.get("principal")
    produces, consumes = strings(sw, s.get("produces"), "produces"), strings(sw, s.get("consumes"), "consumes")
    grants: list[tuple[Any, ...]] = [(T, t, "LITERAL", "WRITE") for t in produces] + [(T, t, "LITERAL", "READ")
                                                                                      for t in consumes]
    if describe:
        grants += [(T, t, "LITERAL", "DESCRIBE") for t in dict.fromkeys(produces + consumes)]
    # (a 5th element False: the name is one resource (a group, a worker's topic), never every one: breadth.py)
    if kind == "application":
        if consumes:
            grants.append((G, s.get("group-id") or name, "LITERAL", "READ", False))
    elif kind == "kafka-streams":
        app = s.get("application-id") or name
        one = isinstance(app, str) and app not in ("", "*")  # the prefix is made from one name: kafka-gitops' own
        grants += [(T, app, "PREFIXED", op, one) for op in STREAMS_TOPIC_OPS]
        grants += [(G, app, "LITERAL", op, False) for op in ("READ", "DESCRIBE", "DELETE")]
        grants.append((C, CLUSTER_NAME, "LITERAL", "DESCRIBE_CONFIGS"))
    elif kind == "kafka-connect":
        grants = [(T, t, "LITERAL", "WRITE") for t in produces]
        grants += [(T, t, "LITERAL", "DESCRIBE") for t in produces if describe]
        storage = mapping(sw, s.get("storage-topics"), "storage-topics")
        for key, default in (("config", "connect-configs"), ("offset", "connect-offsets"),
                             ("status", "connect-status")):
            topic = storage.get(key) or f"{default}-{name}"
            grants += [(T, topic, "LITERAL", "READ", False), (T, topic, "LITERAL", "WRITE", False)]
        grants.append((G, s.get("group-id") or name, "LITERAL", "READ", False))
        for cname, c in mapping(sw, s.get("connectors"), "connectors").items():
            cw = line(path, c, s)
            c = mapping(cw, c, f"connectors.{cname}")
            cp, cc = strings(cw, c.get("produces"), "produces"), strings(cw, c.get("consumes"), "consumes")
            grants += [(T, t, "LITERAL", "WRITE") for t in cp] + [(T, t, "LITERAL", "READ") for t in cc]
            if describe:
                grants += [(T, t, "LITERAL", "DESCRIBE") for t in dict.fromkeys(cp + cc)]
            if cc:
                grants.append((G, f"connect-{cname}", "LITERAL", "READ", False))
    else:
        raise StateFileError(f"{sw}: services.{name}.type: {kind!r} is not application, kafka-streams or "
                             "kafka-connect")
    text(sw, who, f"services.{name}.principal")
    for rtype, rname, pattern, op, *written in grants:
        out.add(binding(sw, who, rtype, rname, pattern, op), sw, pattern_written=all(written))
