"""`acls why`: each check the broker makes for a request (kafkactl.acl.apis), decided by the authorizer model,
with the command that grants what is missing. Pure: no I/O."""

from __future__ import annotations

import shlex
from dataclasses import replace

from kafkactl.acl.apis import ANY_TOPIC, KIND_TYPES, Check, Why
from kafkactl.acl.authorizer import DENY_ACL, Authorizer, Decision
from kafkactl.acl.model import WILDCARD, AclBinding, AclOperation, PatternType, ResourceType
from kafkactl.acl.presets import under

RESOURCE_OPTIONS = {ResourceType.TOPIC: "--topic", ResourceType.GROUP: "--group",
                    ResourceType.TRANSACTIONAL_ID: "--transactional-id", ResourceType.CLUSTER: "--cluster",
                    ResourceType.DELEGATION_TOKEN: "--delegation-token", ResourceType.USER: "--user-principal"}


CREATE = "kafkactl acls create"
IMPLIED_BY = {AclOperation.DESCRIBE: (AclOperation.READ, AclOperation.WRITE, AclOperation.DELETE, AclOperation.ALTER),
              AclOperation.DESCRIBE_CONFIGS: (AclOperation.ALTER_CONFIGS,)}


def decide(az: Authorizer, principal: str, host: str, checks: list[Check], together: bool = True) -> list[Why]:
    """The rows. `together` (the checks of one client): no grant that another one shown makes needless, since an
    ALLOW of READ (WRITE, DELETE, ALTER) also allows DESCRIBE, ALTER_CONFIGS allows DESCRIBE_CONFIGS, on the same
    resource, and a WRITE on a topic is "WRITE on any topic" (InitProducerId, KIP-679)."""
    rows = [_decide(az, principal, host, c) for c in checks]
    if not together:
        return rows
    granted = {(r.operation, r.resource_type, r.resource_name) for r in rows if r.grant.startswith(CREATE)}
    out = []
    for c, r in zip(checks, rows):
        if r.grant.startswith(CREATE):
            by = next((f"{o.pascal} on {r.resource_type}:{r.resource_name}"
                       for o in IMPLIED_BY.get(AclOperation[r.operation], ())
                       if (o.name, r.resource_type, r.resource_name) in granted), None)
            if by is None and any(kind == ANY_TOPIC for _, kind, _ in c.alternatives):
                by = next((f"Write on TOPIC:{name}" for op, rtype, name in sorted(granted)
                           if op == "WRITE" and rtype == "TOPIC"), None)
            if by is not None:
                r = replace(r, grant=f"(granted with {by})")
        out.append(r)
    return out


def _decide(az: Authorizer, principal: str, host: str, check: Check) -> Why:
    decided: list[tuple[tuple[AclOperation, str, str], Decision | bool]] = []
    for op, kind, name in check.alternatives:
        rtype = KIND_TYPES[kind]
        if kind == ANY_TOPIC:
            decided.append(((op, kind, name), az.authorize_by_resource_type(principal, host, op, rtype)))
        else:  # a prefixed check: asked for a name under the prefix (any one is decided alike by a prefix grant)
            decided.append(((op, kind, name), az.authorize(principal, host, op, rtype,
                                                           under(name, check.prefixed))))
    allowed = [(alt, d) for alt, d in decided if (d if isinstance(d, bool) else d.allowed)]
    # the row names the alternative that allows, else the narrowest one to grant: a named resource over the
    # cluster (CREATE on the topic rather than on the cluster) and over "any topic"
    (op, kind, name), d = allowed[0] if allowed else min(decided, key=lambda x: _breadth(x[0][1]))
    rtype = KIND_TYPES[kind]
    others = [alt for alt, _ in decided if alt != (op, kind, name)]
    why = _why(d)
    if others:
        why += "; " + ("also enough: " if allowed else "or else: ") + ", ".join(_said(o) for o in others)
    if check.note:
        why += f" ({check.note})"
    shown_name = "any" if kind == ANY_TOPIC else f"{name}* (prefixed)" if check.prefixed else name
    return Why("ALLOWED" if allowed else "DENIED", op.name, rtype.name, shown_name,
               ", ".join(check.apis), check.error, why,
               "" if allowed else grant_command(principal, host, op, rtype, name, d, check.prefixed))


def _breadth(kind: str) -> int:
    return {ANY_TOPIC: 2, "cluster": 1}.get(kind, 0)


def _said(alt: tuple[AclOperation, str, str]) -> str:
    op, kind, name = alt
    if kind == ANY_TOPIC:
        return f"{op.name} on any TOPIC"
    return f"{op.name} on {KIND_TYPES[kind].name}:{name}"


def _why(d: Decision | bool) -> str:
    if isinstance(d, bool):
        return ("an ACL allows it on some topic (authorizeByResourceType)" if d
                else "no ACL allows it on any topic, or a DENY covers each that does")
    return d.explain()


def grant_command(principal: str, host: str, op: AclOperation, rtype: ResourceType, name: str,
                  d: Decision | bool, prefixed: bool = False) -> str:
    """The command that makes the check pass: remove the DENYs that refuse it, else create the ALLOW."""
    if not isinstance(d, bool) and d.reason == DENY_ACL:
        return " && ".join(delete_command(b) for b in d.deciding)
    if rtype is ResourceType.CLUSTER:
        where = ["--cluster"]
    elif name == WILDCARD and rtype is ResourceType.TOPIC and isinstance(d, bool):
        where = ["--topic", "TOPIC"]  # any topic: the operator names one
    else:
        where = [RESOURCE_OPTIONS[rtype], name]
    args = ["kafkactl", "acls", "create", "--allow-principal", principal, "--operation", op.pascal, *where]
    if prefixed:
        args += ["--resource-pattern-type", "prefixed"]
    if host != WILDCARD:
        args += ["--allow-host", host]
    return shlex.join(args)


def delete_command(b: AclBinding) -> str:
    flag = "--deny" if b.permission.name == "DENY" else "--allow"
    args = ["kafkactl", "acls", "delete", f"{flag}-principal", b.principal, f"{flag}-host", b.host,
            "--operation", b.operation.pascal]
    args += ["--cluster"] if b.resource_type is ResourceType.CLUSTER else [RESOURCE_OPTIONS[b.resource_type],
                                                                             b.resource_name]
    if b.pattern_type is PatternType.PREFIXED:
        args += ["--resource-pattern-type", "prefixed"]
    return shlex.join(args)
