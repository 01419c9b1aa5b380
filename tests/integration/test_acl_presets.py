"""Issue 17: each `acls create` preset proved by the real client it is for (tests/integration/clients/Clients.java,
compiled with javac against kafka-streams, connect-runtime and connect-file from Maven Central), run as a fresh
SCRAM user holding exactly the preset's ACLs: the client works; then once per ACL of the preset, with that one
left out, the client fails (it reports an authorization error, or never gets its work done): the preset is
minimal. Each run uses fresh names (a Streams app's committed offsets, a worker's topics), so no run leans on
what an earlier one created. The runs without one ACL each go concurrently, each as a principal of its own
(CONCURRENT at a time). Every run has SLOWER times the deadline a run alone on an idle machine needs: on two
cores four JVMs (and the other test worker's) take about twice as long as one, so a run that ends at its deadline
means what it means alone, and the run that must work is not cut short by the load."""

from __future__ import annotations

import json
import queue
import re
import shutil
import subprocess
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.conftest import run
from tests.integration.acl_helpers import remove_exactly, scram_user, snapshot, token
from tests.markers import starts

CLIENTS_VERSION = "4.3.1"  # connect-file and connect-mirror 4.4.0 are not on Maven Central (checked 2026-11-26)
SOURCE = Path(__file__).with_name("clients") / "Clients.java"
DENIED = re.compile(r"AuthorizationException|AUTHORIZATION_FAILED|Not authorized")
CONCURRENT = 4  # client runs at a time, each as its own principal
SLOWER = 2  # every run's deadline, times what a run alone on an idle machine needs


@pytest.fixture(scope="module")
@starts("java_clients")
def java_clients(tmp_path_factory) -> list[str]:
    """The java command line that runs Clients, its log4j configuration writing WARN and above to stdout."""
    from kafkactl.local.assembly import ensure_jars

    libs = ensure_jars(f"clients-{CLIENTS_VERSION}", CLIENTS_VERSION, ("kafka-streams", "connect-runtime",
                                                                         "connect-file", "connect-mirror"))
    classes = compiled(libs)
    out = tmp_path_factory.mktemp("clients")
    log4j = out / "log4j2.properties"
    log4j.write_text("rootLogger.level=WARN\nrootLogger.appenderRef.out.ref=OUT\nappender.out.type=Console\n"
                     "appender.out.name=OUT\nappender.out.target=SYSTEM_OUT\nappender.out.layout.type=PatternLayout\n"
                     "appender.out.layout.pattern=%p %c{1}: %m%n\n"
                     # Connect and MirrorMaker log a refused CreateTopics at DEBUG only ("Not authorized to create
                     # topic ... Falling back to assume topic(s) exist"), then wait 30 s for the topic: shown, the
                     # refusal ends the run at once as every other authorization error does
                     "logger.topicadmin.name=org.apache.kafka.connect.util.TopicAdmin\nlogger.topicadmin.level=DEBUG\n"
                     "logger.mirrorutils.name=org.apache.kafka.connect.mirror.MirrorUtils\n"
                     "logger.mirrorutils.level=DEBUG\n")
    return ["java", "-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Djava.net.preferIPv4Stack=true",
            f"-Dlog4j2.configurationFile={log4j}", f"-Djava.io.tmpdir={out}", "-cp", f"{classes}:{libs}/*",
            "Clients"]


