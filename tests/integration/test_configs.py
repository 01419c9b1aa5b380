"""kafkactl configs against the real broker: every entity type, SCRAM, quotas, errors, LIST_CONFIG_RESOURCES."""

from __future__ import annotations

import json

import pytest

from kafkactl.configs.listing import EMPTY_WARN
from kafkactl.exitcodes import ExitCode
from tests.conftest import run
from tests.integration.acl_helpers import remove_exactly, snapshot, token


def rows(sandbox, user, *args):
    r = sandbox.as_user(user, "-o", "json", "configs", "describe", *args)
    assert r.exit_code == 0, r.stderr
    return {(d["name"]): d for d in json.loads(r.stdout)}


def ok(r):
    assert r.exit_code == 0, r.stderr
    return r


@pytest.fixture
def topic(sandbox):
    """A topic of the test's own: a test that fails part way leaves configs that another's exact checks would see."""
    name = f"cfg.{token()}"
    ok(sandbox.as_user("admin", "topics", "create", name))
    yield name
    sandbox.as_user("admin", "topics", "delete", name, "--yes")


def test_topic_set_append_subtract_delete_round_trip(sandbox, topic):
    a = lambda *x: ok(sandbox.as_user("admin", "configs", *x))  # noqa: E731
    a("alter", "--topic", topic, "--add-config", "retention.ms=86400000,cleanup.policy=[compact,delete]")
    got = rows(sandbox, "admin", "--topic", topic)
    assert {k: (v["value"], v["source"]) for k, v in got.items()} == {
        "retention.ms": ("86400000", "DYNAMIC_TOPIC_CONFIG"),
        "cleanup.policy": ("compact,delete", "DYNAMIC_TOPIC_CONFIG")}
    a("alter", "--topic", topic, "--subtract-config", "cleanup.policy=[compact]")
    assert rows(sandbox, "admin", "--topic", topic)["cleanup.policy"]["value"] == "delete"
    a("alter", "--topic", topic, "--append-config", "cleanup.policy=[compact]")
    assert rows(sandbox, "admin", "--topic", topic)["cleanup.policy"]["value"] == "delete,compact"
    a("delete", "--topic", topic, "retention.ms", "cleanup.policy")
    assert rows(sandbox, "admin", "--topic", topic) == {}
    every = rows(sandbox, "admin", "--topic", topic, "--all")
    assert every["retention.ms"]["source"] == "DEFAULT_CONFIG" and len(every) > 20


def test_entity_type_and_name_long_form_and_add_config_file(sandbox, topic, tmp_path):
    f = tmp_path / "cfg.properties"
    f.write_text("max.message.bytes=2000000\nsegment.ms = 3600000\n")
    ok(sandbox.as_user("admin", "configs", "alter", "--entity-type", "topics", "--entity-name", topic,
                       "--add-config-file", str(f)))
    got = rows(sandbox, "admin", "--entity-type", "topics", "--entity-name", topic)
    assert (got["max.message.bytes"]["value"], got["segment.ms"]["value"]) == ("2000000", "3600000")
    ok(sandbox.as_user("admin", "configs", "alter", "--topic", topic, "--delete-config",
                       "max.message.bytes,segment.ms"))


def test_verbose_shows_synonyms(sandbox, topic):
    r = sandbox.as_user("admin", "-o", "json", "configs", "describe", "--topic", topic, "--all", "--verbose")
    seg = {d["name"]: d for d in json.loads(r.stdout)}["segment.bytes"]
    assert any(s.startswith("log.segment.bytes=") for s in seg["synonyms"])


def test_dry_run_validates_on_the_broker_and_changes_nothing(sandbox, topic):
    r = ok(sandbox.as_user("admin", "configs", "alter", "--topic", topic, "--add-config", "retention.ms=1000",
                           "--dry-run"))
    assert "validated" in r.stdout
    assert rows(sandbox, "admin", "--topic", topic) == {}
    r = sandbox.as_user("admin", "configs", "alter", "--topic", topic, "--add-config", "retention.ms=abc", "--dry-run")
    assert r.exit_code == ExitCode.ERROR and "retention.ms" in r.stderr and "Not a number" in r.stderr


