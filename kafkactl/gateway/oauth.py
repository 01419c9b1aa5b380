"""OAuth 2.0 client credentials: the token source kafkactl's clients share.

kafka-python asks it through its token provider (when it connects, and when it re-authenticates a connection
before the token expires, KIP-368); the gateway asks it for the principal the brokers derive (the token's subject)
and fetches once before building librdkafka's client, which then fetches and refreshes its own tokens with the same
credentials (`sasl.oauthbearer.method=oidc`), so that a refused secret or an endpoint that is down is one line
before any connection. Spark executors build gateways from the delivered profile alike. A token is fetched here as
the Java client's login callback handler fetches it: `grant_type=client_credentials` (and the scope) POSTed to the
token endpoint with the client id and secret in HTTP Basic authentication; reused until its refresh point
(sasl.login.refresh.*), then fetched again.

The client secret and every token are Secrets: registered with kafkactl.redact the moment they are read, so no
message, log line or file kafkactl writes shows them. An error names the endpoint (without its user part, query or
fragment), the client id, and the endpoint's RFC 6749 error code, never what was sent.
"""

from __future__ import annotations

import re
import threading
import time
from dataclasses import dataclass
from typing import Any

from kafkactl.errors import AuthenticationError, KafkactlError, UnreachableError
from kafkactl.profiles.oauth import OAuthSettings, unverified_claims
from kafkactl.redact import Secret, scrub

MAX_RESPONSE_BYTES = 1 << 20  # a token response is a few KiB
_YEAR = 365 * 86400.0
_ERROR_CODE = re.compile(r"[\x20\x21\x23-\x5B\x5D-\x7E]{1,64}")
_TRANSIENT = (408, 429, 500, 502, 503, 504)


@dataclass(frozen=True)
class Token:
    value: Secret
    principal: str  # the subject claim: the brokers' principal is User:<it>
    issued_at: float  # epoch seconds (as this machine's clock read it when the token arrived)
    expires_at: float  # epoch seconds, from the token's exp claim

    @property
    def lifetime(self) -> float:
        return max(0.0, self.expires_at - self.issued_at)


