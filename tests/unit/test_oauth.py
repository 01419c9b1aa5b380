"""OAUTHBEARER: the properties the Java client and librdkafka take, read into one OAuthSettings; the token source
against a token endpoint in this process (kafkactl.local.oidc.TokenServer: real HTTP, real RS256 JWTs)."""

from __future__ import annotations

import json
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from threading import Thread

import pytest

from kafkactl.errors import AuthenticationError, ConfigError, UnreachableError
from kafkactl.gateway.oauth import TokenSource
from kafkactl.local.oidc import TokenServer
from kafkactl.profiles.oauth import OAuthSettings, unverified_claims
from kafkactl.profiles.properties import settings_from_properties
from kafkactl.redact import Secret, scrub

MODULE = "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule"
HANDLER = "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler"
SECRET = "cl1ent-s3cret-for-tests"


def _props(**extra: str) -> dict[str, str]:
    return {"security.protocol": "SASL_SSL", "sasl.mechanism": "OAUTHBEARER",
            "sasl.login.callback.handler.class": HANDLER,
            "sasl.oauthbearer.token.endpoint.url": "https://idp.example.com/oauth2/token",
            "sasl.jaas.config": f'{MODULE} required clientId="app" clientSecret="{SECRET}" scope="kafka";', **extra}


def test_the_java_client_properties_read_into_settings():
    s = settings_from_properties(_props(**{"sasl.oauthbearer.sub.claim.name": "client_id",
                                           "sasl.login.connect.timeout.ms": "2500"}))
    o = s["oauth"]
    assert (s["sasl_mechanism"], o.token_endpoint, o.client_id, o.scope, o.sub_claim, o.connect_timeout) == (
        "OAUTHBEARER", "https://idp.example.com/oauth2/token", "app", "kafka", "client_id", 2.5)
    assert isinstance(o.client_secret, Secret) and o.client_secret.reveal() == SECRET
    assert SECRET not in repr(s)


def test_kip_1139_properties_win_over_the_jaas_options_and_librdkafka_spelling_is_read(tmp_path):
    s = settings_from_properties(_props(**{"sasl.oauthbearer.client.credentials.client.id": "other",
                                           "sasl.oauthbearer.client.credentials.client.secret": "x-other-secret",
                                           "sasl.oauthbearer.scope": "s2"}))["oauth"]
    assert (s.client_id, s.client_secret.reveal(), s.scope) == ("other", "x-other-secret", "s2")
    r = settings_from_properties({"sasl.mechanism": "OAUTHBEARER", "sasl.oauthbearer.method": "oidc",
                                  "sasl.oauthbearer.token.endpoint.url": "http://127.0.0.1:1/t",
                                  "sasl.oauthbearer.client.id": "c", "sasl.oauthbearer.client.secret": "s-123456",
                                  "sasl.oauthbearer.extensions": "logicalCluster=lkc-1,identityPoolId=pool-2",
                                  "https.ca.location": str(_ca(tmp_path))})["oauth"]
    assert r.extensions == (("identityPoolId", "pool-2"), ("logicalCluster", "lkc-1"))
    assert r.cafile == str(tmp_path / "ca.pem")


def _ca(tmp_path):
    """A real CA certificate in a PEM file."""
    import datetime

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "test ca")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(1).not_valid_before(now).not_valid_after(now + datetime.timedelta(days=1))
            .sign(key, hashes.SHA256()))
    path = tmp_path / "ca.pem"
    path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return path


def test_the_older_handler_package_is_taken():
    older = "org.apache.kafka.common.security.oauthbearer.secured.OAuthBearerLoginCallbackHandler"
    assert settings_from_properties(_props(**{"sasl.login.callback.handler.class": older}))["oauth"].client_id == "app"


