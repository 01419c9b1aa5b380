"""Connection profiles: contexts file, kafka-*.sh style client properties, env vars, precedence.

Precedence, per setting, like kubectl: command-line flags > environment > the selected context.
The context is chosen by --context, else KAFKACTL_CONTEXT, else the file's current-context.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Mapping

from kafkactl.results import API_VERSION
from kafkactl.errors import ConfigError, MissingFileError, NotFoundError
from kafkactl.redact import Secret

DEFAULT_TIMEOUT = 10.0
SECURITY_PROTOCOLS = ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")
SASL_MECHANISMS = ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512")
_LOGIN_MODULES = {
    "org.apache.kafka.common.security.plain.PlainLoginModule": "PLAIN",
    "org.apache.kafka.common.security.scram.ScramLoginModule": "SCRAM",
}
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@-]*$")
_CLASS_NAME = re.compile(r"(?:[A-Za-z_$][\w$]*\.)+[A-Za-z_$][\w$]*")


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
    client_id: str = "kafkactl"
    timeout: float = DEFAULT_TIMEOUT
    # what the authorizer model needs to know about the cluster (kafka-semantics §4)
    super_users: tuple[str, ...] = ()
    allow_everyone_if_no_acl_found: bool = False
    # how to resolve this profile again elsewhere (a Spark executor): names and paths only, never a secret
    selection: "Selection | None" = field(default=None, compare=False, repr=False)

    @property
    def uses_sasl(self) -> bool:
        return self.security_protocol.startswith("SASL_")

    @property
    def uses_ssl(self) -> bool:
        return self.security_protocol in ("SSL", "SASL_SSL")

    def describe(self) -> str:
        """A one-line, secret-free description for messages."""
        who = f" as {self.username}" if self.username else ""
        ctx = f" (context {self.context})" if self.context else ""
        return f"{self.bootstrap_servers}{who}{ctx}"


# --------------------------------------------------------------------------- properties / JAAS


@dataclass(frozen=True)
class JaasConfig:
    module: str
    flag: str
    options: Mapping[str, str]


def parse_properties_text(text: str, source: str = "<properties>") -> dict[str, str]:
    import javaproperties  # small, but only needed when a properties file is used

    try:
        return dict(javaproperties.loads(text))
    except Exception as exc:  # javaproperties raises plain ValueErrors on bad escapes
        raise ConfigError(f"{source}: not a valid Java properties file ({exc.__class__.__name__})") from None


def read_properties_file(path: str | os.PathLike[str]) -> dict[str, str]:
    p = Path(path).expanduser()
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise MissingFileError(f"--command-config {path}: no such file") from None
    except OSError as exc:
        raise ConfigError(f"--command-config {path}: cannot read ({exc.strerror})") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"--command-config {path}: {_not_utf8(exc)}") from None
    return parse_properties_text(text, str(path))


def _not_utf8(exc: UnicodeDecodeError) -> str:
    # Java reads a properties file as UTF-8 since Java 9 (and kafka-*.sh so); the bytes are not shown, they may be
    # a piece of a password
    return f"not UTF-8 text (an invalid byte at offset {exc.start}); save the file as UTF-8"


def parse_jaas(text: str, source: str = "--command-config") -> JaasConfig:
    """Parse one JAAS login-module entry: `<module> <flag> key=value ... ;`, as Kafka's JaasConfig does.

    Values may be double- or single-quoted (with backslash escapes) or bare words.
    Error messages never quote the text, which holds a password: they name the source, what is wrong and an
    option's name, but no name that follows a password's value (an unquoted password with a space in it reads
    as a value and then a name).
    """
    where = f"{source}: the sasl.jaas.config value"
    s = text.strip()
    pos = 0
    n = len(s)

    def skip_ws() -> None:
        nonlocal pos
        while pos < n and s[pos].isspace():
            pos += 1

    def word() -> str:
        nonlocal pos
        start = pos
        while pos < n and not s[pos].isspace() and s[pos] not in "=;":
            pos += 1
        return s[start:pos]

    skip_ws()
    module = word()
    skip_ws()
    flag = word()
    if not module:
        raise ConfigError(f"{where} is empty; expected '<LoginModule class> required username=\"...\" password=\"...\";'")
    if flag.lower() not in ("required", "requisite", "sufficient", "optional"):
        raise ConfigError(f"{where} lacks the control flag after the login module (required, requisite, sufficient "
                          "or optional)")
    options: dict[str, str] = {}
    last = None
    while True:
        skip_ws()
        if pos >= n:
            raise ConfigError(f"{where} is not terminated by ';'")
        if s[pos] == ";":
            break
        key = word()
        skip_ws()
        if not key or pos >= n or s[pos] != "=":
            after = f"after {last}" if last else "in its first option"
            raise ConfigError(f"{where} is malformed {after}: expected key=value (quote a value that holds spaces)")
        named = _option_named(key, options)
        pos += 1
        skip_ws()
        if pos < n and s[pos] in "\"'":
            quote = s[pos]
            pos += 1
            buf = []
            while pos < n and s[pos] != quote:
                if s[pos] == "\\" and pos + 1 < n:
                    pos += 1
                buf.append(s[pos])
                pos += 1
            if pos >= n:
                raise ConfigError(f"{where} has an unterminated quote in {named}")
            pos += 1
            value = "".join(buf)
        else:
            value = word()
            if not value:
                raise ConfigError(f"{where} has no value for {named}")
        options[key] = value
        last = named
    pos += 1
    skip_ws()
    if pos < n:  # Kafka takes exactly one login module, and nothing after its ';'
        raise ConfigError(f"{where} has text after its ';' (one login module, ended by ';')")
    return JaasConfig(module=module, flag=flag.lower(), options=options)


def _option_named(key: str, before: Mapping[str, str]) -> str:
    """'option X', or 'an option after Y' once a secret option Y was read: an unquoted secret holding a space
    reads as a value and then more options, whose names are pieces of it."""
    from kafkactl.redact import may_be_secret

    secret = next((k for k in before if may_be_secret(k)), None)
    if secret is None or key in ("username", "password"):
        return f"option {key!r}"
    return f"an option after {secret!r}"


def _pem_path(props: Mapping[str, str], kind: str) -> str | None:
    """ssl.truststore.* / ssl.keystore.*: only PEM files can be handed to the Python clients."""
    location = props.get(f"ssl.{kind}.location")
    if not location:
        return None
    store_type = props.get(f"ssl.{kind}.type", "").upper()
    suffix = Path(location).suffix.lower()
    if store_type in ("JKS", "PKCS12") or (not store_type and suffix in (".jks", ".p12", ".pfx", ".keystore", ".truststore")):
        what = "CA certificate(s)" if kind == "truststore" else "certificate and private key"
        how = (
            "keytool -exportcert -rfc -keystore FILE -alias ALIAS > ca.pem"
            if kind == "truststore"
            else "openssl pkcs12 -in FILE -nodes -out client.pem  (after keytool -importkeystore to PKCS12 for JKS)"
        )
        raise ConfigError(
            f"ssl.{kind}.location {location}: {store_type or suffix.lstrip('.').upper()} stores are not supported; "
            f"convert the {what} to PEM ({how}) and set ssl.{kind}.type=PEM"
        )
    return str(Path(location).expanduser())


def settings_from_properties(props: Mapping[str, str], source: str = "--command-config") -> dict[str, Any]:
    """Turn kafka-*.sh client properties (or librdkafka-style equivalents) into Profile fields."""
    out: dict[str, Any] = {}
    if "bootstrap.servers" in props:
        out["bootstrap_servers"] = props["bootstrap.servers"].strip()
    if "security.protocol" in props:
        proto = props["security.protocol"].strip().upper()
        if proto not in SECURITY_PROTOCOLS:
            raise ConfigError(f"{source}: security.protocol {proto} is not one of {', '.join(SECURITY_PROTOCOLS)}")
        out["security_protocol"] = proto
    if "sasl.mechanism" in props or "sasl.mechanisms" in props:
        mech = (props.get("sasl.mechanism") or props.get("sasl.mechanisms", "")).strip().upper()
        if mech not in SASL_MECHANISMS:
            raise ConfigError(f"{source}: sasl.mechanism {mech} is not supported (use one of {', '.join(SASL_MECHANISMS)})")
        out["sasl_mechanism"] = mech
    if props.get("sasl.jaas.config"):
        jaas = parse_jaas(props["sasl.jaas.config"], source)
        family = _LOGIN_MODULES.get(jaas.module)
        if family is None:
            if not _CLASS_NAME.fullmatch(jaas.module):  # then it may be a password that lost its option
                raise ConfigError(f"{source}: in sasl.jaas.config the login module is not a Java class name (not "
                                  "repeated; PlainLoginModule and ScramLoginModule are supported)")
            raise ConfigError(f"{source}: sasl.jaas.config login module {jaas.module} is not supported "
                              "(PlainLoginModule and ScramLoginModule are)")
        if "username" not in jaas.options or "password" not in jaas.options:
            raise ConfigError(f"{source}: sasl.jaas.config needs both username and password options")
        out["username"] = jaas.options["username"]
        out["password"] = Secret(jaas.options["password"])
        chosen: str | None = out.get("sasl_mechanism")
        if chosen and not chosen.startswith(family):
            raise ConfigError(f"{source}: sasl.mechanism {chosen} does not match the {jaas.module.rsplit('.', 1)[-1]} in sasl.jaas.config")
    if props.get("sasl.username"):
        out["username"] = props["sasl.username"]
    if props.get("sasl.password"):
        out["password"] = Secret(props["sasl.password"])
    cafile = _pem_path(props, "truststore") or props.get("ssl.ca.location")
    if cafile:
        out["ssl_cafile"] = cafile
    keystore = _pem_path(props, "keystore")
    if keystore:  # a PEM keystore holds the certificate chain and the key in one file
        out["ssl_certfile"] = keystore
        out["ssl_keyfile"] = keystore
    if props.get("ssl.certificate.location"):
        out["ssl_certfile"] = props["ssl.certificate.location"]
    if props.get("ssl.key.location"):
        out["ssl_keyfile"] = props["ssl.key.location"]
    if props.get("ssl.key.password"):
        out["ssl_key_password"] = Secret(props["ssl.key.password"])
    if props.get("ssl.endpoint.identification.algorithm", "https").strip() == "":
        out["ssl_check_hostname"] = False
    if props.get("client.id"):
        from kafkactl.limits import check_string

        out["client_id"] = check_string(props["client.id"], f"{source}: client.id")  # every request header holds it
    if out.get("username") and "sasl_mechanism" not in out:
        out["sasl_mechanism"] = "PLAIN"  # the Java client's default is GSSAPI, which needs no password
    return out


# --------------------------------------------------------------------------- contexts file


def config_home() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "kafkactl"


def contexts_path() -> Path:
    return config_home() / "config.yaml"


@dataclass
class Context:
    name: str
    bootstrap_servers: str | None = None
    command_config: str | None = None
    properties: dict[str, str] = field(default_factory=dict)
    super_users: list[str] = field(default_factory=list)
    allow_everyone_if_no_acl_found: bool = False
    managed_by: str | None = None  # "local" for contexts written by `kafkactl local up`

    def to_yaml(self) -> dict[str, Any]:
        d: dict[str, Any] = {}
        if self.bootstrap_servers:
            d["bootstrap-servers"] = self.bootstrap_servers
        if self.command_config:
            d["command-config"] = self.command_config
        if self.properties:
            d["properties"] = dict(self.properties)
        if self.super_users:
            d["super-users"] = list(self.super_users)
        if self.allow_everyone_if_no_acl_found:
            d["allow-everyone-if-no-acl-found"] = True
        if self.managed_by:
            d["managed-by"] = self.managed_by
        return d

    @classmethod
    def from_yaml(cls, name: str, d: Any, path: Path) -> "Context":
        if not isinstance(d, dict):
            raise ConfigError(f"{path}: context {name!r} must be a mapping")
        known = {"bootstrap-servers", "command-config", "properties", "super-users",
                 "allow-everyone-if-no-acl-found", "managed-by"}
        unknown = sorted(set(d) - known)
        if unknown:
            raise ConfigError(f"{path}: context {name!r} has unknown key {unknown[0]!r}")
        props = d.get("properties") or {}
        if not isinstance(props, dict):
            raise ConfigError(f"{path}: context {name!r}: properties must be a mapping")
        return cls(
            name=name,
            bootstrap_servers=d.get("bootstrap-servers"),
            command_config=d.get("command-config"),
            properties={str(k): str(v) for k, v in props.items()},
            super_users=[str(u) for u in d.get("super-users") or []],
            allow_everyone_if_no_acl_found=bool(d.get("allow-everyone-if-no-acl-found", False)),
            managed_by=d.get("managed-by"),
        )


@dataclass
class ContextStore:
    path: Path
    contexts: dict[str, Context] = field(default_factory=dict)
    current: str | None = None
    warnings: list[str] = field(default_factory=list)

    @classmethod
    def load(cls, path: Path | None = None) -> "ContextStore":
        path = path or contexts_path()
        store = cls(path=path)
        if not path.exists():
            return store
        mode = stat.S_IMODE(path.stat().st_mode)
        if mode & 0o077:
            store.warnings.append(
                f"{path} is readable by other users (mode {mode:o}); it may hold passwords: chmod 600 {path}")
        import yaml

        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        try:
            data = yaml.load(path.read_text(encoding="utf-8"), Loader=loader) or {}
        except UnicodeDecodeError as exc:
            raise ConfigError(f"{path}: {_not_utf8(exc)}") from None
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f" line {mark.line + 1}" if mark else ""
            raise ConfigError(f"{path}{where}: not valid YAML") from None
        if not isinstance(data, dict):
            raise ConfigError(f"{path}: expected a mapping at the top level")
        raw = data.get("contexts") or {}
        if not isinstance(raw, dict):
            raise ConfigError(f"{path}: 'contexts' must be a mapping of name to settings")
        store.contexts = {str(k): Context.from_yaml(str(k), v, path) for k, v in raw.items()}
        store.current = data.get("current-context")
        return store

    def save(self) -> None:
        import yaml

        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        data = {
            "apiVersion": API_VERSION,
            "current-context": self.current,
            "contexts": {name: c.to_yaml() for name, c in sorted(self.contexts.items())},
        }
        from kafkactl.privatefile import write_private

        # 0600 from the first byte: the file may hold passwords
        write_private(self.path, yaml.safe_dump(data, sort_keys=False, default_flow_style=False))

    def get(self, name: str) -> Context:
        try:
            return self.contexts[name]
        except KeyError:
            known = ", ".join(sorted(self.contexts)) or "none defined"
            raise NotFoundError(f"context {name!r} does not exist (known: {known})") from None

    def put(self, ctx: Context) -> None:
        validate_context_name(ctx.name)
        self.contexts[ctx.name] = ctx

    def delete(self, name: str) -> None:
        self.get(name)
        del self.contexts[name]
        if self.current == name:
            self.current = None

    def use(self, name: str) -> None:
        self.get(name)
        self.current = name


def validate_context_name(name: str) -> None:
    if not _NAME_RE.match(name):
        raise ConfigError(f"context name {name!r} may only hold letters, digits, '.', '_', '@' and '-'")


# --------------------------------------------------------------------------- resolution


MAX_TIMEOUT_S = 86400.0  # a day; the clients take milliseconds as INT32
MIN_TIMEOUT_S = 0.001  # the clients count in whole milliseconds: less would be 0, "no wait" or "wait forever"
_HOST = re.compile(r"[A-Za-z0-9_](?:[A-Za-z0-9._-]*[A-Za-z0-9_])?")
_IPV6 = re.compile(r"\[[0-9A-Fa-f:.]+(?:%[A-Za-z0-9_.-]+)?\]")


def parse_bootstrap(text: str, source: str = "-b/--bootstrap-server") -> str:
    """host:port[,host:port...] as the Java clients accept it (an IPv6 address in brackets), normalised. A port
    outside 1-65535 is refused rather than passed on: librdkafka would take 99999 modulo 65536."""
    from kafkactl.limits import bounded_int, shown

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
            settings.update(settings_from_properties(read_properties_file(ctx.command_config),
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
                    "ssl_certfile", "ssl_keyfile", "ssl_key_password", "ssl_check_hostname"):
            settings.pop(key, None)
        settings.update(settings_from_properties(read_properties_file(sel.command_config),
                                                 f"--command-config {sel.command_config}"))
    if sel.bootstrap_servers is None and settings.get("bootstrap_servers"):
        settings["bootstrap_servers"] = parse_bootstrap(settings["bootstrap_servers"], f"context {ctx_name}: bootstrap-servers")
    elif sel.bootstrap_servers is not None:
        source = "-b/--bootstrap-server" if flags.bootstrap_servers is not None else "KAFKACTL_BOOTSTRAP_SERVERS"
        settings["bootstrap_servers"] = parse_bootstrap(sel.bootstrap_servers, source)
    if not settings.get("bootstrap_servers"):
        raise ConfigError(
            "no cluster selected: give -b/--bootstrap-server, set KAFKACTL_BOOTSTRAP_SERVERS, "
            "or pick a context (kafkactl context use NAME; kafkactl local up creates local-admin)")
    if settings.get("security_protocol", "PLAINTEXT").startswith("SASL_") and not settings.get("username"):
        raise ConfigError("SASL is configured but no username/password was given (sasl.jaas.config or sasl.username/sasl.password)")
    if settings.get("username") and "security_protocol" not in settings:
        settings["security_protocol"] = "SASL_PLAINTEXT"
    if sel.timeout is not None:
        settings["timeout"] = check_timeout(sel.timeout)
    again = Selection(context=ctx_name, bootstrap_servers=sel.bootstrap_servers, timeout=sel.timeout,
                      command_config=os.path.abspath(sel.command_config) if sel.command_config else None)
    return Profile(context=ctx_name, selection=again, **settings)


def with_timeout(profile: Profile, timeout: float) -> Profile:
    return replace(profile, timeout=timeout)


@dataclass(frozen=True)
class ContextRow:
    COLUMNS = ("name", "current", "bootstrap_servers", "user", "mechanism", "managed_by")
    name: str
    current: bool
    bootstrap_servers: str | None
    user: str | None
    mechanism: str | None
    managed_by: str | None


def context_rows(store: ContextStore) -> list[ContextRow]:
    rows = []
    for name, c in sorted(store.contexts.items()):
        try:
            s = settings_from_properties(c.properties, f"context {name}")
        except ConfigError:
            s = {}
        rows.append(ContextRow(name=name, current=name == store.current, bootstrap_servers=c.bootstrap_servers,
                               user=s.get("username"), mechanism=s.get("sasl_mechanism"), managed_by=c.managed_by))
    return rows
