"""The one place that talks to Kafka.

confluent-kafka (librdkafka) is the main client; kafka-python is used only for what librdkafka
lacks (see kafka-semantics §9). Both are imported lazily so `kafkactl --help` stays fast.
Commands never build clients: they get a Gateway from the application context.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from kafkactl.errors import (
    AuthenticationError,
    BrokerError,
    KafkactlError,
    NotAuthorizedError,
    NotFoundError,
    UnreachableError,
)
from kafkactl.gateway._acls import AclRpcs
from kafkactl.gateway._base import (
    AddressFailure,
    ErrorInfo,
    Reach,
    _CodeError,
    address_failure,
    brokers_not_answering,
    error_info,
    protocol_code,
)
from kafkactl.gateway._configs import ConfigRpcs
from kafkactl.gateway._describe import DescribeRpcs
from kafkactl.gateway._kp import HEDGE_S, KafkaPythonTransport
from kafkactl.gateway.records import (
    ClusterRecord,
    GroupRecord,
    ListedGroup,
    MemberRecord,
    NodeRecord,
    PartitionRecord,
    TopicRecord,
)
from kafkactl.profiles import Profile
from kafkactl.profiles.oauth import OAuthSettings

__all__ = ["Gateway", "ErrorInfo", "ClusterRecord", "NodeRecord", "TopicRecord", "PartitionRecord", "ListedGroup",
           "GroupRecord", "MemberRecord", "protocol_code"]

class _FailLog:
    """A logger for librdkafka that keeps its FAIL lines (a connection closed, and in which state) as the error
    callback's transport errors, and drops the rest: no logging module, nothing printed."""

    def __init__(self, on_error: Callable[[Any], None]) -> None:
        self.on_error = on_error

    def log(self, level: int, fmt: str, *args: Any) -> None:  # noqa: ARG002 (the logging.Logger method)
        if len(args) != 3 or args[0] != "FAIL":
            return
        text = str(args[2])
        text = text.split("]: ", 1)[1] if text.startswith("[thrd:") and "]: " in text else text
        self.on_error(ErrorInfo(-195, "_TRANSPORT", text))


def _debug_logger() -> Any:
    """The client logger, only under --debug (logging is not even imported otherwise)."""
    import logging

    return logging.getLogger("kafkactl.client")

# librdkafka / Kafka error codes the gateway translates (names as librdkafka spells them)
_AUTHZ = {29: "TOPIC_AUTHORIZATION_FAILED", 30: "GROUP_AUTHORIZATION_FAILED", 31: "CLUSTER_AUTHORIZATION_FAILED",
          53: "TRANSACTIONAL_ID_AUTHORIZATION_FAILED", 65: "DELEGATION_TOKEN_AUTHORIZATION_FAILED"}
_AUTHN = {58, -169}  # SASL_AUTHENTICATION_FAILED, _AUTHENTICATION
_SSL = -181  # a TLS handshake failed: the certificates, never the network; waiting longer cannot help
_UNREACHABLE = {-185, -195, -187, -193, 7}  # _TIMED_OUT, _TRANSPORT, _ALL_BROKERS_DOWN, _RESOLVE, REQUEST_TIMED_OUT
_ALL_BROKERS_DOWN, _RESOLVE, _TRANSPORT = -187, -193, -195
_AFTER_STATE = re.compile(r"\s*\(after \d+ms in state [^)]*\)\s*$")
# every bootstrap address refused (or did not resolve) for this long: give up before --timeout. librdkafka
# retries about every 50 ms, so this is several refusals per address; a silent address never refuses.
_REFUSED_GRACE_S = 0.5
# every address accepted the connection and hung up (a listener of another security protocol: TLS to a plaintext
# listener, plaintext to TLS), again and again for this long: give up before --timeout, it will not change
_HANGUP_GRACE_S = 1.0
# kafka-python reports a refused connection or login only as a bootstrap timeout: when its bootstrap takes
# longer than this, librdkafka is asked, in parallel, what is wrong
_DIAGNOSE_AFTER_S = 0.3
_NOT_FOUND = {3, 69, 91}  # UNKNOWN_TOPIC_OR_PARTITION, GROUP_ID_NOT_FOUND, RESOURCE_NOT_FOUND (an absent SCRAM
# credential deleted, say)


def client_certificate_problem(pem_path: str | None) -> str:
    """Why a broker may refuse the client certificate in this PEM file: its dates, else its issuer; or that no
    certificate was given at all."""
    if not pem_path:
        return ("it wants one signed by a CA it trusts: set ssl.keystore.location (or ssl.certificate.location and "
                "ssl.key.location)")
    import datetime

    from cryptography import x509

    try:
        with open(pem_path, "rb") as fh:
            cert = x509.load_pem_x509_certificate(fh.read(1 << 20))
    except (OSError, ValueError):
        return "check the client certificate (ssl.keystore.location or ssl.certificate.location)"
    now = datetime.datetime.now(datetime.UTC)
    subject = cert.subject.rfc4514_string()
    if cert.not_valid_after_utc < now:
        return f"the client certificate {subject} expired on {cert.not_valid_after_utc:%Y-%m-%d %H:%M} UTC"
    if cert.not_valid_before_utc > now:
        return f"the client certificate {subject} is not valid before {cert.not_valid_before_utc:%Y-%m-%d %H:%M} UTC"
    return (f"the client certificate {subject} is issued by {cert.issuer.rfc4514_string()}, a CA the broker's "
            "ssl.truststore does not hold (or the chain is incomplete)")


