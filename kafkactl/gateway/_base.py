"""What the gateway's parts share: kafkactl's record of a Kafka error, and the normalising of the clients' error
shapes into it."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ErrorInfo:
    code: int
    name: str
    message: str


# librdkafka's own (negative) codes for what the Kafka protocol has a code of its own for: kafkactl reports the
# protocol's code and name, so that one error has one name whichever client met it
_LOCAL_TO_PROTOCOL = {
    -188: 3,   # _UNKNOWN_TOPIC -> UNKNOWN_TOPIC_OR_PARTITION
    -190: 3,   # _UNKNOWN_PARTITION -> UNKNOWN_TOPIC_OR_PARTITION
    -179: 69,  # _UNKNOWN_GROUP -> GROUP_ID_NOT_FOUND
    -165: 35,  # _UNSUPPORTED_FEATURE (the broker lacks the API) -> UNSUPPORTED_VERSION
}


def error_info(err: Any) -> ErrorInfo:
    """Normalise a confluent KafkaError / KafkaException into code, name, message. A Kafka protocol error is named
    as the protocol names it (librdkafka shortens some, UNKNOWN_TOPIC_OR_PART, and has local codes for others,
    _UNKNOWN_TOPIC)."""
    if isinstance(err, ErrorInfo):
        return err
    if isinstance(err, _CodeError):
        return _named(err.code(), err.name(), err.str())
    kerr = err.args[0] if hasattr(err, "args") and err.args and hasattr(err.args[0], "code") else err
    if hasattr(kerr, "code") and callable(kerr.code):
        return _named(kerr.code(), kerr.name(), kerr.str())
    return ErrorInfo(-1, type(err).__name__, str(err))


def _named(code: int, name: str, message: str) -> ErrorInfo:
    code = _LOCAL_TO_PROTOCOL.get(code, code)
    return ErrorInfo(code, protocol_name(code, name), message)


# the protocol's names (org.apache.kafka.common.protocol.Errors) where kafka-python's differ or are missing: checked
# against the broker's own jar by tests/integration/test_error_names.py
_PROTOCOL_NAMES = {
    -1: "UNKNOWN_SERVER_ERROR", 6: "NOT_LEADER_OR_FOLLOWER", 10: "MESSAGE_TOO_LARGE", 17: "INVALID_TOPIC_EXCEPTION",
    39: "INVALID_REPLICA_ASSIGNMENT", 128: "INVALID_REGULAR_EXPRESSION", 129: "REBOOTSTRAP_REQUIRED",
    130: "STREAMS_INVALID_TOPOLOGY", 131: "STREAMS_INVALID_TOPOLOGY_EPOCH", 132: "STREAMS_TOPOLOGY_FENCED",
    133: "SHARE_SESSION_LIMIT_REACHED",
}
_CLIENT_UNKNOWN = frozenset({"UNKNOWN", "UNKNOWN_SERVER_ERROR", ""})  # the clients' names for -1


def protocol_name(code: int, name: str) -> str:
    """The Kafka protocol's name for an error code (librdkafka's own codes, -100 and below, keep theirs)."""
    if code == -1 and name not in _CLIENT_UNKNOWN:
        return name  # not a Kafka error at all: the exception's own class (see error_info)
    if code in _PROTOCOL_NAMES:
        return _PROTOCOL_NAMES[code]
    if code <= 0:
        return name
    from kafka.errors import kafka_errors

    cls = kafka_errors.get(code)
    return getattr(cls, "message", None) or name


def protocol_code(name: str) -> int | None:
    """The Kafka protocol's code for an error name as kafkactl prints it (None: not one of the protocol's)."""
    from kafka.errors import kafka_errors

    codes = [c for c in kafka_errors if isinstance(c, int) and c != 0] + list(_PROTOCOL_NAMES)
    return next((c for c in sorted(set(codes)) if protocol_name(c, "") == name), None)


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


# ---------------------------------------------------------------------------------------------- reachability
# librdkafka counts its connections in "N/M brokers are down": a bootstrap address and the broker it leads to are
# two, one broker listed twice is two. kafkactl counts the cluster's brokers (or, before it has seen any, the
# distinct bootstrap addresses) from the connection errors, which name the address and broker id each is about.

REFUSED, UNRESOLVED = "refused the connection", "does not resolve"
_TRANSPORT_CODE, _RESOLVE_CODE = -195, -193
# "sasl_plaintext://127.0.0.1:9092/1: Connect to ipv4#127.0.0.1:9092 failed: ..." (/bootstrap before the broker id
# is known)
_CONNECTION = re.compile(r"^(?:[A-Za-z_]+://)?(?P<address>[^\s/]+)/(?P<node>\d+|bootstrap): (?P<rest>.*)$", re.S)
_AFTER = re.compile(r"\s*\(after \d+ms in state [^)]*\)\s*$")
# librdkafka's guess when ApiVersionRequest goes unanswered: wrong for any broker of the last eight years (a frozen
# or overloaded one, or another protocol's listener, is what kafkactl meets)
_VERSION_GUESS = re.compile(r":?\s*probably due to broker version < 0\.10 \(see api\.version\.request configuration\)")


@dataclass(frozen=True)
class AddressFailure:
    """A connection to one address failed: refused, not resolved, or the client's own words."""

    address: str
    node: int | None  # the broker id, when the client knew it (None: a bootstrap address)
    cause: str
    at: float  # time.monotonic()


