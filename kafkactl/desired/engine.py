"""The desired-state core API: one PlanRequest in, one PlanResult out (its plan, clients, engine, notes and
warnings, and an `apply`). `choose_engine` is the one place that picks the engine (in-process, Arrow for large
flat files, Spark), for new and saved plans alike. It never receives the CLI's context and never prints."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from kafkactl.desired.formats import FLAT_SUFFIXES, read_state
from kafkactl.desired.plan import Guards, Plan, PlanRow, make_plan, read_current
from kafkactl.desired.prerequisites import spark_missing, url_shown
from kafkactl.desired.targets import check_choice, resolve_targets
from kafkactl.profiles import Selection

if TYPE_CHECKING:
    from concurrent.futures import Future

    from kafkactl.acl.model import AclBinding, ResourceType
    from kafkactl.desired.apply import ApplyResult
    from kafkactl.desired.report import Report
    from kafkactl.desired.targets import Target
    from kafkactl.gateway import Gateway
    from kafkactl.profiles import Profile

# The in-process engines' peak memory per desired binding, its cluster's current binding included (bench/RESULTS.md,
# "Desired-state plan engines": 5,000,000 desired and 5,000,000 current bindings peak at 3,082 MB, 616 B a pair)
IN_PROCESS_BYTES_PER_BINDING = 620
# auto sends the plan to Spark once the in-process estimate exceeds this share of the memory available. Below it
# the in-process engines are faster at every size measured (bench/RESULTS.md: 5,000,000 bindings 10.8 s
# against Spark's 18.4 s; one policy to 3 clusters 8.4 s against 30.4 s): memory is the only reason to leave.
AUTO_MEMORY_SHARE = 0.5

SparkMode = Literal["off", "on", "auto"]  # --no-spark, --spark, --spark auto (the default)
Engine = Literal["in-process", "arrow", "spark"]


@dataclass(frozen=True)
class PlanRequest:
    """What to plan: desired-state files (or a saved plan's directory), where, and under which guards."""

    files: tuple[str, ...] = ()
    plan_dir: str | None = None
    contexts: tuple[str, ...] = ()
    scope_file: str | None = None
    protect: tuple[str, ...] = ()
    no_delete: bool = False
    max_deletes: str | None = None
    spark: SparkMode = "auto"
    spark_master: str | None = None
    spark_remote: str | None = None
    selection: Selection = field(default_factory=Selection)
    debug: bool = False
    # told (what runs, tasks done, tasks in all) while Spark works: the CLI's progress on a terminal
    watch: Callable[[str, int, int], None] | None = field(default=None, compare=False)
    # told the engine auto chose, and why, as soon as it is chosen (before Spark's work); else it is a note
    tell: Callable[[str], None] | None = field(default=None, compare=False)
    # the blast radius's guards (kafkactl/acl/blast.py): None for a plan only shown (what they would refuse is a
    # warning), else whether apply may grant to every principal, and take from the caller what administers
    allow_every_principal: bool | None = None
    allow_lockout: bool | None = None
    # called once every input file is read, before any cluster is asked anything (apply starts its report there)
    files_read: Callable[[], object] | None = field(default=None, compare=False)
    # what makes a cluster's client (the app context's gateway factory); None: kafkactl's Gateway
    connect: Callable[[Profile], Gateway] | None = field(default=None, compare=False)


@dataclass
class PlanResult:
    """A plan, the clients of its clusters, the engine that made it (and will apply it), and what the caller
    should tell the operator."""

    plan: Plan
    gateways: dict[str, Gateway]
    mode: Engine
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    request: PlanRequest = field(default_factory=PlanRequest)

    def apply(self, progress: Callable[[int], None] | None = None, report: Report | None = None,
              dry_run: bool = False) -> ApplyResult:
        if self.mode == "spark" and not dry_run:
            from kafkactl.desired.spark import executor_errors
            from kafkactl.desired.spark_apply import spark_apply

            with executor_errors():
                return spark_apply(self.plan, self.gateways, progress, report, self.request.spark_master,
                                   self.request.spark_remote, self.request.watch, self.request.debug)
        from kafkactl.desired.apply import apply as apply_local

        return apply_local(self.plan.materialize(), self.gateways, progress=progress, report=report,
                           dry_run=dry_run)

    def close(self) -> None:
        for gw in self.gateways.values():
            gw.close()


def choose_engine(request: PlanRequest, size: int = 0, flat_bytes: int = 0, available: int | None = None) -> Engine:
    return engine_choice(request, size, flat_bytes, available)[0]


def engine_choice(request: PlanRequest, size: int = 0, flat_bytes: int = 0,
                  available: int | None = None) -> tuple[Engine, str]:
    """The engine for a request, and why (said on stderr when the choice was kafkactl's). `size`: the desired
    bindings summed over the targets (or a saved plan's changes); `flat_bytes`: the size of the flat input files;
    `available`: the memory this process may still use (read from the system when None). A Spark master or
    Connect URL means Spark whatever the mode; Arrow is for large flat inputs of the in-process engine."""
    from kafkactl.desired.arrow_diff import ARROW_BYTES

    local: Engine = "arrow" if flat_bytes > ARROW_BYTES else "in-process"
    if request.spark_master or request.spark_remote:
        return "spark", f"{'--spark-master' if request.spark_master else '--spark-remote'} given"
    if request.spark != "auto":
        return ("spark", "--spark given") if request.spark == "on" else (local, "--no-spark given")
    need = size * IN_PROCESS_BYTES_PER_BINDING
    have = memory_budget() if available is None else available
    what = f"{size:,} desired {'binding needs' if size == 1 else 'bindings need'} about {_size(need)} in-process"
    if have is None:
        return local, f"{what}; the memory available is unknown"
    if need <= AUTO_MEMORY_SHARE * have:
        return local, f"{what}, {_size(have)} available"
    missing = spark_missing()
    if missing:
        return local, f"{what}, more than half of the {_size(have)} available, but {missing}"
    return "spark", f"{what}, more than half of the {_size(have)} available"


def _size(n: float) -> str:
    """Binary units, named as such: KAFKACTL_MEMORY=1m is 1 MiB, as Java's -Xmx1m."""
    unit = "B"
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or unit == "TiB":
            break
        n /= 1024
    return f"{n:.0f} {unit}" if unit == "B" or n >= 10 else f"{n:.1f} {unit}"


def memory_budget() -> int | None:
    """KAFKACTL_MEMORY (bytes, or with a k, m, g or t suffix, as Java's -Xmx) when set: the memory an operator gives
    kafkactl where the machine's own reading would mislead (a shared host, a limit the kernel does not show);
    otherwise what this machine has available."""
    import os
    import re

    from kafkactl.errors import UsageError
    from kafkactl.limits import shown

    value = os.environ.get("KAFKACTL_MEMORY")
    if value is None:
        return available_memory()
    m = re.fullmatch(r"\s*([0-9]{1,15}(?:\.[0-9]{1,6})?)\s*(?:([kmgt])(?:i?b)?|b)?\s*", value, flags=re.ASCII | re.I)
    size = int(float(m[1]) * (1 << (10 * " kmgt".index((m[2] or " ").lower())))) if m else 0
    if not 0 < size < 1 << 60:
        raise UsageError(f"KAFKACTL_MEMORY={shown(value)}: expected a size such as 4g, 512m, 1.5GiB or 1073741824 "
                         "(binary units, as Java's -Xmx)")
    return size


def available_memory() -> int | None:
    """Bytes this process may still use: the system's available memory, or the cgroup's limit less its use when
    lower (a container's limit is the one that kills). None where neither can be read."""
    import os

    found: list[int] = []
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            found += [int(line.split()[1]) * 1024 for line in f if line.startswith("MemAvailable:")]
    except (OSError, ValueError, IndexError):
        try:
            found.append(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
        except (ValueError, OSError, AttributeError):
            pass
    for limit, used in (("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),  # cgroup v2, then v1
                        ("/sys/fs/cgroup/memory/memory.limit_in_bytes", "/sys/fs/cgroup/memory/memory.usage_in_bytes")):
        try:
            with open(limit, encoding="ascii") as f1, open(used, encoding="ascii") as f2:
                top, now = f1.read().strip(), f2.read().strip()
        except OSError:
            continue
        if top.isdigit() and now.isdigit() and int(top) < 1 << 60:  # v1 writes "no limit" as a huge number
            found.append(max(0, int(top) - int(now)))
        break
    return min(found) if found else None


def make(request: PlanRequest) -> PlanResult:
    """The one entry point: a new plan from files, or a saved one checked against the clusters as they are now.
    Every bad input (files, guards, options) fails before any request."""
    from kafkactl.errors import UsageError

    guards = Guards(tuple(request.protect), request.no_delete, request.max_deletes,  # bad guard values first
                    applying=request.allow_lockout is not None)
    check_spark_urls(request.spark_master, request.spark_remote)
    if (request.spark == "on" or request.spark_master) and not request.spark_remote:
        missing = spark_missing()  # what Spark lacks, said before any file is read or a broker asked (a Spark
        if missing:  # Connect client needs no Java here)
            from kafkactl.errors import KafkactlError

            raise KafkactlError(f"{'--spark-master' if request.spark_master else '--spark'}: {missing}")
    if os.environ.get("KAFKACTL_MEMORY") is not None:
        memory_budget()  # a bad value is refused whatever the engine and the plan's size
    if request.plan_dir:
        if request.files:
            raise UsageError("give either FILE... or --plan PLANDIR, not both")
        for given, option in ((request.contexts, "--context"), (request.scope_file, "--scope")):
            if given:
                raise UsageError(f"{option} with --plan: a saved plan keeps the clusters and the scope it was "
                                 "made for (make a new one with acls plan --out)")
        return _saved(request, guards)
    if not request.files:
        raise UsageError("give the desired-state FILE(s)")
    return _new(request, guards)


def _new(request: PlanRequest, guards: Guards) -> PlanResult:
    files, scope_file = list(request.files), request.scope_file
    # Flat files' rows are counted, not loaded, until the engine is known: Spark reads and checks them itself, and
    # a size that needs Spark must not first be loaded here. Every file error comes before any request either way.
    flat = [f for f in files if Path(f).suffix.lower() in FLAT_SUFFIXES]
    state = read_state(files, scope_file, flat_rows=False)
    check_choice(request.contexts, state.clusters, request.selection)
    targets = resolve_targets(request.contexts, state.clusters, request.selection)
    size = (len(state.bindings) + sum(_flat_rows(f) for f in flat)) * len(targets)
    engine, why = engine_choice(request, size, _flat_bytes(files))
    preread: dict[str, Any] = {}
    if engine != "spark" and flat:
        state = read_state(files, scope_file, flat_rows=True)
    elif flat:  # CSV and JSONL reach Spark as read here: a bad one is refused before a JVM starts
        from kafkactl.desired.arrow_diff import read_flat

        preread = {f: read_flat(f, state.scope) for f in flat if Path(f).suffix.lower() != ".parquet"}
    notes = _say_choice(request, engine, why)  # (after the files are read: a bad one is the only line on stderr)
    gateways = {t.name: t.gateway(request.debug, request.connect) for t in targets}
    try:
        if request.files_read:  # (the contexts file and client properties are read too, resolving the targets)
            request.files_read()
        distinct_clusters(gateways)
        early: dict[str, Future[Any]] = {}  # (the in-process engine's: the radius is computed by it only)
        if engine == "spark":
            from kafkactl.desired.spark import executor_errors, spark_plan

            with executor_errors():
                result = spark_plan(state, targets, guards, request.spark_master, request.spark_remote,
                                    watch=request.watch, debug=request.debug, preread=preread)
        elif engine == "arrow":
            result = _arrow_plan(files, scope_file, targets, gateways, guards)
        else:
            early = what_exists_meanwhile(gateways)
            currents: dict[int, list[AclBinding]] = {}

            def read(gw: Gateway) -> list[AclBinding]:
                currents[id(gw)] = read_current(gw)
                return currents[id(gw)]

            result = make_plan([(t.name, gateways[t.name], t.profile.super_users) for t in targets], state, guards,
                               read)
        for c in result.clusters:
            c.cluster_id = gateways[c.cluster].describe_cluster().cluster_id
        warnings = list(state.duplicates[:5])
        warnings += radius(result, gateways, request, lambda name: currents[id(gateways[name])] if engine not in
                           ("spark", "arrow") else None, engine, early)
    except BaseException:
        for gw in gateways.values():
            gw.close()
        raise
    return PlanResult(result, gateways, engine, notes, warnings, request)


def what_exists(gw: Gateway) -> tuple[dict[ResourceType, list[str]], list[str]]:
    """The topics, groups and transactional ids a blast radius expands ACLs against, and what was left out of them
    (brokers that did not answer)."""
    from kafkactl.desired.aclset import existing_resources
    from kafkactl.errors import KafkactlError

    short: list[str] = []
    try:
        return existing_resources(gw, transactional=True, short=short), short
    except KafkactlError:  # no ListTransactions: the topics and groups still tell most
        short.clear()
        return existing_resources(gw, transactional=False, short=short), short


def what_exists_meanwhile(gateways: dict[str, Gateway]) -> dict[str, Future[Any]]:
    """what_exists for each cluster, asked at once in a thread of its own while the plan reads the ACLs: a broker
    that does not answer (frozen) then costs its wait once, not after the plan's other reads. Not waited for if
    the plan fails first."""
    from concurrent.futures import ThreadPoolExecutor

    pool = ThreadPoolExecutor(max(1, len(gateways)), thread_name_prefix="kafkactl-radius")
    try:
        return {name: pool.submit(what_exists, gw) for name, gw in gateways.items()}
    finally:
        pool.shutdown(wait=False)


def radius(plan: Plan, gateways: dict[str, Gateway], request: PlanRequest,
           current: Callable[[str], Iterable[AclBinding] | None],
           engine: str, early: dict[str, Future[Any]] | None = None) -> list[str]:
    """The plan's guards and its blast radius, per cluster. The guards run whatever the engine and the plan's size,
    on the few rows they concern (User:* and the cluster resource): what they refuse raises (exit 2); what a flag
    let through, or what a plan only shown would be refused, is returned as warnings. The radius (kept on the plan
    for display) is computed in-process from the ACLs the plan was made from, within its budget."""
    from kafkactl.acl.authorizer import WILDCARD_PRINCIPAL, principal_applies
    from kafkactl.acl.blast import LOCKOUT_FLAG, blast_radius, check_guards
    from kafkactl.acl.model import AclFilter, ResourceType
    from kafkactl.describe.whoami import principal_of

    warnings: list[str] = []
    for c in plan.clusters:
        gw = gateways[c.cluster]
        caller = principal_of(gw)
        touching = plan.rows_touching(c.cluster, WILDCARD_PRINCIPAL, ResourceType.CLUSTER)
        cluster_acls = gw.describe_acls(AclFilter(resource_type=ResourceType.CLUSTER), bulk=True)
        found = check_guards(c.cluster, cluster_acls, [r.binding for r in touching if r.action == "CREATE"],
                             [r.binding for r in touching if r.action == "DELETE"], caller,
                             request.allow_every_principal, request.allow_lockout, gw.profile.super_users)
        plan.guards += found
        warnings += found
        if request.allow_lockout and caller and any(LOCKOUT_FLAG in w for w in found):
            _lockout_last(plan, c.cluster, [r for r in touching if r.binding.resource_type is ResourceType.CLUSTER
                                            and principal_applies(r.binding.principal, caller)], engine)
        live = current(c.cluster)
        if live is None:
            plan.radius_notes.append(f"{c.cluster}: the blast radius is computed by the in-process engine only "
                                     f"(this plan: {engine}); its guards ran all the same")
            continue
        asked = (early or {}).get(c.cluster)
        existing, short = asked.result() if asked is not None else what_exists(gw)
        for unlisted in dict.fromkeys(short):
            plan.radius_notes.append(f"{c.cluster}: the blast radius counts only what the other brokers listed "
                                     f"({unlisted})")
        shifts, why = blast_radius(c.cluster, live, [r.binding for r in c.rows if r.action == "CREATE"],
                                   [r.binding for r in c.rows if r.action == "DELETE"], existing,
                                   gw.profile.super_users, also=[caller] if caller else [])
        if why:
            plan.radius_notes.append(f"{why}; its guards ran all the same")
        plan.radius += shifts
    return warnings


def _lockout_last(plan: Plan, cluster: str, taking: list[PlanRow], engine: str) -> None:
    """A plan taking the caller's own Alter or Describe on the cluster (--allow-lockout) can be carried out whole
    only if those changes come last: once made, the caller can neither change ACLs nor list them to confirm a
    phase. They are sent at the end of their phase, which must be the plan's last, and not confirmed; else exit 2
    (apply the other changes first, then the lock-out alone)."""
    from kafkactl.errors import UsageError

    rows = [r for c in plan.clusters if c.cluster == cluster for r in c.rows]
    last = max((r.phase for r in rows), default=0)
    early = sorted({r.phase for r in taking if r.phase != last})
    if engine == "spark":
        raise UsageError(f"{cluster}: the plan takes the caller's own access (--allow-lockout), which must be applied "
                         "last, in order: apply it with --no-spark")
    if early:
        raise UsageError(f"{cluster}: the plan takes the caller's own access in phase {early[0]}, before its phase "
                         f"{last} changes, which the caller could then not make: apply the other changes first, "
                         "then the lock-out alone; nothing applied")
    plan.lockout[cluster] = {r.binding for r in taking}


def _saved(request: PlanRequest, guards: Guards) -> PlanResult:
    from kafkactl.desired.plan import load_saved, read_current
    from kafkactl.errors import UsageError

    plan = load_saved(request.plan_dir or "")
    gateways = gateways_for(request.selection, [c.cluster for c in plan.clusters], request.debug, request.connect)
    try:
        if request.files_read:
            request.files_read()
        distinct_clusters(gateways)
        for c in plan.clusters:
            now = gateways[c.cluster].describe_cluster().cluster_id
            if now != c.cluster_id:
                raise UsageError(f"{c.cluster}: the saved plan was made on the cluster {c.cluster_id}, and this "
                                 f"context now reaches {now}: nothing was changed; make a new plan")
        live = {c.cluster: set(read_current(gateways[c.cluster])) for c in plan.clusters}
        guards.check_saved(plan, lambda c: gateways[c].profile.super_users,
                           lambda c: sum(1 for b in live[c] if plan.scope.contains(b)))
        _check_fresh(plan, live)
    except BaseException:
        for gw in gateways.values():
            gw.close()
        raise
    engine, why = engine_choice(request, plan.changes)
    notes = _say_choice(request, engine, why)
    try:
        warnings = radius(plan, gateways, request, lambda name: live[name] if plan.location is None else None,
                          engine if plan.location is None else "spark")
    except BaseException:
        for gw in gateways.values():
            gw.close()
        raise
    return PlanResult(plan, gateways, engine, notes, warnings, request)


def distinct_clusters(gateways: dict[str, Gateway]) -> None:
    """A fan-out names each cluster once: two contexts that reach the same cluster (another listener, another
    user) would plan every change twice and count what one apply did as two."""
    from kafkactl.errors import UsageError

    if len(gateways) < 2:
        return
    seen: dict[str, str] = {}
    for name, gw in gateways.items():
        cluster_id = gw.describe_cluster().cluster_id
        if cluster_id and cluster_id in seen:
            raise UsageError(f"contexts {seen[cluster_id]!r} and {name!r} reach the same cluster (id {cluster_id}): "
                             "name each cluster once")
        if cluster_id:
            seen[cluster_id] = name


def _say_choice(request: PlanRequest, engine: Engine, why: str) -> list[str]:
    """The engine auto chose and why, told now (or returned as a note); a forced engine is no choice to explain."""
    if request.spark != "auto" or request.spark_master or request.spark_remote:
        return []
    line = f"engine: {'Spark' if engine == 'spark' else 'in-process'} ({why})"
    if request.tell is None or engine != "spark":  # told at once only before Spark's long work; else a note
        return [line]
    request.tell(line)
    return []


def check_spark_urls(master: str | None, remote: str | None) -> None:
    """A Spark master or Connect URL Spark would accept, before a JVM starts (Spark's own refusal is a Java stack
    trace): local, local[N], local[*], local[N,F], local-cluster[N,C,M], spark://host:port[,host:port...], yarn,
    k8s://...; sc://host[:port][/;params] for Spark Connect. Both at once is refused: one would be ignored."""
    import re

    from kafkactl.errors import UsageError

    if master and remote:
        raise UsageError("--spark-master and --spark-remote: give one (Spark Connect names its own master)")
    hostport = r"[A-Za-z0-9._-]+(:[0-9]{1,5})?|\[[0-9A-Fa-f:.]+\](:[0-9]{1,5})?"
    ok_master = (r"local(\[([1-9][0-9]{0,3}|\*)(,[1-9][0-9]{0,3})?\])?|local-cluster\[[1-9][0-9]{0,3},[1-9][0-9]{0,3},"
                 rf"[1-9][0-9]{{0,6}}\]|spark://({hostport})(,({hostport}))*|yarn|k8s://\S+")
    if master is not None and not re.fullmatch(ok_master, master, flags=re.ASCII):
        raise UsageError(f"--spark-master {url_shown(master)}: expected local[*], local[N], spark://HOST:PORT, yarn or "
                         "k8s://URL")
    if remote is not None and not re.fullmatch(rf"sc://({hostport})(/\S*)?", remote, flags=re.ASCII):
        raise UsageError(f"--spark-remote {url_shown(remote)}: expected sc://HOST:PORT")
    for option, url in (("--spark-master", master), ("--spark-remote", remote)):
        if url and url.startswith(("spark://", "sc://")):
            hosts = url.split("://", 1)[1].split("/", 1)[0].split(";", 1)[0]
            if any(int(p) > 65535 for p in re.findall(r":([0-9]+)(?:,|$)", hosts)):
                raise UsageError(f"{option} {url_shown(url)}: a port is 1 to 65535")


def _check_fresh(plan: Plan, live: dict[str, set[AclBinding]]) -> None:
    """A saved plan applies only to the ACLs it was made from: once a create it plans exists, or an ACL it
    deletes is gone (applied already, or changed by someone else), it is stale and refused whole."""
    from kafkactl.errors import UsageError

    rows = plan.rows()
    for c in plan.clusters:
        now = live[c.cluster]
        mine = [r for r in rows if r.cluster == c.cluster]
        done = sum(1 for r in mine if (r.binding in now) == (r.action == "CREATE"))
        if done:
            from kafkactl.limits import plural

            raise UsageError(f"{c.cluster}: the saved plan is stale: of its {plural(len(mine), 'change')}, {done} made "
                             "already or no longer applying (the cluster's ACLs no longer match what the plan was "
                             "made from); nothing was changed: make a new plan")


def _flat_rows(path: str) -> int:
    """A flat file's rows, counted without reading them: Parquet's footer, or the lines of a CSV or JSONL file (a
    file that cannot be counted counts 0 here; its reader names the fault)."""
    try:
        if Path(path).suffix.lower() == ".parquet":
            import pyarrow.parquet as pq

            return int(pq.ParquetFile(path).metadata.num_rows)
        lines = 0
        with open(path, "rb") as f:  # (JSONL's scope and clusters lines, and a CSV header, are no bindings)
            for chunk in iter(lambda: f.read(1 << 20), b""):
                lines += chunk.count(b"\n") - chunk.count(b'"kind"')
        return max(0, lines - (Path(path).suffix.lower() == ".csv"))
    except Exception:
        return 0


def _flat_bytes(files: Sequence[str]) -> int:
    flat = [Path(f) for f in files if Path(f).suffix.lower() in FLAT_SUFFIXES]
    return sum(f.stat().st_size for f in flat if f.exists())


def _arrow_plan(files: list[str], scope_file: str | None, targets: Sequence[Target], gateways: dict[str, Gateway],
                guards: Guards) -> Plan:
    """Large flat inputs: Arrow columns and hash anti-joins (kafkactl/desired/arrow_diff.py)."""
    from pathlib import Path

    import pyarrow as pa

    from kafkactl.desired.arrow_diff import bindings_table, diff_tables, read_flat
    from kafkactl.desired.formats import FLAT_SUFFIXES
    from kafkactl.desired.plan import read_current

    state = read_state(files, scope_file, flat_rows=False)
    tables = [read_flat(f, state.scope) for f in files if Path(f).suffix.lower() in FLAT_SUFFIXES]
    if state.bindings:
        tables.append(bindings_table(state.bindings))
    desired = pa.concat_tables(tables)
    clusters = [diff_tables(t.name, desired, bindings_table(read_current(gateways[t.name])), state.scope, guards,
                            t.profile.super_users) for t in targets]
    return Plan(clusters, state.scope, list(state.sources), engine="in-process (arrow)")


def gateways_for(chosen: Selection, clusters: Sequence[str], debug: bool = False,
                 connect: Callable[[Profile], Gateway] | None = None) -> dict[str, Gateway]:
    """The clients of a saved plan's clusters, from the global Selection (-b, --context, --command-config)."""
    from kafkactl.profiles import ContextStore

    known = ContextStore.load().contexts
    out: dict[str, Gateway] = {}
    try:
        for name in clusters:
            out[name] = _gateway_for(chosen, name, name in known, debug, connect)
    except BaseException:
        for gw in out.values():
            gw.close()
        raise
    return out


def _gateway_for(chosen: Selection, name: str, is_context: bool, debug: bool,
                 connect: Callable[[Profile], Gateway] | None = None) -> Gateway:
    from kafkactl.errors import UsageError
    from kafkactl.profiles import parse_bootstrap

    if is_context:
        # a saved plan goes where it was made for: a -b or --context naming anything else is refused
        if chosen.bootstrap_servers or (chosen.context and chosen.context != name):
            given = f"-b {chosen.bootstrap_servers}" if chosen.bootstrap_servers else f"--context {chosen.context}"
            raise UsageError(f"the saved plan was made for context {name!r}, not {given}: leave it out, or "
                             "make a plan for that cluster")
        return resolve_targets([name], [], chosen)[0].gateway(debug, connect)
    if chosen.bootstrap_servers and parse_bootstrap(chosen.bootstrap_servers) == name:
        # a plan made with -b: the same -b (and credentials)
        return resolve_targets([], [], chosen)[0].gateway(debug, connect)
    raise UsageError(f"the saved plan was made for {name!r}, which is neither a context nor the -b given: "
                     f"give -b {name} with its credentials, or make a new plan")
