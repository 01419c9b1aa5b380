"""The sandbox's topology and each node's configuration.

One node that is broker and controller at once (the default, and the lightest), or N brokers and a separate
controller quorum of M (`local up --brokers N --controllers M`), each node its own JVM with its own properties
file, data directory and log. Every broker has the same SASL listener and users; controllers listen only for
the brokers (PLAIN, as the admin), and run StandardAuthorizer too, since the ACL RPCs a broker forwards are
authorized there.
"""

from __future__ import annotations

import base64
import uuid
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kafkactl.local.assembly import KAFKA_VERSION, KAFKA_VERSIONS
from kafkactl.local.process import HOST

if TYPE_CHECKING:
    from kafkactl.local.tls import TlsFiles

USERS = ("admin", "alice", "bob", "carol")
SUPER_USER = "User:admin"
CLIENT_MECHANISM = "SCRAM-SHA-512"
DEFAULT_BROKER_PORT = 9092
DEFAULT_CONTROLLER_PORT = 9093
DEFAULT_TLS_PORT = 9094
DEFAULT_MTLS_PORT = 9095
DEFAULT_OAUTH_PORT = 9096  # the brokers' OAUTHBEARER listener (--oauth)
DEFAULT_IDP_PORT = 9097  # the identity provider's token endpoint and JWKS (--oauth)
DEFAULT_TOKEN_LIFETIME = 3600
DEFAULT_KRB_PORT = 9098  # the brokers' GSSAPI listener on SASL_PLAINTEXT (--kerberos)
DEFAULT_KRB_TLS_PORT = 9099  # the brokers' GSSAPI listener on SASL_SSL (--kerberos with --tls)
DEFAULT_KDC_PORT = 9088  # the realm's KDC (--kerberos)
OAUTH_VALIDATOR = "org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler"
OAUTH_LOGIN_HANDLER = "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler"
OAUTH_LOGIN_MODULE = "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule"
OAUTH_AUDIENCE = "kafka"
MAX_BROKERS = 9
CONTROLLER_COUNTS = (1, 3, 5)
FIRST_CONTROLLER_ID = 3001  # brokers are 1..N; controller ids never collide with them
# heaps sized so that 3 brokers and 3 controllers run on 2 cores and a few GiB
HEAPS = {"broker,controller": "1g", "broker": "512m", "controller": "192m"}


ROLES = ("broker,controller", "broker", "controller")


@dataclass
class NodeState:
    node_id: int
    roles: str  # "broker,controller", "broker" or "controller"
    port: int | None = None  # the SASL client listener (brokers)
    controller_port: int | None = None  # the controller listener (controllers)
    directory_id: str | None = None  # the metadata log directory's id (controllers of a quorum of several)
    pid: int | None = None
    tls_port: int | None = None  # SASL_SSL (brokers of a --tls sandbox)
    mtls_port: int | None = None  # SSL with client certificates required (brokers of a --tls sandbox)
    oauth_port: int | None = None  # SASL_PLAINTEXT with OAUTHBEARER (brokers of an --oauth sandbox)
    krb_port: int | None = None  # SASL_PLAINTEXT with GSSAPI (brokers of a --kerberos sandbox)
    krb_tls_port: int | None = None  # SASL_SSL with GSSAPI (brokers of a --kerberos --tls sandbox)
    # a SASL_PLAINTEXT listener on proxied_port advertised at proxy_port, where a fault proxy listens and forwards
    # to it: the metadata names the proxy, so every connection a client makes goes through it (the tests' faults)
    proxied_port: int | None = None
    proxy_port: int | None = None

    @property
    def is_broker(self) -> bool:
        return "broker" in self.roles

    @property
    def is_controller(self) -> bool:
        return "controller" in self.roles

    @property
    def address(self) -> str:
        return f"{HOST}:{self.port if self.is_broker else self.controller_port}"

    @property
    def ports(self) -> tuple[int, ...]:
        return tuple(p for p in (self.port, self.controller_port, self.tls_port, self.mtls_port, self.oauth_port,
                                 self.krb_port, self.krb_tls_port, self.proxied_port) if p is not None)


