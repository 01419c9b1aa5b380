"""Shared fixtures.

Every test session gets private XDG config/state directories, so the user's own contexts and
sandbox are never touched. The Maven-assembled Kafka jars are shared through ~/.cache.
Broker tests use the `sandbox` fixture: one real broker per session, started by the same code
as `kafkactl local up`, stopped at the end.
"""

from __future__ import annotations

import logging
import os
import random
import shlex
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import pytest

pytest.register_assert_rewrite("tests.markers")
from tests.markers import starts  # noqa: E402 (after the rewrite is registered)

# fails any test whose output holds a piece of a known secret, and scans the logs tests leave (tests/secrets_sweep.py)
# and marks every test by what its fixtures start (tests/markers.py: `@starts`)
pytest_plugins = ["tests.secrets_sweep", "tests.part_times", "tests.markers"]

# the machine's /tmp (an xdist worker inherits the controller's TMPDIR, its session directory: not the one to check)
_TMP_ROOT = Path(os.environ.get("KAFKACTL_TESTS_TMP_ROOT") or tempfile.gettempdir())
os.environ["KAFKACTL_TESTS_TMP_ROOT"] = str(_TMP_ROOT)
_TMP_BEFORE = {e.name for e in os.scandir(_TMP_ROOT)}
_SESSION_HOME = Path(tempfile.mkdtemp(prefix="kafkactl-tests-"))
os.environ["XDG_CONFIG_HOME"] = str(_SESSION_HOME / "config")
os.environ["XDG_STATE_HOME"] = str(_SESSION_HOME / "state")
# every temporary file of the run (pytest's own tmp_path, Python's and the JVMs' scratch: kafkactl gives Spark's
# driver java.io.tmpdir=$TMPDIR) lives in the session's directory, removed at the end
(_SESSION_HOME / "tmp").mkdir(mode=0o700)
# which run a session directory is: another run of the suite beside this one (a second checkout) makes its own
(_SESSION_HOME / "run.pid").write_text(str(os.getpid()))
os.environ["TMPDIR"] = str(_SESSION_HOME / "tmp")
tempfile.tempdir = None
for var in ("KAFKACTL_CONTEXT", "KAFKACTL_BOOTSTRAP_SERVERS", "KAFKACTL_COMMAND_CONFIG", "KAFKACTL_OUTPUT",
            "KAFKACTL_DEBUG", "NO_COLOR"):
    os.environ.pop(var, None)



# what the suite's own processes leave in /tmp when something escapes TMPDIR (a JVM's native libraries, pytest's
# and kafkactl's temporary directories, Spark's scratch): any new entry of these kinds fails the run. Anything else
# new (Python's generic tmpXXXX among them) is listed, not counted: another process on the machine may have made it
_OURS_IN_TMP = ("liblz4-java", "snappy-", "libzstd", "zstd-jni", "pytest-of-", "kafkactl-", "spark-", "blockmgr-",
                "pyspark-", "hadoop-", "jetty-")


def _new_in_tmp() -> list[str]:
    mine = os.getuid()
    out = []
    for e in os.scandir(_TMP_ROOT):
        try:
            if e.name not in _TMP_BEFORE and e.stat(follow_symlinks=False).st_uid == mine:
                out.append(e.name)
        except OSError:
            continue
    return sorted(n for n in out if Path(_TMP_ROOT, n) != _SESSION_HOME and not n.startswith("hsperfdata_")
                  and not _another_run(Path(_TMP_ROOT, n)))


def _another_run(path: Path) -> bool:
    """Whether `path` is the session directory of another run of the suite that is still going."""
    from kafkactl.local.process import pid_alive

    try:
        pid = int((path / "run.pid").read_text())
    except (OSError, ValueError):
        return False
    return path.name.startswith("kafkactl-tests-") and pid != os.getpid() and pid_alive(pid)


def pytest_sessionfinish(session, exitstatus) -> None:  # noqa: ARG001 (pytest's hook signature)
    """A run of the whole suite leaves nothing in /tmp (issue 16): its session directory goes at unconfigure. (An
    xdist worker's /tmp is the controller's session directory, which the controller checks and removes.)"""
    if hasattr(session.config, "workerinput"):
        return
    left = _new_in_tmp()
    _TMP_LEFT.extend(left)
    if any(n.startswith(_OURS_IN_TMP) for n in left):
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


_TMP_LEFT: list[str] = []


