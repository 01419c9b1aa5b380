"""kafkactl context ...: named connection settings, like kubectl's contexts."""

from __future__ import annotations

import sys
from typing import Annotated, Any

import typer

from kafkactl.cli import completers as complete

app = typer.Typer(help="Manage contexts (~/.config/kafkactl/config.yaml).", no_args_is_help=True)


def _store(app_ctx):
    from kafkactl.profiles import ContextStore

    store = ContextStore.load()
    for w in store.warnings:
        app_ctx.warn(w)
    return store


def _change(app_ctx, edit, done: str) -> None:
    store = _store(app_ctx)
    edit(store)
    store.save()
    app_ctx.note(done)


@app.command("list")
def context_list(ctx: typer.Context) -> None:
    """List contexts; the current one is marked.

    Example:  kafkactl context list -o plain
    """
    from dataclasses import replace

    from kafkactl.profiles import context_rows

    app_ctx = ctx.obj
    # an mTLS context's user is its certificate: shown by subject, as the brokers authenticate it
    app_ctx.render([replace(r, certificate=_subject(r.certificate)) if r.certificate else r
                    for r in context_rows(_store(app_ctx))])


def _subject(pem_file: str) -> str:
    from pathlib import Path

    from kafkactl.errors import KafkactlError
    from kafkactl.mapping.certdn import pem_subject

    try:
        return pem_subject(Path(pem_file).expanduser().read_bytes(), pem_file)
    except (OSError, KafkactlError):
        return f"(unreadable: {pem_file})"


@app.command("current")
def context_current(ctx: typer.Context) -> None:
    """Print the name of the current context.

    Example:  kafkactl context current
    """
    from kafkactl.errors import NotFoundError

    store = _store(ctx.obj)
    if not store.current:
        raise NotFoundError("no current context: kafkactl context use NAME")
    from kafkactl.formatters.views import Name

    ctx.obj.render(Name(store.current))


@app.command("use")
def context_use(ctx: typer.Context,
                name: Annotated[str, typer.Argument(help="Context name.", autocompletion=complete.contexts)]) -> None:
    """Make NAME the current context.

    Example:  kafkactl context use local-alice
    """
    _change(ctx.obj, lambda store: store.use(name), f"current context is now {name}")


