"""KIP-430 authorized operations and KIP-231 group listing, read as each principal from the real broker.

Grants (as the issue sets them): alice ALLOW Read on the prefix `orders.<run>.` (topics and groups);
bob ALLOW Describe on one topic and DENY Write on it; carol nothing; admin is a super user. The expected
sets follow StandardAuthorizer's rules: Read implies Describe, a DENY Write removes nothing bob had.
"""

from __future__ import annotations

import json
import time

import pytest

from kafkactl.acl.bitfield import NOT_SUPPLIED, from_bit_positions
from kafkactl.exitcodes import ExitCode
from tests.integration.acl_helpers import remove_exactly, snapshot, token

ALL_TOPIC = ["READ", "WRITE", "CREATE", "DELETE", "ALTER", "DESCRIBE", "DESCRIBE_CONFIGS", "ALTER_CONFIGS"]
ALL_GROUP = ["READ", "DELETE", "DESCRIBE", "DESCRIBE_CONFIGS", "ALTER_CONFIGS"]
ALL_CLUSTER = ["CREATE", "ALTER", "DESCRIBE", "CLUSTER_ACTION", "DESCRIBE_CONFIGS", "ALTER_CONFIGS", "IDEMPOTENT_WRITE"]


def consumer_conf(sandbox, group: str, protocol: str) -> dict:
    conf = sandbox.gateway("admin").confluent_config()
    conf.pop("error_cb", None)
    return {**conf, "group.id": group, "group.protocol": protocol, "auto.offset.reset": "earliest",
            "enable.auto.commit": False}


def join_and_commit(sandbox, group: str, protocol: str, topic: str) -> None:
    """Make a real group: a consumer joins, commits offset 0 and leaves (the group stays, Empty)."""
    from confluent_kafka import Consumer, TopicPartition

    c = Consumer(consumer_conf(sandbox, group, protocol))
    try:
        c.subscribe([topic])
        deadline = time.monotonic() + 30
        while not c.assignment() and time.monotonic() < deadline:
            c.poll(0.2)
        assert c.assignment(), f"{group} got no assignment"
        c.commit(offsets=[TopicPartition(topic, 0, 0)], asynchronous=False)
    finally:
        c.close()


@pytest.fixture(scope="module")
def world(sandbox):
    t = token()
    names = {
        "eu": f"orders.{t}.eu", "us": f"orders.{t}.us", "bob": f"bob.{t}.only", "pay": f"payments.{t}.x",
        "g_classic": f"orders.{t}.app", "g_new": f"orders.{t}.new", "g_pay": f"payments.{t}.app",
        "prefix": f"orders.{t}.",
    }
    admin = lambda *a: sandbox.as_user("admin", *a)  # noqa: E731
    for key in ("eu", "us", "bob", "pay"):
        assert admin("topics", "create", names[key], "--partitions", "2").exit_code == 0
    join_and_commit(sandbox, names["g_classic"], "classic", names["eu"])
    join_and_commit(sandbox, names["g_new"], "consumer", names["eu"])
    join_and_commit(sandbox, names["g_pay"], "classic", names["pay"])
    grants = [
        ["--allow-principal", "User:alice", "--operation", "Read", "--topic", names["prefix"],
         "--group", names["prefix"], "--resource-pattern-type", "prefixed"],
        ["--allow-principal", "User:bob", "--operation", "Describe", "--topic", names["bob"]],
        ["--deny-principal", "User:bob", "--operation", "Write", "--topic", names["bob"]],
    ]
    for g in grants:
        r = admin("acls", "create", *g)
        assert r.exit_code == 0, r.stderr
    yield names
    gw = sandbox.gateway("admin")
    remove_exactly(gw, snapshot(gw, t))
    gw.admin.delete_consumer_groups([names["g_classic"], names["g_new"], names["g_pay"]])
    admin("topics", "delete", names["eu"], names["us"], names["bob"], names["pay"], "--yes")


def as_json(sandbox, user, *args):
    r = sandbox.as_user(user, "-o", "json", *args)
    assert r.exit_code == 0, (user, args, r.stderr)
    return json.loads(r.stdout)


def mine(items, names, key="name"):
    ours = {v for k, v in names.items() if k != "prefix"}
    return {i[key]: i["authorized_operations"]["operations"] for i in items if i[key] in ours}


