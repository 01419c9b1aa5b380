"""kafkactl local ...: the sandbox broker on this machine."""

from __future__ import annotations

from typing import Annotated

import typer

from kafkactl.cli import completers as complete

app = typer.Typer(help="Run a local Kafka sandbox (KRaft, SASL users, StandardAuthorizer).", no_args_is_help=True)


@app.command("up")
def local_up(
    ctx: typer.Context,
    wait: Annotated[float, typer.Option("--wait", help="Seconds to wait for the brokers to answer.",
                                        metavar="SECONDS")] = 120.0,
    brokers: Annotated[int | None, typer.Option("--brokers", metavar="N", show_default=False,
                                                help="Brokers, each its own process (1-9; default 1: one node that is "
                                                     "also the controller).")] = None,
    controllers: Annotated[int | None, typer.Option("--controllers", metavar="1|3|5", show_default=False,
                                                    help="A separate controller quorum of this size (default 1 when "
                                                         "--brokers is over 1).")] = None,
    kafka_version: Annotated[str | None, typer.Option("--kafka-version", metavar="3.9.1|4.0.1|4.3.1|4.4.0",
                                                      show_default=False, autocompletion=complete.kafka_versions,
                                                      help="The Kafka version of a new sandbox "
                                                           "(default: the newest, 4.4.0).")] = None,
    tls: Annotated[bool | None, typer.Option("--tls/--no-tls", show_default=False,
                                             help="Also a SASL_SSL listener and an mTLS listener (client "
                                                  "certificates), with a CA and certificates made for the sandbox, and "
                                                  "local-tls-* and local-mtls-* contexts.")] = None,
    oauth: Annotated[bool | None, typer.Option("--oauth/--no-oauth", show_default=False,
                                               help="Also an OAUTHBEARER listener whose brokers validate OIDC tokens "
                                                    "with Kafka's own validator, an identity provider issuing them "
                                                    "(each sandbox user a client), and local-oauth-* "
                                                    "contexts.")] = None,
    token_lifetime: Annotated[int | None, typer.Option("--token-lifetime", metavar="SECONDS", show_default=False,
                                                       help="How long the --oauth identity provider's tokens live "
                                                            "(10-86400; default 3600).")] = None,
    kerberos: Annotated[bool | None, typer.Option("--kerberos/--no-kerberos", show_default=False,
                                                  help="Also a GSSAPI listener (and one on SASL_SSL with --tls), an "
                                                       "MIT Kerberos KDC on localhost (Debian's krb5-kdc) with a "
                                                       "keytab per sandbox user, and local-kerberos-* "
                                                       "contexts.")] = None,
) -> None:
    """Assemble Kafka from Maven Central (once), start the sandbox and write the local-* contexts.

    Example:  kafkactl local up --brokers 3 --controllers 3 --tls && kafkactl local status
    """
    from kafkactl.local.assembly import KAFKA_VERSION, check_version, kafka_home
    from kafkactl.local.sandbox import Sandbox, check_topology
    from kafkactl.profiles import check_timeout

    check_timeout(wait, "--wait")  # before anything starts: 1e999 reads as inf, a wait without end
    check_topology(brokers, controllers)
    if token_lifetime is not None and not 10 <= token_lifetime <= 86400:
        from kafkactl.errors import UsageError

        # (a token of a second or two is spent before a client can use it: refreshed at 0.8 of its life)
        raise UsageError(f"--token-lifetime {token_lifetime}: seconds, from 10 to 86400")
    if token_lifetime is not None and oauth is None:
        oauth = True
    version = check_version(kafka_version) if kafka_version is not None else None
    app_ctx = ctx.obj
    sandbox = Sandbox()
    kept = sandbox.load_state()
    wanted = kept.kafka_version if kept is not None else version or KAFKA_VERSION
    if not (kafka_home(wanted) / ".complete").exists():
        app_ctx.note(f"assembling Apache Kafka {wanted} from Maven Central into {kafka_home(wanted)} ...")
    status = sandbox.up(timeout=wait, brokers=brokers, controllers=controllers, kafka_version=version, tls=tls,
                        oauth=oauth, token_lifetime=token_lifetime, kerberos=kerberos)
    if status.already_running:
        app_ctx.note(f"sandbox already running at {status.bootstrap_servers} ({status.topology})")
    else:
        app_ctx.note(f"sandbox up at {status.bootstrap_servers} in {status.started_in_s:.1f} s "
                     f"(Kafka {status.kafka_version}, {status.topology}); contexts: {', '.join(status.contexts)}")
    app_ctx.render(status)


