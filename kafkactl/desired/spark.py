"""The --spark engine: the same pipeline as the in-process one, every stage on Spark.

Desired (files read by Spark) -> current (local: read by the driver while the JVM starts; on a cluster: as
many tasks as executor cores, each reading its shards with one client) ->
scope -> full outer join on (cluster, key, binding) -> plan rows written as Parquet partitioned by
cluster and phase. Only counts, fingerprints and the first invalid row ever reach the driver.
Apply (each phase a Spark job, then every broker confirms it): spark_apply.py.

Executors connect with what the driver resolved, delivered inside the job's tasks (bulk/delivery.py): a
worker needs no contexts file, key store or certificate of its own.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kafkactl.acl.model import (
    CLUSTER_NAME,
    SUPPORTED_OPERATIONS,
    AclOperation,
    ResourceType,
    refused_class,
    shown,
    validate_text,
)
from kafkactl.desired.formats.flat import checked_rows, flat_row
from kafkactl.desired.plan import KEY_SEP, PHASES, SEED, ClusterPlan, Guards, Plan, shard_filters
from kafkactl.desired.prerequisites import url_shown
from kafkactl.desired.state import DesiredState, Scope, StateFileError
from kafkactl.errors import KafkactlError, UsageError
from kafkactl.privatefile import private_tempdir, write_private

if TYPE_CHECKING:  # (pyspark is imported when Spark is used, never by `kafkactl --help`)
    from pyspark.sql import Column, DataFrame, Row, SparkSession

    from kafkactl.desired.delivery import Delivery
    from kafkactl.desired.targets import Target

_sessions: dict[tuple[str | None, str | None], SparkSession] = {}  # by (master, remote)
BINDING = ["principal", "host", "operation", "permission", "resource_type", "resource_name", "pattern_type"]
TEXT_FIELDS = ("principal", "host", "resource_name")
REFUSED_JAVA = refused_class(surrogates=False)  # java.util.regex reads \uXXXX as Python does


def _probe(url: str, timeout: float = 10.0) -> None:
    """A Spark master or Spark Connect server that cannot be reached: exit 4 at once, not a hang (Spark Connect
    retries for minutes) or a Py4J traceback. Only the first host:port of a URL is tried."""
    import socket
    from urllib.parse import urlsplit

    from kafkactl.errors import UnreachableError

    try:
        parts = urlsplit(url.split(",")[0])
        host, port = parts.hostname, parts.port or (15002 if parts.scheme == "sc" else 7077)
    except ValueError:
        raise UsageError(f"{url_shown(url)}: not a Spark URL (spark://host:port or sc://host:port)") from None
    if not host:
        raise UsageError(f"{url_shown(url)}: not a Spark URL (spark://host:port or sc://host:port)")
    try:
        socket.create_connection((host, port), timeout=timeout).close()
    except OSError as exc:
        raise UnreachableError(f"cannot reach the Spark {'Connect server' if parts.scheme == 'sc' else 'master'} "
                               f"at {host}:{port} ({exc.strerror or type(exc).__name__})") from None


# what the JVM and Spark print on every start, whatever the log configuration: only --debug shows them
_JVM_NOISE = re.compile(r"WARNING: Using incubator modules|Setting default log level to|To adjust logging level use "
                        r"sc\.setLogLevel|WARNING: .*(sun\.misc\.Unsafe|restricted method|--enable-native-access)")


@contextlib.contextmanager
def _jvm_stderr(debug: bool) -> Iterator[None]:
    """The driver JVM inherits this process's stderr when it starts: give it a pipe instead, read by a thread that
    passes on Spark's own messages (log4j's `spark: ` lines) and drops the start-up noise unless --debug, and
    everything after a Ctrl-C (the aborted jobs' stack traces) unless --debug.

    The thread writes to its own copy of the real stderr and runs from the start: a JVM that writes more than a
    pipe holds while it starts (a long failure) is read as it writes, never left blocked with pyspark waiting."""
    read, write = os.pipe()
    saved, mine = os.dup(2), os.dup(2)

    def forward() -> None:
        with os.fdopen(read, "rb", buffering=0) as pipe, os.fdopen(mine, "wb", buffering=0) as err:
            for line in iter(pipe.readline, b""):
                if debug or not (_interrupted.is_set() or _JVM_NOISE.match(line.decode("utf-8", "replace"))):
                    with contextlib.suppress(OSError):
                        err.write(line)

    threading.Thread(target=forward, name="kafkactl-spark-stderr", daemon=True).start()
    os.dup2(write, 2)
    os.close(write)
    try:
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def session(master: str | None = None, remote: str | None = None, driver_memory: str = "2g",
            debug: bool = False) -> SparkSession:
    """One SparkSession per process and target: local[*] unless a master or a Spark Connect URL is given."""
    key = (master, remote)
    if key in _sessions:
        return _sessions[key]
    if (None, None) == key and _sessions:
        return next(iter(_sessions.values()))  # apply reuses the session its plan ran on
    for url in (remote, master):
        if url and url.split("://")[0] in ("sc", "spark"):  # (local[*], yarn, k8s://... are Spark's to check)
            _probe(url)
    if not remote:  # (Spark Connect's client needs no JVM here)
        from kafkactl.desired.prerequisites import spark_missing

        missing = spark_missing()
        if missing:
            raise KafkactlError(f"--spark: {missing}")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # workers must have pyarrow, xxhash, kafkactl
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    if not debug:
        quiet_spark_logs()
    from pyspark.sql import SparkSession

    # this process's own (0600 in a 0700 directory, removed at exit): one shared name could be planted or raced
    log_conf = private_tempdir("kafkactl-spark-") / "log4j2.properties"
    from kafkactl.desired.delivery import remove_task_dirs
    from kafkactl.privatefile import remove_also

    remove_also(lambda: remove_task_dirs(os.getpid()))  # local[*]: tasks a Ctrl-C cancelled left theirs
    # Spark's ERROR lines are the failed tasks' stack traces (the task's kafkactl error is raised on the driver as
    # one line): shown with --debug
    level = "error" if debug else "fatal"
    write_private(log_conf, f"rootLogger.level = {level}\nrootLogger.appenderRef.stderr.ref = console\n"
                        "appender.console.type = Console\nappender.console.name = console\n"
                        "appender.console.target = SYSTEM_ERR\nappender.console.layout.type = PatternLayout\n"
                        "appender.console.layout.pattern = spark: %p %m%n\n"
                        # PySpark counts as a REPL: Spark prints "Setting default log level" unless this matches
                        "logger.repl.name = org.apache.spark.repl.Main\nlogger.repl.level = error\n")
    # the driver JVM starts with these; builder configs come too late for its logging set-up. Java ignores TMPDIR
    # (its scratch and Spark's local directories go to /tmp): give it the directory Python uses
    import shlex
    import tempfile

    java = f"-Dlog4j2.configurationFile={log_conf} -Djava.io.tmpdir={tempfile.gettempdir()}"
    os.environ.setdefault("PYSPARK_SUBMIT_ARGS", f"--driver-java-options {shlex.quote(java)} pyspark-shell")
    builder = SparkSession.builder.appName("kafkactl")
    if remote:
        builder = builder.remote(remote)
    else:
        os.environ.pop("SPARK_REMOTE", None)  # an explicit master wins over the environment
        cores = os.cpu_count() or 2
        builder = (builder.master(master or "local[*]")
                   .config("spark.driver.memory", driver_memory)
                   .config("spark.ui.showConsoleProgress", "false")
                   .config("spark.sql.shuffle.partitions", str(4 * cores))
                   .config("spark.speculation", "false"))
        if not master or master.startswith("local"):  # a cluster's operators expect its UI; one command does not
            builder = builder.config("spark.ui.enabled", "false")
    with _our_interrupt_handler():
        if remote:
            spark = builder.getOrCreate()
        else:
            with _jvm_stderr(debug):
                spark = builder.getOrCreate()
    # a speculative duplicate task would send the same batch twice; creates are idempotent, but say it
    if (spark.conf.get("spark.speculation", "false") or "").lower() == "true":
        raise UsageError("spark.speculation must be false for kafkactl apply")
    if not remote:
        spark.sparkContext.setLogLevel("ERROR" if debug else "FATAL")
    _sessions[key] = spark
    return spark


_interrupted = threading.Event()
_launched: list[Any] = []  # the driver JVMs this process started


@contextlib.contextmanager
def _our_interrupt_handler() -> Iterator[None]:
    """Ctrl-C is kafkactl's from the start of the session: pyspark installs its handler while the SparkContext is
    made, so that handler is swapped for ours as it is set, with no moment where it is in place."""
    import signal

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    real = signal.signal

    def keep_ours(signum: int, handler: Any) -> Any:
        if signum == signal.SIGINT and callable(handler):
            handler = _on_interrupt
        return real(signum, handler)

    real(signal.SIGINT, _on_interrupt)
    signal.signal = keep_ours  # type: ignore[assignment]
    import pyspark.java_gateway as jg

    popen = jg.Popen

    def recorded(*args: Any, **kwargs: Any) -> Any:  # the driver JVM, known from its start (see stop_sessions)
        proc = popen(*args, **kwargs)
        _launched.append(proc)
        return proc

    jg.Popen = recorded  # type: ignore[misc,assignment]
    try:
        yield
    finally:
        signal.signal = real
        jg.Popen = popen  # type: ignore[misc]


def interrupted() -> bool:
    """Whether Ctrl-C came while Spark worked: py4j turns the KeyboardInterrupt into its own errors."""
    return _interrupted.is_set()


def note_interrupt() -> None:
    """Another signal (SIGTERM, SIGHUP) is ending the command as Ctrl-C does: py4j errors that follow are its."""
    _interrupted.set()


def _on_interrupt(signum: int, frame: Any) -> None:  # noqa: ARG001 (a signal handler's signature)
    """Instead of pyspark's handler, which cancels the jobs through py4j from inside the py4j read the signal cut
    (a reentrant call: a traceback per call), and whose JVM then logs every aborted task: note it, stop the JVM's
    messages (the JVM, in this process group, got the signal too and is ending), raise as Python does."""
    _interrupted.set()
    raise KeyboardInterrupt


def quiet_spark_logs() -> None:
    """py4j logs a traceback for every call an interrupt (Ctrl-C) cut short: through its own loggers (py4j.*), and
    through the root logger's module-level functions, whose first call installs a stderr handler on the root logger
    when it has none, which every other logger then reaches. A filter on the root logger sees only the records
    logged on it, not those propagated from py4j.*: so those loggers keep theirs, and the root logger has a handler
    that drops Spark's records, so that no implicit one is installed."""
    import logging

    for name in ("py4j", "pyspark"):
        lg = logging.getLogger(name)
        if not any(isinstance(h, logging.NullHandler) for h in lg.handlers):
            lg.addHandler(logging.NullHandler())
        lg.propagate = False
    root = logging.getLogger()
    if _not_from_spark not in root.filters:
        root.addFilter(_not_from_spark)
    if not root.handlers:
        root.addHandler(logging.NullHandler())


def _not_from_spark(record: Any) -> bool:
    return "py4j" not in record.pathname and "pyspark" not in record.pathname


def stop_sessions(timeout: float = 30.0) -> None:
    """Stop this process's Spark sessions and wait for the driver JVM to end, so that it ends with the command
    and has removed its own temporary directories (blockmgr-*, spark-*) before the command exits: left to
    itself, it notices its parent gone (stdin closed) a second later."""
    import contextlib as _c

    for spark in list(_sessions.values()):
        with _c.suppress(Exception):
            spark.stop()
    _sessions.clear()
    try:
        from pyspark import SparkContext
    except ImportError:
        return
    gateway = SparkContext._gateway
    proc = getattr(gateway, "proc", None)
    if gateway is None or proc is None:
        for started in _launched:  # interrupted while it started: pyspark never got to know its JVM
            with _c.suppress(Exception):
                started.kill()
                started.wait(timeout)
        return
    with _c.suppress(Exception):
        gateway.shutdown()
    with _c.suppress(Exception):
        proc.stdin.close()  # the JVM's PythonGatewayServer exits when its stdin closes
    try:
        proc.wait(timeout)
    except Exception:
        proc.kill()
    SparkContext._gateway = None
    SparkContext._jvm = None


@contextlib.contextmanager
def executor_errors() -> Iterator[None]:
    """A kafkactl error raised in a Spark task (an executor's read or write: a wrong password, a missing ACL, an
    unreachable broker) reaches the driver as Spark's PythonException holding the task's traceback: raise it as
    the kafkactl error it was, with its own message and exit code, not as "unexpected" (exit 1)."""
    try:
        yield
    except KafkactlError:
        raise
    except Exception as exc:
        found = _KAFKACTL_ERROR.findall(str(exc))
        if not found:
            raise
        import kafkactl.errors as errors

        name, message = found[-1]
        cls = getattr(errors, name, None)
        if not (isinstance(cls, type) and issubclass(cls, KafkactlError)):
            raise
        raise cls(message.strip()) from None


_KAFKACTL_ERROR = re.compile(r"kafkactl\.errors\.([A-Za-z]+Error): ([^\n]*)")


SparkWatch = Callable[[str, int, int], None]  # (what runs, tasks done, tasks in all)


@contextlib.contextmanager
def tracking(spark: SparkSession, watch: SparkWatch | None, every: float = 0.25) -> Iterator[None]:
    """While the block runs, Spark's status tracker is read every `every` s and `watch` told the active stages'
    tasks done of their total (Spark Connect has no tracker on the client: nothing is reported there)."""
    import threading

    sc = None if watch is None or _is_connect(spark) else getattr(spark, "sparkContext", None)
    if sc is None or watch is None:  # (the second test is for mypy: watch is known to be set when sc is)
        yield
        return
    report = watch
    tracker = sc.statusTracker()
    stop = threading.Event()

    def poll() -> None:
        # every stage of the jobs seen running since the block began, finished ones included (Spark keeps their
        # counts): counting only the active stages showed 0 done of each stage's tasks, stage after stage
        seen: set[int] = set()
        jobs: set[int] = set()
        while not stop.wait(every):
            try:
                running = list(tracker.getActiveJobsIds())
                active = set(tracker.getActiveStageIds())
                jobs.update(running)
                seen.update(int(s) for j in running for s in (getattr(tracker.getJobInfo(j), "stageIds", None) or ()))
                # started ones: a stage Spark skipped (its shuffle output reused) never starts nor completes
                stages = [i for i in (tracker.getStageInfo(s) for s in sorted(seen))
                          if i and (i.stageId in active or i.numCompletedTasks or i.numActiveTasks)]
            except Exception:  # the session is stopping: nothing left to report
                return
            if stages and running:
                first, last = min(jobs), max(jobs)
                report(f"Spark job{'s' if last > first else ''} {first}{f'-{last}' if last > first else ''}",
                       sum(i.numCompletedTasks for i in stages), sum(i.numTasks for i in stages))

    thread = threading.Thread(target=poll, name="kafkactl-spark-progress", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(2)


def _is_connect(spark: SparkSession) -> bool:
    return type(spark).__module__.startswith("pyspark.sql.connect")


# --------------------------------------------------------------------------------------------- plan


def spark_plan(state: DesiredState, targets: Sequence[Target], guards: Guards, master: str | None = None,
               remote: str | None = None, out_dir: str | None = None, current: DataFrame | None = None,
               watch: SparkWatch | None = None, debug: bool = False, preread: dict[str, Any] | None = None) -> Plan:
    """`current` (a DataFrame of cluster + binding columns) replaces reading the brokers: for benchmarks."""
    from pyspark.sql import functions as F

    from kafkactl.desired.delivery import deliver

    where = {t.name: deliver(t.profile) for t in targets}
    # on this machine the driver reads the current ACLs itself, while the JVM starts: executors would start Python
    # workers and log in for the same reads, after the session (3 s of a 10,000-binding plan's 16 s)
    early = _DriverRead(targets, debug) if current is None and _on_this_machine(master, remote) else None
    spark = session(master, remote, debug=debug)
    from pyspark.sql import Observation

    desired = _desired_df(spark, state, preread)  # a bad file fails here, before any read's error
    names = [t.name for t in targets]
    supers = {t.name: list(t.profile.super_users) for t in targets}
    if current is None:  # read once, by the join below
        current = early.frame(spark) if early is not None else _current_df(spark, where)
    scope_ok = _in_scope(state.scope)
    protected = _protected(guards, supers)
    # one copy of the desired rows per target; a literal for one target (a cross join costs a third of the plan)
    cluster = F.lit(names[0]) if len(names) == 1 else F.explode(F.array(*[F.lit(n) for n in names]))

    # one aggregate per target: the statistics ride along the join's one pass
    def per_cluster(cond: Column, alias: str) -> list[Column]:
        return [F.sum(F.when((F.col("cluster") == n) & cond, 1).otherwise(0)).alias(f"{alias}{i}")
                for i, n in enumerate(names)]

    seen_current, seen_desired, seen_plan = Observation("current"), Observation("desired"), Observation("plan")
    current = current.observe(seen_current, *per_cluster(F.lit(True), "n"), *per_cluster(scope_ok & ~protected, "s"))
    # protected rows are counted as given (a repeated one counts twice); the desired count is exact, see below
    want = desired.withColumn("cluster", cluster).observe(seen_desired, *per_cluster(protected, "p"))
    cur_scoped = current.where(scope_ok & ~protected).withColumn("_c", F.lit(True))
    want = want.where(~protected).withColumn("_d", F.lit(True))
    # the join needs only the binding columns; the key (for fingerprints) is computed on the changed rows
    joined = want.join(cur_scoped, on=["cluster", *BINDING], how="full_outer")
    action = (F.when(F.col("_d").isNotNull() & F.col("_c").isNull(), F.lit("CREATE"))
              .when(F.col("_c").isNotNull() & F.col("_d").isNull(), F.lit("DELETE")))
    changes = joined.withColumn("action", action).where(F.col("action").isNotNull())
    phase = (F.when((F.col("action") == "CREATE") & (F.col("permission") == "DENY"), 1)
             .when(F.col("action") == "CREATE", 2)
             .when(F.col("permission") == "ALLOW", 3).otherwise(4))
    # duplicates in the desired files only ever surface as duplicate CREATE rows: dedupe the (small) changes
    changes = _with_key(changes.withColumn("phase", phase).select("cluster", "phase", "action", *BINDING)
                        .dropDuplicates(["cluster", *BINDING]))
    # counts and fingerprints per cluster and phase, computed while the rows are written
    marked = F.col("key").bitwiseXOR(F.shiftleft(F.col("phase").cast("long"), 60))
    metrics = []
    for i, n in enumerate(names):
        for p in PHASES:
            here = (F.col("cluster") == n) & (F.col("phase") == p)
            metrics += [F.sum(F.when(here, 1).otherwise(0)).alias(f"c{i}_{p}"),
                        F.bit_xor(F.when(here, marked).otherwise(F.lit(0).cast("long"))).alias(f"x{i}_{p}")]
    changes = changes.observe(seen_plan, *metrics)
    if guards.no_delete:  # observed above, so the withheld deletes are still counted
        changes = changes.where("action = 'CREATE'")
    # without --out the plan lives as long as the command (removed at exit); on a cluster of several machines
    # --out must name storage every executor and the driver share (hdfs://, s3a://, NFS)
    out = Path(out_dir) if out_dir else private_tempdir("kafkactl-plan-")
    with join_settings(spark), tracking(spark, watch):
        changes.write.mode("overwrite").partitionBy("cluster", "phase").parquet(str(out / "rows"))
    cur, want_m, planned = seen_current.get, seen_desired.get, seen_plan.get
    clusters = []
    for i, n in enumerate(names):
        cp = ClusterPlan(n, current_total=cur.get(f"n{i}") or 0, current_in_scope=cur.get(f"s{i}") or 0,
                         protected_skipped=want_m.get(f"p{i}") or 0)
        counts = {p: planned.get(f"c{i}_{p}") or 0 for p in PHASES}
        # each distinct wanted binding exists already (in scope, unprotected) or is created (de-duplicated)
        cp.desired = cp.current_in_scope - counts[3] - counts[4] + counts[1] + counts[2]
        if guards.no_delete:
            cp.deletes_withheld, counts[3], counts[4] = counts[3] + counts[4], 0, 0
        x = 0
        for p in PHASES:
            x ^= (planned.get(f"x{i}_{p}") or 0) if counts[p] else 0
        cp.stored = (counts, (x, sum(counts.values())))
        guards.check_deletes(n, counts[3] + counts[4], cp.current_in_scope)
        clusters.append(cp)
    plan = Plan(clusters, state.scope, list(state.sources), engine="spark")
    plan.location = str(out)
    return plan


# Sort-merge join sorts millions of rows on seven strings that share long prefixes ("User:team-..."): slow.
# A shuffled hash join avoids the sort, and adaptive execution picks it only for partitions whose build side
# is under the threshold (a bigger partition falls back to sort-merge, so memory stays bounded). Many small
# shuffle partitions, coalesced by adaptive execution, keep partitions under that threshold at any size.
JOIN_SETTINGS = {"spark.sql.adaptive.enabled": "true",
                 "spark.sql.adaptive.coalescePartitions.enabled": "true",
                 "spark.sql.adaptive.advisoryPartitionSizeInBytes": "64MB",
                 "spark.sql.adaptive.maxShuffledHashJoinLocalMapThreshold": "64MB",
                 "spark.sql.shuffle.partitions": "64",
                 # the statistics are observed inside the plan: a side found empty must not be pruned away
                 "spark.sql.adaptive.optimizer.excludedRules":
                     "org.apache.spark.sql.execution.adaptive.AQEPropagateEmptyRelation"}


@contextlib.contextmanager
def join_settings(spark: SparkSession) -> Iterator[None]:
    """The plan's join settings for the duration of one action, then the session's own back."""
    before = {k: spark.conf.get(k, None) for k in JOIN_SETTINGS}
    for k, v in JOIN_SETTINGS.items():
        spark.conf.set(k, v)
    try:
        yield
    finally:
        for k, was in before.items():
            if was is None:
                spark.conf.unset(k)
            else:
                spark.conf.set(k, was)


def _with_key(df: DataFrame) -> DataFrame:
    from pyspark.sql import functions as F

    # Spark's xxhash64 uses seed 42 and the UTF-8 bytes: the same key as plan.binding_key()
    assert SEED == 42
    return df.withColumn("key", F.xxhash64(F.concat_ws(KEY_SEP, *[F.col(c) for c in BINDING])))


def _desired_df(spark: SparkSession, state: DesiredState, preread: dict[str, Any] | None = None) -> DataFrame:
    """Flat files are read by Spark itself (explicit schema, validated with Spark expressions); YAML,
    already parsed and validated, comes from the state."""

    flat = [s for s in state.sources if Path(s).suffix.lower() in (".jsonl", ".ndjson", ".csv", ".parquet")]
    schema = ", ".join(f"{c} string" for c in BINDING)
    parts = []
    small = [flat_row(b) for b, where in state.bindings.items() if not any(where.startswith(f) for f in flat)]
    if small:
        parts.append(spark.createDataFrame([tuple(r[c] for c in BINDING) for r in small], schema))
    for path in flat:
        suffix = Path(path).suffix.lower()
        if suffix == ".parquet":
            df = spark.read.parquet(path)
        else:
            # CSV and JSONL are read as the in-process engines read them (Arrow, else the Python loader: columns by
            # header name, RFC 4180 quotes, JSON types, surrogates, line order), validated, and handed to Spark as
            # Arrow: Spark's own readers took CSV columns by position and "" for \", and JSON numbers for names
            from kafkactl.desired.arrow_diff import read_flat

            table = (preread or {}).get(path)
            parts.append(spark.createDataFrame(table if table is not None else read_flat(path, state.scope))
                         .select(*BINDING))
            continue
        df = _normalise(df.select(*BINDING, *(["kind"] if "kind" in df.columns else [])))
        validate_flat(path, df, state.scope)
        parts.append(df.select(*BINDING))
    if not parts:
        return spark.createDataFrame([], schema)
    out = parts[0]
    for p in parts[1:]:
        out = out.unionByName(p)
    return out


def _normalise(df: DataFrame) -> DataFrame:
    """Canonical spellings pass untouched (checked first, so the string functions run only on the rest)."""
    from pyspark.sql import functions as F

    def canon(c: str, allowed: list[str], slow: Column) -> Column:
        return F.when(F.col(c).isin(allowed), F.col(c)).otherwise(slow)

    # as Python's str.strip(), which the in-process loader uses: Spark's trim takes spaces only
    def trim(c: str) -> Column:
        return F.regexp_replace(F.col(c), f"^{_PY_SPACE}+|{_PY_SPACE}+$", "")

    up = {c: F.upper(trim(c)) for c in ("operation", "permission", "resource_type", "pattern_type")}
    op_names = {_squash(o.name): o.name for o in AclOperation}
    op = F.upper(F.regexp_replace(trim("operation"), "[-_ ]", ""))
    mapping = F.create_map(*[x for k, v in op_names.items() for x in (F.lit(k), F.lit(v))])
    return df.select(
        trim("principal").alias("principal"),
        F.when(F.col("host") == "*", F.col("host")).otherwise(trim("host")).alias("host"),
        canon("operation", [o.name for o in AclOperation], F.coalesce(mapping[op], up["operation"])).alias("operation"),
        canon("permission", ["ALLOW", "DENY"], up["permission"]).alias("permission"),
        # spelt as the Python loader accepts them: transactional-id, prefixed or PRE-FIXED
        canon("resource_type", [t.name for t in ResourceType],
              F.regexp_replace(up["resource_type"], "-", "_")).alias("resource_type"),
        "resource_name",
        canon("pattern_type", ["LITERAL", "PREFIXED"],
              F.regexp_replace(up["pattern_type"], "[-_ ]", "")).alias("pattern_type"),
        *(["kind"] if "kind" in df.columns else []))


# the characters str.isspace() holds (str.strip() removes them), as a Java regex class
_PY_SPACE = ("[\\x{9}-\\x{d}\\x{1c}-\\x{20}\\x{85}\\x{a0}\\x{1680}\\x{2000}-\\x{200a}\\x{2028}\\x{2029}"
             "\\x{202f}\\x{205f}\\x{3000}]")


def _squash(name: str) -> str:
    return name.replace("_", "").upper()


def validate_flat(path: str, df: DataFrame, scope: Scope | None = None) -> None:
    """Find the first invalid row in one pass over the data; report file, row and field. If Spark cannot read
    the file (FAILFAST: a malformed line), the Python loader reads it to name the line and field."""
    from pyspark.sql import functions as F

    supported = [f"{t.name}/{o.name}" for t, ops in SUPPORTED_OPERATIONS.items() for o in (*ops, AclOperation.ALL)]
    checks = [("kind", F.col("kind").isNotNull())] if "kind" in df.columns else []
    checks += [
        # one regular expression over the three free-text fields; the driver finds which holds the character
        ("text", F.concat_ws("/", *TEXT_FIELDS).rlike(REFUSED_JAVA)),
        # "Type:name": a colon after the first character and something after it (no regex: a third of the pass)
        ("principal", (F.locate(":", "principal") <= 1) | (F.length("principal") <= F.locate(":", "principal"))),
        ("permission", ~F.col("permission").isin("ALLOW", "DENY")),
        ("pattern_type", ~F.col("pattern_type").isin("LITERAL", "PREFIXED")),
        ("resource_name", F.col("resource_name").isNull() | (F.length("resource_name") == 0)),
        ("operation", ~F.concat_ws("/", "resource_type", "operation").isin(supported)),
        ("resource_name", (F.col("resource_type") == "CLUSTER") & (F.col("resource_name") != CLUSTER_NAME)),
        ("host", F.col("host").isNull() | (F.length("host") == 0)),  # required, as the Python loader has it
    ]
    if scope is not None:
        checks.append(("scope", ~_in_scope(scope)))
    err = F.lit(None).cast("string")
    for field_name, bad in reversed(checks):
        err = F.when(F.coalesce(bad, F.lit(True)), F.lit(field_name)).otherwise(err)
    try:
        row = df.withColumn("_err", err).where(F.col("_err").isNotNull()).limit(1).collect()
    except Exception:  # a Py4J or Spark Connect error: only a fault the Python loader finds is the file's
        for _ in checked_rows(Path(path)):
            pass
        raise
    if row:
        r, field_name = row[0], row[0]["_err"]
        if field_name == "text":
            try:
                for f in TEXT_FIELDS:
                    validate_text(r[f], f)
            except KafkactlError as exc:
                raise StateFileError(f"{path}: {_row_hint(r)}: {exc.message}") from None
            raise StateFileError(f"{path}: {_row_hint(r)}: holds a control character")
        if field_name == "scope":
            raise StateFileError(f"{path}: {_row_hint(r)}: outside the declared scope "
                                 f"{json.dumps(scope.to_json() if scope else None)}")
        if field_name == "operation":
            raise StateFileError(f"{path}: {_row_hint(r)}: operation: {shown(r['operation'])} is not an operation of "
                                 f"{shown(r['resource_type'])} resources")
        raise StateFileError(f"{path}: {_row_hint(r)}: {field_name}: {shown(r[field_name])} is not valid")


def _row_hint(row: Row) -> str:
    resource = f"{row['resource_type']}:{row['resource_name']}"
    return f"row with principal {shown(row['principal'])}, {shown(resource)}"


CURRENT_SCHEMA = "cluster string, " + ", ".join(f"{c} string" for c in BINDING)
PLAN_ROW_SCHEMA = "cluster string, phase int, action string, " + ", ".join(f"{c} string" for c in BINDING)
RESULT_SCHEMA = PLAN_ROW_SCHEMA + ", status string, error string"


def _current_df(spark: SparkSession, where: dict[str, Delivery]) -> DataFrame:
    """One task per shard. DataFrame API only (mapInArrow), so it runs under Spark Connect as well. `where`:
    cluster -> the Delivery its executors connect with."""
    specs = [(c, int(f.resource_type), int(f.pattern_type), int(f.permission)) for c in where for f in shard_filters()]
    df = spark.createDataFrame(specs, "cluster string, rt int, pt int, perm int").repartition(
        shard_tasks(spark, len(specs)))
    return df.mapInArrow(lambda batches: _read_shards_arrow(batches, where), CURRENT_SCHEMA)


def _on_this_machine(master: str | None, remote: str | None) -> bool:
    return not remote and (not master or master.startswith("local"))


class _DriverRead:
    """The current ACLs of every target, read by the driver in a thread of its own (its own clients, closed when
    done) into a private Parquet file that Spark then reads. Started before the session, so the reads overlap the
    JVM's start; a request that reads nothing changes nothing, and its error is raised only after the desired
    files have been validated, so a bad file is still the error an operator sees first."""

    def __init__(self, targets: Iterable[Target], debug: bool = False) -> None:
        import threading

        self._targets, self._debug = list(targets), debug
        self._path = private_tempdir("kafkactl-current-") / "current.parquet"
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._read, name="kafkactl-current-read", daemon=True)
        self._thread.start()

    def _read(self) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        schema = pa.schema([(n, pa.string()) for n in ["cluster", *BINDING]])
        try:
            with pq.ParquetWriter(str(self._path), schema) as out:
                for t in self._targets:
                    gw = t.gateway(self._debug)
                    try:
                        for shard in shard_filters():  # one row group per shard: never every ACL in memory
                            rows = [flat_row(b) for b in gw.describe_acls(shard, bulk=True)]
                            cols = {"cluster": [t.name] * len(rows), **{c: [r[c] for r in rows] for c in BINDING}}
                            out.write_table(pa.Table.from_pydict(cols, schema=schema))
                    finally:
                        gw.close()
        except BaseException as exc:  # raised in the caller's thread, by frame()
            self._error = exc

    def frame(self, spark: SparkSession) -> DataFrame:
        self._thread.join()
        if self._error is not None:
            raise self._error
        return spark.read.schema(CURRENT_SCHEMA).parquet(str(self._path))


def shard_tasks(spark: SparkSession, shards: int) -> int:
    """As many tasks as the executors have cores (each task's client reads its shards one after another), not one
    task per shard: every task pays a Python worker's client start and a login, 24 shards a cluster."""
    try:
        cores = int(spark.sparkContext.defaultParallelism)
    except Exception:  # Spark Connect: no SparkContext on the client
        cores = int(spark.conf.get("spark.default.parallelism", "0") or 0) or 8
    return max(1, min(shards, cores))


def _read_shards_arrow(batches: Iterable[Any], where: dict[str, Delivery]) -> Iterator[Any]:
    """(pyarrow's record batches: pyarrow has no type information)"""
    import pyarrow as pa

    names = ["cluster", *BINDING]
    for batch in batches:
        rows = list(_read_shards(((r["cluster"], r["rt"], r["pt"], r["perm"]) for r in batch.to_pylist()), where))
        yield pa.RecordBatch.from_pydict({n: [r[i] for r in rows] for i, n in enumerate(names)},
                                         schema=pa.schema([(n, pa.string()) for n in names]))


def _read_shards(specs: Iterator[tuple[str, int, int, int]], where: dict[str, Delivery]) -> Iterator[tuple[str, ...]]:
    """Runs on executors: one admin client per cluster per partition, one describe per shard."""
    from kafkactl.acl.model import AclFilter, PatternType, Permission, ResourceType
    from kafkactl.desired.delivery import ExecutorClients

    with ExecutorClients(where) as clients:
        for cluster, rt, pt, perm in specs:
            shard = AclFilter(ResourceType(rt), None, PatternType(pt), None, None, permission=Permission(perm))
            for b in clients[cluster].describe_acls(shard, bulk=True):
                yield (cluster, *[flat_row(b)[c] for c in BINDING])


def _in_scope(scope: Scope) -> Column:
    from pyspark.sql import functions as F

    cond = F.lit(True)
    if scope.principals or scope.principal_prefixes:
        p = F.col("principal").isin(list(scope.principals)) if scope.principals else F.lit(False)
        for pre in scope.principal_prefixes:
            p = p | F.col("principal").startswith(pre)
        cond = cond & p
    if scope.resource_prefixes:
        r = F.lit(False)
        for rtype, prefixes in scope.resource_prefixes.items():
            t = F.lit(False)
            for pre in prefixes:
                t = t | F.col("resource_name").startswith(pre)
            r = r | ((F.col("resource_type") == rtype.name) & t)
        cond = cond & r
    return cond


def _protected(guards: Guards, supers: dict[str, list[str]]) -> Column:
    from pyspark.sql import functions as F

    cond = F.lit(False)
    for cluster, users in supers.items():
        if users:
            cond = cond | ((F.col("cluster") == cluster) & F.col("principal").isin(users))
    for p in guards.protect:
        cond = cond | (F.col("principal").startswith(p[:-1]) if p.endswith("*") else (F.col("principal") == p))
    return cond


# --------------------------------------------------------------------------------------------- apply
