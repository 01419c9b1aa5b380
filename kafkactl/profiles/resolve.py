"""Resolution: flags, then environment, then the selected context, into one Profile (kubectl's precedence).

The context is chosen by --context, else KAFKACTL_CONTEXT, else the file's current-context.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from kafkactl.errors import ConfigError
from kafkactl.profiles.kerberos import KerberosSettings
from kafkactl.profiles.oauth import OAuthSettings
from kafkactl.profiles.properties import read_properties_file, settings_from_properties
from kafkactl.profiles.store import Context, ContextStore
from kafkactl.redact import Secret

DEFAULT_TIMEOUT = 10.0


@dataclass(frozen=True)
class Profile:
    """Everything needed to connect, resolved from flags, env and the context."""

    bootstrap_servers: str
    context: str | None = None
    security_protocol: str = "PLAINTEXT"
    sasl_mechanism: str | None = None
    username: str | None = None
    password: Secret | None = None
    ssl_cafile: str | None = None
    ssl_certfile: str | None = None
    ssl_keyfile: str | None = None
    ssl_key_password: Secret | None = None
    ssl_check_hostname: bool = True
    oauth: OAuthSettings | None = None  # SASL/OAUTHBEARER: where to fetch tokens, with which client credentials
    kerberos: KerberosSettings | None = None  # SASL/GSSAPI: the keytab or ticket cache, and the brokers' service
    client_id: str = "kafkactl"
    timeout: float = DEFAULT_TIMEOUT
    # what the authorizer model needs to know about the cluster (kafka-semantics §4)
    super_users: tuple[str, ...] = ()
    allow_everyone_if_no_acl_found: bool = False
    address_from_context: bool = False  # the context's own address, not -b's (a context lending its credentials)

    @property
    def uses_sasl(self) -> bool:
        return self.security_protocol.startswith("SASL_")

    @property
    def uses_ssl(self) -> bool:
        return self.security_protocol in ("SSL", "SASL_SSL")

    def describe(self) -> str:
        """A one-line, secret-free description for messages."""
        who = (f" as {self.username}" if self.username
               else f" as OAuth client {self.oauth.client_id}" if self.oauth
               else f" as {self.kerberos.describe()}" if self.kerberos else "")
        ctx = f" (context {self.context})" if self.context else ""
        return f"{self.bootstrap_servers}{who}{ctx}"


# --------------------------------------------------------------------------- properties / JAAS


MAX_TIMEOUT_S = 86400.0  # a day; the clients take milliseconds as INT32
MIN_TIMEOUT_S = 0.001  # the clients count in whole milliseconds: less would be 0, "no wait" or "wait forever"
_HOST = re.compile(r"[A-Za-z0-9_](?:[A-Za-z0-9._-]*[A-Za-z0-9_])?")
_IPV6 = re.compile(r"\[[0-9A-Fa-f:.]+(?:%[A-Za-z0-9_.-]+)?\]")


def parse_bootstrap(text: str, source: str = "-b/--bootstrap-server") -> str:
    """host:port[,host:port...] as the Java clients accept it (an IPv6 address in brackets), normalised. A port
    outside 1-65535 is refused rather than passed on: librdkafka would take 99999 modulo 65536."""
    from kafkactl.limits import bounded_int, shown

    if "@" in text:  # user:password@host: the part before @ may be a password, so none of it is repeated
        after = [e.rpartition("@")[2].strip() for e in text.split(",")]
        raise ConfigError(f"{source}: an address holds no credentials (the part before '@' in "
                          f"{shown(','.join(after))} is not shown): put them in the context or --command-config")
    entries = [e.strip() for e in text.split(",")]
    if not any(entries):
        raise ConfigError(f"{source} {shown(text)}: no address given (host:port[,host:port])")
    out = []
    for entry in entries:
        if not entry:
            raise ConfigError(f"{source} {shown(text)}: an empty address between commas")
        host, sep, port = entry.rpartition(":")
        if not sep or not host:
            raise ConfigError(f"{source} {shown(entry)}: not host:port (e.g. kafka1:9092)")
        if host.startswith("[") and not _ipv6(host):
            raise ConfigError(f"{source} {shown(entry)}: {shown(host)} is not an IPv6 address in brackets")
        if not (_HOST.fullmatch(host) or _IPV6.fullmatch(host)):
            raise ConfigError(f"{source} {shown(entry)}: {shown(host)} is not a host name or address "
                              "(an IPv6 address goes in brackets: [::1]:9092)")
        number = bounded_int(port, 1, 65535)  # (never int() of thousands of digits, which Python refuses)
        if number is None:
            raise ConfigError(f"{source} {shown(entry)}: port {shown(port)} is not a number from 1 to 65535")
        out.append(f"{host}:{number}")
    return ",".join(out)


def _ipv6(host: str) -> bool:
    """`[address]` (a zone such as %eth0 allowed) where the address is one ipaddress reads as IPv6."""
    import ipaddress

    if not _IPV6.fullmatch(host):
        return False
    try:
        ipaddress.IPv6Address(host[1:-1])
    except ValueError:
        return False
    return True


def check_timeout(value: float, option: str = "--timeout") -> float:
    import math

    if not math.isfinite(value) or not MIN_TIMEOUT_S <= value <= MAX_TIMEOUT_S:
        shown = f"{value:g}" if math.isfinite(value) else ("a number too large" if value > 0 else f"{value:g}")
        raise ConfigError(f"{option} {shown}: seconds, from {MIN_TIMEOUT_S:g} to {MAX_TIMEOUT_S:g}")
    return float(value)


@dataclass(frozen=True)
class Selection:
    """What the user asked for on the command line and in the environment."""

    context: str | None = None
    bootstrap_servers: str | None = None
    command_config: str | None = None
    timeout: float | None = None


def selection_from_env(flags: Selection, env: Mapping[str, str] | None = None) -> Selection:
    env = os.environ if env is None else env
    return Selection(
        context=flags.context or env.get("KAFKACTL_CONTEXT") or None,
        # an empty -b is a mistake to report; an empty variable is the shell's way of unsetting it
        bootstrap_servers=(flags.bootstrap_servers if flags.bootstrap_servers is not None
                           else env.get("KAFKACTL_BOOTSTRAP_SERVERS") or None),
        command_config=flags.command_config or env.get("KAFKACTL_COMMAND_CONFIG") or None,
        timeout=flags.timeout,
    )


def resolve(flags: Selection, env: Mapping[str, str] | None = None, store: ContextStore | None = None) -> Profile:
    """Resolve the connection profile: flags > env > context."""
    sel = selection_from_env(flags, env)
    store = store if store is not None else ContextStore.load()
    ctx_name = sel.context or store.current
    ctx: Context | None = None
    if ctx_name:
        if sel.context is None and ctx_name not in store.contexts:
            ctx_name = None  # a dangling current-context is ignored when -b/env say where to go
        else:
            ctx = store.get(ctx_name)

    settings: dict[str, Any] = {}
    if ctx is not None:
        if ctx.command_config:
            settings.update(settings_from_properties(read_properties_file(ctx.command_config, store.warnings),
                                                     f"context {ctx.name}: {ctx.command_config}"))
        settings.update(settings_from_properties(ctx.properties, f"context {ctx.name}"))
        if ctx.bootstrap_servers:
            settings["bootstrap_servers"] = ctx.bootstrap_servers
        settings["super_users"] = tuple(ctx.super_users)
        settings["allow_everyone_if_no_acl_found"] = ctx.allow_everyone_if_no_acl_found
    if sel.command_config:
        # a command-config replaces the context's security settings as a whole: mixing a
        # context's password with another file's mechanism would be surprising
        for key in ("security_protocol", "sasl_mechanism", "username", "password", "ssl_cafile",
                    "ssl_certfile", "ssl_keyfile", "ssl_key_password", "ssl_check_hostname", "oauth", "kerberos"):
            settings.pop(key, None)
        settings.update(settings_from_properties(read_properties_file(sel.command_config, store.warnings),
                                                 f"--command-config {sel.command_config}"))
    if sel.bootstrap_servers is None and settings.get("bootstrap_servers"):
        settings["bootstrap_servers"] = parse_bootstrap(settings["bootstrap_servers"],
                                                        f"context {ctx_name}: bootstrap-servers")
    elif sel.bootstrap_servers is not None:
        source = "-b/--bootstrap-server" if flags.bootstrap_servers is not None else "KAFKACTL_BOOTSTRAP_SERVERS"
        settings["bootstrap_servers"] = parse_bootstrap(sel.bootstrap_servers, source)
    if not settings.get("bootstrap_servers") and ctx is not None:
        raise ConfigError(f"context {ctx.name} has no bootstrap servers: give -b, or set them with kafkactl context "
                          f"add {ctx.name} --bootstrap-server HOST:PORT ...")
    if not settings.get("bootstrap_servers"):
        raise ConfigError(
            "no cluster selected: give -b/--bootstrap-server, set KAFKACTL_BOOTSTRAP_SERVERS, "
            "or pick a context (kafkactl context use NAME; kafkactl local up creates local-admin)")
    _check_credentials(settings)
    if sel.timeout is not None:
        settings["timeout"] = check_timeout(sel.timeout)
    return Profile(context=ctx_name, address_from_context=ctx is not None and sel.bootstrap_servers is None,
                   **settings)


def _check_credentials(settings: dict[str, Any]) -> None:
    """SASL has what its mechanism logs in with; credentials without a security.protocol mean SASL_PLAINTEXT."""
    if settings.get("sasl_mechanism") == "OAUTHBEARER" and not settings.get("oauth"):
        raise ConfigError("sasl.mechanism is OAUTHBEARER but no token endpoint and client credentials were given "
                          "(sasl.oauthbearer.token.endpoint.url and sasl.jaas.config)")
    protocol = settings.get("security_protocol")
    for key, name in (("oauth", "OAUTHBEARER"), ("kerberos", "GSSAPI")):
        if settings.get(key) and protocol is not None and not protocol.startswith("SASL_"):
            # (the client secret would go to the token endpoint for a token no broker is shown)
            raise ConfigError(f"{name} settings are given but security.protocol is {protocol}: set it to "
                              "SASL_SSL or SASL_PLAINTEXT (or drop the sasl.* settings)")
    if (settings.get("security_protocol", "PLAINTEXT").startswith("SASL_") and not settings.get("username")
            and not settings.get("oauth") and not settings.get("kerberos")):
        raise ConfigError("SASL is configured but no username/password was given (sasl.jaas.config or "
                          "sasl.username/sasl.password)")
    if (settings.get("username") or settings.get("oauth") or settings.get("kerberos")) \
            and "security_protocol" not in settings:
        settings["security_protocol"] = "SASL_PLAINTEXT"


def with_timeout(profile: Profile, timeout: float) -> Profile:
    return replace(profile, timeout=timeout)
