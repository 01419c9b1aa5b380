"""Helper for plan_engines.py: kafkactl's in-process (Arrow) diff on Parquet sides; prints JSON."""

import json
import resource
import sys
import time

import pyarrow.parquet as pq

from kafkactl.desired.arrow_diff import diff_tables, read_flat
from kafkactl.desired.formats import read_state
from kafkactl.desired.plan import Guards

d = sys.argv[1]
t = time.perf_counter()
state = read_state([f"{d}/desired.parquet"], flat_rows=False)
desired = read_flat(f"{d}/desired.parquet", state.scope)
current = pq.ParquetFile(f"{d}/current.parquet").read()  # stands in for the broker read (no pandas import)
plan = diff_tables("bench", desired, current, state.scope, Guards(), ["User:admin"])
seconds = time.perf_counter() - t
print(json.dumps({"seconds": seconds, "changes": len(plan.rows),
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
