"""What the gateway's parts share: kafkactl's record of a Kafka error, and the normalising of the clients' error
shapes into it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ErrorInfo:
    code: int
    name: str
    message: str


def error_info(err: Any) -> ErrorInfo:
    """Normalise a confluent KafkaError / KafkaException into code, name, message. A Kafka protocol error is named
    as the protocol names it (librdkafka shortens some: UNKNOWN_TOPIC_OR_PART)."""
    if isinstance(err, _CodeError):
        return ErrorInfo(err.code(), protocol_name(err.code(), err.name()), err.str())
    kerr = err.args[0] if hasattr(err, "args") and err.args and hasattr(err.args[0], "code") else err
    if hasattr(kerr, "code") and callable(kerr.code):
        return ErrorInfo(kerr.code(), protocol_name(kerr.code(), kerr.name()), kerr.str())
    return ErrorInfo(-1, type(err).__name__, str(err))


def protocol_name(code: int, name: str) -> str:
    """The Kafka protocol's name for an error code (librdkafka's own, negative, codes keep theirs)."""
    if code <= 0:
        return name
    from kafka.errors import kafka_errors

    cls = kafka_errors.get(code)
    return getattr(cls, "message", None) or name


class _CodeError(Exception):
    """A Kafka error code from kafka-python (or a raw response), shaped like confluent's KafkaError."""

    def __init__(self, code: int, name: str, message: str) -> None:
        super().__init__(message)
        self._code, self._name, self._message = code, name, message

    def code(self) -> int:
        return self._code

    def name(self) -> str:
        return self._name

    def str(self) -> str:
        return self._message