@dataclass
class SandboxState:
    cluster_id: str
    # (never in the repr: a failing test's report prints its arguments, this state among them)
    passwords: dict[str, str] = field(repr=False)
    nodes: list[NodeState]
    kafka_version: str = KAFKA_VERSION
    tls: bool = False
    keystore_password: str | None = field(default=None, repr=False)  # the brokers' PKCS12 keystore (--tls)
    oauth: bool = False  # an identity provider, and an OAUTHBEARER listener on every broker
    idp_port: int | None = None  # the identity provider's port (--oauth)
    idp_pid: int | None = None
    token_lifetime: int = DEFAULT_TOKEN_LIFETIME  # seconds, of the tokens the identity provider issues
    kerberos: bool = False  # a KDC, and a GSSAPI listener on every broker (two with --tls)
    kdc_port: int | None = None
    kdc_pid: int | None = None
    proxied: bool = False  # every broker has a listener advertised at a fault proxy's port (NodeState.proxy_port)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SandboxState:
        data = dict(data)
        if "nodes" not in data:  # written before several nodes: one combined node
            data["nodes"] = [{"node_id": 1, "roles": "broker,controller", "port": data.pop("broker_port"),
                              "controller_port": data.pop("controller_port"), "pid": data.pop("pid", None)}]
        nodes = [NodeState(**n) for n in data.pop("nodes")]
        state = cls(nodes=nodes, **data)
        state.check()
        return state

    def check(self) -> None:
        """Every field of the right type and in range: a state file edited by hand (or damaged) must not send a
        version into a path, a port out of range into a socket, or a sandbox of no nodes into the contexts."""
        def bad(field: str) -> ValueError:
            return ValueError(f"bad {field}")

        def port(value: Any, field: str, optional: bool = True) -> None:
            if value is None and optional:
                return
            if type(value) is not int or not 1 <= value <= 65535:
                raise bad(field)

        if self.kafka_version not in KAFKA_VERSIONS:
            raise bad("kafka_version")
        if not isinstance(self.cluster_id, str) or not self.cluster_id or type(self.tls) is not bool:
            raise bad("cluster_id or tls")
        if not isinstance(self.passwords, dict) or not all(isinstance(k, str) and isinstance(v, str) and v
                                                           for k, v in self.passwords.items()):
            raise bad("passwords")
        if self.keystore_password is not None and not isinstance(self.keystore_password, str):
            raise bad("keystore_password")
        self._check_services(port)
        if not self.nodes or not self.brokers or not self.controllers:
            raise bad("nodes")
        ids = [n.node_id for n in self.nodes]
        if len(set(ids)) != len(ids):
            raise bad("node_id")
        for n in self.nodes:
            if type(n.node_id) is not int or not 0 <= n.node_id < 1 << 31 or n.roles not in ROLES:
                raise bad("node_id or roles")
            if n.pid is not None and (type(n.pid) is not int or not 0 < n.pid < 1 << 22):
                raise bad("pid")
            port(n.port, "port", optional=not n.is_broker)
            port(n.controller_port, "controller_port", optional=not n.is_controller)
            port(n.tls_port, "tls_port", optional=not (self.tls and n.is_broker))
            port(n.mtls_port, "mtls_port", optional=not (self.tls and n.is_broker))
            port(n.oauth_port, "oauth_port", optional=not (self.oauth and n.is_broker))
            port(n.krb_port, "krb_port", optional=not (self.kerberos and n.is_broker))
            port(n.krb_tls_port, "krb_tls_port", optional=not (self.kerberos and self.tls and n.is_broker))
            port(n.proxied_port, "proxied_port", optional=not (self.proxied and n.is_broker))
            port(n.proxy_port, "proxy_port", optional=not (self.proxied and n.is_broker))
            if n.directory_id is not None and not isinstance(n.directory_id, str):
                raise bad("directory_id")

    def _check_services(self, port: Any) -> None:
        """The identity provider's (--oauth) and the KDC's (--kerberos) fields."""
        lifetime = self.token_lifetime
        if type(self.oauth) is not bool or type(lifetime) is not int or not 1 <= lifetime <= 86400:
            raise ValueError("bad oauth or token_lifetime")
        if type(self.kerberos) is not bool or type(self.proxied) is not bool:
            raise ValueError("bad kerberos or proxied")
        port(self.idp_port, "idp_port", optional=not self.oauth)
        port(self.kdc_port, "kdc_port", optional=not self.kerberos)
        for name, pid in (("idp_pid", self.idp_pid), ("kdc_pid", self.kdc_pid)):
            if pid is not None and (type(pid) is not int or not 0 < pid < 1 << 22):
                raise ValueError(f"bad {name}")

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def brokers(self) -> list[NodeState]:
        return [n for n in self.nodes if n.is_broker]

    @property
    def controllers(self) -> list[NodeState]:
        return [n for n in self.nodes if n.is_controller]

    @property
    def combined(self) -> bool:
        return len(self.nodes) == 1

    @property
    def bootstrap(self) -> str:
        return ",".join(f"{HOST}:{n.port}" for n in self.brokers)

    @property
    def tls_bootstrap(self) -> str:
        return ",".join(f"{HOST}:{n.tls_port}" for n in self.brokers)

    @property
    def mtls_bootstrap(self) -> str:
        return ",".join(f"{HOST}:{n.mtls_port}" for n in self.brokers)

    @property
    def oauth_bootstrap(self) -> str:
        return ",".join(f"{HOST}:{n.oauth_port}" for n in self.brokers)

    @property
    def krb_bootstrap(self) -> str:
        from kafkactl.local.kdc import SERVICE_HOST

        return ",".join(f"{SERVICE_HOST}:{n.krb_port}" for n in self.brokers)

    @property
    def krb_tls_bootstrap(self) -> str:
        from kafkactl.local.kdc import SERVICE_HOST

        return ",".join(f"{SERVICE_HOST}:{n.krb_tls_port}" for n in self.brokers)

    @property
    def idp_url(self) -> str:
        return f"http://{HOST}:{self.idp_port}"

    @property
    def quorum_bootstrap(self) -> str:
        return ",".join(f"{HOST}:{n.controller_port}" for n in self.controllers)

    # the first broker's and controller's ports, and the pid of the first node (tools and benchmarks)
    @property
    def broker_port(self) -> int:
        return int(self.brokers[0].port or 0)

    @property
    def controller_port(self) -> int:
        return int(self.controllers[0].controller_port or 0)

    @property
    def pid(self) -> int | None:
        return self.nodes[0].pid

    def topology(self) -> str:
        if self.combined:
            return "1 broker (also the controller)"
        b, c = len(self.brokers), len(self.controllers)
        return f"{b} broker{'s' * (b != 1)}, {c} controller{'s' * (c != 1)}"