class TokenSource:
    """Fetches a token when none is held or the held one has reached its refresh point."""

    def __init__(self, settings: OAuthSettings, timeout: float) -> None:
        self.settings = settings
        self.timeout = timeout
        self._token: Token | None = None
        self._refresh_at = 0.0
        self._lock = threading.Lock()
        self.error: KafkactlError | None = None  # the last fetch's failure, for the gateway to report

    @property
    def where(self) -> str:
        from kafkactl.profiles.oauth import public_url

        return public_url(self.settings.token_endpoint)

    @property
    def held(self) -> Token | None:
        """The token held now, fetching none (for messages about a request already made)."""
        return self._token

    def token(self) -> Token:
        with self._lock:
            if self._token is None or time.time() >= self._refresh_at:
                try:
                    self._token = self._fetch()
                except KafkactlError as exc:
                    self.error = exc
                    raise
                self.error = None
                self._refresh_at = self._refresh_point(self._token)
            return self._token

    def _refresh_point(self, t: Token) -> float:
        """As the Java client's refreshing login: at the window factor of the lifetime, but no later than the
        buffer before expiry and no sooner than the minimum period (when the lifetime leaves room for them)."""
        s = self.settings
        at = t.issued_at + t.lifetime * s.refresh_window_factor
        if t.lifetime > s.refresh_min_period + s.refresh_buffer:
            at = min(max(at, t.issued_at + s.refresh_min_period), t.expires_at - s.refresh_buffer)
        return at

    def _fetch(self) -> Token:
        """Request a token until the endpoint answers other than transiently, all within --timeout: a request
        runs on a thread of its own, so an endpoint that trickles its answer is given up on at the deadline."""
        import json

        deadline = time.monotonic() + self.timeout
        backoff = 0.1
        while True:
            status, body = self._post_by(deadline)
            if status not in _TRANSIENT or time.monotonic() + backoff >= deadline:
                break
            time.sleep(backoff)
            backoff = min(backoff * 2, 2.0)
        try:
            doc = json.loads(body) if body else None
        except (ValueError, RecursionError):
            doc = None
        if status != 200:
            raise self._refused(status, doc)
        if not isinstance(doc, dict) or not isinstance(doc.get("access_token"), str) or not doc["access_token"]:
            raise AuthenticationError(f"the token endpoint {self.where} answered client {self.settings.client_id} "
                                      "without an access_token")
        value = Secret(doc["access_token"])  # registered before anything may show it
        return self._token_of(value)

    def _post_by(self, deadline: float) -> tuple[int, bytes]:
        box: dict[str, Any] = {}

        def request() -> None:
            try:
                box["answer"] = self._post(max(0.05, deadline - time.monotonic()))
            except BaseException as exc:  # noqa: BLE001 - handed to the waiting thread
                box["error"] = exc

        worker = threading.Thread(target=request, daemon=True, name="kafkactl-token-request")
        worker.start()
        worker.join(max(0.0, deadline - time.monotonic()))
        if "error" in box:
            raise box["error"]
        if "answer" not in box:  # (the thread ends when its socket times out; nothing waits for it)
            raise UnreachableError(f"no whole answer from the token endpoint {self.where} within {self.timeout:g} s "
                                   f"(fetching a token for client {self.settings.client_id})")
        answer: tuple[int, bytes] = box["answer"]
        return answer

    def _token_of(self, value: Secret) -> Token:
        import math
        import re

        who = f"client {self.settings.client_id}"
        try:
            claims = unverified_claims(value.reveal())
        except (ValueError, UnicodeDecodeError, RecursionError):
            raise AuthenticationError(f"the token endpoint {self.where} gave {who} a token that is not a JWT (the "
                                      "brokers validate JWTs)") from None
        sub = claims.get(self.settings.sub_claim)
        exp = claims.get("exp")
        if not isinstance(sub, str) or not re.fullmatch(r"[^\x00-\x1f\x7f]{1,255}", sub):
            raise AuthenticationError(f"the token for {who} has no usable {self.settings.sub_claim} claim "
                                      "(sasl.oauthbearer.sub.claim.name; text of 1 to 255 characters): the brokers "
                                      "take the principal from it")
        if isinstance(exp, bool) or not isinstance(exp, (int, float)):
            raise AuthenticationError(f"the token for {who} has no exp claim (a number of seconds)")
        now = time.time()
        if isinstance(exp, int) and not now - 10 * _YEAR < exp < now + 10 * _YEAR:
            exp = math.nan  # (a number too large for a float: the check below says so)
        if not math.isfinite(exp) or exp > now + 10 * _YEAR:
            raise AuthenticationError(f"the token for {who} has an exp claim that is not a time within ten years")
        if exp <= now:
            raise AuthenticationError(f"the token endpoint {self.where} gave {who} a token that expired "
                                      f"{now - exp:.0f} s ago (is this machine's clock right?)")
        return Token(value=value, principal=sub, issued_at=now, expires_at=float(exp))

    def _post(self, wait: float) -> tuple[int, bytes]:
        """One token request: its HTTP status and body (errors that are not an HTTP answer are raised)."""
        import base64
        import http.client
        import ssl
        import urllib.error
        import urllib.request
        from urllib.parse import quote_plus, urlencode

        s = self.settings
        form = {"grant_type": "client_credentials", **({"scope": s.scope} if s.scope else {})}
        basic = base64.b64encode(f"{quote_plus(s.client_id)}:{quote_plus(s.client_secret.reveal())}".encode()).decode()
        request = urllib.request.Request(
            s.token_endpoint, data=urlencode(form).encode(), method="POST",
            headers={"Authorization": f"Basic {basic}", "Accept": "application/json",
                     "Content-Type": "application/x-www-form-urlencoded"})
        try:
            context = ssl.create_default_context(cafile=s.cafile) if s.token_endpoint.startswith("https:") else None
        except (OSError, ssl.SSLError):
            from kafkactl.errors import ConfigError

            raise ConfigError(f"the token endpoint's CA bundle {s.cafile} cannot be read as PEM certificates "
                              "(https.ca.location, or ssl.truststore.location in sasl.jaas.config)") from None
        wait = min(wait, s.read_timeout or wait, s.connect_timeout or wait)
        try:
            with _opener(context).open(request, timeout=wait) as response:
                return response.status, response.read(MAX_RESPONSE_BYTES)
        except urllib.error.HTTPError as exc:
            with exc:
                return exc.code, exc.read(MAX_RESPONSE_BYTES)
        except urllib.error.URLError as exc:
            raise self._unreached(exc.reason) from None
        except (OSError, ssl.SSLError, TimeoutError) as exc:  # (a timeout while reading arrives bare)
            raise self._unreached(exc) from None
        except (http.client.HTTPException, ValueError) as exc:  # not HTTP: a Kafka or TLS port, a broken answer
            raise AuthenticationError(f"the token endpoint {self.where} did not answer in HTTP "
                                      f"({exc.__class__.__name__}): is the URL right?") from None

    def _unreached(self, reason: Any) -> KafkactlError:
        import ssl

        if isinstance(reason, ssl.SSLCertVerificationError):
            return AuthenticationError(
                f"the token endpoint {self.where} presented a certificate that is not trusted "
                f"({reason.verify_message}): set https.ca.location, or ssl.truststore.location in sasl.jaas.config, "
                "to the CA that signed it")
        if isinstance(reason, ssl.SSLError):
            plain = reason.reason == "WRONG_VERSION_NUMBER"  # (what OpenSSL says of an answer in plain HTTP)
            return AuthenticationError(f"the TLS handshake with the token endpoint {self.where} failed "
                                       f"({reason.reason or reason.__class__.__name__})",
                                       hint="the endpoint answers in plain HTTP? then its URL is http://"
                                       if plain else None)
        if isinstance(reason, ConnectionRefusedError):
            why = "connection refused"
        elif isinstance(reason, TimeoutError) or reason.__class__.__name__ == "timeout":
            why = f"no answer within {self.timeout:g} s"
        elif isinstance(reason, OSError) and reason.strerror:
            why = reason.strerror.lower()
        else:
            why = reason.__class__.__name__
        return UnreachableError(f"cannot reach the token endpoint {self.where} to fetch a token for client "
                                f"{self.settings.client_id}: {why}")

    def _refused(self, status: int, doc: Any) -> KafkactlError:
        code = doc.get("error") if isinstance(doc, dict) else None
        # RFC 6749 5.2's error code alphabet, short, and never anything holding a secret (masked whole first)
        said = f" ({code})" if isinstance(code, str) and _ERROR_CODE.fullmatch(code) and scrub(code) == code else ""
        if status in (400, 401, 403):
            bad_client = status == 401 or code in ("invalid_client", "unauthorized_client")
            hint = ("check the client id and secret" if bad_client
                    else "check the scope" if code == "invalid_scope" else None)
            return AuthenticationError(f"the token endpoint {self.where} refused client {self.settings.client_id}: "
                                       f"HTTP {status}{said}", hint=hint)
        return AuthenticationError(f"the token endpoint {self.where} failed to issue a token for client "
                                   f"{self.settings.client_id}: HTTP {status}{said}",
                                   hint="check the URL's path (sasl.oauthbearer.token.endpoint.url)"
                                   if status in (404, 405) else None)


