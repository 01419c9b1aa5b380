"""Consumer groups: listing as KIP-231 defines it, describing both the classic and the KIP-848 protocol."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from kafkactl.acl.bitfield import AuthorizedOps, decode, encode
from kafkactl.acl.model import AclOperation, ResourceType
from kafkactl.errors import KafkactlError, NotFoundError, UsageError
from kafkactl.gateway import Gateway

EMPTY_LIST_HINT = ("no groups listed: listing needs Describe on the CLUSTER (all groups), "
                   "or Describe (or Read) on the groups themselves")


@dataclass(frozen=True)
class GroupListing:
    COLUMNS: ClassVar[tuple[str, ...]] = ("group", "type", "protocol_type", "state")
    group: str
    type: str | None
    protocol_type: str | None
    state: str | None


def list_groups(gw: Gateway) -> list[GroupListing]:
    """The groups the broker lists for the caller: all with Describe on CLUSTER, else those it may describe."""
    seen = {}
    for g in gw.list_groups_raw():
        seen[g.group_id] = GroupListing(g.group_id, g.group_type or None, g.protocol_type or None,
                                        g.group_state or None)
    return [seen[k] for k in sorted(seen)]


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


def describe_groups(gw: Gateway, group_ids: list[str] | None, authorized_operations: bool = False
                    ) -> tuple[list[GroupDescription], list[GroupError]]:
    for gid in group_ids or []:
        if not gid.strip():
            raise UsageError(f"group id {gid!r} is empty")
    if group_ids is None:
        group_ids = [g.group for g in list_groups(gw)]
    if not group_ids:
        return [], []
    found, errors = [], []
    for gid, d in gw.describe_groups(sorted(set(group_ids)), authorized_operations).items():
        if isinstance(d, Exception):
            errors.append(GroupError(gid, gw.translate(d, f"describe group {gid!r}", resource=f"group {gid!r}",
                                                       needs=f"Describe on Group:{gid}")))
            continue
        state = _state(d.state)
        if state == "Dead":
            errors.append(GroupError(gid, NotFoundError(f"group {gid!r} does not exist")))
            continue
        members = tuple(MemberInfo(gid, m.member_id, m.client_id, m.host, tuple(
            f"{tp.topic}-{tp.partition}" for tp in (m.assignment.topic_partitions if m.assignment else [])))
            for m in sorted(d.members, key=lambda m: m.member_id))
        ops = None
        if authorized_operations:
            # librdkafka gives a list (or None when not supplied; a described group always has Describe)
            names = d.authorized_operations
            raw = None if names is None else encode(AclOperation(int(o.value)) for o in names)
            ops = decode(raw, ResourceType.GROUP)
        coordinator = d.coordinator.id if d.coordinator is not None else None
        found.append(GroupDescription(gid, _type(getattr(d, "type", None)), state,
                                      getattr(d, "partition_assignor", None) or None, coordinator, members, ops))
    return sorted(found, key=lambda g: g.group), sorted(errors, key=lambda e: e.group)


# librdkafka's enum names -> the strings the broker itself uses (as ListGroups returns them)
_STATES = {"UNKNOWN": "Unknown", "PREPARING_REBALANCING": "PreparingRebalance", "COMPLETING_REBALANCING":
           "CompletingRebalance", "STABLE": "Stable", "DEAD": "Dead", "EMPTY": "Empty", "ASSIGNING": "Assigning",
           "RECONCILING": "Reconciling"}


def _state(value) -> str | None:
    name = getattr(value, "name", None)
    return None if value is None else _STATES.get(name or "", name or str(value))


def _type(value) -> str | None:
    name = getattr(value, "name", None)
    return None if value is None or name == "UNKNOWN" else (name or str(value)).lower()


def why_empty(gw: Gateway) -> str | None:
    """The hint for an empty group list, given only when it can be the reason: with Describe on the cluster (a
    super user has it) the broker lists every group (KIP-231), so an empty list means there are none."""
    from kafkactl.cluster import describe_cluster

    try:
        ops = describe_cluster(gw, authorized_operations=True).authorized_operations
    except KafkactlError:
        return EMPTY_LIST_HINT
    if ops is not None and ops.supplied and ops.allows(AclOperation.DESCRIBE):
        return None
    return EMPTY_LIST_HINT
