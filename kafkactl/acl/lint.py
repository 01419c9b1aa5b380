"""acls lint: findings over an ACL set, judged by StandardAuthorizer's rules (kafka-semantics §2, §4). Pure.

Each check reasons about what an ACL can ever decide, not about how it is spelled:
- redundant: another ACL of the same permission applies to every request this one applies to;
- shadowed: an ALLOW every one of whose requests a DENY refuses;
- deny-removes-nothing: a DENY that no ALLOW overlaps, so it changes no decision today;
- allow-all-on-wildcard, prefixed-wildcard, unsupported-operation, unmatchable-host, principal-type-case,
  super-user-acl: ACLs that grant far more, or far less, than they look like they do;
- write-without-idempotent-write, transactional-id-without-write, transactional-without-topic-write:
  producer ACL sets judged by the RPCs a producer sends (KafkaApis: InitProducerId, Produce).
"""

from __future__ import annotations

import bisect
import functools
import ipaddress
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from kafkactl.acl.authorizer import IMPLIES_DESCRIBE, IMPLIES_DESCRIBE_CONFIGS, WILDCARD_PRINCIPAL, Authorizer
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
L, P = PatternType.LITERAL, PatternType.PREFIXED
SEVERITIES = ("error", "warning", "info")  # most severe first
# an ACL pattern: resource type, pattern type, resource name
Key = tuple[ResourceType, PatternType, str]


@dataclass(frozen=True)
class Finding:
    COLUMNS: ClassVar[tuple[str, ...]] = ("severity", "check", "subject", "message")
    severity: str
    check: str
    subject: str  # the ACL (described) or the principal the finding is about
    message: str
    acls: tuple[AclBinding, ...] = ()  # the ACLs concerned (JSON/YAML only)

    def rank(self) -> int:
        return SEVERITIES.index(self.severity)

    def to_json(self) -> dict[str, Any]:
        return {"severity": self.severity, "check": self.check, "subject": self.subject, "message": self.message,
                "acls": [b.to_json() for b in self.acls]}


def effective_ops(b: AclBinding) -> frozenset[AclOperation]:
    """The operations of its resource type an ACL applies to when they are asked (implications for ALLOW)."""
    return _effective(b.resource_type, b.operation, b.permission)


@functools.cache
def _effective(rtype: ResourceType, op: AclOperation, permission: Permission) -> frozenset[AclOperation]:
    supported = SUPPORTED_OPERATIONS.get(rtype, frozenset())
    if op is Op.ALL:
        return supported
    ops = {op}
    if permission is Permission.ALLOW:
        if op in IMPLIES_DESCRIBE:
            ops.add(Op.DESCRIBE)
        if op in IMPLIES_DESCRIBE_CONFIGS:
            ops.add(Op.DESCRIBE_CONFIGS)
    return frozenset(ops) & supported


def java_host(host: str) -> str | None:
    """The host as the broker compares it (InetAddress.getHostAddress), or None if it is not an address."""
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return None
    if ip.version == 4:
        return str(ip)
    return ":".join(format(int(g, 16), "x") for g in ip.exploded.split(":"))


