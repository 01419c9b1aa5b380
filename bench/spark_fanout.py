"""One policy applied to 3 clusters: one `acls apply` on a Spark standalone cluster (2 workers) against three
sequential in-process applies and one Spark local[*] apply, interleaved, per size; the crossover (clusters x
bindings) where Spark wins, if any within the sizes given.

Starts what it needs under bench/out/fanout (its own XDG directories): 3 single-node sandboxes and
`kafkactl local spark up --workers 2`; stops them at the end.

    .venv/bin/python bench/spark_fanout.py --sizes 2000,20000 --rounds 2
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "out" / "fanout"
CLUSTERS = ("fan-1", "fan-2", "fan-3")


def kafkactl(*args: str, env: dict[str, str], check: bool = True) -> subprocess.CompletedProcess:
    p = subprocess.run([sys.executable, "-m", "kafkactl", *args], capture_output=True, text=True,
                       env={**os.environ, **env})
    if check and p.returncode != 0:
        sys.exit(f"kafkactl {' '.join(args[:4])} failed ({p.returncode}): {p.stderr[-2000:]}")
    return p


def policy(path: Path, n: int, prefix: str) -> Path:
    lines = [f"scope:\n  principalPrefixes: ['User:{prefix}-']\nacls:\n"]
    for i in range(n):
        lines.append(f"  - principal: User:{prefix}-app{i % 100}\n    allow:\n"
                     f"      - topic: {prefix}.t{i}\n        operations: [Read]\n")
    path.write_text("".join(lines))
    return path


def empty(path: Path, prefix: str) -> Path:
    path.write_text(f"scope:\n  principalPrefixes: ['User:{prefix}-']\nacls: []\n")
    return path


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="2000,20000")
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    main_env = {"XDG_STATE_HOME": str(OUT / "state"), "XDG_CONFIG_HOME": str(OUT / "config")}
    sandboxes = []
    try:
        for name in CLUSTERS:
            env = {"XDG_STATE_HOME": str(OUT / name / "state"), "XDG_CONFIG_HOME": str(OUT / name / "config")}
            status = json.loads(kafkactl("local", "up", "-o", "json", env=env).stdout)
            sandboxes.append(env)
            kafkactl("context", "add", name, "-b", status["bootstrap_servers"], "--command-config",
                     str(Path(status["state_dir"]) / "client-admin.properties"), "--super-user", "User:admin",
                     env=main_env)
        master = json.loads(kafkactl("local", "spark", "up", "--workers", "2", "-o", "json", env=main_env).stdout)
        url = master["master_url"]
        where = [a for c in CLUSTERS for a in ("--context", c)]
        rows = []
        for n in [int(s) for s in args.sizes.split(",")]:
            results: dict[str, list[float]] = {"standalone": [], "sequential in-process": [], "spark local": []}
            for r in range(args.rounds):
                prefix = f"fo{n}r{r}"
                want, none = policy(OUT / f"{prefix}.yaml", n, prefix), empty(OUT / f"{prefix}-empty.yaml", prefix)
                for engine in results:
                    t = time.perf_counter()
                    if engine == "standalone":
                        kafkactl("acls", "apply", str(want), *where, "--spark-master", url, "--yes", env=main_env)
                    elif engine == "spark local":
                        kafkactl("acls", "apply", str(want), *where, "--spark", "--yes", env=main_env)
                    else:
                        for c in CLUSTERS:
                            kafkactl("acls", "apply", str(want), "--context", c, "--yes", env=main_env)
                    results[engine].append(time.perf_counter() - t)
                    for c in CLUSTERS:  # back to empty, in-process, untimed
                        kafkactl("acls", "apply", str(none), "--context", c, "--yes", env=main_env)
            med = {k: statistics.median(v) for k, v in results.items()}
            rows.append((n, med))
            print(f"3 clusters x {n:,} bindings: " + ", ".join(f"{k} {v:.1f} s" for k, v in med.items()) +
                  f"; standalone / sequential = {med['standalone'] / med['sequential in-process']:.2f}", flush=True)
        wins = [n for n, med in rows if med["standalone"] < med["sequential in-process"]]
        print("crossover: " + (f"Spark wins from 3 x {min(wins):,}" if wins else
                               f"none up to 3 x {rows[-1][0]:,} (in-process wins every size measured)"))
    finally:
        kafkactl("local", "spark", "down", "--purge", env=main_env, check=False)
        for env in sandboxes:
            kafkactl("local", "down", "--purge", env=env, check=False)


if __name__ == "__main__":
    main()
