"""acls lint on its own: each check on the case it is for, and the soundness of the "removing it changes
nothing" findings, proved against the authorizer model over random ACL sets (hypothesis)."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from kafkactl.acl.authorizer import Authorizer
from kafkactl.acl.lint import effective_ops, java_host, lint
from kafkactl.acl.model import SUPPORTED_OPERATIONS, ResourceType
from tests.unit.test_authorizer_model import IP, A, C, D, G, L, Op, P, T, acl

X = ResourceType.TRANSACTIONAL_ID


def checks(acls, producers=False, **kw):
    """(check, severity, the ACL or principal) of each finding; the producer notes only when asked for."""
    return sorted((f.check, f.severity, f.subject if f.subject.startswith("User:") else f.acls[0])
                  for f in lint(acls, **kw)
                  if producers or f.check != "write-without-idempotent-write")


def test_a_clean_set_has_no_findings():
    acls = [acl("orders.", Op.READ, pattern=P), acl("orders.", Op.READ, rtype=G, pattern=P),
            acl("kafka-cluster", Op.IDEMPOTENT_WRITE, rtype=C), acl("orders.eu", Op.WRITE, principal="User:bob"),
            acl("kafka-cluster", Op.IDEMPOTENT_WRITE, rtype=C, principal="User:bob"),
            acl("orders.secret", Op.READ, D, principal="User:alice")]
    assert lint(acls) == []


def test_redundant_by_a_wider_pattern_principal_host_or_implication():
    wide = acl("orders.", Op.READ, pattern=P)
    for narrow in (acl("orders.eu", Op.READ), acl("orders.eu", Op.DESCRIBE), acl("orders.eu.x", Op.READ, pattern=P),
                   acl("orders.", Op.READ, pattern=P, host=IP)):
        assert checks([wide, narrow]) == [("redundant", "info", narrow)]
    assert checks([acl("*", Op.READ, principal="User:*"), acl("x", Op.READ)]) \
        == [("redundant", "info", acl("x", Op.READ))]
    # ALLOW WRITE and ALLOW DESCRIBE on a group both grant only DESCRIBE: one of the pair is reported, not both
    pair = [acl("g", Op.WRITE, rtype=G), acl("g", Op.DESCRIBE, rtype=G)]
    assert [c[0] for c in checks(pair)] == ["redundant", "unsupported-operation"]
    # not redundant: a narrower principal, another host, an operation not implied
    assert lint([acl("x", Op.READ), acl("x", Op.READ, principal="User:*", host=IP)]) == []
    assert lint([acl("x", Op.READ), acl("x", Op.ALTER)]) == []


def test_shadowed_allow_and_idle_deny():
    allow, deny = acl("orders.eu", Op.READ), acl("orders.", Op.ALL, D, pattern=P)
    assert checks([allow, deny]) == [("shadowed", "warning", allow)]
    # DENY READ leaves DESCRIBE: the ALLOW READ still grants something
    assert lint([allow, acl("orders.eu", Op.READ, D)]) == []
    idle = acl("payments", Op.ALL, D)
    assert ("deny-removes-nothing", "info", idle) in checks([allow, idle])
    assert ("deny-removes-nothing", "info", acl("orders.eu", Op.READ, D, host="10.0.0.1")) in checks(
        [acl("orders.eu", Op.READ, host=IP), acl("orders.eu", Op.READ, D, host="10.0.0.1")])
    # with allow.everyone.if.no.acl.found a lone DENY still removes access: not reported
    assert lint([idle], allow_everyone_if_no_acl=True) == []


def test_wide_and_misleading_spellings():
    assert checks([acl("*", Op.ALL, principal="User:*")]) \
        == [("allow-all-on-wildcard", "error", acl("*", Op.ALL, principal="User:*"))]
    assert checks([acl("*", Op.ALL)])[0][:2] == ("allow-all-on-wildcard", "warning")
    assert checks([acl("*", Op.READ, pattern=P)]) == [("prefixed-wildcard", "warning", acl("*", Op.READ, pattern=P))]
    assert checks([acl("g", Op.WRITE, D, rtype=G)])[0][:2] == ("unsupported-operation", "warning")
    for host in ("localhost", "::1", "10.0.0.0/8", "10.0.0.300"):
        assert [c[0] for c in checks([acl("x", Op.READ, host=host)])] == ["unmatchable-host"], host
    assert lint([acl("x", Op.READ, host="10.0.0.0/8")], cidr_hosts=True) == []
    assert lint([acl("x", Op.READ, host="0:0:0:0:0:0:0:1")]) == []
    assert checks([acl("x", Op.READ, principal="user:bob")])[0][0] == "principal-type-case"
    assert checks([acl("x", Op.READ, D, principal="User:admin")], super_users=["User:admin"])[0][:2] == (
        "super-user-acl", "warning")


def test_producer_checks():
    write = acl("orders.eu", Op.WRITE)
    assert checks([write], producers=True) == [("write-without-idempotent-write", "info", "User:alice")]
    assert lint([write, acl("kafka-cluster", Op.IDEMPOTENT_WRITE, rtype=C)]) == []
    txn_describe = acl("tx-", Op.DESCRIBE, rtype=X, pattern=P)
    assert ("transactional-id-without-write", "warning", "User:alice") in checks([write, txn_describe])
    txn_write = acl("tx-", Op.WRITE, rtype=X, pattern=P)
    assert ("transactional-without-topic-write", "warning", "User:alice") in checks([txn_write])
    assert [c[0] for c in checks([write, txn_write], producers=True)] == ["write-without-idempotent-write"]


def test_helpers():
    assert java_host("::1") == "0:0:0:0:0:0:0:1" and java_host("127.0.0.1") == IP and java_host("host") is None
    assert effective_ops(acl("x", Op.ALTER_CONFIGS)) == {Op.ALTER_CONFIGS, Op.DESCRIBE_CONFIGS}
    assert effective_ops(acl("x", Op.ALTER_CONFIGS, D)) == {Op.ALTER_CONFIGS}
    assert effective_ops(acl("x", Op.IDEMPOTENT_WRITE)) == frozenset()
    assert effective_ops(acl("x", Op.ALL, rtype=G)) == SUPPORTED_OPERATIONS[G]


# ------------------------------------------------------------------ soundness over random sets

names = st.sampled_from(["a", "ab", "abc", "b", "*"])
bindings = st.builds(acl, names, st.sampled_from([Op.ALL, Op.READ, Op.WRITE, Op.DESCRIBE, Op.ALTER_CONFIGS,
                                                  Op.DESCRIBE_CONFIGS]),
                     st.sampled_from([A, D]), st.sampled_from(["User:alice", "User:bob", "User:*"]),
                     st.sampled_from(["*", IP, "10.0.0.1"]), st.just(T), st.sampled_from([L, P]))
RESOURCES = ["a", "ab", "abc", "abd", "b", "c", "*"]


def decisions(acls):
    az = Authorizer(acls)
    return {(p, h, op, n): az.authorize(p, h, op, T, n).allowed for p in ("User:alice", "User:bob", "User:carol")
            for h in (IP, "10.0.0.1", "10.9.9.9") for op in SUPPORTED_OPERATIONS[T] for n in RESOURCES}


@settings(max_examples=400, deadline=None)
@given(acls=st.lists(bindings, max_size=10, unique=True))
def test_removing_an_acl_lint_calls_inert_changes_no_decision(acls):
    before = decisions(acls)
    for f in lint(acls):
        if f.check in ("redundant", "shadowed", "deny-removes-nothing"):
            assert decisions([b for b in acls if b != f.acls[0]]) == before, f
