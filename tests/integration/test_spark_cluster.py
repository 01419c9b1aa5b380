"""--spark-master on a real Spark standalone cluster (issue 16): a master and two workers started by `kafkactl local
spark up` from the installed pyspark's classes, each worker with its own HOME and XDG directories, so no executor
can read the operator's contexts file, key stores or certificates: they connect only with what the driver
delivers for the job. Afterwards no piece of a password or of a private key is in the workers' logs, work and
temporary directories, the event log, or the driver UI's environment page (read while the job ran)."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import run_process
from tests.integration.acl_helpers import remove_exactly, snapshot, token
from tests.markers import starts
from tests.secrets_sweep import find_leaks


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Cluster:
    url: str
    home: Path
    env: dict[str, str]  # the Spark cluster's state directory (the contexts stay the session's)
    driver_env: dict[str, str]  # the driver's Spark configuration: event log, UI port
    ui_port: int
    events: Path

    def status(self) -> dict:
        r = run_process("local", "spark", "status", "-o", "json", env=self.env)
        assert r.exit_code == 0, r.stderr
        return json.loads(r.stdout)


@pytest.fixture(scope="module")
@starts("spark")
def cluster(tmp_path_factory):
    base = tmp_path_factory.mktemp("spark-cluster")
    env = {"XDG_STATE_HOME": str(base / "state")}
    r = run_process("local", "spark", "up", "--workers", "2", "-o", "json", env=env, timeout=240)
    assert r.exit_code == 0, r.stderr[-3000:]
    status = json.loads(r.stdout)
    assert status["running"] and [w["running"] for w in status["workers"]] == [True, True]
    assert f"--spark-master {status['master_url']}" in r.stderr
    conf, events = base / "conf", base / "events"
    conf.mkdir()
    events.mkdir()
    ui_port = _free_port()
    # (uncompressed: Spark 4 writes the event log zstd-compressed, where a grep would find nothing)
    (conf / "spark-defaults.conf").write_text(f"spark.eventLog.enabled true\nspark.eventLog.dir file://{events}\n"
                                              "spark.eventLog.compress false\n"
                                              f"spark.ui.port {ui_port}\nspark.port.maxRetries 0\n")
    c = Cluster(status["master_url"], Path(status["state_dir"]), env, {"SPARK_CONF_DIR": str(conf)}, ui_port, events)
    try:
        yield c
    finally:
        r = run_process("local", "spark", "down", env=env, timeout=120)
        assert r.exit_code == 0, r.stderr
        assert not c.status()["running"]


def _policy(path: Path, prefix: str, n: int) -> Path:
    lines = [f"scope:\n  principalPrefixes: ['User:{prefix}-']\nacls:\n"]
    for i in range(n):
        lines.append(f"  - principal: User:{prefix}-app{i % 50}\n    allow:\n"
                     f"      - topic: {prefix}.t{i}\n        operations: [Read]\n")
    path.write_text("".join(lines))
    return path


def _watch_environment_page(port: int, proc: subprocess.Popen) -> list[str]:
    """The driver UI's environment page (its REST form), read as long as the job runs."""
    pages: list[str] = []
    while proc.poll() is None:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v1/applications", timeout=2) as r:
                for app in json.loads(r.read()):
                    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v1/applications/{app['id']}/environment",
                                                timeout=2) as e:
                        pages.append(e.read().decode())
        except (OSError, ValueError):
            pass
        time.sleep(0.3)
    return pages


def _kafkactl(*args: str, env: dict[str, str]) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "kafkactl", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env={**os.environ, **env}, stdin=subprocess.DEVNULL)


def _files(root: Path):
    for base, _, names in os.walk(root):
        for name in names:
            p = Path(base, name)
            if p.is_file() and not p.is_symlink():
                yield p


