"""Completion latency: what a TAB costs, measured as bash's script runs it (a kafkactl process per TAB).

Interleaved rounds of: the floor (`python -c pass`, the same interpreter), a static completion (a subcommand),
and a dynamic one (topic names from the sandbox, warm cache). Median wall time of each.

    kafkactl local up && .venv/bin/python bench/completion_latency.py --rounds 21
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench._common import wall  # noqa: E402

BIN = Path(sys.executable).parent


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, str]:
    return wall(cmd, env, capture=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=21)
    args = ap.parse_args()
    cache = tempfile.mkdtemp(prefix="kafkactl-bench-cache-")
    base = {**os.environ, "XDG_CACHE_HOME": cache, "_KAFKACTL_COMPLETE": "bash_complete"}
    kafkactl = [str(BIN / "kafkactl")]
    static = {**base, "KAFKACTL_COMP_LINE": "kafkactl acls cr", "KAFKACTL_COMP_WORD": "cr"}
    dynamic = {**base, "KAFKACTL_COMP_LINE": "kafkactl topics describe bench-compl-",
               "KAFKACTL_COMP_WORD": "bench-compl-"}
    subprocess.run([*kafkactl, "topics", "create", "bench-compl-topic", "--partitions", "1"], capture_output=True)
    _, out = timed(kafkactl, dynamic)  # fills the cache
    assert "bench-compl-topic" in out, "start the sandbox first: kafkactl local up"
    cases = {"floor: python -c pass": ([sys.executable, "-c", "pass"], dict(os.environ)),
             "static: kafkactl acls cr<TAB>": (kafkactl, static),
             "dynamic, warm cache: kafkactl topics describe bench-compl-<TAB>": (kafkactl, dynamic)}
    times: dict[str, list[float]] = {k: [] for k in cases}
    for _ in range(args.rounds):
        for name, (cmd, env) in cases.items():
            s, out = timed(cmd, env)
            times[name].append(s)
    floor = statistics.median(times["floor: python -c pass"])
    print(f"### Completion latency ({time.strftime('%Y-%m-%d')}, {args.rounds} interleaved rounds)\n")
    print("| call | median | minus the floor | runs (min-max) |\n|---|---|---|---|")
    for name, ts in times.items():
        m = statistics.median(ts)
        print(f"| {name} | {m * 1000:.0f} ms | {(m - floor) * 1000:.0f} ms | "
              f"{min(ts) * 1000:.0f}-{max(ts) * 1000:.0f} ms |")


if __name__ == "__main__":
    main()