@pytest.mark.parametrize("args,needle", [
    (["--add-config", "retention.mss=5"], "retention.mss"),
    (["--add-config", "retention.ms=abc"], "retention.ms"),
    (["--add-config", "retention.ms=1,segment.bytes=x"], "segment.bytes"),
])
def test_bad_keys_and_values_fail_with_the_brokers_message_and_change_nothing(sandbox, topic, args, needle):
    r = sandbox.as_user("admin", "configs", "alter", "--topic", topic, *args)
    assert r.exit_code == ExitCode.ERROR and needle in r.stderr and "Traceback" not in r.stderr
    assert rows(sandbox, "admin", "--topic", topic) == {}  # atomic per resource: nothing partial


def test_read_only_broker_key_is_refused(sandbox):
    r = sandbox.as_user("admin", "configs", "alter", "--broker", "1", "--add-config", "broker.id=7")
    assert r.exit_code == ExitCode.ERROR and "broker.id" in r.stderr


def test_broker_broker_defaults_and_broker_logger(sandbox):
    a = lambda *x: ok(sandbox.as_user("admin", "configs", *x))  # noqa: E731
    a("alter", "--broker", "1", "--add-config", "log.cleaner.threads=2")
    assert rows(sandbox, "admin", "--broker", "1")["log.cleaner.threads"]["source"] == "DYNAMIC_BROKER_CONFIG"
    a("delete", "--broker", "1", "log.cleaner.threads")
    a("alter", "--broker-defaults", "--add-config", "log.cleaner.threads=2")
    assert rows(sandbox, "admin", "--broker-defaults")["log.cleaner.threads"]["source"] \
        == "DYNAMIC_DEFAULT_BROKER_CONFIG"
    a("delete", "--entity-type", "brokers", "--entity-default", "--delete-config", "log.cleaner.threads")
    assert "log.cleaner.threads" not in rows(sandbox, "admin", "--broker-defaults")
    a("alter", "--broker-logger", "1", "--add-config", "kafka.server.ReplicaManager=DEBUG")
    assert rows(sandbox, "admin", "--broker-logger", "1")["kafka.server.ReplicaManager"]["value"] == "DEBUG"
    a("delete", "--broker-logger", "1", "kafka.server.ReplicaManager")


def test_sensitive_values_are_never_shown(sandbox):
    r = ok(sandbox.as_user("admin", "-o", "json", "configs", "describe", "--broker", "1", "--all"))
    jaas = [d for d in json.loads(r.stdout) if d["name"].endswith("sasl.jaas.config")]
    assert jaas and all(d["sensitive"] and d["value"] is None for d in jaas)
    assert all(pw not in r.stdout for pw in sandbox.passwords.values()) and "LoginModule" not in r.stdout


def test_group_with_configs_and_no_members_is_found(sandbox):
    t = token()
    group = f"cfgonly.{t}"
    ok(sandbox.as_user("admin", "configs", "alter", "--group", group, "--add-config",
                       "consumer.session.timeout.ms=50000"))
    try:
        listed = json.loads(ok(sandbox.as_user("admin", "-o", "json", "configs", "list", "--entity-type",
                                               "groups")).stdout)
        assert {"entity_type": "groups", "name": group} in listed
        described = json.loads(ok(sandbox.as_user("admin", "-o", "json", "configs", "describe", "--entity-type",
                                                  "groups")).stdout)
        assert {(d["entity"], d["name"], d["value"]) for d in described if d["entity"] == group} == {
            (group, "consumer.session.timeout.ms", "50000")}
        assert group not in ok(sandbox.as_user("admin", "groups", "list")).stdout  # ListGroups alone misses it
    finally:
        sandbox.as_user("admin", "configs", "delete", "--group", group, "consumer.session.timeout.ms")


def test_client_metrics_subscription(sandbox):
    name = f"cm{token()}"
    ok(sandbox.as_user("admin", "configs", "alter", "--client-metrics", name, "--add-config",
                       "metrics=[org.apache.kafka.producer.],interval.ms=60000"))
    try:
        got = rows(sandbox, "admin", "--client-metrics", name)
        assert got["interval.ms"]["value"] == "60000" and got["metrics"]["value"] == "org.apache.kafka.producer."
        assert name in ok(sandbox.as_user("admin", "configs", "list", "--entity-type", "client-metrics")).stdout
    finally:
        ok(sandbox.as_user("admin", "configs", "delete", "--client-metrics", name, "metrics", "interval.ms"))


