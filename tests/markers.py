"""A pytest plugin: every test is marked by what it starts, from its fixtures, and a test that starts something
it is not marked for fails.

A fixture that starts something says so with `@starts(...)` under its `@pytest.fixture`; every test that uses it,
directly or through other fixtures, gets those markers, so `pytest -m "not spark and not versions"` selects tests by
what a run will start, and `make check` runs every test that starts nothing. The markers are KINDS' keys.

What a test starts is also watched while it runs: every process the test process starts through `subprocess` (a
broker's JVM, `kafkactl local up`, javac, Spark's launcher, any java; through env, timeout, nice or a shell's -c
too), every in-process sandbox start (its brokers, controllers and Kafka version) and every Spark session asked
for is checked against the running test's markers. A test that starts a kind it is not marked for fails, naming
the kind and how to declare it: a forgotten `@starts` shows in the first run, and never lets a sandbox into `make
check`. Not seen: what the processes a test starts start in turn (`kafkactl acls plan --spark` in a subprocess),
and pexpect's spawns; the fixtures of such tests must say what they start.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from typing import Any

import pytest

KINDS = {
    "broker": "starts or uses a real Kafka broker (the session's sandbox or a sandbox of its own)",
    "multi_broker": "starts a sandbox of several brokers or controllers",
    "tls": "connects through the sandbox's TLS or mTLS listeners",
    "versions": "starts brokers of the older Kafka versions the sandbox runs",
    "spark": "starts Spark: local mode, a standalone cluster or a Spark Connect server",
    "java_clients": "compiles and runs the real Java clients (Kafka Streams, Connect, MirrorMaker 2)",
    "jvm": "runs a JVM without a broker (java or javac: Kafka's own classes in the differential tests)",
}
# what `make check` leaves out: every kind (a test that starts nothing needs no broker, JVM or Spark)
STARTS_NOTHING = "not (" + " or ".join(KINDS) + ")"
# the modules that take longest, longest first (a fresh-clone run on 2 cores, 2026-11-28)
LONGEST_FIRST = tuple(f"tests/integration/{name}.py" for name in (
    "test_acl_presets", "test_spark_cluster", "test_multi_broker", "test_versions", "test_desired_state",
    "test_cli_fuzz", "test_config_state", "test_acls_why"))
_ATTRIBUTE = "_kafkactl_starts"
_current: dict[str, Any] = {"item": None}
_violations: list[str] = []


def starts(*kinds: str) -> Callable:
    """Declare what a fixture starts (put it under @pytest.fixture): its tests get these markers."""
    unknown = [k for k in kinds if k not in KINDS]
    if unknown:
        raise ValueError(f"@starts: {', '.join(unknown)} not among {', '.join(KINDS)}")

    def mark(fixture: Callable) -> Callable:
        if type(fixture).__name__ == "FixtureFunctionDefinition":
            raise TypeError(f"@starts goes under @pytest.fixture, next to the function ({fixture.__name__})")
        setattr(fixture, _ATTRIBUTE, tuple(kinds))
        return fixture

    return mark


def kinds_of(item: pytest.Item) -> set[str]:
    """The kinds the fixtures of `item` (its whole closure) declare."""
    info = getattr(item, "_fixtureinfo", None)
    found: set[str] = set()
    for name in getattr(item, "fixturenames", ()):
        for fixturedef in (info.name2fixturedefs.get(name, ()) if info is not None else ()):
            found.update(getattr(fixturedef.func, _ATTRIBUTE, ()))
    return found


def pytest_configure(config: pytest.Config) -> None:
    for kind, meaning in KINDS.items():
        config.addinivalue_line("markers", f"{kind}: {meaning} (set from the test's fixtures, tests/markers.py)")
    _watch_starts()


@pytest.hookimpl(tryfirst=True)  # before -m deselects by them
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    starting: set[str] = set()
    for item in items:
        kinds = kinds_of(item)
        for kind in sorted(kinds):
            item.add_marker(kind)
        if kinds or any(m.name in KINDS for m in item.iter_markers()):
            starting.add(_module(item))
    for item in items:
        if _module(item) in starting:
            # with pytest-xdist's --dist loadgroup a module that starts something runs whole on one worker, its
            # module-scoped sandboxes, topics and principals made once (one group per parameter of such a
            # fixture: each Kafka version's sandbox can go to another worker); a test elsewhere goes anywhere
            item.add_marker(pytest.mark.xdist_group(_module(item) + _own_parameters(item)))
    # the longest modules first (measured, LONGEST_FIRST), then the other modules that start something, then the
    # rest: two workers finish together when the short tests fill in at the end
    order = {name: i for i, name in enumerate(LONGEST_FIRST)}

    def rank(item: pytest.Item) -> tuple[int, int]:
        if _module(item) in order:
            return (0, order[_module(item)])
        return (1, 0) if _module(item) in starting else (2, 0)

    items[:] = [item for _, item in sorted(enumerate(items), key=lambda pair: (rank(pair[1]), pair[0]))]


# after pytest-xdist has put each test's group into its id
@pytest.hookimpl(trylast=True, specname="pytest_collection_modifyitems")
def pytest_check_groups_hold(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under --dist loadgroup a worker's test ids carry their group (`…@group`): the scheduler hands out whole
    groups by it. An id without it (pytest-xdist writing where a newer pytest no longer reads) would scatter a
    module's tests over both workers, each starting its own sandbox: every test then fails, saying why (a
    worker's own usage error reaches the controller only as an internal error without its message)."""
    if not config.getoption("loadgroup", False):
        return
    lost = [item.nodeid for item in items if item.get_closest_marker("xdist_group") and "@" not in item.nodeid]
    if lost:
        _groups_lost.append(f"--dist loadgroup lost the group of {len(lost)} tests (first: {lost[0]}): pytest and "
                            "pytest-xdist disagree on where a test's id lives; see the pin in pyproject.toml")