def plan_nodes(brokers: int, controllers: int | None, pick_port: Any, tls: bool = False,
               oauth: bool = False, kerberos: bool = False, proxied: bool = False) -> list[NodeState]:
    """The nodes of a new sandbox. `controllers` None: one combined node when there is one broker, else one
    separate controller. `pick_port(preferred)` returns a free port (the preferred one when it is free). `tls`:
    every broker also gets a SASL_SSL and an mTLS port; `oauth`: an OAUTHBEARER port; `kerberos`: a GSSAPI port
    (and one on SASL_SSL with `tls`)."""

    def tls_ports(first: bool) -> dict[str, int | None]:
        ports: dict[str, int | None] = {}
        if tls:
            ports |= {"tls_port": pick_port(DEFAULT_TLS_PORT if first else None),
                      "mtls_port": pick_port(DEFAULT_MTLS_PORT if first else None)}
        if oauth:
            ports["oauth_port"] = pick_port(DEFAULT_OAUTH_PORT if first else None)
        if kerberos:
            ports["krb_port"] = pick_port(DEFAULT_KRB_PORT if first else None)
        if kerberos and tls:
            ports["krb_tls_port"] = pick_port(DEFAULT_KRB_TLS_PORT if first else None)
        if proxied:
            ports |= {"proxied_port": pick_port(None), "proxy_port": pick_port(None)}
        return ports

    if controllers is None and brokers == 1:
        return [NodeState(1, "broker,controller", pick_port(DEFAULT_BROKER_PORT), pick_port(DEFAULT_CONTROLLER_PORT),
                          **tls_ports(True))]  # type: ignore[arg-type]
    controllers = controllers or 1
    nodes = [NodeState(i, "broker", port=pick_port(DEFAULT_BROKER_PORT if i == 1 else None),
                       **tls_ports(i == 1))  # type: ignore[arg-type]
             for i in range(1, brokers + 1)]
    nodes += [NodeState(FIRST_CONTROLLER_ID + i, "controller",
                        controller_port=pick_port(DEFAULT_CONTROLLER_PORT if i == 0 else None),
                        directory_id=new_uuid() if controllers > 1 else None)
              for i in range(controllers)]
    return nodes


