"""A soak: consecutive small applies (ACLs, topic configs, quotas, SCRAM users, mixed) against a 3-broker sandbox
while a chaos thread freezes, kills and restarts brokers and the active controller and toggles network faults
(tests/faultproxy.py, between kafkactl and every broker). After each apply, a plan (asked until it answers) must be
empty or name only what the apply's report says was not applied (unknown, skipped, failed): a planned change the
report calls applied is lost, a planned deletion of something the file never named is extra (issue 31, item 6).

    .venv/bin/python bench/soak.py --applies 1000            # a sandbox of its own, under a temporary directory
    .venv/bin/python bench/soak.py --seconds 300             # as long as that, however many applies it makes

The short form runs in CI (tests/integration/test_multi_broker.py) on the module's 3-broker sandbox.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DONE = {"applied", "created", "deleted", "gone"}
DELETIONS = {"DELETE", "delete", "delete-topic", "remove-quota", "delete-scram"}
KINDS = ("acls", "configs", "quotas", "users", "mixed")


@dataclass
class SoakResult:
    applies: int = 0
    by_kind: Counter = field(default_factory=Counter)
    exits: Counter = field(default_factory=Counter)
    faults: Counter = field(default_factory=Counter)
    lost: list[str] = field(default_factory=list)  # planned again although the report said applied
    extra: list[str] = field(default_factory=list)  # planned deletions of what no file named
    unsettled: int = 0  # plans that never answered within their tries (not counted as lost or extra)
    tracebacks: int = 0
    peak_rss_mib: float = 0.0
    seconds: float = 0.0

    def lines(self) -> list[str]:
        return [f"applies: {self.applies} ({', '.join(f'{k} {n}' for k, n in sorted(self.by_kind.items()))}) in "
                f"{self.seconds:.0f} s",
                f"apply exit codes: {dict(sorted(self.exits.items()))}",
                f"faults injected: {sum(self.faults.values())} "
                f"({', '.join(f'{k} {n}' for k, n in sorted(self.faults.items()))})",
                f"lost: {len(self.lost)}, extra: {len(self.extra)}, plans that never answered: {self.unsettled}, "
                f"tracebacks: {self.tracebacks}",
                f"peak memory of a kafkactl process: {self.peak_rss_mib:.0f} MiB"]


class Chaos(threading.Thread):
    """Every few seconds one fault, held a few seconds, then undone: a broker or the active controller frozen,
    a broker or the active controller killed and started again, or a network fault on the proxy."""

    def __init__(self, sb: Any, state: Any, proxy: Any, result: SoakResult, seed: int) -> None:
        super().__init__(daemon=True, name="soak-chaos")
        self.sb, self.state, self.proxy, self.result = sb, state, proxy, result
        self.rng = random.Random(seed)
        self.stop = threading.Event()

    def run(self) -> None:
        from tests import faultproxy as fp

        while not self.stop.wait(self.rng.uniform(1.0, 4.0)):
            action = self.rng.choice(["freeze broker", "freeze controller", "kill broker", "kill controller",
                                      "latency", "reset", "blackhole one"])
            self.result.faults[action] += 1
            if action.startswith("freeze"):
                node = self._pick(action)
                self._signal(node, "SIGSTOP")
                self.stop.wait(self.rng.uniform(1.0, 6.0))
                self._signal(node, "SIGCONT")
            elif action.startswith("kill"):
                node = self._pick(action)
                self._signal(node, "SIGKILL")
                self.stop.wait(self.rng.uniform(0.5, 3.0))
                self._restart()
            else:
                fault = {"latency": fp.latency(0.05), "reset": fp.reset_after(self.rng.choice([2000, 20000])),
                         "blackhole one": fp.BLACKHOLE}[action]
                ports = [self.rng.choice(list(self.proxy.routes))] if action == "blackhole one" else None
                self.proxy.set(fault, ports)
                self.stop.wait(self.rng.uniform(1.0, 5.0))
                self.proxy.clear()

    def _pick(self, action: str) -> Any:
        if action.endswith("controller"):
            from tests.cluster3 import quorum_leader

            leader = quorum_leader(self.state)
            if leader is not None:
                return self.sb.node(leader)
            return self.rng.choice([n for n in self.state.nodes if n.is_controller])
        return self.rng.choice([n for n in self.state.nodes if n.is_broker])

    def _signal(self, node: Any, name: str) -> None:
        import signal

        pid = self.sb.node(node.node_id).pid
        if pid:
            try:
                os.killpg(pid, getattr(signal, name))
            except ProcessLookupError:
                pass

    def _restart(self) -> None:
        try:
            self.sb.up(timeout=240)
        except Exception as exc:  # noqa: BLE001 - the soak goes on; the next kill finds it running or not
            print(f"soak: restart failed: {exc}", file=sys.stderr)

    def finish(self) -> None:
        self.stop.set()
        self.join(300)
        self.proxy.clear()
        import signal

        for n in self.state.nodes:  # nothing left frozen, every node running
            pid = self.sb.node(n.node_id).pid
            if pid:
                try:
                    os.killpg(pid, signal.SIGCONT)
                except ProcessLookupError:
                    pass
        self._restart()


class Workload:
    """The files: a few principals, topics, quota users and SCRAM users of the run's own prefix, each apply a new
    random desired state of one kind (or ACLs and configs both)."""

    def __init__(self, base: Path, prefix: str, rng: random.Random) -> None:
        self.base, self.p, self.rng = base, prefix, rng
        self.topics = [f"{prefix}.t{i}" for i in range(4)]

    def acls(self, path: Path) -> None:
        rows = [json.dumps({"kind": "scope", "principalPrefixes": [f"User:{self.p}-a"]})]
        for _ in range(self.rng.randint(0, 30)):
            rows.append(json.dumps({
                "principal": f"User:{self.p}-a{self.rng.randint(0, 4)}", "host": "*",
                "operation": self.rng.choice(["READ", "WRITE", "DESCRIBE"]),
                "permission": self.rng.choice(["ALLOW"] * 4 + ["DENY"]), "resource_type": "TOPIC",
                "resource_name": f"{self.p}.r{self.rng.randint(0, 40)}", "pattern_type": "LITERAL"}))
        path.write_text("\n".join(rows) + "\n")

    def state(self, path: Path, kind: str) -> None:
        import yaml

        doc: dict[str, Any] = {"apiVersion": "kafkactl/v1", "kind": "State"}
        if kind == "configs":
            doc["topics"] = [{"name": t, "partitions": 1, "configs": {
                "retention.ms": str(self.rng.choice([3600000, 7200000, 86400000])),
                **({"max.message.bytes": str(self.rng.choice([100000, 200000]))} if self.rng.random() < 0.5 else {})}}
                for t in self.topics]
        elif kind == "quotas":
            doc["manage"] = {"quotas": [f"{self.p}-q"]}
            doc["quotas"] = [{"user": f"{self.p}-q{i}",
                              "values": {"producer_byte_rate": self.rng.choice([1048576, 2097152])}}
                             for i in range(3) if self.rng.random() < 0.7]
        else:
            doc["manage"] = {"users": [f"{self.p}-u"]}
            doc["users"] = [{"name": f"{self.p}-u{i}", "scram": [{"mechanism": "SCRAM-SHA-512",
                                                                   "iterations": self.rng.choice([4096, 8192]),
                                                                   "password": {"env": "SOAK_PASSWORD"}}]}
                            for i in range(3) if self.rng.random() < 0.7]
        path.write_text(yaml.safe_dump(doc))


_PEAK = [0]  # KiB: the largest resident set of any kafkactl process run


def _run(args: list[str], env: dict[str, str], timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """kafkactl in a process of its own, its peak resident set (GNU time's %M) kept."""
    with tempfile.NamedTemporaryFile("r", suffix=".rss") as rss:
        timed = ["/usr/bin/time", "-f", "%M", "-o", rss.name] if os.path.exists("/usr/bin/time") else []
        p = subprocess.run([*timed, sys.executable, "-m", "kafkactl", *args], capture_output=True, text=True,
                           env=env, timeout=timeout)
        kib = rss.read().strip().splitlines()
        if kib and kib[-1].isdigit():
            _PEAK[0] = max(_PEAK[0], int(kib[-1]))
    return p


def _check(noun: str, doc: Path, report: Path, direct: list[str], env: dict[str, str], result: SoakResult,
           asked: set[str]) -> None:
    """Plan again (directly, not through the proxy) until a plan answers and agrees with the report, a few times
    (a broker just thawed may answer from its copy of the metadata before it catches up). `asked`: every target an
    apply or plan of the run has meant to create or set; a planned deletion of anything else is extra (an apply
    that failed before it planned writes no report, and the next plan deletes what earlier files made)."""
    rows = [json.loads(x) for x in report.read_text().splitlines()] if report.exists() else []
    done = {r["target"] for r in rows if r["status"] in DONE}
    asked |= {r["target"] for r in rows if r["action"] not in DELETIONS}
    lost: list[str] = []
    extra: list[str] = []
    for _ in range(20):
        p = _run([*direct, "-o", "json", noun, "plan", str(doc)], env)
        if "Traceback" in p.stderr:
            result.tracebacks += 1
        if p.returncode != 0:
            time.sleep(1.0)
            continue
        changes = json.loads(p.stdout).get("changes", [])
        asked |= {c["target"] for c in changes if c["action"] not in DELETIONS}
        lost = [c["target"] for c in changes if c["target"] in done]
        extra = [c["target"] for c in changes if c["target"] not in asked and c["action"] in DELETIONS]
        if not lost and not extra:
            return
        time.sleep(1.0)
    else:
        if not lost and not extra:
            result.unsettled += 1
            return
    result.lost += lost
    result.extra += extra


def soak(sb: Any, state: Any, proxy: Any, applies: int | None = None, seconds: float | None = None,
         seed: int = 31) -> SoakResult:
    """Applies until `applies` are made or `seconds` have passed, chaos meanwhile; the result's figures."""
    rng = random.Random(seed)
    result = SoakResult()
    work = Path(tempfile.mkdtemp(prefix="kafkactl-soak-"))
    prefix = f"soak{rng.randrange(1 << 30):x}"
    load = Workload(work, prefix, rng)
    from tests.cluster3 import admin_properties

    props = admin_properties(state, work / "admin.properties")
    env = {**os.environ, "KAFKACTL_CONTEXT": "", "SOAK_PASSWORD": f"pw-{rng.randrange(1 << 60):x}"}
    proxied = ["-b", ",".join(f"127.0.0.1:{p}" for p in proxy.routes), "--command-config", str(props),
               "--timeout", "10"]
    direct = ["-b", state.bootstrap, "--command-config", str(props), "--timeout", "10"]
    for t in load.topics:
        _run([*direct, "topics", "create", t, "--partitions", "1"], env)
    asked: set[str] = set()
    chaos = Chaos(sb, state, proxy, result, seed)
    started = time.monotonic()
    chaos.start()
    try:
        while (applies is None or result.applies < applies) and \
                (seconds is None or time.monotonic() - started < seconds):
            kind = rng.choice(KINDS)
            steps = [("acls", "acls"), ("configs", "configs")] if kind == "mixed" else \
                [("acls", "acls")] if kind == "acls" else [("configs", kind)]
            for noun, what in steps:
                doc = work / (f"state-{result.applies}.jsonl" if noun == "acls" else f"state-{result.applies}.yaml")
                report = work / f"report-{result.applies}.jsonl"
                load.acls(doc) if noun == "acls" else load.state(doc, what)
                extra = ["--max-deletes", "1000"] if noun == "acls" else []
                p = _run([*proxied, "-o", "json", noun, "apply", str(doc), "--yes", "--report", str(report), *extra],
                         env)
                result.exits[p.returncode] += 1
                if "Traceback" in p.stderr:
                    result.tracebacks += 1
                _check(noun, doc, report, direct, env, result, asked)
                doc.unlink(missing_ok=True)
                report.unlink(missing_ok=True)
            result.applies += 1
            result.by_kind[kind] += 1
    finally:
        chaos.finish()
        result.seconds = time.monotonic() - started
        result.peak_rss_mib = _PEAK[0] / 1024
        import shutil

        shutil.rmtree(work, ignore_errors=True)
    return result


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--applies", type=int, default=None)
    ap.add_argument("--seconds", type=float, default=None)
    ap.add_argument("--seed", type=int, default=31)
    args = ap.parse_args()
    if args.applies is None and args.seconds is None:
        args.applies = 1000
    sys.path.insert(0, str(ROOT))
    from kafkactl.local.sandbox import Sandbox
    from tests.faultproxy import FaultProxy

    home = Path(tempfile.mkdtemp(prefix="kafkactl-soak-home-"))
    os.environ["XDG_STATE_HOME"], os.environ["XDG_CONFIG_HOME"] = str(home / "state"), str(home / "config")
    sb = Sandbox()
    try:
        sb.up(timeout=240, brokers=3, controllers=3, proxied=True)
        state = sb.load_state()
        proxy = FaultProxy({n.proxy_port: n.proxied_port for n in state.nodes if n.is_broker}).start()
        try:
            result = soak(sb, state, proxy, args.applies, args.seconds, args.seed)
        finally:
            proxy.stop()
    finally:
        sb.down(purge=True)
        import shutil

        shutil.rmtree(home, ignore_errors=True)  # (the XDG directories the purge left empty)
    print(f"### Soak ({time.strftime('%Y-%m-%d')}, {os.cpu_count()} cores, 3 brokers + 3 controllers, seed "
          f"{args.seed})\n")
    for line in result.lines():
        print(f"- {line}")


if __name__ == "__main__":
    main()