def pytest_terminal_summary(terminalreporter) -> None:
    ours = [n for n in _TMP_LEFT if n.startswith(_OURS_IN_TMP)]
    terminalreporter.write_sep("-", "left in /tmp")
    terminalreporter.write_line(f"{len(ours)} entries the suite's processes made"
                                + (f": {', '.join(ours[:20])} (the run fails)" if ours else ""), red=bool(ours))
    others = [n for n in _TMP_LEFT if n not in ours]
    if others:
        terminalreporter.write_line(f"new, of unknown origin (not counted): {', '.join(others[:20])}")


def pytest_unconfigure(config) -> None:  # noqa: ARG001 (pytest's hook signature)
    """The session's contexts and sandbox state go with the session (the secrets sweep has read them by now)."""
    import shutil

    shutil.rmtree(_SESSION_HOME, ignore_errors=True)


USERS = ("admin", "alice", "bob", "carol")
# the differential test's seed (tests/integration/test_authorizer_differential.py): new each run unless given
os.environ.setdefault("KAFKACTL_DIFF_SEED", str(random.SystemRandom().randrange(2**31)))
# the CLI fuzzer's seed (tests/integration/test_cli_fuzz.py) and case count (KAFKACTL_FUZZ_CASES, default 2000)
os.environ.setdefault("KAFKACTL_FUZZ_SEED", str(random.SystemRandom().randrange(2**31)))


def pytest_report_header() -> list[str]:
    return [f"differential seed: KAFKACTL_DIFF_SEED={os.environ['KAFKACTL_DIFF_SEED']}",
            f"CLI fuzzer: KAFKACTL_FUZZ_SEED={os.environ['KAFKACTL_FUZZ_SEED']} "
            f"KAFKACTL_FUZZ_CASES={os.environ.get('KAFKACTL_FUZZ_CASES', '2000')}"]


@dataclass
class Result:
    exit_code: int
    stdout: str
    stderr: str

    @property
    def output(self) -> str:
        return self.stdout + self.stderr


def run(*args: str, input: str | None = None, env: dict[str, str] | None = None) -> Result:
    """Run the real command tree in-process (typer's CliRunner), stdout and stderr kept apart."""
    from typer.testing import CliRunner

    from kafkactl.cli.root import app, close_clients

    loggers = {name: logging.getLogger(name) for name in ("kafkactl", "kafka")}
    saved = {name: (lg.level, list(lg.handlers), lg.propagate) for name, lg in loggers.items()}
    try:
        r = CliRunner().invoke(app, list(args), input=input, env=env, catch_exceptions=False)
    finally:
        close_clients()  # no client thread may outlive the command (hypothesis warns of their use of `random`)
        # --debug sets the client loggers to DEBUG, as for a process of its own: later tests must not inherit that
        # (kafka-python logs its configuration, password included, at DEBUG into pytest's log capture)
        for name, lg in loggers.items():
            level, lg.handlers[:], lg.propagate = saved[name]
            lg.setLevel(level)
    return _swept(Result(r.exit_code, r.stdout, r.stderr))


def _swept(result: Result) -> Result:
    """Every command's output goes through the secrets sweep, whether or not the test prints it."""
    from tests.secrets_sweep import fail_on_leaks

    fail_on_leaks(result.stdout + result.stderr)
    return result


def run_process(*args: str, input: str | None = None, env: dict[str, str] | None = None,
                timeout: float = 120, python: str | None = None) -> Result:
    """Run kafkactl as a separate process, exactly as a shell would (`python`: another interpreter's, such as
    gssapi_python's)."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    p = subprocess.run([python or sys.executable, "-m", "kafkactl", *args], capture_output=True, text=True,
                       input=input, env=full_env, timeout=timeout)
    return _swept(Result(p.returncode, p.stdout, p.stderr))


GSSAPI_VENV = Path(__file__).resolve().parent.parent / ".venv-gssapi"


@pytest.fixture(scope="session")
def gssapi_python() -> str:
    """The interpreter of the environment whose confluent-kafka speaks GSSAPI (scripts/gssapi-client.sh builds it;
    make test does first): PyPI's wheel cannot."""
    python = Path(os.environ.get("KAFKACTL_GSSAPI_VENV") or GSSAPI_VENV) / "bin" / "python"
    if not python.exists():
        pytest.fail(f"no {python}: run bash scripts/gssapi-client.sh (make test does)", pytrace=False)
    return str(python)


def own_xdg(base: Path) -> pytest.MonkeyPatch:
    """Point kafkactl's state and contexts at `base` (a second sandbox of a module's own); `.undo()` when done."""
    mp = pytest.MonkeyPatch()
    mp.setenv("XDG_STATE_HOME", str(base / "state"))
    mp.setenv("XDG_CONFIG_HOME", str(base / "config"))
    return mp


