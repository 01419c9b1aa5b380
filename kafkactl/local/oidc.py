"""The sandbox's identity provider (`local up --oauth`): an OAuth 2.0 token endpoint and its JWKS.

Client credentials in (HTTP Basic, or client_id and client_secret in the form), RS256 JWTs out, signed with the
sandbox's key; the brokers validate them with Kafka's own OAuthBearerValidatorCallbackHandler against /jwks. The
tokens carry sub (the client id: the brokers' principal is User:<sub>), iss, aud, iat, exp and the scope asked
for. PyJWT signs them.

Run by the sandbox as `python -m kafkactl.local.oidc <sandbox directory>`: it reads oidc.json (port, lifetime,
issuer, audience, clients and their secrets: 0600) and oidc-key.pem there, and serves until it is stopped. Tests
start one in-process with `TokenServer(...)`.
"""

from __future__ import annotations

import base64
import collections
import hmac
import json
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote_plus

AUDIENCE = "kafka"
MAX_REQUEST_BYTES = 1 << 16


class TokenServer:
    def __init__(self, clients: dict[str, str], ttl: float = 3600, audience: str = AUDIENCE, issuer: str | None = None,
                 port: int = 0, key_pem: bytes | None = None, request_timeout: float = 5.0,
                 tls_pem: str | None = None) -> None:
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import rsa

        self.clients, self.ttl, self.audience = dict(clients), ttl, audience
        self.request_timeout = request_timeout  # a client that sends less than it announced holds no thread for ever
        self.key: Any = (serialization.load_pem_private_key(key_pem, None) if key_pem
                         else rsa.generate_private_key(public_exponent=65537, key_size=2048))
        self.kid = uuid.uuid5(uuid.NAMESPACE_OID, json.dumps(self._public_jwk(), sort_keys=True)).hex
        # the claims of the tokens handed out, the last 10,000 (tests count refreshes)
        self.issued: collections.deque[dict[str, Any]] = collections.deque(maxlen=10_000)
        self.refusing = False  # tests: answer every token request 503
        self._httpd = ThreadingHTTPServer(("127.0.0.1", port), self._handler())
        self._httpd.daemon_threads = True
        self.scheme = "http"
        if tls_pem:  # (tests: a token endpoint behind a private CA) one PEM file, certificate chain and key
            import ssl

            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(tls_pem)
            self._httpd.socket = context.wrap_socket(self._httpd.socket, server_side=True)
            self.scheme = "https"
        self.issuer = issuer or self.url
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True,
                                        name="kafkactl-oidc")

    @property
    def url(self) -> str:
        return f"{self.scheme}://127.0.0.1:{self._httpd.server_address[1]}"

    @property
    def token_url(self) -> str:
        return f"{self.url}/token"

    @property
    def jwks_url(self) -> str:
        return f"{self.url}/jwks"

    def _public_jwk(self) -> dict[str, Any]:
        from jwt.algorithms import RSAAlgorithm

        return dict(json.loads(RSAAlgorithm.to_jwk(self.key.public_key())))

    def jwks(self) -> dict[str, Any]:
        return {"keys": [{**self._public_jwk(), "kid": self.kid, "use": "sig", "alg": "RS256"}]}

    def token(self, client_id: str, scope: str | None = None, ttl: float | None = None) -> str:
        import jwt

        now = int(time.time())
        claims = {"sub": client_id, "iss": self.issuer, "aud": self.audience, "iat": now,
                  "exp": now + int(self.ttl if ttl is None else ttl), "jti": uuid.uuid4().hex,
                  **({"scope": scope} if scope else {})}
        self.issued.append(claims)
        return jwt.encode(claims, self.key, algorithm="RS256", headers={"kid": self.kid})

    def _grant(self, form: dict[str, list[str]], authorization: str) -> tuple[int, dict[str, Any]]:
        client_id, secret = _one(form, "client_id"), _one(form, "client_secret")
        if authorization.startswith("Basic "):  # client_secret_basic (RFC 6749 2.3.1: each part form-encoded)
            try:
                pair = base64.b64decode(authorization[6:], validate=True).decode()
            except ValueError:
                return 401, {"error": "invalid_client"}
            raw_id, _, raw_secret = pair.partition(":")
            client_id, secret = unquote_plus(raw_id), unquote_plus(raw_secret)
        if _one(form, "grant_type") != "client_credentials":
            return 400, {"error": "unsupported_grant_type"}
        known = self.clients.get(client_id or "")
        if known is None or secret is None or not hmac.compare_digest(known.encode(), secret.encode()):
            return 401, {"error": "invalid_client"}
        if self.refusing:
            return 503, {"error": "temporarily_unavailable"}
        scope = _one(form, "scope")
        return 200, {"access_token": self.token(str(client_id), scope), "token_type": "bearer",
                     "expires_in": int(self.ttl)}

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            timeout = server.request_timeout

            def log_message(self, *_args: Any) -> None:  # (no request lines: nothing of a request is logged)
                pass

            def _send(self, code: int, doc: dict[str, Any]) -> None:
                body = json.dumps(doc).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:
                if self.path in ("/jwks", "/.well-known/jwks.json"):
                    self._send(200, server.jwks())
                else:
                    self._send(404, {"error": "not_found"})

            def do_POST(self) -> None:
                from kafkactl.limits import bounded_int

                length = bounded_int((self.headers.get("Content-Length") or "0").strip(), 0, MAX_REQUEST_BYTES)
                if self.path != "/token" or length is None:
                    self._send(404 if self.path != "/token" else 413, {"error": "invalid_request"})
                    return
                form = parse_qs(self.rfile.read(length).decode("utf-8", "replace"))
                self._send(*server._grant(form, self.headers.get("Authorization") or ""))

        return Handler

    def start(self) -> TokenServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> TokenServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _one(form: dict[str, list[str]], key: str) -> str | None:
    values = form.get(key)
    return values[0] if values else None


def new_key_pem() -> bytes:
    """A fresh RSA signing key, PEM (PKCS8, unencrypted: it lives in the sandbox's 0700 directory, file 0600)."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


def serve(home: Path) -> None:
    """The sandbox's identity provider, until SIGTERM."""
    import signal

    config = json.loads((home / "oidc.json").read_text())
    server = TokenServer(config["clients"], ttl=config["ttl"], audience=config["audience"], issuer=config["issuer"],
                         port=config["port"], key_pem=(home / "oidc-key.pem").read_bytes())
    stopped = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopped.set())
    signal.signal(signal.SIGINT, lambda *_: stopped.set())
    server.start()
    print(f"serving {server.token_url} and {server.jwks_url}", flush=True)
    stopped.wait()
    server.stop()


if __name__ == "__main__":
    serve(Path(sys.argv[1]))