@pytest.mark.parametrize(("change", "said"), [
    ({"sasl.mechanism": "GSSAPI"}, "sasl.mechanism GSSAPI does not match the OAuthBearerLoginModule"),
    ({"sasl.mechanism": "AWS_MSK_IAM"}, "Amazon MSK's IAM"),
    ({"sasl.login.callback.handler.class": "com.example.Custom"}, "com.example.Custom is not supported"),
    ({"sasl.oauthbearer.jwt.retriever.class": "org.apache.kafka.common.security.oauthbearer.JwtBearerJwtRetriever"},
     "JwtBearerJwtRetriever is not supported"),
    ({"sasl.oauthbearer.token.endpoint.url": "file:///tmp/token"}, "a token file is not supported"),
    ({"sasl.oauthbearer.token.endpoint.url": "ftp://x/t"}, "is not an http(s) URL"),
    ({"sasl.oauthbearer.token.endpoint.url": f"https://app:{SECRET}@idp/t"}, "holds credentials"),
    # (adversary pass) a URL refused for another reason must not show a password in it, nor its query
    ({"sasl.oauthbearer.token.endpoint.url": f"ftp://app:{SECRET}@idp/t"}, "holds credentials"),
    ({"sasl.oauthbearer.token.endpoint.url": f"app:{SECRET}@idp.example.com/token"}, "holds credentials"),
    ({"sasl.oauthbearer.token.endpoint.url": f"https://app:{SECRET}@/t"}, "holds credentials"),
    ({"sasl.oauthbearer.token.endpoint.url": f"https://idp:99999/t?client_secret={SECRET}"}, "a bad host or port"),
    ({"sasl.oauthbearer.token.endpoint.url": f"ftp://idp/t?client_secret={SECRET}"}, "url ftp://idp/t is not"),
    ({"sasl.oauthbearer.token.endpoint.url": f"https://idp/to ken?s={SECRET}"}, "a space, a control"),
    ({"sasl.oauthbearer.token.endpoint.url": "https://idp/tök"}, "non-ASCII"),
    ({"sasl.oauthbearer.token.endpoint.url": "http://[::1/t"}, "is not a URL"),
    ({"https.ca.location": "/nonexistent/ca.pem"}, "no such file"),
    ({"https.ca.location": "/etc"}, "a directory is not supported"),
    ({"https.ca.location": "/etc/hostname"}, "holds no PEM certificate"),
    ({"sasl.oauthbearer.extensions": "logicalCluster=lkc-\u00e9"}, "printable ASCII"),
    ({"sasl.oauthbearer.extensions": "logicalCluster="}, "printable ASCII"),
    ({"sasl.oauthbearer.extensions": "logicalCluster=a\x7fb"}, "printable ASCII"),
    ({"sasl.oauthbearer.extensions": "logicalCluster=a\x01b"}, "printable ASCII"),
    ({"sasl.jaas.config": f'{MODULE} required unsecuredLoginStringClaim_sub="admin";'}, "unsecured (unsigned) tokens"),
    ({"sasl.jaas.config": f'{MODULE} required clientId="app" clientSecret="{SECRET}" clientSecert="x";'},
     "an option after 'clientSecret'"),
    ({"sasl.jaas.config": f'{MODULE} required clientId="app";'}, "needs a client secret"),
    ({"sasl.jaas.config": f'{MODULE} required clientSecret="{SECRET}";'}, "needs a client id"),
    ({"sasl.jaas.config": f'{MODULE} required clientId="a" clientSecret="b-123456" extension_auth="x";'},
     "not 'auth'"),
    ({"sasl.login.refresh.window.factor": "0.2"}, "from 0.5 to 1"),
    ({"sasl.login.refresh.buffer.seconds": "nan"}, "from 0 to 3600"),
    ({"sasl.mechanism": "PLAIN"}, "sasl.mechanism PLAIN does not match the OAuthBearerLoginModule"),
])
def test_what_kafkactl_cannot_do_is_refused_by_name_and_the_secret_never_shown(change, said):
    from kafkactl.errors import KafkactlError

    with pytest.raises(KafkactlError) as caught:
        settings_from_properties(_props(**change))
    assert said in caught.value.message
    assert SECRET not in caught.value.message and "s3cret" not in caught.value.message


def test_oauth_with_a_protocol_without_sasl_is_refused_before_any_token_is_fetched():
    from kafkactl.profiles.resolve import _check_credentials

    for protocol in ("SSL", "PLAINTEXT"):
        settings = settings_from_properties(_props(**{"security.protocol": protocol}))
        with pytest.raises(ConfigError, match=f"security.protocol is {protocol}"):
            _check_credentials(settings)


def test_a_world_readable_file_with_an_oauth_client_secret_is_warned_of(tmp_path):
    from kafkactl.profiles.properties import read_properties_file

    for key in ("sasl.oauthbearer.client.credentials.client.secret", "sasl.oauthbearer.client.secret"):
        f = tmp_path / "c.properties"
        f.write_text(f"{key}=x\n")
        f.chmod(0o644)
        warnings: list[str] = []
        read_properties_file(f, warnings)
        assert warnings and "readable by other users" in warnings[0], key


def test_a_resolved_context_without_credentials_is_refused():
    from kafkactl.profiles.resolve import _check_credentials

    with pytest.raises(ConfigError, match="OAUTHBEARER but no token endpoint"):
        _check_credentials({"sasl_mechanism": "OAUTHBEARER", "security_protocol": "SASL_SSL"})


