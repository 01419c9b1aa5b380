"""Issue 14: one name per error (the Kafka protocol's), and counts of unreachable brokers kafkactl makes itself.

The error values are confluent-kafka's own KafkaError objects (values, not a mocked client); the connection errors
are librdkafka's messages as its error callback delivers them (seen against the sandbox broker).
"""

from __future__ import annotations

import pytest

from kafkactl.gateway._base import (
    REFUSED,
    UNRESOLVED,
    AddressFailure,
    ErrorInfo,
    Reach,
    _CodeError,
    address_failure,
    brokers_not_answering,
    error_info,
    protocol_code,
    protocol_name,
)


@pytest.mark.parametrize("code, expected", [
    (3, (3, "UNKNOWN_TOPIC_OR_PARTITION")),     # librdkafka: UNKNOWN_TOPIC_OR_PART
    (-188, (3, "UNKNOWN_TOPIC_OR_PARTITION")),  # librdkafka: _UNKNOWN_TOPIC
    (-190, (3, "UNKNOWN_TOPIC_OR_PARTITION")),  # librdkafka: _UNKNOWN_PARTITION
    (-179, (69, "GROUP_ID_NOT_FOUND")),         # librdkafka: _UNKNOWN_GROUP
    (-165, (35, "UNSUPPORTED_VERSION")),        # librdkafka: _UNSUPPORTED_FEATURE
    (-1, (-1, "UNKNOWN_SERVER_ERROR")),         # librdkafka and kafka-python: UNKNOWN
    (6, (6, "NOT_LEADER_OR_FOLLOWER")),         # kafka-python: NOT_LEADER_FOR_PARTITION
    (17, (17, "INVALID_TOPIC_EXCEPTION")),      # librdkafka: TOPIC_EXCEPTION, kafka-python: INVALID_TOPIC
    (29, (29, "TOPIC_AUTHORIZATION_FAILED")),
    (-195, (-195, "_TRANSPORT")),               # librdkafka's own: the protocol has no name for it
])
def test_librdkafka_errors_are_named_as_the_protocol_names_them(code, expected):
    from confluent_kafka import KafkaError, KafkaException

    for err in (KafkaError(code), KafkaException(KafkaError(code))):
        info = error_info(err)
        assert (info.code, info.name) == expected


def test_kafka_python_codes_and_other_exceptions():
    assert error_info(_CodeError(3, "UNKNOWN_TOPIC_OR_PARTITION", "gone")) == \
        ErrorInfo(3, "UNKNOWN_TOPIC_OR_PARTITION", "gone")
    assert error_info(_CodeError(10, "MESSAGE_SIZE_TOO_LARGE", "big")).name == "MESSAGE_TOO_LARGE"
    # not a Kafka error: its class names it, and passing it on (item_error) keeps that name
    info = error_info(ValueError("bad"))
    assert info == ErrorInfo(-1, "ValueError", "bad")
    assert error_info(_CodeError(info.code, info.name, info.message)).name == "ValueError"


def test_protocol_code_reverses_protocol_name():
    for code in (-1, 3, 6, 17, 29, 31, 69, 133):
        assert protocol_code(protocol_name(code, "")) == code
    assert protocol_code("UNKNOWN_TOPIC_OR_PART") is None
    assert protocol_code("_TRANSPORT") is None


# ------------------------------------------------------------------------------------------ reachability


def _transport(message: str, code: int = -195) -> ErrorInfo:
    return ErrorInfo(code, "_TRANSPORT" if code == -195 else "_RESOLVE", message)


def test_connection_errors_name_their_address_and_broker():
    f = address_failure(_transport("sasl_plaintext://127.0.0.1:43229/1: Connect to ipv4#127.0.0.1:43229 failed: "
                                   "Connection refused (after 0ms in state CONNECT)"), 5.0)
    assert f == AddressFailure("127.0.0.1:43229", 1, REFUSED, 5.0)
    f = address_failure(_transport("sasl_plaintext://127.0.0.1:43229/bootstrap: Connect to ipv4#127.0.0.1:43229 "
                                   "failed: Connection refused (after 0ms in state CONNECT, 1 identical error(s) "
                                   "suppressed)"), 1.0)
    assert f is not None and (f.address, f.node, f.cause) == ("127.0.0.1:43229", None, REFUSED)
    f = address_failure(_transport("sasl_plaintext://No.Such.invalid:9092/bootstrap: Failed to resolve "
                                   "'No.Such.invalid:9092': Name or service not known (after 2ms in state CONNECT)",
                                   code=-193), 1.0)
    assert f is not None and (f.address, f.cause) == ("no.such.invalid:9092", UNRESOLVED)
    f = address_failure(_transport("127.0.0.1:9092/2: Connection setup timed out in state APIVERSION_QUERY "
                                   "(after 3001ms in state APIVERSION_QUERY)"), 1.0)
    assert f is not None and (f.node, f.cause) == (2, "Connection setup timed out in state APIVERSION_QUERY")
    # a frozen broker: librdkafka's guess at a pre-0.10 broker is left out
    f = address_failure(_transport("sasl_plaintext://127.0.0.1:57289/3: ApiVersionRequest failed: Local: Timed out: "
                                   "probably due to broker version < 0.10 (see api.version.request configuration) "
                                   "(after 10009ms in state APIVERSION_QUERY)"), 1.0)
    assert f is not None and (f.node, f.cause) == (3, "Local: Timed out")
    # librdkafka's own count is not about an address
    assert address_failure(ErrorInfo(-187, "_ALL_BROKERS_DOWN", "2/2 brokers are down"), 1.0) is None


