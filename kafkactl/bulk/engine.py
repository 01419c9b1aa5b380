"""Choose the engine (in-process or Spark) and wire targets, guards and the plan together."""

from __future__ import annotations

from typing import Any, Sequence

from kafkactl.bulk.plan import Guards, Plan, make_plan
from kafkactl.bulk.state import load
from kafkactl.bulk.targets import resolve_targets

# --spark auto: above this many desired bindings (summed over targets) the diff goes to Spark
AUTO_SPARK_BINDINGS = 2_000_000


def plan(app_ctx: Any, files: Sequence[str], contexts: Sequence[str], scope_file: str | None, protect: Sequence[str],
         no_delete: bool, max_deletes: str | None, mode: str, master: str | None, remote: str | None):
    guards = Guards(tuple(protect), no_delete, max_deletes)  # bad guard values first, before any file is read
    # every file error comes before any request; on Spark, flat files' rows are read and checked by Spark
    state = load(files, scope_file, flat_rows=mode != "spark")
    for d in state.duplicates[:5]:
        app_ctx.warn(d)
    targets = resolve_targets(contexts, state.clusters, app_ctx.selection)
    if mode == "auto":
        mode = "spark" if (master or remote or len(state.bindings) * len(targets) > AUTO_SPARK_BINDINGS) else "local"
        app_ctx.note(f"--spark auto: using the {'Spark' if mode == 'spark' else 'in-process'} engine")
        if mode == "spark":
            state = load(files, scope_file, flat_rows=False)
    gateways = {t.name: t.gateway(app_ctx.debug) for t in targets}
    if mode == "spark":
        from kafkactl.bulk.spark import spark_plan

        result = spark_plan(state, targets, guards, master, remote)
    elif _large_flat(files):
        result = _arrow_plan(files, scope_file, targets, gateways, guards)
    else:
        result = make_plan([(t.name, gateways[t.name], t.profile.super_users) for t in targets], state, guards)
    return result, gateways, mode


def _large_flat(files: Sequence[str]) -> bool:
    from pathlib import Path

    from kafkactl.bulk.arrow_diff import ARROW_BYTES
    from kafkactl.bulk.state import FLAT_SUFFIXES

    flat = [Path(f) for f in files if Path(f).suffix.lower() in FLAT_SUFFIXES]
    return sum(f.stat().st_size for f in flat if f.exists()) > ARROW_BYTES


def _arrow_plan(files, scope_file, targets, gateways, guards) -> Plan:
    """Large flat inputs: Arrow columns and hash anti-joins (kafkactl/bulk/arrow_diff.py)."""
    from pathlib import Path

    import pyarrow as pa

    from kafkactl.bulk.arrow_diff import bindings_table, diff_tables, read_flat
    from kafkactl.bulk.plan import read_current
    from kafkactl.bulk.state import FLAT_SUFFIXES

    state = load(files, scope_file, flat_rows=False)
    tables = [read_flat(f, state.scope) for f in files if Path(f).suffix.lower() in FLAT_SUFFIXES]
    if state.bindings:
        tables.append(bindings_table(state.bindings))
    desired = pa.concat_tables(tables)
    clusters = [diff_tables(t.name, desired, bindings_table(read_current(gateways[t.name])), state.scope, guards,
                            t.profile.super_users) for t in targets]
    return Plan(clusters, state.scope, list(state.sources), engine="in-process (arrow)")


def gateways_for(app_ctx: Any, clusters: Sequence[str]) -> dict[str, Any]:
    from kafkactl.profiles import ContextStore, parse_bootstrap

    from kafkactl.errors import UsageError

    known = ContextStore.load().contexts
    chosen = app_ctx.selection
    out = {}
    for name in clusters:
        if name in known:
            # a saved plan goes where it was made for: a -b or --context naming anything else is refused
            if chosen.bootstrap_servers or (chosen.context and chosen.context != name):
                given = f"-b {chosen.bootstrap_servers}" if chosen.bootstrap_servers else f"--context {chosen.context}"
                raise UsageError(f"the saved plan was made for context {name!r}, not {given}: leave it out, or "
                                 "make a plan for that cluster")
            out[name] = resolve_targets([name], [], chosen)[0].gateway(app_ctx.debug)
        elif chosen.bootstrap_servers and parse_bootstrap(chosen.bootstrap_servers) == name:  # a plan made with -b: the same -b (and credentials) again
            out[name] = app_ctx.gateway()
        else:
            raise UsageError(f"the saved plan was made for {name!r}, which is neither a context nor the -b given: "
                             f"give -b {name} with its credentials, or make a new plan")
    return out


def apply(app_ctx: Any, the_plan: Plan, gateways: dict, mode: str, progress, report, dry_run: bool):
    if mode == "spark" and not dry_run and the_plan.location is not None:
        from kafkactl.bulk.spark import spark_apply

        return spark_apply(the_plan, gateways, progress, report)
    from kafkactl.bulk.apply import apply as apply_local

    return apply_local(the_plan.materialize(), gateways, progress=progress, report=report, dry_run=dry_run)