def _settings(url: str, secret: str = SECRET, **kw) -> OAuthSettings:
    return OAuthSettings(token_endpoint=url, client_id="app", client_secret=Secret(secret), **kw)


def test_a_token_is_fetched_once_reused_and_fetched_again_at_its_refresh_point():
    with TokenServer({"app": SECRET}, ttl=2) as idp:
        source = TokenSource(_settings(idp.token_url, scope="kafka"), timeout=5)
        first = source.token()
        assert source.token() is first and len(idp.issued) == 1
        assert first.principal == "app" and 1 <= first.lifetime <= 2 and idp.issued[0]["scope"] == "kafka"
        assert first.value.reveal() not in scrub(f"said {first.value.reveal()}")  # registered: masked everywhere
        time.sleep(1.7)  # past 0.8 of its 2 s
        second = source.token()
        assert second is not first and len(idp.issued) == 2


def test_the_refresh_point_keeps_the_buffer_and_the_minimum_period_of_a_long_token():
    source = TokenSource(_settings("http://127.0.0.1:1/t"), timeout=5)
    from kafkactl.gateway.oauth import Token

    now = time.time()
    hour = Token(Secret("x" * 30), "app", now, now + 3600)
    assert source._refresh_point(hour) == pytest.approx(now + 2880)  # 0.8 of an hour: well before the buffer
    day_tail = Token(Secret("y" * 30), "app", now, now + 400)
    assert source._refresh_point(day_tail) == pytest.approx(now + 100)  # 320 would leave less than 300 s


def test_a_wrong_secret_an_unreachable_endpoint_and_bad_answers_are_one_clear_error():
    with TokenServer({"app": SECRET}) as idp:
        with pytest.raises(AuthenticationError) as caught:
            TokenSource(_settings(idp.token_url, secret="wrong-secret-x1"), timeout=5).token()
        assert "refused client app: HTTP 401 (invalid_client)" in caught.value.message
        idp.refusing = True
        started = time.monotonic()
        with pytest.raises(AuthenticationError, match="failed to issue a token for client app: HTTP 503"):
            TokenSource(_settings(idp.token_url), timeout=1).token()
        assert time.monotonic() - started < 3  # retried within --timeout, then said
    with pytest.raises(UnreachableError, match="connection refused"):
        TokenSource(_settings(idp.token_url), timeout=2).token()


def _serve(body: bytes, status: int = 200, location: str | None = None):
    class H(BaseHTTPRequestHandler):
        def log_message(self, *_a):
            pass

        def do_POST(self):
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.send_response(status)
            if location:
                self.send_header("Location", location)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), H)
    Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}/token"


@pytest.mark.parametrize(("body", "said"), [
    (b"<html>not json</html>", "without an access_token"),
    (json.dumps({"access_token": "opaque-not-a-jwt-123"}).encode(), "not a JWT"),
    (None, "has no usable sub claim"),
    (None, "expired"),
])
def test_answers_the_brokers_would_refuse_are_said_before_connecting(body, said):
    if body is None:
        with TokenServer({"app": SECRET}, ttl=-60 if said == "expired" else 60) as idp:
            raw = idp.token("app")
            if said != "expired":
                import jwt

                raw = jwt.encode({"exp": int(time.time()) + 60}, idp.key, algorithm="RS256")
        body = json.dumps({"access_token": raw}).encode()
    httpd, url = _serve(body)
    try:
        with pytest.raises(AuthenticationError, match=said):
            TokenSource(_settings(url), timeout=2).token()
    finally:
        httpd.shutdown()


def test_a_redirect_is_not_followed_with_the_credentials():
    httpd, url = _serve(b"", status=307, location="http://127.0.0.1:9/elsewhere")
    try:
        with pytest.raises(AuthenticationError, match="HTTP 307"):
            TokenSource(_settings(url), timeout=2).token()
    finally:
        httpd.shutdown()


def test_the_claims_of_a_token_are_read_without_its_signature():
    with TokenServer({"app": SECRET}) as idp:
        claims = unverified_claims(idp.token("app", "s1"))
    assert claims["sub"] == "app" and claims["aud"] == "kafka" and claims["scope"] == "s1"
    with pytest.raises(ValueError):
        unverified_claims("a.b")


