"""SASL/GSSAPI (Kerberos), read from the properties the Java clients use.

A Java client says `sasl.mechanism=GSSAPI`, the brokers' service name in `sasl.kerberos.service.name` (or the
login module's `serviceName`), and how it logs in to the realm in `sasl.jaas.config`:
`Krb5LoginModule required useKeyTab=true keyTab=… principal=…;` (a keytab), or `useTicketCache=true` (the ticket
an earlier `kinit` left, in `ticketCache=…` or the default cache). The realm's configuration is the JVM's
`-Djava.security.krb5.conf` (from KAFKA_OPTS), or KRB5_CONFIG, or the system's /etc/krb5.conf; a properties file or
context may also name it as `java.security.krb5.conf`. librdkafka's spelling (`sasl.kerberos.principal`,
`sasl.kerberos.keytab`) is read too. kafkactl logs in itself (gateway/kerberos.py), with the system's MIT kinit.

Refused by name: a login module option kafkactl cannot honour (a principal to prompt for, a keytab that is not a
keytab), librdkafka's `sasl.kerberos.kinit.cmd` (a shell command from a properties file: kafkactl runs kinit
itself).
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from kafkactl.errors import ConfigError, MissingFileError

KRB5_LOGIN_MODULE = "com.sun.security.auth.module.Krb5LoginModule"
# the login module's options kafkactl reads, and those it may ignore (they change nothing for a client here)
_READ = ("useKeyTab", "keyTab", "principal", "useTicketCache", "ticketCache", "serviceName")
_IGNORED = ("storeKey", "doNotPrompt", "debug", "renewTGT", "refreshKrb5Config", "isInitiator", "clearPass",
            "tryFirstPass", "useFirstPass", "storePass")
# a principal as MIT and Java spell it: components separated by '/', an optional @REALM; no space, control
# character, quote or backslash, no '%', '{' or '}' (librdkafka expands %{…}), and no leading '-' (an option to kinit)
_PART = r"[^\s@/\x00-\x1f\\'\"%{}]+"
_PRINCIPAL = re.compile(rf"^(?!-){_PART}(?:/{_PART})*(?:@{_PART})?$")
_SERVICE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
MAX_KEYTAB_BYTES = 1 << 20


@dataclass(frozen=True)
class KerberosSettings:
    """How this client logs in to the realm, and which service the brokers are."""

    service_name: str
    principal: str | None = None  # the client's principal (a keytab's; None with a ticket cache: the cache says)
    keytab: str | None = None  # the keytab's path (its keys are never read by kafkactl, only handed to kinit)
    ticket_cache: str | None = None  # useTicketCache=true: this cache (None: KRB5CCNAME's, else the default)
    krb5_conf: str | None = None  # the realm's configuration (None: the system's)

    @property
    def uses_keytab(self) -> bool:
        return self.keytab is not None

    def describe(self) -> str:
        return (f"Kerberos principal {self.principal}" if self.principal
                else "the principal of the Kerberos ticket cache")


def is_kerberos(mechanism: str | None, module: str | None) -> bool:
    return mechanism == "GSSAPI" or module == KRB5_LOGIN_MODULE


def kerberos_settings(props: Mapping[str, str], jaas: Mapping[str, str] | None, source: str,
                      env: Mapping[str, str] | None = None) -> KerberosSettings:
    """The Kerberos login of these client properties (and login module options), checked: each refusal names the
    setting and what to give instead."""
    jaas = jaas or {}
    env = os.environ if env is None else env
    from kafkactl.redact import option_named

    for key in jaas:
        if key not in _READ and key not in _IGNORED:
            raise ConfigError(f"{source}: sasl.jaas.config has {option_named(key, jaas)}, which kafkactl does not "
                              f"take from Krb5LoginModule (it reads {', '.join(_READ)})")
    if props.get("sasl.kerberos.kinit.cmd", "").strip():
        raise ConfigError(f"{source}: sasl.kerberos.kinit.cmd is not supported: kafkactl runs kinit itself, with the "
                          "keytab and principal given (a shell command from a properties file is not run)")
    service = (props.get("sasl.kerberos.service.name") or jaas.get("serviceName") or "").strip()
    if not service:
        raise ConfigError(f"{source}: GSSAPI needs sasl.kerberos.service.name, the first part of the brokers' "
                          "service principal (often kafka)")
    if not _SERVICE.fullmatch(service):
        raise ConfigError(f"{source}: sasl.kerberos.service.name {service[:64]!r} is not a service name (letters, "
                          "digits, '.', '_' and '-')")
    keytab = (jaas.get("keyTab") if _true(jaas, "useKeyTab", source) else None) or props.get("sasl.kerberos.keytab")
    principal = (jaas.get("principal") or props.get("sasl.kerberos.principal") or "").strip() or None
    if _true(jaas, "useKeyTab", source) and not jaas.get("keyTab"):
        raise ConfigError(f"{source}: sasl.jaas.config has useKeyTab=true but no keyTab (the keytab's path)")
    ticket_cache = _true(jaas, "useTicketCache", source)
    if keytab is None and not ticket_cache:
        raise ConfigError(f"{source}: GSSAPI needs a keytab (Krb5LoginModule required useKeyTab=true keyTab=… "
                          "principal=…;) or a ticket cache (useTicketCache=true, after kinit)")
    if principal is not None and not _PRINCIPAL.fullmatch(principal):
        raise ConfigError(f"{source}: Kerberos principal {principal[:120]!r} is not a principal (name[/instance]"
                          "[@REALM]; no spaces, quotes, '%', braces or leading '-')")
    if keytab is not None and principal is None:
        raise ConfigError(f"{source}: a keytab needs the principal whose keys it holds (principal=… in "
                          "sasl.jaas.config, or sasl.kerberos.principal)")
    if keytab is not None:
        keytab = check_keytab(keytab, source)
    cache = jaas.get("ticketCache") if ticket_cache and keytab is None else None
    if cache is not None:
        cache = _safe_path(cache, "ticketCache", source)
    return KerberosSettings(service_name=service, principal=principal, keytab=keytab, ticket_cache=cache,
                            krb5_conf=krb5_conf(props, env, source))


def _true(jaas: Mapping[str, str], key: str, source: str) -> bool:
    value = jaas.get(key, "false").strip().lower()
    if value not in ("true", "false"):
        raise ConfigError(f"{source}: sasl.jaas.config option {key} is {value[:20]!r}, not true or false")
    return value == "true"


def _safe_path(path: str, what: str, source: str) -> str:
    """A path handed to kinit and librdkafka: no control characters, no '%{' (librdkafka would expand it)."""
    if not path.strip() or any(c < " " for c in path) or "%{" in path:
        raise ConfigError(f"{source}: {what} {path[:200]!r} is not a usable path")
    return str(Path(path).expanduser())


def check_keytab(path: str, source: str) -> str:
    """The keytab's path, when it is a readable keytab file (MIT's format: 0x05 then version 1 or 2). Only those two
    bytes are read: the rest is keys."""
    path = _safe_path(path, "keytab", source)
    p = Path(path)
    try:
        if not p.exists():
            raise MissingFileError(f"{source}: keytab {path}: no such file")
        if not p.is_file():
            raise ConfigError(f"{source}: keytab {path}: not a regular file")
        with p.open("rb") as fh:
            head = fh.read(2)
        size = p.stat().st_size
    except PermissionError:
        raise ConfigError(f"{source}: keytab {path}: not readable by this user") from None
    except OSError as exc:
        raise ConfigError(f"{source}: keytab {path}: cannot read ({exc.strerror})") from None
    if head not in (b"\x05\x01", b"\x05\x02"):
        raise ConfigError(f"{source}: keytab {path}: not a Kerberos keytab (make one with kadmin's ktadd or "
                          "ktutil)")
    if size > MAX_KEYTAB_BYTES:
        raise ConfigError(f"{source}: keytab {path}: over {MAX_KEYTAB_BYTES >> 20} MiB, more than any client's keytab")
    return path


_KRB5_OPT = "-Djava.security.krb5.conf="


def krb5_conf(props: Mapping[str, str], env: Mapping[str, str], source: str) -> str | None:
    """The realm's configuration: the properties' java.security.krb5.conf, else KRB5_CONFIG (MIT's list of files,
    ':'-separated, kept whole: the library merges those that exist), else KAFKA_OPTS's -Djava.security.krb5.conf
    (read as the shell splits KAFKA_OPTS for the JVM), else None (the system's)."""
    given, where = props.get("java.security.krb5.conf", "").strip(), f"{source}: java.security.krb5.conf"
    if not given and env.get("KRB5_CONFIG"):
        given, where = env["KRB5_CONFIG"], "KRB5_CONFIG"
    if not given and _KRB5_OPT in env.get("KAFKA_OPTS", ""):
        try:
            words = shlex.split(env["KAFKA_OPTS"])
        except ValueError:
            raise ConfigError("KAFKA_OPTS: an unbalanced quote (where -Djava.security.krb5.conf= is read)") from None
        given = next((w[len(_KRB5_OPT):] for w in reversed(words) if w.startswith(_KRB5_OPT)), "")
        where = "KAFKA_OPTS -Djava.security.krb5.conf"
    if not given:
        return None
    # (an empty entry of the list is skipped, as MIT skips it: X:$KRB5_CONFIG with the variable unset)
    paths = [_safe_path(p, "krb5.conf", where) for p in given.split(":") if p] if where == "KRB5_CONFIG" \
        else [_safe_path(given, "krb5.conf", where)]
    if not any(_is_file(p) for p in paths):
        raise MissingFileError(f"{where} {given[:200]}: no such file")
    return ":".join(paths)


def conf_files(conf: str | None) -> list[Path]:
    """The existing files of a krb5.conf setting (a ':'-separated list, as KRB5_CONFIG), or the system's."""
    return [Path(c) for c in (conf or "/etc/krb5.conf").split(":") if c and _is_file(c)]


def _is_file(path: str) -> bool:
    try:
        return Path(path).is_file()
    except OSError:  # (a name too long for the file system, say)
        return False


def default_realm(conf: str | None) -> str | None:
    """[libdefaults] default_realm of a krb5.conf (the first of a list that names one; the system's when None);
    None when it cannot be read."""
    for path in conf_files(conf):
        realm = _default_realm(path)
        if realm:
            return realm
    return None


def _default_realm(path: Path) -> str | None:
    try:
        text = path.read_text(errors="replace")[:1 << 20]
    except OSError:
        return None
    section = None
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("["):
            section = line.strip("[]").strip()
        elif section == "libdefaults" and "=" in line:
            key, _, value = line.partition("=")
            if key.strip() == "default_realm":
                return value.strip() or None
    return None