class _Index:
    """ACLs by resource type and pattern, each pattern's ACLs by principal, with sorted names for prefix ranges."""

    def __init__(self, bindings: Iterable[AclBinding]) -> None:
        self.groups: dict[Key, dict[str, list[AclBinding]]] = {}
        for b in bindings:
            if b.pattern_type is L or b.pattern_type is P:
                key = (b.resource_type, b.pattern_type, b.resource_name)
                by_principal = self.groups.get(key)
                if by_principal is None:
                    by_principal = self.groups[key] = {}
                acls = by_principal.get(b.principal)
                if acls is None:
                    by_principal[b.principal] = [b]
                else:
                    acls.append(b)
        self.names: dict[tuple[ResourceType, PatternType], list[str]] = defaultdict(list)
        for rtype, pt, name in self.groups:
            self.names[(rtype, pt)].append(name)
        for v in self.names.values():
            v.sort()
        self.prefix_lengths = {k: sorted({len(n) for n in v}) for k, v in self.names.items() if k[1] is P}

    def _prefixes(self, rtype: ResourceType, name: str, proper: bool = False) -> Iterator[Key]:
        for n in self.prefix_lengths.get((rtype, P), ()):
            if n > len(name) or (proper and n == len(name)):
                break
            key = (rtype, P, name[:n])
            if key in self.groups:
                yield key

    def _starting_with(self, rtype: ResourceType, pt: PatternType, prefix: str) -> Iterator[Key]:
        names = self.names.get((rtype, pt), [])
        i = bisect.bisect_left(names, prefix)
        while i < len(names) and names[i].startswith(prefix):
            yield (rtype, pt, names[i])
            i += 1

    def covering(self, rtype: ResourceType, pt: PatternType, name: str) -> list[Key]:
        """Patterns relevant to every resource this pattern is relevant to (itself included)."""
        keys = [(rtype, L, WILDCARD)]
        if pt is L and name != WILDCARD:
            keys.append((rtype, L, name))
            keys += self._prefixes(rtype, name)
        elif pt is P:
            keys += self._prefixes(rtype, name)
        return [k for k in keys if k in self.groups]

    def overlapping(self, rtype: ResourceType, pt: PatternType, name: str) -> list[Key]:
        """Patterns relevant to at least one resource this pattern is relevant to."""
        if pt is L and name == WILDCARD:
            return [k for k in self.groups if k[0] is rtype]
        keys = set(self.covering(rtype, pt, name))
        if pt is P:
            keys.update(self._starting_with(rtype, L, name))
            keys.update(self._starting_with(rtype, P, name))
        return [k for k in keys if k in self.groups]

    def acls(self, key: Key, principal: str | None = None) -> list[AclBinding]:
        by_principal = self.groups[key]
        if principal is None:
            return [b for group in by_principal.values() for b in group]
        if principal == WILDCARD_PRINCIPAL:
            return list(by_principal.get(principal, ()))
        return [*by_principal.get(principal, ()), *by_principal.get(WILDCARD_PRINCIPAL, ())]


def _hosts_overlap(a: str, b: str) -> bool:
    return a == WILDCARD or b == WILDCARD or a == b or "/" in a or "/" in b  # CIDR: conservatively overlapping


def _principals_overlap(a: str, b: str) -> bool:
    return a == b or a == WILDCARD_PRINCIPAL or b == WILDCARD_PRINCIPAL


def lint(bindings: Sequence[AclBinding], super_users: Sequence[str] = (), allow_everyone_if_no_acl: bool = False,
         cidr_hosts: bool = False) -> list[Finding]:
    """Every finding, most severe first, then by check and subject. `bindings` holds each ACL once."""
    bindings = list(dict.fromkeys(bindings))
    supers = frozenset(super_users)
    index = _Index(bindings)
    findings: list[Finding] = []
    for b in bindings:
        # the common ACL (any host, a supported operation, a plain name, an ordinary principal) has nothing to say
        if (b.host != WILDCARD or b.principal in supers or b.resource_name.startswith(WILDCARD)
                or b.operation not in SUPPORTED_OPERATIONS.get(b.resource_type, ()) or b.operation is Op.ALL
                or b.principal[:5].lower() == "user:" and not b.principal.startswith("User:")):
            findings += _spelling(b, supers, cidr_hosts)
    findings += _redundant_and_shadowed(index, supers)
    if not allow_everyone_if_no_acl:  # otherwise any ACL flips its resources to deny-by-default
        findings += _idle_denies(bindings, index, supers)
    findings += _producers(bindings, supers, allow_everyone_if_no_acl, cidr_hosts)
    findings.sort(key=lambda f: (f.rank(), f.check, f.subject))
    return findings


def _finding(severity: str, check: str, b: AclBinding, message: str, *others: AclBinding) -> Finding:
    return Finding(severity, check, b.describe(), message, (b, *others))


