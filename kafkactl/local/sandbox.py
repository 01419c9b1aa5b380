"""The local sandbox: KRaft with SASL users and StandardAuthorizer, one combined node or several brokers and a
controller quorum (topology and node configuration: nodes.py).

`kafkactl local up` and the pytest session fixture both go through `up()` here.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from kafkactl.errors import SandboxError, UsageError
from kafkactl.local.assembly import KAFKA_VERSION, check_version, ensure_kafka, java_command
from kafkactl.local.kdc import REALM, KdcFiles
from kafkactl.local.nodes import (
    CLIENT_MECHANISM,
    CONTROLLER_COUNTS,
    DEFAULT_IDP_PORT,
    DEFAULT_KDC_PORT,
    DEFAULT_TOKEN_LIFETIME,
    HEAPS,
    LOG4J2,
    MAX_BROKERS,
    OAUTH_LOGIN_HANDLER,
    SUPER_USER,
    USERS,
    NodeState,
    SandboxState,
    format_arguments,
    new_uuid,
    plan_nodes,
    render_client_properties,
    render_kerberos_properties,
    render_mtls_properties,
    render_oauth_properties,
    render_server_properties,
)
from kafkactl.local.process import HOST, argfile_line, free_port, is_ours, pid_alive, port_free, stop
from kafkactl.local.tls import TlsFiles
from kafkactl.profiles import Context, ContextStore

TLS_IDENTITIES = (*USERS, "app")  # "app": a certificate whose DN the mapping rule leaves whole

# kept importable from here (tests, benchmarks)
_free_port = free_port
__all__ = ["Sandbox", "SandboxState", "SandboxStatus", "SandboxUp", "NodeStatus", "USERS", "SUPER_USER", "HOST",
           "broker_probe", "shell_env"]


def state_home() -> Path:
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "kafkactl" / "local"


@dataclass(frozen=True)
class NodeStatus:
    COLUMNS = ("node_id", "roles", "address", "running", "pid")
    node_id: int
    roles: str
    address: str
    running: bool
    pid: int | None

    def cell(self) -> str:
        """One node in a table or plain cell (JSON and YAML get the fields)."""
        return (f"{self.roles.replace(',', '+')} {self.node_id} at {self.address} "
                f"({'running' if self.running else 'not running'})")  # (why: the status's state line)


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
    topology: str | None = None
    nodes: tuple[NodeStatus, ...] = field(default_factory=tuple)
    # in words: running, stopped (by local down), or which nodes run and which were killed (issue 29)
    state: str = "none: kafkactl local up starts one"
    token_endpoint: str | None = None  # an --oauth sandbox's identity provider
    kdc: str | None = None  # a --kerberos sandbox's KDC (host:port) and realm


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

    def node_home(self, node: NodeState, state: SandboxState) -> Path:
        """A combined node lives in the sandbox's own directory (as before several nodes); others in node-<id>."""
        return self.home if state.combined else self.home / f"node-{node.node_id}"

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

    def _paths(self, node: NodeState, state: SandboxState) -> tuple[Path, Path, Path]:
        """(properties, data, log) of one node."""
        home = self.node_home(node, state)
        if state.combined:
            return self.properties_file, self.data_dir, self.log_file
        return home / "server.properties", home / "data", home / "node.log"

    # ---------------------------------------------------------------- state
    def load_state(self) -> SandboxState | None:
        try:
            return SandboxState.from_json(json.loads(self.state_file.read_text()))
        except FileNotFoundError:
            return None
        except (ValueError, TypeError, KeyError, AttributeError, UnicodeDecodeError) as exc:
            why = str(exc) if str(exc).startswith("bad ") else exc.__class__.__name__
            raise SandboxError(f"{self.state_file} is damaged ({why}); run kafkactl local down --purge") from None

    def _save_state(self, state: SandboxState) -> None:
        _write_private(self.state_file, json.dumps(state.to_json(), indent=2))

    def _node_running(self, node: NodeState, state: SandboxState) -> bool:
        return bool(node.pid and pid_alive(node.pid) and is_ours(node.pid, self._paths(node, state)[0]))

    @property
    def idp_config(self) -> Path:
        return self.home / "oidc.json"

    def _idp_running(self, state: SandboxState) -> bool:
        return bool(state.idp_pid and pid_alive(state.idp_pid) and is_ours(state.idp_pid, self.home))

    @property
    def kdc_files(self) -> KdcFiles:
        return KdcFiles(self.home / "kerberos")

    @property
    def _kdc_pidfile(self) -> Path:
        return self.home / "kerberos" / "kdc.pid"

    def _kdc_running(self, state: SandboxState) -> bool:
        return bool(state.kdc_pid and pid_alive(state.kdc_pid) and is_ours(state.kdc_pid, self._kdc_pidfile))

    def is_running(self, state: SandboxState | None = None) -> bool:
        """Every node runs (and an --oauth sandbox's identity provider, a --kerberos sandbox's KDC)."""
        state = state or self.load_state()
        return bool(state and all(self._node_running(n, state) for n in state.nodes)
                    and (not state.oauth or self._idp_running(state))
                    and (not state.kerberos or self._kdc_running(state)))

    def status(self) -> SandboxStatus:
        state = self.load_state()
        nodes: tuple[NodeStatus, ...] = ()
        if state is not None:
            live = {n.node_id: self._node_running(n, state) for n in state.nodes}
            nodes = tuple(NodeStatus(n.node_id, n.roles, n.address, live[n.node_id], n.pid if live[n.node_id] else None)
                          for n in state.nodes)
        idp_down = state is not None and state.oauth and any(n.running for n in nodes) and not self._idp_running(state)
        kdc_down = (state is not None and state.kerberos and any(n.running for n in nodes)
                    and not self._kdc_running(state))
        running = bool(nodes) and all(n.running for n in nodes) and not idp_down and not kdc_down
        said = {} if state is None else {"state": _state_words(state, nodes)}
        for down, what, fails in ((idp_down, "the identity provider", "its tokens: local-oauth-* fail"),
                                  (kdc_down, "the KDC", "its tickets: local-kerberos-* fail")):
            if down:
                said["state"] = (f"{what} is not running ({fails}): kafkactl local up starts it again"
                                 if said["state"] == "running" else f"{said['state']}; {what} is not running")
        return SandboxStatus(
            running=running,
            pid=state.pid if running and state else None,
            bootstrap_servers=state.bootstrap if state else None,
            kafka_version=state.kafka_version if state else None,
            state_dir=str(self.home),
            log_file=str(self.log_file if state is None or state.combined else self.home / "node-*" / "node.log"),
            data_dir=str(self.data_dir if state is None or state.combined else self.home / "node-*" / "data"),
            contexts=sandbox_contexts(state) if state else (),
            topology=state.topology() if state else None,
            nodes=nodes,
            token_endpoint=f"{state.idp_url}/token" if state and state.oauth else None,
            kdc=f"{HOST}:{state.kdc_port} (realm {REALM})" if state and state.kerberos else None,
            **said,
        )

    # ---------------------------------------------------------------- up
    def up(self, ready_probe: Callable[[str, dict[str, str]], None] | None = None, timeout: float = 120.0,
           brokers: int | None = None, controllers: int | None = None, kafka_version: str | None = None,
           tls: bool | None = None, oauth: bool | None = None, token_lifetime: int | None = None,
           kerberos: bool | None = None, proxied: bool | None = None) -> SandboxUp:
        """Start every node (idempotent) and wait until `ready_probe(bootstrap, passwords)` succeeds on each broker.
        `brokers`/`controllers`/`kafka_version`/`tls`: the shape of a new sandbox (a kept one must be asked for as
        it is, or not at all)."""
        check_topology(brokers, controllers)
        if kafka_version is not None:
            check_version(kafka_version)
        ready_probe = ready_probe or broker_probe
        started = time.monotonic()
        state = self.load_state()
        if state is not None:
            _same_topology(state, brokers, controllers)
            if kafka_version is not None and kafka_version != state.kafka_version:
                raise UsageError(f"the kept sandbox runs Kafka {state.kafka_version}; run kafkactl local down --purge "
                                 f"first to start {kafka_version}")
            for flag, asked, made in (("--tls", tls, state.tls), ("--oauth", oauth, state.oauth),
                                      ("--kerberos", kerberos, state.kerberos), ("proxied", proxied, state.proxied)):
                if asked is not None and asked != made:
                    raise UsageError(f"the kept sandbox was made {'with' if made else 'without'} {flag}; run kafkactl "
                                     f"local down --purge first to start it {'with' if asked else 'without'} it")
            if token_lifetime is not None and token_lifetime != state.token_lifetime:
                raise UsageError(f"the kept sandbox's tokens live {state.token_lifetime} s; run kafkactl local down "
                                 "--purge first to start it with another --token-lifetime")
        version = state.kafka_version if state is not None else kafka_version or KAFKA_VERSION
        libs = ensure_kafka(version)
        self.home.mkdir(parents=True, exist_ok=True, mode=0o700)
        if state and self.is_running(state):
            self._wait_ready(state, ready_probe, timeout, started)
            self._write_contexts(state)
            return _up(self.status(), already_running=True)
        with _port_claim():  # until the nodes listen: then no other start can pick their ports
            state, stopped = self._prepare(libs, state, brokers, controllers, version, tls, oauth, token_lifetime,
                                           kerberos, proxied)
            if state.oauth and not self._idp_running(state):
                state.idp_pid = self._spawn_idp(state)  # first: a broker reads its keys as it starts
            if state.kerberos and not self._kdc_running(state):
                state.kdc_pid = self._spawn_kdc(state)  # first: a broker logs in to the realm as it starts
            for n in stopped:
                n.pid = self._spawn(libs, n, state)
            self._save_state(state)
            bound_by = time.monotonic() + 60
            while not self._bound(stopped) and time.monotonic() < bound_by:
                time.sleep(0.1)
        self._wait_ready(state, ready_probe, timeout, started)
        self._write_contexts(state)
        return _up(self.status(), started_in_s=round(time.monotonic() - started, 2))

    def _prepare(self, libs: Path, state: SandboxState | None, brokers: int | None, controllers: int | None,
                 version: str, tls: bool | None, oauth: bool | None = None,
                 token_lifetime: int | None = None,
                 kerberos: bool | None = None, proxied: bool | None = None) -> tuple[SandboxState, list[NodeState]]:
        """A new sandbox's state, configs and formatted storage, or a kept one's configs: (state, nodes to start)."""
        formatted = state is not None and all(
            (self._paths(n, state)[1] / "meta.properties").exists() for n in state.nodes)
        if state is None or not formatted:
            if state is not None:
                self._stop_nodes(state, 30.0)
            state = self._fresh_state(brokers or 1, controllers, version, bool(tls), bool(oauth),
                                      token_lifetime or DEFAULT_TOKEN_LIFETIME, bool(kerberos), bool(proxied))
            if state.tls:
                self._make_tls(state)
            if state.kerberos:
                self._make_realm(state)
            for n in state.nodes:
                shutil.rmtree(self._paths(n, state)[1], ignore_errors=True)
            self._write_configs(state)
            self._format(libs, state)
            stopped = list(state.nodes)
        else:
            # a kept sandbox, or one with stopped nodes (a broker killed): start what does not run
            stopped = [n for n in state.nodes if not self._node_running(n, state)]
            if state.tls and not self.tls_files.complete(TLS_IDENTITIES):
                self._make_tls(state)  # a file was removed: a new CA and certificates (contexts are rewritten below)
            if state.kerberos and not self._kdc_running(state) and not self.kdc_files.complete(USERS):
                self._make_realm(state)  # a file was removed: a new realm and keytabs
            for port, what in ((state.idp_port, "identity provider") if state.oauth and not self._idp_running(state)
                               else (None, ""),
                               (state.kdc_port, "KDC") if state.kerberos and not self._kdc_running(state)
                               else (None, "")):
                if port is not None and not port_free(port):
                    raise SandboxError(f"port {port} of the kept sandbox's {what} is in use: stop what holds it, or "
                                       "kafkactl local down --purge")
            for n in stopped:
                for port in n.ports:
                    if not port_free(port):
                        from kafkactl.local.process import port_holder

                        who = port_holder(port) or "another process"
                        raise SandboxError(f"port {port} of the kept sandbox is in use by {who}: stop it, or "
                                           "kafkactl local down --purge, then local up starts a new sandbox on "
                                           "free ports (its topics, ACLs and users are deleted)")
            self._write_configs(state)
        return state, stopped

    def _bound(self, nodes: list[NodeState]) -> bool:
        """Whether each of `nodes` listens on all its ports (or has exited: _wait_ready says why)."""
        return all(not pid_alive(n.pid or 0) or not any(port_free(p) for p in n.ports) for n in nodes)

    @property
    def tls_files(self) -> TlsFiles:
        return TlsFiles(self.home / "tls")

    def _make_tls(self, state: SandboxState) -> None:
        from kafkactl.local.tls import make_material

        make_material(self.tls_files, TLS_IDENTITIES, str(state.keystore_password), HOST)

    def _make_realm(self, state: SandboxState) -> None:
        from kafkactl.local.kdc import make_realm

        make_realm(self.kdc_files, int(state.kdc_port or 0), USERS)

    def _fresh_state(self, brokers: int, controllers: int | None, version: str, tls: bool = False,
                     oauth: bool = False, token_lifetime: int = DEFAULT_TOKEN_LIFETIME,
                     kerberos: bool = False, proxied: bool = False) -> SandboxState:
        taken: set[int] = set()

        def pick(preferred: int | None) -> int:
            port = preferred if preferred is not None and preferred not in taken and port_free(preferred) \
                else free_port(taken)
            taken.add(port)
            return port

        # fresh random passwords per sandbox, with nothing guessable in them (no user name: a 6-character piece
        # of one in any output is then a leak, not a coincidence); they live in 0600 files only
        passwords = {u: secrets.token_urlsafe(18) for u in USERS}
        nodes = plan_nodes(brokers, controllers, pick, tls, oauth, kerberos, proxied)
        return SandboxState(cluster_id=new_uuid(), passwords=passwords, nodes=nodes, kafka_version=version, tls=tls,
                            keystore_password=secrets.token_urlsafe(18) if tls else None, oauth=oauth,
                            idp_port=pick(DEFAULT_IDP_PORT) if oauth else None, token_lifetime=token_lifetime,
                            kerberos=kerberos, kdc_port=pick(DEFAULT_KDC_PORT) if kerberos else None,
                            proxied=proxied)

    def _write_configs(self, state: SandboxState) -> None:
        self.home.mkdir(parents=True, exist_ok=True, mode=0o700)
        (self.home / "log4j2.properties").write_text(LOG4J2)
        for n in state.nodes:
            properties, data, _ = self._paths(n, state)
            data.mkdir(parents=True, exist_ok=True)
            _write_private(properties, render_server_properties(state, n, data, self.tls_files.directory,
                                                                self.kdc_files.directory))
        for user in USERS:
            _write_private(self.client_properties(user), render_client_properties(user, state.passwords[user]))
            if state.tls:
                _write_private(self.client_properties(f"tls-{user}"),
                               render_client_properties(user, state.passwords[user], self.tls_files))
        if state.tls:
            for identity in TLS_IDENTITIES:
                _write_private(self.client_properties(f"mtls-{identity}"),
                               render_mtls_properties(identity, self.tls_files))
        if state.oauth:
            self._write_idp(state)
        if state.kerberos:
            from kafkactl.local.kdc import write_configs

            write_configs(self.kdc_files, int(state.kdc_port or 0))
            for user in USERS:
                keytab = self.kdc_files.keytab(user)
                _write_private(self.client_properties(f"kerberos-{user}"), render_kerberos_properties(user, keytab))
                if state.tls:
                    _write_private(self.client_properties(f"kerberos-tls-{user}"),
                                   render_kerberos_properties(user, keytab, self.tls_files))

    def _write_idp(self, state: SandboxState) -> None:
        """The identity provider's key (kept: the brokers' cached keys stay valid) and configuration: each sandbox
        user is an OAuth client whose secret is its password."""
        from kafkactl.local.nodes import OAUTH_AUDIENCE
        from kafkactl.local.oidc import new_key_pem

        key = self.home / "oidc-key.pem"
        if not key.exists():
            _write_private(key, new_key_pem().decode())
        _write_private(self.idp_config, json.dumps({
            "port": state.idp_port, "ttl": state.token_lifetime, "audience": OAUTH_AUDIENCE, "issuer": state.idp_url,
            "clients": {u: state.passwords[u] for u in USERS}}))
        for user in USERS:
            _write_private(self.client_properties(f"oauth-{user}"),
                           render_oauth_properties(user, state.passwords[user], state.idp_url))

    def _spawn_idp(self, state: SandboxState) -> int:
        """Start the identity provider and wait until it serves its keys (nothing secret on its command line: it
        reads oidc.json)."""
        import sys
        import urllib.request

        def serves() -> bool:
            try:
                with urllib.request.urlopen(f"{state.idp_url}/jwks", timeout=1):
                    return True
            except OSError:
                return False

        log = self.home / "oidc.log"
        return self._spawn_helper("the identity provider", [sys.executable, "-m", "kafkactl.local.oidc",
                                                            str(self.home)], log, log, serves)

    def _spawn_kdc(self, state: SandboxState) -> int:
        """Start the realm's KDC and wait until it listens."""
        from kafkactl.local.kdc import kdc_command

        files = self.kdc_files
        self._kdc_pidfile.unlink(missing_ok=True)
        return self._spawn_helper("the KDC", [*kdc_command(), "-P", str(self._kdc_pidfile)],
                                  files.directory / "krb5kdc.out", files.log,
                                  lambda: not port_free(int(state.kdc_port or 0)), env=files.env())

    def _spawn_helper(self, what: str, argv: list[str], out: Path, log: Path, ready: Callable[[], bool],
                      env: dict[str, str] | None = None) -> int:
        """Start one of the sandbox's helpers (the identity provider, the KDC) in a session of its own, its output
        to `out`, and wait until `ready()`: 30 s at most; if it exits, the last lines of its `log` say why."""
        with open(out, "ab") as fh:
            proc = subprocess.Popen(argv, stdout=fh, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                    cwd=out.parent, env=env, start_new_session=True)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise SandboxError(f"{what} exited during start-up; last lines of {log}:\n{self.log_tail(path=log)}")
            if ready():
                return proc.pid
            time.sleep(0.05)
        stop([proc.pid], 5)
        raise SandboxError(f"{what} did not start within 30 s")

    def _java(self, libs: Path, main: str, *args: str, heap: str = "256m", extra: tuple[str, ...] = ()) -> list[str]:
        # the JVMs' scratch files (lz4's native library, ...) stay in the sandbox, not in /tmp for ever
        scratch = self.home / "tmp"
        scratch.mkdir(parents=True, exist_ok=True, mode=0o700)
        return java_command(libs, main, *args, heap=heap,
                            extra=(f"-Dlog4j2.configurationFile={self.home / 'log4j2.properties'}",
                                   f"-Djava.io.tmpdir={scratch}", *extra))

    def _format(self, libs: Path, state: SandboxState) -> None:
        """Format every node's storage, the nodes in parallel (each is a JVM start)."""
        with ThreadPoolExecutor(max_workers=min(4, len(state.nodes))) as pool:
            for _ in pool.map(lambda n: self._format_node(libs, state, n), state.nodes):
                pass

    def _format_node(self, libs: Path, state: SandboxState, node: NodeState) -> None:
        properties, _, _ = self._paths(node, state)
        args = format_arguments(state, node, properties)
        # The SCRAM passwords must not appear on a command line (any local user reads /proc/PID/cmdline): the
        # java launcher (9+) reads the main class and its arguments from an @argfile, here a fresh 0600 file removed
        # after. Without perf data the JVM does not copy its arguments into /tmp/hsperfdata_<user>/<pid> either.
        argfile = self.node_home(node, state) / "format.args"
        _write_private(argfile, "".join(argfile_line(a) for a in args), fresh=True)
        try:
            proc = subprocess.run(self._java(libs, f"@{argfile}", extra=("-XX:-UsePerfData",)), capture_output=True,
                                  text=True, timeout=180, cwd=self.home)
        finally:
            argfile.unlink(missing_ok=True)
        if proc.returncode != 0:
            from kafkactl.redact import scrub

            tail = "\n".join(scrub(proc.stdout + proc.stderr).strip().splitlines()[-8:])
            raise SandboxError(f"formatting the storage of node {node.node_id} failed:\n{tail}")

    def _spawn(self, libs: Path, node: NodeState, state: SandboxState) -> int:
        properties, _, log_path = self._paths(node, state)
        log = open(log_path, "ab")
        # Kafka 4 fetches from no URL the JVM does not allow (the sandbox's identity provider's keys, --oauth)
        extra: tuple[str, ...] = ((f"-Dorg.apache.kafka.sasl.oauthbearer.allowed.urls={state.idp_url}/jwks",)
                                  if state.oauth else ())
        if state.kerberos:  # the realm of the brokers' service principal
            extra += (f"-Djava.security.krb5.conf={self.kdc_files.krb5_conf}",)
        cmd = self._java(libs, "kafka.Kafka", str(properties), heap=HEAPS[node.roles], extra=extra)
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                cwd=self.home, start_new_session=True)
        log.close()
        return proc.pid

    def _wait_ready(self, state: SandboxState, probe: Callable[[str, dict[str, str]], None], timeout: float,
                    started: float) -> None:
        last: Exception | None = None
        waiting = list(state.brokers)
        while time.monotonic() - started < timeout:
            for n in state.nodes:
                if n.pid and not pid_alive(n.pid):
                    raise SandboxError(f"node {n.node_id} ({n.roles}) exited during start-up; last lines of "
                                       f"{self._paths(n, state)[2]}:\n{self.log_tail(node=n, state=state)}")
            for n in list(waiting):
                if any(port_free(p) for p in n.ports if p != n.controller_port):
                    continue  # every listener of a broker opens at once, after its authorizer has loaded
                try:
                    probe(n.address, state.passwords)
                    waiting.remove(n)
                except Exception as exc:  # not ready yet: authorizer loading, metadata not published
                    last = exc
            if not waiting:
                return
            time.sleep(0.3)
        names = ", ".join(f"broker {n.node_id} at {n.address}" for n in waiting)
        first = waiting[0] if waiting else state.nodes[0]
        raise SandboxError(f"{names} did not answer within {timeout:.0f} s ({last}); last lines of "
                           f"{self._paths(first, state)[2]}:\n{self.log_tail(node=first, state=state)}")

    def _write_contexts(self, state: SandboxState) -> None:
        store = ContextStore.load()
        for user in USERS:
            store.put(Context(
                name=f"local-{user}",
                bootstrap_servers=state.bootstrap,
                properties={"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": CLIENT_MECHANISM,
                            "sasl.username": user, "sasl.password": state.passwords[user]},
                super_users=[SUPER_USER],
                allow_everyone_if_no_acl_found=False,
                managed_by="local",
            ))
        if state.tls:
            files = self.tls_files
            for user in USERS:
                store.put(Context(
                    name=f"local-tls-{user}", bootstrap_servers=state.tls_bootstrap,
                    properties={"security.protocol": "SASL_SSL", "sasl.mechanism": CLIENT_MECHANISM,
                                "sasl.username": user, "sasl.password": state.passwords[user],
                                "ssl.ca.location": str(files.ca_cert)},
                    super_users=[SUPER_USER], allow_everyone_if_no_acl_found=False, managed_by="local"))
            for identity in TLS_IDENTITIES:
                store.put(Context(
                    name=f"local-mtls-{identity}", bootstrap_servers=state.mtls_bootstrap,
                    properties={"security.protocol": "SSL", "ssl.ca.location": str(files.ca_cert),
                                "ssl.certificate.location": str(files.client_pem(identity)),
                                "ssl.key.location": str(files.client_pem(identity))},
                    super_users=[SUPER_USER], allow_everyone_if_no_acl_found=False, managed_by="local"))
        if state.oauth:
            for user in USERS:
                store.put(Context(
                    name=f"local-oauth-{user}", bootstrap_servers=state.oauth_bootstrap,
                    properties={"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "OAUTHBEARER",
                                "sasl.login.callback.handler.class": OAUTH_LOGIN_HANDLER,
                                "sasl.oauthbearer.token.endpoint.url": f"{state.idp_url}/token",
                                "sasl.oauthbearer.client.credentials.client.id": user,
                                "sasl.oauthbearer.client.credentials.client.secret": state.passwords[user]},
                    super_users=[SUPER_USER], allow_everyone_if_no_acl_found=False, managed_by="local"))
        if state.kerberos:
            self._kerberos_contexts(state, store)
        if store.current is None or store.current not in store.contexts:
            store.current = "local-admin"
        store.save()

    def _kerberos_contexts(self, state: SandboxState, store: ContextStore) -> None:
        """local-kerberos-<user> (SASL_PLAINTEXT) and, with --tls, local-kerberos-tls-<user>: each user's keytab,
        and the realm's krb5.conf."""
        from kafkactl.local.kdc import REALM, SERVICE_NAME, jaas

        files = self.kdc_files
        for user in USERS:
            common = {"sasl.mechanism": "GSSAPI", "sasl.kerberos.service.name": SERVICE_NAME,
                      "sasl.jaas.config": jaas(files.keytab(user), f"{user}@{REALM}"),
                      "java.security.krb5.conf": str(files.krb5_conf)}
            store.put(Context(name=f"local-kerberos-{user}", bootstrap_servers=state.krb_bootstrap,
                              properties={"security.protocol": "SASL_PLAINTEXT", **common},
                              super_users=[SUPER_USER], allow_everyone_if_no_acl_found=False, managed_by="local"))
            if state.tls:
                store.put(Context(name=f"local-kerberos-tls-{user}", bootstrap_servers=state.krb_tls_bootstrap,
                                  properties={"security.protocol": "SASL_SSL", **common,
                                              "ssl.ca.location": str(self.tls_files.ca_cert)},
                                  super_users=[SUPER_USER], allow_everyone_if_no_acl_found=False, managed_by="local"))

    def log_tail(self, lines: int = 20, node: NodeState | None = None, state: SandboxState | None = None,
                 path: Path | None = None) -> str:
        from kafkactl.redact import scrub

        path = path or (self._paths(node, state)[2] if node is not None and state is not None else self.log_file)
        try:
            text = path.read_text(errors="replace")
        except FileNotFoundError:
            return "(no log)"
        return scrub("\n".join(text.splitlines()[-lines:]))

    # ---------------------------------------------------------------- nodes
    def node(self, node_id: int) -> NodeState:
        state = self.load_state()
        found = next((n for n in state.nodes if n.node_id == node_id), None) if state else None
        if found is None:
            raise UsageError(f"the sandbox has no node {node_id}")
        return found

    def _stop_nodes(self, state: SandboxState, timeout: float) -> None:
        # brokers first, so that they leave the controllers cleanly
        for group in (state.brokers, [n for n in state.nodes if not n.is_broker]):
            stop([n.pid for n in group if n.pid and self._node_running(n, state)], timeout)
        for n in state.nodes:
            n.pid = None
        if state.idp_pid and self._idp_running(state):
            stop([state.idp_pid], timeout)
        state.idp_pid = None
        if state.kdc_pid and self._kdc_running(state):
            stop([state.kdc_pid], timeout)
        state.kdc_pid = None

    # ---------------------------------------------------------------- down
    def _nodes_by_command_line(self) -> list[int]:
        """The java processes whose arguments name a file in this sandbox's directory (its nodes' properties)."""
        inside = {(str(h) + os.sep).encode() for h in (self.home, self.home.resolve())}
        found = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit() or int(entry.name) == os.getpid():
                continue
            try:
                argv = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            # a node, the identity provider, or the KDC
            ours = argv[0].endswith((b"java", b"krb5kdc")) or b"kafkactl.local.oidc" in argv
            if argv and ours and any(i in a for i in inside for a in argv[1:]):
                found.append(int(entry.name))
        return found

    def down(self, purge: bool = False, timeout: float = 30.0) -> SandboxStatus:
        """Stop every node. Their data (topics, ACLs, users) and contexts stay for the next `up`, unless `purge`."""
        try:
            state = self.load_state()
        except SandboxError:
            if not purge:
                raise
            state = None
            # the state naming the nodes is unreadable: find them by the files of this sandbox they run with
            stop(self._nodes_by_command_line(), timeout)
        if state:
            self._stop_nodes(state, timeout)
            self._save_state(state)
        if purge:
            shutil.rmtree(self.home, ignore_errors=True)
            store = ContextStore.load()
            for name in [n for n, c in store.contexts.items() if c.managed_by == "local"]:
                store.delete(name)
            store.save()
        return self.status()


