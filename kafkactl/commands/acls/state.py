"""kafkactl acls export | plan | apply: desired-state ACLs (registered on the acls group)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from kafkactl.cli.options import DryRun, Yes

if TYPE_CHECKING:
    from kafkactl.desired.engine import SparkMode

Contexts = Annotated[list[str] | None, typer.Option("--context",
                                                    help="Target context (repeatable: fan out to several clusters).",
                                                    show_default=False)]
ScopeFile = Annotated[str | None, typer.Option("--scope",
                                               help="A YAML file with a scope: section (for CSV/Parquet inputs).",
                                               show_default=False)]
Protect = Annotated[list[str] | None, typer.Option("--protect",
                                                   help="A principal (or prefix ending in *) never "
                                                        "touched (repeatable).",
                                                   show_default=False)]
NoDelete = Annotated[bool, typer.Option("--no-delete", help="Only create; plan no deletions.")]
MaxDeletes = Annotated[str | None, typer.Option("--max-deletes",
                                                help="Refuse a plan with more deletions than N or P% "
                                                     "of the ACLs in scope.",
                                                show_default=False)]
Spark = Annotated[bool | None, typer.Option("--spark/--no-spark",
                                            help="Force the engine: Spark, or in-process. Default (`--spark auto`): "
                                                 "in-process unless the plan would need more than half the memory "
                                                 "available; the choice and why go to stderr.",
                                            rich_help_panel="Engine", show_default=False)]
SparkAuto = Annotated[bool, typer.Option("--spark-auto", hidden=True, help="What `--spark auto` becomes.")]
SparkMaster = Annotated[str | None, typer.Option("--spark-master", help="Spark master URL (default local[*]).",
                                                 rich_help_panel="Engine", show_default=False)]
SparkRemote = Annotated[str | None, typer.Option("--spark-remote", help="Spark Connect URL sc://host:port.",
                                                 rich_help_panel="Engine", show_default=False)]
Files = Annotated[list[str] | None, typer.Argument(metavar="FILE...",
                                                   help="Desired-state files (yaml, json, jsonl, csv, parquet).",
                                                   show_default=False)]


def acls_export(
    ctx: typer.Context,
    fmt: Annotated[str | None, typer.Option("--format", "-f", metavar="yaml|jsonl|csv|parquet|terraform|strimzi|ksm",
                                            show_default=False,
                                            help="The file format: yaml, jsonl, csv or parquet (default: --file's "
                                                 "extension, else yaml; -o keeps its global meaning); or another "
                                                 "tool's: terraform (kafka_acl resources with import blocks), strimzi "
                                                 "(KafkaUser resources), ksm (kafka-security-manager CSV).")] = None,
    principal: Annotated[list[str] | None, typer.Option("--principal",
                                                        help="Only these principals (repeatable); "
                                                             "they become the scope.",
                                                        show_default=False)] = None,
    principal_prefix: Annotated[list[str] | None, typer.Option("--principal-prefix",
                                                               help="Only principals starting with this (repeatable).",
                                                               show_default=False)] = None,
    prefix: Annotated[list[str] | None, typer.Option("--prefix",
                                                     help="Only resources whose name starts with this "
                                                          "(repeatable, every type).",
                                                     show_default=False)] = None,
    file: Annotated[str | None, typer.Option("--file", help="Write here instead of stdout (required for parquet).",
                                             show_default=False)] = None,
    strimzi_cluster: Annotated[str, typer.Option("--strimzi-cluster",
                                                 help="The strimzi.io/cluster label of KafkaUser "
                                                      "resources (--format strimzi).")] = "my-cluster",
) -> None:
    """Write the cluster's ACLs as a desired-state file (export then plan shows no changes).

    Example:  kafkactl acls export --principal-prefix User:team-a- > team-a.yaml
    """
    from kafkactl.desired.export import export

    app_ctx = ctx.obj
    _refuse_old_output_option(ctx)
    notes: list[str] = []
    n = export(app_ctx.gateway(), fmt, principal or [], principal_prefix or [], prefix or [], file, app_ctx.out,
               strimzi_cluster, notes)
    for note in notes:
        app_ctx.warn(note)
    from kafkactl.limits import plural

    app_ctx.note(f"exported {plural(n, 'ACL binding')}")


def acls_import(
    ctx: typer.Context,
    files: Annotated[list[str], typer.Argument(metavar="FILE...", help="The other tool's files.", show_default=False)],
    source: Annotated[str, typer.Option("--from", metavar="ksm|julie-ops|kafka-gitops|terraform|strimzi",
                                        help="What wrote the files: ksm (kafka-security-manager CSV), julie-ops "
                                             "(topology YAML), kafka-gitops (state YAML), terraform (kafka provider "
                                             "HCL), strimzi (KafkaUser YAML).")],
    file: Annotated[str | None, typer.Option("--file", help="Write the State file here instead of stdout.",
                                             show_default=False)] = None,
) -> None:
    """Turn another tool's ACL (and quota, topic, user) files into a kafkactl State file, scoped to their principals.

    Example:  kafkactl acls import --from julie-ops topology.yaml > state.yaml && kafkactl acls plan state.yaml
    """
    import io

    import yaml

    from kafkactl.desired.interop.convert import import_files
    from kafkactl.privatefile import write_output

    app_ctx = ctx.obj
    doc, notes = import_files(source, files)
    for note in notes:
        app_ctx.warn(note)
    text = io.StringIO()
    yaml.safe_dump(doc, text, sort_keys=False, default_flow_style=False, allow_unicode=True, width=120)
    if file:
        write_output(file, text.getvalue(), "--file")
    else:
        app_ctx.out.write(text.getvalue())
    from kafkactl.limits import plural

    n = sum(len(e.get("allow") or []) + len(e.get("deny") or []) for e in doc.get("acls") or [])
    counts = [plural(len(doc.get(k) or []), k[:-1]) for k in ("topics", "quotas", "users")]
    entries = plural(n, "resource entry", "resource entries")
    kind = "" if doc.get("kind") == "State" else (f" (kind {doc.get('kind')}: for acls plan and apply; configs plan "
                                                 "has nothing to do with it)")
    app_ctx.note(f"imported {plural(len(doc.get('acls') or []), 'principal')} ({entries}), " + ", ".join(counts)
                 + kind)


def _refuse_old_output_option(ctx: typer.Context) -> None:
    """`export -o csv` once chose the file format; -o is now the global output format, which export's stdout (the
    file itself) does not use. Rather than silently write YAML where a script expects CSV, say so (`-o yaml`
    names the default format and is harmless)."""
    from click.core import ParameterSource

    from kafkactl.commands import typed_output
    from kafkactl.errors import UsageError

    if typed_output(ctx) == "csv" and ctx.get_parameter_source("fmt") is ParameterSource.DEFAULT:
        raise UsageError("acls export -o csv: -o is the output format of kafkactl's results, not the file's: give "
                         "--format csv")


def _spark_mode(spark: bool | None, spark_auto: bool, master: str | None, remote: str | None) -> SparkMode:
    """`--spark auto` (or `--spark=auto`) reaches the command as --spark-auto (kafkactl.cli.argv.optional_values);
    neither --spark nor --no-spark is auto too."""
    from kafkactl.errors import UsageError

    if spark_auto and spark is not None:
        raise UsageError(f"--spark auto and {'--spark' if spark else '--no-spark'}: give one engine choice")
    if spark is False and (master or remote):
        raise UsageError(f"--no-spark and {'--spark-master' if master else '--spark-remote'}: a Spark URL means "
                         "the Spark engine; give one or the other")
    return "auto" if spark is None else ("on" if spark else "off")


def _compute(app_ctx, files, plan_dir, contexts, scope, protect, no_delete, max_deletes, spark, master, remote,
             spark_auto=False, watch=None, allow: tuple[bool, bool] | None = None, files_read=None):
    """The plan (new or saved) through the core API; its notes and warnings shown on stderr."""
    from kafkactl.desired.engine import PlanRequest, make

    result = make(PlanRequest(files=tuple(files or ()), plan_dir=plan_dir, contexts=tuple(contexts or ()),
                              scope_file=scope, protect=tuple(protect or ()), no_delete=no_delete,
                              max_deletes=max_deletes, spark=_spark_mode(spark, spark_auto, master, remote),
                              spark_master=master,
                              spark_remote=remote, selection=app_ctx.selection, debug=app_ctx.debug, watch=watch,
                              connect=app_ctx.connect,
                              tell=app_ctx.note,
                              allow_every_principal=None if allow is None else allow[0],
                              allow_lockout=None if allow is None else allow[1], files_read=files_read))
    app_ctx.adopt(result)
    for w in result.warnings:
        app_ctx.warn(w)
    if result.plan.location is None:  # (in memory: a Spark plan's rows stay on disk, not read back for this)
        from kafkactl.acl.lint import spelling_warnings

        for w in spelling_warnings(r.binding for r in result.plan.rows() if r.action == "CREATE"):
            app_ctx.warn(w)  # what acls create says of a new ACL's host or principal, said of the file's
    for n in result.notes:
        app_ctx.note(n)
    return result


def _show_summary(app_ctx, plan) -> None:
    for c in plan.clusters:
        counts = c.counts()
        app_ctx.note(f"{c.cluster}: +{counts[1] + counts[2]} -{counts[3] + counts[4]} "
                     f"(phase 1 create DENY {counts[1]}, 2 create ALLOW {counts[2]}, 3 delete ALLOW {counts[3]}, "
                     f"4 delete DENY {counts[4]}); {c.current_in_scope} of {c.current_total} current ACLs in scope, "
                     f"{c.desired} desired"
                     + (f", {c.protected_skipped} protected left alone" if c.protected_skipped else "")
                     + (f", {c.deletes_withheld} deletions withheld (--no-delete)" if c.deletes_withheld else ""))
    for s in plan.radius:  # (stdout holds it too, but plain and csv carry only the changes)
        app_ctx.note(s.sentence())
    for n in plan.radius_notes:
        app_ctx.note(n)


def acls_plan(
    ctx: typer.Context,
    files: Files = None,
    context: Contexts = None, scope: ScopeFile = None, protect: Protect = None, no_delete: NoDelete = False,
    max_deletes: MaxDeletes = None,
    out: Annotated[str | None, typer.Option("--out", help="Save the plan in this directory (apply --plan uses it).",
                                            show_default=False)] = None,
    jsonl: Annotated[bool, typer.Option("--jsonl", help="Changes as JSON lines on stdout.")] = False,
    limit: Annotated[int, typer.Option("--limit", help="Rows shown in the table view (0: all).")] = 200,
    detailed_exitcode: Annotated[bool, typer.Option("--detailed-exitcode",
                                                    help="Exit 0 without changes, 2 with "
                                                         "changes, 1 on error.")] = False,
    spark: Spark = None, spark_master: SparkMaster = None, spark_remote: SparkRemote = None,
    spark_auto: SparkAuto = False,
) -> None:
    """Show what apply would change, by cluster, phase and resource.

    Example:  kafkactl acls plan team-a.yaml --context prod-eu --context prod-us --detailed-exitcode
    """
    from kafkactl.desired.plan import save
    from kafkactl.formatters.views import PlanLinesView, PlanView

    app_ctx = ctx.obj
    from kafkactl.cli.progress import spark_progress

    if out:
        from kafkactl.desired.saved import check_out_dir
        from kafkactl.privatefile import note_read

        for f in [*(files or ()), *([scope] if scope else [])]:
            note_read(f)
        check_out_dir(out)  # before any work: a JVM's start, a broker's read
    with spark_progress(app_ctx) as watch:
        plan = _compute(app_ctx, files, None, context, scope, protect, no_delete, max_deletes, spark,
                        spark_master, spark_remote, spark_auto, watch).plan
    if out:
        save(plan, out)
        app_ctx.note(f"plan saved to {out}")
    app_ctx.render(PlanLinesView(plan) if jsonl else PlanView(plan, limit))
    _show_summary(app_ctx, plan)
    if detailed_exitcode and plan.changes:
        raise typer.Exit(2)


def acls_apply(
    ctx: typer.Context,
    files: Files = None,
    plan_dir: Annotated[str | None, typer.Option("--plan",
                                                 help="Apply a plan saved with acls plan --out (a stale one, made from "
                                                      "other ACLs than the cluster has now, is refused: exit 2).",
                                                 show_default=False)] = None,
    context: Contexts = None, scope: ScopeFile = None, protect: Protect = None, no_delete: NoDelete = False,
    max_deletes: MaxDeletes = None,
    report: Annotated[str | None, typer.Option("--report", help="Write one JSON line per binding (its outcome) here.",
                                               show_default=False)] = None,
    yes: Yes = False, dry_run: DryRun = False,
    spark: Spark = None, spark_master: SparkMaster = None, spark_remote: SparkRemote = None,
    spark_auto: SparkAuto = False,
    allow_every_principal: Annotated[bool, typer.Option("--allow-every-principal",
                                                        help="Apply a plan that grants something to every principal "
                                                             "(User:*) or takes a DENY for it away; refused without "
                                                             "it.")] = False,
    allow_lockout: Annotated[bool, typer.Option("--allow-lockout",
                                                help="Apply a plan that takes Alter, AlterConfigs or Describe on the "
                                                     "cluster from the principal this command runs "
                                                     "as; refused without it.")] = False,
) -> None:
    """Make the clusters' ACLs match the desired state: four confirmed phases (DENY first, old DENYs last).

    The plan's blast radius (who gains and loses which operations on how many existing topics, groups and
    transactional ids) is shown first. A plan granting to every principal, or taking from the caller what
    administering the cluster needs, is refused (exit 2) unless its flag is given.

    Example:  kafkactl acls apply team-a.yaml --report apply.jsonl --yes
    """
    from kafkactl.cli.progress import spark_progress
    from kafkactl.privatefile import check_out_file

    app_ctx = ctx.obj
    # before the plan and the prompt, not after the operator said yes
    check_out_file(report, "--report", _inputs(files, scope, plan_dir))
    from kafkactl.desired.report import Report

    out = Report(report)  # made when the files are read: this run's from then on, whatever the run does
    with spark_progress(app_ctx) as watch:
        planned = _compute(app_ctx, files, plan_dir, context, scope, protect, no_delete, max_deletes, spark,
                           spark_master, spark_remote, spark_auto, watch, (allow_every_principal, allow_lockout),
                           out.start)
        if watch is not None:
            watch.close()  # (a prompt may follow: no live display under it)
        _apply(app_ctx, planned, out, yes, dry_run, watch)


def _inputs(files, scope, plan_dir) -> list[str]:
    """The files an apply reads (its --report must not be one): the desired files, the scope file, a saved plan."""
    from pathlib import Path

    read = [*(files or ()), *([scope] if scope else [])]
    if plan_dir and Path(plan_dir).is_dir():
        read += [str(p) for p in Path(plan_dir).rglob("*") if p.is_file()]
    return read + ([plan_dir] if plan_dir else [])


SHOWN_DELETES = 50


def _show_deletes(app_ctx, plan) -> None:
    """Before the question on a terminal: the bindings the apply deletes (the first SHOWN_DELETES), on stderr."""
    from collections import Counter

    from kafkactl.acl.model import Permission
    from kafkactl.limits import plural

    # DENYs first: taking one away widens access, the change to read before any other
    deletes = sorted((r.binding for r in plan.rows() if r.action == "DELETE"),
                     key=lambda b: b.permission is not Permission.DENY)
    if not deletes:
        return
    kinds = Counter((b.permission.name, b.resource_type.name) for b in deletes)
    said = ", ".join(f"{n:,} {perm} on {rtype}" for (perm, rtype), n in sorted(kinds.items()))
    app_ctx.message(f"the apply deletes {plural(len(deletes), 'ACL binding')} ({said})"
                    + (f"; the first {SHOWN_DELETES}:" if len(deletes) > SHOWN_DELETES else ":"))
    app_ctx.render_to_stderr(deletes[:SHOWN_DELETES])
    if len(deletes) > SHOWN_DELETES:
        app_ctx.message(f"... and {len(deletes) - SHOWN_DELETES:,} more (acls plan -o json lists every one)")


def _apply(app_ctx, planned, out, yes, dry_run, watch) -> None:
    from kafkactl.cli.progress import progress_bar

    plan = planned.plan
    _show_summary(app_ctx, plan)
    if not plan.changes:
        app_ctx.note("nothing to do: the clusters already match the desired state")
        return
    if not dry_run:
        if not yes and app_ctx.interactive():
            _show_deletes(app_ctx, plan)
        from kafkactl.limits import plural

        where = ", ".join(c.cluster for c in plan.clusters)
        app_ctx.confirm(f"Apply {plural(plan.changes, 'change')} to {where}?", yes, "apply ACL changes")
    try:
        if watch is not None and planned.mode == "spark" and not dry_run:
            result = planned.apply(watch.bindings(plan.changes, "applying"), out, dry_run)
        else:
            with progress_bar(app_ctx, plan.changes, "applying", threshold=0) as advance:
                result = planned.apply(advance, out, dry_run)
    finally:
        out.close()
        if watch is not None:
            watch.close()
    app_ctx.render(result)
    if getattr(result, "unconfirmed", None):
        app_ctx.warn(result.unconfirmed)
    confirmed = result.slowest()
    if confirmed:
        app_ctx.note(confirmed)
    if out.failed:  # the changes are made (their result is on stdout); the record of them is not whole
        from kafkactl.errors import PartialFailure
        from kafkactl.exitcodes import ExitCode

        err = PartialFailure(f"the report was not written whole: {out.failed}")
        err.exit_code = ExitCode.ERROR
        raise err