def _key_pieces(pem: Path) -> list[str]:
    """Lines of the base64 body of the private key in a PEM file: any one found elsewhere is a leak."""
    text = pem.read_text()
    body = text.split("-----BEGIN PRIVATE KEY-----", 1)[1].split("-----END PRIVATE KEY-----", 1)[0]
    return [line for line in body.split() if len(line) >= 40]


@pytest.mark.parametrize("context", ["local-admin", pytest.param("local-mtls-admin", marks=pytest.mark.tls)])
def test_plan_and_apply_on_a_standalone_cluster_whose_workers_have_no_contexts(sandbox, cluster, tmp_path, context):
    """By password (SASL) and by certificate (mTLS): the executors get the connection from the driver only."""
    for worker in cluster.status()["workers"]:
        home = Path(worker["work_dir"]).parent / "home"
        assert not any(home.rglob("*")), f"{home} should be empty: the workers must not find the operator's files"
    gw = sandbox.gateway("admin")
    prefix = f"sc{token()}"
    policy = _policy(tmp_path / "policy.yaml", prefix, 300)
    try:
        if context == "local-admin":  # (by certificate, the apply alone: it reads the cluster's ACLs on executors too)
            r = run_process("--context", context, "acls", "plan", str(policy), "--spark-master", cluster.url,
                            "--detailed-exitcode", env=cluster.driver_env, timeout=300)
            assert r.exit_code == 2 and "+300 -0" in r.stderr, r.stderr[-3000:]
        proc = _kafkactl("--context", context, "acls", "apply", str(policy), "--spark-master", cluster.url, "--yes",
                         env=cluster.driver_env)
        pages = _watch_environment_page(cluster.ui_port, proc)
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err[-3000:]
        assert len(snapshot(gw, prefix)) == 300
        assert pages, "the driver UI's environment page was never read during the apply"
        # converged: in-process (the plan on the cluster is proved above; a third Spark application costs 40 s)
        r = run_process("--context", context, "acls", "plan", str(policy), "--detailed-exitcode", timeout=300)
        assert r.exit_code == 0, r.stderr[-3000:]
    finally:
        remove_exactly(gw, snapshot(gw, prefix))

    # what the job left behind: worker logs, work, temporary and local directories, the master's log, the event log
    left = [(str(p), p.read_bytes().decode("utf-8", "replace")) for root in (cluster.home, cluster.events)
            for p in _files(root) if p.name != "state.json"]
    assert any("/work/app-" in name for name, _ in left), "no executor ran on the workers"
    assert any(cluster.events in Path(name).parents and "SparkListenerJobStart" in text for name, text in left), \
        "no readable event log was written"
    texts = [*left, *(("environment page", page) for page in pages)]
    leaks = [f"{where}: {found}" for where, text in texts for found in find_leaks(text)]
    assert not leaks, leaks[:5]
    key = _key_pieces(sandbox.home / "tls" / "admin.pem")
    assert key and not [where for where, text in texts if any(piece in text for piece in key)]
    # the certificate files the tasks wrote for their clients are gone with the tasks
    assert not [p for p in cluster.home.rglob("kafkactl-task-ssl-*")]


def test_an_oauth_client_applies_on_the_standalone_cluster(sandbox, cluster, tmp_path):
    """OAUTHBEARER: the executors on the workers fetch their own tokens with the client credentials the driver
    delivers in memory; no client secret or token is left in what the job wrote (find_leaks flags any JWT)."""
    gw = sandbox.gateway("admin")
    prefix = f"so{token()}"
    policy = _policy(tmp_path / "policy.yaml", prefix, 60)
    before = {str(p) for root in (cluster.home, cluster.events) for p in _files(root)}
    try:
        r = run_process("--context", "local-oauth-admin", "acls", "apply", str(policy), "--spark-master", cluster.url,
                        "--yes", env=cluster.driver_env, timeout=300)
        assert r.exit_code == 0, r.stderr[-3000:]
        assert len(snapshot(gw, prefix)) == 60
        r = run_process("--context", "local-oauth-admin", "acls", "plan", str(policy), "--detailed-exitcode",
                        timeout=300)
        assert r.exit_code == 0, r.stderr[-3000:]
    finally:
        remove_exactly(gw, snapshot(gw, prefix))
    left = [(str(p), p.read_bytes().decode("utf-8", "replace")) for root in (cluster.home, cluster.events)
            for p in _files(root) if p.name != "state.json" and str(p) not in before]
    assert any("/work/app-" in name for name, _ in left), "no executor ran on the workers"
    leaks = [f"{where}: {found}" for where, text in left for found in find_leaks(text)]
    assert not leaks, leaks[:5]