def _state_words(state: SandboxState, nodes: tuple[NodeStatus, ...]) -> str:
    """Running; stopped (every node by local down); or, node by node, which run, which were stopped by local down
    and which went away without it (killed, or the machine restarted)."""
    pids = {n.node_id: n.pid for n in state.nodes}
    if all(n.running for n in nodes):
        return "running"
    if not any(n.running for n in nodes) and all(pids[n.node_id] is None for n in nodes):
        return "stopped (kafkactl local up starts it again, its data kept)"

    def word(n: NodeStatus) -> str:
        return "running" if n.running else "stopped" if pids[n.node_id] is None else "killed (not by local down)"

    rest = "it again" if len(nodes) == 1 else "the others"
    return "; ".join(f"node {n.node_id} {word(n)}" for n in nodes) + f": kafkactl local up starts {rest}"


def sandbox_contexts(state: SandboxState) -> tuple[str, ...]:
    names = [f"local-{u}" for u in USERS]
    if state.tls:
        names += [f"local-tls-{u}" for u in USERS] + [f"local-mtls-{i}" for i in TLS_IDENTITIES]
    if state.oauth:
        names += [f"local-oauth-{u}" for u in USERS]
    if state.kerberos:
        names += [f"local-kerberos-{u}" for u in USERS]
        names += [f"local-kerberos-tls-{u}" for u in USERS] if state.tls else []
    return tuple(names)


