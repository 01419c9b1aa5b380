"""The first broker behaviour, checked on the real sandbox as the principal concerned."""

from __future__ import annotations

import json
import os
import re
import signal
import time
import uuid

import pytest

from kafkactl.exitcodes import ExitCode
from tests.conftest import run, run_process


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def test_admin_creates_lists_and_deletes_a_topic(sandbox):
    name = unique("it.admin")
    r = sandbox.as_user("admin", "topics", "create", name, "--partitions", "3", "--config", "retention.ms=3600000")
    assert r.exit_code == 0, r.stderr
    assert r.stdout.split("\t")[:2] == [name, "created"]
    listed = json.loads(sandbox.as_user("admin", "-o", "json", "topics", "list").stdout)
    mine = [t for t in listed if t["name"] == name]
    assert mine == [{"name": name, "partitions": 3, "replication_factor": 1, "internal": False}]
    r = sandbox.as_user("admin", "topics", "delete", name, "--yes")
    assert r.exit_code == 0, r.stderr
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        names = sandbox.as_user("admin", "-o", "plain", "topics", "list").stdout.split()
        if name not in names:
            break
        time.sleep(0.3)
    assert name not in names


def test_admin_sees_the_cluster(sandbox):
    info = json.loads(sandbox.as_user("admin", "-o", "json", "cluster", "describe").stdout)
    host, port = sandbox.bootstrap.split(":")
    assert info["controller_id"] == 1  # (one node, broker and controller: it leads the quorum)
    assert info["brokers"] == [{"id": 1, "host": host, "port": int(port), "rack": None, "controller": True}]
    assert info["cluster_id"]
    quorum = info["quorum"]
    assert quorum["leader_id"] == 1 and [(m["id"], m["role"]) for m in quorum["members"]] == [(1, "leader")]
    assert quorum["members"][0]["lag"] == 0 and quorum["high_watermark"] > 0 and info["quorum_note"] is None


def test_a_caller_without_describe_on_the_cluster_is_told_the_quorum_is_hidden(sandbox):
    """Issue 31, item 5: in KRaft, DescribeCluster names a random live broker as "controller"; only DescribeQuorum
    (Describe on the cluster) names the active one. alice holds no ACL: no controller, and a warning that says why."""
    r = sandbox.as_user("alice", "-o", "json", "cluster", "describe")
    assert r.exit_code == 0, r.stderr
    info = json.loads(r.stdout)
    assert info["controller_id"] is None and info["quorum"] is None
    assert not any(b["controller"] for b in info["brokers"])
    assert r.stderr == ("warning: the active controller and the metadata quorum are shown only to principals with "
                        "Describe on the cluster\n")


def test_alice_without_acls_sees_no_topics_and_a_hint(sandbox):
    name = unique("it.hidden")
    assert sandbox.as_user("admin", "topics", "create", name).exit_code == 0
    try:
        r = sandbox.as_user("alice", "topics", "list")
        assert r.exit_code == 0
        assert r.stdout == ""  # the broker hides topics alice may not Describe
        assert "Describe" in r.stderr
    finally:
        sandbox.as_user("admin", "topics", "delete", name, "--yes")


def test_alice_cannot_create_a_topic_and_is_told_what_is_missing(sandbox):
    name = unique("it.alice")
    r = sandbox.as_user("alice", "topics", "create", name)
    assert r.exit_code == ExitCode.NOT_AUTHORIZED
    assert r.stdout == ""
    assert "User:alice" in r.stderr and f"Create on Topic:{name}" in r.stderr and "Traceback" not in r.stderr
    assert name not in sandbox.as_user("admin", "-o", "plain", "topics", "list").stdout.split()


def test_describe_cluster_needs_no_acl(sandbox):
    """DescribeCluster, like Metadata, is answered for any authenticated principal (checked on the broker); the
    quorum (DescribeQuorum) only to those with Describe on the cluster: carol gets the rest, the same as admin's."""
    admin = json.loads(sandbox.as_user("admin", "-o", "json", "cluster", "describe").stdout)
    carol = sandbox.as_user("carol", "-o", "json", "cluster", "describe")
    assert carol.exit_code == 0, carol.stderr
    seen = json.loads(carol.stdout)
    assert seen["quorum"] is None and seen["controller_id"] is None and seen["quorum_note"]
    assert seen["cluster_id"] == admin["cluster_id"]
    assert [{**b, "controller": None} for b in seen["brokers"]] == [{**b, "controller": None} for b in admin["brokers"]]


def test_wrong_password_is_an_authentication_error(sandbox, tmp_path):
    props = tmp_path / "wrong.properties"
    props.write_text("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-512\n"
                     "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required "
                     'username="alice" password="definitely-Wrong-77";\n')
    t0 = time.monotonic()
    r = run("-b", sandbox.bootstrap, "--command-config", str(props), "topics", "list")
    assert r.exit_code == ExitCode.AUTHENTICATION
    assert "authentication failed" in r.stderr and "definitely-Wrong-77" not in r.output
    assert time.monotonic() - t0 < 10  # fails fast, well before --timeout


def test_plain_mechanism_via_command_config_works(sandbox, tmp_path):
    props = tmp_path / "plain.properties"
    props.write_text("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\n"
                     "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required "
                     f'username="admin" password="{sandbox.passwords["admin"]}";\n')
    r = run("-b", sandbox.bootstrap, "--command-config", str(props), "-o", "json", "cluster", "describe")
    assert r.exit_code == 0, r.stderr
    assert json.loads(r.stdout)["controller_id"] == 1


