"""`kafkactl topics describe --authorized-ops -o json` over 2,000 topics vs a Java AdminClient program.

The anchor is bench/java/DescribeTopics.java (listTopics + describeTopics(includeAuthorizedOperations)),
compiled here with javac against the Maven-assembled kafka-clients jar; both include process start.
Needs a running sandbox (`kafkactl local up`).

    .venv/bin/python bench/describe_topics.py --topics 2000 --rounds 7
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def timed(cmd: list[str]) -> float:
    t = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd[:4])}: {p.stderr[-800:]}")
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--topics", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args()

    from kafkactl.gateway import Gateway
    from kafkactl.profiles import Selection, resolve

    from _common import compile_java, running_sandbox

    sb, state, libs = running_sandbox()
    out = compile_java(libs, "DescribeTopics.java")

    gw = Gateway(resolve(Selection(context="local-admin", timeout=120)))
    have = {t.name for t in gw.topics() if t.name.startswith("bench.describe.")}
    missing = [f"bench.describe.{i:05d}" for i in range(args.topics) if f"bench.describe.{i:05d}" not in have]
    for start in range(0, len(missing), 500):
        errors = gw.create_topics([(n, 1, 1, {}) for n in missing[start:start + 500]])
        assert not any(errors.values()), [e for e in errors.values() if e][:3]
    deadline = time.monotonic() + 300
    while True:  # new topics reach the metadata a little after CreateTopics returns
        visible = [t.name for t in gw.topics() if t.name.startswith("bench.describe.")]
        if len(visible) >= args.topics or time.monotonic() > deadline:
            break
        time.sleep(1)
    total = len(gw.topics())

    java = [shutil.which("java"), "-Xmx256M", "-cp", f"{out}:{libs}/*",
            f"-Dlog4j2.configurationFile={sb.home / 'log4j2.properties'}", "DescribeTopics",
            f"127.0.0.1:{state.broker_port}", str(sb.client_properties("admin"))]
    kafkactl = [str(Path(sys.executable).with_name("kafkactl")), "--context", "local-admin", "-o", "json",
                "topics", "describe", "--authorized-ops"]
    res: dict[str, list[float]] = {"kafkactl": [], "java": []}
    for _ in range(args.rounds):
        res["kafkactl"].append(timed(kafkactl))
        res["java"].append(timed(java))
    k, j = statistics.median(res["kafkactl"]), statistics.median(res["java"])
    print(f"### topics describe --authorized-ops over {total} topics ({args.rounds} interleaved rounds, "
          f"{time.strftime('%Y-%m-%d')})\n")
    print("| program | median | runs |\n|---|---|---|")
    print(f"| kafkactl -o json | {k:.3f} s | {', '.join(f'{x:.2f}' for x in res['kafkactl'])} |")
    print(f"| Java AdminClient describeTopics | {j:.3f} s | {', '.join(f'{x:.2f}' for x in res['java'])} |")
    print(f"\nkafkactl / Java = {k / j:.2f} (target <= 1.5)")


if __name__ == "__main__":
    main()
