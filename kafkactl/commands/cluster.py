"""kafkactl cluster ..."""

from __future__ import annotations

import typer

app = typer.Typer(help="Describe the cluster.", no_args_is_help=True)


@app.command("describe")
def cluster_describe(ctx: typer.Context) -> None:
    """Show the cluster id, the active controller and the brokers.

    Example:  kafkactl cluster describe -o json
    """
    from kafkactl import cluster

    app_ctx = ctx.obj
    app_ctx.render(cluster.describe_cluster(app_ctx.gateway()))