def new_uuid() -> str:
    """A random Kafka Uuid in its base64 form; never with a leading '-', which reads as an option."""
    value = "-"
    while value.startswith("-"):
        value = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
    return value


def format_arguments(state: SandboxState, node: NodeState, properties: Path) -> list[str]:
    """kafka-storage format for one node: the quorum as it starts, and every SCRAM user (the passwords go to
    the JVM through a 0600 @argfile, never on a command line)."""
    args = ["kafka.tools.StorageTool", "format", f"--cluster-id={state.cluster_id}", "-c", str(properties)]
    quorum = state.controllers
    if not node.is_controller:
        args.append("--no-initial-controllers")
    elif len(quorum) == 1:
        args.append("--standalone")
    else:
        args += ["--initial-controllers",
                 ",".join(f"{c.node_id}@{HOST}:{c.controller_port}:{c.directory_id}" for c in quorum)]
    for user in USERS:
        for mech in ("SCRAM-SHA-256", "SCRAM-SHA-512"):
            args += ["--add-scram", f"{mech}=[name={user},password={state.passwords[user]}]"]
    return args


def render_server_properties(state: SandboxState, node: NodeState, data_dir: Path, tls_dir: Path | None = None,
                             kdc_dir: Path | None = None) -> str:
    """One node's server.properties. `tls_dir`: where the TLS material is (a --tls sandbox's brokers); `kdc_dir`:
    the realm's files (a --kerberos sandbox's brokers)."""
    pw = state.passwords
    plain_users = " ".join(f'user_{u}="{pw[u]}"' for u in USERS)
    plain = ("org.apache.kafka.common.security.plain.PlainLoginModule required "
             f'username="admin" password="{pw["admin"]}" {plain_users};')
    scram = "org.apache.kafka.common.security.scram.ScramLoginModule required;"
    listeners = []
    if node.is_broker:
        listeners.append(f"SASL_PLAINTEXT://{HOST}:{node.port}")
    tls = state.tls and node.is_broker and tls_dir is not None
    if tls:
        listeners += [f"SASL_SSL://{HOST}:{node.tls_port}", f"SSL://{HOST}:{node.mtls_port}"]
    oauth = state.oauth and node.is_broker
    if oauth:
        listeners.append(f"OAUTH://{HOST}:{node.oauth_port}")
    kerberos = state.kerberos and node.is_broker
    if kerberos:
        listeners.append(f"KRB://{HOST}:{node.krb_port}")
        if tls:
            listeners.append(f"KRBS://{HOST}:{node.krb_tls_port}")
    proxied = state.proxied and node.is_broker
    if proxied:
        listeners.append(f"PROXIED://{HOST}:{node.proxied_port}")
    if node.is_controller:
        listeners.append(f"CONTROLLER://{HOST}:{node.controller_port}")
    from kafkactl.local.kdc import SERVICE_HOST

    # a Kerberos listener is advertised by the host name of the brokers' service principal: clients build the
    # service principal they ask the KDC for from the name they connect to
    advertised = [ln.replace(f"//{HOST}:", f"//{SERVICE_HOST}:") if ln.startswith("KRB")
                  else f"PROXIED://{HOST}:{node.proxy_port}" if ln.startswith("PROXIED") else ln
                  for ln in listeners]
    replicas = min(3, len(state.brokers))
    lines = [
        "# written by kafkactl local up; holds the sandbox passwords",
        f"process.roles={node.roles}",
        f"node.id={node.node_id}",
        f"controller.quorum.bootstrap.servers={state.quorum_bootstrap}",
        f"listeners={','.join(listeners)}",
        f"advertised.listeners={','.join(advertised)}",
        "listener.security.protocol.map=CONTROLLER:SASL_PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL,SSL:SSL,"
        "OAUTH:SASL_PLAINTEXT,KRB:SASL_PLAINTEXT,KRBS:SASL_SSL,PROXIED:SASL_PLAINTEXT",
        "controller.listener.names=CONTROLLER",
        # the default is GSSAPI; SCRAM stays off the controller listener (its credentials live in the metadata log)
        "sasl.mechanism.controller.protocol=PLAIN",
        "listener.name.controller.sasl.enabled.mechanisms=PLAIN",
        f"listener.name.controller.plain.sasl.jaas.config={plain}",
        "authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer",
        f"super.users={SUPER_USER}",
        "allow.everyone.if.no.acl.found=false",
        f"log.dirs={data_dir}",
    ]
    if node.is_broker:
        lines += [
            "inter.broker.listener.name=SASL_PLAINTEXT",
            "sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256,SCRAM-SHA-512",
            "sasl.mechanism.inter.broker.protocol=PLAIN",
            f"listener.name.sasl_plaintext.plain.sasl.jaas.config={plain}",
            f"listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config={scram}",
            f"listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config={scram}",
            "num.partitions=1",
            f"default.replication.factor={replicas}",
            "min.insync.replicas=1",
            f"offsets.topic.replication.factor={replicas}",
            "offsets.topic.num.partitions=4",
            f"transaction.state.log.replication.factor={replicas}",
            "transaction.state.log.min.isr=1",
            f"share.coordinator.state.topic.replication.factor={replicas}",
            "share.coordinator.state.topic.min.isr=1",
            "group.initial.rebalance.delay.ms=0",
            "auto.create.topics.enable=false",
            "delete.topic.enable=true",
            "log.segment.bytes=16777216",
        ]
        if tuple(int(x) for x in state.kafka_version.split(".")[:2]) >= (4, 1):
            # KIP-939: lets a client ask for two-phase commit (then it needs TWO_PHASE_COMMIT on its transactional
            # id); static, and unknown before 4.1. Clients that do not ask are unaffected.
            lines.append("transaction.two.phase.commit.enable=true")
    if oauth:
        # Kafka's own validator, against the sandbox's identity provider's keys; a connection re-authenticates
        # (KIP-368) when its token expires, so a client must refresh its token to stay connected
        lines += [
            "listener.name.oauth.sasl.enabled.mechanisms=OAUTHBEARER",
            f"listener.name.oauth.oauthbearer.sasl.jaas.config={OAUTH_LOGIN_MODULE} required;",
            f"listener.name.oauth.oauthbearer.sasl.server.callback.handler.class={OAUTH_VALIDATOR}",
            "listener.name.oauth.oauthbearer.connections.max.reauth.ms=86400000",
            f"sasl.oauthbearer.jwks.endpoint.url={state.idp_url}/jwks",
            f"sasl.oauthbearer.expected.audience={OAUTH_AUDIENCE}",
            f"sasl.oauthbearer.expected.issuer={state.idp_url}",
        ]
    if proxied:
        lines += [f"listener.name.proxied.plain.sasl.jaas.config={plain}",
                  f"listener.name.proxied.scram-sha-256.sasl.jaas.config={scram}",
                  f"listener.name.proxied.scram-sha-512.sasl.jaas.config={scram}"]
    if kerberos:
        from kafkactl.local import kdc

        assert kdc_dir is not None
        broker_jaas = kdc.jaas(kdc.KdcFiles(kdc_dir).keytab(kdc.SERVICE_NAME), kdc.SERVICE_PRINCIPAL)
        lines += [
            "sasl.kerberos.service.name=" + kdc.SERVICE_NAME,
            # (a properties file reads a backslash as an escape: doubled, the rules' regex keeps its '\.')
            "sasl.kerberos.principal.to.local.rules=" + kdc.MAPPING_RULES.replace("\\", "\\\\"),
            "listener.name.krb.sasl.enabled.mechanisms=GSSAPI",
            f"listener.name.krb.gssapi.sasl.jaas.config={broker_jaas}",
        ]
        if tls:
            lines += ["listener.name.krbs.sasl.enabled.mechanisms=GSSAPI",
                      f"listener.name.krbs.gssapi.sasl.jaas.config={broker_jaas}"]
    if tls:
        assert tls_dir is not None
        from kafkactl.local.tls import MAPPING_RULES, TlsFiles

        files = TlsFiles(tls_dir)
        lines += [
            f"listener.name.sasl_ssl.plain.sasl.jaas.config={plain}",
            f"listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config={scram}",
            f"listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config={scram}",
            "ssl.keystore.type=PKCS12",
            f"ssl.keystore.location={files.broker_keystore}",
            f"ssl.keystore.password={state.keystore_password}",
            f"ssl.key.password={state.keystore_password}",
            "ssl.truststore.type=PEM",
            f"ssl.truststore.location={files.ca_cert}",
            # the certificate listener requires one; the SASL_SSL listener authenticates by password only
            "listener.name.ssl.ssl.client.auth=required",
            f"ssl.principal.mapping.rules={MAPPING_RULES}",
        ]
    return "\n".join([*lines, ""])


