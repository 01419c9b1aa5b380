"""Desired-state configs, pure logic: reading State files (errors name file, line and value) and planning against a
given cluster state (what is drift and what is not). The cluster side is proved in tests/integration."""

from __future__ import annotations

import pytest

from kafkactl.desired.configs.desired import read_desired
from kafkactl.desired.configs.plan import Current, TopicShape, check_max_deletes, make_plan
from kafkactl.errors import StateFileError, UsageError

HEAD = "apiVersion: kafkactl/v1\nkind: State\n"


def state(tmp_path, body: str, name: str = "s.yaml"):
    p = tmp_path / name
    p.write_text(HEAD + body)
    return p


def changes(plan) -> set:
    return {(c.section, c.entity, c.action, c.key, c.current, c.desired) for c in plan.changes}


@pytest.mark.parametrize("body,needle", [
    ("topics:\n- name: a\n- name: a\n", "topic 'a' is declared twice (first at"),
    ("manage: {topics: [x.]}\ntopics:\n- name: y.a\n", "outside the file's manage.topics"),
    ("quotas:\n- ip: 1.2.3.4\n  user: u\n  values: {connection_creation_rate: 1}\n", "an ip quota stands alone"),
    ("quotas:\n- ip: 1.2.3.4\n  values: {producer_byte_rate: 1}\n", "values.producer_byte_rate: not a quota of ip"),
    ("quotas:\n- user: u\n  default: [user]\n  values: {producer_byte_rate: 1}\n", "both named"),
    ("topics:\n- name: 'a b'\n", "contains ' '"),
    ("topics:\n- name: a\n  partitions: 0\n", "partitions"),
    ("users:\n- name: u\n  scram:\n  - mechanism: SCRAM-SHA-1\n    password: {env: X}\n", "mechanism"),
    ("users:\n- name: u\n  scram:\n  - mechanism: SCRAM-SHA-256\n    password: secret\n", "password"),
    ("users:\n- name: u\n  scram:\n  - mechanism: SCRAM-SHA-256\n    iterations: 100\n    password: {env: X}\n",
     "iterations"),
    ("brokers:\n- broker: leader\n", "broker"),
    ("topic:\n- name: a\n", "topic"),
    # found by the adversary pass
    ("brokers:\n- broker: default\n  configs: {ssl.key.password: hunter2lit}\n", "a secret's value is never written"),
    ("brokers:\n- broker: default\n  configs: {ssl.keystore.key: [PRIVKEYDATA]}\n", "a secret is given as"),
    ("quotas:\n- user: a\n  values: {producer_byte_rate: " + "9" * 400 + "}\n", "is not a number Kafka reads"),
    ("brokers:\n- broker: '9999999999'\n", "a broker id is at most"),
    ("topics:\n- name: a\n  configs: {\"log.cleaner.threads\\n\": 2}\n", "is not a config name"),
    ("users:\n- name: u\n  scram:\n  - mechanism: SCRAM-SHA-256\n    password: {env: \"X\\n\"}\n",
     "is not an environment variable's name"),
    ("users:\n- name: '   '\n", "name: empty"),
    ("", "nothing for configs plan"),
    ("scope: {principals: ['User:a']}\nacls: []\n", "nothing for configs plan"),
])
def test_bad_files_are_refused_naming_the_place(tmp_path, body, needle):
    p = state(tmp_path, body)
    with pytest.raises(StateFileError) as e:
        read_desired([p])
    assert str(p) in e.value.message and needle in e.value.message and "\n" not in e.value.message


def test_secrets_in_clear_are_refused_without_being_repeated(tmp_path):
    p = state(tmp_path,
              "brokers:\n- broker: default\n  configs:\n    sasl.jaas.config: 'x required password=\"jaaspw1\";'\n")
    with pytest.raises(StateFileError) as e:
        read_desired([p])
    assert "jaaspw1" not in e.value.message and "required" not in e.value.message


def test_max_deletes_takes_a_count_or_a_percentage_and_nothing_else():
    from kafkactl.desired.configs.plan import ConfigPlan

    plan = ConfigPlan([], "x", [])
    for bad in ("nan%", "inf%", "150%", "1_0", "-1", "1e3", "lots"):
        with pytest.raises(UsageError, match="--max-deletes"):
            check_max_deletes(plan, bad)


def test_a_secret_file_that_is_no_regular_file_is_refused(tmp_path):
    import os

    from kafkactl.desired.configs.desired import SecretRef

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for path in (str(fifo), "/dev/zero", str(tmp_path)):
        with pytest.raises(StateFileError, match="is not a regular file"):
            SecretRef(file=path).resolve("here")


def test_partitions_written_as_a_whole_float_are_a_whole_number(tmp_path):
    e = read_desired([state(tmp_path, "topics:\n- name: a\n  partitions: 6.0\n")]).entities[("topics", "a")]
    assert e.partitions == 6 and isinstance(e.partitions, int)