def tls_failure(message: str, client_cert: str | None = None) -> str:
    """What a librdkafka TLS handshake error means for the operator, with OpenSSL's reason."""
    m = re.match(r"^(?:[A-Za-z_]+://)?(?P<address>[^\s/]+)/\S*: (?P<rest>.*)$", message, re.S)
    address, rest = (m["address"], m["rest"]) if m else ("the broker", message)
    reason = re.sub(r"\s*\(after \d+ms in state [^)]*\)\s*$", "", rest)
    reason = reason.split("SSL handshake failed: ", 1)[-1].split(": broker certificate could not be verified")[0]
    low = reason.lower()
    if "certificate verify failed" in low:
        return (f"the TLS handshake with {address} failed: its certificate is not trusted ({reason}); set "
                "ssl.truststore.location (or ssl.ca.location) to the CA that signed the brokers' certificates")
    if any(k in low for k in ("bad certificate", "certificate required", "unknown ca", "certificate unknown")):
        return (f"the TLS handshake with {address} failed: the broker refused the client certificate ({reason}); "
                f"{client_certificate_problem(client_cert)}")
    return f"the TLS handshake with {address} failed: {reason}"


def _librdkafka_oidc(o: OAuthSettings) -> dict[str, Any]:
    """librdkafka's own OIDC client for the same credentials: it fetches and refreshes its tokens (KIP-368
    re-authentication included). Not a token callback: confluent-kafka 2.16 then sleeps a whole second in every
    client's constructor, waiting for the first token (a fixed sleep(1) in wait_for_oauth_token_set)."""
    conf: dict[str, Any] = {
        "sasl.mechanism": "OAUTHBEARER", "sasl.oauthbearer.method": "oidc",
        "sasl.oauthbearer.token.endpoint.url": o.token_endpoint, "sasl.oauthbearer.client.id": o.client_id,
        "sasl.oauthbearer.client.secret": o.client_secret.reveal(), "sasl.oauthbearer.sub.claim.name": o.sub_claim}
    if o.scope:
        conf["sasl.oauthbearer.scope"] = o.scope
    if o.extensions:
        conf["sasl.oauthbearer.extensions"] = ",".join(f"{k}={v}" for k, v in o.extensions)
    if o.cafile:
        conf["https.ca.location"] = o.cafile
    return conf


def _broker_said(message: str) -> str:
    """The broker's own words of a refused SASL login, without librdkafka's address prefix and timing suffix."""
    from kafkactl.redact import scrub

    said = scrub(re.sub(r"\s*\(after \d+ms in state [^)]*\)\s*$", "", message))  # (masked whole, then cut)
    return said.split(": ", 1)[-1][:200] if re.match(r"^\S+/\S+: ", said) else said[:200]