def test_the_delivery_to_spark_executors_carries_the_client_credentials_in_memory_only():
    from kafkactl.desired.delivery import ExecutorClients, deliver
    from kafkactl.profiles import Profile

    profile = Profile(bootstrap_servers="127.0.0.1:9096", security_protocol="SASL_PLAINTEXT",
                      sasl_mechanism="OAUTHBEARER", oauth=_settings("http://127.0.0.1:1/t", scope="k"))
    d = deliver(profile)
    assert SECRET not in repr(d)
    import pickle

    assert SECRET.encode() not in pickle.dumps(d)
    back = ExecutorClients({"c": pickle.loads(pickle.dumps(d))})._profile(pickle.loads(pickle.dumps(d)))
    assert back.oauth == profile.oauth and back.oauth.client_secret.reveal() == SECRET


def test_an_error_code_holding_a_piece_of_the_secret_is_not_shown():
    """(adversary pass) the endpoint's `error` field is shown only as an RFC 6749 code, never cut from something
    longer: a secret cut in half would no longer be masked."""
    for code in ["x" * 70 + SECRET, SECRET, "bad\ncode", "é"]:
        httpd, url = _serve(json.dumps({"error": code}).encode(), status=401)
        try:
            with pytest.raises(AuthenticationError) as caught:
                TokenSource(_settings(url), timeout=2).token()
        finally:
            httpd.shutdown()
        message = caught.value.message
        assert message.endswith("HTTP 401") and "s3cret" not in message and "xxxx" not in message, message


def _raw(answer):
    """A TCP server answering every connection with `answer(sock)` (raw bytes, trickled or not)."""
    import socket

    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)

    def loop():
        while True:
            try:
                conn, _ = srv.accept()
            except OSError:
                return
            Thread(target=lambda c=conn: (c.recv(65536), answer(c), c.close()), daemon=True).start()

    Thread(target=loop, daemon=True).start()
    return srv, f"http://127.0.0.1:{srv.getsockname()[1]}/token"


def _trickle(conn):
    try:
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n")
        for _ in range(40):
            conn.sendall(b"x")
            time.sleep(0.3)
    except OSError:
        pass


@pytest.mark.parametrize(("answer", "error", "said"), [
    (_trickle, UnreachableError, "no whole answer from the token endpoint"),
    (lambda c: c.sendall(b"\x00\x00\x00\x10garbage\r\n"), AuthenticationError, "did not answer in HTTP"),
])
def test_an_endpoint_that_trickles_or_is_not_http_is_given_up_on_within_the_timeout(answer, error, said):
    srv, url = _raw(answer)
    try:
        started = time.monotonic()
        with pytest.raises(error, match=said) as caught:
            TokenSource(_settings(url), timeout=0.8).token()
        assert time.monotonic() - started < 2
        assert "garbage" not in caught.value.message
    finally:
        srv.close()


def _jwt(claims: dict) -> str:
    import base64

    def part(doc) -> str:
        raw = doc if isinstance(doc, str) else json.dumps(doc)
        return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")

    return f"{part({'alg': 'RS256', 'typ': 'JWT'})}.{part(claims)}.{'s' * 40}"


@pytest.mark.parametrize(("claims", "said"), [
    ('{"sub": "app", "exp": NaN}', "not a time within ten years"),
    ('{"sub": "app", "exp": Infinity}', "not a time within ten years"),
    ('{"sub": "app", "exp": 1e300}', "not a time within ten years"),
    ('{"sub": "app", "exp": ' + "9" * 400 + "}", "not a time within ten years"),
    ('{"sub": "app", "exp": "soon"}', "has no exp claim"),
    ('{"sub": "adm\\nin", "exp": 9999999999}', "has no usable sub claim"),
    ("[" * 100_000 + "]" * 100_000, "not a JWT"),
])
def test_hostile_claims_are_one_error(claims, said):
    httpd, url = _serve(json.dumps({"access_token": _jwt(claims)}).encode())
    try:
        with pytest.raises(AuthenticationError, match=said):
            TokenSource(_settings(url), timeout=2).token()
    finally:
        httpd.shutdown()


def test_gateways_with_the_same_credentials_share_one_token():
    from kafkactl.gateway import Gateway
    from kafkactl.profiles import Profile

    with TokenServer({"app": SECRET}) as idp:
        settings = _settings(idp.token_url)
        gateways = [Gateway(Profile(bootstrap_servers="127.0.0.1:1", security_protocol="SASL_PLAINTEXT",
                                    sasl_mechanism="OAUTHBEARER", oauth=settings)) for _ in range(3)]
        assert {g.principal for g in gateways} == {"User:app"}
        assert len(idp.issued) == 1