def test_admin_is_granted_everything(sandbox, world):
    assert as_json(sandbox, "admin", "cluster", "describe", "--authorized-ops")["authorized_operations"] == {
        "supplied": True, "raw": 8096, "operations": ALL_CLUSTER}
    topics = as_json(sandbox, "admin", "topics", "describe", "--authorized-ops")
    assert mine(topics, world) == {world[k]: ALL_TOPIC for k in ("eu", "us", "bob", "pay")}
    groups = as_json(sandbox, "admin", "groups", "describe", "--authorized-ops")
    assert mine(groups, world, "group") == {world[k]: ALL_GROUP for k in ("g_classic", "g_new", "g_pay")}


def test_alice_read_on_a_prefix_implies_describe_and_hides_the_rest(sandbox, world):
    cluster = as_json(sandbox, "alice", "cluster", "describe", "--authorized-ops")["authorized_operations"]
    assert cluster == {"supplied": True, "raw": 0, "operations": []}  # a real empty set, not "not supplied"
    topics = as_json(sandbox, "alice", "topics", "describe", "--authorized-ops")
    assert mine(topics, world) == {world["eu"]: ["READ", "DESCRIBE"], world["us"]: ["READ", "DESCRIBE"]}
    assert {t["authorized_operations"]["raw"] for t in topics if t["name"] in (world["eu"], world["us"])} == {264}
    listed = {g["group"] for g in as_json(sandbox, "alice", "groups", "list")}
    assert {world["g_classic"], world["g_new"]} <= listed and world["g_pay"] not in listed
    groups = as_json(sandbox, "alice", "groups", "describe", "--authorized-ops")
    assert mine(groups, world, "group") == {world["g_classic"]: ["READ", "DESCRIBE"],
                                            world["g_new"]: ["READ", "DESCRIBE"]}
    assert mine(as_json(sandbox, "alice", "topics", "list", "--authorized-ops"), world) == mine(topics, world)
    assert mine(as_json(sandbox, "alice", "groups", "list", "--include-authorized-operations"), world, "group") == \
        mine(groups, world, "group")
    r = sandbox.as_user("alice", "topics", "describe", world["pay"])
    assert r.exit_code == ExitCode.NOT_AUTHORIZED and f"Describe on Topic:{world['pay']}" in r.stderr
    r = sandbox.as_user("alice", "groups", "describe", world["g_pay"])
    assert r.exit_code == ExitCode.NOT_AUTHORIZED


def test_bob_describe_only_and_a_deny_write(sandbox, world):
    assert as_json(sandbox, "bob", "cluster", "describe", "--authorized-ops")["authorized_operations"]["raw"] == 0
    topics = as_json(sandbox, "bob", "topics", "describe", "--authorized-ops")
    assert mine(topics, world) == {world["bob"]: ["DESCRIBE"]}
    r = sandbox.as_user("bob", "groups", "list")
    assert r.exit_code == 0 and r.stdout == "" and "Describe on the CLUSTER" in r.stderr


def test_carol_sees_nothing_and_the_hint_goes_to_stderr_only(sandbox, world):
    r = sandbox.as_user("carol", "groups", "list")
    assert (r.exit_code, r.stdout) == (0, "")
    assert "hint:" in r.stderr and "Describe (or Read) on the groups" in r.stderr
    r = sandbox.as_user("carol", "-o", "json", "groups", "list")
    assert json.loads(r.stdout) == [] and "hint:" in r.stderr
    assert mine(as_json(sandbox, "carol", "topics", "describe", "--authorized-ops"), world) == {}
    assert as_json(sandbox, "carol", "cluster", "describe", "--authorized-ops")["authorized_operations"]["raw"] == 0


def test_whoami_per_principal(sandbox, world):
    me = as_json(sandbox, "alice", "auth", "whoami")
    assert me["principal"] == "User:alice"
    assert me["cluster"]["authorized_operations"]["operations"] == []
    assert {t["name"]: t["authorized_operations"]["operations"] for t in me["topics"]
            if t["name"] in world.values()} == {world["eu"]: ["READ", "DESCRIBE"], world["us"]: ["READ", "DESCRIBE"]}
    assert {g["name"] for g in me["groups"]} >= {world["g_classic"], world["g_new"]}
    carol = sandbox.as_user("carol", "-o", "json", "auth", "whoami")
    assert carol.exit_code == 0 and "hint:" in carol.stderr
    assert json.loads(carol.stdout)["groups"] == []


