"""acls lint, the checks that look at what is exposed and what it costs (issue 17). Pure.

- public: an ALLOW to User:* (every principal, any type) or to User:ANONYMOUS (every unauthenticated client);
- hot-prefix: a resource pattern carrying so many ACLs that the authorizer walks them all on every request for
  every resource the pattern covers (KAFKA-20667: 7,000 ACLs over 500 topics cost broker CPU on each Metadata);
- dangling: a LITERAL ACL on a topic or group that does not exist (needs the cluster's resources);
- unsecured: an existing topic or group no ACL covers while allow.everyone.if.no.acl.found=true, which lets
  every principal do everything to it (needs the cluster's resources).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence

from kafkactl.acl.authorizer import WILDCARD_PRINCIPAL, Authorizer
from kafkactl.acl.lint import Finding
from kafkactl.acl.model import WILDCARD, AclBinding, PatternType, Permission, ResourceType
from kafkactl.acl.report import covered as covered_names

ANONYMOUS = "User:ANONYMOUS"
HOT_PREFIX_ACLS = 1000  # ACLs on one pattern: a Metadata request listing N covered topics walks N times this many
EXISTING_TYPES = (ResourceType.TOPIC, ResourceType.GROUP)


def exposure(bindings: Sequence[AclBinding], existing: Mapping[ResourceType, Sequence[str]] | None,
             allow_everyone_if_no_acl: bool, hot_threshold: int = HOT_PREFIX_ACLS) -> list[Finding]:
    """The findings; `existing` None (an ACL file read offline) leaves out dangling and unsecured, and counts
    what a hot pattern covers among the names the ACLs themselves use."""
    findings = _public(bindings)
    names = existing if existing is not None else _named(bindings)
    findings += _hot(bindings, names, hot_threshold)
    if existing is not None:
        findings += _dangling(bindings, existing)
        if allow_everyone_if_no_acl:
            findings += _unsecured(bindings, existing)
    return findings


def _public(bindings: Sequence[AclBinding]) -> list[Finding]:
    out = []
    for b in bindings:
        if b.permission is Permission.ALLOW and b.principal in (WILDCARD_PRINCIPAL, ANONYMOUS):
            who = ("every principal, of any type" if b.principal == WILDCARD_PRINCIPAL
                   else "every client that did not authenticate (PLAINTEXT or SSL without a client certificate)")
            out.append(Finding("warning", "public", b.describe(), f"grants {b.operation.name} to {who}", (b,)))
    return out


def _named(bindings: Sequence[AclBinding]) -> dict[ResourceType, list[str]]:
    out: dict[ResourceType, set[str]] = defaultdict(set)
    for b in bindings:
        if b.pattern_type is PatternType.LITERAL and b.resource_name != WILDCARD:
            out[b.resource_type].add(b.resource_name)
    return {t: sorted(n) for t, n in out.items()}


def _hot(bindings: Sequence[AclBinding], names: Mapping[ResourceType, Sequence[str]], threshold: int) -> list[Finding]:
    per_pattern: dict[tuple[ResourceType, PatternType, str], list[AclBinding]] = defaultdict(list)
    for b in bindings:
        per_pattern[(b.resource_type, b.pattern_type, b.resource_name)].append(b)
    out = []
    for (rtype, ptype, name), acls in sorted(per_pattern.items()):
        if len(acls) < threshold:
            continue
        covered = len(covered_names(sorted(set(names.get(rtype, ()))), ptype, name))
        if not covered:
            continue  # it costs nothing until a resource it covers exists
        kind = rtype.name.lower().replace("_", " ")
        out.append(Finding(
            "warning", "hot-prefix", f"{rtype.name}:{name} ({ptype.name})",
            f"{len(acls):,} ACLs on this pattern: the broker's authorizer walks all of them for every request on "
            f"each of the {covered:,} {kind}{'s' if covered != 1 else ''} it covers (a Metadata request listing "
            f"them all: {len(acls) * covered:,} ACL checks); fewer, wider ACLs (a PREFIXED one per team) or fewer "
            "principals (groups of users mapped to one) cut it", tuple(acls[:3])))
    return out


def _dangling(bindings: Sequence[AclBinding], existing: Mapping[ResourceType, Sequence[str]]) -> list[Finding]:
    there = {t: set(existing.get(t, ())) for t in EXISTING_TYPES}
    out = []
    for b in bindings:
        if (b.resource_type in there and b.pattern_type is PatternType.LITERAL and b.resource_name != WILDCARD
                and b.resource_name not in there[b.resource_type]):
            kind = b.resource_type.name.lower()
            out.append(Finding("info", "dangling", b.describe(),
                               f"no {kind} {b.resource_name!r} exists: the ACL waits for one (or outlived it)", (b,)))
    return out


def _unsecured(bindings: Sequence[AclBinding], existing: Mapping[ResourceType, Sequence[str]]) -> list[Finding]:
    az = Authorizer(bindings)
    out = []
    for rtype in EXISTING_TYPES:
        for name in sorted(set(existing.get(rtype, ()))):
            if not az.relevant(rtype, name):
                out.append(Finding("warning", "unsecured", f"{rtype.name}:{name}",
                                   "no ACL covers it and allow.everyone.if.no.acl.found=true: every principal may "
                                   "do everything to it (one ACL for anybody makes it deny-by-default)"))
    return out
