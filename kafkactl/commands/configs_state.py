"""kafkactl configs export | plan | apply: topics, configs, quotas and SCRAM users as desired state (registered on
the configs group: everything kafka-configs.sh manages, and the topics themselves)."""

from __future__ import annotations

from typing import Annotated

import typer

from kafkactl.cli.options import DryRun, Yes

Files = Annotated[list[str], typer.Argument(metavar="FILE...",
                                            help="kind: State files (YAML or JSON); their acls: "
                                                 "sections are for acls plan.",
                                            show_default=False)]
MaxDeletes = Annotated[str | None, typer.Option("--max-deletes",
                                                help="Refuse a plan deleting more than N items (config values, quotas, "
                                                     "credentials, topics), or P% of those in scope.",
                                                show_default=False)]
DeleteTopics = Annotated[bool, typer.Option("--delete-topics",
                                            help="Delete managed topics the files leave out (without it they are left "
                                                 "as they are, configs included).")]
Section = Annotated[list[str] | None, typer.Option("--section",
                                                   metavar="topics|brokers|groups|clientMetrics|quotas|users",
                                                   help="Only this section (repeatable; default every one).",
                                                   show_default=False)]


def configs_export(
    ctx: typer.Context,
    section: Section = None,
    prefix: Annotated[list[str] | None, typer.Option("--prefix",
                                                     help="Only entities whose name starts with this (repeatable); "
                                                          "they become the file's manage: prefixes.",
                                                     show_default=False)] = None,
    file: Annotated[str | None, typer.Option("--file", help="Write here instead of stdout.",
                                             show_default=False)] = None,
    fmt: Annotated[str | None, typer.Option("--format", "-f", metavar="yaml|json", show_default=False,
                                            help="The file format: yaml or json (default: --file's extension, else "
                                                 "yaml; -o keeps its global meaning).")] = None,
) -> None:
    """Write the cluster's topics, explicit configs, quotas and SCRAM users as a State file (plan then shows no changes).

    Example:  kafkactl configs export --section topics --prefix team-a. > team-a-topics.yaml
    """  # noqa: E501 (help text: the man page takes its first line whole)
    from kafkactl.commands import typed_output
    from kafkactl.desired.configs.export import export_to, file_format, unseen_topics
    from kafkactl.privatefile import check_out_file

    app_ctx = ctx.obj
    check_out_file(file, "--file")
    as_json = file_format(fmt, file, typed_output(ctx))
    doc = export_to(app_ctx.gateway(), section or [], prefix or [], file, app_ctx.out, as_json)
    from kafkactl.limits import plural

    # (topics, brokers, groups, clientMetrics, quotas, users: each section's name is its noun's plural)
    app_ctx.note("exported " + ", ".join(plural(len(doc[s]), s[:-1], s) for s in doc if isinstance(doc[s], list)))
    warning = unseen_topics(app_ctx.gateway(), doc)
    if warning:
        app_ctx.warn(warning)


def _say(app_ctx):
    """What shows a plan's warnings and notes as soon as it is made (before anything refuses or renders it)."""
    def said(planned) -> None:
        for w in planned.plan.warnings:
            app_ctx.warn(w)
        for n in planned.plan.notes:
            app_ctx.note(n)
        from kafkactl.desired.change import say_irreversible

        lasting = say_irreversible(c.as_change() for c in planned.plan.changes)
        if lasting:
            app_ctx.note(lasting)
    return said


def configs_plan(
    ctx: typer.Context,
    files: Files,
    delete_topics: DeleteTopics = False, max_deletes: MaxDeletes = None,
    out: Annotated[str | None, typer.Option("--out", metavar="DIR",
                                            help="Save the plan in this directory (configs apply --plan applies it, "
                                                 "refusing it when the files or the cluster changed since).",
                                            show_default=False)] = None,
    detailed_exitcode: Annotated[bool, typer.Option("--detailed-exitcode",
                                                    help="Exit 0 without changes, 2 with "
                                                         "changes, 1 on error.")] = False,
) -> None:
    """Show what configs apply would change: topics, configs, quotas and SCRAM users.

    Example:  kafkactl configs plan team-a.yaml --detailed-exitcode
    """
    from kafkactl.desired.configs.run import plan_files

    app_ctx = ctx.obj
    if out:
        from kafkactl.desired.saved import check_out_dir
        from kafkactl.privatefile import note_read

        for f in files or ():
            note_read(f)
        check_out_dir(out)  # before any work: a broker's read
    planned = plan_files(app_ctx.gateway, files, delete_topics, max_deletes, _say(app_ctx))
    if out:
        from kafkactl.desired.configs.plan import save_plan

        save_plan(planned.plan, files, delete_topics, out)
        app_ctx.note(f"plan saved to {out}")
    app_ctx.render(planned.plan)
    app_ctx.note(planned.summary())
    if detailed_exitcode and planned.plan.changes:
        raise typer.Exit(2)


