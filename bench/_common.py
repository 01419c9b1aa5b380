"""Shared by the benchmarks that run against the sandbox and a Java anchor."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def running_sandbox():
    """(sandbox, its state, the kafka-*.sh tools' jars dir); exits if `kafkactl local up` has not been run."""
    from kafkactl.local.assembly import ensure_tools
    from kafkactl.local.sandbox import Sandbox

    sb = Sandbox()
    state = sb.load_state()
    if state is None or not sb.is_running(state):
        sys.exit("start the sandbox first: kafkactl local up")
    return sb, state, ensure_tools()


def compile_java(libs: Path, source: str) -> Path:
    """javac bench/java/<source> against the Maven kafka-clients jar; returns the classes dir."""
    out = HERE / "out"
    out.mkdir(exist_ok=True)
    clients = next(libs.glob("kafka-clients-*.jar"))
    subprocess.run(["javac", "-d", str(out), "-cp", str(clients), str(HERE / "java" / source)], check=True)
    return out


def wall(cmd: list[str], env: dict[str, str] | None = None, capture: bool = False) -> tuple[float, str]:
    """Wall time of one process, and its stdout when captured. No timeout on purpose: Popen.wait(timeout)
    polls with sleeps that double up to 50 ms, which rounds every measurement up to the next poll
    (to 114, 164, 214 ms, ...)."""
    t = time.perf_counter()
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE if capture else subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, text=True)
    out = p.stdout.read() if capture else ""
    p.wait()
    return time.perf_counter() - t, out
