"""kafkactl configs export | plan | apply: topics, configs, quotas and SCRAM users as desired state (registered on
the configs group: everything kafka-configs.sh manages, and the topics themselves)."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from kafkactl.cli.options import DryRun, Yes

Files = Annotated[list[str], typer.Argument(metavar="FILE...", help="kind: State files (YAML or JSON); their acls: sections are for acls plan.", show_default=False)]
MaxDeletes = Annotated[Optional[str], typer.Option("--max-deletes", help="Refuse a plan deleting more than N items (config values, quotas, credentials, topics), or P% of those in scope.", show_default=False)]
DeleteTopics = Annotated[bool, typer.Option("--delete-topics", help="Delete managed topics the files leave out (without it they are left as they are, configs included).")]
Section = Annotated[Optional[list[str]], typer.Option("--section", metavar="topics|brokers|groups|clientMetrics|quotas|users", help="Only this section (repeatable; default every one).", show_default=False)]


def configs_export(
    ctx: typer.Context,
    section: Section = None,
    prefix: Annotated[Optional[list[str]], typer.Option("--prefix", help="Only entities whose name starts with this (repeatable); they become the file's manage: prefixes.", show_default=False)] = None,
    file: Annotated[Optional[str], typer.Option("--file", help="Write here instead of stdout.", show_default=False)] = None,
    fmt: Annotated[Optional[str], typer.Option("--format", "-f", metavar="yaml|json", show_default=False, help="The file format: yaml or json (default: --file's extension, else yaml; -o keeps its global meaning).")] = None,
) -> None:
    """Write the cluster's topics, explicit configs, quotas and SCRAM users as a State file (plan then shows no changes).

    Example:  kafkactl configs export --section topics --prefix team-a. > team-a-topics.yaml
    """
    import io
    from pathlib import Path

    from kafkactl.configs.state.export import export_state, write_document
    from kafkactl.errors import UsageError
    from kafkactl.limits import shown
    from kafkactl.privatefile import write_private

    from kafkactl.privatefile import check_out_file

    app_ctx = ctx.obj
    check_out_file(file, "--file")
    typed = ctx.find_root().params.get("output")  # None unless -o was on the command line
    typed = str(getattr(typed, "value", typed))
    if fmt is None and typed in ("json", "csv"):  # (issue 18 new-user pass: it wrote YAML, silently)
        raise UsageError(f"configs export -o {typed}: -o is the output format of kafkactl's results, not the "
                         "file's: give --format json (a State file is YAML or JSON)")
    if fmt not in (None, "yaml", "json"):
        raise UsageError(f"--format {shown(fmt)} is not one of yaml, json")
    as_json = fmt == "json" or (fmt is None and (file or "").lower().endswith(".json"))
    doc = export_state(app_ctx.gateway(), section or [], prefix or [])
    if file:
        text = io.StringIO()
        write_document(doc, text, as_json)
        write_private(Path(file), text.getvalue())
    else:
        write_document(doc, app_ctx.out, as_json)
    counts = ", ".join(f"{len(doc[s])} {s}" for s in doc if isinstance(doc[s], list))
    app_ctx.note(f"exported {counts}")
    if "topics" in doc:
        from kafkactl.topics import may_describe_all_under

        hidden = [p for p in doc["manage"].get("topics", []) if not may_describe_all_under(app_ctx.gateway(), p)]
        if hidden:  # (adversary pass on issue 18: an export as a user who sees no topic said nothing)
            app_ctx.warn(f"{app_ctx.gateway().who()} may not Describe every topic under "
                         f"{', '.join(repr(p) for p in hidden)}: the broker lists only those you may, so the file "
                         "manages topics it does not name (an apply with --delete-topics would delete them)")


def _plan(app_ctx, files, delete_topics, max_deletes):
    from kafkactl.configs.state.desired import read_desired
    from kafkactl.configs.state.plan import check_max_deletes, make_plan, read_current

    desired = read_desired(files)  # every file read and checked before the cluster is asked anything
    plan = make_plan(desired, read_current(app_ctx.gateway(), desired), delete_topics)
    check_max_deletes(plan, max_deletes)
    for w in plan.warnings:
        app_ctx.warn(w)
    for n in plan.notes:
        app_ctx.note(n)
    return desired, plan


def _summary(app_ctx, plan) -> None:
    from collections import Counter

    counts = Counter(c.action for c in plan.changes)
    app_ctx.note(f"{len(plan.changes)} changes ({', '.join(f'{n} {a}' for a, n in sorted(counts.items())) or 'none'})"
                 f" in {', '.join(plan.sections)}; {plan.deletions} deletions; current state {plan.fingerprint}")


def configs_plan(
    ctx: typer.Context,
    files: Files,
    delete_topics: DeleteTopics = False, max_deletes: MaxDeletes = None,
    out: Annotated[Optional[str], typer.Option("--out", help="Save the plan here (configs apply --plan applies it, refusing it when the files or the cluster changed since).", show_default=False)] = None,
    detailed_exitcode: Annotated[bool, typer.Option("--detailed-exitcode", help="Exit 0 without changes, 2 with changes, 1 on error.")] = False,
) -> None:
    """Show what configs apply would change: topics, configs, quotas and SCRAM users.

    Example:  kafkactl configs plan team-a.yaml --detailed-exitcode
    """
    from kafkactl.privatefile import check_out_file

    app_ctx = ctx.obj
    check_out_file(out, "--out")
    _, plan = _plan(app_ctx, files, delete_topics, max_deletes)
    if out:
        from kafkactl.configs.state.plan import save_plan

        save_plan(plan, files, delete_topics, out)
        app_ctx.note(f"plan saved to {out}")
    app_ctx.render(plan)
    _summary(app_ctx, plan)
    if detailed_exitcode and plan.changes:
        raise typer.Exit(2)


def configs_apply(
    ctx: typer.Context,
    files: Annotated[Optional[list[str]], typer.Argument(metavar="FILE...", help="kind: State files (or --plan).", show_default=False)] = None,
    plan_file: Annotated[Optional[str], typer.Option("--plan", help="Apply a plan saved with configs plan --out (refused, exit 2, when its files or the cluster changed since).", show_default=False)] = None,
    delete_topics: DeleteTopics = False, max_deletes: MaxDeletes = None,
    report: Annotated[Optional[str], typer.Option("--report", help="Write one JSON line per change (its outcome) here.", show_default=False)] = None,
    yes: Yes = False, dry_run: DryRun = False,
    wait: Annotated[bool, typer.Option("--wait/--no-wait", help="After the changes are taken, wait (up to 30 s) until the brokers show them, so that a plan made next shows none; --no-wait returns when the controller has taken them (brokers apply 20,000 topics' new configs in tens of seconds).")] = True,
) -> None:
    """Make the cluster's topics, configs, quotas and SCRAM users match the State files.

    Example:  kafkactl configs apply team-a.yaml --report apply.jsonl --yes
    """
    import json

    from kafkactl.cli.progress import progress_bar
    from kafkactl.configs.state.apply import apply_plan
    from kafkactl.errors import PartialFailure

    from kafkactl.errors import UsageError

    from kafkactl.privatefile import check_out_file

    app_ctx = ctx.obj
    check_out_file(report, "--report")
    if bool(files) == bool(plan_file):
        raise UsageError("configs apply takes State files or --plan with a saved plan: give one of them")
    if plan_file:
        from kafkactl.configs.state.plan import check_saved, load_saved

        if delete_topics:
            raise UsageError("--delete-topics and --plan: a saved plan keeps the choice it was made with")
        files, delete_topics, fingerprint, changes = load_saved(plan_file)
        desired, plan = _plan(app_ctx, files, delete_topics, max_deletes)
        check_saved(plan, fingerprint, changes, plan_file)
    else:
        desired, plan = _plan(app_ctx, files, delete_topics, max_deletes)
    _summary(app_ctx, plan)
    if not plan.changes:
        app_ctx.note("nothing to do: the cluster already matches the desired state")
        return
    if not dry_run:
        app_ctx.confirm(f"Apply {len(plan.changes)} changes ({plan.deletions} deletions)?", yes, "apply config changes")
    with progress_bar(app_ctx, len(plan.changes), "applying", threshold=0) as advance:
        result = apply_plan(app_ctx.gateway(), plan, dry_run, advance)
    if report:
        from pathlib import Path

        from kafkactl.privatefile import write_private

        write_private(Path(report), "".join(json.dumps(r.to_json()) + "\n" for r in result.results))
    failed = result.failed
    if not failed and not dry_run and wait:
        from kafkactl.configs.state.plan import confirm

        waited, left = confirm(app_ctx.gateway(), desired, delete_topics, timeout=30)
        if left:
            app_ctx.warn(f"after {waited:.1f} s the broker still does not show {left} of the changes: plan again "
                         "in a moment")
        else:
            app_ctx.note(f"the broker shows every change ({waited:.1f} s after the apply returned)")
    if not failed:
        app_ctx.render(result)
    else:  # (the root command renders the result a PartialFailure carries)
        err = PartialFailure(f"{len(failed)} of {len(result.results)} changes failed; first: {failed[0].section} "
                             f"{failed[0].entity} {failed[0].key or failed[0].action}: {failed[0].error}",
                             result=result)
        codes = {o.exit_code for o in failed}
        if len(failed) == len(result.results) and len(codes) == 1:
            err.exit_code = codes.pop()  # nothing took: not a partial failure, but the failure's own code
        raise err