class Gateway(AclRpcs, ConfigRpcs, DescribeRpcs, KafkaPythonTransport):
    """Builds the clients for one resolved profile and translates their errors."""

    def __init__(self, profile: Profile, debug: bool = False) -> None:
        self.profile = profile
        self.debug = debug
        self._admin: Any = None
        self._kp: Any = None
        self._lock = threading.Lock()
        self._clients_lock = threading.RLock()  # batches in flight on two threads share one client of each kind
        self._client_errors: list[ErrorInfo] = []
        self._all_down_at: float | None = None  # when librdkafka said every broker is down (None: answered since)
        self._failures: list[AddressFailure] = []  # connection failures, per address (see Reach)
        self._brokers: dict[int, str] = {}  # the cluster's brokers as metadata named them: id -> host:port
        self._librdkafka_stuck = False  # librdkafka's request went unanswered, kafka-python's not (first_answer)
        self._tokens: Any = None  # OAUTHBEARER: the one token source of every client built here (gateway/oauth.py)
        if profile.oauth is not None:
            from kafkactl.gateway.oauth import shared_source

            self._tokens = shared_source(profile.oauth, profile.timeout)  # (no request until a client needs a token)

    # ------------------------------------------------------------------ clients
    @property
    def principal(self) -> str | None:
        """The principal the brokers build for this client's SASL login: User:<name>, or for OAUTHBEARER
        User:<the token's subject claim> (a token is fetched to read it)."""
        if self.profile.oauth is not None:
            held = self.tokens.held  # (a message about a request made says who made it: no new fetch)
            return f"User:{(held or self.tokens.token()).principal}"
        return f"User:{self.profile.username}" if self.profile.username else None

    @property
    def tokens(self) -> Any:
        """OAUTHBEARER's token source (shared by the gateways of these credentials; None without OAuth): kafka-python's
        tokens, the principal, and the first fetch that says at once what is wrong with the credentials or the
        endpoint (librdkafka fetches its own: _librdkafka_oidc)."""
        return self._tokens

    @property
    def kerberos_name(self) -> str | None:
        """GSSAPI: the client's Kerberos principal (alice@EXAMPLE.COM), after logging in to the realm (once per
        process: gateway/kerberos.py); None without Kerberos."""
        k = self.profile.kerberos
        if k is None:
            return None
        from kafkactl.gateway.kerberos import check_environment, login

        check_environment()
        try:
            return login(k, self.profile.timeout)
        except UnreachableError as exc:
            if (self.profile.context or "").startswith("local-kerberos-") and self.profile.address_from_context:
                raise UnreachableError(exc.message, hint="is the sandbox's KDC running? kafkactl local status says; "
                                                         "kafkactl local up starts it") from None
            raise

    def _first_token(self) -> None:
        """With OAuth, a token before any client is built: credentials the endpoint refuses, or an endpoint that is
        down, are one line now (a sandbox context's: with where its identity provider is started). With Kerberos,
        the login to the realm, which says as early what the KDC refuses."""
        if self.profile.kerberos is not None:
            self.kerberos_name  # noqa: B018 (logs in)
        if self.tokens is None:
            return
        try:
            self.tokens.token()
        except UnreachableError as exc:
            if (self.profile.context or "").startswith("local-oauth-") and self.profile.address_from_context:
                raise UnreachableError(exc.message, hint="is the sandbox's identity provider running? kafkactl local "
                                                         "status says; kafkactl local up starts it") from None
            raise

    @property
    def certificate_dn(self) -> str | None:
        """The subject of the client certificate the brokers authenticate this client by (SSL without SASL), as
        their Java spells it; None when there is none (or it cannot be read: connecting will say why)."""
        p = self.profile
        if not p.uses_ssl or p.uses_sasl or not p.ssl_certfile:
            return None
        from pathlib import Path

        from kafkactl.mapping.certdn import pem_subject

        try:
            return pem_subject(Path(p.ssl_certfile).read_bytes(), p.ssl_certfile)
        except (OSError, KafkactlError):
            return None

    def who(self) -> str:
        """Who the brokers see, for messages: the SASL user, the Kerberos principal, the certificate's subject, or
        nobody."""
        if self.profile.kerberos is not None:
            return f"Kerberos principal {self.kerberos_name}"
        if self.principal:
            return self.principal
        dn = self.certificate_dn
        return f"the principal of certificate {dn}" if dn else "the anonymous principal"

    def confluent_config(self) -> dict[str, Any]:
        p = self.profile
        conf: dict[str, Any] = {
            "bootstrap.servers": p.bootstrap_servers,
            "client.id": p.client_id,
            "security.protocol": p.security_protocol,
            "socket.connection.setup.timeout.ms": max(1000, int(p.timeout * 1000)),
            "error_cb": self._on_client_error,
        }
        # without a logger librdkafka writes to stderr itself: route it (scrubbed) under --debug; else only its
        # connection failures are read (a listener of another protocol drops the ApiVersion request: a FAIL line,
        # no error callback), nothing printed
        if self.debug:
            conf["logger"] = _debug_logger()
        else:
            conf["logger"] = _FailLog(self._on_client_error)
            conf["log_level"] = 6
        if p.uses_sasl and p.oauth is not None:
            conf.update(_librdkafka_oidc(p.oauth))
        elif p.uses_sasl and p.kerberos is not None:
            from kafkactl.gateway.kerberos import librdkafka_config

            conf.update(librdkafka_config(p.kerberos))
        elif p.uses_sasl:
            conf["sasl.mechanism"] = p.sasl_mechanism or "PLAIN"
            conf["sasl.username"] = p.username
            conf["sasl.password"] = p.password.reveal() if p.password else ""
        if p.uses_ssl:
            if p.ssl_cafile:
                conf["ssl.ca.location"] = p.ssl_cafile
            if p.ssl_certfile:
                conf["ssl.certificate.location"] = p.ssl_certfile
            if p.ssl_keyfile:
                conf["ssl.key.location"] = p.ssl_keyfile
            if p.ssl_key_password:
                conf["ssl.key.password"] = p.ssl_key_password.reveal()
            conf["ssl.endpoint.identification.algorithm"] = "https" if p.ssl_check_hostname else "none"
        return conf

    def kafka_python_config(self) -> dict[str, Any]:
        p = self.profile
        conf: dict[str, Any] = {
            "bootstrap_servers": p.bootstrap_servers.split(","),
            "client_id": p.client_id,
            "security_protocol": p.security_protocol,
            "request_timeout_ms": int(p.timeout * 1000),
            "bootstrap_timeout_ms": int(p.timeout * 1000),
        }
        if p.uses_sasl and p.oauth is not None:
            from kafkactl.gateway.oauth import kafka_python_provider

            conf["sasl_mechanism"] = "OAUTHBEARER"
            conf["sasl_oauth_token_provider"] = kafka_python_provider(self.tokens)
        elif p.uses_sasl and p.kerberos is not None:
            conf["sasl_mechanism"] = "GSSAPI"
            conf["sasl_kerberos_service_name"] = p.kerberos.service_name
        elif p.uses_sasl:
            conf["sasl_mechanism"] = p.sasl_mechanism or "PLAIN"
            conf["sasl_plain_username"] = p.username
            conf["sasl_plain_password"] = p.password.reveal() if p.password else ""
        if p.uses_ssl:
            conf["ssl_cafile"] = p.ssl_cafile
            conf["ssl_certfile"] = p.ssl_certfile
            conf["ssl_keyfile"] = p.ssl_keyfile
            conf["ssl_password"] = p.ssl_key_password.reveal() if p.ssl_key_password else None
            conf["ssl_check_hostname"] = p.ssl_check_hostname
        return conf

    def _on_client_error(self, err: Any) -> None:
        info = error_info(err)
        now = time.monotonic()
        failure = address_failure(info, now)
        with self._lock:
            self._client_errors.append(info)
            if failure is not None:
                self._failures.append(failure)
                del self._failures[:-256]
            if info.code == _ALL_BROKERS_DOWN and self._all_down_at is None:
                self._all_down_at = now
        if self.debug:
            _debug_logger().debug("client error %s: %s", info.name, info.message)

    @property
    def kafka_python(self) -> Any:
        """kafka-python's admin client, for what librdkafka cannot express (kafka-semantics §9)."""
        return self.kafka_python_for("connect")

    def kafka_python_for(self, what: str) -> Any:
        """kafka-python's admin client, bootstrapped on its first use: a failure to bootstrap names `what` (the
        action that needed it: "cannot reach ... to list groups")."""
        if self._kp is not None:
            return self._kp
        with self._clients_lock:
            if self._kp is None:
                self._kp = self._make_kafka_python(what)
        return self._kp

    def _make_kafka_python(self, what: str) -> Any:
        import logging

        # kafka-python logs freely (its config, with the password, at DEBUG): only --debug's scrubbing
        # handler may show it; without one, Python's last-resort handler would print its warnings
        if not self.debug:
            logging.getLogger("kafka").addHandler(logging.NullHandler())
            logging.getLogger("kafka").propagate = False
        from kafka.admin import KafkaAdminClient

        self._first_token()
        built: dict[str, Any] = {}
        done = threading.Event()
        box_lock = threading.Lock()
        conf = self.kafka_python_config()
        # kafka-python bootstraps from one address picked at random and gives it the whole deadline: a broker
        # that accepts connections but never answers (stopped, overloaded) took every command that needs
        # kafka-python down with it, the other brokers answering (adversary pass on issue 18). One client per
        # bootstrap address, side by side: the first to bootstrap is used, the others closed.
        addresses = list(dict.fromkeys(conf["bootstrap_servers"]))
        left = [len(addresses)]

        def build(address: str) -> None:
            client = None
            try:
                client = KafkaAdminClient(**{**conf, "bootstrap_servers": [address]})
            except Exception as exc:  # noqa: BLE001 - handed to the waiting thread
                with box_lock:
                    built.setdefault("error", exc)
            with box_lock:
                left[0] -= 1
                if client is not None and "client" not in built and not built.get("abandoned"):
                    built["client"], client = client, None
                if "client" in built or left[0] == 0:
                    done.set()
            if client is not None:  # another address won, or the caller gave up
                client.close()

        for address in addresses:
            threading.Thread(target=build, args=(address,), daemon=True,
                             name="kafkactl-kafka-python-bootstrap").start()
        try:
            if not done.wait(_DIAGNOSE_AFTER_S):
                try:
                    # raises at once for a refused or unresolvable address, or a refused login
                    self.result(self.admin.describe_cluster(request_timeout=self.profile.timeout), what)
                except (AuthenticationError, UnreachableError):
                    raise
                except KafkactlError:
                    pass  # reachable and logged in; whatever else is wrong, kafka-python's answer tells it
                done.wait(max(0.0, self.profile.timeout + 1.0))
        except BaseException:
            with box_lock:
                built["abandoned"] = True
            raise
        with box_lock:
            if "client" in built:
                return built["client"]
            built["abandoned"] = True
        if "error" in built:
            raise self._translate_kp(built["error"], what) from None
        raise self._unreachable(what)

    @property
    def admin(self) -> Any:
        if self._admin is None:
            with self._clients_lock:
                if self._admin is None:
                    from confluent_kafka.admin import AdminClient

                    self._first_token()
                    self._admin = AdminClient(self.confluent_config())
        return self._admin

    # ------------------------------------------------------------------ waiting and errors
    def wait(self, futures: Mapping[Any, Any] | Iterable[Any], what: str, give_up_after: float | None = None,
             any_one: bool = False, deadline: float | None = None) -> bool:
        """Wait for futures until --timeout (or `deadline`, a time.monotonic()), failing fast on authentication
        errors. `give_up_after`: return False when they are not all done by then (True when they are); `any_one`:
        return as soon as one is done."""
        from concurrent.futures import wait as wait_futures

        every = list(futures.values()) if isinstance(futures, Mapping) else list(futures)
        pending: Any = every
        started = time.monotonic()
        deadline = started + self.profile.timeout if deadline is None else deadline
        while True:
            # short slices: return the moment the futures are done, yet notice SASL failures quickly; each slice
            # waits for those still pending only (20,000 futures, one per topic, made each slice cost 0.2 s)
            _, pending = wait_futures(pending, timeout=0.02 if len(pending) <= 64 else 0.2)
            if not pending or (any_one and len(pending) < len(every)):
                self._note_answers([f for f in every if f.done()])
                return True
            # error_cb only fires from poll(); that is where SASL failures surface
            self.admin.poll(0)
            self._raise_fatal_client_error()
            if time.monotonic() >= deadline or self._every_address_refuses() or self._every_member_hangs_up():
                raise self._unreachable(what)
            if give_up_after is not None and time.monotonic() - started >= give_up_after:
                return False

    def first_answer(self, futures: Mapping[Any, Any] | Iterable[Any], fallback: Callable[[], Any], what: str
                     ) -> tuple[bool, Any]:
        """librdkafka's futures, or kafka-python's answer to the same read when they are not all done within
        HEDGE_S: (True, None) when librdkafka's came first (the caller reads them), (False, the fallback's value)
        otherwise. librdkafka sends some reads to one broker it picks (DescribeAcls to the broker its metadata names
        as controller, in KRaft any broker) and waits for it alone; kafka-python's read goes to another broker when
        one does not answer (_kp_hedged). When one of the two fails, the other's answer is awaited; when both fail,
        the caller reads librdkafka's errors, as it would have without the second read."""
        from concurrent.futures import Future

        mine = list(futures.values()) if isinstance(futures, Mapping) else list(futures)
        deadline = time.monotonic() + self.profile.timeout  # one --timeout for both reads
        # once librdkafka's broker left a read unanswered, kafka-python is asked at once for the process's other reads
        if self.wait(mine, what, give_up_after=0.0 if self._librdkafka_stuck else HEDGE_S, deadline=deadline):
            return True, None
        everything: Future[None] = Future()  # done when all of librdkafka's are
        left = [len(mine)]
        lock = threading.Lock()

        def one_done(_: Any) -> None:
            with lock:
                left[0] -= 1
                if left[0] == 0:
                    everything.set_result(None)

        for f in mine:
            f.add_done_callback(one_done)
        theirs = _run_in_thread(fallback)
        self.wait([everything, theirs], what, any_one=True, deadline=deadline)
        if theirs.done() and theirs.exception() is None:
            self._librdkafka_stuck = True
            return False, theirs.result()
        if everything.done() and not any(_exception_of(f) for f in mine):
            return True, None
        self.wait([everything, theirs], what, deadline=deadline)
        if not any(_exception_of(f) for f in mine):
            return True, None
        if theirs.exception() is None:
            return False, theirs.result()
        return True, None  # both failed: the caller reads librdkafka's errors as it would have

    def _note_answers(self, futures: Sequence[Any]) -> None:
        """A future that ended other than with a connection error was answered: librdkafka's all-down episode, if
        there was one, is over (it says so again, when every broker is down again)."""
        for f in futures:
            exc = f.exception()
            if isinstance(exc, (UnreachableError, AuthenticationError)):
                continue  # kafka-python's read beside librdkafka's (first_answer) met no broker either
            if exc is None or error_info(exc).code not in _UNREACHABLE:
                self._saw_answer()
                return

    def _saw_answer(self) -> None:
        with self._lock:
            self._all_down_at = None

    def _saw_brokers(self, brokers: Iterable[tuple[int, str, int]]) -> None:
        """The cluster's brokers, as a metadata answer named them (they are counted when some do not answer)."""
        seen = {int(node): f"{host}:{port}" for node, host, port in brokers}
        with self._lock:
            self._all_down_at = None
            if seen:
                self._brokers = seen

    def _reach(self) -> Reach:
        with self._lock:
            return Reach.of(self.profile.bootstrap_servers, self._brokers, self._failures)

    def _raise_fatal_client_error(self) -> None:
        if self._tokens is not None and self._tokens.error is not None:
            raise self._tokens.error  # a refresh failed: what the token endpoint said, not the broker's echo of it
        with self._lock:
            errors = list(self._client_errors)
        for e in errors:
            if e.code in _AUTHN and "unsupported sasl mechanism" in e.message.lower():
                offered = e.message.rsplit("supported mechanisms:", 1)[-1].split("(")[0].strip()
                raise AuthenticationError(
                    f"{self.profile.bootstrap_servers} does not accept SASL mechanism {self.profile.sasl_mechanism} "
                    f"(it offers {offered or 'others'}): the listener of another mechanism? check the port, or "
                    "set sasl.mechanism")
            # a refused client certificate arrives as the broker's TLS alert on a transport error
            if e.code == _SSL or (e.code == -195 and "ssl routines" in e.message.lower() and " alert " in e.message):
                raise AuthenticationError(tls_failure(e.message, self.profile.ssl_certfile))
            if e.code in _AUTHN and self.profile.kerberos is not None:
                from kafkactl.gateway.kerberos import gssapi_failure

                raise AuthenticationError(gssapi_failure(e.message, self.profile.kerberos, self.kerberos_name,
                                                         self.profile.bootstrap_servers))
            if e.code in _AUTHN and self._tokens is not None:
                raise AuthenticationError(
                    f"the brokers at {self.profile.bootstrap_servers} refused the OAuth token of client "
                    f"{self._tokens.settings.client_id}: check that its issuer, audience and signing key are the ones "
                    "the brokers' sasl.oauthbearer.expected.* and jwks settings accept",
                    hint=f"the broker said: {_broker_said(e.message)}")
            if e.code in _AUTHN:
                raise AuthenticationError(
                    f"authentication failed for {self.who()} at {self.profile.bootstrap_servers} "
                    f"({self.profile.sasl_mechanism or self.profile.security_protocol}): check user and password",
                    hint="the broker said: invalid credentials")

    def _every_address_refuses(self) -> bool:
        """librdkafka has said every broker is down, and since then every address (bootstrap and broker) was
        refused or did not resolve: waiting longer cannot help."""
        with self._lock:
            since = self._all_down_at
        if since is None or time.monotonic() - since < _REFUSED_GRACE_S:
            return False
        return self._reach().every_address_refuses(since - _REFUSED_GRACE_S)

    def _every_member_hangs_up(self) -> bool:
        """librdkafka has said every broker is down, and since then, for _HANGUP_GRACE_S, every address it tried
        accepted and closed the connection (none answered, none was merely silent)."""
        with self._lock:
            since = self._all_down_at
        if since is None or time.monotonic() - since < _HANGUP_GRACE_S:
            return False
        return self._reach().every_member_closes(since - _REFUSED_GRACE_S)

    def _unreachable(self, what: str) -> KafkactlError:
        self._raise_fatal_client_error()
        if self._every_address_refuses():
            with self._lock:
                since = (self._all_down_at or time.monotonic()) - _REFUSED_GRACE_S
            # a sandbox context (local up writes them) refused: the sandbox is most likely stopped
            hint = ("is the sandbox running? kafkactl local status says; kafkactl local up starts it"
                    if (self.profile.context or "").startswith("local-") and self.profile.address_from_context
                    else None)
            return UnreachableError(f"cannot reach {self.profile.bootstrap_servers} to {what}: "
                                    f"{self._reach().cause(since)}", hint=hint)
        detail = self._last_transport_detail()
        if self._reach().every_member_closes(time.monotonic() - self.profile.timeout - 1.0):
            # it answered, by hanging up: no wait would have helped
            return UnreachableError(
                f"{self.profile.bootstrap_servers} closed every connection while trying to {what}{detail}",
                hint=f"a listener of another security protocol than this client's ({self.profile.security_protocol})? "
                     "check the port and security.protocol")
        return UnreachableError(
            f"no answer from {self.profile.bootstrap_servers} within {self.profile.timeout:g} s while trying to {what}"
            f"{detail}")

    def _last_transport_detail(self) -> str:
        """What the connection errors of this attempt say, counted by kafkactl (librdkafka's "1/2 brokers are down"
        counts its connections, not the cluster's brokers, and is never shown)."""
        detail = self._reach().detail(time.monotonic() - self.profile.timeout - 1.0)
        if detail:
            return f" ({detail})"
        with self._lock:
            errors = [e for e in self._client_errors if e.code in _UNREACHABLE and e.code != _ALL_BROKERS_DOWN]
        return f" ({errors[-1].message.split(': ', 1)[-1]})" if errors else ""

    def brokers_down(self, what: str, down: Sequence[tuple[int, str]], total: int, why: str) -> KafkactlError:
        """Some of the cluster's brokers did not answer (the others did): which, and how many of how many."""
        return UnreachableError(brokers_not_answering(what, down, total, why))

    def translate(self, exc: BaseException, what: str, resource: str | None = None,
                  needs: str | None = None) -> KafkactlError:
        """Map a client exception to kafkactl's error classes (and so to an exit code)."""
        if isinstance(exc, KafkactlError):
            return exc
        info = error_info(exc)
        self._raise_fatal_client_error()
        if info.code in _AUTHZ:
            need = f": needs {needs}" if needs else ""
            return NotAuthorizedError(f"{self.who()} is not authorized to {what}{need} ({info.name})")
        if info.code in _AUTHN:
            return AuthenticationError(f"authentication failed for {self.who()}: {info.message}")
        if info.code == _TRANSPORT:
            # the connection failures this one may be among reach us from poll, a moment after the request's error
            since = time.monotonic() - self.profile.timeout - 1.0
            until = time.monotonic() + 0.5
            while self._admin is not None and time.monotonic() < until and not self._reach().every_member_closes(since):
                self._admin.poll(0.1)
        if info.code == _TRANSPORT and not self._reach().every_member_closes(
                time.monotonic() - self.profile.timeout - 1.0):
            # the connection went down under this request (reset, closed part way): not a wait that ran out
            said = _AFTER_STATE.sub("", info.message.split(": ", 1)[-1]).strip()
            return UnreachableError(f"cannot {what}: the connection was lost before the answer ({said})")
        if info.code in _UNREACHABLE:
            return self._unreachable(what)
        if info.code in _NOT_FOUND:
            return NotFoundError(f"cannot {what}: {resource or 'resource'} does not exist ({info.name})")
        return BrokerError(f"cannot {what}: {info.message} ({info.name})")

    def _translate_kp(self, exc: BaseException, what: str, **kw: Any) -> KafkactlError:
        """kafka-python errors carry the Kafka error code as `errno`; a bootstrap timeout hides the cause."""
        if self._kp_lost(exc):
            # kafka-python reports a refused SASL login as a bootstrap timeout; librdkafka tells them apart
            try:
                self.describe_cluster()
            except AuthenticationError as diagnosed:
                return diagnosed
            except UnreachableError:
                pass  # said again for what was asked
            return self._unreachable(what)
        code = getattr(exc, "errno", None)
        if code is None:
            return BrokerError(f"cannot {what}: {exc}")
        return self.translate(_CodeError(code, getattr(exc, "message", type(exc).__name__), str(exc)), what, **kw)

    def result(self, future: Any, what: str, **kw: Any) -> Any:
        self.wait([future], what)
        try:
            return future.result()
        except Exception as exc:
            raise self.translate(exc, what, **kw) from None

    def close(self) -> None:
        """Drop the clients; kafka-python's is closed, so its network thread stops now (librdkafka's handle stops
        when collected)."""
        self._admin = None
        kp, self._kp = self._kp, None
        if kp is not None:
            try:
                kp.close()
            except Exception:  # noqa: BLE001 - closing is best effort
                pass

    # ------------------------------------------------------------------ cluster and topics
    def describe_cluster(self, include_authorized_operations: bool = False) -> ClusterRecord:
        """DescribeCluster needs no ACL (like Metadata); only the authorized-operations bitfield is computed, and
        it comes raw from kafka-python (librdkafka cannot tell an empty set from "not supplied")."""
        def record(r: Any) -> ClusterRecord:
            return ClusterRecord(r.cluster_id, r.controller_id if r.controller_id >= 0 else None,
                                 tuple(NodeRecord(b.broker_id, b.host, b.port, b.rack or None) for b in r.brokers),
                                 from_bit_positions(r.authorized_operations) if include_authorized_operations else None)

        if include_authorized_operations:
            return record(self._describe_cluster_raw(include_authorized_operations=True))
        f = self.admin.describe_cluster(request_timeout=self.profile.timeout)
        ours, raw = self.first_answer([f], lambda: self._describe_cluster_raw(False), "describe the cluster")
        if not ours:
            return record(raw)
        d = self.result(f, "describe the cluster")
        nodes = tuple(NodeRecord(n.id, n.host, n.port, n.rack or None) for n in d.nodes)
        self._saw_brokers((n.id, n.host, n.port) for n in nodes)
        return ClusterRecord(d.cluster_id, d.controller.id if d.controller is not None else None, nodes, None)

    def live_brokers(self) -> list[NodeRecord]:
        """The brokers the cluster lists now (registered and not fenced: a broker that stopped leaves the list
        once its session times out), asked afresh each time."""
        r = self._describe_cluster_raw(include_authorized_operations=False)
        return sorted((NodeRecord(b.broker_id, b.host, b.port, b.rack or None) for b in r.brokers), key=lambda n: n.id)

    def topics(self, names: Sequence[str] | None = None, include_authorized_operations: bool = False,
               node: int | None = None) -> list[TopicRecord]:
        """Metadata for the named topics, or for every topic the caller may Describe (the broker silently leaves
        out the others); a named topic that cannot be described carries its error. Nothing is auto-created.
        `node`: ask that broker (by id), which answers by its own authorizer's view."""
        if names is None and not include_authorized_operations and node is None:
            fut = _run_in_thread(lambda: self.admin.list_topics(timeout=self.profile.timeout))
            ours, theirs = self.first_answer([fut], lambda: self._topic_metadata(None, False), "list topics")
            if not ours:
                return self._topic_records(theirs, False)
            md = self.result(fut, "list topics")
            self._saw_brokers((b.id, b.host, b.port) for b in md.brokers.values())
            return [TopicRecord(name, str(t.topic_id) if getattr(t, "topic_id", None) else None,
                                name in _INTERNAL, tuple(
                                    PartitionRecord(p.id, p.leader if p.leader >= 0 else None, tuple(p.replicas),
                                                    tuple(p.isrs), ()) for _, p in sorted(t.partitions.items())),
                                None, error_info(t.error) if t.error is not None else None)
                    for name, t in md.topics.items()]
        return self._topic_records(self._topic_metadata(names, include_authorized_operations, node),
                                   include_authorized_operations)

    def _topic_records(self, md: Any, include_authorized_operations: bool) -> list[TopicRecord]:
        out = []
        for t in md.topics:
            error = error_info(self.code_exception(t.error_code, None)) if t.error_code else None
            parts = tuple(PartitionRecord(p.partition_index, p.leader_id if p.leader_id >= 0 else None,
                                          tuple(p.replica_nodes), tuple(p.isr_nodes), tuple(p.offline_replicas or ()))
                          for p in sorted(t.partitions, key=lambda p: p.partition_index))
            ops = from_bit_positions(t.authorized_operations) if include_authorized_operations else None
            topic_id = str(t.topic_id) if t.topic_id and t.topic_id.int else None
            out.append(TopicRecord(t.name, topic_id, bool(t.is_internal), parts, ops, error))
        return out

    def create_topics(self, specs: Sequence[tuple[str, int, int, Mapping[str, str]]], validate_only: bool = False
                      ) -> dict[str, ErrorInfo | None]:
        """Create (name, partitions, replication factor, configs) each (-1: the broker's default); the error of each
        topic, None for success."""
        from confluent_kafka.admin import NewTopic

        new = [NewTopic(name, num_partitions=parts, replication_factor=rf, config=dict(cfg))
               for name, parts, rf, cfg in specs]
        futures = self.admin.create_topics(new, request_timeout=self.profile.timeout,
                                           operation_timeout=self.profile.timeout, validate_only=validate_only)
        self.wait(futures, "create topics")
        return {name: _error_of(f) for name, f in futures.items()}

    def create_partitions(self, counts: Mapping[str, int], validate_only: bool = False) -> dict[str, ErrorInfo | None]:
        """Raise each topic's partition count to the number given; the error of each, None for success."""
        from confluent_kafka.admin import NewPartitions

        futures = self.admin.create_partitions([NewPartitions(t, n) for t, n in counts.items()],
                                               request_timeout=self.profile.timeout,
                                               operation_timeout=self.profile.timeout, validate_only=validate_only)
        self.wait(futures, "create partitions")
        return {name: _error_of(f) for name, f in futures.items()}

    def delete_topics(self, names: Sequence[str]) -> dict[str, ErrorInfo | None]:
        """Delete each topic; the error of each, None for success. A name given twice is sent once: librdkafka
        crashes (SIGSEGV) on a DeleteTopics answer that repeats a topic, which Kafka 4.4 sends."""
        futures = self.admin.delete_topics(list(dict.fromkeys(names)), request_timeout=self.profile.timeout,
                                           operation_timeout=self.profile.timeout)
        self.wait(futures, "delete topics")
        return {name: _error_of(f) for name, f in futures.items()}

    def item_error(self, info: ErrorInfo, what: str, **kw: Any) -> KafkactlError:
        """One item's error (as a per-item RPC result holds it) as kafkactl's error, and so its exit code."""
        return self.translate(_CodeError(info.code, info.name, info.message), what, **kw)


# topics the broker keeps for itself (librdkafka's metadata does not say which are internal)
_INTERNAL = frozenset({"__consumer_offsets", "__transaction_state", "__share_group_state"})


def from_bit_positions(positions: Iterable[int] | None) -> int:
    from kafkactl.acl.bitfield import from_bit_positions as convert

    return convert(positions)


def _error_of(future: Any) -> ErrorInfo | None:
    exc = _exception_of(future)
    return None if exc is None else error_info(exc)


def _exception_of(future: Any) -> BaseException | None:
    try:
        future.result()
        return None
    except Exception as exc:  # returned, not raised: the caller reports per item
        return exc


def _run_in_thread(fn: Callable[[], Any]) -> Any:
    """Run a blocking client call in a thread so that wait() can poll for SASL errors meanwhile."""
    from concurrent.futures import Future

    fut: Future[Any] = Future()

    def target() -> None:
        try:
            fut.set_result(fn())
        except BaseException as exc:
            fut.set_exception(exc)

    threading.Thread(target=target, daemon=True).start()
    return fut
