"""kafkactl groups ...: list and describe consumer groups (kafka-consumer-groups.sh --list/--describe)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from kafkactl.cli import completers as complete
from kafkactl.cli.options import AuthorizedOpsFlag

if TYPE_CHECKING:
    from kafkactl.cli.context import AppContext

app = typer.Typer(help="List and describe consumer groups.", no_args_is_help=True)


@app.command("list")
def groups_list(ctx: typer.Context, authorized_ops: AuthorizedOpsFlag = False) -> None:
    """List the groups the broker shows you (KIP-231: all with Describe on the cluster, else those you may describe).

    Example:  kafkactl groups list -o json
    """
    from kafkactl.describe import groups

    app_ctx: AppContext = ctx.obj
    if authorized_ops:
        from kafkactl.formatters.views import AuthorizedOpsView

        found, _ = groups.describe_groups(app_ctx.gateway(), None, authorized_operations=True)
        app_ctx.render(AuthorizedOpsView(found, [(g.group, g.authorized_operations) for g in found], "groups"))
        if not found:
            app_ctx.hint(groups.why_empty(app_ctx.gateway()))
        return
    result = groups.list_groups(app_ctx.gateway(), partial=True)
    app_ctx.render(result, of=groups.GroupListing, empty="no consumer groups the caller may describe")
    if not result:
        app_ctx.hint(groups.why_empty(app_ctx.gateway()))


@app.command("describe")
def groups_describe(
    ctx: typer.Context,
    group_ids: Annotated[list[str] | None, typer.Argument(metavar="[GROUP]...",
                                                          help="Group ids (default: every group listed for you).",
                                                          autocompletion=complete.groups, show_default=False)] = None,
    authorized_ops: AuthorizedOpsFlag = False,
) -> None:
    """Describe groups: state, type, assignor, coordinator and members (classic and KIP-848 consumer groups).

    Example:  kafkactl groups describe orders-app --authorized-ops
    """
    from kafkactl.cli.authz import report_errors
    from kafkactl.describe import groups
    from kafkactl.formatters.views import AuthorizedOpsView

    app_ctx: AppContext = ctx.obj
    skipped: dict[str, list[str]] = {}
    found, errors = groups.describe_groups(app_ctx.gateway(), group_ids or None, authorized_operations=authorized_ops,
                                           skipped=skipped)
    from kafkactl.formatters.views import GroupsView

    if authorized_ops:  # (added to the describe view, not instead of it)
        app_ctx.render(AuthorizedOpsView(found, [(g.group, g.authorized_operations) for g in found], "groups",
                                         GroupsView(found)))
    else:
        app_ctx.render(GroupsView(found))
    if skipped:
        app_ctx.note("not described (kafkactl describes consumer groups; `groups list` lists every type): "
                     + "; ".join(f"{len(ids)} {kind} group{'s' if len(ids) != 1 else ''}"
                                 for kind, ids in sorted(skipped.items())))
    if not found and not errors and not group_ids:
        app_ctx.hint(groups.why_empty(app_ctx.gateway()))
    report_errors(app_ctx, errors, len(found))
