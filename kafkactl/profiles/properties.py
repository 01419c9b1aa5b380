"""kafka-*.sh style client properties and JAAS login module strings, read into kafkactl's settings."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kafkactl.errors import ConfigError, MissingFileError
from kafkactl.redact import Secret, option_named

SECURITY_PROTOCOLS = ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")
SASL_MECHANISMS = ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER", "GSSAPI")
# a mechanism some cluster uses that kafkactl cannot speak: why, in the refusal
_UNSUPPORTED_MECHANISMS = {
    "AWS_MSK_IAM": "Amazon MSK's IAM mechanism needs AWS's own login module",
}
_LOGIN_MODULES = {
    "org.apache.kafka.common.security.plain.PlainLoginModule": "PLAIN",
    "org.apache.kafka.common.security.scram.ScramLoginModule": "SCRAM",
    "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule": "OAUTHBEARER",
    "com.sun.security.auth.module.Krb5LoginModule": "GSSAPI",
}
_SUPPORTED_MODULES = "PlainLoginModule, ScramLoginModule, OAuthBearerLoginModule and Krb5LoginModule are supported"
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@-]*$")
_CLASS_NAME = re.compile(r"(?:[A-Za-z_$][\w$]*\.)+[A-Za-z_$][\w$]*")


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


MAX_PROPERTIES_BYTES = 1 << 20  # a client.properties is a few hundred bytes


def read_properties_file(path: str | os.PathLike[str], warnings: list[str] | None = None) -> dict[str, str]:
    """The file's properties. `warnings` is told when other users may read a file holding a password (a JAAS
    config, a key or store password), as the contexts file's reader tells."""
    p = Path(path).expanduser()
    if p.resolve() == Path(os.devnull):  # as the Java tools read it: an empty file (no properties)
        return {}
    try:
        if p.exists() and not p.is_file():  # /dev/zero would never end, a FIFO would block
            raise ConfigError(f"--command-config {path}: not a regular file")
        from kafkactl.privatefile import note_read

        note_read(p)
        with p.open("rb") as fh:
            data = fh.read(MAX_PROPERTIES_BYTES + 1)
        if len(data) > MAX_PROPERTIES_BYTES:
            raise ConfigError(f"--command-config {path}: over {MAX_PROPERTIES_BYTES >> 20} MiB, not a client "
                              "properties file")
        text = data.decode("utf-8")
    except FileNotFoundError:
        raise MissingFileError(f"--command-config {path}: no such file") from None
    except OSError as exc:
        raise ConfigError(f"--command-config {path}: cannot read ({exc.strerror})") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"--command-config {path}: {not_utf8(exc)}") from None
    props = parse_properties_text(text, str(path))
    from kafkactl.redact import may_be_secret

    # (a Krb5LoginModule entry names a keytab, whose own mode matters, and holds no password)
    if warnings is not None and any(may_be_secret(k) and not (k == "sasl.jaas.config" and "Krb5LoginModule" in v)
                                    for k, v in props.items()):
        import stat

        mode = stat.S_IMODE(p.stat().st_mode)
        if mode & 0o077:
            warnings.append(f"{path} is readable by other users (mode {mode:o}); it holds passwords: chmod 600 {path}")
    return props


def not_utf8(exc: UnicodeDecodeError) -> str:
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
    n = len(s)
    module, pos = _word(s, _skip_ws(s, 0))
    flag, pos = _word(s, _skip_ws(s, pos))
    if not module:
        raise ConfigError(f"{where} is empty; expected '<LoginModule class> required "
                          "username=\"...\" password=\"...\";'")
    if flag.lower() not in ("required", "requisite", "sufficient", "optional"):
        raise ConfigError(f"{where} lacks the control flag after the login module (required, requisite, sufficient "
                          "or optional)")
    options: dict[str, str] = {}
    last = None
    while True:
        pos = _skip_ws(s, pos)
        if pos >= n:
            raise ConfigError(f"{where} is not terminated by ';'")
        if s[pos] == ";":
            break
        key, pos = _word(s, pos)
        pos = _skip_ws(s, pos)
        if not key or pos >= n or s[pos] != "=":
            after = f"after {last}" if last else "in its first option"
            raise ConfigError(f"{where} is malformed {after}: expected key=value (quote a value that holds spaces)")
        named = option_named(key, options)
        options[key], pos = _value(s, _skip_ws(s, pos + 1), where, named)
        last = named
    pos = _skip_ws(s, pos + 1)
    if pos < n:  # Kafka takes exactly one login module, and nothing after its ';'
        raise ConfigError(f"{where} has text after its ';' (one login module, ended by ';')")
    return JaasConfig(module=module, flag=flag.lower(), options=options)


def _skip_ws(s: str, pos: int) -> int:
    while pos < len(s) and s[pos].isspace():
        pos += 1
    return pos


def _word(s: str, pos: int) -> tuple[str, int]:
    """The word at `pos` (up to a space, '=' or ';'), and the position after it."""
    start = pos
    while pos < len(s) and not s[pos].isspace() and s[pos] not in "=;":
        pos += 1
    return s[start:pos], pos


def _value(s: str, pos: int, where: str, named: str) -> tuple[str, int]:
    """The option value at `pos`, double- or single-quoted (with backslash escapes) or a bare word, and the
    position after it."""
    n = len(s)
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
        return "".join(buf), pos + 1
    value, pos = _word(s, pos)
    if not value:
        raise ConfigError(f"{where} has no value for {named}")
    return value, pos


