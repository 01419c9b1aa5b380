"""Several brokers (issue 15): a sandbox of 3 brokers and a quorum of 3 controllers, each its own JVM.

What one broker cannot show: every broker authorizes by its own copy of the metadata log, so an apply's phase is
confirmed only when each live broker lists it, and the ordering promise (a request both policies allow is never
refused, one both refuse is never allowed) is asked of every broker, by the broker's own answers.
"""

from __future__ import annotations

import json
import os
import secrets
import threading
import time
from pathlib import Path

import pytest

from kafkactl.acl.bitfield import decode
from kafkactl.acl.model import AclFilter, AclOperation, ResourceType
from tests.cluster3 import admin_properties, answering_again, freeze, gateway
from tests.conftest import own_xdg, run
from tests.integration.acl_helpers import token
from tests.markers import starts

# six JVMs of this sandbox share two cores with the other worker's (a Spark cluster, a preset's clients): a
# write through the controller quorum took over 10 s there (CI, 2026-11-28), which is load, not what these tests
# are about
PATIENT_S = 30
PATIENT = ("--timeout", str(PATIENT_S))


def ok(r):
    assert r.exit_code == 0, r.output[-3000:]
    return r


@pytest.fixture(scope="module")
@starts("broker", "multi_broker")
def cluster3(tmp_path_factory):
    """3 brokers and 3 controllers under their own XDG directories (contexts local-* point at them), with an OAUTHBEARER
    and a GSSAPI listener on each broker."""
    from kafkactl.local.sandbox import Sandbox
    from tests.secrets_sweep import register

    mp = own_xdg(tmp_path_factory.mktemp("three"))
    sb = Sandbox()
    try:
        started = time.monotonic()
        status = sb.up(timeout=240, brokers=3, controllers=3, oauth=True, kerberos=True, proxied=True)
        print(f"\n3 brokers + 3 controllers up in {time.monotonic() - started:.1f} s")
        state = sb.load_state()
        assert state is not None and status.running
        for user, password in state.passwords.items():
            register(password, f"the 3-broker sandbox password of {user}")
        from tests.secrets_sweep import register_sandbox

        register_sandbox(sb.state_file)  # (the identity provider's signing key, the keytabs' keys)
        yield sb, state
    finally:
        sb.down(purge=True)
        mp.undo()


def test_status_lists_every_node_and_contexts_bootstrap_from_every_broker(cluster3):
    sb, state = cluster3
    status = json.loads(ok(run("-o", "json", "local", "status")).stdout)
    assert status["running"] and status["topology"] == "3 brokers, 3 controllers"
    nodes = {(n["node_id"], n["roles"]) for n in status["nodes"]}
    assert nodes == {(1, "broker"), (2, "broker"), (3, "broker"),
                     (3001, "controller"), (3002, "controller"), (3003, "controller")}
    assert all(n["running"] and n["pid"] for n in status["nodes"])
    assert len({n["pid"] for n in status["nodes"]}) == 6  # six processes
    contexts = json.loads(ok(run("-o", "json", "context", "list")).stdout)
    admin = next(c for c in contexts if c["name"] == "local-admin")
    assert sorted(admin["bootstrap_servers"].split(",")) == sorted(state.bootstrap.split(","))
    described = json.loads(ok(run(*PATIENT, "--context", "local-admin", "-o", "json", "cluster", "describe")).stdout)
    assert sorted(b["id"] for b in described["brokers"]) == [1, 2, 3]
    # asking for another shape of the kept sandbox is an error, not a silent rebuild
    r = run("local", "up", "--brokers", "2")
    assert r.exit_code == 2 and "3 brokers, 3 controllers" in r.stderr and "--purge" in r.stderr


def test_cluster_describe_names_the_active_controller_as_kafka_metadata_quorum_does(cluster3):
    """Issue 31, item 5: DescribeCluster names a random broker as "controller" in KRaft; the quorum's leader, as Kafka's
    own kafka-metadata-quorum.sh reports it, is the active controller. Voters are the 3 controllers, observers the 3
    brokers."""
    sb, state = cluster3
    info = json.loads(ok(run(*PATIENT, "--context", "local-admin", "-o", "json", "cluster", "describe")).stdout)
    assert info["controller_id"] == _controller_leader(sb, state) and info["controller_id"] in (3001, 3002, 3003)
    assert not any(b["controller"] for b in info["brokers"])  # a quorum of its own: no broker is the controller
    roles = {m["id"]: m["role"] for m in info["quorum"]["members"]}
    assert roles == {3001: "voter", 3002: "voter", 3003: "voter", 1: "observer", 2: "observer", 3: "observer",
                     info["controller_id"]: "leader"}, roles


