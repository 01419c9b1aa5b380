"""Cluster description."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

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


def describe_cluster(gw: Gateway) -> ClusterInfo:
    r = gw.describe_cluster()
    controller = r.controller.id if r.controller is not None else None
    brokers = tuple(sorted(
        (BrokerInfo(id=n.id, host=n.host, port=n.port, rack=n.rack or None, controller=n.id == controller)
         for n in r.nodes),
        key=lambda b: b.id))
    return ClusterInfo(cluster_id=r.cluster_id, controller_id=controller, brokers=brokers)
