"""kafkactl auth ...: what may the calling principal do?"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from kafkactl.cli.context import AppContext

app = typer.Typer(help="The calling principal's view of its own permissions.", no_args_is_help=True)


@app.command("whoami")
def auth_whoami(ctx: typer.Context) -> None:
    """Show the caller's authorized operations on the cluster, every visible topic and every visible group.

    Plain output (a pipe) is the principal alone; -o csv, json or yaml hold the operations too.

    Example:  kafkactl --context local-alice auth whoami
    """
    from kafkactl.describe.whoami import whoami
    from kafkactl.formatters.views import WhoamiView

    app_ctx: AppContext = ctx.obj
    me = whoami(app_ctx.gateway())
    app_ctx.render(WhoamiView(me))
    ops = me.cluster.authorized_operations
    if ops.supplied and ops.raw == 0:
        from kafkactl.describe.cluster import EMPTY_CLUSTER_OPS_HINT

        app_ctx.hint(EMPTY_CLUSTER_OPS_HINT)
    if not me.groups:
        from kafkactl.describe.groups import empty_list_hint

        app_ctx.hint(empty_list_hint(ops))


@app.command("principal")
def auth_principal(
    ctx: typer.Context,
    ssl_dn: Annotated[str | None, typer.Option("--ssl-dn", metavar="DN", show_default=False,
                                               help="A client certificate's subject, as Java writes it (RFC 2253: "
                                                    "CN=app,OU=eng,O=Corp\\, Inc).")] = None,
    cert: Annotated[str | None, typer.Option("--cert", metavar="PEM_FILE", show_default=False,
                                             help="Read the DN from this PEM certificate (its subject, spelt as the "
                                                  "broker's Java spells it).")] = None,
    kerberos: Annotated[str | None, typer.Option("--kerberos", metavar="NAME", show_default=False,
                                                 help="A Kerberos principal: "
                                                      "service/host@REALM or user@REALM.")] = None,
    rules: Annotated[str | None, typer.Option("--rules", show_default=False,
                                              help="The mapping rules (default: the cluster's "
                                                   "ssl.principal.mapping.rules or "
                                                   "sasl.kerberos.principal.to.local.rules, "
                                                   "read from a broker).")] = None,
    default_realm: Annotated[str | None, typer.Option("--default-realm", metavar="REALM", show_default=False,
                                                      help="The brokers' default Kerberos realm (krb5.conf), "
                                                           "for the DEFAULT rule.")] = None,
) -> None:
    """Print the principal the broker builds for a certificate DN or a Kerberos name, as its mapping rules make it.

    Example:  kafkactl --context prod auth principal --ssl-dn 'CN=app,OU=eng,O=Corp'
    """
    from kafkactl.describe.mapping import KERBEROS_RULES, SSL_RULES, map_dn, map_kerberos_name
    from kafkactl.errors import UsageError

    given = [n for n, v in (("--ssl-dn", ssl_dn), ("--cert", cert), ("--kerberos", kerberos)) if v is not None]
    if len(given) != 1:
        raise UsageError("give one of --ssl-dn, --cert and --kerberos"
                         + (f" (not {' and '.join(given)})" if given else ""))
    if default_realm is not None and kerberos is None:
        raise UsageError("--default-realm is for --kerberos")
    for option, text in (("--ssl-dn", ssl_dn), ("--kerberos", kerberos), ("--rules", rules)):
        bad = next((i for i, ch in enumerate(text or "") if "\ud800" <= ch <= "\udfff"), None)
        if bad is not None:  # bytes that were not UTF-8: no broker builds such a name, and JSON cannot hold it
            raise UsageError(f"{option}: not UTF-8 text (an invalid byte at position {bad})")
    app_ctx: AppContext = ctx.obj
    key = KERBEROS_RULES if kerberos is not None else SSL_RULES
    value, source = _rules(app_ctx, rules, key)
    if kerberos is not None:
        if default_realm is None and rules is None:  # a Kerberos context's realm is the default realm of its krb5.conf
            from kafkactl.profiles.kerberos import default_realm as realm_of

            k = app_ctx.gateway().profile.kerberos
            default_realm = realm_of(k.krb5_conf) if k is not None else None
        mapped = map_kerberos_name(kerberos, value, default_realm, source)
    else:
        mapped = map_dn(ssl_dn if ssl_dn is not None else _cert_dn(cert or ""), value, source)
    app_ctx.render(mapped)


def _rules(app_ctx: AppContext, rules: str | None, key: str) -> tuple[str | None, str]:
    """The rules given, or the cluster's (said on stderr)."""
    if rules is not None:
        return rules, "--rules"
    from kafkactl.describe.mapping import cluster_rules

    value, source = cluster_rules(app_ctx.gateway(), key)
    app_ctx.note(f"{key} from {source}: {value if value is not None else 'not set (DEFAULT)'}")
    return value, source


def _cert_dn(path: str) -> str:
    from pathlib import Path

    from kafkactl.errors import MissingFileError
    from kafkactl.mapping.certdn import pem_subject

    try:
        if Path(path).exists() and not Path(path).is_file():
            raise OSError(0, "not a regular file")
        with open(path, "rb") as fh:
            data = fh.read(1 << 20)  # a certificate is a few KiB: /dev/zero is not read to the end
    except FileNotFoundError:
        raise MissingFileError(f"--cert {path}: no such file") from None
    except OSError as exc:
        from kafkactl.errors import UsageError

        raise UsageError(f"--cert {path}: {exc.strerror}") from None
    return pem_subject(data, f"--cert {path}")