@dataclass
class SandboxInfo:
    bootstrap: str
    passwords: dict[str, str] = field(repr=False)  # a failing test's traceback shows its fixtures' reprs
    pid: int
    home: Path

    def context(self, user: str) -> str:
        return f"local-{user}"

    def as_user(self, user: str, *args: str, **kw) -> Result:
        return run("--context", self.context(user), *args, **kw)

    def kafka_acls(self, *args: str, user: str = "admin") -> subprocess.CompletedProcess:
        """The real kafka-acls.sh: org.apache.kafka.tools.AclCommand from the Maven-assembled jars."""
        from kafkactl.local.assembly import ensure_tools, java_command

        cmd = java_command(ensure_tools(), "org.apache.kafka.tools.AclCommand", "--bootstrap-server", self.bootstrap,
                           "--command-config", str(self.home / f"client-{user}.properties"), *args,
                           extra=(f"-Dlog4j2.configurationFile={self.home / 'log4j2.properties'}",
                                  "-XX:TieredStopAtLevel=1"))
        return subprocess.run(cmd, capture_output=True, text=True, timeout=120)

    def gateway(self, user: str):
        """A gateway as `user`, closed when the test module ends (see close_module_gateways)."""
        from kafkactl.gateway import Gateway
        from kafkactl.profiles import Selection, resolve

        gw = Gateway(resolve(Selection(context=self.context(user))))
        _OPEN_GATEWAYS.append(gw)
        return gw


_OPEN_GATEWAYS: list = []


@pytest.fixture(scope="module", autouse=True)
def close_module_gateways():
    """Gateways opened by a module's tests and fixtures are closed after its last teardown: their client threads
    would otherwise run on under later modules."""
    yield
    while _OPEN_GATEWAYS:
        _OPEN_GATEWAYS.pop().close()


@pytest.fixture(scope="session")
@starts("broker")
def sandbox() -> SandboxInfo:
    from kafkactl.local.sandbox import Sandbox

    sb = Sandbox()
    # also the SASL_SSL and mTLS listeners (local-tls-*, local-mtls-*), the OAUTHBEARER listener with its
    # identity provider (local-oauth-*), and the GSSAPI listeners with their KDC (local-kerberos-*)
    status = sb.up(timeout=180, tls=True, oauth=True, kerberos=True)
    state = sb.load_state()
    assert state is not None and status.running
    info = SandboxInfo(bootstrap=status.bootstrap_servers, passwords=dict(state.passwords), pid=state.pid,
                       home=sb.home)
    from tests.secrets_sweep import register

    for user, password in state.passwords.items():
        register(password, f"the sandbox password of {user}")
    register(str(state.keystore_password), "the sandbox brokers' keystore password")
    from tests.secrets_sweep import register_sandbox

    register_sandbox(sb.state_file)  # (and the identity provider's signing key, the keytabs' keys)
    # A cluster in use is never empty. Without this ACL a test run alone (the first to create ACLs) would hold
    # every ACL of the cluster, and the every-ACL guard (issue 13) rightly asks for --all to delete them.
    from kafkactl.acl.model import AclBinding, AclOperation, PatternType, Permission, ResourceType
    from kafkactl.gateway import Gateway
    from kafkactl.profiles import Selection, resolve

    gw = Gateway(resolve(Selection(context="local-admin")))
    try:
        gw.create_acls([AclBinding(ResourceType.TOPIC, "tests.bystander", PatternType.LITERAL, "User:bystander", "*",
                                   AclOperation.READ, Permission.ALLOW)])
    finally:
        gw.close()
    yield info
    sb.down(purge=True)  # (the secrets sweep reads the sandbox's logs first)


@pytest.fixture
@starts("broker", "tls")
def tls_sandbox(sandbox) -> SandboxInfo:
    """The session's sandbox, for a test that connects through its TLS or mTLS listeners."""
    return sandbox


@pytest.fixture
@starts("spark")
def spark() -> str:
    """For a test that runs Spark in local mode (a plan or apply with --spark, a session of its own): the master
    it runs on."""
    return "local[*]"


@pytest.fixture
@starts("broker")
def own_sandbox_env(tmp_path) -> dict[str, str]:
    """The environment of a sandbox of the test's own, started by the test (`kafkactl local up` in a process of its
    own): XDG directories under its tmp_path, so the session's contexts and sandbox are left alone."""
    return {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state"), "XDG_CONFIG_HOME": str(tmp_path / "config")}


def shell_join(args) -> str:
    return " ".join(shlex.quote(a) for a in args)