def test_quotas_for_users_clients_ips_defaults_and_user_client(sandbox):
    t = token()
    cases = [(["--user", f"q{t}"], "producer_byte_rate=1048576", "users"),
             (["--client", f"c{t}"], "consumer_byte_rate=2048", "clients"),
             (["--ip", "10.9.8.7"], "connection_creation_rate=10", "ips"),
             (["--user-defaults"], "request_percentage=50", "users"),
             (["--user", f"q{t}", "--client", f"c{t}"], "producer_byte_rate=4096", "users+clients")]
    for entity, config, etype in cases:
        ok(sandbox.as_user("admin", "configs", "alter", *entity, "--add-config", config))
        key, value = config.split("=")
        got = rows(sandbox, "admin", *entity)
        assert got[key]["value"] == value and got[key]["source"] == "QUOTA" and got[key]["entity_type"] == etype
        ok(sandbox.as_user("admin", "configs", "delete", *entity, key))
        assert key not in rows(sandbox, "admin", *entity)
    r = sandbox.as_user("admin", "configs", "alter", "--ip", "10.9.8.7", "--add-config", "producer_byte_rate=1")
    assert r.exit_code == ExitCode.USAGE and "connection_creation_rate" in r.stderr


def test_scram_add_login_delete(sandbox, tmp_path):
    from tests.secrets_sweep import new_secret

    user = f"dave{token()}"
    password = new_secret("the password of the SCRAM round-trip test's user")

    def login(pw, mech="SCRAM-SHA-512"):
        props = tmp_path / "dave.properties"
        props.write_text(f"security.protocol=SASL_PLAINTEXT\nsasl.mechanism={mech}\n"
                         "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required "
                         f'username="{user}" password="{pw}";\n')
        return run("-b", sandbox.bootstrap, "--command-config", str(props), "--timeout", "5", "topics", "list")

    r = ok(sandbox.as_user("admin", "configs", "alter", "--user", user, "--add-config",
                           f"SCRAM-SHA-512=[iterations=8192,password={password}],SCRAM-SHA-256=[password={password}]"))
    assert password not in r.output
    got = rows(sandbox, "admin", "--user", user)
    assert {k: v["value"] for k, v in got.items()} == {"SCRAM-SHA-512": "iterations=8192",
                                                       "SCRAM-SHA-256": "iterations=4096"}
    assert login(password).exit_code == 0
    assert login(password, "SCRAM-SHA-256").exit_code == 0
    assert login("not-" + password).exit_code == ExitCode.AUTHENTICATION
    r = ok(sandbox.as_user("admin", "configs", "delete", "--user", user, "--delete-config", "SCRAM-SHA-512"))
    assert login(password).exit_code == ExitCode.AUTHENTICATION
    assert login(password, "SCRAM-SHA-256").exit_code == 0
    ok(sandbox.as_user("admin", "configs", "delete", "--user", user, "SCRAM-SHA-256"))
    r = sandbox.as_user("admin", "configs", "alter", "--user", user, "--add-config",
                        "SCRAM-SHA-256=[iterations=100,password=x]")
    assert r.exit_code == ExitCode.USAGE and "4096" in r.stderr and "password=x" not in r.stderr


def test_usage_errors_before_any_request(sandbox):
    bad = [
        (["alter", "--add-config", "a=b"], "name the entity"),
        (["alter", "--entity-type", "topics", "--add-config", "a=b"], "name the topics entity"),
        (["alter", "--entity-type", "nope", "--entity-name", "x", "--add-config", "a=b"], "'nope'"),
        (["alter", "--topic", "t", "--add-config", "novalue"], "key=value"),
        (["alter", "--topic", "t", "--add-config", "a=[b"], "unbalanced"),
        (["alter", "--topic", "t"], "nothing to change"),
        (["alter", "--broker", "x", "--add-config", "a=b"], "broker id"),
        (["alter", "--topic", "t", "--entity-type", "groups", "--entity-name", "g", "--add-config", "a=b"],
         "one entity"),
        (["alter", "--entity-type", "topics", "--entity-default", "--add-config", "a=b"], "not supported for topics"),
    ]
    for args, needle in bad:
        r = sandbox.as_user("admin", "-b", "127.0.0.1:1", "--timeout", "1", "configs", *args)
        assert r.exit_code == ExitCode.USAGE and needle in r.stderr, (args, r.stderr)


# ------------------------------------------------------------------ LIST_CONFIG_RESOURCES per principal