def configs_apply(
    ctx: typer.Context,
    files: Annotated[list[str] | None, typer.Argument(metavar="FILE...", help="kind: State files (or --plan).",
                                                      show_default=False)] = None,
    plan_file: Annotated[str | None, typer.Option("--plan", metavar="DIR",
                                                  help="Apply a plan saved with configs plan --out (refused, exit 2, "
                                                       "when its files or the cluster changed since).",
                                                  show_default=False)] = None,
    delete_topics: DeleteTopics = False, max_deletes: MaxDeletes = None,
    report: Annotated[str | None, typer.Option("--report", help="Write one JSON line per change (its outcome) here.",
                                               show_default=False)] = None,
    yes: Yes = False, dry_run: DryRun = False,
    allow_lockout: Annotated[bool, typer.Option("--allow-lockout",
                                                help="Apply a plan that deletes or replaces (a new password) the "
                                                     "SCRAM credential this command authenticates with, or a super "
                                                     "user's (refused without it).")] = False,
    wait: Annotated[bool, typer.Option("--wait/--no-wait",
                                       help="After the changes are taken, wait (up to 30 s) until the brokers show "
                                            "them, so that a plan made next shows none; --no-wait returns when the "
                                            "controller has taken them (brokers apply 20,000 topics' new configs "
                                            "in tens of seconds).")] = True,
) -> None:
    """Make the cluster's topics, configs, quotas and SCRAM users match the State files.

    The plan is first sent in validate-only requests: when a broker refuses any change (a mistyped config
    name, a bad value, a missing ACL), nothing is applied. SCRAM credentials and topic deletions have no
    validate-only request: for them the brokers are asked whether the caller holds Alter on the Cluster and
    Delete on each topic.

    Each change's outcome (stdout, and --report): applied, failed, skipped (not sent), unknown (sent, no answer:
    plan again to see whether it took) or, with --dry-run, validated. Exit codes: 0 done; 2 bad input; 3 not
    authorized and 1 refused by a broker (nothing applied); 4 no broker answered; 5 some changes applied and
    others failed or were not sent; 130 Ctrl-C. An apply that stops part way still writes its report.

    Example:  kafkactl configs apply team-a.yaml --report apply.jsonl --yes
    """
    from kafkactl.cli.progress import progress_bar
    from kafkactl.desired.configs.run import apply, plan_for_apply, settle
    from kafkactl.desired.report import Report
    from kafkactl.errors import KafkactlError
    from kafkactl.privatefile import check_out_file

    app_ctx = ctx.obj
    check_out_file(report, "--report", [*(files or ()), *([plan_file] if plan_file else [])])
    out = Report(report)  # made when the files are read: this run's from then on, whatever the run does
    planned = plan_for_apply(app_ctx.gateway, files, plan_file, delete_topics, max_deletes, _say(app_ctx),
                             allow_lockout, files_read=out.start)
    app_ctx.note(planned.summary())
    changes = planned.plan.changes
    if not changes:
        app_ctx.note("nothing to do: the cluster already matches the desired state")
        return
    if not dry_run:
        from kafkactl.limits import plural

        app_ctx.confirm(f"Apply {plural(len(changes), 'change')} ({plural(planned.plan.deletions, 'deletion')})?", yes,
                        "apply config changes")
    with progress_bar(app_ctx, len(changes), "applying", threshold=0) as advance, out:
        # (a failure raises PartialFailure carrying the result: the root command renders it)
        result = apply(app_ctx.gateway(), planned, dry_run, out, advance)
    if wait and not dry_run:
        try:
            shown, said = settle(app_ctx.gateway(), planned)
        except KafkactlError as exc:  # every change was taken: only the confirmation failed
            shown, said = False, f"applied; the wait for the brokers to show it stopped ({exc.message}): plan again"
        except KeyboardInterrupt:
            app_ctx.render(result)
            raise
        (app_ctx.note if shown else app_ctx.warn)(said)
    app_ctx.render(result)