_groups_lost: list[str] = []


def pytest_runtest_setup(item: pytest.Item) -> None:  # noqa: ARG001 (pytest's hook signature)
    if _groups_lost:
        pytest.fail(_groups_lost[0], pytrace=False)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):  # noqa: ARG001 (pytest's hook signature)
    _current["item"] = item
    try:
        return (yield)
    finally:
        _current["item"] = None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):  # noqa: ARG001 (pytest's hook signature)
    report = yield
    if _violations and call.when in ("setup", "call", "teardown"):
        said = str(report.longrepr or "")
        lines = [line for line in dict.fromkeys(_violations) if line not in said]  # (pytest.fail's, once)
        _violations.clear()
        report.outcome = "failed"
        if lines:
            report.longrepr = "\n".join(lines) + (f"\n\n{report.longrepr}" if report.longrepr else "")
    return report


def _module(item: pytest.Item) -> str:
    return item.nodeid.split("::", 1)[0]


def _own_parameters(item: pytest.Item) -> str:
    """The parameters of the module-scoped fixtures that start something, as a group name's suffix."""
    params = getattr(getattr(item, "callspec", None), "params", {})
    info = getattr(item, "_fixtureinfo", None)
    own = [f"{name}={params[name]}" for name in sorted(params) if info is not None
           for fixturedef in info.name2fixturedefs.get(name, ())[-1:]
           if fixturedef.scope == "module" and getattr(fixturedef.func, _ATTRIBUTE, ())]
    return f"[{','.join(own)}]" if own else ""


# wrappers that run another program, and their options that take a value
_WRAPPERS = {"env": {"-u", "--unset", "-C", "--chdir", "-S", "--split-string"}, "timeout": {"-s", "--signal", "-k",
             "--kill-after"}, "nice": {"-n", "--adjustment"}, "nohup": set(), "setsid": set(), "exec": set(),
             "stdbuf": {"-i", "-o", "-e"}, "ionice": {"-c", "-n", "-p"}}
_SHELLS = {"sh", "bash", "dash", "zsh"}


def _programs(words: list[str]) -> list[list[str]]:
    """The command lines of the programs `words` runs: itself, or what a wrapper (env, timeout, nice ...) or a
    shell's -c string (each of its commands) runs."""
    import shlex

    if not words:
        return []
    base = words[0].rsplit("/", 1)[-1]
    if base in _WRAPPERS:
        rest, takes = words[1:], _WRAPPERS[base]
        while rest and (rest[0].startswith("-") or (base == "env" and "=" in rest[0])):
            rest = rest[2:] if rest[0] in takes else rest[1:]
        if base == "timeout" and rest:
            rest = rest[1:]  # its duration
        return _programs(rest)
    if base in _SHELLS and "-c" in words[1:]:
        at = words.index("-c") + 1
        script = words[at] if at < len(words) else ""
        try:
            tokens = shlex.split(script.replace("\n", " ; "), posix=True)
        except ValueError:
            tokens = script.split()
        commands: list[list[str]] = [[]]
        for token in tokens:
            if token in (";", "&&", "||", "|", "&") or token.endswith(";"):
                if token.endswith(";") and token != ";":
                    commands[-1].append(token[:-1])
                commands.append([])
            else:
                commands[-1].append(token)
        return [p for c in commands for p in _programs(c)]
    if "=" in words[0] and "/" not in words[0].split("=", 1)[0]:
        return _programs(words[1:])  # VAR=value before the program (a shell string)
    return [words]


