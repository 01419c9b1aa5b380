"""Reads with one broker frozen (SIGSTOP): kafkactl against its own time with every broker answering, and against
kafka-acls.sh --list (the Java AdminClient, same jars), interleaved in one run (issue 31, item 1).

Each run freezes one broker (in turn 1, 2, 3) just before the command starts and thaws it when the command ends,
then waits until that broker answers again: a freeze never outlasts the broker's session (9 s), so the cluster
still lists the frozen broker, the case a read must fail over from. The target: every command answers within its
normal time (the median of its runs with no broker frozen) plus 2 s in at least 99 of 100 runs. Needs a 3-broker
sandbox: `kafkactl local up --brokers 3 --controllers 3`.

    .venv/bin/python bench/failover.py --runs 100 --anchor-runs 10
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import running_sandbox, wall  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.cluster3 import answering_again, freeze  # noqa: E402

BOUND_S = 2.0
KAFKA_RUN_CLASS_OPTS = ["-Xmx256M", "-server", "-XX:+UseG1GC", "-Djava.awt.headless=true"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--anchor-runs", type=int, default=10)
    ap.add_argument("--timeout", type=float, default=30.0)
    ap.add_argument("--commands", default="", help="only these, comma-separated (e.g. 'acls plan')")
    args = ap.parse_args()

    sb, state, jars = running_sandbox()
    brokers = [n.node_id for n in state.nodes if "broker" in n.roles]
    if len(brokers) < 3:
        sys.exit("needs 3 brokers: kafkactl local down; kafkactl local up --brokers 3 --controllers 3")
    tmp = Path(tempfile.mkdtemp(prefix="kafkactl-bench-failover-"))
    plan = tmp / "plan.yaml"
    plan.write_text("scope:\n  principalPrefixes: ['User:bench-fo-']\nacls:\n  - principal: User:bench-fo-app\n"
                    "    allow:\n      - topic: bench-fo\n        operations: [Read]\n")
    ms = int(args.timeout * 1000)
    props = tmp / "admin.properties"
    props.write_text(sb.client_properties("admin").read_text()
                     + f"default.api.timeout.ms={ms}\nrequest.timeout.ms={ms}\n")
    props.chmod(0o600)
    kafkactl = [str(Path(sys.executable).with_name("kafkactl")), "--timeout", f"{args.timeout:g}", "--context",
                "local-admin", "-o", "json"]
    wall(kafkactl + ["topics", "create", "bench-fo", "--partitions", "3", "--replication-factor", "3"])
    commands = {"acls list": ["acls", "list"], "topics list": ["topics", "list"],
                "configs describe": ["configs", "describe", "--topic", "bench-fo"],
                "groups list": ["groups", "list"], "acls plan": ["acls", "plan", str(plan)]}
    if args.commands:
        commands = {name: cmd for name, cmd in commands.items() if name in args.commands.split(",")}
    java = [shutil.which("java"), *KAFKA_RUN_CLASS_OPTS, f"-Dlog4j2.configurationFile={sb.home / 'log4j2.properties'}",
            "-cp", f"{jars}/*", "org.apache.kafka.tools.AclCommand", "--bootstrap-server", state.bootstrap,
            "--command-config", str(props), "--list"]
    normal: dict[str, list[float]] = {}
    frozen: dict[str, list[float]] = {}
    anchor: list[float] = []
    for run in range(args.runs):
        node = brokers[run % len(brokers)]
        for name, cmd in commands.items():
            normal.setdefault(name, []).append(wall(kafkactl + cmd)[0])
            freeze(sb, node, True)
            try:
                frozen.setdefault(name, []).append(wall(kafkactl + cmd)[0])
            finally:
                freeze(sb, node, False)
            answering_again(state, node)
        if run < args.anchor_runs:
            freeze(sb, node, True)
            try:
                anchor.append(wall(java)[0])
            finally:
                freeze(sb, node, False)
            answering_again(state, node)
        print(f"run {run + 1}/{args.runs}", file=sys.stderr)
    wall(kafkactl + ["topics", "delete", "bench-fo", "--yes"])
    shutil.rmtree(tmp)

    print(f"### Reads with one of 3 brokers frozen ({args.runs} runs per command, the frozen broker in turn 1, 2, 3; "
          f"--timeout {args.timeout:g}; {os.cpu_count()} cores, Kafka {state.kafka_version}, "
          f"{time.strftime('%Y-%m-%d')})\n")
    print("| command | normal median | frozen median | frozen p99 | frozen max | within normal + 2 s |")
    print("|---|---|---|---|---|---|")
    for name in commands:
        base = statistics.median(normal[name])
        times = sorted(frozen[name])
        within = sum(t <= base + BOUND_S for t in times)
        p99 = times[min(len(times) - 1, int(0.99 * len(times)))]
        print(f"| {name} | {base:.2f} s | {statistics.median(times):.2f} s | {p99:.2f} s | {times[-1]:.2f} s | "
              f"{within}/{len(times)} |")
    if anchor:
        med = statistics.median(anchor)
        kc = statistics.median(frozen["acls list"])
        print(f"\nkafka-acls.sh --list with a broker frozen ({len(anchor)} runs interleaved): median {med:.2f} s, "
              f"max {max(anchor):.2f} s; kafkactl acls list median {kc:.2f} s: ratio {med / kc:.1f}x")


if __name__ == "__main__":
    main()
