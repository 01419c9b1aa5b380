"""The desired-state core API: one PlanRequest in, one PlanResult out (its plan, clients, engine, notes and
warnings, and an `apply`). `choose_engine` is the one place that picks the engine (in-process, Arrow for large
flat files, Spark), for new and saved plans alike. It never receives the CLI's context and never prints."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Literal, Sequence, TextIO

from kafkactl.bulk.plan import Guards, Plan, make_plan
from kafkactl.bulk.formats import read_state
from kafkactl.bulk.targets import check_choice, resolve_targets
from kafkactl.profiles import Selection

# --spark auto: above this many desired bindings (summed over targets) the diff goes to Spark
AUTO_SPARK_BINDINGS = 2_000_000

SparkMode = Literal["off", "on", "auto"]  # --spark absent, --spark, --spark auto
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
    spark: SparkMode = "off"
    spark_master: str | None = None
    spark_remote: str | None = None
    selection: Selection = field(default_factory=Selection)
    debug: bool = False
    # told (what runs, tasks done, tasks in all) while Spark works: the CLI's progress on a terminal
    watch: Callable[[str, int, int], None] | None = field(default=None, compare=False)


@dataclass
class PlanResult:
    """A plan, the clients of its clusters, the engine that made it (and will apply it), and what the caller
    should tell the operator."""

    plan: Plan
    gateways: dict[str, Any]
    mode: Engine
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    request: PlanRequest = field(default_factory=PlanRequest)

    def apply(self, progress: Callable[[int], None] | None = None, report: TextIO | None = None,
              dry_run: bool = False) -> Any:
        if self.mode == "spark" and not dry_run:
            from kafkactl.bulk.spark_apply import spark_apply

            return spark_apply(self.plan, self.gateways, progress, report, self.request.spark_master,
                               self.request.spark_remote, self.request.watch, self.request.debug)
        from kafkactl.bulk.apply import apply as apply_local

        return apply_local(self.plan.materialize(), self.gateways, progress=progress, report=report,
                           dry_run=dry_run)

    def close(self) -> None:
        for gw in self.gateways.values():
            gw.close()


def choose_engine(request: PlanRequest, size: int = 0, flat_bytes: int = 0) -> Engine:
    """The engine for a request. `size`: the desired bindings summed over the targets (or a saved plan's
    changes), which only `--spark auto` weighs; `flat_bytes`: the size of the flat input files. A Spark master
    or Connect URL means Spark whatever the mode; Arrow is for large flat inputs of a new plan."""
    from kafkactl.bulk.arrow_diff import ARROW_BYTES

    if request.spark == "on" or request.spark_master or request.spark_remote:
        return "spark"
    if request.spark == "auto" and size > AUTO_SPARK_BINDINGS:
        return "spark"
    return "arrow" if flat_bytes > ARROW_BYTES else "in-process"


def make(request: PlanRequest) -> PlanResult:
    """The one entry point: a new plan from files, or a saved one checked against the clusters as they are now.
    Every bad input (files, guards, options) fails before any request."""
    from kafkactl.errors import UsageError

    guards = Guards(tuple(request.protect), request.no_delete, request.max_deletes)  # bad guard values first
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
    # Spark whatever the size: flat files' rows are read and checked by Spark. Otherwise the Python loader reads
    # them (and counts them for --spark auto). Every file error comes before any request either way.
    spark_anyway = choose_engine(request) == "spark"
    state = read_state(files, scope_file, flat_rows=not spark_anyway)
    check_choice(request.contexts, state.clusters, request.selection)
    targets = resolve_targets(request.contexts, state.clusters, request.selection)
    engine = choose_engine(request, len(state.bindings) * len(targets), _flat_bytes(files))
    notes: list[str] = []
    if request.spark == "auto":
        notes.append(f"--spark auto: using the {'Spark' if engine == 'spark' else 'in-process'} engine")
    if engine == "spark" and not spark_anyway:
        state = read_state(files, scope_file, flat_rows=False)
    gateways = {t.name: t.gateway(request.debug) for t in targets}
    try:
        if engine == "spark":
            from kafkactl.bulk.spark import spark_plan

            result = spark_plan(state, targets, guards, request.spark_master, request.spark_remote,
                                watch=request.watch, debug=request.debug)
        elif engine == "arrow":
            result = _arrow_plan(files, scope_file, targets, gateways, guards)
        else:
            result = make_plan([(t.name, gateways[t.name], t.profile.super_users) for t in targets], state, guards)
    except BaseException:
        for gw in gateways.values():
            gw.close()
        raise
    return PlanResult(result, gateways, engine, notes, list(state.duplicates[:5]), request)


def _saved(request: PlanRequest, guards: Guards) -> PlanResult:
    from kafkactl.bulk.plan import load_saved, read_current

    plan = load_saved(request.plan_dir or "")
    gateways = gateways_for(request.selection, [c.cluster for c in plan.clusters], request.debug)
    try:
        live = {c.cluster: set(read_current(gateways[c.cluster])) for c in plan.clusters}
        guards.check_saved(plan, lambda c: gateways[c].profile.super_users,
                           lambda c: sum(1 for b in live[c] if plan.scope.contains(b)))
        _check_fresh(plan, live)
    except BaseException:
        for gw in gateways.values():
            gw.close()
        raise
    engine = choose_engine(request, plan.changes)
    notes = [f"--spark auto: using the {'Spark' if engine == 'spark' else 'in-process'} engine"] \
        if request.spark == "auto" else []
    return PlanResult(plan, gateways, engine, notes, [], request)


def _check_fresh(plan: Plan, live: dict[str, set]) -> None:
    """A saved plan applies only to the ACLs it was made from: once a create it plans exists, or an ACL it
    deletes is gone (applied already, or changed by someone else), it is stale and refused whole."""
    from kafkactl.errors import UsageError

    rows = plan.rows()
    for c in plan.clusters:
        now = live[c.cluster]
        mine = [r for r in rows if r.cluster == c.cluster]
        done = sum(1 for r in mine if (r.binding in now) == (r.action == "CREATE"))
        if done:
            raise UsageError(f"{c.cluster}: the saved plan is stale: {done} of its {len(mine)} changes are made "
                             "already or no longer apply (the cluster's ACLs no longer match what the plan was "
                             "made from); nothing was changed: make a new plan")


def _flat_bytes(files: Sequence[str]) -> int:
    from pathlib import Path

    from kafkactl.bulk.formats import FLAT_SUFFIXES

    flat = [Path(f) for f in files if Path(f).suffix.lower() in FLAT_SUFFIXES]
    return sum(f.stat().st_size for f in flat if f.exists())


def _arrow_plan(files, scope_file, targets, gateways, guards) -> Plan:
    """Large flat inputs: Arrow columns and hash anti-joins (kafkactl/bulk/arrow_diff.py)."""
    from pathlib import Path

    import pyarrow as pa

    from kafkactl.bulk.arrow_diff import bindings_table, diff_tables, read_flat
    from kafkactl.bulk.plan import read_current
    from kafkactl.bulk.formats import FLAT_SUFFIXES

    state = read_state(files, scope_file, flat_rows=False)
    tables = [read_flat(f, state.scope) for f in files if Path(f).suffix.lower() in FLAT_SUFFIXES]
    if state.bindings:
        tables.append(bindings_table(state.bindings))
    desired = pa.concat_tables(tables)
    clusters = [diff_tables(t.name, desired, bindings_table(read_current(gateways[t.name])), state.scope, guards,
                            t.profile.super_users) for t in targets]
    return Plan(clusters, state.scope, list(state.sources), engine="in-process (arrow)")


def gateways_for(chosen: Selection, clusters: Sequence[str], debug: bool = False) -> dict[str, Any]:
    """The clients of a saved plan's clusters, from the global Selection (-b, --context, --command-config)."""
    from kafkactl.profiles import ContextStore

    known = ContextStore.load().contexts
    out: dict[str, Any] = {}
    try:
        for name in clusters:
            out[name] = _gateway_for(chosen, name, name in known, debug)
    except BaseException:
        for gw in out.values():
            gw.close()
        raise
    return out


def _gateway_for(chosen: Selection, name: str, is_context: bool, debug: bool) -> Any:
    from kafkactl.profiles import parse_bootstrap

    from kafkactl.errors import UsageError

    if is_context:
        # a saved plan goes where it was made for: a -b or --context naming anything else is refused
        if chosen.bootstrap_servers or (chosen.context and chosen.context != name):
            given = f"-b {chosen.bootstrap_servers}" if chosen.bootstrap_servers else f"--context {chosen.context}"
            raise UsageError(f"the saved plan was made for context {name!r}, not {given}: leave it out, or "
                             "make a plan for that cluster")
        return resolve_targets([name], [], chosen)[0].gateway(debug)
    if chosen.bootstrap_servers and parse_bootstrap(chosen.bootstrap_servers) == name:
        return resolve_targets([], [], chosen)[0].gateway(debug)  # a plan made with -b: the same -b (and credentials)
    raise UsageError(f"the saved plan was made for {name!r}, which is neither a context nor the -b given: "
                     f"give -b {name} with its credentials, or make a new plan")
