"""Consumer groups: listing as KIP-231 defines it, describing both the classic and the KIP-848 protocol."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from kafkactl.acl.bitfield import AuthorizedOps, decode
from kafkactl.acl.model import AclOperation, ResourceType
from kafkactl.errors import KafkactlError, NotFoundError, PartialAnswer, PartialFailure, UsageError
from kafkactl.gateway import ErrorInfo, Gateway, ListedGroup

EMPTY_LIST_HINT = ("no groups listed: listing needs Describe on the CLUSTER (all groups), "
                   "or Describe (or Read) on the groups themselves")


@dataclass(frozen=True)
class GroupListing:
    COLUMNS: ClassVar[tuple[str, ...]] = ("group", "type", "protocol_type", "state")
    group: str
    type: str | None
    protocol_type: str | None
    state: str | None


def list_groups(gw: Gateway, partial: bool = False) -> list[GroupListing]:
    """The groups the broker lists for the caller: all with Describe on CLUSTER, else those it may describe.
    `partial`: when some brokers do not answer, fail with PartialFailure whose result lists the groups the others
    coordinate (otherwise, with their UnreachableError)."""

    def listings(found: list[ListedGroup]) -> list[GroupListing]:
        seen = {g.group_id: GroupListing(g.group_id, g.type, g.protocol_type, g.state) for g in found}
        return [seen[k] for k in sorted(seen)]

    try:
        return listings(gw.list_groups())
    except PartialAnswer as exc:
        if not partial:
            raise
        raise PartialFailure(exc.message, result=listings(exc.partial)) from None  # type: ignore[arg-type]


@dataclass(frozen=True)
class MemberInfo:
    COLUMNS: ClassVar[tuple[str, ...]] = ("group", "member_id", "client_id", "host", "assignment")
    group: str
    member_id: str
    client_id: str
    host: str
    assignment: tuple[str, ...]


@dataclass(frozen=True)
class GroupDescription:
    COLUMNS: ClassVar[tuple[str, ...]] = ("group", "type", "state", "protocol", "coordinator", "members")
    ROWS: ClassVar[str] = "member_list"
    group: str
    type: str | None
    state: str | None
    protocol: str | None  # the assignor
    coordinator: int | None
    member_list: tuple[MemberInfo, ...]
    authorized_operations: AuthorizedOps | None = None

    @property
    def members(self) -> int:
        return len(self.member_list)


@dataclass(frozen=True)
class GroupError:
    group: str
    error: KafkactlError


# the group types DescribeGroups and ConsumerGroupDescribe answer for (ListGroups v5+ names them; an older broker
# names none, and has only these); share (KIP-932) and streams (KIP-1071) groups have describe APIs of their own
CONSUMER_TYPES = frozenset({"classic", "consumer"})


def _not_consumer(g: GroupListing) -> str | None:
    """What a listed group is when it is not a consumer group: its type (share, streams), or for a classic group
    its protocol type (a Connect worker's group is "connect"); None for a consumer group."""
    if g.type is not None and g.type.lower() not in CONSUMER_TYPES:
        return g.type.lower()
    if g.protocol_type and g.protocol_type != "consumer":
        return g.protocol_type
    return None


def describe_groups(gw: Gateway, group_ids: list[str] | None, authorized_operations: bool = False,
                    skipped: dict[str, list[str]] | None = None) -> tuple[list[GroupDescription], list[GroupError]]:
    """The groups named, or every consumer group listed (`skipped`, when given, gets the listed groups of other
    types, which a consumer group's describe would call missing)."""
    for gid in group_ids or []:
        if not gid.strip():
            raise UsageError(f"group id {gid!r} is empty")
    types: dict[str, str] | None = None  # group -> its listed type, read when a named group is not a consumer group
    if group_ids is None:
        group_ids = []
        for g in list_groups(gw):
            kind = _not_consumer(g)
            if kind is None:
                group_ids.append(g.group)
            elif skipped is not None:
                skipped.setdefault(kind, []).append(g.group)
    if not group_ids:
        return [], []
    found, errors = [], []
    for gid, d in gw.describe_groups(sorted(set(group_ids)), authorized_operations).items():
        if isinstance(d, ErrorInfo):
            errors.append(GroupError(gid, gw.item_error(d, f"describe group {gid!r}", resource=f"group {gid!r}",
                                                        needs=f"Describe on Group:{gid}")))
            continue
        if d.state == "Dead":
            if types is None:
                types = {g.group: (g.type or "").lower() for g in list_groups(gw)}
            kind = types.get(gid, "")
            errors.append(GroupError(gid, NotFoundError(
                f"group {gid!r} is a {kind} group: kafkactl describes consumer groups (classic, consumer)"
                if kind and kind not in CONSUMER_TYPES else f"group {gid!r} does not exist")))
            continue
        members = tuple(MemberInfo(gid, m.member_id, m.client_id, m.host,
                                   tuple(f"{topic}-{partition}" for topic, partition in m.assignment))
                        for m in d.members)
        ops = decode(d.authorized_operations, ResourceType.GROUP) if authorized_operations else None
        found.append(GroupDescription(gid, d.type, d.state, d.assignor, d.coordinator, members, ops))
    return sorted(found, key=lambda g: g.group), sorted(errors, key=lambda e: e.group)


def why_empty(gw: Gateway) -> str | None:
    """The hint for an empty group list, given only when it can be the reason (see empty_list_hint)."""
    from kafkactl.describe.cluster import describe_cluster

    try:
        ops = describe_cluster(gw, authorized_operations=True).authorized_operations
    except KafkactlError:
        return EMPTY_LIST_HINT
    return empty_list_hint(ops)


def empty_list_hint(cluster_ops: AuthorizedOps | None) -> str | None:
    """With Describe on the cluster (a super user has it) the broker lists every group (KIP-231), so an empty list
    means there are none; without it, or when the broker did not say, the hint can be the reason."""
    if cluster_ops is not None and cluster_ops.supplied and cluster_ops.allows(AclOperation.DESCRIBE):
        return None
    return EMPTY_LIST_HINT