def test_a_kerberos_principal_applies_on_the_standalone_cluster(sandbox, cluster, gssapi_python, tmp_path):
    """GSSAPI: the executors on the workers connect with the driver's tickets (its ticket cache, delivered in
    memory), never its keytab: no key of the keytab, in any form, is in what the job wrote."""
    gw = sandbox.gateway("admin")
    prefix = f"sk{token()}"
    policy = _policy(tmp_path / "policy.yaml", prefix, 60)
    before = {str(p) for root in (cluster.home, cluster.events) for p in _files(root)}
    try:
        r = run_process("--context", "local-kerberos-admin", "acls", "apply", str(policy), "--spark-master",
                        cluster.url, "--yes", env={**cluster.driver_env, "PYSPARK_PYTHON": gssapi_python}, timeout=300,
                        python=gssapi_python)
        assert r.exit_code == 0, r.stderr[-3000:]
        assert len(snapshot(gw, prefix)) == 60
    finally:
        remove_exactly(gw, snapshot(gw, prefix))
    new = [p for root in (cluster.home, cluster.events) for p in _files(root)
           if p.name != "state.json" and str(p) not in before]
    assert any("/work/app-" in str(p) for p in new), "no executor ran on the workers"
    listed = subprocess.run(["klist", "-k", "-K", str(sandbox.home / "kerberos" / "admin.keytab")],
                            capture_output=True, text=True, check=True).stdout
    keys = [bytes.fromhex(k) for k in re.findall(r"\(0x([0-9a-f]{32,})\)", listed)]
    assert keys
    assert not [str(p) for p in new if any(k in p.read_bytes() for k in keys)]
    leaks = [f"{p}: {found}" for p in new for found in find_leaks(p.read_bytes().decode("utf-8", "replace"))]
    assert not leaks, leaks[:5]
    assert not [p for p in cluster.home.rglob("kafkactl-task-ssl-*")]


def test_a_worker_killed_mid_apply_of_25000_bindings(sandbox, cluster, tmp_path):
    """kill -9 of a worker and its executor during the create phase: Spark runs the lost tasks again elsewhere
    (creates are idempotent), the apply finishes, and a re-run plans nothing (0 missing, 0 extra)."""
    gw = sandbox.gateway("admin")
    prefix = f"sk{token()}"
    policy = _policy(tmp_path / "big.yaml", prefix, 25_000)
    victim = cluster.status()["workers"][0]
    try:
        proc = _kafkactl("--context", "local-admin", "acls", "apply", str(policy), "--spark-master", cluster.url,
                         "--yes", env=cluster.driver_env)
        seen = 0
        deadline = time.monotonic() + 300
        while proc.poll() is None and time.monotonic() < deadline:
            seen = len(snapshot(gw, prefix))
            if seen:
                break
            time.sleep(0.2)
        assert 0 < seen < 25_000, f"the apply was not caught mid-phase ({seen} bindings)"
        executors = [int(p) for p in subprocess.run(["pgrep", "-P", str(victim["pid"])], capture_output=True,
                                                    text=True).stdout.split()]
        for pid in [victim["pid"], *executors]:
            os.kill(pid, signal.SIGKILL)
        killed = time.monotonic()
        out, err = proc.communicate(timeout=600)
        print(f"\nworker 1 and {len(executors)} executor(s) killed at {seen:,} of 25,000 bindings; the apply ended "
              f"{time.monotonic() - killed:.1f} s later with exit {proc.returncode}")
        assert proc.returncode == 0, err[-3000:]
        assert re.search(r"CREATE\s+created\s+25000", out) or "25000" in out, out
        r = run_process("--context", "local-admin", "acls", "plan", str(policy), "--detailed-exitcode", timeout=300)
        assert r.exit_code == 0, r.stderr[-2000:]
        assert len(snapshot(gw, prefix)) == 25_000
    finally:
        gone = snapshot(gw, prefix)
        for k in range(0, len(gone), 5_000):
            remove_exactly(gw, sorted(gone, key=str)[k:k + 5_000])
        r = run_process("local", "spark", "up", "--workers", "2", env=cluster.env, timeout=240)  # the worker again
        assert r.exit_code == 0, r.stderr[-2000:]