def compiled(libs: Path) -> Path:
    """Clients.java compiled against `libs`, once per content (the source's and the jars' names): kept in the
    cache beside the jars, built in a fresh directory and renamed into place, so workers and runs share it."""
    import fcntl
    import hashlib
    import os

    if not shutil.which("javac"):
        pytest.fail("javac is required (Java 17 is part of the test set-up)")
    digest = hashlib.sha256(SOURCE.read_bytes() + "\n".join(sorted(p.name for p in libs.iterdir())).encode())
    home = libs.parent / "compiled"
    classes = home / digest.hexdigest()[:16]
    home.mkdir(exist_ok=True)
    with open(home / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (classes / "Clients.class").is_file():
            building = home / f"building-{os.getpid()}"
            shutil.rmtree(building, ignore_errors=True)
            built = subprocess.run(["javac", "-cp", f"{libs}/*", "-d", str(building), str(SOURCE)],
                                   capture_output=True, text=True, timeout=300)
            assert built.returncode == 0, built.stderr[-3000:]
            shutil.rmtree(classes, ignore_errors=True)
            building.rename(classes)
    return classes


class Principal:
    """A fresh SCRAM user, its client properties file (0600: the password is in it), and the admin's gateway."""

    def __init__(self, sandbox, directory: Path, admin) -> None:
        self.user = f"pre{token()}"
        self.name = f"User:{self.user}"
        self.gateway = scram_user(sandbox, directory, self.user)
        self.props = directory / f"{self.user}.properties"
        text = self.props.read_text()
        self.props.write_text(f"bootstrap.servers={sandbox.bootstrap}\n{text}")
        self.admin = admin
        self.directory = directory

    _admin_lock = threading.Lock()  # the principals' runs go concurrently; the admin's changes one at a time

    def holds(self, bindings) -> None:
        """Exactly these ACLs, granted by the admin (and seen by the broker before the client starts)."""
        from kafkactl.acl import ops

        with self._admin_lock:
            remove_exactly(self.admin, {b for b in snapshot(self.admin) if b.principal == self.name})
            if bindings:
                result = ops.create_acls(self.admin, sorted(bindings))
                assert all(r.status in ("created", "exists") for r in result.results), result.counts()


@pytest.fixture
def principals(sandbox, tmp_path) -> list[Principal]:
    """CONCURRENT fresh principals: the first runs the whole preset, all of them the runs without one ACL."""
    admin = sandbox.gateway("admin")
    made = [Principal(sandbox, tmp_path, admin) for _ in range(CONCURRENT)]
    yield made
    names = {p.name for p in made}
    remove_exactly(admin, {b for b in snapshot(admin) if b.principal in names})
    for p in made:
        p.gateway.close()


def concurrently(principals: list[Principal], jobs: list, work: Callable) -> list:
    """work(job, principal) for each job, as many at a time as there are principals, each job with a principal no
    other running job holds; the results in the jobs' order."""
    free: queue.Queue = queue.Queue()
    for p in principals:
        free.put(p)

    def one(job):
        p = free.get()
        try:
            return work(job, p)
        finally:
            free.put(p)

    with ThreadPoolExecutor(len(principals)) as pool:
        return list(pool.map(one, jobs))


def client(java: list[str], *args: str, deadline: float, state_dir: Path | None = None) -> tuple[str, str]:
    """Run one client; ('ok' | 'denied' | 'timeout' | 'failed', its output). The first authorization error the
    client logs ends the run as 'denied': a Connect worker or a Streams app retries some of them for ever."""
    extra = [f"-Dclients.deadline.ms={int(deadline * 1000)}"]
    if state_dir is not None:
        extra.append(f"-Dclients.state.dir={state_dir}")
    proc = subprocess.Popen([*java[:1], *extra, *java[1:], *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, stdin=subprocess.DEVNULL)
    lines: list[str] = []
    watchdog = threading.Timer(deadline + 60, proc.kill)  # Clients' own watchdog ends it first: this is the last resort
    watchdog.start()
    assert proc.stdout is not None
    try:
        for line in proc.stdout:
            lines.append(line)
            if DENIED.search(line) and not line.startswith("RESULT"):
                proc.kill()
                proc.wait()
                return "denied", "".join(lines)
        proc.wait()
    finally:
        watchdog.cancel()
    out = "".join(lines)
    last = [x for x in lines if x.startswith("RESULT ")]
    return (last[-1].split()[1] if last else "failed"), out


def minimal(principals: list[Principal], preset_for, run_client, expect_ok: str = "ok") -> dict[str, str]:
    """The client with the whole preset (must work), then without each of its ACLs in turn (must not): fresh
    names each run, the runs without one ACL concurrently. run_client(preset, principal) runs the client for
    `preset` as `principal`. Returns {ACL left out: how the client ended}, for the failure message."""
    first = preset_for(f"p{token()}")
    lead = principals[0]
    lead.holds(first.bindings([lead.name], ["*"]))
    outcome, out = run_client(first, lead)
    assert outcome == expect_ok, out[-4000:]

    def without(job, principal: Principal) -> tuple[str, str]:
        index, preset = job
        left_out = preset.grants[index]
        principal.holds([b for b in preset.bindings([principal.name], ["*"])
                         if (b.resource_type, b.resource_name, b.pattern_type, b.operation)
                         != (left_out.resource_type, left_out.name, left_out.pattern, left_out.operation)])
        return run_client(preset, principal)

    jobs = [(index, preset_for(f"p{token()}")) for index in range(len(first.grants))]
    ended = {}
    for grant, (outcome, out) in zip(first.grants, concurrently(principals, jobs, without)):
        ended[f"{grant.operation.pascal} on {grant.resource_type.name}:{grant.name}"] = outcome
        assert outcome != "ok", (f"the client worked without {grant.operation.pascal} on "
                                 f"{grant.resource_type.name}:{grant.name} ({grant.pattern.name}): the "
                                 f"preset is not minimal\n{out[-3000:]}")
    print(f"\n{first.label}: {len(first.grants)} ACLs, each needed: {ended}")
    return ended


def _topic(name: str, partitions: int = 1) -> str:
    r = run("--context", "local-admin", "topics", "create", name, "--partitions", str(partitions))
    assert r.exit_code == 0, r.stderr
    return name


def _seed(java, sandbox, tmp_path: Path, topic: str, n: int) -> None:
    """n records in `topic`, written by the admin through a transactional producer."""
    admin_props = tmp_path / "admin.properties"
    if not admin_props.exists():
        text = (sandbox.home / "client-admin.properties").read_text()
        admin_props.write_text(f"bootstrap.servers={sandbox.bootstrap}\n{text}")
        admin_props.chmod(0o600)
    outcome, out = client(java, "txn-producer", str(admin_props), topic, f"seed-{topic}", str(n), deadline=30)
    assert outcome == "ok", out[-3000:]


@pytest.mark.timeout(900)
@pytest.mark.parametrize("protocol", ["classic", "streams"])
def test_streams_preset_is_what_an_exactly_once_streams_app_needs(java_clients, sandbox, principals, tmp_path,
                                                                   protocol):
    """A topology with a repartition topic and a count store (its changelog), exactly-once v2, on a classic
    consumer group and on a KIP-1071 streams group (there the broker creates the internal topics: without Create
    on them the app waits for ever with MISSING_INTERNAL_TOPICS, which the deadline ends)."""
    from kafkactl.acl import presets

    source = _topic(f"pre{token()}-in", 2)
    sink = _topic(f"pre{token()}-out", 2)
    _seed(java_clients, sandbox, tmp_path, source, 20)
    # the CLI's preset is the module's
    r = run("--context", "local-admin", "acls", "create", "--allow-principal", principals[0].name, "--streams", "app1",
            "--topic", source, "--output-topic", sink, "--dry-run", "-o", "json")
    assert r.exit_code == 0, r.stderr
    assert json.loads(r.stdout)["summary"] == {"would-create": len(presets.streams("app1", [source], [sink]).grants)}

    def run_app(preset, principal):
        app = preset.label.rsplit(" ", 1)[1]
        return client(java_clients, "streams", str(principal.props), app, source, sink, "20", protocol,
                      deadline=(25 if protocol == "streams" else 20) * SLOWER, state_dir=tmp_path / "state")

    ended = minimal(principals, lambda app: presets.streams(app, [source], [sink]), run_app)
    assert len(ended) == 8


@pytest.mark.timeout(900)
@pytest.mark.usefixtures("sandbox")
def test_connect_worker_and_connector_presets_run_filestream_source_and_sink(java_clients, principals, tmp_path):
    """A distributed Connect worker (it creates its config, offset and status topics) running a FileStream source
    (a file to a topic) and sink (the topic to a file): the worker's preset and the two connectors' together."""
    from kafkactl.acl import presets

    topic = _topic(f"pre{token()}-c")

    def preset_for(group: str) -> presets.Preset:
        parts = [presets.connect_worker(group), presets.connector(f"{group}c-source", [topic], source=True),
                 presets.connector(f"{group}c-sink", [topic], source=False)]
        return presets.Preset("connect", f"Connect worker {group} with connectors",
                              tuple(sorted({g for p in parts for g in p.grants})))

    def run_worker(preset, principal):
        group = preset.label.split()[2]
        lines = tmp_path / f"{group}.in"
        lines.write_text("".join(f"line {i}\n" for i in range(10)))
        return client(java_clients, "connect", str(principal.props), group, topic, f"{group}c", str(lines),
                      str(tmp_path / f"{group}.out"), "10", deadline=20 * SLOWER)

    ended = minimal(principals, preset_for, run_worker)
    assert len(ended) == 13


def test_share_consumer_preset(java_clients, sandbox, principals, tmp_path):
    """A KIP-932 share consumer reads and acknowledges 20 records (its group set to start from the earliest)."""
    from kafkactl.acl import presets

    topic = _topic(f"pre{token()}-s")
    _seed(java_clients, sandbox, tmp_path, topic, 20)

    def share_group(group: str) -> presets.Preset:
        # (here, not in the runs: the command runs in this thread, and a run's group starts from the earliest)
        r = run("--context", "local-admin", "configs", "alter", "--entity-type", "groups", "--entity-name", group,
                "--add-config", "share.auto.offset.reset=earliest")
        assert r.exit_code == 0, r.stderr
        return presets.share_consumer([topic], [group])

    def run_consumer(preset, principal):
        group = next(g.name for g in preset.grants if g.resource_type.name == "GROUP")
        return client(java_clients, "share-consumer", str(principal.props), topic, group, "20", deadline=20 * SLOWER)

    ended = minimal(principals, share_group, run_consumer)
    assert len(ended) == 2
    # a share group on the cluster: `groups describe` (every group) describes the consumer groups and says what it
    # left out; named, it says what the group is (the consumer groups' describe calls it missing)
    share = [g["group"] for g in json.loads(run("--context", "local-admin", "-o", "json", "groups", "list").stdout)
             if g["type"] == "share"]
    assert share
    r = run("--context", "local-admin", "-o", "json", "groups", "describe")
    assert r.exit_code == 0 and "share group" in r.stderr \
        and not set(share) & {g["group"] for g in json.loads(r.stdout)}
    r = run("--context", "local-admin", "groups", "describe", share[0])
    assert r.exit_code != 0 and f"group '{share[0]}' is a share group" in r.stderr, r.output


@pytest.mark.usefixtures("sandbox")
def test_two_phase_commit_preset_with_a_transactional_producer(java_clients, principals, tmp_path):
    """A transactional producer configured for two-phase commit (transaction.two.phase.commit.enable, which the
    sandbox's brokers allow): Write on the topic and on the id are each needed. TwoPhaseCommit is not: the Java
    clients of 4.3.1 and 4.4.0 never set InitProducerId's enable2Pc, and 4.4.0 brokers keep InitProducerId v6
    (the version that carries it) unstable, unoffered; the broker asks for it only with enable2Pc (KafkaApis)."""
    from kafkactl.acl import presets

    topic = _topic(f"pre{token()}-t")
    for principal in principals:
        props = tmp_path / f"{principal.user}-2pc.properties"
        props.write_text(principal.props.read_text() + "transaction.two.phase.commit.enable=true\n")
        props.chmod(0o600)

    def without_2pc(txn: str) -> presets.Preset:
        p = presets.two_phase_commit([txn], [topic])
        return presets.Preset(p.kind, f"{p.label} {txn}", tuple(g for g in p.grants
                                                                  if g.operation.name != "TWO_PHASE_COMMIT"))

    def run_producer(preset, principal):
        txn = preset.label.rsplit(" ", 1)[1]
        return client(java_clients, "txn-producer", str(tmp_path / f"{principal.user}-2pc.properties"), topic, txn,
                      "5", deadline=20 * SLOWER)

    ended = minimal(principals, without_2pc, run_producer)
    assert len(ended) == 2
    full = presets.two_phase_commit(["x"], [topic])
    assert {g.operation.name for g in full.grants} == {"WRITE", "TWO_PHASE_COMMIT"}


@pytest.fixture(scope="module")
@starts("broker")
def target_cluster(tmp_path_factory):
    """A second sandbox, the target of MirrorMaker 2 (the session's is the source)."""
    from tests.integration.sandboxes import second_sandbox

    with second_sandbox(tmp_path_factory.mktemp("mm2-target"), "MirrorMaker target") as target:
        yield target


@pytest.mark.timeout(1200)  # 25 runs of MirrorMaker, 6 of them waiting out their deadline
def test_mirror_maker_preset_source_and_target_sides(java_clients, sandbox, principals, target_cluster, tmp_path):
    """MirrorMaker 2 (dedicated mode, ACL sync off) replicates a topic from the session's sandbox (alias SRC) to a
    second one (DST) and checkpoints a group's offsets: the principal holds the preset's source side on the
    first, its target side on the second; then without each ACL of either side in turn. Every run has cluster
    aliases of its own, so what it creates is its own (the mirrored topic SRC.topic, the checkpoints, offset
    syncs and internal topics all carry an alias): the runs share the source topic and group, which the admin
    seeds and commits once, and the target's heartbeats topic, which every run writes (and waits for a heartbeat
    of its own aliases there): the runs without one ACL share it once the whole preset's run has created it; the
    run without Create on it runs last, alone, after the topic is deleted."""
    from kafkactl.acl import ops, presets
    from kafkactl.gateway import Gateway
    from kafkactl.profiles import Selection, resolve
    from tests.secrets_sweep import new_secret

    target_boot, target_admin_props = target_cluster
    on_target = {}
    for principal in principals:
        password = new_secret(f"the password of {principal.user} on the MirrorMaker target")
        r = run("-b", target_boot, "--command-config", str(target_admin_props), "configs", "alter", "--user",
                principal.user, "--add-config", f"SCRAM-SHA-512=[password={password}]")
        assert r.exit_code == 0, r.stderr
        props = tmp_path / f"{principal.user}-on-target.properties"
        props.write_text(f"bootstrap.servers={target_boot}\n" + "\n".join(
            line for line in principal.props.read_text().splitlines()
            if not line.startswith(("bootstrap.servers", "sasl.jaas.config")))
            + "\nsasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required "
            f'username="{principal.user}" password="{password}";\n')
        props.chmod(0o600)
        on_target[principal.user] = props
    target_admin = Gateway(resolve(Selection(bootstrap_servers=target_boot, command_config=str(target_admin_props))))
    admin_props = tmp_path / "admin.properties"
    admin_props.write_text(f"bootstrap.servers={sandbox.bootstrap}\n" + (sandbox.home / "client-admin.properties")
                           .read_text())
    admin_props.chmod(0o600)

    def hold_on_target(principal: Principal, bindings) -> None:
        with Principal._admin_lock:
            remove_exactly(target_admin, {b for b in snapshot(target_admin) if b.principal == principal.name})
            if bindings:
                result = ops.create_acls(target_admin, sorted(bindings))
                assert all(x.status in ("created", "exists") for x in result.results), result.counts()

    def no_heartbeats() -> None:
        gone = run("-b", target_boot, "--command-config", str(target_admin_props), "topics", "delete", "heartbeats",
                   "--yes")
        assert gone.exit_code == 0 or "heartbeats" in gone.stderr, gone.stderr

    shared = f"pm{token()}"
    topic, group = _topic(shared), f"g{shared}"
    _seed(java_clients, sandbox, tmp_path, topic, 10)
    outcome, out = client(java_clients, "commit", str(admin_props), topic, group, "10", deadline=30)
    assert outcome == "ok", out[-3000:]

    def prepare(leave_out: tuple[str, int] | None) -> dict:
        """A run's aliases and (in this thread: the commands are in-process) what it needs beforehand."""
        t = f"pm{token()}"
        run_ = {"leave_out": leave_out, "topic": topic, "group": group, "src": f"s{t}", "dst": f"d{t}", "t": t}
        run_["sides"] = {"source": presets.mirror_maker(run_["src"], run_["dst"], "source", [run_["topic"]],
                                                        [run_["group"]]),
                         "target": presets.mirror_maker(run_["src"], run_["dst"], "target", [run_["topic"]], [])}
        run_["checkpoints"] = None
        if leave_out and leave_out[0] == "target" and (g := run_["sides"]["target"].grants[leave_out[1]]).name == (
                f"{run_['src']}.checkpoints.internal") and g.operation.name == "READ":
            # a restarted MirrorMaker reads the checkpoints it wrote before (KAFKA-15905): without Read on them
            # it only warns and translates offsets from fresh checkpoints; the first run reads them only when its
            # log's thread polls before the store stops, so this run finds them there
            made = run("-b", target_boot, "--command-config", str(target_admin_props), "topics", "create", g.name)
            assert made.exit_code == 0, made.stderr
            run_["checkpoints"] = g.name
        return run_

    def once(run_: dict, principal: Principal) -> tuple[str, str]:
        t, leave_out = run_["t"], run_["leave_out"]
        if run_["checkpoints"]:
            outcome, out = client(java_clients, "txn-producer", str(target_admin_props), run_["checkpoints"],
                                  f"seed-{t}", "1", deadline=30)
            assert outcome == "ok", out[-3000:]
        held = {side: [g for i, g in enumerate(p.grants) if leave_out != (side, i)]
                for side, p in run_["sides"].items()}
        principal.holds([b for g in held["source"] for b in presets.Preset("", "", (g,)).bindings(
            [principal.name], ["*"])])
        hold_on_target(principal, [b for g in held["target"] for b in presets.Preset("", "", (g,)).bindings(
            [principal.name], ["*"])])
        return client(java_clients, "mirror", str(principal.props), str(on_target[principal.user]),
                      str(target_admin_props), run_["src"], run_["dst"], topic, group, "10", deadline=20 * SLOWER)

    try:
        no_heartbeats()  # the whole preset's run creates it
        whole = prepare(None)
        outcome, out = once(whole, principals[0])
        assert outcome == "ok", out[-4000:]
        grants = [(side, i, g) for side, p in whole["sides"].items() for i, g in enumerate(p.grants)]
        counts = {side: sum(1 for s, _, _ in grants if s == side) for side in ("source", "target")}
        create_heartbeats = [(side, i) for side, i, g in grants
                             if side == "target" and g.name == "heartbeats" and g.operation.name == "CREATE"]
        assert len(create_heartbeats) == 1
        runs = [prepare((side, i)) for side, i, _ in grants if (side, i) not in create_heartbeats]
        ended = {}
        outcomes = dict(zip([r["leave_out"] for r in runs],
                            concurrently(principals, runs, once)))
        no_heartbeats()
        outcomes[create_heartbeats[0]] = once(prepare(create_heartbeats[0]), principals[0])
        for side, i, g in grants:
            outcome, out = outcomes[(side, i)]
            said = f"{side}: {g.operation.pascal} on {g.resource_type.name}:{g.name}"
            ended[said] = outcome
            assert outcome != "ok", f"MirrorMaker worked without {said}: the preset is not minimal\n{out[-3000:]}"
        print(f"\nMirrorMaker 2: {sum(counts.values())} ACLs, each needed: {ended}")
        assert counts == {"source": 6, "target": 18}
    finally:
        for principal in principals:
            hold_on_target(principal, [])
        target_admin.close()
