"""kafkactl's own records of what the cluster answers (no client library's shapes leave the gateway)."""

from __future__ import annotations

from dataclasses import dataclass

from kafkactl.gateway._base import ErrorInfo


@dataclass(frozen=True)
class NodeRecord:
    id: int
    host: str
    port: int
    rack: str | None


@dataclass(frozen=True)
class ClusterRecord:
    cluster_id: str | None
    controller_id: int | None
    nodes: tuple[NodeRecord, ...]
    authorized_operations: int | None  # the raw KIP-430 bitfield; None when it was not asked for


@dataclass(frozen=True)
class PartitionRecord:
    partition: int
    leader: int | None
    replicas: tuple[int, ...]
    isr: tuple[int, ...]
    offline: tuple[int, ...]


@dataclass(frozen=True)
class TopicRecord:
    name: str
    topic_id: str | None
    internal: bool
    partitions: tuple[PartitionRecord, ...]
    authorized_operations: int | None  # the raw KIP-430 bitfield; None when it was not asked for
    error: ErrorInfo | None = None


@dataclass(frozen=True)
class ListedGroup:
    """A group as ListGroups reports it."""

    group_id: str
    type: str | None
    protocol_type: str | None
    state: str | None


@dataclass(frozen=True)
class MemberRecord:
    member_id: str
    client_id: str
    host: str
    assignment: tuple[tuple[str, int], ...]  # (topic, partition)


@dataclass(frozen=True)
class GroupRecord:
    group_id: str
    type: str | None  # classic | consumer | share, as the broker names it
    state: str | None  # the broker's name: Stable, Empty, PreparingRebalance, ... (Dead: it does not exist)
    assignor: str | None
    coordinator: int | None
    members: tuple[MemberRecord, ...]
    authorized_operations: int | None  # the raw KIP-430 bitfield; None when not asked for or not supplied


@dataclass(frozen=True)
class ReplicaRecord:
    """A voter or observer of the metadata log, as DescribeQuorum reports it (-1: not known)."""

    id: int
    log_end_offset: int
    last_fetch_ms: int  # epoch milliseconds of its last fetch from the leader
    last_caught_up_ms: int


@dataclass(frozen=True)
class QuorumRecord:
    """The KRaft metadata quorum: its leader (the active controller), epoch, high watermark, voters, observers."""

    leader_id: int | None
    leader_epoch: int
    high_watermark: int
    voters: tuple[ReplicaRecord, ...]
    observers: tuple[ReplicaRecord, ...]