def _opener(context: Any) -> Any:
    """No redirect followed: a token request that a redirect sends elsewhere would carry the client's credentials
    there. (A proxy from the environment, https_proxy, is used.)"""
    import urllib.request

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *_args: Any, **_kwargs: Any) -> None:
            return None

    handlers: list[Any] = [NoRedirect()]
    if context is not None:
        handlers.append(urllib.request.HTTPSHandler(context=context))
    return urllib.request.build_opener(*handlers)


def kafka_python_provider(source: TokenSource) -> Any:
    """kafka-python's token provider, over the gateway's token source."""
    from kafka.net.sasl.oauth import AbstractTokenProvider

    class Provider(AbstractTokenProvider):
        def token(self) -> str:
            return source.token().value.reveal()

        def extensions(self) -> dict[str, str]:
            return dict(source.settings.extensions)

    return Provider()


_SHARED: dict[tuple[OAuthSettings, float], TokenSource] = {}
_SHARED_LOCK = threading.Lock()


def shared_source(settings: OAuthSettings, timeout: float) -> TokenSource:
    """One token source per client credentials in this process: every gateway built for them (a Spark executor
    builds one per task) shares its tokens, and the identity provider is asked once per refresh."""
    with _SHARED_LOCK:
        if (settings, timeout) not in _SHARED:
            _SHARED[(settings, timeout)] = TokenSource(settings, timeout)
        return _SHARED[(settings, timeout)]
