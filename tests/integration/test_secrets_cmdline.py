"""No password on any process's command line while `kafkactl local up` formats storage and starts the broker.

Every process's /proc/PID/cmdline is readable by every local user. The test records all of them every few
milliseconds during a real `local up` (its own XDG directories, so the session sandbox is left alone) and looks
for each new password, and every 6-character piece of one, in what it saw. It also reads the strings of the JVMs'
perf data files (/tmp/hsperfdata_<user>/<pid>), where a JVM publishes its main class and arguments for jps.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
from pathlib import Path

from tests.secrets_sweep import register, sweep_tree


def _cmdlines() -> set[bytes]:
    seen = set()
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                seen.add(Path(f"/proc/{pid}/cmdline").read_bytes())
            except OSError:  # gone meanwhile, or not ours to read
                pass
    return seen


def _perf_strings() -> set[bytes]:
    """The printable strings naming a Kafka class in every JVM perf data file (jps -m reads its arguments there)."""
    seen = set()
    for path in Path("/tmp").glob("hsperfdata_*/*"):
        try:
            seen.update(s for s in re.findall(rb"[\x20-\x7e]{12,}", path.read_bytes()) if b"kafka" in s)
        except OSError:
            pass
    return seen


def test_local_up_puts_no_password_on_a_command_line(own_sandbox_env, tmp_path):
    env = own_sandbox_env
    seen: set[bytes] = set()
    perf: set[bytes] = set()
    stop = threading.Event()
    polls = 0

    def poll() -> None:
        nonlocal polls
        while not stop.is_set():
            seen.update(_cmdlines())
            perf.update(_perf_strings())
            polls += 1
            stop.wait(0.005)

    poller = threading.Thread(target=poll, daemon=True)
    poller.start()
    try:
        up = subprocess.run([sys.executable, "-m", "kafkactl", "local", "up"], capture_output=True, text=True,
                            env=env, timeout=300)
    finally:
        stop.set()
        poller.join()
    try:
        assert up.returncode == 0, up.stderr
        passwords = json.loads((tmp_path / "state" / "kafkactl" / "local" / "state.json").read_text())["passwords"]
        for password in passwords.values():
            register(password, "a password of the polled sandbox")
        sweep_tree(tmp_path / "state", "the polled sandbox")
        java = [c for c in seen if b"java" in c.split(b"\0")[0]]
        assert any(c.endswith(b"format.args\0") for c in java), "the poller never saw the format step"
        assert not [c for c in java if b"StorageTool" in c], "StorageTool's arguments were on a command line"
        pieces = {pw[i:i + 6].encode() for pw in passwords.values() for i in range(len(pw) - 5)}
        leaks = [c.replace(b"\0", b" ")[:200] for c in seen | perf if any(p in c for p in pieces)]
        print(f"{polls} polls, {len(seen)} distinct command lines, {len(java)} java, {len(perf)} perf data strings, "
              f"{len(pieces)} password pieces")
        assert not leaks, leaks
        assert not list((tmp_path / "state" / "kafkactl" / "local").glob("*.args")), "the argument file was left"
    finally:
        subprocess.run([sys.executable, "-m", "kafkactl", "local", "down", "--purge"], capture_output=True, env=env,
                       timeout=120)