@pytest.mark.usefixtures("sandbox")
def test_nothing_listening_is_unreachable_within_the_timeout():
    from kafkactl.local.sandbox import _free_port

    t0 = time.monotonic()
    r = run("--context", "local-admin", "-b", f"127.0.0.1:{_free_port()}", "--timeout", "2", "topics", "list")
    elapsed = time.monotonic() - t0
    assert r.exit_code == ExitCode.UNREACHABLE and "connection refused" in r.stderr, r.stderr
    assert elapsed < 2  # issue 13: a refused connection gives up before --timeout


def test_stopped_broker_is_unreachable_within_the_timeout(sandbox):
    """SIGSTOP the real broker: connections hang instead of being refused, the worst case for a timeout."""
    os.killpg(sandbox.pid, signal.SIGSTOP)
    try:
        t0 = time.monotonic()
        r = run("--context", "local-admin", "--timeout", "2", "cluster", "describe")
        elapsed = time.monotonic() - t0
    finally:
        os.killpg(sandbox.pid, signal.SIGCONT)
    assert r.exit_code == ExitCode.UNREACHABLE, r.stderr
    assert elapsed < 2 + 3


def test_up_is_idempotent_and_status_reports_it(sandbox):
    from kafkactl.local.sandbox import Sandbox

    status = Sandbox().up(timeout=60)
    assert status.already_running and status.pid == sandbox.pid
    s = json.loads(run("-o", "json", "local", "status").stdout)
    assert s["running"] is True and s["pid"] == sandbox.pid and s["bootstrap_servers"] == sandbox.bootstrap
    assert s["log_file"].endswith("broker.log")
    assert "started_in_s" not in s and "already_running" not in s  # issue 14: those are what `up` reports


def test_local_env_prints_exports_without_passwords(sandbox):
    r = run("local", "env", "--user", "bob")
    assert r.exit_code == 0
    assert "export KAFKACTL_CONTEXT=local-bob" in r.stdout
    assert f"export KAFKACTL_BOOTSTRAP_SERVERS={sandbox.bootstrap}" in r.stdout
    assert all(pw not in r.stdout for pw in sandbox.passwords.values())


def test_contexts_written_by_up_work_for_each_user(sandbox):
    for user in ("admin", "alice", "bob", "carol"):
        r = sandbox.as_user(user, "topics", "list")
        assert r.exit_code == 0, (user, r.stderr)


@pytest.mark.parametrize("args", [
    ["--debug", "--context", "local-admin", "topics", "list"],
    ["--debug", "--context", "local-admin", "cluster", "describe", "-o", "yaml"],
    ["--debug", "--context", "local-admin", "configs", "list", "--entity-type", "client-metrics"],  # kafka-python
    ["--debug", "--context", "local-alice", "topics", "create", "it.redact"],
    ["--debug", "--context", "local-carol", "topics", "delete", "it.redact", "--yes"],
    ["--debug", "--context", "local-admin", "--timeout", "2", "-b", "127.0.0.1:1", "topics", "list"],
    ["--debug", "-b", "SELF", "--command-config", "WRONG", "topics", "list"],
    ["-o", "json", "context", "list"],
    ["-o", "yaml", "local", "status"],
    ["local", "env"],
])
def test_no_password_or_jaas_string_in_anything_printed(sandbox, tmp_path, args):
    """Run as a real process with --debug (client logs on), then grep stdout+stderr for every secret."""
    wrong = tmp_path / "wrong.properties"
    wrong.write_text("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\n"
                     "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required "
                     'username="alice" password="Wrong-Secret-Value-42";\n')
    args = [sandbox.bootstrap if a == "SELF" else str(wrong) if a == "WRONG" else a for a in args]
    r = run_process(*args, timeout=60)
    printed = r.stdout + r.stderr
    assert "Traceback" not in printed or "--debug" in args
    secrets = list(sandbox.passwords.values()) + ["Wrong-Secret-Value-42"]
    leaked = [s for s in secrets if s in printed]
    assert leaked == [], f"secret printed by {args}"
    assert "LoginModule required" not in printed \
        and "sasl.jaas.config=" not in printed.replace("sasl.jaas.config=******", "")
    # no SCRAM message (its salt, iterations and proof allow an offline guess at the password) in any encoding
    assert not re.search(r"n,,n=|,r=[^,]+,s=|,r=[^,]+,p=|c=biws", printed), f"SCRAM exchange printed by {args}"


def test_empty_list_hints_fit_the_caller(sandbox):
    """Issue 14: the super user on an empty cluster was told that listing groups needs Describe on the cluster.
    The broker's own answer decides: with Describe on the cluster every group is listed (KIP-231)."""
    from kafkactl.describe import groups, topics

    assert groups.why_empty(sandbox.gateway("admin")) is None
    assert topics.why_empty(sandbox.gateway("admin")) is None
    assert groups.why_empty(sandbox.gateway("alice")) == groups.EMPTY_LIST_HINT  # alice: no Describe on the cluster
    assert topics.why_empty(sandbox.gateway("alice")) == topics.EMPTY_LIST_HINT


@pytest.mark.parametrize("argv",
                         [["topics", "describe"], ["topics", "delete", "--yes"], ["configs", "describe", "--topic"]])
def test_a_missing_topic_is_named_as_the_protocol_names_it(sandbox, argv):
    """Issue 14: librdkafka's UNKNOWN_TOPIC_OR_PART showed through on some paths."""
    name = unique("it.missing")
    r = sandbox.as_user("admin", *argv[:2], *argv[2:], name) if argv[-1] != "--yes" else \
        sandbox.as_user("admin", *argv[:2], name, "--yes")
    assert r.exit_code == ExitCode.NOT_FOUND and "(UNKNOWN_TOPIC_OR_PARTITION)" in r.stderr, r.output