def test_apply_and_create_are_confirmed_by_every_broker(cluster3, tmp_path):
    sb, state = cluster3
    t = token()
    doc = tmp_path / "state.yaml"
    doc.write_text(f"scope:\n  principalPrefixes: ['User:{t}-']\nacls:\n"
                   f"  - principal: User:{t}-app\n    allow:\n"
                   + "".join(f"      - topic: '{t}.{i}'\n        operations: [Read, Write]\n" for i in range(300)))
    r = ok(run(*PATIENT, "--context", "local-admin", "-o", "json", "acls", "apply", str(doc), "--yes"))
    result = json.loads(r.stdout)
    assert [(c["phase"], c["brokers"]) for c in result["confirmations"]] == [(2, 3)]
    assert "confirmed by every live broker" in r.stderr and "slowest: broker" in r.stderr
    # right after apply returns, each broker's own authorizer lists every binding (asked by node id)
    admin = gateway(state, "admin", timeout=PATIENT_S)
    try:
        for node in (1, 2, 3):
            seen = admin.describe_acls(AclFilter(principal=f"User:{t}-app"), node=node)
            assert len(seen) == 600, (node, len(seen))
        r = ok(run(*PATIENT, "--context", "local-admin", "acls", "create", "--allow-principal", f"User:{t}-other",
                   "--operation", "Read", "--topic", f"{t}.x"))
        for node in (1, 2, 3):
            assert len(admin.describe_acls(AclFilter(principal=f"User:{t}-other"), node=node)) == 1
    finally:
        admin.close()


def test_oauth_and_kerberos_clients_apply_through_every_broker(cluster3, gssapi_python, tmp_path):
    """An OAuth client and a Kerberos principal each apply a policy on 3 brokers: every broker confirms it, so each
    accepted the client's token, or its service ticket for kafka/localhost (each broker's own connection)."""
    from tests.conftest import run_process

    sb, state = cluster3
    for context, python in (("local-oauth-admin", None), ("local-kerberos-admin", gssapi_python)):
        t = token()
        doc = tmp_path / f"{t}.yaml"
        doc.write_text(f"scope:\n  principalPrefixes: ['User:{t}-']\nacls:\n  - principal: User:{t}-app\n    allow:\n"
                       + "".join(f"      - topic: '{t}.{i}'\n        operations: [Read]\n" for i in range(30)))
        r = run_process(*PATIENT, "--context", context, "-o", "json", "acls", "apply", str(doc), "--yes",
                        python=python)
        assert r.exit_code == 0, r.stderr[-3000:]
        assert [(c["phase"], c["brokers"]) for c in json.loads(r.stdout)["confirmations"]] == [(2, 3)], context
        described = json.loads(run_process(*PATIENT, "--context", context, "-o", "json", "cluster", "describe",
                                           python=python).stdout)
        assert len(described["brokers"]) == 3, context
        ok(run(*PATIENT, "--context", "local-admin", "acls", "delete", "--principal", f"User:{t}-app", "--yes"))


def test_topics_create_and_delete_return_once_every_broker_shows_them(cluster3):
    """CreateTopics and DeleteTopics answer when the controller has the change; each broker answers Metadata from
    its own copy a moment later, and a command right after (a describe, a produce) may reach any of them. Right
    after `topics create` (and `topics delete`) returns, every broker, asked by id, lists the topic with its
    partitions (and then none does): 20 times in a row."""
    sb, state = cluster3
    admin = gateway(state, "admin", timeout=PATIENT_S)
    t = token()
    try:
        for i in range(20):
            name = f"{t}.made.{i}"
            ok(run(*PATIENT, "--context", "local-admin", "topics", "create", name, "--partitions", "6"))
            for node in (1, 2, 3):
                [record] = admin.topics([name], node=node)
                assert record.error is None and len(record.partitions) == 6, (i, node, record)
            ok(run(*PATIENT, "--context", "local-admin", "topics", "delete", name, "--yes"))
            for node in (1, 2, 3):
                [record] = admin.topics([name], node=node)
                assert record.error is not None and "UNKNOWN_TOPIC" in record.error.name, (i, node, record)
    finally:
        admin.close()


# ------------------------------------------------------------------------------------------ the ordering probe