def test_the_broker_sends_the_sentinel_when_not_asked(sandbox, world):
    """The raw answer (the private RPC, as the broker sends it): the sentinel, not a decoded 0."""
    md = sandbox.gateway("alice")._topic_metadata([world["eu"]], include_authorized_operations=False)
    assert from_bit_positions(md.topics[0].authorized_operations) == NOT_SUPPLIED
    r = sandbox.as_user("alice", "-o", "table", "acls", "decode-ops", "--", str(NOT_SUPPLIED))
    assert "not supplied by the broker" in r.stdout


def test_matrix_and_detail_views(sandbox, world):
    r = sandbox.as_user("alice", "-o", "table", "topics", "describe", world["eu"], world["us"], "--authorized-ops")
    assert r.exit_code == 0
    lines = r.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if "RESOURCE" in line)
    header = lines[at]
    assert "READ" in header and "DESCRIBE CONFIGS" in header and "IDEMPOTENT" not in header
    # the describe view comes first, its partitions included (issue 29: the matrix replaced it)
    assert any(world["eu"] in line for line in lines[:at]) and "LEADER" in r.stdout.upper(), r.stdout
    row = next(line for line in lines[at:] if world["eu"] in line)
    assert row.count("✓") == 2 and row.count("✗") == 6
    assert "✓ allowed" in r.stdout and "not supplied by the broker" in r.stdout  # the legend
    r = sandbox.as_user("alice", "-o", "table", "topics", "describe", world["eu"], "--authorized-ops")
    assert "raw bitfield" in r.stdout.lower() and "264" in r.stdout
    r = sandbox.as_user("alice", "-o", "csv", "topics", "describe", world["eu"], "--authorized-ops")
    assert f"TOPIC,{world['eu']},READ,true" in r.stdout and f"TOPIC,{world['eu']},WRITE,false" in r.stdout


def test_topic_describe_shows_partitions(sandbox, world):
    [t] = as_json(sandbox, "admin", "topics", "describe", world["eu"])
    assert [p["partition"] for p in t["partitions"]] == [0, 1]
    assert all(p["leader"] == 1 and p["replicas"] == [1] and p["isr"] == [1] and p["offline_replicas"] == []
               for p in t["partitions"])
    assert t["topic_id"] and t["internal"] is False and t["authorized_operations"] is None
    r = sandbox.as_user("admin", "topics", "describe", world["eu"], "no.such.topic")
    assert r.exit_code == ExitCode.PARTIAL and "no.such.topic" in r.stderr and world["eu"] in r.stdout


def test_live_members_of_classic_and_consumer_protocol_groups(sandbox, world):
    from confluent_kafka import Consumer

    t = token()
    consumers = []
    try:
        for proto in ("classic", "consumer"):
            c = Consumer(consumer_conf(sandbox, f"live.{t}.{proto}", proto))
            c.subscribe([world["us"]])
            consumers.append(c)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not all(c.assignment() for c in consumers):
            for c in consumers:
                c.poll(0.1)
        got = {g["group"]: g for g in as_json(sandbox, "admin", "groups", "describe", f"live.{t}.classic",
                                              f"live.{t}.consumer")}
        for proto in ("classic", "consumer"):
            g = got[f"live.{t}.{proto}"]
            assert g["type"] == proto and g["state"] == "Stable" and g["protocol"]
            [m] = g["member_list"]
            assert sorted(m["assignment"]) == [f"{world['us']}-0", f"{world['us']}-1"]
    finally:
        for c in consumers:
            c.close()
        sandbox.gateway("admin").admin.delete_consumer_groups([f"live.{t}.classic", f"live.{t}.consumer"])


def test_several_failures_give_one_error_line_and_each_reason(sandbox):
    """Adversary pass on issue 13: two missing topics printed three `error:` lines."""
    r = sandbox.as_user("admin", "topics", "describe", "no.such.a", "no.such.b")
    assert r.exit_code == ExitCode.NOT_FOUND and r.stderr.count("error:") == 1, r.stderr
    assert "no.such.a" in r.stderr and "no.such.b" in r.stderr and r.stderr.startswith("failed:")


def test_plain_whoami_prints_the_principal_alone(sandbox):
    """Issue 29, item 6: in a pipe, `auth whoami` printed rows of authorized operations, not who the caller is."""
    r = sandbox.as_user("alice", "-o", "plain", "auth", "whoami")
    assert (r.exit_code, r.stdout) == (0, "User:alice\n"), r.output
