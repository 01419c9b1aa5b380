"""kafkactl auth ...: what may the calling principal do?"""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:
    from kafkactl.cli.context import AppContext

app = typer.Typer(help="The calling principal's view of its own permissions.", no_args_is_help=True)


@app.command("whoami")
def auth_whoami(ctx: typer.Context) -> None:
    """Show the caller's authorized operations on the cluster, every visible topic and every visible group.

    Example:  kafkactl --context local-alice auth whoami
    """
    from kafkactl.formatters.views import WhoamiView
    from kafkactl.whoami import whoami

    app_ctx: AppContext = ctx.obj
    me = whoami(app_ctx.gateway())
    app_ctx.render(WhoamiView(me))
    ops = me.cluster.authorized_operations
    if ops.supplied and ops.raw == 0:
        from kafkactl.cluster import EMPTY_CLUSTER_OPS_HINT

        app_ctx.hint(EMPTY_CLUSTER_OPS_HINT)
    if not me.groups:
        from kafkactl.groups import empty_list_hint

        app_ctx.hint(empty_list_hint(ops))
