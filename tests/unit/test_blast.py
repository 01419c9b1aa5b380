"""The blast radius of an ACL plan (issue 28): who gains and loses which operations on the resources that exist,
decided before and after by the authorizer model, and the guards on it."""

from __future__ import annotations

import pytest

from kafkactl.acl import blast
from kafkactl.acl.blast import Shift, blast_radius, check_guards
from kafkactl.acl.model import CLUSTER_NAME, AclBinding, AclOperation, PatternType, Permission, ResourceType
from kafkactl.errors import UsageError

Op, RT, PT = AclOperation, ResourceType, PatternType
TOPICS = [f"orders.{i}" for i in range(1240)] + ["payments", "other"]
EXISTING = {RT.TOPIC: TOPICS, RT.GROUP: ["g1"], RT.TRANSACTIONAL_ID: []}


def acl(principal, rtype, name, pattern, op, perm=Permission.ALLOW, host="*"):
    return AclBinding(rtype, name, pattern, principal, host, op, perm)


def rows(shifts):
    return {(s.principal, s.change, s.operation, s.resource_type, s.resources) for s in shifts}


def test_a_prefix_counts_the_topics_it_covers_and_implied_operations():
    shifts, why = blast_radius("c", [], [acl("User:app", RT.TOPIC, "orders.", PT.PREFIXED, Op.READ)], [], EXISTING)
    assert why is None
    assert rows(shifts) == {("User:app", "gains", "READ", "TOPIC", 1240),
                            ("User:app", "gains", "DESCRIBE", "TOPIC", 1240)}
    read = next(s for s in shifts if s.operation == "READ")
    assert read.examples == "orders.0, orders.1, orders.10"
    assert read.sentence() == "c: User:app gains READ on 1,240 topics (orders.0, orders.1, orders.10, ...)"


def test_what_another_acl_still_grants_is_no_loss_and_a_deny_is_one():
    keep = acl("User:app", RT.TOPIC, "*", PT.LITERAL, Op.READ)
    gone = acl("User:app", RT.TOPIC, "payments", PT.LITERAL, Op.READ)
    shifts, _ = blast_radius("c", [keep, gone], [], [gone], EXISTING)
    assert shifts == []  # '*' still grants it
    deny = acl("User:app", RT.TOPIC, "payments", PT.LITERAL, Op.READ, Permission.DENY)
    shifts, _ = blast_radius("c", [keep], [deny], [], EXISTING)
    assert rows(shifts) == {("User:app", "loses", "READ", "TOPIC", 1)}  # (a DENY READ leaves DESCRIBE)


def test_a_host_specific_grant_is_a_gain_from_that_host():
    shifts, _ = blast_radius("c", [], [acl("User:app", RT.GROUP, "g1", PT.LITERAL, Op.READ, host="10.0.0.1")], [],
                             EXISTING)
    assert rows(shifts) == {("User:app", "gains", "READ", "GROUP", 1), ("User:app", "gains", "DESCRIBE", "GROUP", 1)}


def test_super_users_and_resources_that_do_not_exist_do_not_count():
    grants = [acl("User:root", RT.TOPIC, "*", PT.LITERAL, Op.ALL), acl("User:app", RT.TOPIC, "nowhere", PT.LITERAL,
                                                                        Op.READ)]
    shifts, _ = blast_radius("c", [], grants, [], EXISTING, super_users=["User:root"])
    assert shifts == []


def test_every_principal_needs_its_flag_whether_granted_or_unblocked():
    every = acl("User:*", RT.TOPIC, "nowhere", PT.LITERAL, Op.READ)  # (a topic that does not exist yet counts)
    with pytest.raises(UsageError, match=r"grants every principal \(User:\*\) READ.*--allow-every-principal"):
        check_guards("c", [], [every], [], None, allow_every_principal=False, allow_lockout=False)
    assert check_guards("c", [], [every], [], None, allow_every_principal=True, allow_lockout=False) == [
        "c: the plan grants every principal (User:*) READ on TOPIC:nowhere (--allow-every-principal given)"]
    assert check_guards("c", [], [every], [], None, allow_every_principal=None, allow_lockout=None) == [
        "c: the plan grants every principal (User:*) READ on TOPIC:nowhere: apply refuses it without "
        "--allow-every-principal"]
    deny = acl("User:*", RT.TOPIC, "payments", PT.LITERAL, Op.READ, Permission.DENY)
    with pytest.raises(UsageError, match="takes away the DENY of READ for every principal"):
        check_guards("c", [], [], [deny], None, allow_every_principal=False, allow_lockout=False)
    # a DENY for every principal added, or an ALLOW for it taken away, narrows: no flag
    assert check_guards("c", [], [deny], [every], None, allow_every_principal=False, allow_lockout=False) == []


def test_taking_from_the_caller_what_administers_the_cluster_needs_its_flag():
    alter = acl("User:ops", RT.CLUSTER, CLUSTER_NAME, PT.LITERAL, Op.ALTER)
    every = acl("User:*", RT.CLUSTER, CLUSTER_NAME, PT.LITERAL, Op.DESCRIBE)
    now = [alter, every]
    # the caller loses Alter it held, and Describe it held only through User:*
    with pytest.raises(UsageError, match="ALTER, DESCRIBE on the cluster from User:ops.*--allow-lockout"):
        check_guards("c", now, [], [alter, every], "User:ops", allow_every_principal=False, allow_lockout=False)
    assert check_guards("c", now, [], [alter, every], "User:ops", allow_every_principal=False, allow_lockout=True)
    assert check_guards("c", now, [], [alter], "User:other", allow_every_principal=False, allow_lockout=False) == []
    assert check_guards("c", now, [], [alter], "User:ops", False, False, super_users=["User:ops"]) == []
    # a DENY from one host is a loss from that host
    deny = acl("User:ops", RT.CLUSTER, CLUSTER_NAME, PT.LITERAL, Op.ALTER, Permission.DENY, host="10.0.0.9")
    with pytest.raises(UsageError, match="ALTER on the cluster from host 10.0.0.9 from User:ops"):
        check_guards("c", now, [deny], [], "User:ops", allow_every_principal=False, allow_lockout=False)
    # who runs the command cannot be told: said, not silently skipped
    said = check_guards("c", now, [], [alter], None, allow_every_principal=False, allow_lockout=False)
    assert len(said) == 1 and "the lock-out check did not run" in said[0]


def test_a_radius_too_large_is_said_not_computed(monkeypatch):
    monkeypatch.setattr(blast, "MAX_DECISIONS", 100)
    shifts, why = blast_radius("c", [], [acl("User:app", RT.TOPIC, "*", PT.LITERAL, Op.READ)], [], EXISTING)
    assert shifts == [] and "not computed" in why


def test_shift_columns_are_its_json_with_the_names_a_list():
    s = Shift("c", "User:a", "gains", "READ", "TOPIC", 2, "a,1, b", ("a,1", "b"))
    assert list(s.to_json()) == list(Shift.COLUMNS) and s.to_json()["examples"] == ["a,1", "b"]


def test_losing_only_describe_says_what_it_stops():
    desc = acl("User:ops", RT.CLUSTER, CLUSTER_NAME, PT.LITERAL, Op.DESCRIBE)
    with pytest.raises(UsageError, match=r"takes DESCRIBE on the cluster from User:ops.*could no longer list ACLs"):
        check_guards("c", [desc], [], [desc], "User:ops", allow_every_principal=False, allow_lockout=False)
