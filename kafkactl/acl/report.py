"""`acls report`: what one principal can reach among the resources that exist, and who can reach one resource.
Prefixed and `*` ACLs are expanded against what exists, since the question is about resources, not ACLs. Pure."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

from kafkactl.acl.authorizer import Authorizer
from kafkactl.acl.model import CLUSTER_NAME, SUPPORTED_OPERATIONS, WILDCARD, PatternType, ResourceType

REPORTED_TYPES = (ResourceType.TOPIC, ResourceType.GROUP, ResourceType.TRANSACTIONAL_ID, ResourceType.CLUSTER)


@dataclass(frozen=True)
class Reach:
    """One operation a principal may do on one resource, and why."""

    COLUMNS: ClassVar[tuple[str, ...]] = ("resource_type", "resource_name", "operation", "reason", "why")
    resource_type: str
    resource_name: str
    operation: str
    reason: str
    why: str


@dataclass(frozen=True)
class Holder:
    """One principal (and host) for one operation on a resource, allowed or blocked by a DENY, and why."""

    COLUMNS: ClassVar[tuple[str, ...]] = ("operation", "principal", "host", "decision", "reason", "why")
    GROUP_BY: ClassVar[int] = 1
    operation: str
    principal: str
    host: str
    decision: str
    reason: str
    why: str


def covered(sorted_names: Sequence[str], pattern: PatternType, name: str) -> Sequence[str]:
    """The existing names (sorted) a resource pattern covers: the literal name, every name for '*', or the names
    under a prefix (found by bisection, not by a scan)."""
    import bisect

    if pattern is PatternType.LITERAL:
        if name == WILDCARD:
            return sorted_names
        i = bisect.bisect_left(sorted_names, name)
        return sorted_names[i:i + 1] if i < len(sorted_names) and sorted_names[i] == name else []
    return sorted_names[bisect.bisect_left(sorted_names, name):bisect.bisect_left(sorted_names, name + "\U0010ffff")]


def principal_reach(az: Authorizer, principal: str, host: str,
                    existing: Mapping[ResourceType, Sequence[str]]) -> list[Reach]:
    """Every allowed (resource, operation) among the existing resources (and the cluster), by type and name."""
    out = []
    for rtype in REPORTED_TYPES:
        names = (CLUSTER_NAME,) if rtype is ResourceType.CLUSTER else sorted(set(existing.get(rtype, ())))
        for name in names:
            for op, d in az.matrix(principal, host, rtype, name).items():
                if d.allowed:
                    out.append(Reach(rtype.name, name, op.name, d.reason, d.explain()))
    return out


def resource_holders(az: Authorizer, rtype: ResourceType, name: str, host: str | None) -> list[Holder]:
    """For every operation the resource type supports, the principals an ACL (or super.users) lets do it, and
    those a DENY blocks."""
    out = []
    for op in sorted(SUPPORTED_OPERATIONS[rtype]):
        for a in az.who_can(op, rtype, name, host):
            out.append(Holder(op.name, a.principal, a.host, a.decision, a.reason, a.why))
    return out