@app.command("add")
def context_add(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="Context name.")],
    bootstrap_server: Annotated[str, typer.Option("-b", "--bootstrap-server", metavar="HOST:PORT[,...]",
                                                  help="The cluster's address(es).")],
    command_config: Annotated[str | None, typer.Option("--command-config", metavar="FILE",
                                                       help="Client properties file to reference.",
                                                       show_default=False)] = None,
    security_protocol: Annotated[str | None, typer.Option("--security-protocol",
                                                          metavar="PLAINTEXT|SSL|SASL_PLAINTEXT|SASL_SSL",
                                                          help="The security.protocol of the cluster.",
                                                          show_default=False)] = None,
    sasl_mechanism: Annotated[str | None, typer.Option("--sasl-mechanism",
                                                       metavar="PLAIN|SCRAM-SHA-256|SCRAM-SHA-512|OAUTHBEARER|GSSAPI",
                                                       help="The sasl.mechanism of the cluster.",
                                                       show_default=False)] = None,
    username: Annotated[str | None, typer.Option("--username", help="SASL user name.", show_default=False)] = None,
    password_stdin: Annotated[bool, typer.Option("--password-stdin",
                                                 help="Read the SASL password from standard input.")] = False,
    oauth_token_endpoint: Annotated[str | None, typer.Option("--oauth-token-endpoint", metavar="URL",
                                                             help="OAUTHBEARER: the identity provider's token "
                                                                  "endpoint (client credentials).",
                                                             show_default=False)] = None,
    oauth_client_id: Annotated[str | None, typer.Option("--oauth-client-id", metavar="ID",
                                                        help="OAUTHBEARER: the client id.", show_default=False)] = None,
    oauth_client_secret_stdin: Annotated[bool, typer.Option("--oauth-client-secret-stdin",
                                                            help="OAUTHBEARER: read the client secret from standard "
                                                                 "input.")] = False,
    oauth_scope: Annotated[str | None, typer.Option("--oauth-scope", metavar="SCOPE",
                                                    help="OAUTHBEARER: the scope to ask for.",
                                                    show_default=False)] = None,
    kerberos_service_name: Annotated[str | None, typer.Option("--kerberos-service-name", metavar="NAME",
                                                              help="GSSAPI: the first part of the brokers' service "
                                                                   "principal (often kafka).",
                                                              show_default=False)] = None,
    kerberos_keytab: Annotated[str | None, typer.Option("--kerberos-keytab", metavar="FILE",
                                                        help="GSSAPI: the client's keytab.",
                                                        show_default=False)] = None,
    kerberos_principal: Annotated[str | None, typer.Option("--kerberos-principal", metavar="NAME[@REALM]",
                                                           help="GSSAPI: the client's principal, whose keys the keytab "
                                                                "holds.", show_default=False)] = None,
    kerberos_ticket_cache: Annotated[bool, typer.Option("--kerberos-ticket-cache",
                                                        help="GSSAPI: log in with the ticket kinit left "
                                                             "(KRB5CCNAME), not a keytab.")] = False,
    krb5_conf: Annotated[str | None, typer.Option("--krb5-conf", metavar="FILE",
                                                  help="GSSAPI: the realm's krb5.conf (default: KRB5_CONFIG, else "
                                                       "KAFKA_OPTS's -Djava.security.krb5.conf, else /etc/krb5.conf).",
                                                  show_default=False)] = None,
    prop: Annotated[list[str] | None, typer.Option("--property", help="Extra client property key=value (repeatable).",
                                                   show_default=False)] = None,
    super_user: Annotated[list[str] | None, typer.Option("--super-user",
                                                         help="A super.users entry of the cluster, for the "
                                                              "authorizer model (repeatable).",
                                                         show_default=False)] = None,
    allow_everyone: Annotated[bool, typer.Option("--allow-everyone-if-no-acl-found",
                                                 help="The cluster sets allow.everyone.if.no.acl.found=true.")] = False,
    use: Annotated[bool, typer.Option("--use", help="Also make it the current context.")] = False,
) -> None:
    """Add or replace a context.

    Example:  kafkactl context add prod -b kafka1:9092 --command-config ~/prod.properties --use
    """
    from kafkactl.describe.topics import parse_config_pairs
    from kafkactl.profiles import Context, parse_bootstrap, settings_from_properties

    app_ctx = ctx.obj
    from kafkactl.errors import UsageError

    props = parse_config_pairs(prop or [], "--property")
    _check_given(app_ctx, props, sasl_mechanism)
    for option, key, value in (("--security-protocol", "security.protocol", security_protocol),
                               ("--sasl-mechanism", "sasl.mechanism", sasl_mechanism)):
        if value and key in props and props[key] != value:  # two values, one kept: refused, not guessed
            raise UsageError(f"{option} {value} and --property {key}={props[key]}: give one of them")
    if security_protocol:
        props["security.protocol"] = security_protocol
    if sasl_mechanism:
        props["sasl.mechanism"] = sasl_mechanism
    if username:
        props["sasl.username"] = username
    if password_stdin and oauth_client_secret_stdin:
        raise UsageError("--password-stdin and --oauth-client-secret-stdin: standard input holds one secret")
    if password_stdin:
        props["sasl.password"] = _password_from_stdin()
    for key, value in (("sasl.oauthbearer.token.endpoint.url", oauth_token_endpoint),
                       ("sasl.oauthbearer.client.credentials.client.id", oauth_client_id),
                       ("sasl.oauthbearer.scope", oauth_scope)):
        if value is not None:
            props[key] = value
    if oauth_client_secret_stdin:
        props["sasl.oauthbearer.client.credentials.client.secret"] = _password_from_stdin(
            "--oauth-client-secret-stdin", "client secret")
    _kerberos_properties(props, kerberos_service_name, kerberos_keytab, kerberos_principal, kerberos_ticket_cache,
                         krb5_conf)
    if not command_config:
        _check_sasl(props)
    settings_from_properties(props, f"context {name}")  # validate now, not at first use
    bootstrap_server = parse_bootstrap(bootstrap_server)
    store = _store(app_ctx)
    store.put(Context(name=name, bootstrap_servers=bootstrap_server, command_config=command_config,
                      properties=props, super_users=list(super_user or []),
                      allow_everyone_if_no_acl_found=allow_everyone))
    if use or store.current is None:
        store.current = name
    store.save()
    app_ctx.note(f"context {name} saved to {store.path}" + (" (current)" if store.current == name else ""))


def _kerberos_properties(props: dict[str, str], service: str | None, keytab: str | None, principal: str | None,
                         ticket_cache: bool, krb5_conf: str | None) -> None:
    """The --kerberos-* options as the properties librdkafka and the Java client read (the files' paths made
    absolute: the context is used from any directory)."""
    from pathlib import Path

    from kafkactl.errors import UsageError

    keytab = str(Path(keytab).expanduser().absolute()) if keytab else keytab
    krb5_conf = ":".join(str(Path(p).expanduser().absolute()) for p in krb5_conf.split(":")) if krb5_conf else None
    for key, value in (("sasl.kerberos.service.name", service), ("sasl.kerberos.keytab", keytab),
                       ("sasl.kerberos.principal", principal), ("java.security.krb5.conf", krb5_conf)):
        if value is not None:
            props[key] = value
    if ticket_cache:
        if keytab:
            raise UsageError("--kerberos-ticket-cache and --kerberos-keytab: log in with one of them")
        props["sasl.jaas.config"] = "com.sun.security.auth.module.Krb5LoginModule required useTicketCache=true;"


