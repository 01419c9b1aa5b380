"""kafkactl's StandardAuthorizer model against the real broker: a differential test (issue 8).

Random ACL sets (LITERAL names and `*`, PREFIXED names that prefix each other, `User:*`, ALLOW and DENY, hosts
`*`, 127.0.0.1 (the address the sandbox sees) and another IP, every operation of each type and some no type
has) are loaded into the sandbox one after another. After each, for admin (a super user), alice, bob and carol,
the broker's own answers are read as that principal:
- KIP-430 authorized operations of five topics whose names share prefixes, three groups and the cluster
  (DescribeCluster reports 0 unless the caller may Describe the cluster);
- which of those topics Metadata shows (a topic the caller may not Describe is refused);
- which of those groups ListGroups returns (KIP-231: all with Describe on the cluster, else per group).
Each answer is compared with what the model predicts from the ACLs the broker says it holds. Any disagreement
fails the test with the seed; KAFKACTL_DIFF_SEED=<seed> replays the same sets (KAFKACTL_DIFF_SETS: how many).
"""

from __future__ import annotations

import collections
import os
import random
import time

import pytest

from kafkactl.acl.authorizer import Authorizer
from kafkactl.acl.model import (
    BINDABLE_OPERATIONS,
    CLUSTER_NAME,
    SUPPORTED_OPERATIONS,
    AclBinding,
    AclFilter,
    AclOperation,
    PatternType,
    Permission,
    ResourceType,
)
from kafkactl.describe.cluster import describe_cluster
from kafkactl.describe.groups import describe_groups, list_groups
from kafkactl.describe.topics import describe_topics, list_topics
from tests.integration.acl_helpers import token

SEED = int(os.environ["KAFKACTL_DIFF_SEED"])  # chosen, and printed in the header, by tests/conftest.py
SETS = int(os.environ.get("KAFKACTL_DIFF_SETS") or 100)
PRINCIPALS = ("admin", "alice", "bob", "carol")
CLIENT_IP = "127.0.0.1"  # the sandbox listens on 127.0.0.1 only
T, G, C, X = ResourceType.TOPIC, ResourceType.GROUP, ResourceType.CLUSTER, ResourceType.TRANSACTIONAL_ID


@pytest.fixture(scope="module")
def world(sandbox):
    from confluent_kafka import ConsumerGroupTopicPartitions, TopicPartition

    base = f"az{token()}"
    topics = [f"{base}.a", f"{base}.ab", f"{base}.abc", f"{base}.b", f"{base}x"]
    groups = [f"{base}.a", f"{base}.ab", f"{base}.g"]
    admin = sandbox.gateway("admin")
    errors = admin.create_topics([(t, 1, 1, {}) for t in topics])
    assert not any(errors.values()), errors
    # a group exists once offsets are committed for it (an Empty group, listed and described)
    deadline = time.monotonic() + 60
    while not set(groups) <= {x.group for x in list_groups(admin)}:  # (other tests' groups may be listed too)
        assert time.monotonic() < deadline, "the test groups never appeared"
        for g in groups:  # librdkafka alters one group per call; a topic just created may not be known yet
            for f in admin.admin.alter_consumer_group_offsets(
                    [ConsumerGroupTopicPartitions(g, [TopicPartition(topics[0], 0, 0)])]).values():
                try:
                    f.result(timeout=30)
                except Exception:  # noqa: BLE001 - retried until the group is listed
                    time.sleep(0.2)
    gateways = {u: sandbox.gateway(u) for u in PRINCIPALS}
    yield {"base": base, "topics": topics, "groups": groups, "admin": admin, "gw": gateways}
    admin.delete_topics(topics)


