"""Cluster description, with the caller's authorized operations on the cluster (KIP-430)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import ClassVar

from kafkactl.acl.bitfield import AuthorizedOps, decode
from kafkactl.acl.model import ResourceType
from kafkactl.gateway import Gateway


@dataclass(frozen=True)
class BrokerInfo:
    COLUMNS: ClassVar[tuple[str, ...]] = ("id", "host", "port", "rack", "controller")
    id: int
    host: str
    port: int
    rack: str | None
    controller: bool


@dataclass(frozen=True)
class ClusterInfo:
    HEADER: ClassVar[tuple[str, ...]] = ("cluster_id", "controller_id")
    ROWS: ClassVar[str] = "brokers"
    cluster_id: str | None
    controller_id: int | None
    brokers: tuple[BrokerInfo, ...]
    authorized_operations: AuthorizedOps | None = None


def describe_cluster(gw: Gateway, authorized_operations: bool = False) -> ClusterInfo:
    r = gw.describe_cluster(include_authorized_operations=authorized_operations)
    ops = decode(r.authorized_operations, ResourceType.CLUSTER) if authorized_operations else None
    return _info(r.cluster_id, r.controller_id, [(n.id, n.host, n.port, n.rack) for n in r.nodes], ops)


# DescribeCluster computes the cluster bitfield only for callers with Describe on the cluster (0 otherwise)
EMPTY_CLUSTER_OPS_HINT = ("the broker reports operations on the cluster only to principals with Describe on the "
                          "cluster; for others it answers 0 even when ACLs grant, say, IdempotentWrite")


def _info(cluster_id: str | None, controller: int | None, brokers: Iterable[tuple[int, str, int, str | None]],
          ops: AuthorizedOps | None) -> ClusterInfo:
    rows = tuple(sorted((BrokerInfo(id=i, host=h, port=p, rack=rack or None, controller=i == controller)
                         for i, h, p, rack in brokers), key=lambda b: b.id))
    return ClusterInfo(cluster_id=cluster_id, controller_id=controller, brokers=rows, authorized_operations=ops)
