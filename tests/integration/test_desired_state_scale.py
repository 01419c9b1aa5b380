"""25,000 bindings: apply killed with SIGKILL midway, re-run converges; then 25,000 deletes; two clusters."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from tests.conftest import run
from tests.integration.acl_helpers import remove_exactly, snapshot, token

PRINCIPALS, TOPICS = 50, 500


def write_state(path, prefix: str, n_principals: int, n_topics: int) -> None:
    with open(path, "w") as fh:
        fh.write(json.dumps({"kind": "scope", "principalPrefixes": [f"User:{prefix}"]}) + "\n")
        for i in range(n_principals):
            for j in range(n_topics):
                fh.write(json.dumps({"principal": f"User:{prefix}{i}", "host": "*", "operation": "READ",
                                     "permission": "ALLOW" if j % 10 else "DENY", "resource_type": "TOPIC",
                                     "resource_name": f"{prefix}t{j}", "pattern_type": "LITERAL"}) + "\n")


def test_kill_minus_9_mid_apply_then_rerun_converges(sandbox, tmp_path):
    gw = sandbox.gateway("admin")
    t = token()
    prefix = f"k9{t}-"
    unmanaged = f"User:keep{t}"
    assert run("--context", "local-admin", "acls", "create", "--allow-principal", unmanaged, "--topic", f"{prefix}t1",
               "--operation", "Read").exit_code == 0
    state = tmp_path / "big.jsonl"
    write_state(state, prefix, PRINCIPALS, TOPICS)
    try:
        proc = subprocess.Popen([sys.executable, "-m", "kafkactl", "--context", "local-admin", "--timeout", "60",
                                 "acls", "apply", str(state), "--yes"], stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, env=os.environ.copy())
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:  # kill once part of the creates has landed
            n = len({b for b in snapshot(gw) if b.principal.startswith(f"User:{prefix}")})
            if n >= 2000 or proc.poll() is not None:
                break
            time.sleep(0.1)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        partial = len({b for b in snapshot(gw) if b.principal.startswith(f"User:{prefix}")})
        assert 0 < partial < PRINCIPALS * TOPICS, partial
        t0 = time.monotonic()
        r = run("--context", "local-admin", "--timeout", "60", "-o", "json", "acls", "apply", str(state), "--yes")
        rerun_s = time.monotonic() - t0
        assert r.exit_code == 0, r.stderr[-2000:]
        r = run("--context", "local-admin", "acls", "plan", str(state), "--detailed-exitcode")
        assert r.exit_code == 0 and "+0 -0" in r.stderr
        managed = {b for b in snapshot(gw) if b.principal.startswith(f"User:{prefix}")}
        assert len(managed) == PRINCIPALS * TOPICS  # nothing duplicated, nothing missing
        assert any(b.principal == unmanaged for b in snapshot(gw))  # nothing outside scope touched
        # 25,000 deletes: the same scope with nothing desired
        empty = tmp_path / "empty.jsonl"
        empty.write_text(json.dumps({"kind": "scope", "principalPrefixes": [f"User:{prefix}"]}) + "\n")
        t0 = time.monotonic()
        r = run("--context", "local-admin", "--timeout", "60", "acls", "apply", str(empty), "--yes")
        delete_s = time.monotonic() - t0
        assert r.exit_code == 0, r.stderr[-2000:]
        assert not {b for b in snapshot(gw) if b.principal.startswith(f"User:{prefix}")}
        print(f"\n25k: killed at {partial}, re-run {rerun_s:.1f} s, 25k deletes {delete_s:.1f} s")
    finally:
        remove_exactly(gw, {b for b in snapshot(gw) if b.principal.startswith((f"User:{prefix}", unmanaged))})


@pytest.mark.usefixtures("sandbox")
def test_two_contexts_in_one_apply(tmp_path, monkeypatch):
    """A second, private sandbox is the second cluster; its admin context joins the session's contexts file."""
    from kafkactl.local.sandbox import Sandbox
    from kafkactl.profiles import ContextStore

    main_config = os.environ["XDG_CONFIG_HOME"]
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state2"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config2"))
    second = Sandbox()
    second.up(timeout=120)
    try:
        ctx = ContextStore.load().get("local-admin")
        monkeypatch.setenv("XDG_CONFIG_HOME", main_config)
        store = ContextStore.load()
        ctx.name, ctx.managed_by = "second-admin", None
        store.put(ctx)
        store.save()
        t = token()
        f = tmp_path / "two.yaml"
        f.write_text(f"scope:\n  principalPrefixes: ['User:two{t}']\nclusters: [local-admin, second-admin]\nacls:\n"
                     f"  - principal: User:two{t}\n    allow:\n      - topic: two{t}\n        operations: [Read]\n")
        r = run("acls", "plan", str(f), "--detailed-exitcode")
        assert r.exit_code == 2 and "local-admin: +1" in r.stderr and "second-admin: +1" in r.stderr
        r = run("--context", "local-admin", "acls", "apply", str(f), "--context", "local-admin", "--context",
                "second-admin", "--yes")
        assert r.exit_code == 0, r.stderr
        for c in ("local-admin", "second-admin"):
            got = run("--context", c, "-o", "json", "acls", "list", "--principal", f"User:two{t}")
            assert [d["resource_name"] for d in json.loads(got.stdout)] == [f"two{t}"]
        assert run("acls", "plan", str(f), "--detailed-exitcode").exit_code == 0
        run("--context", "local-admin", "acls", "delete", "--principal", f"User:two{t}", "--yes")
    finally:
        monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config2"))
        second.down(purge=True)
        monkeypatch.setenv("XDG_CONFIG_HOME", main_config)
        store = ContextStore.load()
        if "second-admin" in store.contexts:
            store.delete("second-admin")
            store.save()
