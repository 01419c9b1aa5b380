"""The compatibility suite (issue 15): a subset of kafkactl's broker behaviour against every Kafka version the
sandbox runs (3.9.1, 4.0.1, 4.3.1, 4.4.0), one sandbox per version. One code path: what a version lacks is
negotiated from ApiVersions and said in a sentence, never a crash. The full suite runs on the default version.
"""

from __future__ import annotations

import json
import time

import pytest

from kafkactl.exitcodes import ExitCode
from kafkactl.local.assembly import KAFKA_VERSIONS
from tests.conftest import own_xdg, run
from tests.integration.acl_helpers import token
from tests.markers import starts

# LIST_CONFIG_RESOURCES lists topics and groups from Kafka 4.1 (KIP-1142); before, CLIENT_METRICS only
LISTS_EVERY_CONFIG_RESOURCE = {"3.9.1": False, "4.0.1": False, "4.3.1": True, "4.4.0": True}


def ok(r):
    assert r.exit_code == 0, r.output[-3000:]
    return r


@pytest.fixture(scope="module", params=KAFKA_VERSIONS)
@starts("broker", "versions")
def versioned(request, tmp_path_factory):
    """A sandbox of one Kafka version under its own XDG directories (contexts local-* point at it)."""
    from kafkactl.local.sandbox import Sandbox
    from tests.secrets_sweep import register

    version = request.param
    mp = own_xdg(tmp_path_factory.mktemp(f"kafka-{version}"))
    sb = Sandbox()
    try:
        started = time.monotonic()
        # (+ an identity provider, and a KDC)
        r = run("local", "up", "--kafka-version", version, "--wait", "240", "--oauth", "--kerberos")
        assert r.exit_code == 0, r.output[-3000:]
        print(f"\nKafka {version} up in {time.monotonic() - started:.1f} s (assembly included the first time)")
        state = sb.load_state()
        assert state is not None and state.kafka_version == version
        for user, password in state.passwords.items():
            register(password, f"the Kafka {version} sandbox password of {user}")
        from tests.secrets_sweep import register_sandbox

        register_sandbox(sb.state_file)  # (the identity provider's signing key, the keytabs' keys)
        # a cluster in use is never empty (as the session sandbox): deleting a test's last ACL is not "every ACL"
        ok(run("--context", "local-admin", "acls", "create", "--allow-principal", "User:bystander", "--topic",
               "bystander", "--operation", "Read"))
        yield version
    finally:
        sb.down(purge=True)
        mp.undo()


def test_the_sandbox_runs_the_version_asked_for(versioned):
    status = json.loads(ok(run("-o", "json", "local", "status")).stdout)
    assert status["kafka_version"] == versioned and status["running"]
    r = run("local", "up", "--kafka-version", next(v for v in KAFKA_VERSIONS if v != versioned))
    assert r.exit_code == ExitCode.USAGE and f"runs Kafka {versioned}" in r.stderr


def test_an_oauth_client_on_every_version(versioned):
    """OAUTHBEARER against each version's own OAuthBearerValidatorCallbackHandler: the principal is the token's
    subject, the super user's token creates a topic, alice's is refused it (exit 3)."""
    assert ok(run("--context", "local-oauth-alice", "auth", "whoami", "-o", "plain")).stdout.strip() == "User:alice"
    topic = f"oauth.{versioned}.{token()}"
    ok(run("--context", "local-oauth-admin", "topics", "create", topic))
    assert run("--context", "local-oauth-alice", "topics", "create", f"{topic}.x").exit_code == ExitCode.NOT_AUTHORIZED


