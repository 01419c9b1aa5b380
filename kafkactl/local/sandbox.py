"""The local sandbox: one KRaft broker+controller with SASL users and StandardAuthorizer.

`kafkactl local up` and the pytest session fixture both go through `up()` here.
"""

from __future__ import annotations

import base64
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import time
import uuid
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

from kafkactl.errors import SandboxError
from kafkactl.local.assembly import KAFKA_VERSION, ensure_kafka, java_command
from kafkactl.profiles import Context, ContextStore

USERS = ("admin", "alice", "bob", "carol")
SUPER_USER = "User:admin"
DEFAULT_BROKER_PORT = 9092
DEFAULT_CONTROLLER_PORT = 9093
CLIENT_MECHANISM = "SCRAM-SHA-512"
HOST = "127.0.0.1"


def state_home() -> Path:
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "kafkactl" / "local"


@dataclass
class SandboxState:
    broker_port: int
    controller_port: int
    cluster_id: str
    passwords: dict[str, str]
    kafka_version: str = KAFKA_VERSION
    pid: int | None = None


@dataclass(frozen=True)
class SandboxStatus:
    running: bool
    pid: int | None
    bootstrap_servers: str | None
    kafka_version: str | None
    state_dir: str
    log_file: str
    data_dir: str
    contexts: tuple[str, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class SandboxUp(SandboxStatus):
    """What `local up` reports: the status, and how the start went (not part of `local status`)."""

    started_in_s: float | None = None
    already_running: bool = False


class Sandbox:
    def __init__(self, home: Path | None = None) -> None:
        self.home = home or state_home()

    # ---------------------------------------------------------------- paths
    @property
    def state_file(self) -> Path:
        return self.home / "state.json"

    @property
    def data_dir(self) -> Path:
        return self.home / "data"

    @property
    def log_file(self) -> Path:
        return self.home / "broker.log"

    @property
    def properties_file(self) -> Path:
        return self.home / "server.properties"

    def client_properties(self, user: str) -> Path:
        return self.home / f"client-{user}.properties"

    # ---------------------------------------------------------------- state
    def load_state(self) -> SandboxState | None:
        try:
            return SandboxState(**json.loads(self.state_file.read_text()))
        except FileNotFoundError:
            return None
        except (ValueError, TypeError) as exc:
            raise SandboxError(f"{self.state_file} is damaged ({exc.__class__.__name__}); run kafkactl local down") from None

    def _save_state(self, state: SandboxState) -> None:
        _write_private(self.state_file, json.dumps(asdict(state), indent=2))

    def is_running(self, state: SandboxState | None = None) -> bool:
        state = state or self.load_state()
        return bool(state and state.pid and _pid_alive(state.pid) and _is_ours(state.pid, self.home))

    def status(self) -> SandboxStatus:
        state = self.load_state()
        running = self.is_running(state)
        return SandboxStatus(
            running=running,
            pid=state.pid if running and state else None,
            bootstrap_servers=f"{HOST}:{state.broker_port}" if state else None,
            kafka_version=state.kafka_version if state else None,
            state_dir=str(self.home),
            log_file=str(self.log_file),
            data_dir=str(self.data_dir),
            contexts=tuple(f"local-{u}" for u in USERS) if state else (),
        )

    # ---------------------------------------------------------------- up
    def up(self, ready_probe: Callable[[str, dict[str, str]], None] | None = None, timeout: float = 120.0) -> SandboxUp:
        """Start the broker (idempotent) and wait until `ready_probe(bootstrap, passwords)` succeeds."""
        ready_probe = ready_probe or broker_probe
        started = time.monotonic()
        libs = ensure_kafka()
        self.home.mkdir(parents=True, exist_ok=True, mode=0o700)
        state = self.load_state()
        if state and self.is_running(state):
            self._wait_ready(state, ready_probe, timeout, started)
            self._write_contexts(state)
            return _replace_status(self.status(), already_running=True)
        formatted = (self.data_dir / "meta.properties").exists()
        if state is None or not formatted:
            state = self._fresh_state()
            shutil.rmtree(self.data_dir, ignore_errors=True)
            self._write_configs(state)
            self._format(libs, state)
        else:
            for port in (state.broker_port, state.controller_port):
                if not _port_free(port):
                    raise SandboxError(f"port {port} of the kept sandbox is in use by another process; "
                                       "free it or run kafkactl local down to start afresh")
            self._write_configs(state)
        state.pid = self._spawn(libs)
        self._save_state(state)
        self._wait_ready(state, ready_probe, timeout, started)
        self._write_contexts(state)
        return _replace_status(self.status(), started_in_s=round(time.monotonic() - started, 2))

    def _fresh_state(self) -> SandboxState:
        broker = DEFAULT_BROKER_PORT if _port_free(DEFAULT_BROKER_PORT) else _free_port()
        controller = DEFAULT_CONTROLLER_PORT if _port_free(DEFAULT_CONTROLLER_PORT) else _free_port()
        while controller == broker:
            controller = _free_port()
        cluster_id = "-"
        while cluster_id.startswith("-"):  # as Kafka's Uuid.randomUuid: a leading '-' reads as an option
            cluster_id = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
        # fresh random passwords per sandbox, with nothing guessable in them (no user name: a 6-character piece
        # of one in any output is then a leak, not a coincidence); they live in 0600 files only
        passwords = {u: secrets.token_urlsafe(18) for u in USERS}
        return SandboxState(broker_port=broker, controller_port=controller, cluster_id=cluster_id, passwords=passwords)

    def _write_configs(self, state: SandboxState) -> None:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        _write_private(self.properties_file, render_server_properties(state, self.data_dir))
        (self.home / "log4j2.properties").write_text(_LOG4J2)
        for user in USERS:
            _write_private(self.client_properties(user), render_client_properties(user, state.passwords[user]))

    def _java(self, libs: Path, main: str, *args: str, heap: str = "256m", extra: tuple[str, ...] = ()) -> list[str]:
        return java_command(libs, main, *args, heap=heap,
                            extra=(f"-Dlog4j2.configurationFile={self.home / 'log4j2.properties'}", *extra))

    def _format(self, libs: Path, state: SandboxState) -> None:
        args = ["kafka.tools.StorageTool", "format", f"--cluster-id={state.cluster_id}", "-c",
                str(self.properties_file), "--standalone"]
        for user in USERS:
            for mech in ("SCRAM-SHA-256", "SCRAM-SHA-512"):
                args += ["--add-scram", f"{mech}=[name={user},password={state.passwords[user]}]"]
        # The SCRAM passwords must not appear on a command line (any local user reads /proc/PID/cmdline): the
        # java launcher (9+) reads the main class and its arguments from an @argfile, here a fresh 0600 file removed
        # after. Without perf data the JVM does not copy its arguments into /tmp/hsperfdata_<user>/<pid> either.
        argfile = self.home / "format.args"
        _write_private(argfile, "".join(_argfile_line(a) for a in args), fresh=True)
        try:
            proc = subprocess.run(self._java(libs, f"@{argfile}", extra=("-XX:-UsePerfData",)), capture_output=True,
                                  text=True, timeout=180, cwd=self.home)
        finally:
            argfile.unlink(missing_ok=True)
        if proc.returncode != 0:
            from kafkactl.redact import scrub

            tail = "\n".join(scrub(proc.stdout + proc.stderr).strip().splitlines()[-8:])
            raise SandboxError(f"formatting the sandbox storage failed:\n{tail}")

    def _spawn(self, libs: Path) -> int:
        log = open(self.log_file, "ab")
        cmd = self._java(libs, "kafka.Kafka", str(self.properties_file), heap="1g")
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                cwd=self.home, start_new_session=True)
        log.close()
        return proc.pid

    def _wait_ready(self, state: SandboxState, probe: Callable[[str, dict[str, str]], None], timeout: float,
                    started: float) -> None:
        bootstrap = f"{HOST}:{state.broker_port}"
        last: Exception | None = None
        while time.monotonic() - started < timeout:
            if state.pid and not _pid_alive(state.pid):
                raise SandboxError(f"the broker exited during start-up; last lines of {self.log_file}:\n{self.log_tail()}")
            if not _port_free(state.broker_port):
                try:
                    probe(bootstrap, state.passwords)
                    return
                except Exception as exc:  # not ready yet: authorizer loading, metadata not published
                    last = exc
            time.sleep(0.3)
        raise SandboxError(f"the broker did not answer within {timeout:.0f} s ({last}); "
                           f"last lines of {self.log_file}:\n{self.log_tail()}")

    def _write_contexts(self, state: SandboxState) -> None:
        store = ContextStore.load()
        for user in USERS:
            store.put(Context(
                name=f"local-{user}",
                bootstrap_servers=f"{HOST}:{state.broker_port}",
                properties={"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": CLIENT_MECHANISM,
                            "sasl.username": user, "sasl.password": state.passwords[user]},
                super_users=[SUPER_USER],
                allow_everyone_if_no_acl_found=False,
                managed_by="local",
            ))
        if store.current is None or store.current not in store.contexts:
            store.current = "local-admin"
        store.save()

    def log_tail(self, lines: int = 20) -> str:
        from kafkactl.redact import scrub

        try:
            text = self.log_file.read_text(errors="replace")
        except FileNotFoundError:
            return "(no log)"
        return scrub("\n".join(text.splitlines()[-lines:]))

    # ---------------------------------------------------------------- down
    def down(self, purge: bool = False, timeout: float = 30.0) -> SandboxStatus:
        """Stop the broker. Its data (topics, ACLs, users) and contexts stay for the next `up`, unless `purge`."""
        state = self.load_state()
        if state and state.pid and self.is_running(state):
            _stop(state.pid, timeout)
        if state:
            state.pid = None
            self._save_state(state)
        if purge:
            shutil.rmtree(self.home, ignore_errors=True)
            store = ContextStore.load()
            for name in [n for n, c in store.contexts.items() if c.managed_by == "local"]:
                store.delete(name)
            store.save()
        return self.status()