def _spelling(b: AclBinding, supers: frozenset[str], cidr_hosts: bool) -> list[Finding]:
    out = []
    if b.permission is Permission.ALLOW and b.operation is Op.ALL and b.pattern_type is L and (
            b.resource_name == WILDCARD or b.resource_type is ResourceType.CLUSTER):
        everyone = b.principal == WILDCARD_PRINCIPAL
        what = "the cluster" if b.resource_type is ResourceType.CLUSTER else f"every {b.resource_type.name}"
        out.append(_finding("error" if everyone else "warning", "allow-all-on-wildcard", b,
                            f"{'every principal' if everyone else b.principal} may do everything on {what}"))
    if b.pattern_type is P and b.resource_name.startswith(WILDCARD):
        out.append(_finding("warning", "prefixed-wildcard", b,
                            f"PREFIXED {b.resource_name!r} matches only names that begin with {b.resource_name!r}; "
                            "every name is LITERAL *"))
    supported = SUPPORTED_OPERATIONS.get(b.resource_type, frozenset())
    if b.operation is not Op.ALL and b.operation not in supported:
        eff = effective_ops(b)
        tail = (f"as an ALLOW it still grants {', '.join(o.name for o in sorted(eff))}" if eff
                else "it has no effect")
        out.append(_finding("warning", "unsupported-operation", b,
                            f"{b.resource_type.name} has no {b.operation.name} operation (kafka-acls.sh refuses it, "
                            f"the broker stores it); {tail}"))
    out += _host_findings(b, cidr_hosts)
    ptype, _, _ = b.principal.partition(":")
    if ptype != "User" and ptype.lower() == "user":
        out.append(_finding("warning", "principal-type-case", b,
                            f"principal types are case-sensitive: {ptype}: never matches User: principals"))
    if b.principal in supers:
        out.append(_finding("warning" if b.permission is Permission.DENY else "info", "super-user-acl", b,
                            f"{b.principal} is a super user: ACLs never decide its requests"))
    return out


def spelling_warnings(bindings: Iterable[AclBinding], cidr_hosts: bool = False) -> list[str]:
    """What lint says of how new bindings are spelt, once per host and principal: a host that never matches, a
    principal type in the wrong case (acls create warns with these before it sends anything)."""
    out: dict[str, None] = {}
    for b in bindings:
        for f in _host_findings(b, cidr_hosts):
            out[f.message] = None
        ptype = b.principal.partition(":")[0]
        if ptype != "User" and ptype.lower() == "user":
            out[f"principal {b.principal}: principal types are case-sensitive: {ptype}: never matches User: "
                "principals"] = None
    return list(out)


def _host_findings(b: AclBinding, cidr_hosts: bool) -> list[Finding]:
    h = b.host
    if h == WILDCARD:
        return []
    if "/" in h:
        try:
            ipaddress.ip_network(h, strict=False)
        except ValueError:
            return [_finding("warning", "unmatchable-host", b, f"host {h!r} is neither an address nor a CIDR range")]
        if cidr_hosts:
            return []
        return [_finding("warning", "unmatchable-host", b,
                         f"host {h!r} is a CIDR range: brokers before Kafka 4.4 compare hosts as strings, so it "
                         "never matches (--cidr-hosts for 4.4 and later)")]
    java = java_host(h)
    if java is None:
        return [_finding("warning", "unmatchable-host", b,
                         f"host {h!r} is not an IP address: the broker compares the client's IP, never a name")]
    if java != h:
        return [_finding("warning", "unmatchable-host", b,
                         f"host {h!r} never matches: the broker compares the address as Java prints it ({java})")]
    return []


def _redundant_and_shadowed(index: _Index, supers: frozenset[str]) -> list[Finding]:
    out = []
    for key, by_principal in index.groups.items():
        covering = index.covering(*key)
        if len(covering) == 1 and len(by_principal) == 1 and len(next(iter(by_principal.values()))) == 1:
            continue  # one ACL alone on its pattern: nothing can cover it
        for principal, acls in by_principal.items():
            if principal in supers:
                continue  # reported as super-user-acl
            wider_all = [b for k in covering for b in index.acls(k, principal)]
            for a in acls:
                eff_a = effective_ops(a)
                if not eff_a:
                    continue  # reported as unsupported-operation
                wider = [b for b in wider_all if b is not a and (b.host == WILDCARD or b.host == a.host)]
                same = [b for b in wider if b.permission is a.permission and eff_a <= effective_ops(b)
                        and not (_mutual(a, b) and effective_ops(b) <= eff_a and a < b)]
                if same:
                    out.append(_finding("info", "redundant", a, "every request it applies to, "
                                        + same[0].describe() + " also applies to: removing it changes nothing",
                                        same[0]))
                if a.permission is Permission.ALLOW:
                    denies = [d for d in wider if d.permission is Permission.DENY and eff_a <= _deny_ops(d)]
                    if denies:
                        out.append(_finding("warning", "shadowed", a, f"never grants anything: "
                                            f"{denies[0].describe()} refuses every request it would allow", denies[0]))
    return out


def _mutual(a: AclBinding, b: AclBinding) -> bool:
    """Each covers the other (same pattern, principal and host): only one of the pair is reported."""
    return a.resource == b.resource and a.principal == b.principal and a.host == b.host