def check_topology(brokers: int | None, controllers: int | None) -> None:
    if brokers is not None and not 1 <= brokers <= MAX_BROKERS:
        raise UsageError(f"--brokers {brokers}: from 1 to {MAX_BROKERS}")
    if controllers is not None and controllers not in CONTROLLER_COUNTS:
        raise UsageError(f"--controllers {controllers}: one of {', '.join(map(str, CONTROLLER_COUNTS))} "
                         "(a quorum of an odd size)")


def _same_topology(state: SandboxState, brokers: int | None, controllers: int | None) -> None:
    """A kept sandbox starts as it was made; asking for another shape is an error, not a silent rebuild."""
    have_b, have_c = len(state.brokers), (None if state.combined else len(state.controllers))
    if (brokers is not None and brokers != have_b) or (controllers is not None and controllers != have_c):
        raise UsageError(f"the kept sandbox has {state.topology()}; run kafkactl local down --purge first to "
                         "start another topology")


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


def _write_private(path: Path, text: str, fresh: bool = False) -> None:
    from kafkactl.privatefile import write_private

    write_private(path, text, fresh=fresh)


@contextlib.contextmanager
def _port_claim() -> Iterator[None]:
    """One sandbox start at a time on this machine from choosing its ports until its nodes listen on them: two
    `local up` at once (two terminals, two test workers) could both find 9092 free, and one broker would fail to
    bind it. A lock file beside the Kafka jars, shared by every user of this cache."""
    import fcntl

    from kafkactl.local.assembly import cache_home

    cache_home().mkdir(parents=True, exist_ok=True)
    with open(cache_home() / "ports.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _up(status: SandboxStatus, **changes: object) -> SandboxUp:
    from dataclasses import asdict

    fields = {k: v for k, v in asdict(status).items() if k != "nodes"}
    return SandboxUp(**fields, nodes=status.nodes, **changes)  # type: ignore[arg-type]


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


def shell_env(user: str | None = None, sandbox: Sandbox | None = None, context: str | None = None) -> SandboxEnv:
    """The environment for one sandbox user on the listener of a sandbox context: `context` (--context), else
    KAFKACTL_CONTEXT or the current context when it is a sandbox's; `user` (--user) picks the user on that
    listener (default: the context's, else admin on the SASL_PLAINTEXT listener)."""
    from kafkactl.errors import NotFoundError

    sandbox = sandbox or Sandbox()
    state = sandbox.load_state()
    if state is None:
        raise NotFoundError("no sandbox: run kafkactl local up")
    store = ContextStore.load()
    name = context or os.environ.get("KAFKACTL_CONTEXT") or store.current or ""
    chosen = store.contexts.get(name)
    kind, who = "", "admin"
    if chosen is not None and chosen.managed_by == "local" and name in sandbox_contexts(state):
        rest = name[len("local-"):]
        kind, _, who = (rest.rpartition("-") if rest.split("-", 1)[0] in ("tls", "mtls", "oauth", "kerberos")
                        else ("", "", rest))
    elif context is not None:
        raise UsageError(f"--context {context}: not a context of the sandbox ({', '.join(sandbox_contexts(state))})")
    user = user or who
    known = TLS_IDENTITIES if kind == "mtls" else USERS
    if user not in known:
        raise UsageError(f"--user {user}: the sandbox users are {', '.join(known)}")
    prefix = f"{kind}-" if kind else ""
    props = sandbox.client_properties(f"{prefix}{user}")
    bootstrap = {"tls": state.tls_bootstrap, "mtls": state.mtls_bootstrap, "oauth": state.oauth_bootstrap,
                 "kerberos": state.krb_bootstrap, "kerberos-tls": state.krb_tls_bootstrap}.get(kind, state.bootstrap)
    variables = [("KAFKACTL_CONTEXT", f"local-{prefix}{user}"), ("KAFKACTL_BOOTSTRAP_SERVERS", bootstrap)]
    if kind == "oauth":  # a Kafka 4 JVM fetches tokens from no URL it is not allowed
        variables.append(("KAFKA_OPTS", f"-Dorg.apache.kafka.sasl.oauthbearer.allowed.urls={state.idp_url}/token"))
    if kind.startswith("kerberos"):  # the realm, for kafkactl and MIT's tools (KRB5_CONFIG) and for a JVM
        krb5_conf = str(sandbox.kdc_files.krb5_conf)
        variables += [("KRB5_CONFIG", krb5_conf), ("KAFKA_OPTS", f"-Djava.security.krb5.conf={krb5_conf}")]
    return SandboxEnv(variables=tuple(variables),
                      kafka_sh_arguments=("--bootstrap-server", bootstrap, "--command-config", str(props)))
