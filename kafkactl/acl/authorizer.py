"""StandardAuthorizer's decision, modelled (KIP-801; kafka-semantics §4). Pure: no I/O.

For (principal, host, operation, resource) and a set of ACL bindings, `super.users` and
`allow.everyone.if.no.acl.found`:
1. a super user (exact "Type:name" in super.users; `User:*` there is not a wildcard) is allowed;
2. the relevant ACLs are those of the resource's type whose pattern covers the name: LITERAL equal, LITERAL
   `*`, or PREFIXED with a prefix of the name (a PREFIXED `*` is only a prefix);
3. none at all (for anybody) -> allow.everyone.if.no.acl.found decides;
4. an ACL applies when its principal is the caller's or `User:*` (any type), its host is `*` or the client's
   IP as Java prints it (CIDR from Kafka 4.4, when enabled), and its operation is ALL, the one asked, or, for
   ALLOW only, one that implies it (READ/WRITE/DELETE/ALTER -> DESCRIBE; ALTER_CONFIGS -> DESCRIBE_CONFIGS);
5. an applying DENY denies; otherwise an applying ALLOW allows; otherwise denied.
Each decision carries the bindings that made it, so kafkactl can say why.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field
from typing import ClassVar, Iterable, Sequence

from kafkactl.acl.model import (SUPPORTED_OPERATIONS, WILDCARD, AclBinding, AclOperation, PatternType, Permission,
                                ResourceType)

Op = AclOperation
WILDCARD_PRINCIPAL = "User:*"
IMPLIES_DESCRIBE = frozenset({Op.DESCRIBE, Op.READ, Op.WRITE, Op.DELETE, Op.ALTER})
IMPLIES_DESCRIBE_CONFIGS = frozenset({Op.DESCRIBE_CONFIGS, Op.ALTER_CONFIGS})

# reasons, stable strings (JSON output)
SUPER_USER = "super-user"
DENY_ACL = "deny-acl"
ALLOW_ACL = "allow-acl"
NO_ACL_DEFAULT = "no-acl-on-resource"
NO_MATCHING_ALLOW = "no-matching-allow"


@dataclass(frozen=True)
class Decision:
    allowed: bool
    reason: str
    deciding: tuple[AclBinding, ...] = ()

    def explain(self) -> str:
        if self.reason == SUPER_USER:
            return "super user (super.users)"
        if self.reason == NO_ACL_DEFAULT:
            return ("no ACL on this resource: allow.everyone.if.no.acl.found="
                    + ("true" if self.allowed else "false"))
        if self.reason == NO_MATCHING_ALLOW:
            return "ACLs exist on this resource, none allows this principal, host and operation"
        kind = "denied by" if self.reason == DENY_ACL else "allowed by"
        return f"{kind} " + "; ".join(b.describe() for b in self.deciding)


def operation_applies(acl_op: AclOperation, permission: Permission, asked: AclOperation) -> bool:
    if acl_op is Op.ALL or acl_op is asked:
        return True
    if permission is not Permission.ALLOW:
        return False  # a DENY READ does not deny DESCRIBE
    if asked is Op.DESCRIBE:
        return acl_op in IMPLIES_DESCRIBE
    if asked is Op.DESCRIBE_CONFIGS:
        return acl_op in IMPLIES_DESCRIBE_CONFIGS
    return False


def principal_applies(acl_principal: str, principal: str) -> bool:
    return acl_principal == principal or acl_principal == WILDCARD_PRINCIPAL


def host_applies(acl_host: str, host: str, cidr: bool = False) -> bool:
    if acl_host == WILDCARD or acl_host == host:
        return True
    if cidr and "/" in acl_host:
        try:
            return ipaddress.ip_address(host) in ipaddress.ip_network(acl_host, strict=False)
        except ValueError:
            return False
    return False


@dataclass
class _TypeIndex:
    literal: dict[str, list[AclBinding]] = field(default_factory=dict)
    prefixed: dict[str, list[AclBinding]] = field(default_factory=dict)


class Authorizer:
    """The model over one ACL set. Indexed by resource, so a decision touches only the relevant ACLs."""

    def __init__(self, bindings: Iterable[AclBinding], super_users: Sequence[str] = (),
                 allow_everyone_if_no_acl: bool = False, cidr_hosts: bool = False) -> None:
        self.super_users = frozenset(super_users)
        self.allow_everyone_if_no_acl = allow_everyone_if_no_acl
        self.cidr_hosts = cidr_hosts
        self._types: dict[ResourceType, _TypeIndex] = {}
        for b in bindings:
            idx = self._types.setdefault(b.resource_type, _TypeIndex())
            if b.pattern_type is PatternType.PREFIXED:
                idx.prefixed.setdefault(b.resource_name, []).append(b)
            elif b.pattern_type is PatternType.LITERAL:
                idx.literal.setdefault(b.resource_name, []).append(b)

    def relevant(self, resource_type: ResourceType, name: str) -> list[AclBinding]:
        """Every ACL whose pattern covers the resource, whoever it is for."""
        idx = self._types.get(resource_type)
        if idx is None:
            return []
        out = list(idx.literal.get(name, ()))
        if name != WILDCARD:
            out += idx.literal.get(WILDCARD, ())
        # covering prefixes are prefixes of the name: one dict lookup per length, not a scan of all prefixes
        for i in range(len(name), 0, -1):
            p = name[:i]
            hits = idx.prefixed.get(p)
            if hits:
                out += hits
        return out

    def authorize(self, principal: str, host: str, operation: AclOperation, resource_type: ResourceType,
                  name: str) -> Decision:
        if principal in self.super_users:
            return Decision(True, SUPER_USER)
        acls = self.relevant(resource_type, name)
        if not acls:
            return Decision(self.allow_everyone_if_no_acl, NO_ACL_DEFAULT)
        applying = [b for b in acls if principal_applies(b.principal, principal)
                    and host_applies(b.host, host, self.cidr_hosts)
                    and operation_applies(b.operation, b.permission, operation)]
        denies = tuple(sorted(b for b in applying if b.permission is Permission.DENY))
        if denies:
            return Decision(False, DENY_ACL, denies)
        allows = tuple(sorted(b for b in applying if b.permission is Permission.ALLOW))
        if allows:
            return Decision(True, ALLOW_ACL, allows)
        return Decision(False, NO_MATCHING_ALLOW)

    def matrix(self, principal: str, host: str, resource_type: ResourceType, name: str
               ) -> dict[AclOperation, Decision]:
        """A decision for every operation the resource type supports (what KIP-430 reports, with reasons)."""
        ops = sorted(SUPPORTED_OPERATIONS[resource_type])
        return {op: self.authorize(principal, host, op, resource_type, name) for op in ops}

    def principals(self) -> set[str]:
        return {b.principal for idx in self._types.values()
                for group in (*idx.literal.values(), *idx.prefixed.values()) for b in group}


@dataclass(frozen=True)
class Check:
    """One decision as kafkactl reports it (acls check, acls explain)."""

    COLUMNS: ClassVar[tuple[str, ...]] = ("principal", "host", "operation", "resource_type", "resource_name",
                                          "decision", "reason", "why")
    principal: str
    host: str
    operation: str
    resource_type: str
    resource_name: str
    decision: str
    reason: str
    why: str

    @classmethod
    def of(cls, principal: str, host: str, op: AclOperation, rtype: ResourceType, name: str, d: Decision) -> "Check":
        return cls(principal, host, op.name, rtype.name, name, "ALLOWED" if d.allowed else "DENIED", d.reason,
                   d.explain())

