"""Helper for plan_engines.py: kafkactl's Spark plan on Parquet sides, then a bare full outer join of the
same data in the same session; prints JSON. The Python driver's peak RSS is measured (the JVM is separate)."""

import json
import resource
import sys
import tempfile
import time

from kafkactl.desired import spark as kspark
from kafkactl.desired.formats import read_state
from kafkactl.desired.plan import Guards
from kafkactl.desired.targets import Target
from kafkactl.profiles import Profile

d, driver_memory = sys.argv[1], sys.argv[2]
spark = kspark.session(driver_memory=driver_memory)
spark.range(1).count()  # session start is reported apart from the plan
from pyspark.sql import functions as F  # noqa: E402

BINDING = kspark.BINDING
target = Target("bench", Profile(bootstrap_servers="unused:1", context="bench", super_users=("User:admin",)))


def ours(data):
    state = read_state([f"{data}/desired.parquet"], flat_rows=False)
    current = spark.read.parquet(f"{data}/current.parquet").withColumn("cluster", F.lit("bench"))
    return kspark.spark_plan(state, [target], Guards(), current=current, out_dir=tempfile.mkdtemp())


def bare(data, tuned=False):
    """The anchor: Spark's default join strategy. tuned=True: the same join under kafkactl's join settings."""
    if tuned:
        with kspark.join_settings(spark):
            return bare(data)
    a = spark.read.parquet(f"{data}/desired.parquet").withColumn("_d", F.lit(True))
    b = spark.read.parquet(f"{data}/current.parquet").withColumn("_c", F.lit(True))
    (a.join(b, on=BINDING, how="full_outer").where(F.col("_d").isNull() | F.col("_c").isNull())
     .write.mode("overwrite").parquet(tempfile.mkdtemp() + "/bare"))


# warm both queries on the smallest data first: Spark's first query pays class loading and codegen
warm = sys.argv[3] if len(sys.argv) > 3 else d
ours(warm)
bare(warm)
bare(warm, tuned=True)
t = time.perf_counter()
plan = ours(d)
seconds = time.perf_counter() - t
changes = plan.changes
t = time.perf_counter()
bare(d)
bare_seconds = time.perf_counter() - t
t = time.perf_counter()
bare(d, tuned=True)
tuned = time.perf_counter() - t
print(json.dumps({"seconds": seconds, "bare_seconds": bare_seconds, "tuned_seconds": tuned, "changes": changes,
                  "driver_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