def _refused(address: str, node: int | None = None, at: float = 10.0) -> AddressFailure:
    return AddressFailure(address, node, REFUSED, at)


def test_every_bootstrap_address_refused_is_counted_once_each():
    reach = Reach.of("127.0.0.1:1,127.0.0.1:2", {}, [_refused("127.0.0.1:1"), _refused("127.0.0.1:2"),
                                                    _refused("127.0.0.1:1", at=11.0)])
    assert reach.every_address_refuses(since=9.0)
    assert reach.cause(since=9.0) == "connection refused by 2 of 2 addresses"
    # a refusal from before the episode says nothing about it
    assert not reach.every_address_refuses(since=10.5)


def test_one_address_of_two_refusing_is_one_of_two():
    reach = Reach.of("127.0.0.1:1,127.0.0.1:2", {}, [_refused("127.0.0.1:1")])
    assert not reach.every_address_refuses(since=9.0)
    assert reach.detail(since=9.0) == "1 of 2 addresses down: 127.0.0.1:1 refused the connection"


def test_a_bootstrap_address_and_its_broker_are_one_broker():
    """librdkafka says '2/2 brokers are down' here: the bootstrap connection and broker 1's are both counted."""
    reach = Reach.of("127.0.0.1:9092", {1: "127.0.0.1:9092"},
                     [_refused("127.0.0.1:9092", None), _refused("127.0.0.1:9092", 1)])
    assert reach.every_address_refuses(since=9.0)
    assert reach.cause(since=9.0) == "connection refused"
    # two names for the one broker in the bootstrap list: both must refuse, and the count is of brokers
    reach = Reach.of("localhost:9092,127.0.0.1:9092", {1: "127.0.0.1:9092"},
                     [_refused("localhost:9092"), _refused("127.0.0.1:9092", 1)])
    assert reach.every_address_refuses(since=9.0) and reach.cause(since=9.0) == "connection refused"
    assert not Reach.of("localhost:9092,127.0.0.1:9092", {1: "127.0.0.1:9092"},
                        [_refused("127.0.0.1:9092", 1)]).every_address_refuses(since=9.0)


def test_one_broker_stopped_among_three_is_one_of_three():
    brokers = {1: "k1:9092", 2: "k2:9092", 3: "k3:9092"}
    reach = Reach.of("k1:9092", brokers, [_refused("k2:9092", 2)])
    assert not reach.every_address_refuses(since=9.0)  # the others answer: no giving up early, no "cannot reach"
    assert reach.detail(since=9.0) == "1 of 3 brokers down: broker 2 at k2:9092 refused the connection"
    reach = Reach.of("k1:9092", brokers, [_refused(a, n) for n, a in brokers.items()] + [_refused("k1:9092")])
    assert reach.every_address_refuses(since=9.0)
    assert reach.cause(since=9.0) == "connection refused by 3 of 3 brokers"


def test_mixed_causes_are_each_named():
    reach = Reach.of("127.0.0.1:1,nope.invalid:9092", {},
                     [_refused("127.0.0.1:1"), AddressFailure("nope.invalid:9092", None, UNRESOLVED, 10.0)])
    assert reach.every_address_refuses(since=9.0)
    assert reach.cause(since=9.0) == ("2 of 2 addresses unreachable: 127.0.0.1:1 refused the connection, "
                                      "nope.invalid:9092 does not resolve")
    only = Reach.of("nope.invalid:9092", {}, [AddressFailure("nope.invalid:9092", None, UNRESOLVED, 10.0)])
    assert only.cause(since=9.0) == "host name does not resolve"


def test_brokers_that_did_not_answer_are_counted_against_the_cluster():
    assert brokers_not_answering("list groups", [(2, "k2:9092")], 3, "each lists only its groups") == \
        "cannot list groups: 1 of 3 brokers did not answer (broker 2 at k2:9092); each lists only its groups"
