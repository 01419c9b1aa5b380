"""The table behind `acls why` (issue 17): which checks a question yields, and the grants the model proposes.
What the broker really checks is proved in tests/integration/test_acls_why.py; this is the table's own logic."""

from __future__ import annotations

import pytest

from kafkactl.acl.apis import (
    APIS,
    Ask,
    checks_for_apis,
    checks_for_error,
    checks_for_role,
    find_api,
    find_error,
    find_role,
)
from kafkactl.acl.authorizer import Authorizer
from kafkactl.acl.model import AclBinding, AclOperation, PatternType, Permission, ResourceType
from kafkactl.acl.why import decide
from kafkactl.errors import UsageError

P = "User:app"


def allow(rtype, name, op, pattern=PatternType.LITERAL, principal=P, permission=Permission.ALLOW):
    return AclBinding(rtype, name, pattern, principal, "*", op, permission)


def rows(bindings, checks, together=True):
    return decide(Authorizer(bindings), P, "*", checks, together)


def test_every_api_is_named_once_with_its_key():
    assert len({a.name for a in APIS}) == len(APIS) and len({a.key for a in APIS}) == len(APIS)


@pytest.mark.parametrize("typed,name", [("produce", "Produce"), ("init_producer_id", "InitProducerId"),
                                        ("Offset-Commit", "OffsetCommit")])
def test_api_names_are_read_as_kafka_spells_them_in_any_case(typed, name):
    assert find_api(typed).name == name


def test_unknown_names_are_one_line_with_a_suggestion():
    with pytest.raises(UsageError, match=r"--api 'Prodce' is not an API kafkactl knows \(did you mean Produce\?\)"):
        find_api("Prodce")
    with pytest.raises(UsageError, match=r"did you mean consumer\?"):
        find_role("consumr")
    with pytest.raises(UsageError, match=r"--error 'TOPIC_AUTH' is not an authorization error"):
        find_error("TOPIC_AUTH")
    assert find_error("29") == "TOPIC_AUTHORIZATION_FAILED" and find_error("group-authorization-failed")


def test_an_api_needing_a_resource_says_which_option():
    with pytest.raises(UsageError, match="--api Produce needs --topic"):
        checks_for_apis([find_api("Produce")], Ask())
    with pytest.raises(UsageError, match="--role consumer needs --group"):
        checks_for_role(find_role("consumer"), Ask(topics=("t",)))


def test_checks_are_made_per_resource_and_merged_across_apis():
    checks = checks_for_role(find_role("consumer"), Ask(topics=("a", "b"), groups=("g",)))
    said = {(c.alternatives[0][0], c.alternatives[0][2]) for c in checks}
    assert said == {(AclOperation.DESCRIBE, "a"), (AclOperation.DESCRIBE, "b"), (AclOperation.READ, "a"),
                    (AclOperation.READ, "b"), (AclOperation.DESCRIBE, "g"), (AclOperation.READ, "g")}
    read_group = next(c for c in checks if c.alternatives == ((AclOperation.READ, "group", "g"),))
    assert read_group.apis == ("JoinGroup", "SyncGroup", "Heartbeat", "OffsetCommit", "LeaveGroup")


def test_a_consumer_needs_read_on_topic_and_group_only():
    """READ implies DESCRIBE (for ALLOW): the grants are the two READs, as AclCommand's --consumer minus DESCRIBE."""
    checks = checks_for_role(find_role("consumer"), Ask(topics=("t",), groups=("g",)))
    grants = sorted(r.grant for r in rows([], checks) if r.grant.startswith("kafkactl acls create"))
    assert grants == ["kafkactl acls create --allow-principal User:app --operation Read --group g",
                      "kafkactl acls create --allow-principal User:app --operation Read --topic t"]


def test_idempotent_producer_write_on_a_topic_stands_in_for_idempotent_write():
    checks = checks_for_role(find_role("producer"), Ask(topics=("t",)))
    got = rows([allow(ResourceType.TOPIC, "t", AclOperation.WRITE)], checks)
    assert all(r.decision == "ALLOWED" for r in got), got
    init = next(r for r in got if r.apis == "InitProducerId")
    assert init.resource_name == "any" and init.operation == "WRITE"
    # with nothing granted, the topic's Write grant covers it: no IdempotentWrite on the cluster proposed
    grants = [r.grant for r in rows([], checks)]
    assert "kafkactl acls create --allow-principal User:app --operation Write --topic t" in grants
    assert not any("IdempotentWrite" in g for g in grants), grants


def test_a_transactional_id_makes_init_producer_id_check_the_id_not_the_cluster():
    checks = checks_for_apis([find_api("InitProducerId")], Ask(transactional_ids=("tx",)))
    assert [c.alternatives for c in checks] == [((AclOperation.WRITE, "transactional-id", "tx"),)]


def test_create_topics_proposes_the_topic_not_the_cluster_and_either_allows():
    checks = checks_for_apis([find_api("CreateTopics")], Ask(topics=("new",)))
    (r,) = rows([], checks)
    assert r.grant.endswith("--operation Create --topic new") and "CREATE on CLUSTER:kafka-cluster" in r.why
    (r,) = rows([allow(ResourceType.CLUSTER, "kafka-cluster", AclOperation.CREATE)], checks)
    assert r.decision == "ALLOWED" and r.resource_type == "CLUSTER"


def test_a_deny_is_removed_not_outgranted():
    deny = allow(ResourceType.TOPIC, "orders.", AclOperation.READ, PatternType.PREFIXED, permission=Permission.DENY)
    checks = checks_for_apis([find_api("Fetch")], Ask(topics=("orders.eu",)))
    (r,) = rows([deny, allow(ResourceType.TOPIC, "orders.eu", AclOperation.READ)], checks)
    assert r.decision == "DENIED" and r.grant == ("kafkactl acls delete --deny-principal User:app --deny-host '*' "
                                                  "--operation Read --topic orders. --resource-pattern-type prefixed")


def test_configs_of_a_broker_only_when_the_cluster_is_asked():
    assert checks_for_apis([find_api("DescribeConfigs")], Ask(topics=("t",)))[0].error == "TOPIC_AUTHORIZATION_FAILED"
    (c,) = checks_for_apis([find_api("DescribeConfigs")], Ask(cluster=True))
    assert c.alternatives == ((AclOperation.DESCRIBE_CONFIGS, "cluster", "kafka-cluster"),)


def test_an_error_lists_every_check_that_answers_it_with_no_implied_grants():
    checks = checks_for_error("GROUP_AUTHORIZATION_FAILED", Ask(groups=("g",)))
    ops = {c.alternatives[0][0] for c in checks}
    assert ops == {AclOperation.DESCRIBE, AclOperation.READ, AclOperation.DELETE, AclOperation.DESCRIBE_CONFIGS,
                   AclOperation.ALTER_CONFIGS}
    assert all(c.error == "GROUP_AUTHORIZATION_FAILED" for c in checks)
    describe = next(r for r in rows([], checks, together=False) if r.operation == "DESCRIBE")
    assert describe.grant.startswith("kafkactl acls create")  # a candidate of its own, not "granted with Read"


def test_list_groups_without_a_group_asks_the_cluster_only():
    (c,) = checks_for_apis([find_api("ListGroups")], Ask())
    assert c.alternatives == ((AclOperation.DESCRIBE, "cluster", "kafka-cluster"),) and c.error.startswith("(left")