def random_acls(rng: random.Random, base: str, topics: list[str], groups: list[str]) -> list[AclBinding]:
    prefixes = [base, f"{base}.", f"{base}.a", f"{base}.ab", f"{base}.abc", f"{base}.g", "a", "*", "zz"]
    txn_ids = [f"{base}.tx", f"{base}.a"]
    out = set()
    for _ in range(rng.randint(1, 12)):
        rtype = rng.choices([T, G, C, X], weights=[45, 30, 18, 7])[0]
        if rtype is C:
            name, pattern = CLUSTER_NAME, PatternType.LITERAL
        elif rng.random() < 0.5:
            name, pattern = rng.choice({T: topics, G: groups, X: txn_ids}[rtype] + ["*"]), PatternType.LITERAL
        else:
            name, pattern = rng.choice(prefixes), PatternType.PREFIXED
        ops = sorted(SUPPORTED_OPERATIONS[rtype] | {AclOperation.ALL})
        if rng.random() < 0.1:  # an operation the type lacks: the broker stores it, and Write still implies Describe
            ops = sorted(BINDABLE_OPERATIONS - SUPPORTED_OPERATIONS[rtype] - {AclOperation.ALL})
        principal = rng.choices(["User:alice", "User:bob", "User:carol", "User:*", "User:admin"],
                                weights=[25, 25, 15, 30, 5])[0]
        host = rng.choices(["*", CLIENT_IP, "10.1.2.3"], weights=[60, 25, 15])[0]
        permission = Permission.ALLOW if rng.random() < 0.7 else Permission.DENY
        out.add(AclBinding(rtype, name, pattern, principal, host, rng.choice(ops), permission))
    return sorted(out)


def await_acls(admin, expected: set[AclBinding], timeout: float = 30) -> list[AclBinding]:
    """The broker's own ACL set, once it is exactly `expected` (the authorizer has applied every record)."""
    deadline = time.monotonic() + timeout
    while True:
        found = admin.describe_acls(AclFilter(), bulk=True)
        if set(found) == expected or time.monotonic() > deadline:
            assert set(found) == expected, "the broker never showed the ACL set"
            return found
        time.sleep(0.05)


def observe(world, user: str) -> dict:
    """What the broker answers, as `user`: (kind, name) -> the operations, or None where it refuses."""
    gw, topics, groups = world["gw"][user], world["topics"], world["groups"]
    seen: dict = {}
    found, _ = describe_topics(gw, topics, authorized_operations=True)
    for d in found:
        seen[(T, d.name)] = d.authorized_operations.operations
    for t in topics:
        seen.setdefault((T, t), None)
    found, errors = describe_groups(gw, groups, authorized_operations=True)
    for d in found:
        seen[(G, d.group)] = d.authorized_operations.operations
    seen["group errors"] = {e.group: str(e.error) for e in errors}  # shown when a group answer disagrees
    for g in groups:
        seen.setdefault((G, g), None)
    seen[(C, CLUSTER_NAME)] = describe_cluster(gw, authorized_operations=True).authorized_operations.operations
    seen["listed topics"] = sorted({t.name for t in list_topics(gw)} & set(topics))
    seen["listed groups"] = sorted({g.group for g in list_groups(gw)} & set(groups))
    return seen


def predict(az: Authorizer, world, user: str) -> dict:
    principal = f"User:{user}"

    def allowed(rtype, name):
        return frozenset(op for op, d in az.matrix(principal, CLIENT_IP, rtype, name).items() if d.allowed)

    want: dict = {}
    for rtype, names in ((T, world["topics"]), (G, world["groups"])):
        for n in names:
            ops = allowed(rtype, n)
            want[(rtype, n)] = ops if AclOperation.DESCRIBE in ops else None  # refused without Describe
    cluster = allowed(C, CLUSTER_NAME)
    want[(C, CLUSTER_NAME)] = cluster if AclOperation.DESCRIBE in cluster else frozenset()
    want["listed topics"] = sorted(n for n in world["topics"] if want[(T, n)] is not None)
    want["listed groups"] = sorted(n for n in world["groups"]
                                   if AclOperation.DESCRIBE in cluster or want[(G, n)] is not None)
    return want


