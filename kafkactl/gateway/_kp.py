"""kafka-python as the gateway's second transport (for the RPCs librdkafka lacks, and where its answers are too
slow to decode): one request, many requests spread over the brokers, the brokers it knows, and whether an error
means no answer came. Mixed into Gateway, which provides `kafka_python` and `_translate_kp`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kafkactl.gateway._host import GatewayHost as _Host
else:
    _Host = object


class KafkaPythonTransport(_Host):
    def _kp_send(self, request: Any, what: str, node: int | None = None) -> Any:
        """One request through kafka-python, to `node` (a broker id) or to whichever broker is least loaded."""
        kp = self.kafka_python
        try:
            return kp._manager.run(kp._manager.send, request, node)
        except Exception as exc:
            raise self._translate_kp(exc, what) from None

    def _kp_send_many(self, requests: Sequence[tuple[Any, int | None, bool]], what: str,
                      keep: Callable[[Any], Any] = lambda answer: answer) -> list[Any]:
        """Many requests through kafka-python, each (request, node, movable) to its node (None: the least
        loaded): one at a time to each node (a connection takes a few in flight, and a broker answers its
        connection's requests in turn anyway), the nodes side by side; what `keep` makes of each answer, as it
        arrives (a large answer's objects are freed at once: kept, 40 answers of 30,000 entries each cost
        seconds of garbage collection), in the requests' order. A movable request whose broker did not answer
        is sent once more, to whichever broker is least loaded."""
        kp = self.kafka_python
        manager = kp._manager
        answers: list[Any] = [None] * len(requests)
        by_node: dict[int | None, list[int]] = {}
        for i, (_, node, _) in enumerate(requests):
            by_node.setdefault(node, []).append(i)

        async def one_node(node: int | None, indices: list[int]) -> None:
            for n, i in enumerate(indices):
                try:
                    answers[i] = keep(await manager.send(requests[i][0], node))
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

    def _kp_broker_ids(self) -> list[int]:
        """The ids of the brokers kafka-python knows (it bootstraps first when it knows none yet)."""
        kp = self.kafka_python
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