@pytest.fixture(scope="module")
def lcr_world(sandbox):
    """alice: only DescribeConfigs on CLUSTER; bob: only Describe on CLUSTER; carol: Describe on some
    topics and groups only; a new user with nothing; a group with configs and no members."""
    t = token()
    topic, group = f"lcr.{t}.t", f"lcr.{t}.g"
    ok(sandbox.as_user("admin", "topics", "create", topic))
    from tests.integration.test_describe_authz import join_and_commit

    join_and_commit(sandbox, f"lcr.{t}.members", "classic", topic)  # a group ListGroups shows
    ok(sandbox.as_user("admin", "configs", "alter", "--group", group, "--add-config",
                       "consumer.session.timeout.ms=50000"))
    from tests.secrets_sweep import new_secret

    nobody, pw = f"nobody{t}", new_secret("the password of the no-ACL user of the configs list test")
    ok(sandbox.as_user("admin", "configs", "alter", "--user", nobody, "--add-config", f"SCRAM-SHA-512=[password={pw}]"))
    grants = [["--allow-principal", "User:alice", "--cluster", "--operation", "DescribeConfigs"],
              ["--allow-principal", "User:bob", "--cluster", "--operation", "Describe"],
              ["--allow-principal", "User:carol", "--operation", "Describe", "--topic", f"lcr.{t}.",
               "--group", f"lcr.{t}.", "--resource-pattern-type", "prefixed"]]
    for g in grants:
        ok(sandbox.as_user("admin", "acls", "create", *g))
    yield {"topic": topic, "group": group, "nobody": (nobody, pw), "t": t}
    for g in grants:
        sandbox.as_user("admin", "acls", "delete", "--yes", *g)
    gw = sandbox.gateway("admin")
    remove_exactly(gw, snapshot(gw, t))
    sandbox.as_user("admin", "configs", "delete", "--group", group, "consumer.session.timeout.ms")
    sandbox.as_user("admin", "configs", "delete", "--user", nobody, "SCRAM-SHA-512")
    gw.admin.delete_consumer_groups([f"lcr.{t}.members"])
    sandbox.as_user("admin", "topics", "delete", topic, "--yes")


def test_lcr_with_describe_configs_on_cluster_lists_everything(sandbox, lcr_world):
    r = ok(sandbox.as_user("alice", "-o", "json", "configs", "list"))
    listed = {(d["entity_type"], d["name"]) for d in json.loads(r.stdout)}
    assert ("topics", lcr_world["topic"]) in listed and ("groups", lcr_world["group"]) in listed
    assert ("brokers", "1") in listed and "WARN" not in r.stderr
    r = ok(sandbox.as_user("alice", "configs", "list", "--entity-type", "client-metrics", "--verbose"))
    assert r.stdout == "" and EMPTY_WARN in r.stderr.splitlines() and "LIST_CONFIG_RESOURCES v1" in r.stderr


@pytest.mark.usefixtures("lcr_world")
def test_lcr_with_only_describe_on_cluster_explains_and_falls_back(sandbox):
    r = ok(sandbox.as_user("bob", "configs", "list", "--entity-type", "groups"))
    assert "needs DescribeConfigs on CLUSTER" in r.stderr and "possibly incomplete" in r.stderr
    assert "left out: reading their configs needs DescribeConfigs" in r.stderr  # bob sees groups, not configs
    assert EMPTY_WARN not in r.stderr and r.stdout == ""


def test_lcr_with_describe_on_some_resources(sandbox, lcr_world):
    r = ok(sandbox.as_user("carol", "-o", "json", "configs", "list"))
    listed = {(d["entity_type"], d["name"]) for d in json.loads(r.stdout)}
    assert listed == {("topics", lcr_world["topic"])}  # topics from metadata; group configs unreadable
    assert "possibly incomplete" in r.stderr and "brokers, broker-loggers, client-metrics left out" in r.stderr
    assert "WARN" not in r.stdout


def test_lcr_with_nothing(sandbox, lcr_world, tmp_path):
    user, pw = lcr_world["nobody"]
    props = tmp_path / "n.properties"
    props.write_text("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-512\n"
                     "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required "
                     f'username="{user}" password="{pw}";\n')
    r = run("-b", sandbox.bootstrap, "--command-config", str(props), "configs", "list")
    assert (r.exit_code, r.stdout) == (0, "")
    assert "needs DescribeConfigs on CLUSTER" in r.stderr and "possibly incomplete" in r.stderr