def test_a_topic_map_that_makes_two_topics_one_is_refused():
    from kafkactl.desired.diff import TopicMap, _state

    two = Current(topics={"eu.orders": TopicShape(1, 1, False), "orders": TopicShape(3, 1, False)})
    with pytest.raises(UsageError, match="'eu.orders' and 'orders' both 'orders'|'orders' and 'eu.orders' both"):
        _state(two, Current(topics={"orders": TopicShape(3, 1, False)}), TopicMap.parse(["eu.="]))
    with pytest.raises(UsageError, match="mapped twice"):
        TopicMap.parse(["a.=b.", "a.=c."])


def test_an_acl_only_file_is_not_a_config_state_and_a_config_only_file_is_not_an_acl_state(tmp_path):
    from kafkactl.desired.formats.compact import read_compact
    from kafkactl.desired.state import DesiredState

    acl = tmp_path / "acl.yaml"
    acl.write_text("apiVersion: kafkactl/v1\nkind: AclState\nscope: {principals: ['User:a']}\nacls: []\n")
    with pytest.raises(StateFileError, match="holds ACLs only"):
        read_desired([acl])
    cfg = state(tmp_path, "topics:\n- name: a\n")
    with pytest.raises(StateFileError, match="no acls: section"):  # without a scope it would manage every ACL
        read_compact(cfg, DesiredState())
    mixed = tmp_path / "mixed.yaml"
    mixed.write_text("apiVersion: kafkactl/v1\nkind: AclState\nscope: {principals: ['User:a']}\nacls: []\n"
                     "topics:\n- name: a\n")
    with pytest.raises(StateFileError, match="topics"):  # an AclState holds no sections of State
        read_compact(mixed, DesiredState())
    both = state(tmp_path, "scope: {principals: ['User:a']}\nacls:\n- principal: User:a\n  allow:\n"
                           "  - topic: t\n    operations: [Read]\ntopics:\n- name: t\n")
    s = DesiredState()
    read_compact(both, s)
    assert len(s.bindings) == 1 and set(read_desired([both]).entities) == {("topics", "t")}


def test_only_explicit_values_are_managed_and_sensitive_ones_are_not_compared(tmp_path, monkeypatch):
    monkeypatch.setenv("KS_PW", "not-shown-anywhere")
    p = state(tmp_path, "topics:\n- name: a\n  configs: {retention.ms: 1000, cleanup.policy: compact}\n"
                        "brokers:\n- broker: default\n  configs:\n    ssl.key.password: {env: KS_PW}\n"
                        "    log.cleaner.threads: 2\n")
    cur = Current(topics={"a": TopicShape(3, 1, False)},
                  configs={("topics", "a"): {"retention.ms": "1000", "segment.ms": "5"},
                           ("brokers", ""): {"ssl.key.password": None}})
    plan = make_plan(read_desired([p]), cur)
    assert changes(plan) == {("topics", "a", "set", "cleanup.policy", None, "compact"),
                             ("topics", "a", "delete", "segment.ms", "5", None),
                             ("brokers", "<default>", "set", "log.cleaner.threads", None, "2")}
    assert any("ssl.key.password set and sensitive" in n for n in plan.notes)
    assert plan.deletions == 1


def test_a_secret_reference_is_checked_at_plan_time_and_never_shown(tmp_path, monkeypatch):
    monkeypatch.delenv("KS_MISSING", raising=False)
    p = state(tmp_path, "users:\n- name: u\n  scram:\n  - mechanism: SCRAM-SHA-512\n    password: {env: KS_MISSING}\n")
    with pytest.raises(StateFileError, match="KS_MISSING.*is not set"):
        make_plan(read_desired([p]), Current())
    monkeypatch.setenv("KS_MISSING", "hunter2-hunter2")
    plan = make_plan(read_desired([p]), Current())
    assert changes(plan) == {("users", "u", "upsert-scram", "SCRAM-SHA-512", None,
                              "iterations=4096 password=env:KS_MISSING")}
    assert "hunter2" not in repr(plan.to_json()) and "hunter2" not in repr(plan.changes)
    # the same mechanism and iterations on the cluster: nothing to do (the password is not comparable)
    assert not make_plan(read_desired([p]), Current(users={"u": {"SCRAM-SHA-512": 4096}})).changes
    secret = tmp_path / "pw"
    secret.write_text("from-a-file\n")
    f = state(tmp_path,
              f"users:\n- name: u\n  scram:\n  - mechanism: SCRAM-SHA-256\n    password: {{file: {secret}}}\n",
              "f.yaml")
    ref = read_desired([f]).entities[("users", "u")].scram["SCRAM-SHA-256"][1]
    assert ref.resolve("here").reveal() == "from-a-file"  # one trailing newline dropped


