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
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import ClassVar

from kafkactl.acl.model import (
    SUPPORTED_OPERATIONS,
    WILDCARD,
    AclBinding,
    AclOperation,
    PatternType,
    Permission,
    ResourceType,
)

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

    def __init__(self, bindings: Iterable[AclBinding], super_users: Iterable[str] = (),
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

    def applying(self, acls: Iterable[AclBinding], principal: str, host: str, operation: AclOperation
                 ) -> tuple[tuple[AclBinding, ...], tuple[AclBinding, ...]]:
        """Of the relevant ACLs, the DENYs and the ALLOWs that apply to this principal, host and operation."""
        applying = [b for b in acls if principal_applies(b.principal, principal)
                    and host_applies(b.host, host, self.cidr_hosts)
                    and operation_applies(b.operation, b.permission, operation)]
        return (tuple(sorted(b for b in applying if b.permission is Permission.DENY)),
                tuple(sorted(b for b in applying if b.permission is Permission.ALLOW)))

    def authorize(self, principal: str, host: str, operation: AclOperation, resource_type: ResourceType,
                  name: str) -> Decision:
        if principal in self.super_users:
            return Decision(True, SUPER_USER)
        acls = self.relevant(resource_type, name)
        if not acls:
            return Decision(self.allow_everyone_if_no_acl, NO_ACL_DEFAULT)
        denies, allows = self.applying(acls, principal, host, operation)
        if denies:
            return Decision(False, DENY_ACL, denies)
        if allows:
            return Decision(True, ALLOW_ACL, allows)
        return Decision(False, NO_MATCHING_ALLOW)

    def authorize_by_resource_type(self, principal: str, host: str, operation: AclOperation,
                                   resource_type: ResourceType) -> bool:
        """Authorizer.authorizeByResourceType as StandardAuthorizer inherits it: may the principal do the
        operation on at least one resource of the type? The broker asks this for InitProducerId without a
        transactional id (KIP-679: Write on any topic stands in for IdempotentWrite on the cluster).

        Its rules differ from authorize(): an invented name ("hardcode") is authorized first, so super users,
        `*` and covering prefixes count; then only ALL or the exact operation applies (no implications); a
        DENY on LITERAL `*` refuses outright; an ALLOW counts unless a DENY on the same literal name or on a
        prefix of its name dominates it."""
        if self.authorize(principal, host, operation, resource_type, "hardcode").allowed:
            return True
        idx = self._types.get(resource_type)
        if idx is None:
            return False
        deny_literal: set[str] = set()
        deny_prefixed: set[str] = set()
        allow: list[tuple[bool, str]] = []
        wildcard_allow = False
        for literal, groups in ((True, idx.literal), (False, idx.prefixed)):
            for name, acls in groups.items():
                for b in acls:
                    if not (principal_applies(b.principal, principal) and b.host in (WILDCARD, host)
                            and b.operation in (operation, Op.ALL)):
                        continue
                    if b.permission is Permission.DENY:
                        if literal and name == WILDCARD:
                            return False
                        (deny_literal if literal else deny_prefixed).add(name)
                    elif b.permission is Permission.ALLOW:
                        if literal and name == WILDCARD:
                            wildcard_allow = True
                        else:
                            allow.append((literal, name))
        if wildcard_allow:
            return True
        for literal, name in allow:
            if literal and name in deny_literal:
                continue
            if not any(name[:i] in deny_prefixed for i in range(1, len(name) + 1)):
                return True
        return False

    def matrix(self, principal: str, host: str, resource_type: ResourceType, name: str
               ) -> dict[AclOperation, Decision]:
        """A decision for every operation the resource type supports (what KIP-430 reports, with reasons)."""
        ops = sorted(SUPPORTED_OPERATIONS[resource_type])
        return {op: self.authorize(principal, host, op, resource_type, name) for op in ops}

    def who_can(self, operation: AclOperation, resource_type: ResourceType, name: str,
                host: str | None = None) -> list[Access]:
        """Who may do the operation on the resource: the super users, each principal an applying ALLOW names
        (and `User:*`, standing for every principal not listed), with the DENYs that block some of them.

        Without a host, "*" stands for a client on a host no ACL names, and a principal's rows for named hosts
        appear only where their decision differs from it."""
        rows = [Access(p, WILDCARD, "ALLOWED", SUPER_USER, Decision(True, SUPER_USER).explain())
                for p in sorted(self.super_users)]
        acls = self.relevant(resource_type, name)
        if not acls:
            if self.allow_everyone_if_no_acl:
                d = Decision(True, NO_ACL_DEFAULT)
                rows.append(Access(WILDCARD_PRINCIPAL, host or WILDCARD, "ALLOWED", d.reason, d.explain()))
            return rows
        named = sorted({b.principal for b in acls if b.principal != WILDCARD_PRINCIPAL
                        and operation_applies(b.operation, b.permission, operation)} - self.super_users)
        hosts = [host] if host is not None else [WILDCARD] + sorted({b.host for b in acls if b.host != WILDCARD})
        for principal in (*named, WILDCARD_PRINCIPAL):
            at_any: Access | None = None
            for h in hosts:
                denies, allows = self.applying(acls, principal, h, operation)
                if not allows:
                    continue  # nothing granted here: a DENY alone blocks nobody
                if denies:
                    why = (Decision(False, DENY_ACL, denies).explain() + " (over "
                           + "; ".join(b.describe() for b in allows) + ")")
                    row = Access(principal, h, "DENIED", DENY_ACL, why)
                else:
                    row = Access(principal, h, "ALLOWED", ALLOW_ACL, Decision(True, ALLOW_ACL, allows).explain())
                if h == WILDCARD and host is None:
                    at_any = row  # hosts[0]: compared with every named host after it
                elif at_any is not None and at_any.decision == row.decision:
                    continue  # what holds from any host holds here too
                rows.append(row)
        return rows


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
    def of(cls, principal: str, host: str, op: AclOperation, rtype: ResourceType, name: str, d: Decision) -> Check:
        return cls(principal, host, op.name, rtype.name, name, "ALLOWED" if d.allowed else "DENIED", d.reason,
                   d.explain())



@dataclass(frozen=True)
class Access:
    """One answer of acls who-can: a principal (User:* = every principal not listed), from a host, and why."""

    COLUMNS: ClassVar[tuple[str, ...]] = ("principal", "host", "decision", "reason", "why")
    principal: str
    host: str
    decision: str
    reason: str
    why: str