def test_the_model_agrees_with_the_broker(world, record_property):
    record_property("differential_seed", SEED)
    print(f"differential seed: {SEED} (replay: KAFKACTL_DIFF_SEED={SEED})")
    admin = world["admin"]
    baseline = set(admin.describe_acls(AclFilter(), bulk=True))
    disagreements, cases, loaded, outcomes = [], 0, [], collections.Counter()
    try:
        for i in range(SETS):
            rng = random.Random(SEED * 1000 + i)
            acls = random_acls(rng, world["base"], world["topics"], world["groups"])
            if loaded:
                results = admin.delete_acls([b.to_filter() for b in loaded])
                assert all(err is None for _, err in results), results
            errors = admin.create_acls(acls)
            assert all(e is None for e in errors), errors
            loaded = acls
            held = await_acls(admin, baseline | set(acls))
            az = Authorizer(held, super_users=["User:admin"], allow_everyone_if_no_acl=False)
            for user in PRINCIPALS:
                got, want = observe(world, user), predict(az, world, user)
                cases += sum(1 for k in want if isinstance(k, tuple))
                outcomes.update("refused" if v is None else "none" if not v else "some"
                                for k, v in want.items() if isinstance(k, tuple))
                for key in want:
                    if got[key] != want[key]:
                        disagreements.append((i, user, key, sorted(want[key] or []) if want[key] is not None else None,
                                              sorted(got[key] or []) if got[key] is not None else None,
                                              got["group errors"].get(key[1]) if key[0] == G else None,
                                              [b.describe() for b in acls]))
    finally:
        if loaded:
            admin.delete_acls([b.to_filter() for b in loaded])
            await_acls(admin, baseline)
    assert not disagreements, (f"seed {SEED}: {len(disagreements)} disagreements in {cases} cases; first: "
                               f"{disagreements[:3]}")
    print(f"{cases} cases over {SETS} ACL sets, 0 disagreements; predicted outcomes: {dict(outcomes)}")
    assert cases >= 2000, cases
    # the sets must exercise both sides, or agreement proves little
    assert min(outcomes["refused"], outcomes["some"]) > cases // 10, outcomes


def _produce(sandbox, user: str, topic: str, **conf) -> str | None:
    """One record from a real librdkafka producer as `user`: None when delivered, else the error's name."""
    from confluent_kafka import KafkaException, Producer

    base = sandbox.gateway(user).confluent_config()
    base.pop("error_cb", None)
    p = Producer({**base, "enable.idempotence": True, "message.timeout.ms": 8000, "log_level": 0, **conf})
    outcome: list = []
    try:
        if "transactional.id" in conf:
            p.init_transactions(10)
            p.begin_transaction()
        p.produce(topic, b"x", on_delivery=lambda err, _msg: outcome.append(err))
        p.flush(10)
        if "transactional.id" in conf:
            p.commit_transaction(10)
    except KafkaException as exc:
        return exc.args[0].name()
    err = outcome[0] if outcome else None
    return None if err is None else err.name()


