"""SIGTERM (timeout(1), a cancelled CI job, a pod stopping) and SIGHUP (a closed terminal) in the middle of an ACL
apply, either engine, stop it as Ctrl-C does: the report has a line for every binding, stdout the per-change
result, stderr how many changes were made, and the exit code is the shell's for the signal (143, 129). The configs
apply's cases are in test_config_state.py. The signal comes at a moment the broker marks: once it lists the first
request's bindings (in-process), or the first binding (Spark), it is frozen, so that the apply waits on it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter

import pytest

from kafkactl.acl.model import AclFilter
from kafkactl.exitcodes import ExitCode
from tests.integration.acl_helpers import token

CODES = {"SIGTERM": ExitCode.TERMINATED, "SIGHUP": ExitCode.HANGUP}


def _state(path, t: str, n: int) -> None:
    with path.open("w") as fh:
        fh.write(json.dumps({"kind": "scope", "principalPrefixes": [f"User:{t}-"]}) + "\n")
        for i in range(n):
            fh.write(json.dumps({"principal": f"User:{t}-p{i % 10}", "host": "*", "operation": "READ",
                                 "permission": "ALLOW", "resource_type": "TOPIC", "resource_name": f"{t}.{i}",
                                 "pattern_type": "LITERAL"}) + "\n")


def _signalled_apply(sandbox, t: str, doc, report, signame: str, at_least: int, *extra: str, through: str = ""):
    """Run the apply; once the broker lists `at_least` of its bindings, freeze the broker, send the signal, and
    thaw the broker once the apply has ended. `through`: "timeout", to run the apply under timeout(1) and signal
    that (it passes the signal to the apply, then to its whole process group: twice). (exit code, stdout, stderr,
    report rows, seconds from the signal to the exit)"""
    cmd = [sys.executable, "-m", "kafkactl", "--context", sandbox.context("admin"), "-o", "json", "acls", "apply",
           str(doc), "--yes", "--report", str(report), *extra]
    if through == "timeout":
        cmd = ["timeout", "600", *cmd]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    gw = sandbox.gateway("admin")
    frozen = False
    try:
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline and proc.poll() is None:
            seen = gw.describe_acls(AclFilter(principal=f"User:{t}-p0"), bulk=True)
            if len(seen) * 10 >= at_least:
                os.kill(sandbox.pid, signal.SIGSTOP)
                frozen = True
                time.sleep(0.5)
                signalled = time.monotonic()
                proc.send_signal(getattr(signal, signame))
                break
            time.sleep(0.02)
        out, err = proc.communicate(timeout=120)
        took = time.monotonic() - signalled if frozen else 0.0
    finally:
        if frozen:
            os.kill(sandbox.pid, signal.SIGCONT)
        if proc.poll() is None:
            proc.kill()
        gw.close()
    assert frozen, "the apply ended before the broker listed its bindings"
    rows = [json.loads(line) for line in report.read_text().splitlines()] if report.exists() else []
    return proc.returncode, out, err, rows, took


def _wait_for_the_broker(sandbox) -> None:
    deadline = time.monotonic() + 60
    while True:
        gw = sandbox.gateway("admin")
        try:
            if gw.live_brokers():
                return
        except Exception:
            assert time.monotonic() < deadline, "the thawed broker did not come back"
        finally:
            gw.close()
        time.sleep(0.2)


def _converges_then_cleans_up(sandbox, t: str, doc, tmp_path, n: int, *extra: str) -> None:
    r = sandbox.as_user("admin", "acls", "apply", str(doc), "--yes", *extra)
    assert r.exit_code == 0, r.stderr[-2000:]
    r = sandbox.as_user("admin", "acls", "plan", str(doc), "--detailed-exitcode")
    assert r.exit_code == 0, r.stderr[-2000:]
    empty = tmp_path / "empty.jsonl"
    empty.write_text(json.dumps({"kind": "scope", "principalPrefixes": [f"User:{t}-"]}) + "\n")
    r = sandbox.as_user("admin", "acls", "apply", str(empty), "--yes", "--max-deletes", str(n))
    assert r.exit_code == 0, r.stderr[-2000:]


@pytest.mark.parametrize(("signame", "through"), [("SIGTERM", ""), ("SIGHUP", ""), ("SIGTERM", "timeout")],
                         ids=["SIGTERM", "SIGHUP", "SIGTERM through timeout(1)"])
def test_a_signal_mid_apply_writes_the_report_and_exits_with_its_code(sandbox, tmp_path, signame, through):
    """Through timeout(1) the apply gets SIGTERM twice at once (to it, then to timeout's process group): the same
    stop, delivered twice, which once ended the process before its report was written."""
    t = token()
    doc, report = tmp_path / "state.jsonl", tmp_path / "report.jsonl"
    n = 20_000  # sent in requests of a few thousand: some answered, some in flight when the signal comes
    _state(doc, t, n)
    code, out, err, rows, took = _signalled_apply(sandbox, t, doc, report, signame, 5_000, through=through)
    _wait_for_the_broker(sandbox)
    print(f"\n{signame} mid-apply: exit {code} {took:.1f} s after it; report "
          f"{dict(Counter(r['status'] for r in rows))}")
    assert code == CODES[signame], err[-3000:]
    # the requests on the wire to the frozen broker are not waited for (they were, for the client's timeout three
    # times over: 30 s, a pod's whole grace period before SIGKILL)
    assert took < 10, f"{took:.1f} s from {signame} to the exit"
    assert "Traceback" not in err
    assert f"error: interrupted by {signame}: " in err and f"of {n:,} changes made before it stopped" in err, err
    statuses = Counter(r["status"] for r in rows)
    assert len(rows) == n and set(statuses) <= {"created", "unknown", "skipped"}, statuses
    assert statuses["created"] > 0 and statuses["unknown"] + statuses["skipped"] > 0, statuses
    # stdout's result counts what the report lists, the phase in flight included
    summary = Counter()
    for row in json.loads(out)["summary"]:
        summary[row["status"]] += row["count"]
    assert summary == statuses, (summary, statuses)
    assert f"error: interrupted by {signame}: {statuses['created']:,} of {n:,} changes made" in err, err
    _converges_then_cleans_up(sandbox, t, doc, tmp_path, n)


@pytest.mark.parametrize("signame", ["SIGTERM", "SIGHUP"])
def test_a_signal_mid_spark_apply_writes_the_report_and_exits_with_its_code(sandbox, spark, tmp_path, signame):
    """The Spark engine: the signal comes while a phase's job runs (its executors' requests unanswered, the broker
    frozen); that phase's bindings are reported `unknown`, one line each."""
    t = token()
    doc, report = tmp_path / "state.jsonl", tmp_path / "report.jsonl"
    n = 3_000
    _state(doc, t, n)
    code, out, err, rows, took = _signalled_apply(sandbox, t, doc, report, signame, 1, "--spark", "--spark-master",
                                                  spark)
    _wait_for_the_broker(sandbox)
    print(f"\n{signame} mid-Spark-apply: exit {code} {took:.1f} s after it; report "
          f"{dict(Counter(r['status'] for r in rows))}")
    assert code == CODES[signame], err[-3000:]
    for noise in ("Traceback", "ERROR:root", "Py4J", "at org.apache"):
        assert noise not in err, err[-3000:]
    assert f"error: interrupted by {signame}: " in err, err[-2000:]
    statuses = Counter(r["status"] for r in rows)
    assert len(rows) == n and set(statuses) <= {"created", "unknown", "skipped"}, statuses
    summary = Counter()
    for row in json.loads(out)["summary"]:
        summary[row["status"]] += row["count"]
    assert summary == statuses, (summary, statuses)
    _converges_then_cleans_up(sandbox, t, doc, tmp_path, n)