@pytest.mark.usefixtures("lcr_world")
def test_describe_groups_without_lcr_permission_says_what_may_be_missing(sandbox):
    r = sandbox.as_user("bob", "configs", "describe", "--entity-type", "groups")
    assert "needs DescribeConfigs on CLUSTER" in r.stderr


@pytest.mark.parametrize("fmt", ["plain", "json", "yaml", "csv"])
def test_alter_never_shows_a_sensitive_value_back(sandbox, fmt):
    """Helper B's finding on issue 13: `configs alter` reported every value it set, passwords included."""
    from tests.secrets_sweep import new_secret

    secret = new_secret("a listener key password")
    r = sandbox.as_user("admin", "-o", fmt, "configs", "alter", "--broker", "1", "--add-config",
                        f"listener.name.internal.ssl.key.password={secret}", "--dry-run")
    assert r.exit_code == 0, r.output
    assert "listener.name.internal.ssl.key.password" in r.stdout and secret[:10] not in r.output


def test_a_broker_id_the_cluster_lacks_is_not_found_at_once(sandbox):
    """Adversary pass on issue 13: `configs describe --broker 2` on a one-broker cluster waited --timeout, exit 4."""
    import time

    t0 = time.monotonic()
    r = sandbox.as_user("admin", "--timeout", "5", "configs", "describe", "--broker", "2")
    assert r.exit_code == ExitCode.NOT_FOUND and "broker 2 is not among the live brokers (1)" in r.stderr, r.output
    assert time.monotonic() - t0 < 5


@pytest.mark.usefixtures("lcr_world")
def test_nothing_listed_is_explicit_in_every_format(sandbox):
    """Issue 29, item 5: `configs list -o json` with nothing visible printed nothing, csv no header, and a terminal
    was told "the result above is possibly incomplete" with nothing above."""
    r = ok(sandbox.as_user("bob", "-o", "json", "configs", "list", "--entity-type", "groups"))
    assert r.stdout == "[]\n" and "the result is possibly incomplete: nothing was listed" in r.stderr, r.stderr
    assert "result above" not in r.stderr
    r = ok(sandbox.as_user("bob", "-o", "csv", "configs", "list", "--entity-type", "groups"))
    assert r.stdout == "entity_type,name\n", r.stdout


def test_a_topic_without_dynamic_configs_says_so_and_how_to_see_the_defaults(sandbox, topic):
    r = ok(sandbox.as_user("admin", "-o", "table", "configs", "describe", "--topic", topic))
    assert r.stdout == "" and f"no dynamic configs set on topic {topic}; --all shows defaults" in r.stderr, r.output
    r = ok(sandbox.as_user("admin", "-o", "json", "configs", "describe", "--topic", topic))
    assert r.stdout == "[]\n"


def test_deleting_an_absent_scram_credential_is_not_found(sandbox):
    """Issue 29, item 6: exit 1 before; the exit-code table's 7 names what does not exist."""
    user = f"nobody-{token()}"
    r = sandbox.as_user("admin", "configs", "alter", "--user", user, "--delete-config", "SCRAM-SHA-512")
    assert r.exit_code == ExitCode.NOT_FOUND, r.output
    assert r.stderr == (f"error: cannot alter SCRAM credentials of {user}: the SCRAM-SHA-512 credential of user {user} "
                        "does not exist (RESOURCE_NOT_FOUND)\n"), r.stderr


def test_a_mistyped_config_name_gets_the_nearest_one(sandbox, topic):
    """Issue 29, item 7: configs plan suggested the closest name for a typo, configs alter did not."""
    r = sandbox.as_user("admin", "configs", "alter", "--topic", topic, "--add-config", "retention.msx=5")
    assert r.exit_code != 0 and "hint: retention.msx: did you mean retention.ms?" in r.stderr, r.stderr
    assert rows(sandbox, "admin", "--topic", topic) == {}  # nothing changed


def test_describing_a_missing_topic_prints_the_error_alone(sandbox):
    """New-user pass on issue 29: `[]` (or an empty table) came before the error."""
    r = sandbox.as_user("admin", "-o", "json", "configs", "describe", "--topic", f"nope-{token()}")
    assert r.exit_code == ExitCode.NOT_FOUND and r.stdout == "" and "does not exist" in r.stderr, r.output
