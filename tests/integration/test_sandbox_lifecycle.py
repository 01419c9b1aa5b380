"""`kafkactl local up/down --keep/up/down` on a second, private sandbox (own ports, state and contexts)."""

from __future__ import annotations

import json
import os
import uuid

import pytest

from kafkactl.exitcodes import ExitCode
from kafkactl.local.sandbox import Sandbox
from tests.conftest import run


def test_down_keep_then_up_reuses_data_and_down_deletes_it(sandbox, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    topic = f"life-{uuid.uuid4().hex[:6]}"
    r = run("local", "up")
    try:
        assert r.exit_code == 0, r.stderr
        status = json.loads(run("-o", "json", "local", "status").stdout)
        assert status["running"] and status["bootstrap_servers"] != sandbox.bootstrap  # free ports were picked
        assert status["state"] == "running"
        # the first group lookup of a new cluster creates __consumer_offsets: its coordinator answers
        # COORDINATOR_LOAD_IN_PROGRESS for a moment, which is asked again, not reported (issue 14)
        r = run("--context", "local-admin", "groups", "describe", f"{topic}.g")
        assert r.exit_code == ExitCode.NOT_FOUND and "does not exist" in r.stderr, r.output
        assert run("--context", "local-admin", "topics", "create", topic).exit_code == 0

        assert run("local", "down").exit_code == 0  # issue 14: data and contexts stay unless --purge
        status = json.loads(run("-o", "json", "local", "status").stdout)
        assert status["running"] is False and status["state"].startswith("stopped"), status
        assert Sandbox().data_dir.is_dir() and "local-admin" in run("-o", "plain", "context", "list").stdout
        r = run("--context", "local-admin", "--timeout", "2", "topics", "list")
        assert r.exit_code == ExitCode.UNREACHABLE and "hint: is the sandbox running? kafkactl local status says; " \
            "kafkactl local up starts it" in r.stderr, r.stderr  # (issue 29)

        # a port of the kept sandbox taken by another process: which one is said, and the way out (issue 29)
        import socket

        port = Sandbox().load_state().nodes[0].port
        with socket.socket() as holder:
            holder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            holder.bind(("127.0.0.1", port))
            holder.listen()
            r = run("local", "up")
        assert r.exit_code != 0 and f"port {port} of the kept sandbox is in use by process {os.getpid()} (" in \
            r.stderr and "local down --purge, then local up starts a new sandbox on free ports" in r.stderr, r.stderr

        assert run("local", "up").exit_code == 0
        assert topic in run("--context", "local-admin", "-o", "plain", "topics", "list").stdout.split()
        # a node gone without local down is told from a stopped one (issue 29)
        import signal

        (node,) = Sandbox().load_state().nodes
        os.kill(node.pid, signal.SIGKILL)
        import time

        deadline = time.monotonic() + 30
        while json.loads(run("-o", "json", "local", "status").stdout)["running"] and time.monotonic() < deadline:
            time.sleep(0.2)
        state = json.loads(run("-o", "json", "local", "status").stdout)["state"]
        assert state == "node 1 killed (not by local down): kafkactl local up starts it again", state
    finally:
        assert run("local", "down", "--purge").exit_code == 0
    assert not Sandbox().home.exists()
    assert "local-admin" not in run("-o", "plain", "context", "list").stdout


def test_a_broker_that_cannot_start_reports_its_log(sandbox, tmp_path, monkeypatch):
    """Force a start-up failure (the kept sandbox's port is taken) and check the message."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    assert run("local", "up").exit_code == 0
    state = Sandbox().load_state()
    run("local", "down")
    # occupy the kept broker port with the session broker's port number: rewrite the state
    state_file = Sandbox().state_file
    data = json.loads(state_file.read_text())
    taken = int(sandbox.bootstrap.split(",")[0].rsplit(":", 1)[1])
    data["nodes"][0]["port"] = taken
    state_file.write_text(json.dumps(data))
    try:
        r = run("local", "up")
        assert r.exit_code == ExitCode.ERROR
        assert f"port {taken}" in r.stderr and "in use" in r.stderr
        assert all(p not in r.output for p in state.passwords.values())
    finally:
        run("local", "down", "--purge")


def test_down_purge_of_a_damaged_state_stops_the_nodes_it_no_longer_names(sandbox, tmp_path, monkeypatch):
    """The state file is what names the nodes; truncated, `down --purge` (what the error recommends) must still stop
    the running broker, found by the sandbox files its command line names, and not leave it holding its ports."""
    from kafkactl.local.process import pid_alive

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    assert run("local", "up").exit_code == 0
    state = Sandbox().load_state()
    assert state is not None and state.pid and pid_alive(state.pid)
    try:
        Sandbox().state_file.write_text('{"broken')
        r = run("local", "down")
        assert r.exit_code == ExitCode.ERROR and "is damaged" in r.stderr and "down --purge" in r.stderr, r.output
        assert run("local", "down", "--purge").exit_code == 0
        assert not pid_alive(state.pid), "the broker of the damaged sandbox still runs"
        assert pid_alive(sandbox.pid), "the session's own sandbox was stopped too"
    finally:
        if pid_alive(state.pid):
            import os
            import signal

            os.killpg(state.pid, signal.SIGKILL)


@pytest.mark.usefixtures("sandbox")
def test_two_sandboxes_started_at_once_get_ports_of_their_own(own_sandbox_env, tmp_path):
    """Two `local up` at the same moment (two terminals, two test workers), each with its own state: both start,
    on different ports (each checks its ports are free, then binds them seconds later; one at a time now)."""
    import subprocess
    import sys

    envs = [own_sandbox_env, {**own_sandbox_env, "XDG_STATE_HOME": str(tmp_path / "state-2"),
                              "XDG_CONFIG_HOME": str(tmp_path / "config-2")}]
    procs = [subprocess.Popen([sys.executable, "-m", "kafkactl", "-o", "json", "local", "up"], env=env, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE) for env in envs]
    try:
        outs = [p.communicate(timeout=240) for p in procs]
        assert [p.returncode for p in procs] == [0, 0], [err[-2000:] for _, err in outs]
        ports = [set(json.loads(out)["bootstrap_servers"].split(",")) for out, _ in outs]
        assert not ports[0] & ports[1], ports
    finally:
        for env in envs:
            subprocess.run([sys.executable, "-m", "kafkactl", "local", "down", "--purge"], env=env,
                           capture_output=True, timeout=120)
