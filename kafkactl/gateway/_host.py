"""What the Gateway's parts (_acls, _configs, _describe, _kp) use of the Gateway and of each other, declared for
the type checker only: each part subclasses GatewayHost under TYPE_CHECKING (object at run time), so mypy checks
the parts' bodies against these signatures, and the Gateway's own definitions against them in turn."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Protocol

from kafkactl.errors import KafkactlError
from kafkactl.profiles import Profile


class GatewayHost(Protocol):
    profile: Profile
    _librdkafka_stuck: bool  # a read or write through librdkafka went unanswered (Gateway.first_answer)

    # the clients: confluent-kafka's AdminClient and kafka-python's KafkaAdminClient, both untyped
    @property
    def admin(self) -> Any: ...

    @property
    def kafka_python(self) -> Any: ...

    def kafka_python_for(self, what: str) -> Any: ...

    # Gateway
    def wait(self, futures: Mapping[Any, Any] | Iterable[Any], what: str, give_up_after: float | None = None,
             any_one: bool = False, deadline: float | None = None) -> bool: ...

    def first_answer(self, futures: Mapping[Any, Any] | Iterable[Any], fallback: Callable[[], Any], what: str
                     ) -> tuple[bool, Any]: ...

    def translate(self, exc: BaseException, what: str, resource: str | None = None,
                  needs: str | None = None) -> KafkactlError: ...

    def _translate_kp(self, exc: BaseException, what: str, **kw: Any) -> KafkactlError: ...

    def brokers_down(self, what: str, down: Sequence[tuple[int, str]], total: int, why: str) -> KafkactlError: ...

    def _saw_brokers(self, brokers: Iterable[tuple[int, str, int]]) -> None: ...

    # KafkaPythonTransport (_kp.py)
    def _kp_send(self, request: Any, what: str, node: int | None = None, timeout_s: float | None = None) -> Any: ...

    def _kp_send_many(self, requests: Sequence[tuple[Any, int | None, bool]], what: str,
                      keep: Callable[[Any], Any] = ...) -> list[Any]: ...

    def _kp_ask_each(self, make: Callable[[], Any], nodes: Sequence[int]) -> dict[int, Any]: ...

    def _kp_broker_ids(self) -> list[int]: ...

    @staticmethod
    def _kp_lost(exc: BaseException) -> bool: ...

    # AclRpcs (_acls.py)
    def code_exception(self, code: int, message: str | None) -> Exception: ...

    def code_error(self, code: int, message: str | None, what: str, **kw: Any) -> KafkactlError: ...