@app.command("down")
def local_down(
    ctx: typer.Context,
    purge: Annotated[bool, typer.Option("--purge",
                                        help="Also delete its data (topics, ACLs, users, passwords) and "
                                             "its local-* contexts.")] = False,
    keep: Annotated[bool, typer.Option("--keep", hidden=True,
                                       help="The default now: data is kept unless --purge.")] = False,
) -> None:
    """Stop every sandbox node; their data and contexts stay for the next up (--purge deletes them).

    Example:  kafkactl local down;  kafkactl local down --purge
    """
    from kafkactl.errors import UsageError
    from kafkactl.local.sandbox import Sandbox

    if keep and purge:
        raise UsageError("--keep and --purge contradict each other (data is kept unless --purge)")
    app_ctx = ctx.obj
    status = Sandbox().down(purge=purge)
    app_ctx.note("sandbox stopped" + ("; data and local-* contexts deleted" if purge
                                      else f"; data kept in {status.data_dir} (local down --purge deletes it)"))


@app.command("status")
def local_status(ctx: typer.Context) -> None:
    """Say whether the sandbox runs, where it listens, and where its log and data are.

    Example:  kafkactl local status -o json
    """
    from kafkactl.local.sandbox import Sandbox

    ctx.obj.render(Sandbox().status())


@app.command("env")
def local_env(
    ctx: typer.Context,
    user: Annotated[str | None, typer.Option("--user", metavar="admin|alice|bob|carol",
                                             help="The sandbox user (default: the current context's user).",
                                             show_default=False)] = None,
) -> None:
    """Print shell exports that point kafkactl (and kafka-*.sh) at the sandbox.

    Example:  eval "$(kafkactl local env --user alice)"
    """
    from kafkactl.formatters.views import ShellExports
    from kafkactl.local.sandbox import shell_env

    env = shell_env(user, context=ctx.obj.selection.context)
    ctx.obj.render(ShellExports(env.lines(), env.variables, env.kafka_sh_arguments))


spark_app = typer.Typer(help="Run a Spark standalone cluster on this machine (a master and workers) for "
                             "--spark-master.",
                        no_args_is_help=True)
app.add_typer(spark_app, name="spark")


@spark_app.command("up")
def local_spark_up(
    ctx: typer.Context,
    workers: Annotated[int, typer.Option("--workers", metavar="N", help="Workers, each its own JVM (1-8).")] = 2,
    worker_cores: Annotated[int, typer.Option("--worker-cores", metavar="N", help="Cores each worker offers.")] = 1,
    worker_memory: Annotated[str, typer.Option("--worker-memory", metavar="SIZE",
                                               help="Memory each worker offers (512m, 1g).")] = "1g",
    wait: Annotated[float, typer.Option("--wait", help="Seconds to wait for every worker to register.",
                                        metavar="SECONDS")] = 120.0,
) -> None:
    """Start a Spark master and workers from the installed pyspark; print the master URL for --spark-master.

    Example:  kafkactl acls apply policy.yaml --spark-master "$(kafkactl local spark up -o plain | awk '$1 == "master_url" {print $2}')"
    """  # noqa: E501 (help text: an example is one command line)
    from kafkactl.local.spark_cluster import SparkCluster
    from kafkactl.profiles import check_timeout

    check_timeout(wait, "--wait")
    status = SparkCluster().up(workers, worker_cores, worker_memory, timeout=wait)
    n = len(status.workers)
    ctx.obj.note(f"Spark master at {status.master_url} (UI {status.ui_url}) with {n} worker{'s' if n != 1 else ''}; "
                 f"use --spark-master {status.master_url}")
    ctx.obj.render(status)


@spark_app.command("down")
def local_spark_down(
    ctx: typer.Context,
    purge: Annotated[bool, typer.Option("--purge",
                                        help="Also delete the workers' work directories and the logs.")] = False,
) -> None:
    """Stop the local Spark master and workers.

    Example:  kafkactl local spark down --purge
    """
    from kafkactl.local.spark_cluster import SparkCluster

    cluster = SparkCluster()
    was = cluster.status()
    existed = cluster.home.exists()
    cluster.down(purge=purge)
    said = "Spark cluster stopped" if was.running or any(w.running for w in was.workers) else \
        "no local Spark cluster was running"
    if purge:
        said += "; its directory deleted" if existed else ""
    elif was.master_url:
        said += f"; logs kept in {cluster.home}"
    ctx.obj.note(said)


@spark_app.command("status")
def local_spark_status(ctx: typer.Context) -> None:
    """Say whether the local Spark cluster runs, its master URL and its workers.

    Example:  kafkactl local spark status -o json
    """
    from kafkactl.local.spark_cluster import SparkCluster

    ctx.obj.render(SparkCluster().status())