OLD = """scope:
  principals: ["User:{p}"]
acls:
  - principal: User:{p}
    allow:
      - topic: mbp-
        pattern: prefixed
        operations: [Read, Write, Describe]
    deny:
      - topic: mbp-locked
        operations: [Write]
"""
NEW = """scope:
  principals: ["User:{p}"]
acls:
  - principal: User:{p}
    allow:
      - topic: mbp-orders
        operations: [Read, Write, Describe]
      - topic: mbp-locked
        operations: [Describe]
    deny:
      - topic: mbp-lock
        pattern: prefixed
        operations: [Write]
"""
# (operation, topic): (allowed by OLD, allowed by NEW); where both agree, every broker must agree at every moment
REQUESTS = {
    (AclOperation.WRITE, "mbp-orders"): (True, True),
    (AclOperation.READ, "mbp-orders"): (True, True),
    (AclOperation.DESCRIBE, "mbp-locked"): (True, True),
    (AclOperation.WRITE, "mbp-locked"): (False, False),
    (AclOperation.ALTER, "mbp-orders"): (False, False),
    (AclOperation.READ, "mbp-other"): (True, False),
    (AclOperation.WRITE, "mbp-other"): (True, False),
}
TOPICS = ("mbp-orders", "mbp-locked", "mbp-other")


class Probe:
    """As the principal the policies are about, asks each broker in turn (its own authorizer's answer): the
    authorized operations of the three topics (Metadata, which also shows visibility), and a real produce to
    the partition that broker leads (mbp-orders, allowed by both policies; mbp-locked, refused by both)."""

    def __init__(self, state, principal: str, password: str, leaders: dict[str, dict[int, int]]) -> None:
        self.gw = gateway(state, principal, password, timeout=PATIENT_S)
        self.config = {
            "bootstrap.servers": state.bootstrap, "security.protocol": "SASL_PLAINTEXT",
            "sasl.mechanism": "SCRAM-SHA-512", "sasl.username": principal, "sasl.password": password,
            "acks": "1", "enable.idempotence": False, "message.timeout.ms": 5000, "retries": 0,
            "topic.metadata.refresh.interval.ms": 500}
        self.producer = self._producer()
        self.leaders = leaders  # topic -> broker -> a partition it leads
        self.probes = 0
        self.violations: list[str] = []
        self.stop = threading.Event()

    def _check(self, what: str, allowed: bool, expected: tuple[bool, bool]) -> None:
        self.probes += 1
        if expected == (True, True) and not allowed:
            self.violations.append(f"refused although both policies allow: {what}")
        elif expected == (False, False) and allowed:
            self.violations.append(f"allowed although both policies refuse: {what}")

    def round(self) -> None:
        for node in (1, 2, 3):
            records = {t.name: t for t in self.gw.topics(list(TOPICS), include_authorized_operations=True, node=node)}
            for (op, topic), expected in REQUESTS.items():
                t = records[topic]
                allowed = t.error is None and bool(decode(t.authorized_operations, ResourceType.TOPIC).allows(op))
                self._check(f"broker {node}: {op.pascal} on {topic} (authorized operations)", allowed, expected)
        # a producer refused once refuses locally after that, without asking: the refused topic gets a fresh one
        refused = self._producer()
        for node in (1, 2, 3):
            self._produce(self.producer, node, "mbp-orders", (True, True))
            self._produce(refused, node, "mbp-locked", (False, False))

    def _producer(self):
        from confluent_kafka import Producer

        return Producer(self.config)

    def _produce(self, producer, node: int, topic: str, expected: tuple[bool, bool]) -> None:
        from confluent_kafka import KafkaException

        partition = self.leaders[topic][node]
        outcome: list = []
        try:
            producer.produce(topic, b"probe", partition=partition,
                             on_delivery=lambda err, msg: outcome.append(err))  # noqa: ARG005 (a delivery callback)
        except KafkaException as exc:  # refused before sending: the broker refused this producer earlier
            outcome.append(exc.args[0])
        producer.flush(10)
        err = outcome[0] if outcome else None
        if err is not None and err.name() != "TOPIC_AUTHORIZATION_FAILED":
            return  # a leader moving, a timeout: not an answer about authorization
        self._check(f"broker {node}: produce to {topic}-{partition}", err is None, expected)

    def run(self) -> None:
        while not self.stop.is_set():
            self.round()

    def close(self) -> None:
        self.gw.close()


def test_no_broker_ever_refuses_what_both_policies_allow_during_a_swap(cluster3, probe_world, tmp_path):
    sb, state = cluster3
    principal, password, leaders = probe_world
    old, new = tmp_path / "old.yaml", tmp_path / "new.yaml"
    old.write_text(OLD.format(p=principal))
    new.write_text(NEW.format(p=principal))
    ok(run(*PATIENT, "--context", "local-admin", "acls", "apply", str(old), "--yes"))
    probe = Probe(state, principal, password, leaders)
    probe.round()  # the old policy everywhere before the first swap
    assert probe.violations == []
    thread = threading.Thread(target=probe.run, daemon=True)
    thread.start()
    try:
        for _ in range(3):
            for target in (new, old):
                r = ok(run(*PATIENT, "--context", "local-admin", "-o", "json", "acls", "apply", str(target), "--yes"))
                assert all(c["brokers"] == 3 for c in json.loads(r.stdout)["confirmations"])
                time.sleep(0.3)  # probes under the settled policy too
    finally:
        probe.stop.set()
        thread.join(60)
        probe.close()
    print(f"\nordering probe: {probe.probes} probes on 3 brokers over 6 swaps, {len(probe.violations)} violations")
    assert probe.probes > 500
    assert probe.violations == []


