"""kafkactl auth ...: what may the calling principal do?"""

from __future__ import annotations

import typer

app = typer.Typer(help="The calling principal's view of its own permissions.", no_args_is_help=True)


@app.command("whoami")
def auth_whoami(ctx: typer.Context) -> None:
    """Show the caller's authorized operations on the cluster, every visible topic and every visible group.

    Example:  kafkactl --context local-alice auth whoami
    """
    from kafkactl.acl.model import AclOperation
    from kafkactl.formatters.views import WhoamiView
    from kafkactl.whoami import whoami

    app_ctx = ctx.obj
    me = whoami(app_ctx.gateway())
    app_ctx.render(WhoamiView(me))
    ops = me.cluster.authorized_operations
    if ops.supplied and ops.raw == 0:
        from kafkactl.cluster import EMPTY_CLUSTER_OPS_HINT

        app_ctx.hint(EMPTY_CLUSTER_OPS_HINT)
    if not me.groups and not (ops.supplied and ops.allows(AclOperation.DESCRIBE)):
        from kafkactl.groups import EMPTY_LIST_HINT

        app_ctx.hint(EMPTY_LIST_HINT)  # with Describe on the cluster every group is listed (KIP-231): none exist
