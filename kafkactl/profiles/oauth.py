"""SASL/OAUTHBEARER with OIDC client credentials (KIP-768), read from the properties the Java clients use.

A Java client names the token endpoint in `sasl.oauthbearer.token.endpoint.url`, its login callback handler in
`sasl.login.callback.handler.class`, and the client's id, secret and scope either in `sasl.jaas.config`
(`OAuthBearerLoginModule required clientId=… clientSecret=… scope=…;`, with `extension_<name>=…` SASL extensions
and `ssl.truststore.*` for the endpoint's TLS) or, since Kafka 4.1 (KIP-1139), in
`sasl.oauthbearer.client.credentials.client.id` / `.client.secret` and `sasl.oauthbearer.scope`, which win. The
librdkafka spellings (`sasl.oauthbearer.method=oidc`, `sasl.oauthbearer.client.id`, `.client.secret`,
`sasl.oauthbearer.extensions`, `https.ca.location`) are read too. kafkactl fetches the tokens itself
(gateway/oauth.py) for every client it builds.

What the Java client can do and kafkactl cannot is refused by name: unsecured tokens (`unsecuredLogin*`), a
custom login callback handler, a JWT-bearer assertion retriever, a `file:` token.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from kafkactl.errors import ConfigError
from kafkactl.redact import Secret

OAUTH_LOGIN_MODULE = "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule"
# the handler that fetches tokens with client credentials: its package since Kafka 3.4, and before
LOGIN_HANDLERS = ("org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler",
                  "org.apache.kafka.common.security.oauthbearer.secured.OAuthBearerLoginCallbackHandler")
# sasl.oauthbearer.jwt.retriever.class (Kafka 4.1): the ones that are client credentials
RETRIEVERS = ("org.apache.kafka.common.security.oauthbearer.DefaultJwtRetriever",
              "org.apache.kafka.common.security.oauthbearer.ClientCredentialsJwtRetriever")
_JAAS_OPTIONS = ("clientId", "clientSecret", "scope")
_JAAS_TLS = ("ssl.truststore.location", "ssl.truststore.type", "ssl.truststore.password")
_EXTENSION = re.compile(r"^[A-Za-z]+$")  # RFC 7628 key: ALPHA only ("auth" is reserved)
# RFC 7628 value: printable ASCII and space, not empty; no comma (librdkafka lists extensions comma-separated)
_EXTENSION_VALUE = re.compile(r"^[\x21-\x2B\x2D-\x7E \t\r\n]+$")
_URL_TEXT = re.compile(r"^[\x21-\x7E]+$")  # a URL as sent: printable ASCII, no space
_CLAIM = re.compile(r"^[^\s\x00-\x1f]{1,255}$")


@dataclass(frozen=True)
class OAuthSettings:
    """Where and how to fetch a token: client credentials at a token endpoint."""

    token_endpoint: str
    client_id: str
    client_secret: Secret
    scope: str | None = None
    extensions: tuple[tuple[str, str], ...] = ()
    cafile: str | None = None  # the endpoint's CA bundle (PEM); None: the system's
    sub_claim: str = "sub"  # the claim the brokers take the principal from (sasl.oauthbearer.sub.claim.name)
    connect_timeout: float | None = None  # sasl.login.connect.timeout.ms / sasl.login.read.timeout.ms, seconds
    read_timeout: float | None = None
    refresh_window_factor: float = 0.8  # sasl.login.refresh.window.factor: refresh at this part of the lifetime
    refresh_buffer: float = 300.0  # sasl.login.refresh.buffer.seconds: at least this long before it expires
    refresh_min_period: float = 60.0  # sasl.login.refresh.min.period.seconds


def is_oauth(props: Mapping[str, str], mechanism: str | None, module: str | None) -> bool:
    """Whether these properties configure OAUTHBEARER."""
    return mechanism == "OAUTHBEARER" or module == OAUTH_LOGIN_MODULE or (
        props.get("sasl.oauthbearer.method", "").strip().lower() == "oidc")


def oauth_settings(props: Mapping[str, str], jaas_options: Mapping[str, str] | None, source: str) -> OAuthSettings:
    """The OAUTHBEARER settings of one properties file (its JAAS options already parsed, if it has some)."""
    jaas = dict(jaas_options or {})
    _refuse_unsupported(props, jaas, source)
    url = _endpoint(props, source)
    client_id = _first(props.get("sasl.oauthbearer.client.credentials.client.id"), jaas.get("clientId"),
                       props.get("sasl.oauthbearer.client.id"))
    secret = _first(props.get("sasl.oauthbearer.client.credentials.client.secret"), jaas.get("clientSecret"),
                    props.get("sasl.oauthbearer.client.secret"))
    if not client_id:
        raise ConfigError(f"{source}: OAUTHBEARER needs a client id (sasl.oauthbearer.client.credentials.client.id, "
                          "or clientId in sasl.jaas.config)")
    if not secret:
        raise ConfigError(f"{source}: OAUTHBEARER needs a client secret (sasl.oauthbearer.client.credentials"
                          ".client.secret, or clientSecret in sasl.jaas.config)")
    from kafkactl.limits import check_string

    check_string(client_id, f"{source}: the OAuth client id")
    scope = _first(props.get("sasl.oauthbearer.scope"), jaas.get("scope")) or None
    return OAuthSettings(
        token_endpoint=url, client_id=client_id, client_secret=Secret(secret), scope=scope,
        extensions=_extensions(props, jaas, source), cafile=_endpoint_ca(props, jaas, source),
        sub_claim=_claim(props, "sasl.oauthbearer.sub.claim.name", "sub", source),
        connect_timeout=_millis(props, "sasl.login.connect.timeout.ms", source),
        read_timeout=_millis(props, "sasl.login.read.timeout.ms", source),
        refresh_window_factor=_number(props, "sasl.login.refresh.window.factor", 0.8, 0.5, 1.0, source),
        refresh_buffer=_number(props, "sasl.login.refresh.buffer.seconds", 300, 0, 3600, source),
        refresh_min_period=_number(props, "sasl.login.refresh.min.period.seconds", 60, 0, 900, source),
    )


def _first(*values: str | None) -> str | None:
    return next((v for v in values if v), None)


def _refuse_unsupported(props: Mapping[str, str], jaas: Mapping[str, str], source: str) -> None:
    handler = props.get("sasl.login.callback.handler.class", "").strip()
    if handler and handler not in LOGIN_HANDLERS:
        raise ConfigError(f"{source}: sasl.login.callback.handler.class {handler} is not supported: kafkactl fetches "
                          "tokens with client credentials, as OAuthBearerLoginCallbackHandler does")
    retriever = props.get("sasl.oauthbearer.jwt.retriever.class", "").strip()
    if retriever and retriever not in RETRIEVERS:
        raise ConfigError(f"{source}: sasl.oauthbearer.jwt.retriever.class {retriever} is not supported (client "
                          "credentials are: ClientCredentialsJwtRetriever or DefaultJwtRetriever)")
    method = props.get("sasl.oauthbearer.method", "").strip().lower()
    if method and method not in ("oidc", "default"):
        raise ConfigError(f"{source}: sasl.oauthbearer.method {method} is not supported (oidc is)")
    from kafkactl.redact import option_named

    for key in jaas:
        if key.startswith("unsecuredLogin"):
            raise ConfigError(f"{source}: sasl.jaas.config has {key}: unsecured (unsigned) tokens are not supported; "
                              "give sasl.oauthbearer.token.endpoint.url and client credentials")
        if key not in _JAAS_OPTIONS and key not in _JAAS_TLS and not key.startswith("extension_"):
            raise ConfigError(f"{source}: sasl.jaas.config has {option_named(key, jaas)}, which OAuthBearerLoginModule "
                              f"does not take here (it takes {', '.join(_JAAS_OPTIONS)}, extension_<name> and "
                              f"{', '.join(_JAAS_TLS)})")


def _endpoint(props: Mapping[str, str], source: str) -> str:
    """The token endpoint: an http(s) URL with a host, no credentials. A refusal shows it rebuilt from its parts
    without the user part, query or fragment (either may hold a secret), or not at all."""
    url = props.get("sasl.oauthbearer.token.endpoint.url", "").strip()
    key = "sasl.oauthbearer.token.endpoint.url"
    if not url:
        if props.get("sasl.login.callback.handler.class") or props.get("sasl.jaas.config"):
            raise ConfigError(f"{source}: OAUTHBEARER needs {key} (the identity provider's token endpoint)")
        raise ConfigError(f"{source}: OAUTHBEARER needs {key} and client credentials")
    authority = url.split("://", 1)[-1].split("/", 1)[0]
    if "@" in authority or ("://" not in url and "@" in url):
        raise ConfigError(f"{source}: {key} holds credentials (the part before '@' is not shown): give them as the "
                          "client id and secret")
    if not _URL_TEXT.fullmatch(url):
        raise ConfigError(f"{source}: {key} holds a space, a control or a non-ASCII character (not shown): "
                          "percent-encode it")
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 (raises on a port out of range)
    except ValueError:
        raise ConfigError(f"{source}: {key} is not a URL (a bad host or port; not shown)") from None
    shown_url = public_url(url)
    if parts.scheme == "file":
        raise ConfigError(f"{source}: {key} {shown_url}: a token file is not supported; give the identity "
                          "provider's http(s) token endpoint")
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(f"{source}: {key} {shown_url} is not an http(s) URL with a host")
    return url


def public_url(url: str) -> str:
    """A URL for messages: scheme, host, port and path, never a user part, query or fragment."""
    from kafkactl.limits import shown

    try:
        p = urlsplit(url)
        host = p.hostname or ""
        port = f":{p.port}" if p.port else ""
    except ValueError:
        return "(not shown)"
    host = f"[{host}]" if ":" in host else host
    return shown(f"{p.scheme}://{host}{port}{p.path}" if p.scheme else p.path, 100).strip("'\"")


def _extensions(props: Mapping[str, str], jaas: Mapping[str, str], source: str) -> tuple[tuple[str, str], ...]:
    out: dict[str, str] = {}
    from kafkactl.limits import shown

    for pair in (p for p in props.get("sasl.oauthbearer.extensions", "").split(",") if p.strip()):
        key, sep, value = pair.partition("=")
        if not sep:
            raise ConfigError(f"{source}: sasl.oauthbearer.extensions: {shown(pair.strip(), 40)} is not key=value")
        out[key.strip()] = value
    for key, value in jaas.items():
        if key.startswith("extension_"):
            out[key[len("extension_"):]] = value
    for key, value in out.items():
        if not _EXTENSION.fullmatch(key) or key == "auth":
            raise ConfigError(f"{source}: SASL extension {shown(key, 40)}: a name of letters only, and not 'auth' "
                              "(RFC 7628)")
        if not _EXTENSION_VALUE.fullmatch(value):
            raise ConfigError(f"{source}: SASL extension {key}: its value must be printable ASCII without a comma, "
                              "not empty (RFC 7628; not shown)")
    return tuple(sorted(out.items()))


def _endpoint_ca(props: Mapping[str, str], jaas: Mapping[str, str], source: str) -> str | None:
    """The token endpoint's CA bundle: the JAAS ssl.truststore.* (the Java client's way), else librdkafka's
    https.ca.location; None: the system's."""
    if jaas.get("ssl.truststore.location"):
        from pathlib import Path

        from kafkactl.profiles.stores import pem_from_store

        try:
            material = pem_from_store(jaas, "truststore")
        except ConfigError as exc:
            raise ConfigError(f"{source}: sasl.jaas.config: {exc.message}") from None
        return material.cafile if material else str(Path(jaas["ssl.truststore.location"]).expanduser())
    location = props.get("https.ca.location", "").strip()
    if not location:
        return None
    from pathlib import Path

    from kafkactl.errors import MissingFileError

    path = Path(location).expanduser()
    if not path.exists():
        raise MissingFileError(f"{source}: https.ca.location {location}: no such file")
    if not path.is_file():
        raise ConfigError(f"{source}: https.ca.location {location}: not a file (a PEM bundle of CA certificates; a "
                          "directory is not supported)")
    try:
        head = path.read_bytes()[:1 << 20]
    except OSError as exc:
        raise ConfigError(f"{source}: https.ca.location {location}: cannot read ({exc.strerror})") from None
    if b"-----BEGIN CERTIFICATE-----" not in head:
        raise ConfigError(f"{source}: https.ca.location {location}: holds no PEM certificate")
    return str(path)