@pytest.fixture(scope="module")
def probe_world(cluster3):
    """The principal the policies are about (a SCRAM user of its own) and the three topics, 6 partitions each,
    replicated on all 3 brokers; each broker leads some partition of each (a produce probe per broker)."""
    from tests.secrets_sweep import register

    sb, state = cluster3
    principal, password = "mbp-app", secrets.token_urlsafe(18)
    register(password, "the probe principal's password")
    ok(run(*PATIENT, "--context", "local-admin", "configs", "alter", "--user", principal,
           "--add-config", f"SCRAM-SHA-512=[password={password}]"))
    for topic in TOPICS:
        ok(run(*PATIENT, "--context", "local-admin", "topics", "create", topic, "--partitions", "6",
               "--replication-factor", "3"))
    admin = gateway(state, "admin", timeout=PATIENT_S)
    deadline = time.monotonic() + 60
    while True:  # a new topic's partitions have leaders a moment after the create returns
        leaders = {t.name: {p.leader: p.partition for p in t.partitions if p.leader is not None}
                   for t in admin.topics(list(TOPICS))}
        if all(set(leaders[t]) == {1, 2, 3} for t in ("mbp-orders", "mbp-locked")) or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    admin.close()
    assert all(set(leaders[t]) == {1, 2, 3} for t in ("mbp-orders", "mbp-locked")), leaders
    return principal, password, leaders


def test_the_probe_sees_a_naive_swap(cluster3, probe_world, tmp_path):
    """The probe is not blind: the same swap done the naive way (the broad ALLOW deleted, then, a second later, the
    narrow ones created) is caught refusing what both policies allow."""
    sb, state = cluster3
    principal, password, leaders = probe_world
    old = tmp_path / "old.yaml"
    old.write_text(OLD.format(p=principal))
    ok(run(*PATIENT, "--context", "local-admin", "acls", "apply", str(old), "--yes"))
    probe = Probe(state, principal, password, leaders)
    thread = threading.Thread(target=probe.run, daemon=True)
    thread.start()
    try:
        ok(run(*PATIENT, "--context", "local-admin", "acls", "delete", "--allow-principal", f"User:{principal}",
               "--topic", "mbp-",
               "--resource-pattern-type", "prefixed", "--operation", "Read", "--operation", "Write",
               "--operation", "Describe", "--yes"))
        time.sleep(1.0)
        ok(run(*PATIENT, "--context", "local-admin", "acls", "create", "--allow-principal", f"User:{principal}",
               "--topic", "mbp-orders", "--operation", "Read", "--operation", "Write", "--operation", "Describe"))
        time.sleep(0.3)
    finally:
        probe.stop.set()
        thread.join(60)
        probe.close()
    assert any("refused although both policies allow" in v for v in probe.violations), probe.probes


def _controller_leader(sb, state) -> int:
    """The active controller, as Kafka's own kafka-metadata-quorum.sh reports it."""
    import subprocess

    from kafkactl.local.assembly import ensure_tools, java_command

    cmd = java_command(ensure_tools(), "org.apache.kafka.tools.MetadataQuorumCommand", "--bootstrap-server",
                       state.bootstrap, "--command-config", str(sb.client_properties("admin")), "describe", "--status",
                       extra=(f"-Dlog4j2.configurationFile={sb.home / 'log4j2.properties'}",))
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    line = next((x for x in out.stdout.splitlines() if x.startswith("LeaderId:")), None)
    assert line, out.stdout + out.stderr[-2000:]
    return int(line.split(":", 1)[1])


# ------------------------------------------------------------------------------------------ a node stops mid-apply

def _big_state(path: Path, t: str, n: int = 10_000) -> None:
    with path.open("w") as fh:
        fh.write(json.dumps({"kind": "scope", "principalPrefixes": [f"User:{t}-"]}) + "\n")
        for i in range(n):
            fh.write(json.dumps({"principal": f"User:{t}-p{i % 50}", "host": "*", "operation": "READ",
                                 "permission": "ALLOW", "resource_type": "TOPIC", "resource_name": f"{t}.{i}",
                                 "pattern_type": "LITERAL"}) + "\n")


