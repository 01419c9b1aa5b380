"""Waiting until every broker's authorizer shows an ACL change: the barrier between apply's phases, and the
check after `acls create` and `acls delete`.

The controller commits ACL records to the metadata log; each broker applies them to its own authorizer at its
own moment, and a broker authorizes by what it has applied. So a change is visible when every live broker lists
it (DescribeAcls sent to each broker by id), not when the one that took the write does. A broker that stops
meanwhile is waited for until the cluster stops listing it (its session times out) or the time runs out.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

from kafkactl.acl.client import AclClient
from kafkactl.acl.model import AclBinding, AclFilter
from kafkactl.errors import BrokerError, KafkactlError, UnreachableError

# above this many distinct resources, a change is read back per resource type instead of per resource
PER_RESOURCE_LOOKUPS = 20
# how often the barrier lists the live brokers again while some have not confirmed
ROUND_S = 0.5


@dataclass(frozen=True)
class Confirmation:
    """Whether every live broker showed the change, and how long the slowest took."""

    confirmed: bool
    brokers: int = 0  # brokers that confirmed
    slowest: tuple[int, float] | None = None  # (broker id, seconds from the start of the wait)
    missing: tuple[str, ...] = ()  # brokers that had not confirmed when the time ran out: "broker 2 at host:port"
    why: str = ""  # what the missing brokers answered, if anything
    # brokers awaited that the cluster stopped listing before they confirmed (frozen or stopped: their session
    # timed out), so not waited for any more: "broker 2 at host:port"
    left: tuple[str, ...] = ()

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
                f"{seconds:.2f} s" + (f"; {left_list(self.left)}" if self.left else ""))


def left_list(left: Sequence[str]) -> str:
    return f"{', '.join(left)} left the cluster's list of live brokers before confirming (not waited for)"


def lookup_filters(bindings: Sequence[AclBinding]) -> list[AclFilter]:
    resources = sorted({b.resource for b in bindings})
    if len(resources) <= PER_RESOURCE_LOOKUPS:
        return [AclFilter(rt, name, pt) for rt, name, pt in resources]
    return [AclFilter(rt) for rt in sorted({r[0] for r in resources})]


def await_visible(gw: AclClient, present: Sequence[AclBinding], absent: Sequence[AclBinding], timeout: float = 10.0,
                  sample_every: int = 0, patience: float | None = None) -> Confirmation:
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

    return on_every_broker(gw, shows, timeout, patience)


def on_every_broker(gw: AclClient, shows: Callable[[int, float], bool], timeout: float,
                    patience: float | None = None) -> Confirmation:
    """Wait until shows(broker id, deadline) is true of every live broker (each asked in a thread of its own, again
    until the deadline while it is false; the brokers listed afresh every ROUND_S). Bounded by `timeout`. A broker
    that answers nothing (frozen: its connections stay open) holds up only its own thread: once the cluster stops
    listing it (its session timed out) it is no longer waited for. Also the wait after `topics create` and
    `topics delete`: a broker answers Metadata from its own copy of the metadata log. `patience`: give up sooner
    when, for that long, no listed broker could be asked at all (each one's request failed: the network, not a
    broker catching up)."""
    from concurrent.futures import FIRST_COMPLETED, wait as wait_futures

    started = time.monotonic()
    deadline = started + timeout
    confirmed: dict[int, float] = {}
    trouble: dict[int, str] = {}
    asking: dict[int, Future[bool]] = {}
    not_before: dict[int, float] = {}  # a broker that could not be asked is asked again after a pause
    listed: dict[int, str] = {}  # every broker listed meanwhile
    cut_off_since: float | None = None  # since when every listed broker's request has failed
    while True:
        brokers = {n.id: f"broker {n.id} at {n.host}:{n.port}" for n in gw.live_brokers()}
        listed.update(brokers)
        now = time.monotonic()
        for node in sorted(set(brokers) - set(confirmed) - set(asking)):
            if not_before.get(node, 0.0) <= now:
                asking[node] = _in_thread(shows, node, deadline)
        if asking:
            wait_futures(list(asking.values()), timeout=max(0.0, min(ROUND_S, deadline - time.monotonic())),
                         return_when=FIRST_COMPLETED)
        else:
            time.sleep(0.2)
        for node, asked in list(asking.items()):
            if not asked.done():
                continue
            del asking[node]
            try:
                if asked.result():
                    confirmed[node] = time.monotonic() - started
                trouble.pop(node, None)  # it answered
            except UnreachableError as exc:  # stopped or cut off: still listed, so still waited for
                trouble[node] = exc.message
                not_before[node] = time.monotonic() + 0.2
        pending = sorted(set(brokers) - set(confirmed))
        if not pending:
            ids = [n for n in confirmed if n in brokers]
            slowest = max(ids, key=lambda n: confirmed[n])
            left = tuple(listed[n] for n in sorted(set(listed) - set(brokers) - set(confirmed)))
            return Confirmation(True, len(ids), (slowest, confirmed[slowest]), left=left)
        now = time.monotonic()
        cut_off = set(brokers) <= set(trouble)
        cut_off_since = (cut_off_since or now) if cut_off else None
        if now >= deadline or (patience is not None and cut_off_since is not None and now - cut_off_since >= patience):
            return Confirmation(False, len(set(confirmed) & set(brokers)), None, tuple(brokers[n] for n in pending),
                                "; ".join(trouble[n] if n in trouble else "no answer yet" for n in pending
                                          if n in trouble or n in asking))


def _in_thread(fn: Callable[[int, float], bool], node: int, deadline: float) -> Future[bool]:
    """fn(node, deadline) in a daemon thread (an abandoned one, asking a frozen broker, must not hold up the
    process's exit as a pool's worker would)."""
    done: Future[bool] = Future()

    def target() -> None:
        try:
            done.set_result(fn(node, deadline))
        except BaseException as exc:  # noqa: BLE001 - read by the waiting thread
            done.set_exception(exc)

    threading.Thread(target=target, daemon=True, name=f"kafkactl-barrier-{node}").start()
    return done


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



