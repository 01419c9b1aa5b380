"""kafkactl diff: what differs between two clusters."""

from __future__ import annotations

from typing import Annotated

import typer

app = typer.Typer(help="Show what differs between two clusters: ACLs, topics and configs, quotas, SCRAM users.",
                  add_completion=False)
app.one_command = True  # type: ignore[attr-defined]  # (kafkactl.cli.root builds it as one command)


@app.command("diff")
def diff(
    ctx: typer.Context,
    context: Annotated[list[str], typer.Option("--context",
                                               help="A cluster's context: give exactly two, the first and the second.",
                                               show_default=False)],
    acls: Annotated[bool, typer.Option("--acls", help="Compare ACLs.")] = False,
    configs: Annotated[bool, typer.Option("--configs",
                                          help="Compare topics (partitions, replication factor) and explicit configs "
                                               "of topics, brokers, groups and client-metrics.")] = False,
    quotas: Annotated[bool, typer.Option("--quotas", help="Compare client quotas.")] = False,
    users: Annotated[bool, typer.Option("--users",
                                        help="Compare SCRAM users (mechanisms and iterations; "
                                             "passwords cannot be read).")] = False,
    topic_map: Annotated[list[str] | None, typer.Option("--topic-map", metavar="FIRST=SECOND",
                                                        help="Topic-name prefix of the first cluster and what it is on "
                                                             "the second (repeatable; =source. for "
                                                             "MirrorMaker 2's default naming).",
                                                        show_default=False)] = None,
    detailed_exitcode: Annotated[bool, typer.Option("--detailed-exitcode",
                                                    help="Exit 0 when the clusters match, 2 when they differ, 1 on "
                                                         "error (as plan's).")] = False,
) -> None:
    """Show what differs between two clusters (every part unless some are chosen).

    Exit 0 whether or not they differ (bad input 2, as every command); --detailed-exitcode: 2 when they differ.

    Example:  kafkactl diff --context prod-eu --context dr-eu --acls --configs --topic-map =eu.
    """
    from kafkactl.desired.diff import TopicMap, diff_clusters
    from kafkactl.desired.targets import check_choice, resolve_targets
    from kafkactl.errors import UsageError

    app_ctx = ctx.obj
    if len(context) != 2 or context[0] == context[1]:
        raise UsageError(f"diff compares two clusters: give --context twice with two names (got {len(context)}"
                         f"{': ' + ', '.join(context) if context else ''})")
    check_choice(context, [], app_ctx.selection)  # -b, --command-config or another --context would be ignored
    mapping = TopicMap.parse(topic_map or [])
    first, second = resolve_targets(context, [], app_ctx.selection)
    gw_a, gw_b = app_ctx.connect(first.profile), app_ctx.connect(second.profile)
    app_ctx.adopt(gw_a)
    app_ctx.adopt(gw_b)
    parts = [p for p, on in (("acls", acls), ("configs", configs), ("quotas", quotas), ("users", users)) if on]
    from kafkactl.describe.cluster import describe_cluster

    same = describe_cluster(gw_a).cluster_id
    if same is not None and same == describe_cluster(gw_b).cluster_id:  # two names for one cluster
        app_ctx.warn(f"{first.name} and {second.name} reach the same cluster (id {same}): what follows compares it "
                     "with itself")
    found = diff_clusters(gw_a, gw_b, parts, mapping)
    from kafkactl.formatters.views import DiffView

    app_ctx.render(DiffView(found, first.name, second.name))
    app_ctx.note(f"{len(found)} differences between {first.name} (first) and {second.name} (second)")
    if found and detailed_exitcode:
        raise typer.Exit(2)