def _views(state, t: str) -> dict[int, set]:
    admin = gateway(state, "admin", timeout=PATIENT_S)
    try:
        return {n: {b for b in admin.describe_acls(AclFilter(resource_type=ResourceType.TOPIC), bulk=True, node=n)
                    if b.principal.startswith(f"User:{t}-")} for n in (1, 2, 3)}
    finally:
        admin.close()


@pytest.mark.parametrize("victim", ["broker", "active controller"])
def test_a_node_killed_mid_apply_then_a_rerun_converges(cluster3, tmp_path, victim):
    import os
    import signal
    import subprocess
    import sys

    sb, state = cluster3
    t = token()
    doc = tmp_path / "big.jsonl"
    _big_state(doc, t)
    node_id = 2 if victim == "broker" else _controller_leader(sb, state)
    node = sb.node(node_id)
    apply = subprocess.Popen([sys.executable, "-m", "kafkactl", "--context", "local-admin", "-o", "json", "acls",
                              "apply", str(doc), "--yes"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    admin = gateway(state, "admin", timeout=PATIENT_S)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and apply.poll() is None:
            try:
                if len(admin.describe_acls(AclFilter(principal=f"User:{t}-p0"), bulk=True)) >= 40:
                    break  # 2,000 of the 10,000 are in
            except Exception:
                pass
            time.sleep(0.05)
        killed_while_running = apply.poll() is None
        os.killpg(node.pid, signal.SIGKILL)
        out, err = apply.communicate(timeout=300)
    finally:
        admin.close()
    print(f"\n{victim} {node_id} killed (apply still running: {killed_while_running}); apply exit {apply.returncode}: "
          f"{err.strip().splitlines()[-1] if err.strip() else ''}")
    assert killed_while_running
    assert apply.returncode in (0, 4, 5, 1), err[-3000:]
    if apply.returncode != 0:
        assert "Traceback" not in err and (f"broker {node_id}" in err or victim != "broker"), err[-3000:]
    ok(run("local", "up", "--wait", "240"))  # starts the stopped node again
    ok(run(*PATIENT, "--context", "local-admin", "acls", "apply", str(doc), "--yes"))
    r = run(*PATIENT, "--context", "local-admin", "acls", "plan", str(doc), "--detailed-exitcode")
    assert r.exit_code == 0, r.output[-2000:]  # 0 missing, 0 extra
    views = _views(state, t)
    assert len(views[1]) == 10_000 and views[1] == views[2] == views[3]
    # leave the cluster as it was for the next case
    empty = tmp_path / "empty.jsonl"
    empty.write_text(json.dumps({"kind": "scope", "principalPrefixes": [f"User:{t}-"]}) + "\n")
    ok(run(*PATIENT, "--context", "local-admin", "acls", "apply", str(empty), "--yes", "--max-deletes", "10000"))


@pytest.mark.usefixtures("cluster3")
def test_config_state_sets_each_brokers_own_configs(tmp_path):
    """configs apply with per-broker entries: each broker's resource goes to that broker (another refuses it),
    the cluster-wide default to any; then the exported state, applied again, takes them away."""
    import yaml

    f = tmp_path / "brokers.yaml"
    ok(run(*PATIENT, "--context", "local-admin", "configs", "export", "--section", "brokers", "--file", str(f)))
    before = yaml.safe_load(f.read_text())
    assert before["manage"]["brokers"] == ["default", 1, 2, 3]
    doc = yaml.safe_load(f.read_text())
    entries = {e["broker"]: e for e in doc["brokers"]}
    for b in (2, 3):
        entries.setdefault(b, {"broker": b, "configs": {}})["configs"]["message.max.bytes"] = str(2000000 + b)
    entries.setdefault("default", {"broker": "default", "configs": {}})["configs"]["log.cleaner.threads"] = "2"
    doc["brokers"] = list(entries.values())
    f.write_text(yaml.safe_dump(doc))
    plan = json.loads(ok(run(*PATIENT, "--context", "local-admin", "-o", "json", "configs", "plan", str(f))).stdout)
    assert {(c["entity"], c["key"], c["desired"]) for c in plan["changes"]} == {
        ("2", "message.max.bytes", "2000002"), ("3", "message.max.bytes", "2000003"),
        ("<default>", "log.cleaner.threads", "2")}
    ok(run(*PATIENT, "--context", "local-admin", "configs", "apply", str(f), "--yes"))
    for b in ("2", "3"):
        got = json.loads(ok(run(*PATIENT, "--context", "local-admin", "-o", "json", "configs", "describe", "--broker",
                                b)).stdout)
        assert {(d["name"], d["value"]) for d in got} == {("message.max.bytes", str(2000000 + int(b)))}
    assert not json.loads(ok(run(*PATIENT, "--context", "local-admin", "-o", "json", "configs", "plan",
                                 str(f))).stdout)["changes"]
    f.write_text(yaml.safe_dump(before))
    ok(run(*PATIENT, "--context", "local-admin", "configs", "apply", str(f), "--yes"))
    assert not json.loads(ok(run(*PATIENT, "--context", "local-admin", "-o", "json", "configs", "plan",
                                 str(f))).stdout)["changes"]


# ------------------------------------------------------------------------------------------ a frozen broker (SIGSTOP)
# A frozen broker (a long GC pause, a stopped VM) keeps its connections open and answers nothing until its session
# times out (9 s) and the cluster stops listing it. Each read below runs with --timeout 30: waiting on the frozen
# broker alone shows as 30 s; failing over, as the read's own time and the hedge (bench/failover.py has the figures).
FAILOVER_BOUND_S = 10


def test_reads_fail_over_from_a_frozen_broker(cluster3, tmp_path):
    """Each read, with each broker frozen in turn just before it starts, answers from the others well within
    --timeout. `groups list` shows the groups the other brokers coordinate and names the frozen one (exit 5): no
    broker can answer for a frozen coordinator's groups."""
    from tests.conftest import run_process

    sb, state = cluster3
    t = token()
    ok(run(*PATIENT, "--context", "local-admin", "topics", "create", f"{t}.fo", "--partitions", "3",
           "--replication-factor", "3"))
    plan = tmp_path / "plan.yaml"
    plan.write_text(f"scope:\n  principalPrefixes: ['User:{t}-']\nacls:\n  - principal: User:{t}-app\n    allow:\n"
                    f"      - topic: '{t}.fo'\n        operations: [Read]\n")
    reads = [("acls", "list"), ("topics", "list"), ("configs", "describe", "--topic", f"{t}.fo"),
             ("acls", "plan", str(plan)), ("groups", "list")]
    seen = []
    for node_id in (1, 2, 3):
        for args in reads:
            freeze(sb, node_id, True)
            started = time.monotonic()
            try:
                r = run_process("--timeout", "30", "--context", "local-admin", "-o", "json", *args)
            finally:
                freeze(sb, node_id, False)
            took = time.monotonic() - started
            seen.append(f"{' '.join(args[:2])} (broker {node_id} frozen): exit {r.exit_code} in {took:.2f} s")
            assert "Traceback" not in r.stderr, r.stderr[-3000:]
            if args == ("groups", "list"):
                assert r.exit_code in (0, 5), r.stderr[-2000:]
                json.loads(r.stdout)  # the groups of the brokers that answered, as a list
                if r.exit_code == 5:
                    assert f"broker {node_id} at" in r.stderr and "did not answer" in r.stderr, r.stderr
            else:
                assert r.exit_code == 0, r.stderr[-2000:]
            assert took < FAILOVER_BOUND_S, seen[-1]
            answering_again(state, node_id)
    print("\n" + "\n".join(seen))


def test_the_apply_barrier_stops_waiting_for_a_broker_the_cluster_stops_listing(cluster3, tmp_path):
    """An apply with a broker frozen throughout: the change is made, and its confirmation waits for the frozen
    broker only until the cluster fences it (its session times out), then says so; it never waits out --timeout
    on that one broker's request."""
    from tests.conftest import run_process

    sb, state = cluster3
    t = token()
    doc = tmp_path / "state.yaml"
    doc.write_text(f"scope:\n  principalPrefixes: ['User:{t}-']\nacls:\n  - principal: User:{t}-app\n    allow:\n"
                   f"      - topic: '{t}.x'\n        operations: [Read, Write]\n")
    freeze(sb, 3, True)
    started = time.monotonic()
    try:
        r = run_process("--timeout", "60", "--context", "local-admin", "-o", "json", "acls", "apply", str(doc), "--yes")
    finally:
        freeze(sb, 3, False)
    took = time.monotonic() - started
    print(f"\napply with broker 3 frozen: exit {r.exit_code} in {took:.2f} s")
    assert r.exit_code == 0, r.stderr[-3000:]
    [confirmation] = json.loads(r.stdout)["confirmations"]
    assert confirmation["brokers"] == 2 and confirmation["left"] == [f"broker 3 at {sb.node(3).address}"], confirmation
    assert "broker 3 at" in r.stderr and "left the cluster's list of live brokers" in r.stderr, r.stderr
    assert took < 45, took  # fenced after its 9 s session; the barrier's own deadline is 60 s
    answering_again(state, 3)
    for node in (1, 2, 3):  # and once thawed it shows the change too
        admin = gateway(state, "admin", timeout=PATIENT_S)
        try:
            assert len(admin.describe_acls(AclFilter(principal=f"User:{t}-app"), node=node)) == 2
        finally:
            admin.close()
    ok(run(*PATIENT, "--context", "local-admin", "acls", "delete", "--principal", f"User:{t}-app", "--yes"))


def _group_with_offsets(state, group: str, topic: str) -> None:
    """A real consumer joins `group`, is assigned `topic`, commits and leaves: an Empty group with offsets."""
    from confluent_kafka import Consumer, TopicPartition

    c = Consumer({"bootstrap.servers": state.bootstrap, "security.protocol": "SASL_PLAINTEXT",
                  "sasl.mechanism": "SCRAM-SHA-512", "sasl.username": "admin",
                  "sasl.password": state.passwords["admin"], "group.id": group, "enable.auto.commit": False})
    try:
        c.subscribe([topic])
        deadline = time.monotonic() + 60
        while not c.assignment():
            assert time.monotonic() < deadline, "the consumer was never assigned"
            c.poll(0.2)
        c.commit(offsets=[TopicPartition(topic, p.partition, 0) for p in c.assignment()], asynchronous=False)
    finally:
        c.close()


def test_groups_describe_follows_a_coordinator_that_moves(cluster3):
    """Issue 31, item 4: a group's coordinator killed (SIGKILL) just before `groups describe`. The group moves once
    the cluster fences that broker (its 9 s session); until then its coordinator refuses connections, and then the
    new one answers COORDINATOR_LOAD_IN_PROGRESS or NOT_COORDINATOR while it loads the group: each is asked again
    within --timeout, and the describe answers from the new coordinator."""
    import os
    import signal

    sb, state = cluster3
    t = token()
    ok(run(*PATIENT, "--context", "local-admin", "topics", "create", f"{t}.g", "--partitions", "3",
           "--replication-factor", "3"))
    group = f"{t}-group"
    _group_with_offsets(state, group, f"{t}.g")
    [before] = json.loads(ok(run(*PATIENT, "--context", "local-admin", "-o", "json", "groups", "describe",
                                 group)).stdout)
    moved_from = before["coordinator"]
    os.killpg(sb.node(moved_from).pid, signal.SIGKILL)
    try:
        started = time.monotonic()
        r = run("--timeout", "60", "--context", "local-admin", "-o", "json", "groups", "describe", group)
        took = time.monotonic() - started
        print(f"\ncoordinator {moved_from} killed: groups describe exit {r.exit_code} in {took:.1f} s")
        assert r.exit_code == 0, r.stderr[-2000:]
        [after] = json.loads(r.stdout)
        assert after["coordinator"] != moved_from and after["state"] == "Empty", after
        listed = run(*PATIENT, "--context", "local-admin", "-o", "json", "groups", "list")
        assert listed.exit_code == 0, listed.stderr  # the group's new coordinator lists it, loaded
        assert group in {g["group"] for g in json.loads(listed.stdout)}
    finally:
        ok(run("local", "up", "--wait", "240"))  # starts the killed broker again
        answering_again(state, moved_from)


# ------------------------------------------------------------------------------------------ a network that misbehaves
# Every broker also listens on a listener it advertises at a port of tests/faultproxy.py's, so that a client given
# those addresses makes every connection through the proxy, which adds latency, closes or resets connections part
# way, or stops forwarding, per broker. Each command, under each fault: its documented exit code, within its bound
# (--timeout 5), one line and no traceback (the secrets sweep reads every output); a write completes, or its report
# says exactly what it did.

@pytest.fixture(scope="module")
def proxy(cluster3):
    from tests.faultproxy import FaultProxy

    sb, state = cluster3
    p = FaultProxy({n.proxy_port: n.proxied_port for n in state.nodes if n.is_broker}).start()
    try:
        yield p
    finally:
        p.stop()


def _through(state, proxy, tmp_path) -> list[str]:
    props = admin_properties(state, tmp_path / "proxied-admin.properties")
    return ["-b", ",".join(f"127.0.0.1:{port}" for port in proxy.routes), "--command-config", str(props),
            "--timeout", "5"]


def _fault_cases():
    from tests import faultproxy as fp

    # (fault, on the first broker only?, the exit codes each command may give)
    return [(fp.latency(0.1), False, {"*": {0}}),
            (fp.BLACKHOLE, True, {"*": {0}, "groups list": {5}}),
            (fp.BLACKHOLE, False, {"*": {4}}),
            (fp.drop_after(100), False, {"*": {4}}),
            (fp.reset_after(3000), False, {"*": {0, 4}, "groups list": {0, 4, 5}, "acls apply": {0, 4, 5}})]
# (latency is added to each chunk each way: 100 ms makes a round trip 200 ms, and the SASL login alone six of them)


@pytest.mark.parametrize("case", range(5), ids=["latency", "blackhole-one", "blackhole-all", "drop", "reset"])
def test_commands_under_network_faults(cluster3, proxy, tmp_path, case):
    from collections import Counter

    from tests.conftest import run_process

    sb, state = cluster3
    fault, one, allowed = _fault_cases()[case]
    t = token()
    ok(run(*PATIENT, "--context", "local-admin", "topics", "create", f"{t}.f", "--replication-factor", "3"))
    doc = tmp_path / "state.jsonl"
    want = [{"principal": f"User:{t}-p{i % 5}", "host": "*", "operation": "READ", "permission": "ALLOW",
             "resource_type": "TOPIC", "resource_name": f"{t}.{i}", "pattern_type": "LITERAL"} for i in range(300)]
    doc.write_text(json.dumps({"kind": "scope", "principalPrefixes": [f"User:{t}-"]}) + "\n"
                   + "".join(json.dumps(w) + "\n" for w in want))
    report = tmp_path / "report.jsonl"
    commands = {"acls list": ["acls", "list"], "topics list": ["topics", "list"],
                "configs describe": ["configs", "describe", "--topic", f"{t}.f"], "groups list": ["groups", "list"],
                "cluster describe": ["cluster", "describe"], "acls plan": ["acls", "plan", str(doc)]}
    if not one:  # (a broker the client cannot reach but the cluster lists is waited for by the barrier: 60 s)
        commands["acls apply"] = ["acls", "apply", str(doc), "--yes", "--report", str(report)]
    base = _through(state, proxy, tmp_path)
    seen = []
    proxy.set(fault, [next(iter(proxy.routes))] if one else None)
    try:
        for name, args in commands.items():
            started = time.monotonic()
            r = run_process(*base, "-o", "json", *args, env={"KAFKACTL_CONTEXT": ""})
            took = time.monotonic() - started
            line = next((x for x in r.stderr.splitlines() if x.startswith("error: ")),
                        r.stderr.strip().splitlines()[-1] if r.stderr.strip() else "")
            seen.append(f"{fault.name}{' (broker 1)' if one else ''} | {name} | exit {r.exit_code} | {took:.1f} s | "
                        f"{line[:110]}")
            assert r.exit_code in allowed.get(name, allowed["*"]), seen[-1] + "\n" + r.stderr[-2000:]
            assert "Traceback" not in r.stderr and took < 20, seen[-1]  # (--timeout 5, and the barrier's patience)
            if r.exit_code:
                assert [x for x in r.stderr.splitlines() if x.startswith("error: ")], r.stderr
    finally:
        proxy.clear()
        print("\n" + "\n".join(seen))
    if "acls apply" in commands:  # what the broker holds now: never more than the file, and what the report says
        admin = gateway(state, "admin", timeout=PATIENT_S)
        try:
            held = {(b.principal, b.resource_name) for b in
                    admin.describe_acls(AclFilter(resource_type=ResourceType.TOPIC), bulk=True)
                    if b.principal.startswith(f"User:{t}-")}
        finally:
            admin.close()
        assert held <= {(w["principal"], w["resource_name"]) for w in want}
        rows = [json.loads(x) for x in report.read_text().splitlines()] if report.exists() else []
        statuses = Counter(x["status"] for x in rows)
        created = {(x["principal"], x["resource_name"]) for x in rows if x["status"] == "created"}
        assert created <= held, "the report says created what the broker does not hold"
        if rows:
            assert len(rows) == len(want) and set(statuses) <= {"created", "unknown", "skipped"}, statuses
        ok(run(*PATIENT, "--context", "local-admin", "acls", "apply", str(doc), "--yes"))
        empty = tmp_path / "empty.jsonl"
        empty.write_text(json.dumps({"kind": "scope", "principalPrefixes": [f"User:{t}-"]}) + "\n")
        ok(run(*PATIENT, "--context", "local-admin", "acls", "apply", str(empty), "--yes"))


# ------------------------------------------------------------------------------------------ the soak, short form
SOAK_SECONDS = float(os.environ.get("KAFKACTL_SOAK_SECONDS", "300"))


@pytest.mark.timeout(SOAK_SECONDS + 600)
def test_a_soak_of_applies_under_chaos_loses_nothing_and_adds_nothing(cluster3, proxy):
    """bench/soak.py's short form: small applies of every kind, one after another, for SOAK_SECONDS while brokers
    and the active controller are frozen, killed and started again and the network misbehaves; after each, a plan
    names only what the apply's report says was not applied."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    from soak import soak

    sb, state = cluster3
    result = soak(sb, state, proxy, seconds=SOAK_SECONDS)
    print("\nsoak: " + "\nsoak: ".join(result.lines()))
    assert result.lost == [] and result.extra == [], (result.lost[:10], result.extra[:10])
    assert result.tracebacks == 0
    assert result.applies >= 20 and sum(result.faults.values()) >= 10, result.lines()
