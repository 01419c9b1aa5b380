"""kafkactl auth ...: what may the calling principal do?"""

from __future__ import annotations

import typer

app = typer.Typer(help="The calling principal's view of its own permissions.", no_args_is_help=True)


@app.command("whoami")
def auth_whoami(ctx: typer.Context) -> None:
    """Show the caller's authorized operations on the cluster, every visible topic and every visible group.

    Example:  kafkactl --context local-alice auth whoami
    """
    from kafkactl.formatters import OutputFormat, authz
    from kafkactl.whoami import whoami

    app_ctx = ctx.obj
    me = whoami(app_ctx.gateway())
    sections = [("cluster", [me.cluster]), ("topics", list(me.topics)), ("groups", list(me.groups))]
    if app_ctx.output in (OutputFormat.json, OutputFormat.yaml):
        app_ctx.render(me)
    elif app_ctx.output is OutputFormat.table:
        app_ctx.console.print(f"principal: {me.principal or 'ANONYMOUS'}", highlight=False)
        for title, items in sections:
            if items:
                app_ctx.render(authz.matrix([(r.name, r.authorized_operations) for r in items], title))
            else:
                app_ctx.console.print(f"{title}: none visible", style="dim", highlight=False)
        app_ctx.console.print(authz.LEGEND, style="dim", highlight=False)
    else:
        app_ctx.render(authz.long_rows([(r.name, r.authorized_operations) for _, items in sections for r in items]))
    ops = me.cluster.authorized_operations
    if ops.supplied and ops.raw == 0:
        from kafkactl.cluster import EMPTY_CLUSTER_OPS_HINT

        app_ctx.hint(EMPTY_CLUSTER_OPS_HINT)
    if not me.groups:
        from kafkactl.groups import EMPTY_LIST_HINT

        app_ctx.hint(EMPTY_LIST_HINT)