def test_the_sandbox_token_endpoint_survives_malformed_requests():
    import http.client
    import socket

    with TokenServer({"app": SECRET}, request_timeout=0.5) as idp:
        port = int(idp.url.rsplit(":", 1)[1])
        for length in ("abc", "9" * 5000, "-1"):
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            c.putrequest("POST", "/token")
            c.putheader("Content-Length", length)
            c.endheaders()
            assert c.getresponse().status == 413
            c.close()
        s = socket.create_connection(("127.0.0.1", port))  # announces 100 bytes, sends 3: dropped after its timeout
        s.sendall(b"POST /token HTTP/1.1\r\nContent-Length: 100\r\n\r\nabc")
        started = time.monotonic()
        s.settimeout(10)
        assert s.recv(100) == b"" and time.monotonic() - started < 3
        s.close()
        assert TokenSource(_settings(idp.token_url), timeout=5).token().principal == "app"  # still serving


def _private_ca(tmp_path):
    """A CA, and a server certificate for 127.0.0.1 it signed with its key (one PEM file): the sandbox's TLS
    material."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.serialization import pkcs12

    from kafkactl.local.tls import TlsFiles, make_material

    files = TlsFiles(tmp_path / "tls")
    make_material(files, ("app",), "store-pw-123456", "127.0.0.1")
    key, cert, chain = pkcs12.load_key_and_certificates(files.broker_keystore.read_bytes(), b"store-pw-123456")
    server = tmp_path / "server.pem"
    server.write_bytes(b"".join(c.public_bytes(serialization.Encoding.PEM) for c in [cert, *chain])
                       + key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return files.ca_cert, server


def test_a_token_endpoint_behind_a_private_ca_is_trusted_only_through_the_ca_given(tmp_path):
    ca, server = _private_ca(tmp_path)
    with TokenServer({"app": SECRET}, tls_pem=str(server)) as idp:
        assert idp.token_url.startswith("https://")
        with pytest.raises(AuthenticationError, match="presented a certificate that is not trusted"):
            TokenSource(_settings(idp.token_url), timeout=3).token()
        jaas = (f'{MODULE} required clientId="app" clientSecret="{SECRET}" ssl.truststore.location="{ca}" '
                'ssl.truststore.type="PEM";')
        for props in (_props(**{"sasl.oauthbearer.token.endpoint.url": idp.token_url, "sasl.jaas.config": jaas}),
                      _props(**{"sasl.oauthbearer.token.endpoint.url": idp.token_url, "https.ca.location": str(ca)})):
            settings = settings_from_properties(props)["oauth"]
            assert TokenSource(settings, timeout=3).token().principal == "app"


def test_what_a_new_user_got_wrong_gets_a_hint():
    """(new-user pass) a wrong path, https on an http endpoint, a sandbox context whose identity provider is down."""
    from kafkactl.gateway import Gateway
    from kafkactl.profiles import Profile

    with TokenServer({"app": SECRET}) as idp:
        with pytest.raises(AuthenticationError) as caught:
            TokenSource(_settings(idp.url + "/oauth2/token"), timeout=2).token()
        assert "HTTP 404" in caught.value.message and "check the URL's path" in caught.value.hint
        with pytest.raises(AuthenticationError) as caught:
            TokenSource(_settings(idp.token_url.replace("http:", "https:")), timeout=2).token()
        assert "WRONG_VERSION_NUMBER" in caught.value.message and "http://" in caught.value.hint
    down = Profile(bootstrap_servers="127.0.0.1:1", context="local-oauth-alice", address_from_context=True,
                   security_protocol="SASL_PLAINTEXT", sasl_mechanism="OAUTHBEARER",
                   oauth=_settings("http://127.0.0.1:9/token"))
    with pytest.raises(UnreachableError) as caught:
        Gateway(down)._first_token()
    assert "identity provider running" in caught.value.hint


def test_context_add_refuses_a_mechanism_typo_and_warns_of_a_secret_on_the_command_line(tmp_path, monkeypatch):
    from tests.conftest import run

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    r = run("context", "add", "t", "-b", "x:1", "--security-protocol", "SASL_SSL", "--sasl-mechanism", "OAUTHBEARE",
            "--oauth-client-id", "a")
    assert r.exit_code == 2 and "--sasl-mechanism 'OAUTHBEARE': not one kafkactl speaks" in r.stderr
    r = run("context", "add", "t", "-b", "x:1", "--security-protocol", "SASL_SSL", "--sasl-mechanism", "OAUTHBEARER",
            "--oauth-token-endpoint", "https://idp/t", "--oauth-client-id", "a", "--property",
            f"sasl.oauthbearer.client.credentials.client.secret={SECRET}")
    assert r.exit_code == 0, r.stderr
    assert "puts a secret on the command line" in r.stderr and SECRET not in r.output