def _needs(argv: list[str]) -> list[str]:
    """The kinds a process with this command line starts; ["jvm"] is met by any kind that runs a JVM (a broker's
    test, a Java client's, Spark's may run a Kafka tool or javac too)."""
    needs: list[str] = []
    for words in _programs([str(a) for a in argv]):
        needs += [k for k in _needs_of(words) if k not in needs]
    return needs


def _needs_of(words: list[str]) -> list[str]:
    line = " ".join(words)
    if "kafkactl" in line and "local" in words:
        rest = words[words.index("local") + 1:]
        if rest[:1] == ["up"]:
            needs = ["broker"]
            if any(_option_value(rest, o) not in (None, "1") for o in ("--brokers", "--controllers")):
                needs.append("multi_broker")
            if _option_value(rest, "--kafka-version") not in (None, _default_version()):
                needs.append("versions")
            return needs
        if rest[:2] == ["spark", "up"]:
            return ["spark"]
    if "kafka.Kafka" in words:
        return ["broker"]
    base = words[0].rsplit("/", 1)[-1] if words else ""
    if base in ("spark-submit", "spark-class") or "org.apache.spark" in line or "spark-submit" in line or (
            base.endswith(".sh") and "spark" in line) or any("/pyspark/sbin/" in w for w in words):
        return ["spark"]
    if base in ("java", "javac"):  # (a version check starts nothing)
        return [] if any(w in ("-version", "--version") for w in words) else ["jvm"]
    return []


def _option_value(words: list[str], option: str) -> str | None:
    for i, w in enumerate(words):
        if w == option and i + 1 < len(words):
            return words[i + 1]
        if w.startswith(option + "="):
            return w.split("=", 1)[1]
    return None


def _default_version() -> str:
    from kafkactl.local.assembly import KAFKA_VERSION

    return KAFKA_VERSION


def _check(needs: list[str], what: str) -> None:
    item = _current["item"]
    if item is None or not needs:
        return
    have = {m.name for m in item.iter_markers() if m.name in KINDS}
    missing = [k for k in needs if k not in have and not (k == "jvm" and have & {"broker", "java_clients", "spark"})]
    if missing:
        message = (f"{item.nodeid} starts {what} but is not marked {', '.join(missing)}: put "
                   f"@starts({', '.join(repr(k) for k in needs)}) under the @pytest.fixture of the fixture that starts "
                   f"it (from tests.markers import starts), or @pytest.mark.{missing[0]} on the test when its own "
                   "body does")
        _violations.append(message)
        pytest.fail(message, pytrace=False)


def _watch_starts() -> None:
    """Wrap process creation and the in-process sandbox start, once per process."""
    if getattr(subprocess.Popen.__init__, "_kafkactl_watched", False):
        return
    init = subprocess.Popen.__init__

    def watched_init(self, args, *a, **kw):
        import os
        import shlex

        argv = [args] if isinstance(args, (str, bytes, os.PathLike)) else list(args)
        argv = [os.fsdecode(x) if isinstance(x, (bytes, os.PathLike)) else str(x) for x in argv]
        if kw.get("shell") and argv:
            try:
                argv = shlex.split(argv[0])
            except ValueError:  # (unbalanced quotes: the shell's error to give)
                argv = argv[0].split()
        if kw.get("executable"):
            argv = [os.fsdecode(kw["executable"]), *argv[1:]]
        _check(_needs(argv), f"`{_short(argv)}`")
        return init(self, args, *a, **kw)

    watched_init._kafkactl_watched = True  # type: ignore[attr-defined]
    subprocess.Popen.__init__ = watched_init  # type: ignore[method-assign]

    from kafkactl.local import sandbox as sandbox_module

    up = sandbox_module.Sandbox.up

    def watched_up(self, *a, **kw):
        needs = ["broker"]
        if (kw.get("brokers") or 1) > 1 or kw.get("controllers"):
            needs.append("multi_broker")
        if kw.get("kafka_version") not in (None, sandbox_module.KAFKA_VERSION):
            needs.append("versions")
        _check(needs, f"a sandbox ({self.home})")
        return up(self, *a, **kw)

    sandbox_module.Sandbox.up = watched_up  # type: ignore[method-assign]

    # a Spark session, new or reused: a later test that finds one cached must say it runs Spark too
    from kafkactl.desired import spark as spark_module

    session = spark_module.session

    def watched_session(*a, **kw):
        _check(["spark"], "a Spark session")
        return session(*a, **kw)

    spark_module.session = watched_session


def _short(argv: list) -> str:
    text = " ".join(str(a) for a in argv)
    return text if len(text) <= 120 else text[:117] + "..."