def address_failure(info: ErrorInfo, at: float) -> AddressFailure | None:
    """The address a librdkafka connection error is about, and what happened there (None: not about one)."""
    if info.code not in (_TRANSPORT_CODE, _RESOLVE_CODE):
        return None
    m = _CONNECTION.match(info.message)
    if m is None:
        return None
    rest = m["rest"]
    if info.code == _RESOLVE_CODE or "failed to resolve" in rest.lower():
        cause = UNRESOLVED
    elif "connection refused" in rest.lower():
        cause = REFUSED
    else:
        cause = _VERSION_GUESS.sub("", _AFTER.sub("", rest.split(": ", 1)[-1])).strip() or rest
    node = m["node"]
    return AddressFailure(m["address"].lower(), int(node) if node.isdigit() else None, cause, at)


@dataclass(frozen=True)
class Reach:
    """What the gateway knows of the cluster's addresses: the bootstrap list, the brokers metadata named (id ->
    host:port), and the latest failure per address."""

    bootstrap: tuple[str, ...]
    brokers: Mapping[int, str]
    failures: Mapping[str, AddressFailure]

    @classmethod
    def of(cls, bootstrap: str, brokers: Mapping[int, str], failures: Iterable[AddressFailure]) -> Reach:
        latest: dict[str, AddressFailure] = {}
        for f in failures:
            if f.address not in latest or latest[f.address].at <= f.at:
                latest[f.address] = f
        known = dict(brokers)
        for f in latest.values():
            if f.node is not None and f.node not in known:
                known[f.node] = f.address
        addresses = tuple(dict.fromkeys(a.strip().lower() for a in bootstrap.split(",") if a.strip()))
        return cls(addresses, {n: a.lower() for n, a in sorted(known.items())}, latest)

    def members(self) -> list[tuple[str, str]]:
        """(label, address) of what is counted: the brokers once known, else the bootstrap addresses."""
        if self.brokers:
            return [(f"broker {n} at {a}", a) for n, a in self.brokers.items()]
        return [(a, a) for a in self.bootstrap]

    def down(self, since: float) -> list[tuple[str, AddressFailure]]:
        """The counted members whose latest failure happened at or after `since`."""
        return [(label, self.failures[a]) for label, a in self.members()
                if a in self.failures and self.failures[a].at >= since]

    def every_address_refuses(self, since: float) -> bool:
        """Every bootstrap address and every known broker failed since `since`, each refused or not resolved."""
        addresses = set(self.bootstrap) | set(self.brokers.values())
        return bool(addresses) and all(
            a in self.failures and self.failures[a].at >= since and self.failures[a].cause in (REFUSED, UNRESOLVED)
            for a in addresses)

    def every_member_closes(self, since: float) -> bool:
        """Every counted member closed its connections since `since` (it listens, and hangs up: a listener of
        another security protocol than the client's, or a broker refusing the client), none merely silent."""
        down = self.down(since)
        return bool(down) and len(down) == len(self.members()) and all(
            "closed by peer" in f.cause or "closed" in f.cause.lower().split(":")[0] for _, f in down)

    def cause(self, since: float) -> str:
        """Why nothing answers, when every address refuses (see every_address_refuses): counted, never guessed."""
        down, total = self.down(since), len(self.members())
        causes = {f.cause for _, f in down}
        unit = "broker" if self.brokers else "address"
        if total == 1 and len(down) == 1:
            return "connection refused" if causes == {REFUSED} else "host name does not resolve"
        if causes == {REFUSED}:
            return f"connection refused by {counted(len(down), total, unit)}"
        if causes == {UNRESOLVED}:
            return f"{counted(len(down), total, unit)} do not resolve"
        return f"{counted(len(down), total, unit)} unreachable: " + ", ".join(f"{label} {f.cause}" for label, f in down)

    def detail(self, since: float) -> str:
        """What the errors since `since` say about the members that did not answer: '' when they say nothing."""
        down, total = self.down(since), len(self.members())
        if down:
            unit = "broker" if self.brokers else "address"
            return f"{counted(len(down), total, unit)} down: " + ", ".join(f"{label} {f.cause}" for label, f in down)
        others = [f for f in self.failures.values() if f.at >= since]
        return ", ".join(f"{f.address} {f.cause}" for f in sorted(others, key=lambda f: f.address))


def counted(n: int, total: int, unit: str) -> str:
    """'1 of 3 brokers', '2 of 2 addresses'."""
    return f"{n} of {total} {unit}{'es' if unit.endswith('s') else 's'}" if total != 1 else f"{n} of 1 {unit}"


def brokers_not_answering(what: str, down: Sequence[tuple[int, str]], total: int, why: str) -> str:
    """The message for brokers that did not answer while the others did."""
    names = ", ".join(f"broker {node} at {address}" for node, address in down)
    return f"cannot {what}: {counted(len(down), total, 'broker')} did not answer ({names}); {why}"
