"""The KIP-430 codec: every combination of supported bits for every type, the sentinel, negatives, future bits."""

from __future__ import annotations

from itertools import combinations

import pytest

from kafkactl.acl.bitfield import NOT_SUPPLIED, decode, encode, from_bit_positions
from kafkactl.acl.model import SUPPORTED_OPERATIONS, AclOperation, ResourceType

CASES = [(rt, set(combo)) for rt, ops in SUPPORTED_OPERATIONS.items()
         for k in range(len(ops) + 1) for combo in combinations(sorted(ops), k)]


def test_the_cases_cover_every_subset():
    assert len(CASES) == sum(2 ** len(ops) for ops in SUPPORTED_OPERATIONS.values()) == 256 + 32 + 128 + 8 + 2 + 4


@pytest.mark.parametrize("rt,ops", CASES,
                         ids=lambda v: getattr(v, "name", None) or ",".join(o.name for o in sorted(v)) or "empty")
def test_every_combination_round_trips(rt, ops):
    bits = encode(ops)
    d = decode(bits, rt)
    assert d.supplied and d.operations == ops and d.unknown == () and d.raw == bits
    assert bits == sum(1 << int(o) for o in ops)  # bit 1 << code, by the table in kafka-semantics §2


def test_all_ops_bitfields_of_the_table():
    assert {rt: encode(ops) for rt, ops in SUPPORTED_OPERATIONS.items()} == {
        ResourceType.TOPIC: 3576, ResourceType.GROUP: 3400, ResourceType.CLUSTER: 8096,
        ResourceType.TRANSACTIONAL_ID: 33040, ResourceType.DELEGATION_TOKEN: 256, ResourceType.USER: 24576}


def test_sentinel_is_not_supplied_never_empty():
    d = decode(NOT_SUPPLIED, ResourceType.TOPIC)
    assert not d.supplied and d.operations == frozenset() and d.allows(AclOperation.READ) is None
    assert d.to_json() == {"supplied": False, "raw": -2147483648, "operations": None}
    assert decode(None, ResourceType.GROUP).supplied is False


def test_zero_is_a_real_empty_set():
    d = decode(0, ResourceType.CLUSTER)
    assert d.supplied and d.operations == frozenset() and d.allows(AclOperation.DESCRIBE) is False
    assert d.to_json()["operations"] == []


def test_future_bits_are_kept_as_unknown():
    d = decode((1 << 3) | (1 << 8) | (1 << 16) | (1 << 20), ResourceType.TOPIC)
    assert d.operations == {AclOperation.READ, AclOperation.DESCRIBE}
    assert d.unknown == (16, 20) and d.names() == ["READ", "DESCRIBE", "unknown(16)", "unknown(20)"]


def test_bits_outside_the_types_support_and_all_any_unknown_are_unknown():
    d = decode((1 << 0) | (1 << 1) | (1 << 2) | (1 << 4), ResourceType.GROUP)  # UNKNOWN, ANY, ALL, WRITE on a group
    assert d.operations == frozenset() and d.unknown == (0, 1, 2, 4)


def test_negative_values_other_than_the_sentinel():
    d = decode(-1, ResourceType.TOPIC)  # every bit set
    assert d.supplied and d.operations == SUPPORTED_OPERATIONS[ResourceType.TOPIC]
    assert 31 in d.unknown and 16 in d.unknown
    assert decode(NOT_SUPPLIED | (1 << 3), ResourceType.TOPIC).operations == {AclOperation.READ}


@pytest.mark.parametrize("bad", [2**31, -(2**31) - 1, 2**40])
def test_values_outside_int32_are_refused(bad):
    with pytest.raises(ValueError):
        decode(bad, ResourceType.TOPIC)


@pytest.mark.parametrize("op", [AclOperation.ALL, AclOperation.ANY, AclOperation.UNKNOWN])
def test_encode_refuses_filter_only_operations(op):
    with pytest.raises(ValueError):
        encode([op])


def test_kafka_python_bit_position_sets_convert_exactly():
    assert from_bit_positions(None) == NOT_SUPPLIED
    assert from_bit_positions(set()) == 0
    assert from_bit_positions({3, 8}) == 264
    assert from_bit_positions({31}) == NOT_SUPPLIED  # kafka-python maps exactly this to None itself
    assert from_bit_positions({31, 3}) == NOT_SUPPLIED | 8