def _check_given(app_ctx: Any, props: dict[str, str], sasl_mechanism: str | None) -> None:
    """A secret given with --property is warned of; a mechanism kafkactl does not speak is refused by name."""
    from kafkactl.errors import UsageError
    from kafkactl.redact import may_be_secret

    for key in props:
        if may_be_secret(key) and key != "sasl.oauthbearer.token.endpoint.url":
            app_ctx.warn(f"--property {key} puts a secret on the command line (shell history, ps): "
                         "--password-stdin, --oauth-client-secret-stdin or a --command-config file keep it off")
    if sasl_mechanism is not None:
        from kafkactl.profiles import SASL_MECHANISMS

        if sasl_mechanism.upper() not in SASL_MECHANISMS:
            from kafkactl.limits import shown

            raise UsageError(f"--sasl-mechanism {shown(sasl_mechanism, 40)}: not one kafkactl speaks "
                             f"({', '.join(SASL_MECHANISMS)})")


def _check_sasl(props: dict[str, str]) -> None:
    """Half-filled SASL settings are refused (exit 2) rather than saved to fail at first use: a user without a
    password or the reverse, a PLAIN or SCRAM mechanism without them, credentials on a protocol that sends none."""
    from kafkactl.errors import UsageError

    protocol = props.get("security.protocol", "PLAINTEXT").upper()
    mechanism = props.get("sasl.mechanism", "").upper()
    user, password = "sasl.username" in props, "sasl.password" in props
    if user != password:
        raise UsageError("--username needs --password-stdin (and the reverse): a SASL login takes both"
                         if user else "--password-stdin needs --username: a SASL login takes both")
    if protocol.startswith("SASL_") and not mechanism:
        raise UsageError(f"security.protocol {protocol} needs --sasl-mechanism (PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512 "
                         "with --username and --password-stdin; OAUTHBEARER with --oauth-token-endpoint, "
                         "--oauth-client-id and --oauth-client-secret-stdin; GSSAPI with --kerberos-service-name and "
                         "--kerberos-keytab and --kerberos-principal, or --kerberos-ticket-cache)")
    if (user or mechanism) and not protocol.startswith("SASL_"):
        raise UsageError(f"{'--username' if user else '--sasl-mechanism'} with security.protocol {protocol}, which "
                         "sends no SASL login: add --security-protocol SASL_SSL (or SASL_PLAINTEXT)")
    oauth = [k for k in ("sasl.oauthbearer.token.endpoint.url", "sasl.oauthbearer.client.credentials.client.id",
                         "sasl.oauthbearer.client.credentials.client.secret") if k in props]
    if oauth and mechanism != "OAUTHBEARER":
        raise UsageError("--oauth-* options need --sasl-mechanism OAUTHBEARER (and --security-protocol SASL_SSL or "
                         "SASL_PLAINTEXT)")
    if mechanism == "OAUTHBEARER" and "sasl.jaas.config" not in props and len(oauth) < 3:
        raise UsageError("--sasl-mechanism OAUTHBEARER needs --oauth-token-endpoint, --oauth-client-id and "
                         "--oauth-client-secret-stdin")
    kerberos = [k for k in ("sasl.kerberos.service.name", "sasl.kerberos.keytab", "sasl.kerberos.principal",
                            "java.security.krb5.conf") if k in props]
    if kerberos and mechanism != "GSSAPI":
        raise UsageError("--kerberos-* and --krb5-conf need --sasl-mechanism GSSAPI (and --security-protocol SASL_SSL "
                         "or SASL_PLAINTEXT)")
    if mechanism == "GSSAPI" and "sasl.kerberos.service.name" not in props:
        raise UsageError("--sasl-mechanism GSSAPI needs --kerberos-service-name (the first part of the brokers' "
                         "service principal, often kafka)")
    if mechanism == "GSSAPI" and "sasl.jaas.config" not in props and "sasl.kerberos.keytab" not in props:
        raise UsageError("--sasl-mechanism GSSAPI needs --kerberos-service-name and --kerberos-keytab with "
                         "--kerberos-principal, or --kerberos-ticket-cache")
    if mechanism in ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512") and not user:
        raise UsageError(f"--sasl-mechanism {mechanism} needs --username and --password-stdin")
    if user and not mechanism:
        raise UsageError("--username needs --sasl-mechanism (PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512)")


def _password_from_stdin(option: str = "--password-stdin", what: str = "password") -> str:
    """The first line of standard input, as UTF-8 (what the SASL mechanisms send); the value is never shown."""
    from kafkactl.errors import UsageError

    raw = sys.stdin.buffer.readline(1 << 16) if hasattr(sys.stdin, "buffer") else sys.stdin.readline().encode()
    try:
        password = raw.decode("utf-8").rstrip("\r\n")
    except UnicodeDecodeError:
        raise UsageError(f"{option}: the {what} read is not UTF-8 text (SASL sends it as UTF-8)") from None
    if not password:
        raise UsageError(f"{option}: standard input held no {what} (an empty first line)")
    if "\x00" in password:
        raise UsageError(f"{option}: the {what} holds a NUL character, which SASL cannot send")
    return password


@app.command("delete")
def context_delete(ctx: typer.Context,
                   name: Annotated[str, typer.Argument(help="Context name.",
                                                       autocompletion=complete.contexts)]) -> None:
    """Delete a context.

    Example:  kafkactl context delete old-prod
    """
    _change(ctx.obj, lambda store: store.delete(name), f"context {name} deleted")
