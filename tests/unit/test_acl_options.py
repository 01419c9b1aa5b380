"""kafka-acls.sh option semantics (AclCommand), checked binding by binding."""

from __future__ import annotations

import pytest

from kafkactl.acl.model import AclOperation as Op, PatternType as PT, Permission as P, ResourceType as RT
from kafkactl.acl.options import AclOptions, bindings_for_create, filters_for_query, matches_every_acl
from kafkactl.errors import UsageError


def tuples(o):
    return {(x.resource_type, x.resource_name, x.pattern_type, x.principal, x.host, x.operation, x.permission)
            for x in bindings_for_create(o)}


def test_cross_product_of_resources_principals_hosts_operations():
    got = tuples(AclOptions(topics=["t1", "t2"], allow_principals=["User:a", "User:b"],
                            allow_hosts=["1.1.1.1", "2.2.2.2"],
                            operations=["Read", "Write"], deny_principals=["User:c"]))
    assert len(got) == 2 * (2 * 2 * 2 + 1 * 1 * 2)
    assert (RT.TOPIC, "t1", PT.LITERAL, "User:c", "*", Op.WRITE, P.DENY) in got  # deny host defaults to *


def test_operation_defaults_to_all():
    assert tuples(AclOptions(groups=["g"], allow_principals=["User:a"])) == {
        (RT.GROUP, "g", PT.LITERAL, "User:a", "*", Op.ALL, P.ALLOW)}


def test_producer_shortcut_exact_bindings():
    got = tuples(AclOptions(topics=["t"], transactional_ids=["tx"], producer=True, idempotent=True,
                            allow_principals=["User:p"], pattern_type="prefixed"))
    assert got == {(RT.TOPIC, "t", PT.PREFIXED, "User:p", "*", op, P.ALLOW)
                   for op in (Op.WRITE, Op.DESCRIBE, Op.CREATE)} | \
        {(RT.TRANSACTIONAL_ID, "tx", PT.PREFIXED, "User:p", "*", op, P.ALLOW) for op in (Op.WRITE, Op.DESCRIBE)} | \
        {(RT.CLUSTER, "kafka-cluster", PT.LITERAL, "User:p", "*", Op.IDEMPOTENT_WRITE, P.ALLOW)}


def test_consumer_shortcut_exact_bindings_and_merge_with_producer():
    got = tuples(AclOptions(topics=["t"], groups=["g"], consumer=True, producer=True, allow_principals=["User:c"]))
    assert got == {(RT.TOPIC, "t", PT.LITERAL, "User:c", "*", op, P.ALLOW)
                   for op in (Op.READ, Op.DESCRIBE, Op.WRITE, Op.CREATE)} | \
        {(RT.GROUP, "g", PT.LITERAL, "User:c", "*", Op.READ, P.ALLOW)}


@pytest.mark.parametrize("opts,needle", [
    (AclOptions(topics=["t"], producer=True, operations=["Read"], allow_principals=["User:a"]), "--operation"),
    (AclOptions(topics=["t"], consumer=True, groups=["g"], deny_principals=["User:a"]), "--deny-principal"),
    (AclOptions(topics=["t"], producer=True, deny_hosts=["1.2.3.4"], allow_principals=["User:a"]), "--deny-host"),
    (AclOptions(topics=["t"], idempotent=True, allow_principals=["User:a"]), "--idempotent"),
    (AclOptions(groups=["g"], producer=True, allow_principals=["User:a"]), "--producer needs"),
    (AclOptions(topics=["t"], consumer=True, allow_principals=["User:a"]), "--consumer needs"),
    (AclOptions(topics=["t"], groups=["g"], cluster=True, consumer=True, allow_principals=["User:a"]),
     "--consumer cannot"),
    (AclOptions(topics=["t"], allow_principals=["User:a"], pattern_type="match"), "not valid when creating"),
    (AclOptions(topics=["t"], allow_principals=["User:a"], pattern_type="any"), "not valid when creating"),
    (AclOptions(topics=["t"]), "--allow-principal or --deny-principal"),
    (AclOptions(allow_principals=["User:a"]), "at least one resource"),
    (AclOptions(topics=[""], allow_principals=["User:a"]), "empty"),
    (AclOptions(topics=["t"], allow_principals=["a"]), "Type:name"),
    (AclOptions(topics=["t"], allow_principals=["User:"]), "name is empty"),
    (AclOptions(groups=["g"], allow_principals=["User:a"], operations=["Write"]), "not supported on GROUP"),
    (AclOptions(user_principals=["User:b"], allow_principals=["User:a"], operations=["Read"]), "not supported on USER"),
    (AclOptions(user_principals=["bob"], allow_principals=["User:a"], operations=["CreateTokens"]),
     "--user-principal 'bob': a principal is Type:name"),
    (AclOptions(topics=["t"], allow_principals=["User:a"], operations=["Wirte"]), "did you mean Write"),
    (AclOptions(topics=["t"], allow_hosts=["1.2.3.4"], deny_principals=["User:a"]), "--allow-host given without"),
    (AclOptions(cluster=True, allow_principals=["User:a"], pattern_type="prefixed"), "always"),
])
def test_refusals_before_any_request(opts, needle):
    with pytest.raises(UsageError, match=needle):
        bindings_for_create(opts)