def broker_probe(bootstrap: str, passwords: dict[str, str]) -> None:
    """Ready means: the admin is served, and the authorizer answers a non-super user (not 'not ready')."""
    from kafkactl.gateway import Gateway
    from kafkactl.profiles import Profile
    from kafkactl.redact import Secret

    def profile(name: str, pw: str) -> Profile:
        return Profile(bootstrap_servers=bootstrap, security_protocol="SASL_PLAINTEXT", sasl_mechanism=CLIENT_MECHANISM,
                       username=name, password=Secret(pw), timeout=3.0)

    Gateway(profile("admin", passwords["admin"])).describe_cluster()
    # the authorized-operations bitfield makes the broker consult the authorizer for a non-super user:
    # this fails with UNKNOWN_SERVER_ERROR while StandardAuthorizer is still loading (kafka-semantics §4)
    Gateway(profile("carol", passwords["carol"])).describe_cluster(include_authorized_operations=True)


def render_server_properties(state: SandboxState, data_dir: Path) -> str:
    pw = state.passwords
    plain_users = " ".join(f'user_{u}="{pw[u]}"' for u in USERS)
    plain = ("org.apache.kafka.common.security.plain.PlainLoginModule required "
             f'username="admin" password="{pw["admin"]}" {plain_users};')
    scram = "org.apache.kafka.common.security.scram.ScramLoginModule required;"
    b, c = state.broker_port, state.controller_port
    return "\n".join([
        "# written by kafkactl local up; holds the sandbox passwords",
        "process.roles=broker,controller",
        "node.id=1",
        f"controller.quorum.bootstrap.servers={HOST}:{c}",
        f"listeners=SASL_PLAINTEXT://{HOST}:{b},CONTROLLER://{HOST}:{c}",
        f"advertised.listeners=SASL_PLAINTEXT://{HOST}:{b},CONTROLLER://{HOST}:{c}",
        "listener.security.protocol.map=CONTROLLER:SASL_PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT",
        "inter.broker.listener.name=SASL_PLAINTEXT",
        "controller.listener.names=CONTROLLER",
        "sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256,SCRAM-SHA-512",
        "sasl.mechanism.inter.broker.protocol=PLAIN",
        # the default is GSSAPI; SCRAM stays off the controller listener (its credentials live in the metadata log)
        "sasl.mechanism.controller.protocol=PLAIN",
        "listener.name.controller.sasl.enabled.mechanisms=PLAIN",
        f"listener.name.controller.plain.sasl.jaas.config={plain}",
        f"listener.name.sasl_plaintext.plain.sasl.jaas.config={plain}",
        f"listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config={scram}",
        f"listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config={scram}",
        "authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer",
        f"super.users={SUPER_USER}",
        "allow.everyone.if.no.acl.found=false",
        f"log.dirs={data_dir}",
        "num.partitions=1",
        "default.replication.factor=1",
        "offsets.topic.replication.factor=1",
        "offsets.topic.num.partitions=4",
        "transaction.state.log.replication.factor=1",
        "transaction.state.log.min.isr=1",
        "share.coordinator.state.topic.replication.factor=1",
        "share.coordinator.state.topic.min.isr=1",
        "group.initial.rebalance.delay.ms=0",
        "auto.create.topics.enable=false",
        "delete.topic.enable=true",
        "log.segment.bytes=16777216",
        "",
    ])


