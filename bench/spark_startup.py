"""A Spark plan of 10,000 bindings end to end (process start to exit) against its anchor: a bare pyspark script
that starts a session, reads the same two files (the desired state and the cluster's ACLs, exported) and joins
them. Interleaved rounds, same machine, same run; then where the seconds of each go (`--parts`).

Needs the sandbox (`kafkactl local up`): the cluster gets the current side (10,000 bindings, 1% of them not
desired) and kafkactl reads it from the broker, as an operator's plan does; the anchor reads its export.

    kafkactl local up && .venv/bin/python bench/spark_startup.py --rounds 5 --parts
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
OUT = HERE / "out" / "spark-startup"
N = 10_000

BARE = """
import sys, time
t0 = time.perf_counter()
from pyspark.sql import SparkSession
t1 = time.perf_counter()
spark = SparkSession.builder.master("local[*]").config("spark.ui.enabled", "false").getOrCreate()
t2 = time.perf_counter()
cols = ["principal", "host", "operation", "permission", "resource_type", "resource_name", "pattern_type"]
a = spark.read.parquet(sys.argv[1]).select(*cols)
b = spark.read.parquet(sys.argv[2]).select(*cols)
n = a.join(b, on=cols, how="full_outer").count()
t3 = time.perf_counter()
spark.stop()
print({"import": t1 - t0, "session": t2 - t1, "read_join": t3 - t2, "rows": n}, file=sys.stderr)
"""


PARTS = """
import sys, time
t0 = time.perf_counter()
from kafkactl.desired import spark as ks
from kafkactl.desired.formats import read_state
from kafkactl.desired.plan import Guards
from kafkactl.desired.targets import resolve_targets
from kafkactl.profiles import Selection
state = read_state([sys.argv[1]], flat_rows=False)
targets = resolve_targets(["local-admin"], [], Selection())
t1 = time.perf_counter()
early = ks._DriverRead(targets)
spark = ks.session()
t2 = time.perf_counter()
ks._desired_df(spark, state)
t3 = time.perf_counter()
current = early.frame(spark)
t4 = time.perf_counter()
ks.spark_plan(state, targets, Guards(), current=current)
t5 = time.perf_counter()
print({"imports and files": round(t1 - t0, 2), "session (driver read under way)": round(t2 - t1, 2),
       "first job (desired read, validated)": round(t3 - t2, 2), "waited for the driver read": round(t4 - t3, 2),
       "diff, statistics, Parquet write (warm)": round(t5 - t4, 2)}, file=sys.stderr)
"""


def prepare() -> tuple[Path, Path]:
    """desired.parquet (N bindings) and, on the cluster and exported, the current side: the same minus 1% plus 1%."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    OUT.mkdir(parents=True, exist_ok=True)
    desired, current = OUT / "desired.parquet", OUT / "current.parquet"

    def rows(lo: int, hi: int):
        idx = range(lo, hi)
        return {"principal": [f"User:su{i % 100}" for i in idx], "host": ["*"] * (hi - lo),
                "operation": ["READ"] * (hi - lo), "permission": ["ALLOW"] * (hi - lo),
                "resource_type": ["TOPIC"] * (hi - lo), "resource_name": [f"su.t{i}" for i in idx],
                "pattern_type": ["LITERAL"] * (hi - lo)}

    table = pa.table(rows(0, N))
    pq.write_table(table.replace_schema_metadata({"kafkactl.scope": json.dumps({"principalPrefixes": ["User:su"]})}),
                   desired)
    kafkactl = [sys.executable, "-m", "kafkactl", "--context", "local-admin"]
    state = OUT / "current.yaml"
    # the cluster holds bindings 100..N+100: 100 to create, 100 to delete
    cur = rows(N // 100, N + N // 100)
    lines = ["scope:\n  principalPrefixes: ['User:su']\nacls:\n"]
    for p, name in zip(cur["principal"], cur["resource_name"]):
        lines.append(f"  - principal: {p}\n    allow:\n      - topic: {name}\n        operations: [Read]\n")
    state.write_text("".join(lines))
    subprocess.run([*kafkactl, "acls", "apply", str(state), "--yes"], check=True, capture_output=True)
    current.unlink(missing_ok=True)
    subprocess.run([*kafkactl, "acls", "export", "--principal-prefix", "User:su", "--file", str(current)],
                   check=True, capture_output=True)
    return desired, current


def wall(cmd: list[str]) -> tuple[float, str]:
    t = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "PYSPARK_PYTHON": sys.executable})
    took = time.perf_counter() - t
    if p.returncode not in (0, 2):
        sys.exit(f"{cmd[:6]} failed ({p.returncode}): {p.stderr[-2000:]}")
    return took, p.stderr


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--parts", action="store_true", help="then one timed breakdown of kafkactl's steps")
    args = ap.parse_args()
    desired, current = prepare()
    bare = OUT / "bare.py"
    bare.write_text(BARE)
    ours_cmd = [sys.executable, "-m", "kafkactl", "--context", "local-admin", "acls", "plan", str(desired), "--spark",
                "--detailed-exitcode"]
    bare_cmd = [sys.executable, str(bare), str(desired), str(current)]
    ours, anchor, parts = [], [], []
    for _ in range(args.rounds):
        t, err = wall(ours_cmd)
        ours.append(t)
        t, err = wall(bare_cmd)
        anchor.append(t)
        parts.append(err.strip().splitlines()[-1])
    o, a = statistics.median(ours), statistics.median(anchor)
    print(f"{N:,} bindings, {args.rounds} interleaved rounds (process start to exit)")
    print(f"kafkactl acls plan --spark : median {o:.2f} s  runs {', '.join(f'{x:.2f}' for x in ours)}")
    print(f"bare pyspark read + join   : median {a:.2f} s  runs {', '.join(f'{x:.2f}' for x in anchor)}")
    print(f"ratio {o / a:.2f}x (target 1.5x)")
    print(f"bare parts (last round): {parts[-1]}")
    if args.parts:
        script = OUT / "parts.py"
        script.write_text(PARTS)
        print(f"kafkactl parts: {wall([sys.executable, str(script), str(desired)])[1].strip().splitlines()[-1]}")


if __name__ == "__main__":
    main()