def test_transactional_ids_are_not_trimmed_but_topics_are():
    got = tuples(AclOptions(topics=[" t "], transactional_ids=[" tx "], allow_principals=["User:a"]))
    assert {(x[1]) for x in got} == {"t", " tx "}


def test_every_type_and_new_operations_build():
    got = tuples(AclOptions(transactional_ids=["tx"], delegation_tokens=["tok"], user_principals=["User:b"],
                            allow_principals=["User:a"], operations=["All"]))
    assert {x[0] for x in got} == {RT.TRANSACTIONAL_ID, RT.DELEGATION_TOKEN, RT.USER}
    assert tuples(AclOptions(transactional_ids=["tx"], allow_principals=["User:a"], operations=["TwoPhaseCommit"]))


def test_list_filters_default_to_literal_for_named_resources_and_any_otherwise():
    [f] = filters_for_query(AclOptions(topics=["t"]), for_delete=False)
    assert (f.resource_type, f.resource_name, f.pattern_type, f.principal, f.operation) \
        == (RT.TOPIC, "t", PT.LITERAL, None, Op.ANY)
    [f] = filters_for_query(AclOptions(principals=["User:a"]), for_delete=False)
    assert (f.resource_type, f.resource_name, f.pattern_type, f.principal) == (RT.ANY, None, PT.ANY, "User:a")


def test_delete_with_allow_principal_builds_exact_entries_like_kafka_acls_remove():
    fs = filters_for_query(AclOptions(topics=["t"], allow_principals=["User:a"]), for_delete=True)
    assert [(f.principal, f.host, f.operation, f.permission) for f in fs] == [("User:a", "*", Op.ALL, P.ALLOW)]


@pytest.mark.parametrize("pattern", [None, "any", "match", "prefixed", "literal", "MATCH"])
def test_a_pattern_type_without_a_resource_matches_every_acl(pattern):
    # issue 13: `acls delete --resource-pattern-type any` once passed the --all guard
    assert matches_every_acl(filters_for_query(AclOptions(pattern_type=pattern), for_delete=True))


@pytest.mark.parametrize("opts", [AclOptions(permission="deny"), AclOptions(principals=["User:a"]),
                                  AclOptions(hosts=["10.0.0.1"]), AclOptions(operations=["Read"]),
                                  AclOptions(topics=["t"], pattern_type="match"), AclOptions(cluster=True),
                                  AclOptions(allow_principals=["User:a"], topics=["t"]),
                                  AclOptions(principals=["User:a"], pattern_type="any")])
def test_filters_that_narrow_count(opts):
    assert not matches_every_acl(filters_for_query(opts, for_delete=True))


@pytest.mark.parametrize("pattern", ["any", "match"])
def test_delete_refuses_cluster_with_a_non_specific_pattern_type_as_acl_command_does(pattern):
    with pytest.raises(UsageError, match=f"--cluster with --resource-pattern-type {pattern}"):
        filters_for_query(AclOptions(cluster=True, pattern_type=pattern), for_delete=True)
    # listing them is narrow (the cluster's ACLs), not refused
    [f] = filters_for_query(AclOptions(cluster=True, pattern_type=pattern), for_delete=False)
    assert f.resource_type is RT.CLUSTER




@pytest.mark.parametrize("name, pattern", [("User:bob", None), ("*", None), ("User:team-", "prefixed"),
                                           ("Us", "prefixed")])
def test_user_resources_the_broker_can_match_are_created(name, pattern):
    got = bindings_for_create(AclOptions(user_principals=[name], allow_principals=["User:a"],
                                         operations=["CreateTokens"], pattern_type=pattern))
    assert [(b.resource_type, b.resource_name) for b in got] == [(RT.USER, name)]


def test_delete_entries_with_an_operation_the_resource_lacks_are_refused_as_acl_command_does():
    """CI's delete-safety comparison (issue 13): `--remove --transactional-id x --allow-principal User:b
    --operation Read` is refused by AclCommand ("only supports operations Write,Describe,All")."""
    opts = AclOptions(transactional_ids=["x"], allow_principals=["User:b"], operations=["Read"])
    with pytest.raises(UsageError, match="Read is not supported on TRANSACTIONAL_ID"):
        filters_for_query(opts, for_delete=True)
    # a filter (not an entry) may still look for whatever exists
    assert filters_for_query(AclOptions(transactional_ids=["x"], operations=["Read"]), for_delete=True)
