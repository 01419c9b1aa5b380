"""The --spark engine's apply: each phase a Spark job whose partitions send batches and return one result per
binding, then the barrier: every live broker's ACLs read on executors (one task per shard and broker) until each
lists the phase's outcome. Planning, sessions and the shared schemas: spark.py."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kafkactl.desired.delivery import ExecutorClients, deliver
from kafkactl.desired.formats.flat import flat_row
from kafkactl.desired.plan import PHASES, Plan, shard_filters
from kafkactl.desired.spark import BINDING, PLAN_ROW_SCHEMA, RESULT_SCHEMA, SparkWatch, session, shard_tasks, tracking
from kafkactl.desired.state import FLAT_FIELDS

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from kafkactl.acl.visibility import Confirmation
    from kafkactl.desired.apply import ApplyResult
    from kafkactl.desired.delivery import Delivery
    from kafkactl.desired.report import Report
    from kafkactl.gateway import Gateway

# a result row: cluster, phase, action, the binding's fields, status, error
ResultRow = tuple[str | int | None, ...]


def spark_apply(plan: Plan, gateways: dict[str, Gateway], progress: Callable[[int], None] | None = None,
                report: Report | None = None, master: str | None = None, remote: str | None = None,
                watch: SparkWatch | None = None, debug: bool = False) -> ApplyResult:
    """Each phase is a Spark job; the next starts only when every binding of this one is confirmed. The rows are
    the plan's Parquet (a plan made on Spark) or its rows in memory (a saved plan, read and checked on the driver)."""
    from kafkactl.desired.apply import ApplyResult

    spark = session(master, remote, debug=debug)
    if plan.location is not None:
        rows = spark.read.parquet(str(Path(plan.location) / "rows"))
        results_dir = Path(plan.location) / "results"
    else:
        rows = spark.createDataFrame([(r.cluster, r.phase, r.action, *[flat_row(r.binding)[c] for c in BINDING])
                                      for r in plan.rows()], PLAN_ROW_SCHEMA)
        from kafkactl.privatefile import private_tempdir

        results_dir = private_tempdir("kafkactl-apply-")
    result = ApplyResult()
    where = {c: deliver(gw.profile) for c, gw in gateways.items()}
    started: list[tuple[str, int]] = []  # the phases begun, the last one in flight
    reported: set[tuple[str, int]] = set()  # the phases whose results are in the report
    try:
        _phases(spark, plan, gateways, rows, results_dir, result, where, started, reported, progress, report, watch)
    except BaseException as exc:  # an error, Ctrl-C, SIGTERM part way: the report gets a line for every binding
        from kafkactl.desired.apply import interrupted
        from kafkactl.desired.spark import interrupted as spark_interrupted

        _record_stop(plan, started, reported, report, result)
        if isinstance(exc, KeyboardInterrupt) or spark_interrupted():  # (py4j makes it an error of its own)
            raise interrupted(result, plan.changes) from None
        raise
    return result


