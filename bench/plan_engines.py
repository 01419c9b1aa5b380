"""Plan time and peak memory, in-process (Arrow) vs --spark local, on synthetic sides with 2% changes.

For each size N: current = N bindings, desired = the same minus 1% plus 1% new ones. No broker: the
current side comes from Parquet. Each engine runs in its own process (peak RSS is per process). Spark is
also compared with a bare full outer join of the same data written the same way, in the same session.

    .venv/bin/python bench/plan_engines.py --sizes 10000,100000,1000000,5000000 --spark-sizes 20000000
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE / "out" / "plan-data"


def generate(n: int) -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    d = DATA / str(n)
    if (d / "current.parquet").exists():
        return d
    d.mkdir(parents=True, exist_ok=True)
    scope = json.dumps({"principalPrefixes": ["User:p"]}).encode()
    step = 1_000_000
    changed = max(1, n // 100)

    def chunk(lo: int, hi: int, offset: int = 0):
        idx = range(lo + offset, hi + offset)
        return pa.table({"principal": [f"User:p{i % 1000}" for i in idx], "host": ["*"] * (hi - lo),
                         "operation": ["READ"] * (hi - lo), "permission": ["ALLOW" if i % 7 else "DENY" for i in idx],
                         "resource_type": ["TOPIC"] * (hi - lo), "resource_name": [f"t{i}" for i in idx],
                         "pattern_type": ["LITERAL"] * (hi - lo)})

    for name, ranges in (("current", [(0, n, 0)]), ("desired", [(changed, n, 0), (0, changed, n)])):
        writer = None
        for lo, hi, offset in ranges:
            for s in range(lo, hi, step):
                t = chunk(s, min(hi, s + step), offset)
                t = t.replace_schema_metadata({"kafkactl.scope": scope})
                writer = writer or pq.ParquetWriter(d / f"{name}.parquet", t.schema)
                writer.write_table(t)
        writer.close()
    return d


def run(script: str, *args: str) -> dict:
    p = subprocess.run([sys.executable, str(HERE / script), *args], capture_output=True, text=True)
    line = next((x for x in p.stdout.splitlines() if x.startswith("{")), None)
    if p.returncode != 0 or line is None:
        return {"error": (p.stderr or p.stdout)[-400:]}
    return json.loads(line)


def inprocess(d: Path, rounds: int) -> dict:
    runs = [run("_plan_inprocess.py", str(d)) for _ in range(rounds)]
    ok = [r for r in runs if "seconds" in r]
    if not ok:
        return runs[0]
    times = sorted(r["seconds"] for r in ok)
    return {"seconds": times[len(times) // 2], "runs": [round(r["seconds"], 2) for r in ok],
            "rss_mb": max(r["rss_mb"] for r in ok), "changes": ok[0]["changes"]}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="10000,100000,1000000,5000000")
    ap.add_argument("--spark-sizes", default="20000000", help="sizes measured on Spark only")
    ap.add_argument("--driver-memory", default="4g")
    ap.add_argument("--rounds", type=int, default=3, help="in-process runs per size (median time, max RSS)")
    ap.add_argument("--no-spark", action="store_true")
    args = ap.parse_args()
    sizes = [int(x) for x in args.sizes.split(",") if x]
    spark_only = [int(x) for x in args.spark_sizes.split(",") if x]
    rows = []
    warm = generate(10_000)
    for n in sizes + spark_only:
        d = generate(n)
        local = inprocess(d, args.rounds) if n in sizes else {}
        spark = {} if args.no_spark else run("_plan_spark.py", str(d), args.driver_memory, str(warm))
        rows.append((n, local, spark))
        print(n, local, spark, file=sys.stderr, flush=True)
    print(f"### acls plan engines, 2% changes ({time.strftime('%Y-%m-%d')})\n")
    print("Spark times are warm (both queries first ran once on 10,000 bindings); session start is excluded.\n")
    print(f"In-process: median of {args.rounds} runs (separate processes), peak RSS the largest of them.\n")
    print("| bindings per side | in-process s | in-process peak RSS | Spark plan s | bare Spark join s | "
          "Spark / bare | bare join, kafkactl's join settings s | Spark Python driver RSS | changes |\n"
          "|---|---|---|---|---|---|---|---|---|")
    for n, local, spark in rows:
        lt = f"{local['seconds']:.2f}" if "seconds" in local else ("-" if not local else "failed")
        lm = f"{local['rss_mb']:,.0f} MB" if "rss_mb" in local else "-"
        st = f"{spark['seconds']:.2f}" if "seconds" in spark else ("-" if not spark else "failed")
        bt = f"{spark['bare_seconds']:.2f}" if "bare_seconds" in spark else "-"
        ratio = f"{spark['seconds'] / spark['bare_seconds']:.2f}" if "bare_seconds" in spark else "-"
        tt = f"{spark['tuned_seconds']:.2f}" if "tuned_seconds" in spark else "-"
        dm = f"{spark['driver_rss_mb']:,.0f} MB" if "driver_rss_mb" in spark else "-"
        ch = local.get("changes") or spark.get("changes") or "-"
        print(f"| {n:,} | {lt} | {lm} | {st} | {bt} | {ratio} | {tt} | {dm} | {ch} |")


if __name__ == "__main__":
    main()
