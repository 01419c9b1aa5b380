"""kafkactl cluster ..."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from kafkactl.cli.options import AuthorizedOpsFlag

if TYPE_CHECKING:
    from kafkactl.cli.context import AppContext

app = typer.Typer(help="Describe the cluster.", no_args_is_help=True)


@app.command("describe")
def cluster_describe(ctx: typer.Context, authorized_ops: AuthorizedOpsFlag = False) -> None:
    """Show the cluster id, the active controller, the metadata quorum and the brokers.

    Example:  kafkactl cluster describe --authorized-ops -o json
    """
    from kafkactl.describe import cluster

    app_ctx: AppContext = ctx.obj
    info = cluster.describe_cluster(app_ctx.gateway(), authorized_operations=authorized_ops, quorum=True)
    if info.quorum_note:
        app_ctx.warn(info.quorum_note)
    if authorized_ops:
        from kafkactl.formatters.views import AuthorizedOpsView

        app_ctx.render(AuthorizedOpsView(info, [("kafka-cluster", info.authorized_operations)], described=info))
        ops = info.authorized_operations
        if ops is not None and ops.supplied and ops.raw == 0:
            app_ctx.hint(cluster.EMPTY_CLUSTER_OPS_HINT)
    else:
        app_ctx.render(info)
