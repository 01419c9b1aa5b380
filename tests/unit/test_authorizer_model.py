"""The StandardAuthorizer model on its own: Kafka's stated rules, and properties over random ACL sets.

Its agreement with the real broker is a separate, differential test (issue 8)."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from kafkactl.acl.authorizer import (
    ALLOW_ACL,
    DENY_ACL,
    NO_ACL_DEFAULT,
    NO_MATCHING_ALLOW,
    SUPER_USER,
    Authorizer,
    operation_applies,
)
from kafkactl.acl.model import SUPPORTED_OPERATIONS, AclBinding, AclOperation, PatternType, Permission, ResourceType

T, G, C = ResourceType.TOPIC, ResourceType.GROUP, ResourceType.CLUSTER
L, P = PatternType.LITERAL, PatternType.PREFIXED
A, D = Permission.ALLOW, Permission.DENY
Op = AclOperation
IP = "127.0.0.1"


def acl(name, op, perm=A, principal="User:alice", host="*", rtype=T, pattern=L):
    return AclBinding(rtype, name, pattern, principal, host, op, perm)


def decide(acls, op, name="orders.eu", principal="User:alice", host=IP, rtype=T, **kw):
    return Authorizer(acls, **kw).authorize(principal, host, op, rtype, name)


def test_no_acl_on_the_resource_falls_to_the_default():
    assert decide([], Op.READ).reason == NO_ACL_DEFAULT and not decide([], Op.READ).allowed
    assert decide([], Op.READ, allow_everyone_if_no_acl=True).allowed
    # one ACL for anybody on the resource switches it to deny-by-default for everyone else
    d = decide([acl("orders.eu", Op.READ, principal="User:bob")], Op.READ, allow_everyone_if_no_acl=True)
    assert not d.allowed and d.reason == NO_MATCHING_ALLOW


def test_resource_patterns_literal_wildcard_prefixed():
    assert decide([acl("orders.eu", Op.READ)], Op.READ).allowed
    assert decide([acl("*", Op.READ)], Op.READ).allowed
    assert decide([acl("orders.", Op.READ, pattern=P)], Op.READ).allowed
    assert decide([acl("orders.eu", Op.READ, pattern=P)], Op.READ).allowed  # a prefix may be the whole name
    assert not decide([acl("orders.eu.x", Op.READ, pattern=P)], Op.READ).allowed
    assert not decide([acl("orders", Op.READ)], Op.READ).allowed  # literal: exact only
    # PREFIXED "*" is a literal prefix, not a wildcard
    assert not decide([acl("*", Op.READ, pattern=P)], Op.READ).allowed
    assert decide([acl("*", Op.READ, pattern=P)], Op.READ, name="*x").allowed
    # another resource type never counts
    assert decide([acl("orders.eu", Op.READ, rtype=G)], Op.READ).reason == NO_ACL_DEFAULT


def test_principals_hosts_and_super_users():
    assert decide([acl("orders.eu", Op.READ, principal="User:*")], Op.READ).allowed
    assert decide([acl("orders.eu", Op.READ, principal="User:*")], Op.READ, principal="Group:ops").allowed
    assert not decide([acl("orders.eu", Op.READ, principal="User:bob")], Op.READ).allowed
    assert not decide([acl("orders.eu", Op.READ, principal="user:alice")], Op.READ).allowed  # case-sensitive
    assert decide([acl("orders.eu", Op.READ, host=IP)], Op.READ).allowed
    assert not decide([acl("orders.eu", Op.READ, host="10.0.0.1")], Op.READ).allowed
    assert not decide([acl("orders.eu", Op.READ, host="127.0.0.0/8")], Op.READ).allowed  # CIDR: 4.4+ only
    assert decide([acl("orders.eu", Op.READ, host="127.0.0.0/8")], Op.READ, cidr_hosts=True).allowed
    d = decide([acl("orders.eu", Op.ALL, D)], Op.READ, super_users=["User:alice"])
    assert d.allowed and d.reason == SUPER_USER
    assert not decide([], Op.READ, super_users=["User:*"]).allowed  # not a wildcard in super.users


def test_deny_wins_and_implications_are_allow_only():
    d = decide([acl("orders.eu", Op.READ), acl("orders.", Op.READ, D, pattern=P)], Op.READ)
    assert not d.allowed and d.reason == DENY_ACL and d.deciding[0].pattern_type is P
    assert decide([acl("orders.eu", Op.READ)], Op.DESCRIBE).allowed  # READ implies DESCRIBE
    for op in (Op.WRITE, Op.DELETE, Op.ALTER):
        assert decide([acl("orders.eu", op)], Op.DESCRIBE).allowed
    assert not decide([acl("orders.eu", Op.CREATE)], Op.DESCRIBE).allowed
    assert decide([acl("orders.eu", Op.ALTER_CONFIGS)], Op.DESCRIBE_CONFIGS).allowed
    # a DENY READ does not deny DESCRIBE
    d = decide([acl("orders.eu", Op.ALL), acl("orders.eu", Op.READ, D)], Op.DESCRIBE)
    assert d.allowed and d.reason == ALLOW_ACL
    assert not decide([acl("orders.eu", Op.DESCRIBE), acl("orders.eu", Op.ALL, D)], Op.DESCRIBE).allowed


def test_operation_applies_table():
    assert operation_applies(Op.ALL, D, Op.IDEMPOTENT_WRITE)
    assert not operation_applies(Op.WRITE, A, Op.IDEMPOTENT_WRITE)
    assert not operation_applies(Op.DESCRIBE_CONFIGS, A, Op.ALTER_CONFIGS)


def test_matrix_covers_the_supported_operations():
    m = Authorizer([acl("kafka-cluster", Op.IDEMPOTENT_WRITE, rtype=C)]).matrix("User:alice", IP, C, "kafka-cluster")
    assert set(m) == SUPPORTED_OPERATIONS[C]
    assert [op for op, d in m.items() if d.allowed] == [Op.IDEMPOTENT_WRITE]


names = st.sampled_from(["a", "ab", "abc", "b", "*", "a*"])
bindings = st.builds(acl, names, st.sampled_from([Op.ALL, Op.READ, Op.WRITE, Op.DESCRIBE, Op.ALTER_CONFIGS]),
                     st.sampled_from([A, D]), st.sampled_from(["User:alice", "User:bob", "User:*"]),
                     st.sampled_from(["*", IP, "10.0.0.1"]), st.just(T), st.sampled_from([L, P]))
asked = st.sampled_from(sorted(SUPPORTED_OPERATIONS[T]))


def _brute_relevant(acls, name):
    return sorted(b for b in acls if b.resource_type is T and (
        (b.pattern_type is L and b.resource_name in (name, "*")) or
        (b.pattern_type is P and name.startswith(b.resource_name))))


@settings(max_examples=300, deadline=None)
@given(acls=st.lists(bindings, max_size=12), name=names)
def test_the_index_finds_exactly_the_relevant_acls(acls, name):
    assert sorted(Authorizer(acls).relevant(T, name)) == _brute_relevant(acls, name)


@settings(max_examples=300, deadline=None)
@given(acls=st.lists(bindings, max_size=10), extra=bindings, name=names, op=asked)
def test_adding_an_allow_never_denies_and_adding_a_deny_never_allows(acls, extra, name, op):
    before = decide(acls, op, name=name)
    after = decide([*acls, extra], op, name=name)
    if extra.permission is A and before.allowed:
        assert after.allowed
    if extra.permission is D and not before.allowed:
        assert not after.allowed


@settings(max_examples=300, deadline=None)
@given(acls=st.lists(bindings, max_size=10), name=names, op=asked)
def test_a_decision_names_the_bindings_that_made_it(acls, name, op):
    d = decide(acls, op, name=name)
    relevant = set(_brute_relevant(acls, name))
    assert set(d.deciding) <= relevant
    if d.reason in (ALLOW_ACL, DENY_ACL):
        assert d.deciding and all(b.permission is (A if d.allowed else D) for b in d.deciding)
    assert (d.reason == NO_ACL_DEFAULT) == (not relevant)


# ------------------------------------------------------------------ who-can

PEOPLE = ["User:alice", "User:bob", "User:carol"]  # carol is never named in `bindings`: User:* speaks for her


def test_who_can_lists_grants_blocks_and_everyone_else():
    acls = [acl("pay", Op.WRITE, pattern=P), acl("payments.eu", Op.ALL, D, host="10.0.0.9"),
            acl("*", Op.WRITE, principal="User:*"), acl("payments.", Op.WRITE, D, principal="User:bob", pattern=P),
            acl("payments.", Op.READ, D, principal="User:dave", pattern=P)]
    rows = Authorizer(acls, super_users=["User:admin"]).who_can(Op.WRITE, T, "payments.eu")
    got = [(r.principal, r.host, r.decision) for r in rows]
    assert got == [("User:admin", "*", "ALLOWED"), ("User:alice", "*", "ALLOWED"),
                   ("User:alice", "10.0.0.9", "DENIED"), ("User:bob", "*", "DENIED"), ("User:*", "*", "ALLOWED")]
    # dave's DENY READ does not apply to WRITE: he is one of "everyone else"
    assert "payments. (PREFIXED)" in rows[3].why and "over ALLOW User:* WRITE" in rows[3].why


def test_who_can_on_a_resource_without_acls():
    assert Authorizer([]).who_can(Op.READ, T, "x") == []
    rows = Authorizer([], allow_everyone_if_no_acl=True).who_can(Op.READ, T, "x")
    assert [(r.principal, r.reason) for r in rows] == [("User:*", NO_ACL_DEFAULT)]


@settings(max_examples=300, deadline=None)
@given(acls=st.lists(bindings, max_size=10), name=names, op=asked, host=st.sampled_from(["*", IP, "10.0.0.1"]),
       everyone=st.booleans(), supers=st.sampled_from([[], ["User:bob"]]))
def test_who_can_agrees_with_authorize_for_every_principal(acls, name, op, host, everyone, supers):
    az = Authorizer(acls, super_users=supers, allow_everyone_if_no_acl=everyone)
    rows = {r.principal: r for r in az.who_can(op, T, name, host)}
    for p in PEOPLE:
        row = rows.get(p) or rows.get("User:*")
        assert az.authorize(p, host, op, T, name).allowed == (row is not None and row.decision == "ALLOWED"), (p, rows)


def test_by_resource_type_follows_the_default_authorizer():
    by = lambda acls, **kw: Authorizer(acls, **kw).authorize_by_resource_type("User:alice", IP, Op.WRITE, T)  # noqa: E731
    assert not by([])
    assert by([], allow_everyone_if_no_acl=True)  # the invented name has no ACL either
    assert by([acl("orders.eu", Op.WRITE)])
    assert not by([acl("orders.eu", Op.READ)])  # no implications here
    assert not by([acl("orders.eu", Op.WRITE), acl("orders.eu", Op.WRITE, D)])
    assert not by([acl("orders.eu", Op.WRITE), acl("ord", Op.ALL, D, pattern=P)])  # a dominating prefix DENY
    assert by([acl("orders.eu", Op.WRITE), acl("orders.eu.x", Op.ALL, D, pattern=P)])
    assert by([acl("orders.", Op.WRITE, pattern=P), acl("orders.", Op.WRITE, D)])  # a LITERAL DENY leaves the prefix
    assert not by([acl("*", Op.WRITE), acl("*", Op.WRITE, D)])  # DENY on * refuses outright
    assert by([acl("hard", Op.WRITE, pattern=P), acl("hard", Op.WRITE, D, pattern=P)]) is False
    assert by([acl("h", Op.WRITE, pattern=P)])  # covers the invented name "hardcode"
    assert by([acl("x", Op.WRITE, host="10.0.0.1")]) is False
    assert Authorizer([], super_users=["User:alice"]).authorize_by_resource_type("User:alice", IP, Op.WRITE, T)
