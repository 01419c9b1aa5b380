"""Waiting until every broker's authorizer shows an ACL change: the barrier between apply's phases, and the
check after `acls create` and `acls delete`.

The controller commits ACL records to the metadata log; each broker applies them to its own authorizer at its
own moment, and a broker authorizes by what it has applied. So a change is visible when every live broker lists
it (DescribeAcls sent to each broker by id), not when the one that took the write does. A broker that stops
meanwhile is waited for until the cluster stops listing it (its session times out) or the time runs out.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from kafkactl.acl.client import AclClient
from kafkactl.acl.model import AclBinding, AclFilter
from kafkactl.errors import BrokerError, KafkactlError, UnreachableError

# above this many distinct resources, a change is read back per resource type instead of per resource
PER_RESOURCE_LOOKUPS = 20


@dataclass(frozen=True)
class Confirmation:
    """Whether every live broker showed the change, and how long the slowest took."""

    confirmed: bool
    brokers: int = 0  # brokers that confirmed
    slowest: tuple[int, float] | None = None  # (broker id, seconds from the start of the wait)
    missing: tuple[str, ...] = ()  # brokers that had not confirmed when the time ran out: "broker 2 at host:port"
    why: str = ""  # what the missing brokers answered, if anything

    def __bool__(self) -> bool:
        return self.confirmed

    def error(self, result: Any, message: str) -> KafkactlError:
        """The error of a change the controller took but some brokers do not show yet: exit 4 when one of them
        did not answer, else 1; the per-item `result` still goes to stdout."""
        err: KafkactlError = UnreachableError(message) if self.why else BrokerError(message)
        err.result = result
        return err

    def describe(self) -> str:
        if not self.slowest:
            return "nothing to confirm"
        node, seconds = self.slowest
        return (f"confirmed by {self.brokers} broker{'s' * (self.brokers != 1)}, the slowest (broker {node}) after "
                f"{seconds:.2f} s")


def lookup_filters(bindings: Sequence[AclBinding]) -> list[AclFilter]:
    resources = sorted({b.resource for b in bindings})
    if len(resources) <= PER_RESOURCE_LOOKUPS:
        return [AclFilter(rt, name, pt) for rt, name, pt in resources]
    return [AclFilter(rt) for rt in sorted({r[0] for r in resources})]


def await_visible(gw: AclClient, present: Sequence[AclBinding], absent: Sequence[AclBinding], timeout: float = 10.0,
                  sample_every: int = 0) -> Confirmation:
    """Wait until every live broker lists `present` and none lists `absent`. Bounded by `timeout`.

    With sample_every=N, a few bindings (one per N, as sent in requests of N) are awaited first with narrow reads:
    each request's records form one atomic batch and a broker applies the metadata log in order, so once they
    show, the full check (still made) almost always passes on its first read.
    """
    if not present and not absent:
        return Confirmation(True)
    want, gone = set(present), set(absent)
    sample = (_last_of_each(present, sample_every), _last_of_each(absent, sample_every)) \
        if sample_every and len(want) + len(gone) > sample_every else None
    bulk = len(want) + len(gone) > 1000

    def shows(node: int, deadline: float) -> bool:
        if sample and not _settle(gw, node, *sample, deadline, bulk=True):
            return False
        return _settle(gw, node, want, gone, deadline, bulk)

    return on_every_broker(gw, shows, timeout)


def on_every_broker(gw: AclClient, shows: Callable[[int, float], bool], timeout: float) -> Confirmation:
    """Wait until shows(broker id, deadline) is true of every live broker (asked again until the deadline while it
    is false, the brokers listed afresh each round). Bounded by `timeout`. Also the wait after `topics create` and
    `topics delete`: a broker answers Metadata from its own copy of the metadata log."""
    started = time.monotonic()
    deadline = started + timeout
    confirmed: dict[int, float] = {}
    trouble: dict[int, str] = {}
    while True:
        brokers = {n.id: f"broker {n.id} at {n.host}:{n.port}" for n in gw.live_brokers()}
        for node in sorted(set(brokers) - set(confirmed)):
            try:
                if shows(node, deadline):
                    confirmed[node] = time.monotonic() - started
                    trouble.pop(node, None)
            except UnreachableError as exc:  # stopped or cut off: still listed, so still waited for
                trouble[node] = exc.message
        pending = sorted(set(brokers) - set(confirmed))
        if not pending:
            ids = [n for n in confirmed if n in brokers]
            slowest = max(ids, key=lambda n: confirmed[n])
            return Confirmation(True, len(ids), (slowest, confirmed[slowest]))
        if time.monotonic() >= deadline:
            return Confirmation(False, len(set(confirmed) & set(brokers)), None, tuple(brokers[n] for n in pending),
                                "; ".join(trouble[n] for n in pending if n in trouble))
        time.sleep(0.2)


def _last_of_each(items: Sequence[AclBinding], size: int) -> set[AclBinding]:
    """The last binding of each request of `size` (and of the final, shorter one)."""
    return {items[min(i + size, len(items)) - 1] for i in range(0, len(items), size)}


def _settle(gw: AclClient, node: int, present: set[AclBinding], absent: set[AclBinding], deadline: float,
            bulk: bool) -> bool:
    """Poll one broker until it shows the change; False when the time ran out first."""
    filters = lookup_filters(list(present | absent))
    while True:
        seen = {b for f in filters for b in gw.describe_acls(f, trust_empty=True, bulk=bulk, node=node)}
        if present <= seen and not (absent & seen):
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.05)