def test_a_kerberos_client_on_every_version(versioned, gssapi_python):
    """GSSAPI against each version's brokers: the principal the rules map from alice@KAFKA.LOCAL's keytab is granted
    what the super user's keytab grants it, and refused what it is not (exit 3)."""
    from tests.conftest import run_process

    topic = f"krb.{versioned}.{token()}"
    ok(run_process("--context", "local-kerberos-admin", "topics", "create", topic, python=gssapi_python))
    ok(run_process("--context", "local-kerberos-admin", "acls", "create", "--allow-principal", "User:alice",
                   "--operation", "Describe", "--topic", topic, python=gssapi_python))
    r = ok(run_process("--context", "local-kerberos-alice", "topics", "describe", topic, "--authorized-ops", "-o",
                       "json", python=gssapi_python))
    assert json.loads(r.stdout)[0]["authorized_operations"]["operations"] == ["DESCRIBE"]
    r = run_process("--context", "local-kerberos-alice", "topics", "create", f"{topic}.x", python=gssapi_python)
    assert r.exit_code == ExitCode.NOT_AUTHORIZED, r.stderr


@pytest.mark.usefixtures("versioned")
def test_acl_crud_with_topic_delegation_token_and_user_resources():
    t = token()
    principal = f"User:{t}-app"
    creates = [
        ["--topic", f"{t}.orders", "--operation", "Read"],
        ["--delegation-token", f"{t}-token", "--operation", "Describe"],
        ["--user-principal", f"User:{t}-other", "--operation", "CreateTokens"],
    ]
    for args in creates:
        ok(run("--context", "local-admin", "acls", "create", "--allow-principal", principal, *args))
    listed = json.loads(ok(run("--context", "local-admin", "-o", "json", "acls", "list", "--principal",
                                principal)).stdout)
    assert sorted((b["resource_type"], b["operation"]) for b in listed) == [
        ("DELEGATION_TOKEN", "DESCRIBE"), ("TOPIC", "READ"), ("USER", "CREATE_TOKENS")]
    for args in creates:
        ok(run("--context", "local-admin", "acls", "delete", "--allow-principal", principal, *args, "--yes"))
    assert json.loads(ok(run("--context", "local-admin", "-o", "json", "acls", "list", "--principal",
                              principal)).stdout) == []


@pytest.mark.usefixtures("versioned")
def test_authorized_operations_are_decoded():
    t = token()
    topic = f"{t}.visible"
    ok(run("--context", "local-admin", "topics", "create", topic))
    ok(run("--context", "local-admin", "acls", "create", "--allow-principal", "User:alice", "--topic", topic,
           "--operation", "Read", "--operation", "Describe"))
    try:
        found = json.loads(ok(run("--context", "local-alice", "-o", "json", "topics", "describe", topic,
                                  "--authorized-ops")).stdout)
        allowed = set(found[0]["authorized_operations"]["operations"])
        assert allowed == {"READ", "DESCRIBE"}, found
    finally:
        ok(run("--context", "local-admin", "acls", "delete", "--allow-principal", "User:alice", "--topic", topic,
               "--operation", "Read", "--operation", "Describe", "--yes"))


def test_configs_and_list_config_resources_with_the_fallback_explained(versioned):
    t = token()
    topic = f"{t}.cfg"
    ok(run("--context", "local-admin", "topics", "create", topic))
    ok(run("--context", "local-admin", "configs", "alter", "--topic", topic, "--add-config", "retention.ms=3600000"))
    described = json.loads(ok(run("--context", "local-admin", "-o", "json", "configs", "describe", "--topic",
                                  topic)).stdout)
    assert {d["name"]: d["value"] for d in described}.get("retention.ms") == "3600000", described
    r = ok(run("--context", "local-admin", "-o", "json", "configs", "list", "--entity-type", "topics"))
    assert topic in r.stdout
    explained = "before Kafka 4.1" in r.stderr
    assert explained == (not LISTS_EVERY_CONFIG_RESOURCE[versioned]), r.stderr
    # the super user gets the brokers on every version: from LIST_CONFIG_RESOURCES, or read one by one
    for entity in ("brokers", "broker-loggers"):
        r = ok(run("--context", "local-admin", "-o", "json", "configs", "list", "--entity-type", entity))
        assert [(x["entity_type"], x["name"]) for x in json.loads(r.stdout)] == [(entity, "1")], r.output
        assert "left out" not in r.stderr, r.stderr
    # a super user is never told to grant itself DescribeConfigs (issue 29): where the broker cannot list
    # client-metrics, it says that
    r = ok(run("--context", "local-admin", "-o", "json", "configs", "list"))
    assert "need DescribeConfigs" not in r.stderr, r.stderr