def test_partitions_grow_never_shrink_and_a_replication_factor_is_not_reassigned(tmp_path):
    cur = Current(topics={"a": TopicShape(3, 3, False)}, configs={("topics", "a"): {}})
    grow = make_plan(read_desired([state(tmp_path, "topics:\n- name: a\n  partitions: 6\n  replicationFactor: 2\n")]),
                     cur)
    assert changes(grow) == {("topics", "a", "add-partitions", "partitions", "3", "6")}
    assert any("replication factor 3" in w for w in grow.warnings)
    with pytest.raises(StateFileError, match="cannot reduce them to 2"):
        make_plan(read_desired([state(tmp_path, "topics:\n- name: a\n  partitions: 2\n", "b.yaml")]), cur)


def test_managed_entities_left_out_lose_what_is_set_on_them_but_topics_and_others_are_untouched(tmp_path):
    p = state(tmp_path, "manage: {topics: [t.], quotas: [t-], users: [t-]}\ntopics:\n- name: t.keep\n"
                        "quotas:\n- user: t-a\n  values: {producer_byte_rate: 10}\n")
    cur = Current(topics={"t.keep": TopicShape(1, 1, False), "t.gone": TopicShape(1, 1, False),
                          "other": TopicShape(1, 1, False),
                          "__consumer_offsets": TopicShape(50, 1, True)},
                  configs={("topics", "t.keep"): {}, ("topics", "t.gone"): {"retention.ms": "5"},
                           ("topics", "other"): {"retention.ms": "5"}},
                  quotas={(("user", "t-a"),): {"producer_byte_rate": 10.0, "consumer_byte_rate": 5.0},
                          (("user", "t-b"),): {"producer_byte_rate": 1.0},
                          (("user", None),): {"producer_byte_rate": 1.0},
                          (("user", "x"),): {"producer_byte_rate": 1.0}},
                  users={"t-old": {"SCRAM-SHA-256": 4096}, "x": {"SCRAM-SHA-256": 4096}})
    plan = make_plan(read_desired([p]), cur)
    # a managed topic left out keeps its configs without --delete-topics (issue 18 new-user pass: resetting them
    # half-deleted it)
    assert changes(plan) == {("quotas", "user=t-a", "remove-quota", "consumer_byte_rate", "5", None),
                             ("quotas", "user=t-b", "remove-quota", "producer_byte_rate", "1", None),
                             ("users", "t-old", "delete-scram", "SCRAM-SHA-256", "iterations=4096", None)}
    assert any("t.gone" in n and "left as it is, configs included" in n and "--delete-topics" in n for n in plan.notes)
    plan = make_plan(read_desired([p]), cur, delete_topics=True)
    assert ("topics", "t.gone", "delete-topic", None, "exists", None) in changes(plan)
    assert not any(c.entity in ("other", "__consumer_offsets", "x", "user=x", "user=<default>") for c in plan.changes)
    with pytest.raises(UsageError, match="more than --max-deletes 3"):
        check_max_deletes(plan, "3")
    check_max_deletes(plan, "4")
    with pytest.raises(UsageError, match="--max-deletes 'lots'"):
        check_max_deletes(plan, "lots")


def test_a_create_or_a_partition_count_reached_since_the_plan_is_done_not_failed():
    from kafkactl.desired.configs.apply import _done_already
    from kafkactl.desired.configs.plan import Change

    create = Change("topics", "t", "create-topic", None, None, "x", None)
    grow = Change("topics", "t", "add-partitions", "partitions", "1", "4", None, value=4)
    assert _done_already(create, "TOPIC_ALREADY_EXISTS: Topic 't' already exists.")
    assert _done_already(grow, "INVALID_PARTITIONS: Topic already has 4 partition(s).")
    assert not _done_already(grow, "INVALID_PARTITIONS: Topic already has 6 partition(s).")
    assert not _done_already(create, "POLICY_VIOLATION: no")


def test_the_docs_state_example_is_a_valid_file_within_its_own_scope(tmp_path, monkeypatch):
    """Issue 18 new-user pass: the README's example (now docs/desired-state.md's) named default quotas outside its
    own manage.quotas."""
    import re
    from pathlib import Path

    page = (Path(__file__).resolve().parents[2] / "docs" / "desired-state.md").read_text()
    example = next(b for b in re.findall(r"```yaml\n(.*?)```", page, re.S) if "kind: State" in b)
    p = tmp_path / "example.yaml"
    p.write_text(example)
    monkeypatch.setenv("BROKER_SSL_KEY_PASSWORD", "Unused-4-the-plan")
    monkeypatch.setenv("TEAM_A_APP_PASSWORD", "Unused-4-the-plan")
    desired = read_desired([p])
    plan = make_plan(desired, Current(brokers=["1"]))
    assert {c.section for c in plan.changes} >= {"topics", "brokers", "quotas", "users"}