def render_client_properties(user: str, password: str, tls: TlsFiles | None = None) -> str:
    """kafka-*.sh --command-config for one sandbox user: SASL_PLAINTEXT, or SASL_SSL when given the TLS files."""
    lines = ["# kafka-*.sh --command-config for the kafkactl sandbox user " + user,
             f"security.protocol={'SASL_SSL' if tls else 'SASL_PLAINTEXT'}",
             f"sasl.mechanism={CLIENT_MECHANISM}",
             "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required "
             f'username="{user}" password="{password}";']
    if tls:
        lines += ["ssl.truststore.type=PEM", f"ssl.truststore.location={tls.ca_cert}"]
    return "\n".join([*lines, ""])


def render_oauth_properties(user: str, secret: str, idp_url: str) -> str:
    """kafka-*.sh --command-config for one sandbox user on the OAUTHBEARER listener: client credentials at the
    sandbox's token endpoint (Java 4.x clients also need KAFKA_OPTS=-Dorg.apache.kafka.sasl.oauthbearer.allowed.urls
    naming it)."""
    return "\n".join([
        f"# kafka-*.sh --command-config for the kafkactl sandbox OAuth client {user}",
        "security.protocol=SASL_PLAINTEXT", "sasl.mechanism=OAUTHBEARER",
        f"sasl.login.callback.handler.class={OAUTH_LOGIN_HANDLER}",
        f"sasl.oauthbearer.token.endpoint.url={idp_url}/token",
        f'sasl.jaas.config={OAUTH_LOGIN_MODULE} required clientId="{user}" clientSecret="{secret}";',
        "",
    ])


