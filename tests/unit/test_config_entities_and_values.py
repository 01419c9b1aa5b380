"""kafka-configs.sh's entity model and --add-config syntax, as kafkactl parses them before any request.

Facts from ConfigCommand: settings are split at commas outside square brackets, each at its first '=' (spaces
around the key and value trimmed); a value in brackets is a list and loses its brackets; --entity-default exists
for brokers, users, clients and ips; a broker entity is a broker id; a user and a client together name a
user+client quota; SCRAM iterations default to 4096 and the broker takes 4096 to 16384.
"""

from __future__ import annotations

import re

import pytest

from kafkactl.configs.entities import Entity, EntityOptions, parse_entities
from kafkactl.configs.values import parse_keys, parse_pairs, parse_scram, split_top_level
from kafkactl.errors import UsageError


def entities(need_name: bool = False, **kw) -> list[Entity]:
    kw.setdefault("entity_types", [])
    kw.setdefault("entity_names", [])
    return parse_entities(EntityOptions(**kw), need_name=need_name)


# ------------------------------------------------------------------------------------------------ entities

def test_entity_type_and_name_pair_up_in_order():
    assert entities(entity_types=["topics"], entity_names=["orders"]) == [Entity("topics", "orders")]


def test_a_type_without_a_name_means_every_entity_of_it_for_describe():
    assert entities(entity_types=["brokers"]) == [Entity("brokers", None)]


def test_entity_default_names_the_default_entity():
    assert entities(entity_types=["users"], entity_default=True) == [Entity("users", "", default=True)]
    assert entities(broker_defaults=True) == [Entity("brokers", "", default=True)]
    assert Entity("users", "", default=True).label() == "<default>"


@pytest.mark.parametrize("etype", ["topics", "groups", "broker-loggers", "client-metrics"])
def test_entity_default_only_where_kafka_has_one(etype):
    with pytest.raises(UsageError, match=f"not supported for {etype}"):
        entities(entity_types=[etype], entity_default=True)


def test_shortcuts_name_the_same_entities_as_type_and_name():
    assert entities(topic="t") == entities(entity_types=["topics"], entity_names=["t"])
    assert entities(broker="1") == [Entity("brokers", "1")]
    assert entities(ip="10.0.0.1") == [Entity("ips", "10.0.0.1")]


def test_a_user_with_a_client_is_one_quota_entity_and_other_pairs_are_refused():
    assert entities(user="alice", client="app") == [Entity("users", "alice"), Entity("clients", "app")]
    with pytest.raises(UsageError, match="only one entity at a time"):
        entities(user="alice", topic="t")
    with pytest.raises(UsageError, match="only one entity at a time"):
        entities(entity_types=["users", "users"], entity_names=["a", "b"])


@pytest.mark.parametrize("name", ["one", "1.5", "-1", "2147483648", "1" * 400])
def test_a_broker_entity_is_a_broker_id(name):
    with pytest.raises(UsageError, match="must be a broker id"):
        entities(entity_types=["brokers"], entity_names=[name])


def test_unknown_types_extra_names_and_nothing_named_are_refused():
    with pytest.raises(UsageError, match="'topic' is not one of"):
        entities(entity_types=["topic"])
    with pytest.raises(UsageError, match="more --entity-name than --entity-type"):
        entities(entity_types=["topics"], entity_names=["a", "b"])
    with pytest.raises(UsageError, match="name the entity"):
        entities()


def test_a_change_needs_a_named_or_default_entity():
    with pytest.raises(UsageError, match="name the users entity to change"):
        entities(need_name=True, entity_types=["users"])
    assert entities(need_name=True, entity_types=["users"], entity_default=True)[0].default


def test_topic_entities_follow_topic_naming_rules():
    with pytest.raises(UsageError):
        entities(topic="bad name")


# ------------------------------------------------------------------------------------------- --add-config

def test_settings_split_at_commas_outside_brackets():
    assert split_top_level("a=1,b=[x,y],c=3", "--add-config") == ["a=1", "b=[x,y]", "c=3"]


def test_pairs_split_at_the_first_equals_and_lists_lose_their_brackets():
    assert parse_pairs("cleanup.policy=[compact,delete], retention.ms = 60000,x=a=b") == [
        ("cleanup.policy", "compact,delete"), ("retention.ms", "60000"), ("x", "a=b")]


@pytest.mark.parametrize("text, needle", [("=5", "the key before '=' is missing"), ("k", "is not key=value"),
                                          ("k=[1,2", "unbalanced '['"), ("k=1]", "unbalanced ']'")])
def test_malformed_settings_are_refused_and_named(text, needle):
    with pytest.raises(UsageError, match=re.escape(needle)):
        parse_pairs(text)


def test_delete_config_takes_names_only():
    assert parse_keys("retention.ms,cleanup.policy") == ["retention.ms", "cleanup.policy"]
    with pytest.raises(UsageError, match="takes config names only"):
        parse_keys("retention.ms=1")
    with pytest.raises(UsageError, match="no keys given"):
        parse_keys(",")


# ------------------------------------------------------------------------------------------------- SCRAM

def test_scram_defaults_to_4096_iterations_and_keeps_commas_in_the_password():
    change = parse_scram("SCRAM-SHA-512", "password=a,b=c")
    assert (change.mechanism, change.iterations, change.password.reveal()) == ("SCRAM-SHA-512", 4096, "a,b=c")
    assert parse_scram("SCRAM-SHA-256", "iterations=8192,password=pw").iterations == 8192
    assert parse_scram("SCRAM-SHA-256", "password=pw,iterations=16384").iterations == 16384


@pytest.mark.parametrize("value, needle", [("iterations=4095,password=pw", "below the minimum of 4096"),
                                           ("iterations=16385,password=pw", "16384"),
                                           ("iterations=8192", "a password is required"),
                                           ("secret", "only the settings 'iterations' and 'password'")])
def test_scram_settings_outside_the_brokers_bounds_are_refused(value, needle):
    with pytest.raises(UsageError, match=needle):
        parse_scram("SCRAM-SHA-512", value)


@pytest.mark.parametrize("line", ["SCRAM-SHA-512=[iterations=8192,password=pa,ss]",
                                  "SCRAM-SHA-512=iterations=8192,password=pa,ss"])
def test_a_scram_setting_in_a_config_file_reads_with_or_without_brackets(tmp_path, line):
    """Issue 29: the tour's `--add-config-file` with SCRAM-SHA-512=[password=...] (as --add-config writes it) was
    refused: a file's values kept their brackets. Kafka's own file form has none; both now read the same."""
    from kafkactl.configs.values import parse_file, parse_scram

    f = tmp_path / "u.properties"
    f.write_text(line + "\n")
    ((key, value),) = parse_file(str(f))
    change = parse_scram(key, value)
    assert (key, change.iterations, change.password.reveal()) == ("SCRAM-SHA-512", 8192, "pa,ss")