def test_producer_acls_as_lint_judges_them(sandbox, world):
    """lint says Write on a topic is enough for an idempotent producer (KIP-679) and a transactional one also
    needs Write on its transactional id: the broker, asked by a real producer as alice, agrees."""
    from kafkactl.acl.lint import lint

    admin, topic, txn = world["admin"], world["topics"][3], f"{world['base']}.tx"
    write = AclBinding(T, topic, PatternType.LITERAL, "User:alice", "*", AclOperation.WRITE, Permission.ALLOW)
    txn_write = AclBinding(X, txn, PatternType.LITERAL, "User:alice", "*", AclOperation.WRITE, Permission.ALLOW)
    baseline = set(admin.describe_acls(AclFilter(), bulk=True))
    try:
        assert admin.create_acls([write]) == [None]
        az = Authorizer(await_acls(admin, baseline | {write}))
        assert az.authorize_by_resource_type("User:alice", CLIENT_IP, AclOperation.WRITE, T)
        assert not az.authorize("User:alice", CLIENT_IP, AclOperation.IDEMPOTENT_WRITE, C, CLUSTER_NAME).allowed
        assert [f.check for f in lint([write])] == ["write-without-idempotent-write"]
        assert _produce(sandbox, "alice", topic) is None  # idempotent, without IdempotentWrite
        assert _produce(sandbox, "alice", topic, **{"transactional.id": txn}) == "TRANSACTIONAL_ID_AUTHORIZATION_FAILED"
        assert admin.create_acls([txn_write]) == [None]
        await_acls(admin, baseline | {write, txn_write})
        assert _produce(sandbox, "alice", topic, **{"transactional.id": txn}) is None
        assert "transactional-without-topic-write" in [f.check for f in lint([txn_write])]
    finally:
        admin.delete_acls([write.to_filter(), txn_write.to_filter()])
        await_acls(admin, baseline)


def test_the_commands_read_the_cluster_as_they_read_a_file(sandbox, world, tmp_path):
    """check, who-can and lint from the cluster (MATCH filter, the context's super users) answer as they do from
    the same ACLs exported to a file; a principal without Describe on the cluster gets exit 3."""
    import json

    from kafkactl.exitcodes import ExitCode

    admin, base, topic = world["admin"], world["base"], world["topics"][1]
    planted = [
        AclBinding(T, f"{base}.", PatternType.PREFIXED, "User:alice", "*", AclOperation.READ, Permission.ALLOW),
        AclBinding(T, topic, PatternType.LITERAL, "User:alice", CLIENT_IP, AclOperation.ALL, Permission.DENY),
        AclBinding(T, "*", PatternType.PREFIXED, "User:bob", "*", AclOperation.WRITE, Permission.ALLOW),
    ]
    baseline = set(admin.describe_acls(AclFilter(), bulk=True))
    try:
        assert admin.create_acls(planted) == [None] * 3
        await_acls(admin, baseline | set(planted))
        exported = sandbox.as_user("admin", "acls", "list", "-o", "json")
        f = tmp_path / "acls.json"
        f.write_text(exported.stdout)
        for args in (["check", "--principal", "User:alice", "--operation", "Read", "--topic", world["topics"][0]],
                     ["check", "--principal", "User:alice", "--host", CLIENT_IP, "--operation", "Read", "--topic",
                      topic],
                     ["who-can", "--operation", "Read", "--topic", topic]):
            live = sandbox.as_user("admin", "acls", *args, "-o", "json")
            offline = sandbox.as_user("admin", "acls", *args, "--acls-file", str(f), "--super-user", "User:admin",
                                      "-o", "json")
            assert (live.exit_code, json.loads(live.stdout)) == (offline.exit_code, json.loads(offline.stdout)), args
        assert json.loads(sandbox.as_user("admin", "acls", "check", "--principal", "User:alice", "--host", CLIENT_IP,
                                          "--operation", "Read", "--topic", topic, "-o", "json").stdout)["reason"] \
            == "deny-acl"
        lint = sandbox.as_user("admin", "acls", "lint", "-o", "json")
        assert lint.exit_code == ExitCode.FINDINGS
        assert any(x["check"] == "prefixed-wildcard" and x["subject"] == planted[2].describe()
                   for x in json.loads(lint.stdout))
        denied = sandbox.as_user("carol", "acls", "check", "--principal", "User:alice", "--operation", "Read",
                                 "--topic", topic)
        assert denied.exit_code == ExitCode.NOT_AUTHORIZED and "Describe" in denied.stderr and denied.stdout == ""
    finally:
        admin.delete_acls([b.to_filter() for b in planted])
        await_acls(admin, baseline)