def _phases(spark: SparkSession, plan: Plan, gateways: dict[str, Gateway], rows: DataFrame, results_dir: Path,
            result: ApplyResult, where: dict[str, Delivery], started: list[tuple[str, int]],
            reported: set[tuple[str, int]], progress: Callable[[int], None] | None, report: Report | None,
            watch: SparkWatch | None) -> None:
    from pyspark.sql import functions as F

    from kafkactl.desired.apply import ApplyRow, phase_failure, unconfirmed

    for cp in plan.clusters:
        for phase, (action, _) in PHASES.items():
            part = rows.where((F.col("cluster") == cp.cluster) & (F.col("phase") == phase))
            n = cp.counts()[phase]
            if not n:
                continue

            def apply_batches(batches: Iterable[Any], a: str = action) -> Iterator[Any]:
                return _apply_arrow(batches, a, where)

            res = part.repartition(max(1, min(8, n // 2000 + 1))).mapInArrow(apply_batches, RESULT_SCHEMA)
            target = results_dir / f"cluster={cp.cluster}" / f"phase={phase}"
            started.append((cp.cluster, phase))
            with tracking(spark, watch):
                res.write.mode("overwrite").parquet(str(target))
            if report is not None:
                _stream_report(target, report)
                reported.add((cp.cluster, phase))
            done = spark.read.parquet(str(target))
            changed_before = result.changed
            for r in done.groupBy("status").agg(F.count("*").alias("n")).collect():
                result.summary.append(ApplyRow(cp.cluster, phase, action, r["status"], r["n"]))
            if progress:
                progress(n)
            failed = done.where("status = 'failed'")
            first = failed.limit(20).collect()
            if first:
                result.failures += [r.asDict() for r in first]
                errors = [r["error"] for r in failed.select("error").distinct().limit(100).collect()]
                causes = {(_error_code(e), (e or "").rsplit(" (", 1)[0]) for e in errors}
                raise phase_failure(gateways[cp.cluster], result, cp.cluster, phase, failed.count(), n,
                                    changed_before, causes)
            seen = _confirmed(spark, gateways[cp.cluster], {cp.cluster: where[cp.cluster]}, done, action)
            if not seen:
                raise unconfirmed(result, cp.cluster, phase, " within 60 s", seen)
            result.confirmed(cp.cluster, phase, seen)


def _record_stop(plan: Plan, started: list[tuple[str, int]], reported: set[tuple[str, int]], report: Report | None,
                 result: ApplyResult) -> None:
    """The bindings a stopped apply did not report: of the phase whose Spark job was running, `unknown` (its
    executors may have sent them); of the phases after it, `skipped` (never sent). A line each into the report,
    counted into the result's summary."""
    from collections import Counter

    from kafkactl.desired.apply import ApplyRow, acl_outcome

    order = [(c.cluster, p) for c in plan.clusters for p in PHASES]
    at = order.index(started[-1]) if started else -1
    out = []
    counts: Counter[tuple[str, int, str, str]] = Counter()
    for r in plan.rows():
        key = (r.cluster, r.phase)
        if key in reported or order.index(key) < at:
            continue
        status, why = (("unknown", "the apply stopped while its Spark job was sending this phase")
                       if order.index(key) == at else ("skipped", "the apply stopped before it was sent"))
        counts[(r.cluster, r.phase, r.action, status)] += 1
        out.append(acl_outcome(r.cluster, r.phase, r.action, flat_row(r.binding), status, why))
    result.summary += [ApplyRow(*k, n) for k, n in sorted(counts.items())]
    if report is not None:
        report.write(out)


def _error_code(error: str | None) -> int | None:
    """The Kafka error code of an executor's "message (NAME)" error text, when NAME is Kafka's."""
    from kafkactl.gateway import protocol_code

    return protocol_code((error or "").rsplit("(", 1)[-1].rstrip(")"))


def _stream_report(results: Path, report: Report) -> None:
    """One JSON line per binding, read back batch by batch (bounded memory on the driver)."""
    import pyarrow.dataset as ds

    from kafkactl.desired.apply import acl_outcome

    for batch in ds.dataset(str(results), format="parquet").to_batches():
        report.write([acl_outcome(rec["cluster"], int(rec["phase"]), rec["action"], {c: rec[c] for c in BINDING},
                                  rec["status"], rec.get("error")) for rec in batch.to_pylist()])


def _apply_arrow(batches: Iterable[Any], action: str, where: dict[str, Delivery]) -> Iterator[Any]:
    """(pyarrow's record batches: pyarrow has no type information)"""
    import pyarrow as pa

    names = ["cluster", "phase", "action", *BINDING, "status", "error"]
    types = [pa.string(), pa.int32(), pa.string(), *[pa.string()] * len(BINDING), pa.string(), pa.string()]
    rows = (r for batch in batches for r in batch.to_pylist())
    out = list(_apply_partition(rows, action, where))
    yield pa.RecordBatch.from_pydict({n: [r[i] for r in out] for i, n in enumerate(names)},
                                     schema=pa.schema(list(zip(names, types))))


def _apply_partition(rows: Iterator[Any], action: str, where: dict[str, Delivery]) -> Iterator[ResultRow]:
    """Runs on executors: batches of creates (2,000) or concrete deletes (200) per cluster."""
    from kafkactl.acl.model import AclBinding
    from kafkactl.desired.apply import CREATE_CHUNK, DELETE_BATCH
    from kafkactl.desired.state import flat_binding

    batch: list[tuple[str, int, AclBinding]] = []
    clients = ExecutorClients(where)

    def flush() -> Iterator[ResultRow]:
        by_cluster: dict[str, list[tuple[str, int, AclBinding]]] = {}
        for item in batch:
            by_cluster.setdefault(item[0], []).append(item)
        for cluster, items in by_cluster.items():
            gw = clients[cluster]
            bindings = [b for _, _, b in items]
            if action == "CREATE":
                outcomes = [("failed", f"{e.message} ({e.name})") if e else ("created", None)
                            for e in gw.create_acls(bindings)]
            else:
                outcomes = [("failed", f"{e.message} ({e.name})") if e else (("deleted" if m else "gone"), None)
                            for m, e in gw.delete_acls([b.to_filter() for b in bindings])]
            for (c, phase, b), (status, error) in zip(items, outcomes):
                yield (c, phase, action, *[flat_row(b)[k] for k in BINDING], status, error)

    size = CREATE_CHUNK if action == "CREATE" else DELETE_BATCH
    try:
        for r in rows:
            d = r if isinstance(r, dict) else r.asDict()
            batch.append((d["cluster"], int(d["phase"]), flat_binding("plan", {k: d[k] for k in FLAT_FIELDS})))
            if len(batch) >= size:
                yield from flush()
                batch = []
        if batch:
            yield from flush()
    finally:
        clients.close()


def _confirmed(spark: SparkSession, gw: Gateway, where: dict[str, Delivery], done: DataFrame, action: str,
               timeout: float = 60.0) -> Confirmation:
    """Re-read the cluster's ACLs from every live broker (sharded, on Spark) until each shows the phase's outcome:
    each broker authorizes by its own copy of the metadata (see acl/visibility.py). A Confirmation, as the
    in-process engine's barrier gives."""
    import time

    from pyspark.sql import functions as F

    from kafkactl.acl.visibility import Confirmation

    started = time.monotonic()
    ok = done.where(F.col("status").isin("created", "deleted", "gone")).select(*BINDING)
    confirmed: dict[int, float] = {}
    trouble: dict[int, str] = {}
    while True:
        brokers = {n.id: f"broker {n.id} at {n.host}:{n.port}" for n in gw.live_brokers()}
        pending = sorted(set(brokers) - set(confirmed))
        current = _current_by_broker_df(spark, where, pending)
        errors = {r["broker"]: r["error"] for r in current.where(F.col("error").isNotNull()).collect()}
        current = current.where(F.col("error").isNull()).select("broker", *BINDING)
        if action == "CREATE":
            expected = ok.crossJoin(spark.createDataFrame([(b,) for b in pending], "broker int"))
            behind = expected.join(current, on=["broker", *BINDING], how="left_anti")
        else:
            behind = current.join(ok, on=BINDING, how="left_semi")
        lagging = {r["broker"] for r in behind.select("broker").distinct().collect()} | set(errors)
        for b in pending:
            if b not in lagging:
                confirmed[b] = time.monotonic() - started
                trouble.pop(b, None)
        trouble.update(errors)
        pending = sorted(set(brokers) - set(confirmed))
        if not pending:
            ids = [b for b in confirmed if b in brokers]
            slowest = max(ids, key=lambda b: confirmed[b])
            return Confirmation(True, len(ids), (slowest, confirmed[slowest]))
        if time.monotonic() - started >= timeout:
            return Confirmation(False, len(set(confirmed) & set(brokers)), None, tuple(brokers[b] for b in pending),
                                "; ".join(trouble[b] for b in pending if b in trouble))
        time.sleep(0.5)


BY_BROKER_SCHEMA = "broker int, " + ", ".join(f"{c} string" for c in BINDING) + ", error string"


def _current_by_broker_df(spark: SparkSession, where: dict[str, Delivery], brokers: list[int]) -> DataFrame:
    """Every shard from each of `brokers` (one task per shard and broker); a broker that cannot be asked gives
    one row with its error instead of its ACLs."""
    (cluster,) = where
    specs = [(b, int(f.resource_type), int(f.pattern_type), int(f.permission))
             for b in brokers for f in shard_filters()]
    df = (spark.createDataFrame(specs, "broker int, rt int, pt int, perm int")
          .repartition(shard_tasks(spark, len(specs))))
    return df.mapInArrow(lambda batches: _read_broker_shards_arrow(batches, where, cluster), BY_BROKER_SCHEMA)


def _read_broker_shards_arrow(batches: Iterable[Any], where: dict[str, Delivery], cluster: str) -> Iterator[Any]:
    import pyarrow as pa

    from kafkactl.acl.model import AclFilter, PatternType, Permission, ResourceType
    from kafkactl.errors import UnreachableError

    names = ["broker", *BINDING, "error"]
    schema = pa.schema([("broker", pa.int32()), *[(c, pa.string()) for c in BINDING], ("error", pa.string())])
    clients = ExecutorClients(where)
    try:
        for batch in batches:
            rows: list[tuple[int | str | None, ...]] = []
            for spec in batch.to_pylist():
                gw = clients[cluster]
                shard = AclFilter(ResourceType(spec["rt"]), None, PatternType(spec["pt"]), None, None,
                                  permission=Permission(spec["perm"]))
                try:
                    found = gw.describe_acls(shard, bulk=True, node=spec["broker"])
                except UnreachableError as exc:
                    rows.append((spec["broker"], *[None] * len(BINDING), exc.message))
                    continue
                rows += [(spec["broker"], *[flat_row(b)[c] for c in BINDING], None) for b in found]
            yield pa.RecordBatch.from_pydict({n: [r[i] for r in rows] for i, n in enumerate(names)}, schema=schema)
    finally:
        clients.close()