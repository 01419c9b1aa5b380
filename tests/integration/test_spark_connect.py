"""--spark-remote against a real Spark Connect server (the one pyspark's wheel ships), on this machine."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import run_process
from tests.integration.acl_helpers import remove_exactly, snapshot, token
from tests.markers import starts


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
@starts("spark")
def connect_url(tmp_path_factory):
    import pyspark

    home = Path(pyspark.__file__).parent
    work = tmp_path_factory.mktemp("spark-connect")
    port = _free_port()
    env = {**os.environ, "SPARK_HOME": str(home), "PYSPARK_PYTHON": sys.executable, "SPARK_LOCAL_IP": "127.0.0.1",
           "SPARK_LOG_DIR": str(work / "logs"), "SPARK_PID_DIR": str(work / "pids"),
           "SPARK_IDENT_STRING": f"kafkactl-tests-{port}"}
    (work / "events").mkdir()
    subprocess.run(["bash", str(home / "sbin" / "start-connect-server.sh"), "--conf",
                    f"spark.connect.grpc.binding.port={port}", "--conf", "spark.ui.enabled=false",
                    "--conf", "spark.eventLog.enabled=true", "--conf", f"spark.eventLog.dir=file://{work / 'events'}",
                    "--conf", "spark.eventLog.compress=false",  # (Spark 4 compresses it: a grep would see nothing)
                    # its scratch (a model cache, ...) in the test's directory, not left in /tmp
                    "--conf", f"spark.driver.extraJavaOptions=-Djava.io.tmpdir={work}"],
                   env=env, check=True, capture_output=True, timeout=120)
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.5)
        else:
            pytest.fail("the Spark Connect server did not start: " + "".join(
                p.read_text()[-2000:] for p in (work / "logs").glob("*")))
        yield f"sc://127.0.0.1:{port}", work
    finally:
        subprocess.run(["bash", str(home / "sbin" / "stop-connect-server.sh")], env=env, capture_output=True,
                       timeout=120)


def test_plan_and_apply_through_spark_connect(sandbox, connect_url, tmp_path):
    """The executors connect with what the driver delivers inside the job (no contexts file is read on the server
    side), and nothing of a password reaches the Connect server's logs or its event log."""
    from tests.secrets_sweep import find_leaks

    connect_url, work = connect_url
    gw = sandbox.gateway("admin")
    t = token()
    f = tmp_path / "remote.yaml"
    f.write_text(f"scope:\n  principalPrefixes: ['User:sc{t}']\nacls:\n  - principal: User:sc{t}-app\n"
                 f"    allow:\n      - topic: sc{t}.orders\n        operations: [Read, Write]\n"
                 f"    deny:\n      - topic: sc{t}.secret\n        operations: [Read]\n")
    try:
        r = run_process("--context", "local-admin", "acls", "plan", str(f), "--spark-remote", connect_url,
                        "--detailed-exitcode", timeout=300)
        assert r.exit_code == 2 and "+3 -0" in r.stderr, r.stderr[-2000:]
        r = run_process("--context", "local-admin", "acls", "apply", str(f), "--spark-remote", connect_url, "--yes",
                        timeout=300)
        assert r.exit_code == 0, r.stderr[-2000:]
        assert len(snapshot(gw, f"sc{t}")) == 3
        r = run_process("--context", "local-admin", "acls", "plan", str(f), "--spark-remote", connect_url,
                        "--detailed-exitcode", timeout=300)
        assert r.exit_code == 0, r.stderr[-2000:]
    finally:
        remove_exactly(gw, snapshot(gw, f"sc{t}"))
    files = [p for p in work.rglob("*") if p.is_file()]
    events = [p for p in files if "events" in p.relative_to(work).parts]
    assert any(b"SparkListenerJobStart" in p.read_bytes() for p in events), "no readable event log was written"
    leaks = [f"{p}: {found}" for p in files for found in find_leaks(p.read_bytes().decode("utf-8", "replace"))]
    assert not leaks, leaks[:5]
