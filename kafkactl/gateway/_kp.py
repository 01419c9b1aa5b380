"""kafka-python as the gateway's second transport (for the RPCs librdkafka lacks, and where its answers are too
slow to decode): one request, many requests spread over the brokers, the brokers it knows, and whether an error
means no answer came. Mixed into Gateway, which provides `kafka_python` and `_translate_kp`."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kafkactl.gateway._host import GatewayHost as _Host
else:
    _Host = object


# a request to no broker in particular that has no answer after this long is sent to another broker as well, and
# again after as long to the next: the first answer wins. A broker that is frozen (a long GC pause, a stopped VM)
# keeps its connections open and answers nothing until its session times out (9 s by default); a read asked of it
# alone waited out --timeout. The Java AdminClient moves a call to another node only after request.timeout.ms.
HEDGE_S = 0.75
# a request sent to every broker (ListGroups: each lists the groups it coordinates): once some answered, one that
# still has not after this long (or twice as long as the latest answer took, when that is longer: a loaded cluster)
# is reported as not answering, with what the others said
STRAGGLER_S = 1.0


class KafkaPythonTransport(_Host):
    def _kp_send(self, request: Any, what: str, node: int | None = None, timeout_s: float | None = None) -> Any:
        """One request through kafka-python, to `node` (a broker id), or to whichever broker is least loaded and, when
        it has not answered within HEDGE_S, to another (see _kp_hedged)."""
        import kafka.errors as kp_errors

        kp = self.kafka_python_for(what)
        manager = kp._manager
        try:
            if node is None:
                return manager.run(self._kp_hedged, manager, request, timeout_s)
            try:
                return manager.run(manager.send, request, node)
            except kp_errors.UnknownBrokerIdError:
                # a broker that (re)joined since kafka-python last read the metadata: read it again, once
                manager.run(manager.cluster.refresh_metadata)
                return manager.run(manager.send, request, node)
        except kp_errors.UnknownBrokerIdError:
            from kafkactl.errors import UnreachableError

            raise UnreachableError(f"cannot {what}: the cluster does not list broker {node}") from None
        except Exception as exc:
            raise self._translate_kp(exc, what) from None

    async def _kp_hedged(self, manager: Any, request: Any, timeout_s: float | None = None) -> Any:
        """The first answer to `request`, sent to the least loaded broker and, each HEDGE_S without an answer (or at
        once when a connection is lost), to one more broker not yet asked; fails with the first failure that is an
        answer (an error the broker sent), else once every broker asked failed. Runs on kafka-python's loop."""
        from kafka.future import Future

        answer = Future()
        asked: list[int] = []
        failed: list[BaseException] = []
        deadline = time.monotonic() + (self.profile.timeout if timeout_s is None else timeout_s)

        def ask() -> bool:
            node = _next_node(manager, asked)
            if node is None:
                return False
            asked.append(node)
            left_ms = max(1, int((deadline - time.monotonic()) * 1000))
            sent = manager.send(request, node, left_ms)
            sent.add_callback(lambda value: None if answer.is_done else answer.success(value))
            sent.add_errback(on_failure)
            return True

        def on_failure(exc: BaseException) -> None:
            failed.append(exc)
            if answer.is_done:
                return
            if not self._kp_lost(exc):
                answer.failure(exc)
            elif not ask() and len(failed) >= len(asked):
                answer.failure(failed[0])

        def hedge() -> None:
            if not answer.is_done and time.monotonic() < deadline and ask():
                manager._net.call_later(HEDGE_S, hedge)

        if not ask():
            return await manager.send(request, None)  # no broker known: kafka-python's own error
        manager._net.call_later(HEDGE_S, hedge)
        return await answer

    def _kp_send_many(self, requests: Sequence[tuple[Any, int | None, bool]], what: str,
                      keep: Callable[[Any], Any] = lambda answer: answer) -> list[Any]:
        """Many requests through kafka-python, each (request, node, movable) to its node (None: the least
        loaded): one at a time to each node (a connection takes a few in flight, and a broker answers its
        connection's requests in turn anyway), the nodes side by side; what `keep` makes of each answer, as it
        arrives (a large answer's objects are freed at once: kept, 40 answers of 30,000 entries each cost
        seconds of garbage collection), in the requests' order. A movable request whose broker did not answer
        is sent once more, to whichever broker is least loaded."""
        kp = self.kafka_python_for(what)
        manager = kp._manager
        answers: list[Any] = [None] * len(requests)
        by_node: dict[int | None, list[int]] = {}
        for i, (_, node, _) in enumerate(requests):
            by_node.setdefault(node, []).append(i)

        async def one_node(node: int | None, indices: list[int]) -> None:
            for n, i in enumerate(indices):
                try:
                    sent = manager.send(requests[i][0], node) if node is not None \
                        else self._kp_hedged(manager, requests[i][0])
                    answers[i] = keep(await sent)
                except Exception as exc:  # noqa: BLE001 - retried or raised below, in the caller's thread
                    answers[i] = exc
                    if self._kp_lost(exc):  # a node that did not answer one is not sent the rest (each would
                        for j in indices[n + 1:]:  # wait out --timeout): they go elsewhere below, or fail with it
                            answers[j] = exc
                        return

        async def all_nodes() -> None:
            for future in [manager.call_soon(one_node, node, indices) for node, indices in by_node.items()]:
                await future

        try:
            manager.run(all_nodes)
        except Exception as exc:
            raise self._translate_kp(exc, what) from None
        for i, answer in enumerate(answers):
            if isinstance(answer, Exception):
                request, node, movable = requests[i]
                if node is None or not movable or not self._kp_lost(answer):
                    raise self._translate_kp(answer, what) from None
                answers[i] = keep(self._kp_send(request, what))
        return answers

    def _kp_ask_each(self, make: Callable[[], Any], nodes: Sequence[int]) -> dict[int, Any]:
        """The same request (made by `make`) sent to each of these brokers side by side: each broker's answer, or the
        exception its request met. A broker that has not answered STRAGGLER_S after the latest answer counts as not
        answering (a KafkaTimeoutError): a frozen broker keeps its connection open and answers nothing."""
        import kafka.errors as kp_errors
        from kafka.future import Future

        manager = self.kafka_python._manager

        async def each() -> dict[int, Any]:
            out: dict[int, Any] = {}
            finished = Future()
            started = time.monotonic()
            give_up_at = [started]

            def settle(node: int, value: Any) -> None:
                if node in out or finished.is_done:
                    return
                out[node] = value
                if len(out) == len(nodes):
                    finished.success(None)
                elif not isinstance(value, BaseException):  # an answer: the others have a while longer
                    now = time.monotonic()
                    grace = max(STRAGGLER_S, 2 * (now - started))
                    give_up_at[0] = now + grace
                    manager._net.call_later(grace, give_up)

            def give_up() -> None:
                if finished.is_done or time.monotonic() < give_up_at[0] - 0.01:
                    return
                for n in nodes:
                    out.setdefault(n, kp_errors.KafkaTimeoutError("no answer a while after the other brokers'"))
                finished.success(None)

            for node in nodes:
                sent = manager.send(make(), node)
                sent.add_callback(lambda value, node=node: settle(node, value))
                sent.add_errback(lambda exc, node=node: settle(node, exc))
            await finished
            return dict(out)

        return dict(manager.run(each)) if nodes else {}

    def _kp_broker_ids(self) -> list[int]:
        """The ids of the brokers kafka-python knows (it bootstraps first when it knows none yet)."""
        kp = self.kafka_python_for("list the brokers")
        try:
            return sorted(b.node_id for b in kp._manager.cluster.brokers())
        except Exception as exc:
            raise self._translate_kp(exc, "list the brokers") from None

    @staticmethod
    def _kp_lost(exc: BaseException) -> bool:
        """Whether a kafka-python error means no answer came (a timeout or a lost connection)."""
        import kafka.errors as kp_errors

        # kafka-python 3 has no NoBrokersAvailable (2.x did): name only what the installed release defines
        lost = tuple(getattr(kp_errors, n) for n in ("KafkaTimeoutError", "NoBrokersAvailable", "KafkaConnectionError",
                                                      "NodeNotReadyError") if hasattr(kp_errors, n))
        return isinstance(exc, lost)


def _next_node(manager: Any, asked: Sequence[int]) -> int | None:
    """The broker to ask next: kafka-python's least loaded one first; then one not yet asked, connected ones first
    (a broker in reconnect backoff is never chosen); None when none is left."""
    if not asked:
        first: int | None = manager.least_loaded_node()
        return first
    free = [b.node_id for b in manager.cluster.brokers()
            if b.node_id not in asked and manager.connection_delay(b.node_id) <= 0]
    connected = [n for n in free if (c := manager._conns.get(n)) is not None and c.connected]
    chosen: int | None = (connected or free or [None])[0]
    return chosen
