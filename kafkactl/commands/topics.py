"""kafkactl topics ..."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from kafkactl.cli import completers as complete
from kafkactl.cli.options import AuthorizedOpsFlag, DryRun, Yes

if TYPE_CHECKING:
    from kafkactl.cli.context import AppContext

app = typer.Typer(help="List, create and delete topics.", no_args_is_help=True)


@app.command("list")
def topics_list(
    ctx: typer.Context,
    exclude_internal: Annotated[bool, typer.Option("--exclude-internal",
                                                   help="Leave out __consumer_offsets and "
                                                        "other internal topics.")] = False,
    authorized_ops: AuthorizedOpsFlag = False,
) -> None:
    """List the topics the caller may describe.

    Example:  kafkactl topics list -o plain | cut -f1
    """
    from kafkactl.describe import topics

    app_ctx: AppContext = ctx.obj
    if authorized_ops:
        from kafkactl.formatters.views import AuthorizedOpsView

        found, _ = topics.describe_topics(app_ctx.gateway(), None, authorized_operations=True)
        found = [t for t in found if not (exclude_internal and t.internal)]
        app_ctx.render(AuthorizedOpsView(found, [(t.name, t.authorized_operations) for t in found], "topics"))
        return
    result = topics.list_topics(app_ctx.gateway(), include_internal=not exclude_internal)
    app_ctx.render(result, of=topics.TopicSummary, empty="no topics the caller may describe")
    if not result:
        app_ctx.hint(topics.why_empty(app_ctx.gateway()))


@app.command("describe")
def topics_describe(
    ctx: typer.Context,
    names: Annotated[list[str] | None, typer.Argument(help="Topic names (default: every topic you may Describe).",
                                                      autocompletion=complete.topics, show_default=False)] = None,
    authorized_ops: AuthorizedOpsFlag = False,
) -> None:
    """Describe topics: partitions, leaders, replicas, ISR, offline replicas.

    Example:  kafkactl topics describe orders.eu orders.us --authorized-ops
    """
    from kafkactl.cli.authz import report_errors
    from kafkactl.describe import topics
    from kafkactl.formatters.views import AuthorizedOpsView

    app_ctx: AppContext = ctx.obj
    found, errors = topics.describe_topics(app_ctx.gateway(), names or None, authorized_operations=authorized_ops)
    from kafkactl.formatters.views import TopicsView

    if authorized_ops:  # (added to the describe view, not instead of it)
        app_ctx.render(AuthorizedOpsView(found, [(t.name, t.authorized_operations) for t in found], "topics",
                                         TopicsView(found)))
    else:
        app_ctx.render(TopicsView(found))
    if not found and not errors and not names:
        app_ctx.hint(topics.why_empty(app_ctx.gateway()))
    report_errors(app_ctx, errors, len(found))


@app.command("create")
def topics_create(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="Topic name.")],
    partitions: Annotated[int | None, typer.Option("--partitions", "-p",
                                                   help="Partition count (default: the broker's num.partitions).",
                                                   show_default=False)] = None,
    replication_factor: Annotated[int | None, typer.Option("--replication-factor", "-r",
                                                           help="Replication factor (default: the broker's "
                                                                "default.replication.factor).",
                                                           show_default=False)] = None,
    config: Annotated[list[str] | None, typer.Option("--config", "-c", help="Topic config key=value (repeatable).",
                                                     show_default=False)] = None,
    dry_run: DryRun = False,
) -> None:
    """Create a topic.

    Example:  kafkactl topics create orders.eu --partitions 6 --config retention.ms=86400000
    """
    from kafkactl.describe import topics

    app_ctx: AppContext = ctx.obj
    configs = topics.parse_config_pairs(config or [])
    app_ctx.render(topics.create_topic(app_ctx.gateway(), name, partitions, replication_factor, configs, dry_run))


@app.command("delete")
def topics_delete(
    ctx: typer.Context,
    names: Annotated[list[str], typer.Argument(help="Topic name(s).", autocompletion=complete.topics)],
    yes: Yes = False,
) -> None:
    """Delete topics (asks on a terminal; needs --yes otherwise).

    Example:  kafkactl topics delete orders.old --yes
    """
    from kafkactl.describe import topics

    app_ctx: AppContext = ctx.obj
    for n in names:
        topics.validate_topic_name(n)
    app_ctx.confirm(f"Delete {len(names)} topic(s): {', '.join(names)}?", yes, "delete topics")
    app_ctx.render(topics.delete_topics(app_ctx.gateway(), names))