def _deny_ops(d: AclBinding) -> frozenset[AclOperation]:
    return SUPPORTED_OPERATIONS.get(d.resource_type, frozenset()) if d.operation is Op.ALL else frozenset({d.operation})


def _idle_denies(bindings: Sequence[AclBinding], index: _Index, supers: frozenset[str]) -> list[Finding]:
    out = []
    for d in bindings:
        if d.permission is not Permission.DENY or d.principal in supers:
            continue
        ops = _deny_ops(d)
        if not ops & SUPPORTED_OPERATIONS.get(d.resource_type, frozenset()):
            continue  # reported as unsupported-operation
        overlapping = index.overlapping(d.resource_type, d.pattern_type, d.resource_name)
        principal = None if d.principal == WILDCARD_PRINCIPAL else d.principal
        if not any(a.permission is Permission.ALLOW and a.principal not in supers
                   and _principals_overlap(a.principal, d.principal)
                   and _hosts_overlap(a.host, d.host) and effective_ops(a) & ops
                   for k in overlapping for a in index.acls(k, principal)):
            out.append(_finding("info", "deny-removes-nothing", d,
                                "no ALLOW overlaps it (principal, host, operation, resource), so it changes no decision"
                                " today"))
    return out


def _producers(bindings: Sequence[AclBinding], supers: frozenset[str], allow_everyone_if_no_acl: bool,
               cidr_hosts: bool) -> list[Finding]:
    out = []
    # each question below concerns one principal: only its own and User:*'s cluster and topic ACLs can answer it
    mine: dict[tuple[ResourceType, str], list[AclBinding]] = defaultdict(list)
    for b in bindings:
        if b.resource_type in (ResourceType.CLUSTER, ResourceType.TOPIC):
            mine[(b.resource_type, b.principal)].append(b)

    def authorizer(rtype: ResourceType, p: str) -> Authorizer:
        acls = mine.get((rtype, p), [])
        if p != WILDCARD_PRINCIPAL:
            acls = [*acls, *mine.get((rtype, WILDCARD_PRINCIPAL), ())]
        return Authorizer(acls, super_users=supers, cidr_hosts=cidr_hosts)

    writers = sorted({b.principal for b in bindings if b.resource_type is ResourceType.TOPIC
                      and b.permission is Permission.ALLOW and b.operation in (Op.WRITE, Op.ALL)} - supers)
    probe = Authorizer((), cidr_hosts=cidr_hosts)
    cluster_has_acls = any(k[0] is ResourceType.CLUSTER for k in mine)

    def idempotent(p: str) -> bool:  # authorize(p, *, IdempotentWrite, the cluster) over p's and User:*'s ACLs
        if not cluster_has_acls:
            return allow_everyone_if_no_acl
        acls = [*mine.get((ResourceType.CLUSTER, p), ()), *mine.get((ResourceType.CLUSTER, WILDCARD_PRINCIPAL), ())]
        denies, allows = probe.applying(acls, p, WILDCARD, Op.IDEMPOTENT_WRITE)
        return bool(allows) and not denies

    for p in writers:
        if not idempotent(p):
            out.append(Finding("info", "write-without-idempotent-write", p,
                               "may Write to topics without IdempotentWrite on the cluster: enough for idempotent "
                               "producers on Kafka 2.8 and later (KIP-679: InitProducerId accepts Write on any "
                               "topic); older brokers refuse them"))
    txn: dict[str, list[AclBinding]] = defaultdict(list)
    for b in bindings:
        if b.resource_type is ResourceType.TRANSACTIONAL_ID and b.permission is Permission.ALLOW:
            txn[b.principal].append(b)
    for p, acls in sorted(txn.items()):
        if p in supers:
            continue
        if not any(b.operation in (Op.WRITE, Op.ALL) for b in acls):
            out.append(Finding("warning", "transactional-id-without-write", p,
                               "has transactional-id ACLs but no Write on any: InitProducerId, Produce and EndTxn "
                               "with a transactional.id need Write on it", tuple(acls)))
        elif not authorizer(ResourceType.TOPIC, p).authorize_by_resource_type(p, WILDCARD, Op.WRITE,
                                                                              ResourceType.TOPIC):
            out.append(Finding("warning", "transactional-without-topic-write", p,
                               "may Write a transactional id but no topic: its transactions can hold no records",
                               tuple(acls)))
    return out


def at_least(findings: Iterable[Finding], severity: str) -> list[Finding]:
    limit = SEVERITIES.index(severity)
    return [f for f in findings if f.rank() <= limit]
