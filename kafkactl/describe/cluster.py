"""Cluster description, with the caller's authorized operations on the cluster (KIP-430)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from kafkactl.acl.bitfield import AuthorizedOps, decode
from kafkactl.acl.model import ResourceType
from kafkactl.gateway import Gateway
from kafkactl.gateway.records import QuorumRecord, ReplicaRecord


@dataclass(frozen=True)
class BrokerInfo:
    COLUMNS: ClassVar[tuple[str, ...]] = ("id", "host", "port", "rack", "controller")
    id: int
    host: str
    port: int
    rack: str | None
    controller: bool


@dataclass(frozen=True)
class QuorumMember:
    id: int
    role: str  # leader | voter | observer (a broker, or a controller not voting)
    log_end_offset: int
    lag: int  # records behind the high watermark
    last_fetch_ms: int | None  # epoch milliseconds (None: never, or not reported)
    last_caught_up_ms: int | None


@dataclass(frozen=True)
class QuorumInfo:
    """The KRaft metadata quorum as kafka-metadata-quorum.sh describes it (--status and --replication)."""

    leader_id: int | None
    leader_epoch: int
    high_watermark: int
    members: tuple[QuorumMember, ...]


@dataclass(frozen=True)
class ClusterInfo:
    HEADER: ClassVar[tuple[str, ...]] = ("cluster_id", "controller_id", "quorum_voters", "quorum_note")
    ROWS: ClassVar[str] = "brokers"
    cluster_id: str | None
    controller_id: int | None  # the active controller (the quorum's leader); None when the quorum was not read
    brokers: tuple[BrokerInfo, ...]
    authorized_operations: AuthorizedOps | None = None
    quorum: QuorumInfo | None = None
    quorum_note: str | None = None  # why the quorum is not shown

    @property
    def quorum_voters(self) -> str | None:
        """'3001 (leader, epoch 7), 3002 (lag 0), 3003 (lag 2)'."""
        if self.quorum is None:
            return None
        return ", ".join(f"{m.id} (leader, epoch {self.quorum.leader_epoch})" if m.role == "leader"
                         else f"{m.id} (lag {m.lag})" for m in self.quorum.members if m.role != "observer")


# DescribeQuorum needs Describe on the cluster; without it, no broker's answer names the active controller (in KRaft
# DescribeCluster and Metadata name a random live broker as "controller")
QUORUM_NOT_AUTHORIZED = ("the active controller and the metadata quorum are shown only to principals with Describe "
                         "on the cluster")


def describe_cluster(gw: Gateway, authorized_operations: bool = False, quorum: bool = False) -> ClusterInfo:
    """The cluster's id and brokers (and the caller's operations on it); with `quorum`, the active controller and
    the metadata quorum, or why they cannot be shown."""
    from kafkactl.errors import KafkactlError, NotAuthorizedError

    r = gw.describe_cluster(include_authorized_operations=authorized_operations)
    ops = decode(r.authorized_operations, ResourceType.CLUSTER) if authorized_operations else None
    info, note = None, None
    if quorum:
        try:
            info = _quorum(gw.describe_quorum())
        except NotAuthorizedError:
            note = QUORUM_NOT_AUTHORIZED
        except KafkactlError as exc:  # (no leader answering, an older broker's UNSUPPORTED_VERSION)
            note = f"the active controller is not shown: {exc.message}"
    leader = info.leader_id if info else None
    rows = tuple(sorted((BrokerInfo(id=n.id, host=n.host, port=n.port, rack=n.rack or None, controller=n.id == leader)
                         for n in r.nodes), key=lambda b: b.id))
    return ClusterInfo(r.cluster_id, leader, rows, ops, info, note)


def _quorum(q: QuorumRecord) -> QuorumInfo:
    def member(r: ReplicaRecord, role: str) -> QuorumMember:
        return QuorumMember(r.id, role, r.log_end_offset, max(0, q.high_watermark - r.log_end_offset),
                            r.last_fetch_ms if r.last_fetch_ms >= 0 else None,
                            r.last_caught_up_ms if r.last_caught_up_ms >= 0 else None)

    voters = tuple(member(r, "leader" if r.id == q.leader_id else "voter") for r in q.voters)
    voting = {r.id for r in q.voters}
    return QuorumInfo(q.leader_id, q.leader_epoch, q.high_watermark,
                      voters + tuple(member(r, "observer") for r in q.observers if r.id not in voting))


# DescribeCluster computes the cluster bitfield only for callers with Describe on the cluster (0 otherwise)
EMPTY_CLUSTER_OPS_HINT = ("the broker reports operations on the cluster only to principals with Describe on the "
                          "cluster; for others it answers 0 even when ACLs grant, say, IdempotentWrite")
