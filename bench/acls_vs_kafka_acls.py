"""kafkactl acls list/create vs kafka-acls.sh (AclCommand from the same jars), interleaved, same sandbox.

Needs a running sandbox (`kafkactl local up`). Creates 1,000 ACLs under a bench principal, then
alternates the two tools for each measurement and reports medians and ratios.

    .venv/bin/python bench/acls_vs_kafka_acls.py --rounds 7 [--write bench/RESULTS.md]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path

# kafka-run-class.sh's defaults, so the JVM runs as kafka-acls.sh would run it
KAFKA_RUN_CLASS_OPTS = ["-Xmx256M", "-server", "-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20",
                        "-XX:InitiatingHeapOccupancyPercent=35", "-XX:+ExplicitGCInvokesConcurrent",
                        "-XX:MaxInlineLevel=15", "-Djava.awt.headless=true"]


def timed(cmd: list[str]) -> float:
    t = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - t
    if p.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd[:6])} ...: {p.stderr[-500:]}")
    return elapsed


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--acls", type=int, default=1000)
    ap.add_argument("--write", help="append the results table to this markdown file")
    args = ap.parse_args()

    from kafkactl.local.assembly import ensure_tools
    from kafkactl.local.sandbox import Sandbox

    sb = Sandbox()
    state = sb.load_state()
    if state is None or not sb.is_running(state):
        sys.exit("start the sandbox first: kafkactl local up")
    bootstrap = f"127.0.0.1:{state.broker_port}"
    props = str(sb.client_properties("admin"))
    java = [shutil.which("java"), *KAFKA_RUN_CLASS_OPTS, f"-Dlog4j2.configurationFile={sb.home / 'log4j2.properties'}",
            "-cp", f"{ensure_tools()}/*", "org.apache.kafka.tools.AclCommand", "--bootstrap-server", bootstrap,
            "--command-config", props]
    kafkactl = [str(Path(sys.executable).with_name("kafkactl")), "--context", "local-admin"]
    env_note = f"{os.cpu_count()} cores, Kafka {state.kafka_version}"

    tag = uuid.uuid4().hex[:6]
    principal = f"User:bench{tag}"
    topics = [a for i in range(args.acls) for a in ("--topic", f"bench{tag}.t{i:05d}")]
    subprocess.run(kafkactl + ["acls", "create", "--allow-principal", principal, "--operation", "Read", *topics],
                   check=True, stdout=subprocess.DEVNULL)
    results: dict[str, list[float]] = {k: [] for k in ("kafkactl list", "kafka-acls.sh list", "kafkactl create",
                                                         "kafka-acls.sh create")}
    try:
        for i in range(args.rounds):
            results["kafkactl list"].append(timed(kafkactl + ["-o", "plain", "acls", "list"]))
            results["kafka-acls.sh list"].append(timed(java + ["--list"]))
            one = ["--allow-principal", principal, "--operation", "Write", "--topic", f"bench{tag}.one{i}"]
            results["kafkactl create"].append(timed(kafkactl + ["acls", "create", *one]))
            results["kafka-acls.sh create"].append(timed(java + ["--add",
                                                                 *[o.replace(f"one{i}", f"two{i}") for o in one]]))
    finally:
        subprocess.run(kafkactl + ["acls", "delete", "--principal", principal, "--yes"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    med = {k: statistics.median(v) for k, v in results.items()}
    lines = [f"### kafkactl vs kafka-acls.sh ({args.acls} ACLs, {args.rounds} interleaved rounds, {env_note}, "
             f"{time.strftime('%Y-%m-%d')})", "",
             "| measurement | kafkactl median | kafka-acls.sh median | ratio (kafka-acls.sh / kafkactl) |",
             "|---|---|---|---|"]
    for what in ("list", "create"):
        a, b = med[f"kafkactl {what}"], med[f"kafka-acls.sh {what}"]
        lines.append(f"| `acls {what}` | {a:.3f} s | {b:.3f} s | {b / a:.1f}x |")
    lines += ["",
              f"Reproduce: `kafkactl local up && .venv/bin/python bench/acls_vs_kafka_acls.py --rounds {args.rounds}`",
              ""]
    text = "\n".join(lines)
    print(text)
    if args.write:
        with open(args.write, "a", encoding="utf-8") as fh:
            fh.write(text + "\n")


if __name__ == "__main__":
    main()