def test_a_wrong_kind_is_the_error_named_not_what_the_other_kind_requires(tmp_path):
    """Issue 18 new-user pass: `kind: Stat` was reported as "'scope' is a required property"."""
    p = tmp_path / "k.yaml"
    p.write_text("apiVersion: kafkactl/v1\nkind: Stat\ntopics:\n- name: x\n")
    with pytest.raises(StateFileError, match=r"k.yaml:1: kind: 'Stat' is not one of"):
        read_desired([p])


_SAVED = '"api_version": "kafkactl/v1", "kind": "ConfigPlan", "delete_topics": false, '
_ONE = '"clusters": [{"cluster_id": "c", "fingerprint": "x"}]'


@pytest.mark.parametrize("body", [
    "[" * 100_000 + "]" * 100_000,  # a RecursionError, exit 1, before (adversary pass on issue 18)
    "{" + _SAVED + _ONE + ', "changes": [], "files": []}',
    "{" + _SAVED + _ONE + ', "changes": [], "files": [{"path": null, "sha256": "y"}]}',
    "{" + _SAVED + _ONE + ', "changes": [], "files": [{"path": ["a"], "sha256": "y"}]}',
    "{" + _SAVED + _ONE + ', "changes": [1], "files": [{"path": "a", "sha256": "y"}]}',
    "{" + _SAVED + '"clusters": [{"cluster_id": "c", "fingerprint": "x"}, {"cluster_id": "d", "fingerprint": "y"}],'
    ' "changes": [], "files": [{"path": "a", "sha256": "y"}]}',  # a configs plan is for one cluster
    "{" + _SAVED + '"clusters": [{"fingerprint": "x"}], "changes": [], "files": [{"path": "a", "sha256": "y"}]}',
    "{" + _SAVED.replace("kafkactl/v1", "kafkactl/v0") + _ONE + ', "changes": [], "files": []}',
    "{" + _SAVED.replace('"ConfigPlan"', '"SavedConfigPlan"') + _ONE + ', "changes": [], "files": []}',
])
def test_a_saved_plan_of_the_wrong_shape_is_refused_as_such(tmp_path, body):
    from kafkactl.desired.configs.plan import load_saved

    (tmp_path / "plan.json").write_text(body)
    with pytest.raises(StateFileError, match=f"{tmp_path}: not a (readable saved plan|plan saved by kafkactl "
                                             "configs plan --out)"):
        load_saved(str(tmp_path))


def test_a_saved_plan_of_the_other_kind_says_which_command_applies_it(tmp_path):
    from kafkactl.desired.configs.plan import load_saved

    (tmp_path / "plan.json").write_text('{"api_version": "kafkactl/v1", "kind": "AclPlan", "clusters": []}')
    with pytest.raises(StateFileError, match="a plan saved by kafkactl acls plan --out, not by configs plan "
                                             "--out: apply it with kafkactl acls apply --plan"):
        load_saved(str(tmp_path))


@pytest.mark.parametrize("have, want, same", [
    ("100", "+0100", True), ("100", " 100 ", True), ("100", "1000", False), ("-5", "-05", True),
    ("delete,compact", "delete , compact", True), ("delete,compact", "compact,delete", False),
    ("gzip", " gzip", True), ("gzip", "GZIP", False), ("true", "TRUE", True), ("false", "true", False),
    ("0.5", "0.50", True), ("0.5", "0.6", False), ("nan", "NaN", False), ("100", "100.0", False),
    ("100", "1_00", False), ("0.5", "5e-1", True), ("1000.0", "1e3", True), ("x", " x ", True),
])
def test_a_value_is_compared_as_a_broker_reads_it(have, want, same):
    """Adversary pass: "+0100", "delete , compact" and " gzip" were set by every apply and never shown (the
    broker describes what it read: 100, delete,compact, gzip), so apply waited 30 s and warned each time."""
    from kafkactl.desired.configs.plan import same_value

    assert same_value(have, want) is same


def test_a_config_key_is_named_by_its_own_line(tmp_path):
    """Issue 29, item 7: warnings and changes named the entity's line, not the key's."""
    p = tmp_path / "k.yaml"
    p.write_text("apiVersion: kafkactl/v1\nkind: State\ntopics:\n- name: t1\n  partitions: 1\n  configs:\n"
                 "    retention.ms: 1000\n    retention.msx: 5\n")
    (e,) = read_desired([p]).of("topics")
    assert (e.where, e.where_of("retention.ms"), e.where_of("retention.msx")) == (f"{p}:4", f"{p}:7", f"{p}:8")
    assert e.where_of("not.there") == f"{p}:4"
