"""Wire enums, operation parsing, supported operations, principals, filter semantics."""

from __future__ import annotations

import pytest

from kafkactl.acl.model import (
    SUPPORTED_OPERATIONS,
    AclBinding,
    AclFilter,
    AclOperation,
    PatternType,
    Permission,
    ResourceType,
    check_operation_supported,
    parse_operation,
    parse_pattern_type,
    validate_principal,
)
from kafkactl.errors import UsageError

Op, RT, PT, P = AclOperation, ResourceType, PatternType, Permission


def test_wire_codes_are_kafkas():
    assert [(o.name, o.value) for o in Op][-4:] == [("IDEMPOTENT_WRITE", 12), ("CREATE_TOKENS", 13),
                                                    ("DESCRIBE_TOKENS", 14), ("TWO_PHASE_COMMIT", 15)]
    assert (RT.CLUSTER, RT.DELEGATION_TOKEN, RT.USER) == (4, 6, 7)
    assert (PT.MATCH, PT.LITERAL, PT.PREFIXED) == (2, 3, 4)
    assert (P.DENY, P.ALLOW) == (2, 3)


def test_unknown_codes_decode_to_unknown():
    assert Op.decode(99) is Op.UNKNOWN and RT.decode(42) is RT.UNKNOWN and Op.decode(15) is Op.TWO_PHASE_COMMIT


@pytest.mark.parametrize("text", ["IdempotentWrite", "IDEMPOTENTWRITE", "idempotent-write", "idempotent_write",
                                  "IDEMPOTENT_WRITE", " idempotentwrite "])
def test_operation_spellings(text):
    assert parse_operation(text) is Op.IDEMPOTENT_WRITE


def test_misspelt_operation_suggests_the_nearest():
    with pytest.raises(UsageError, match=r"'Wirte' is not an operation \(did you mean Write\?\)"):
        parse_operation("Wirte")
    with pytest.raises(UsageError, match="did you mean DescribeConfigs"):
        parse_operation("DescribeConfig")


@pytest.mark.parametrize("text", ["Any", "unknown"])
def test_filter_only_operations_are_refused(text):
    with pytest.raises(UsageError):
        parse_operation(text)


def test_supported_operations_table_matches_the_kip430_bitfields():
    bits = {rt: sum(1 << o for o in ops) for rt, ops in SUPPORTED_OPERATIONS.items()}
    assert bits == {RT.TOPIC: 3576, RT.GROUP: 3400, RT.CLUSTER: 8096, RT.TRANSACTIONAL_ID: 33040,
                    RT.DELEGATION_TOKEN: 256, RT.USER: 24576}


def test_unsupported_operation_lists_the_valid_ones():
    with pytest.raises(UsageError) as e:
        check_operation_supported(RT.GROUP, Op.WRITE)
    assert "Write is not supported on GROUP" in str(e.value) and "Read" in str(e.value) and "All" in str(e.value)
    check_operation_supported(RT.USER, Op.ALL)  # ALL may be granted on any type


@pytest.mark.parametrize("bad", ["alice", ":alice", "User:", "", "  "])
def test_bad_principals(bad):
    with pytest.raises(UsageError):
        validate_principal(bad)


def test_principal_splits_at_the_first_colon():
    assert validate_principal("User:CN=a:b,O=x") == "User:CN=a:b,O=x"
    assert validate_principal("User:*") == "User:*"


def test_any_and_match_are_refused_for_create():
    with pytest.raises(UsageError, match="not valid when creating"):
        parse_pattern_type("match", for_create=True)
    assert parse_pattern_type("Match", for_create=False) is PT.MATCH


def b(name, pt=PT.LITERAL, rt=RT.TOPIC, principal="User:a", host="*", op=Op.READ, perm=P.ALLOW):
    return AclBinding(rt, name, pt, principal, host, op, perm)


FIXTURE = [b("orders.eu"), b("orders.", PT.PREFIXED), b("orders", PT.PREFIXED), b("*"), b("*", PT.PREFIXED),
           b("orders.eu", PT.PREFIXED), b("other"), b("orders.eu", rt=RT.GROUP)]


def names(f):
    return sorted((x.resource_type.name, x.resource_name, x.pattern_type.name) for x in FIXTURE if f.matches(x))


def test_match_is_every_acl_that_applies_to_the_name():
    assert names(AclFilter(RT.TOPIC, "orders.eu", PT.MATCH)) == [
        ("TOPIC", "*", "LITERAL"), ("TOPIC", "orders", "PREFIXED"), ("TOPIC", "orders.", "PREFIXED"),
        ("TOPIC", "orders.eu", "LITERAL"), ("TOPIC", "orders.eu", "PREFIXED")]


def test_any_is_every_pattern_type_with_the_exact_name():
    assert names(AclFilter(RT.TOPIC, "orders.eu", PT.ANY)) == [("TOPIC", "orders.eu", "LITERAL"),
                                                               ("TOPIC", "orders.eu", "PREFIXED")]


def test_star_as_a_filter_value_is_only_the_literal_star():
    assert names(AclFilter(RT.TOPIC, "*", PT.LITERAL)) == [("TOPIC", "*", "LITERAL")]
    assert names(AclFilter(RT.TOPIC, "*", PT.ANY)) == [("TOPIC", "*", "LITERAL"), ("TOPIC", "*", "PREFIXED")]


def test_absent_fields_match_anything():
    assert len(names(AclFilter())) == len(FIXTURE)