def _claim(props: Mapping[str, str], key: str, default: str, source: str) -> str:
    value = props.get(key, "").strip() or default
    if not _CLAIM.fullmatch(value):
        raise ConfigError(f"{source}: {key}: not a claim name")
    return value


def _millis(props: Mapping[str, str], key: str, source: str) -> float | None:
    if not props.get(key, "").strip():
        return None
    return _number(props, key, 0, 1, 3_600_000, source) / 1000.0


def _number(props: Mapping[str, str], key: str, default: float, low: float, high: float, source: str) -> float:
    from kafkactl.limits import shown

    text = props.get(key, "").strip()
    if not text:
        return float(default)
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not low <= value <= high:  # (nan compares false)
        raise ConfigError(f"{source}: {key} {shown(text)}: a number from {low:g} to {high:g}")
    return value


def unverified_claims(token: str) -> dict[str, Any]:
    """A JWT's payload, read without checking its signature (the brokers check it): for the principal they derive
    from it and for its expiry."""
    import base64
    import json

    parts = token.split(".")
    if len(parts) != 3:
        raise ValueError("not a JWS compact token")
    body = parts[1] + "=" * (-len(parts[1]) % 4)
    claims = json.loads(base64.urlsafe_b64decode(body.encode("ascii")))
    if not isinstance(claims, dict):
        raise ValueError("its payload is not a JSON object")
    return claims
