"""The barrier's bookkeeping (acl/visibility.on_every_broker) with brokers played by threads: one broker that never
answers holds up only itself, and stops being waited for when the cluster stops listing it. What a real broker
answers is proved against the 3-broker sandbox (tests/integration/test_multi_broker.py)."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

from kafkactl.acl.visibility import on_every_broker
from kafkactl.errors import UnreachableError


@dataclass(frozen=True)
class Node:
    id: int
    host: str = "127.0.0.1"
    port: int = 9092


class Cluster:
    """live_brokers() lists 1, 2, 3 until `fence` is set, then only 1 and 2."""

    def __init__(self) -> None:
        self.fence = threading.Event()

    def live_brokers(self) -> list[Node]:
        return [Node(1), Node(2)] + ([] if self.fence.is_set() else [Node(3, port=9094)])


def test_a_broker_that_never_answers_is_dropped_once_the_cluster_stops_listing_it():
    cluster = Cluster()
    frozen = threading.Event()  # broker 3's request: never answered while the test runs

    def shows(node: int, deadline: float) -> bool:
        if node == 3:
            frozen.wait(deadline - time.monotonic())
            return False
        return True

    threading.Timer(0.6, cluster.fence.set).start()
    started = time.monotonic()
    seen = on_every_broker(cluster, shows, timeout=30)  # type: ignore[arg-type]
    took = time.monotonic() - started
    frozen.set()
    assert seen.confirmed and seen.brokers == 2
    assert seen.left == ("broker 3 at 127.0.0.1:9094",)
    assert "left the cluster's list of live brokers" in seen.describe()
    assert took < 10  # not the 30 s deadline that broker 3's own request was given


def test_the_deadline_names_the_brokers_still_missing_and_what_they_said():
    cluster = Cluster()

    def shows(node: int, deadline: float) -> bool:
        if node == 2:
            raise UnreachableError("broker 2 refused the connection")
        if node == 3:
            time.sleep(max(0.0, deadline - time.monotonic()))
            return False
        return True

    seen = on_every_broker(cluster, shows, timeout=1.0)  # type: ignore[arg-type]
    assert not seen.confirmed and seen.brokers == 1
    assert seen.missing == ("broker 2 at 127.0.0.1:9092", "broker 3 at 127.0.0.1:9094")
    assert seen.why.startswith("broker 2 refused the connection")  # (broker 3 answered: not showing it yet)


def test_a_refusing_broker_is_asked_again_until_it_shows_the_change():
    cluster = Cluster()
    asked: list[int] = []

    def shows(node: int, deadline: float) -> bool:  # noqa: ARG001 (the barrier's signature)
        if node == 3:
            asked.append(node)
            if len(asked) < 3:
                raise UnreachableError("broker 3 refused the connection")
        return True

    seen = on_every_broker(cluster, shows, timeout=10)  # type: ignore[arg-type]
    assert seen.confirmed and seen.brokers == 3 and seen.left == ()
    assert len(asked) == 3


def test_when_no_broker_can_be_asked_the_barrier_gives_up_after_its_patience():
    """Every broker's request fails (the network between kafkactl and the cluster, not a broker catching up):
    the barrier stops after `patience` (the apply's --timeout), not at its 60 s deadline."""
    cluster = Cluster()

    def shows(node: int, deadline: float) -> bool:  # noqa: ARG001 (the barrier's signature)
        raise UnreachableError(f"cannot list ACLs on broker {node}: the connection was lost before the answer")

    started = time.monotonic()
    seen = on_every_broker(cluster, shows, timeout=60, patience=1.0)  # type: ignore[arg-type]
    assert not seen.confirmed and time.monotonic() - started < 10
    assert seen.missing == ("broker 1 at 127.0.0.1:9092", "broker 2 at 127.0.0.1:9092", "broker 3 at 127.0.0.1:9094")
    assert "the connection was lost" in seen.why


def test_one_broker_that_cannot_be_asked_is_waited_for_while_the_others_answer():
    """A stopped broker (refused) with the others confirmed: not cut off, so waited for until the cluster stops
    listing it (here: the deadline), never given up after `patience`."""
    cluster = Cluster()

    def shows(node: int, deadline: float) -> bool:  # noqa: ARG001 (the barrier's signature)
        if node == 3:
            raise UnreachableError("broker 3 refused the connection")
        return True

    started = time.monotonic()
    seen = on_every_broker(cluster, shows, timeout=2.5, patience=0.5)  # type: ignore[arg-type]
    assert not seen.confirmed and time.monotonic() - started >= 2.4
    assert seen.missing == ("broker 3 at 127.0.0.1:9094",) and seen.why == "broker 3 refused the connection"