def render_kerberos_properties(user: str, keytab: Path, tls: TlsFiles | None = None) -> str:
    """kafka-*.sh --command-config for one sandbox user's keytab on the GSSAPI listener (SASL_SSL when given the TLS
    files); the JVM finds the realm by KAFKA_OPTS=-Djava.security.krb5.conf (kafkactl local env sets it)."""
    from kafkactl.local.kdc import REALM, SERVICE_NAME, jaas

    lines = [f"# kafka-*.sh --command-config for the kafkactl sandbox Kerberos principal {user}@{REALM}",
             f"security.protocol={'SASL_SSL' if tls else 'SASL_PLAINTEXT'}", "sasl.mechanism=GSSAPI",
             f"sasl.kerberos.service.name={SERVICE_NAME}", f"sasl.jaas.config={jaas(keytab, f'{user}@{REALM}')}"]
    if tls:
        lines += ["ssl.truststore.type=PEM", f"ssl.truststore.location={tls.ca_cert}"]
    return "\n".join([*lines, ""])


def render_mtls_properties(identity: str, tls: TlsFiles) -> str:
    """kafka-*.sh --command-config for a client certificate (the SSL listener): PEM keystore and truststore."""
    return "\n".join([
        f"# kafka-*.sh --command-config for the kafkactl sandbox certificate {identity}",
        "security.protocol=SSL",
        "ssl.truststore.type=PEM", f"ssl.truststore.location={tls.ca_cert}",
        "ssl.keystore.type=PEM", f"ssl.keystore.location={tls.client_pem(identity)}",
        "",
    ])


LOG4J2 = """status = warn
appender.console.type = Console
appender.console.name = STDOUT
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = INFO
rootLogger.appenderRef.stdout.ref = STDOUT
logger.kafka.name = kafka
logger.kafka.level = INFO
logger.request.name = kafka.request.logger
logger.request.level = WARN
logger.state.name = state.change.logger
logger.state.level = WARN
# Kafka's OAuthBearerValidatorCallbackHandler logs a token it refuses whole, at WARN: one refused for its audience
# may be good on another cluster. The refusal is still logged, without the token, by the authenticator.
logger.oauth.name = org.apache.kafka.common.security.oauthbearer
logger.oauth.level = ERROR
"""