def _ssl_stores(props: Mapping[str, str]) -> dict[str, Any]:
    """ssl.truststore.* / ssl.keystore.*: PEM files as they are; JKS, JCEKS and PKCS12 stores read and handed on as
    private PEM files (profiles/stores.py)."""
    out: dict[str, Any] = {}
    if props.get("ssl.truststore.location"):
        from kafkactl.profiles.stores import pem_from_store

        material = pem_from_store(props, "truststore")
        out["ssl_cafile"] = material.cafile if material else str(Path(props["ssl.truststore.location"]).expanduser())
    if props.get("ssl.keystore.location"):
        from kafkactl.profiles.stores import pem_from_store

        material = pem_from_store(props, "keystore")
        # a keystore holds the certificate chain and the key in one file
        path = material.certfile if material else str(Path(props["ssl.keystore.location"]).expanduser())
        out["ssl_certfile"] = out["ssl_keyfile"] = path
        if material and material.key_password:
            out["ssl_key_password"] = material.key_password
    return out


def settings_from_properties(props: Mapping[str, str], source: str = "--command-config") -> dict[str, Any]:
    """Turn kafka-*.sh client properties (or librdkafka-style equivalents) into Profile fields."""
    _refuse_non_utf8(props, source)
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
            why = _UNSUPPORTED_MECHANISMS.get(mech)
            raise ConfigError(f"{source}: sasl.mechanism {mech} is not supported{f' ({why})' if why else ''}; "
                              f"kafkactl speaks {', '.join(SASL_MECHANISMS)}")
        out["sasl_mechanism"] = mech
    jaas = parse_jaas(props["sasl.jaas.config"], source) if props.get("sasl.jaas.config") else None
    if jaas is not None:
        _check_login_module(jaas, source, out.get("sasl_mechanism"))
    from kafkactl.profiles.kerberos import is_kerberos, kerberos_settings
    from kafkactl.profiles.oauth import is_oauth, oauth_settings

    if is_oauth(props, out.get("sasl_mechanism"), jaas.module if jaas else None):
        out["sasl_mechanism"] = "OAUTHBEARER"
        out["oauth"] = oauth_settings(props, jaas.options if jaas else None, source)
    elif is_kerberos(out.get("sasl_mechanism"), jaas.module if jaas else None):
        out["sasl_mechanism"] = "GSSAPI"
        out["kerberos"] = kerberos_settings(props, jaas.options if jaas else None, source)
    elif jaas is not None:
        if "username" not in jaas.options or "password" not in jaas.options:
            raise ConfigError(f"{source}: sasl.jaas.config needs both username and password options")
        out["username"], out["password"] = jaas.options["username"], Secret(jaas.options["password"])
    if props.get("sasl.username"):
        out["username"] = props["sasl.username"]
    if props.get("sasl.password"):
        out["password"] = Secret(props["sasl.password"])
    out.update(_ssl_settings(props))
    if props.get("client.id"):
        from kafkactl.limits import check_string

        out["client_id"] = check_string(props["client.id"], f"{source}: client.id")  # every request header holds it
    if out.get("username") and "sasl_mechanism" not in out:
        out["sasl_mechanism"] = "PLAIN"  # the Java client's default is GSSAPI, which needs no password
    return out


def _refuse_non_utf8(props: Mapping[str, str], source: str) -> None:
    for key, value in props.items():
        # bytes that are not UTF-8 (Python keeps them as lone surrogates) would be written to the contexts file
        # as text no reader takes back, and sent to the broker as something else: refused, the value not shown
        if any("\ud800" <= c <= "\udfff" for c in key + value):
            raise ConfigError(f"{source}: the value of {key.encode('utf-8', 'replace').decode()} is not UTF-8 text")


def _check_login_module(jaas: JaasConfig, source: str, chosen: str | None) -> None:
    """The login module is one kafkactl speaks, and of the sasl.mechanism `chosen` (if any)."""
    family = _LOGIN_MODULES.get(jaas.module)
    if family is None:
        if not _CLASS_NAME.fullmatch(jaas.module):  # then it may be a password that lost its option
            raise ConfigError(f"{source}: in sasl.jaas.config the login module is not a Java class name (not "
                              f"repeated; {_SUPPORTED_MODULES})")
        raise ConfigError(f"{source}: sasl.jaas.config login module {jaas.module} is not supported "
                          f"({_SUPPORTED_MODULES})")
    if chosen and not chosen.startswith(family):
        raise ConfigError(f"{source}: sasl.mechanism {chosen} does not match the "
                          f"{jaas.module.rsplit('.', 1)[-1]} in sasl.jaas.config")


def _ssl_settings(props: Mapping[str, str]) -> dict[str, Any]:
    """The TLS files and key password, and whether the host name is checked."""
    out: dict[str, Any] = {}
    if props.get("ssl.key.password"):
        out["ssl_key_password"] = Secret(props["ssl.key.password"])
    if props.get("ssl.ca.location"):
        out["ssl_cafile"] = props["ssl.ca.location"]
    out.update(_ssl_stores(props))  # a converted keystore brings the password of its re-encrypted key
    if props.get("ssl.certificate.location"):
        out["ssl_certfile"] = props["ssl.certificate.location"]
    if props.get("ssl.key.location"):
        out["ssl_keyfile"] = props["ssl.key.location"]
    if props.get("ssl.endpoint.identification.algorithm", "https").strip() == "":
        out["ssl_check_hostname"] = False
    return out


# --------------------------------------------------------------------------- contexts file