def render_client_properties(user: str, password: str) -> str:
    return "\n".join([
        "# kafka-*.sh --command-config for the kafkactl sandbox user " + user,
        "security.protocol=SASL_PLAINTEXT",
        f"sasl.mechanism={CLIENT_MECHANISM}",
        "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required "
        f'username="{user}" password="{password}";',
        "",
    ])


_LOG4J2 = """status = warn
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
"""


def _argfile_line(arg: str) -> str:
    """One argument of a java @argfile: quoted, with the launcher's backslash escapes."""
    escaped = arg.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")
    return f'"{escaped}"\n'


def _write_private(path: Path, text: str, fresh: bool = False) -> None:
    from kafkactl.privatefile import write_private

    write_private(path, text, fresh=fresh)


def _port_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.settimeout(0.2)
        return s.connect_ex((HOST, port)) != 0 and _bindable(port)


def _bindable(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        # the broker binds with SO_REUSEADDR too, so a port in TIME_WAIT is still usable
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((HOST, port))
            return True
        except OSError:
            return False


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # a zombie child of this very process counts as dead
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(") ", 1)[1][:1] != "Z"
    except (FileNotFoundError, IndexError):
        return False


def _is_ours(pid: int, home: Path) -> bool:
    """Guard against a recycled pid: the process must be a java started with our properties file."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except FileNotFoundError:
        return False
    return str(home / "server.properties").encode() in cmdline


def _stop(pid: int, timeout: float) -> None:
    try:
        os.killpg(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not _pid_alive(pid):
            return
        time.sleep(0.2)
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _replace_status(status: SandboxStatus, **changes: object) -> SandboxUp:
    from dataclasses import asdict

    return SandboxUp(**{**asdict(status), **changes})


@dataclass(frozen=True)
class SandboxEnv:
    """What points kafkactl (and kafka-*.sh) at the sandbox as one user: no password, only the path of its 0600
    properties file."""

    variables: tuple[tuple[str, str], ...]
    kafka_sh_arguments: tuple[str, ...]

    def lines(self) -> list[str]:
        import shlex

        return [*(f"export {k}={shlex.quote(v)}" for k, v in self.variables),
                f"# for kafka-*.sh: {' '.join(shlex.quote(a) for a in self.kafka_sh_arguments)}"]


def shell_env(user: str | None = None, sandbox: Sandbox | None = None) -> SandboxEnv:
    """The environment for one sandbox user (default: the current context's, else admin)."""

    from kafkactl.errors import NotFoundError, UsageError

    sandbox = sandbox or Sandbox()
    state = sandbox.load_state()
    if state is None:
        raise NotFoundError("no sandbox: run kafkactl local up")
    if user is None:
        store = ContextStore.load()
        current = store.contexts.get(os.environ.get("KAFKACTL_CONTEXT") or store.current or "")
        user = current.properties.get("sasl.username") if current and current.managed_by == "local" else "admin"
    if user not in USERS:
        raise UsageError(f"--user {user}: the sandbox users are {', '.join(USERS)}")
    props = sandbox.client_properties(user)
    bootstrap = f"{HOST}:{state.broker_port}"
    return SandboxEnv(variables=(("KAFKACTL_CONTEXT", f"local-{user}"), ("KAFKACTL_BOOTSTRAP_SERVERS", bootstrap)),
                      kafka_sh_arguments=("--bootstrap-server", bootstrap, "--command-config", str(props)))