@pytest.mark.usefixtures("versioned")
def test_groups():
    t = token()
    ok(run("--context", "local-admin", "groups", "list"))
    r = run("--context", "local-admin", "groups", "describe", f"{t}.g")
    assert r.exit_code == ExitCode.NOT_FOUND and "does not exist" in r.stderr, r.output


@pytest.mark.usefixtures("versioned")
def test_desired_state_plan_and_apply(tmp_path):
    t = token()
    doc = tmp_path / "state.yaml"
    doc.write_text(f"scope:\n  principalPrefixes: ['User:{t}-']\nacls:\n  - principal: User:{t}-svc\n    allow:\n"
                   f"      - topic: '{t}.'\n        pattern: prefixed\n        operations: [Read, Write]\n"
                   f"      - group: '{t}.'\n        pattern: prefixed\n        operations: [Read]\n")
    r = run("--context", "local-admin", "acls", "plan", str(doc), "--detailed-exitcode")
    assert r.exit_code == 2, r.output  # changes present
    ok(run("--context", "local-admin", "acls", "apply", str(doc), "--yes"))
    r = run("--context", "local-admin", "acls", "plan", str(doc), "--detailed-exitcode")
    assert r.exit_code == 0, r.output


def test_what_a_version_lacks_is_a_message_not_a_crash(versioned):
    """TWO_PHASE_COMMIT (KIP-939) is an ACL operation Kafka 4.0 and older lack: they refuse it, said in one line."""
    t = token()
    args = ["--allow-principal", f"User:{t}-tx", "--transactional-id", f"{t}-tx", "--operation", "TwoPhaseCommit"]
    r = run("--context", "local-admin", "acls", "create", *args)
    assert "Traceback" not in r.output
    if versioned in ("3.9.1", "4.0.1"):
        assert r.exit_code == ExitCode.ERROR, r.output
        assert r.stderr.strip().splitlines() == [
            "error: cannot create ACLs: this broker does not know the TwoPhaseCommit operation (Kafka 4.0 and older "
            "lack it; KIP-939); upgrade the broker or leave the operation out"], r.stderr
    else:
        assert r.exit_code == 0, r.output
        ok(run("--context", "local-admin", "acls", "delete", *args, "--yes"))
    # with operations the broker knows: they are created, and the one it refuses is named per binding (exit 5)
    mixed = [*args, "--operation", "Write", "--operation", "Describe"]
    r = run("--context", "local-admin", "-o", "json", "acls", "create", *mixed)
    try:
        if versioned in ("3.9.1", "4.0.1"):
            assert r.exit_code == ExitCode.PARTIAL, r.output
            statuses = {row["operation"]: row["status"] for row in json.loads(r.stdout)["results"]}
            assert statuses == {"WRITE": "created", "DESCRIBE": "created", "TWO_PHASE_COMMIT": "failed"}, r.stdout
            assert "1 of 3 ACL bindings failed: this broker does not know the TwoPhaseCommit operation" in r.stderr
        else:
            assert r.exit_code == 0, r.output
    finally:
        run("--context", "local-admin", "acls", "delete", "--principal", f"User:{t}-tx", "--yes")


@pytest.mark.usefixtures("versioned")
def test_a_topic_named_twice_is_deleted_once():
    """librdkafka crashed (SIGSEGV) on Kafka 4.4's DeleteTopics answer to a name given twice (the CLI fuzzer found
    it): kafkactl sends each name once."""
    t = token()
    ok(run("--context", "local-admin", "topics", "create", f"{t}.twice"))
    r = ok(run("--context", "local-admin", "-o", "json", "topics", "delete", f"{t}.twice", f"{t}.twice", "--yes"))
    assert [row["name"] for row in json.loads(r.stdout)["results"]] == [f"{t}.twice"], r.stdout
    r = run("--context", "local-admin", "topics", "delete", f"{t}.gone", f"{t}.gone", f"{t}.other", "--yes")
    assert r.exit_code == ExitCode.NOT_FOUND and "does not exist" in r.stderr, r.output