@pytest.fixture(scope="module")
@starts("broker")
def two_more_clusters(sandbox, tmp_path_factory):  # noqa: ARG001 (the session's sandbox first)
    """Two more single-node sandboxes (their own state), reachable from the session's contexts as fan-a and fan-b
    through their admin properties files: three clusters for one policy."""
    homes = []
    names = []
    try:
        for name in ("fan-a", "fan-b"):
            base = tmp_path_factory.mktemp(name)
            env = {"XDG_STATE_HOME": str(base / "state"), "XDG_CONFIG_HOME": str(base / "config")}
            r = run_process("local", "up", "-o", "json", env=env, timeout=240)
            assert r.exit_code == 0, r.stderr[-3000:]
            homes.append(env)
            status = json.loads(r.stdout)
            props = Path(status["state_dir"]) / "client-admin.properties"
            state = json.loads((Path(status["state_dir"]) / "state.json").read_text())
            from tests.secrets_sweep import register

            for user, password in state["passwords"].items():
                register(password, f"the {name} sandbox password of {user}")
            r = run_process("context", "add", name, "-b", status["bootstrap_servers"], "--command-config", str(props),
                            "--super-user", "User:admin")
            assert r.exit_code == 0, r.stderr
            names.append(name)
        yield names
    finally:
        for name in names:
            run_process("context", "delete", name)
        for env in homes:
            run_process("local", "down", "--purge", env=env, timeout=120)


@pytest.mark.usefixtures("sandbox")
def test_one_policy_fanned_out_to_three_clusters_on_the_standalone_cluster(cluster, two_more_clusters, tmp_path):
    """One apply, three targets (the command's --context, repeated): each executor task connects to its cluster with
    that cluster's own credentials, delivered by the driver; each cluster ends with exactly the policy."""
    from kafkactl.gateway import Gateway
    from kafkactl.profiles import Selection, resolve

    contexts = ["local-admin", *two_more_clusters]
    prefix = f"fo{token()}"
    policy = _policy(tmp_path / "fan.yaml", prefix, 2_000)
    where = [a for c in contexts for a in ("--context", c)]  # the command's own, repeatable --context
    gateways = [Gateway(resolve(Selection(context=c))) for c in contexts]
    try:
        started = time.monotonic()
        r = run_process("acls", "apply", str(policy), *where, "--spark-master", cluster.url, "--yes",
                        env=cluster.driver_env, timeout=600)
        assert r.exit_code == 0, r.stderr[-3000:]
        print("\none policy of 2,000 bindings to 3 clusters on the standalone cluster: "
              f"{time.monotonic() - started:.1f} s")
        for c, gw in zip(contexts, gateways):
            assert len(snapshot(gw, prefix)) == 2_000, c
        r = run_process("acls", "plan", str(policy), *where, "--detailed-exitcode", timeout=300)
        assert r.exit_code == 0, r.stderr[-2000:]
    finally:
        for gw in gateways:
            remove_exactly(gw, snapshot(gw, prefix))
            gw.close()
