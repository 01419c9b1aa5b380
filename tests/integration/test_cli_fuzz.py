"""The CLI fuzzer: every command of the tree, argv built from its real options with hostile values.

For each case: the exit code is one of the documented ones, nothing crashed (no traceback, no "unexpected"), and
when the command exits 2 (bad input) the cluster is exactly as before (ACLs, topics, every config resource's
dynamic values, quotas, SCRAM users). The cases run in-process against a sandbox of their own, so whatever a
valid-but-odd command creates stays there. KAFKACTL_FUZZ_SEED replays a run (the seed is in pytest's header);
KAFKACTL_FUZZ_CASES sets how many cases (default 2000).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import click
import pytest
from hypothesis import HealthCheck, given, seed, settings, strategies as st

from tests.conftest import run
from tests.integration.cli_tree import MINIMAL_ARGS, STATE_YAML, leaf_commands
from tests.markers import starts
from tests.secrets_sweep import register, sweep_tree

CASES = int(os.environ.get("KAFKACTL_FUZZ_CASES", "2000"))
SEED = int(os.environ["KAFKACTL_FUZZ_SEED"])
DOCUMENTED = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 130, 141}
# never fuzzed: starting or stopping a sandbox, Spark sessions (seconds each), and the guard's own escape hatch
SKIP_COMMANDS = {"local up", "local down", "local spark up", "local spark down"}
SKIP_OPTIONS = {"--all", "--spark", "--spark-master", "--spark-remote", "--help", "-h", "--version"}
# commands that act on local files only run against an empty configuration of their own
LOCAL_NOUNS = ("context", "local", "completion")

HOSTILE = [
    "", " ", "\t", "\n", "ü", "日本語", "\u202e", "\x00", "a\x00b", "\x1b[31mred", "a\nb", "\x7f",
    "x" * 100_000, "-1", "0", "99999999999999999999", "-99999999999999999999", "nan", "inf", "-inf", "1e400",
    "0x10", "1_000", "$(id)", "; rm -rf ~", "`id`", "' OR 1=1 --", "*", "User:*", "User:", ":", "User::x",
    "Group:g", "..", ".", "%s%n", "{}", "[", "]", "=", ",", ",,", "a=b", "=5", "a=[1,2", "k=[a,b]",
    "SCRAM-SHA-512=[password=abc,def]", "SCRAM-SHA-512=[secret]", "SCRAM-SHA-256=[iterations=1,password=p]",
    "../outside", "nonexistent.yaml", "state.yaml", "garbage.jsonl", "127.0.0.1:1", "host:99999", "json", "yaml",
]
PLAUSIBLE = {
    "topic": ["fuzz.t", "fuzz.", "*"], "group": ["fuzz.g", "*"], "principal": ["User:fuzz-a", "User:*", "User:admin"],
    "operation": ["Read", "Write", "All", "IdempotentWrite", "Any", "Describe"], "host": ["*", "10.0.0.1"],
    "pattern": ["literal", "prefixed", "any", "match"], "permission": ["allow", "deny"],
    "config": ["retention.ms=60000", "cleanup.policy=[compact,delete]", "retention.ms"],
    "names": ["fuzz.t", "fuzz.gone"], "name": ["fuzz.t", "fuzz-ctx"], "context": ["local-admin", "nope"],
    "output": ["json", "yaml", "csv", "plain", "table"], "timeout": ["5", "0.5"], "files": ["state.yaml"],
}


def _values_for(p: click.Parameter) -> st.SearchStrategy[str]:
    pool = list(HOSTILE)
    for key, values in PLAUSIBLE.items():
        if key in (p.name or ""):
            pool += values * 3  # often something that gets past parsing, so the deeper paths run too
    if isinstance(p.type, click.Choice):
        pool += [str(c) for c in p.type.choices] * 3
    if isinstance(p.type, (click.types.IntParamType, click.types.FloatParamType)):
        pool += ["1", "3", "2147483648", "-5", "1.5"]
    return st.sampled_from(pool)


COMMANDS: dict[str, click.Command] = {path: cmd for path, cmd in leaf_commands() if path not in SKIP_COMMANDS}


@st.composite
def invocations(draw, paths):
    """(path, argv) for one of `paths` (by name: a failure's report names the strategy, not the command tree)."""
    path = draw(st.sampled_from(paths))
    cmd = COMMANDS[path]
    argv: list[str] = []
    if path in MINIMAL_ARGS and draw(st.booleans()):
        argv += [a.replace("{state}", "state.yaml") for a in MINIMAL_ARGS[path]]
    params = [p for p in cmd.params if not set(p.opts) & SKIP_OPTIONS]
    for p in draw(st.lists(st.sampled_from(params), max_size=5)) if params else []:
        if isinstance(p, click.Option):
            opt = draw(st.sampled_from(p.opts + p.secondary_opts))
            argv += [opt] if p.is_flag or p.count else [opt, draw(_values_for(p))]
        else:
            argv.append(draw(_values_for(p)))
    if draw(st.integers(0, 5)) == 0:  # a global option, before or after the command
        opt = draw(st.sampled_from(["-o", "--timeout", "-b", "--context", "--command-config"]))
        glob = [opt, draw(st.sampled_from(HOSTILE + PLAUSIBLE["output"] + PLAUSIBLE["timeout"]))]
        argv = argv + glob if draw(st.booleans()) else glob + argv
    return path, argv


def _snapshot(gw) -> str:
    """Everything a command could change on the cluster, as one comparable text."""
    from kafkactl.acl.model import AclFilter

    acls = sorted(str(b) for b in gw.describe_acls(AclFilter()))
    # internal topics appear when the broker decides (the first group lookup creates __consumer_offsets)
    topics = {t.name: len(t.partitions) for t in gw.topics() if not t.name.startswith("__")}
    _, _, _, resources = gw.list_config_resources([])
    resources = sorted({r for r in resources if not r[1].startswith("__")} | {(2, t) for t in topics}
                       | {(4, ""), (4, "1"), (8, "1")})
    configs = {f"{t}:{n}": sorted((c.name, c.value) for c in v
                                  if c.source not in ("DEFAULT_CONFIG", "STATIC_BROKER_CONFIG"))
               if isinstance(v, list) else type(v).__name__ for (t, n), v in gw.describe_configs(resources).items()}
    quotas = [str(q) for q in gw.describe_quotas([("user", 2, None)], strict=False)]
    quotas += [str(q) for q in gw.describe_quotas([("client-id", 2, None)], strict=False)]
    quotas += [str(q) for q in gw.describe_quotas([("ip", 2, None)], strict=False)]
    scram = {u: v if isinstance(v, list) else type(v).__name__ for u, v in gw.describe_scram(None).items()}
    return json.dumps({"acls": acls, "topics": topics, "configs": configs, "quotas": sorted(quotas),
                       "scram": sorted(map(str, scram.items()))}, sort_keys=True, default=str)


@pytest.fixture(scope="module")
@starts("broker")
def scratch(tmp_path_factory):
    """A sandbox of the fuzzer's own (`kafkactl local up` under other XDG directories), a working directory
    with the files the values name, and an empty configuration for the local-only nouns."""
    home = tmp_path_factory.mktemp("fuzz")
    env = {"XDG_STATE_HOME": str(home / "state"), "XDG_CONFIG_HOME": str(home / "config")}
    empty = {"XDG_STATE_HOME": str(home / "empty-state"), "XDG_CONFIG_HOME": str(home / "empty-config")}
    p = subprocess.run([sys.executable, "-m", "kafkactl", "local", "up"], capture_output=True, text=True,
                       env={**os.environ, **env}, timeout=300)
    assert p.returncode == 0, p.stderr
    work = home / "work"
    work.mkdir()
    (work / "state.yaml").write_text(STATE_YAML)
    (work / "garbage.jsonl").write_bytes(b'{"kind": "scope", "principalPrefixes": "User:h-"}\n\xff\xfe{]\n')
    from kafkactl.gateway import Gateway
    from kafkactl.local.sandbox import Sandbox
    from kafkactl.profiles import Profile
    from kafkactl.redact import Secret

    state = Sandbox(home / "state" / "kafkactl" / "local").load_state()
    assert state is not None
    for user, password in state.passwords.items():
        register(password, f"the fuzz sandbox password of {user}")
    gw = Gateway(Profile(bootstrap_servers=state.bootstrap, security_protocol="SASL_PLAINTEXT",
                         sasl_mechanism="SCRAM-SHA-512", username="admin", password=Secret(state.passwords["admin"])))
    cwd = os.getcwd()
    os.chdir(work)
    try:
        yield env, empty, gw
    finally:
        os.chdir(cwd)
        gw.close()
        sweep_tree(home, "the fuzz sandbox and working directory")
        subprocess.run([sys.executable, "-m", "kafkactl", "local", "down", "--purge"], capture_output=True,
                       env={**os.environ, **env}, timeout=120)


STATS: dict = {"cases": 0, "exit": {}, "settled": None}


def _settled(gw) -> str:
    """A snapshot that two reads in a row agree on: what the last command changed has reached the broker's
    metadata (a create returns when the controller has it; the broker's cache follows a moment later)."""
    import time

    previous = _snapshot(gw)
    for _ in range(40):
        time.sleep(0.05)
        current = _snapshot(gw)
        if current == previous:
            return current
        previous = current
    return previous


def _forget_fuzz_values_as_secrets() -> None:
    """A value one case gave as a password (kafkactl registers it, so a message repeating it is masked) is given
    by a later case to --topic, say, and rightly shown back: the fuzzer's own values are public. What a case
    registers stays known while its own output is swept."""
    from kafkactl import redact

    public = [*HOSTILE, *(v for values in PLAUSIBLE.values() for v in values)]
    with redact._lock:
        redact._known.difference_update({v for v in redact._known if any(v in p for p in public)})


@seed(SEED)
@settings(max_examples=CASES, deadline=None, database=None, derandomize=False,
          suppress_health_check=list(HealthCheck))
@given(case=invocations(sorted(COMMANDS)))
def test_hostile_argv_never_crashes_and_bad_input_changes_nothing(scratch, case):
    env, empty, gw = scratch
    path, argv = case
    _forget_fuzz_values_as_secrets()
    local = path.split()[0] in LOCAL_NOUNS
    before = None if local else (STATS["settled"] or _settled(gw))
    STATS["settled"] = None
    r = run(*(["--context", "local-admin"] if not local else []), *path.split(), *argv,
            env=empty if local else env, input="")
    STATS["cases"] += 1
    STATS["exit"][r.exit_code] = STATS["exit"].get(r.exit_code, 0) + 1
    if r.exit_code == 1:
        STATS.setdefault("errors", set()).add(r.stderr.splitlines()[0][:160] if r.stderr else "")
    shown = f"kafkactl {path} {[a[:60] for a in argv]} -> {r.exit_code}: {r.stderr[-400:]!r}"
    assert r.exit_code in DOCUMENTED, shown
    assert "Traceback" not in r.output and "error: unexpected " not in r.stderr, shown
    # 8 and 9 are answers (denied, findings), and plan --detailed-exitcode exits 2 for "changes"
    if r.exit_code in (1, 3, 4, 5, 6, 7) or (r.exit_code == 2 and "--detailed-exitcode" not in argv):
        assert [line for line in r.stderr.splitlines() if line.startswith("error:")], f"no error line: {shown}"
    if r.exit_code == 2 and before is not None:
        after = _snapshot(gw)
        assert after == before, f"bad input changed the cluster: {shown}"
        STATS["settled"] = after  # unchanged: the next case starts from it


@pytest.mark.usefixtures("scratch")
def test_fuzzer_report():  # (after the fuzzer, in its module's group)
    """How many cases ran and how they ended (printed for the closing note; fails if the fuzzer did not run)."""
    print(f"CLI fuzzer: {STATS['cases']} cases, seed {SEED}, exit codes {dict(sorted(STATS['exit'].items()))}")
    for line in sorted(STATS.get("errors", ())):
        print(f"  exit 1: {line}")
    assert STATS["cases"] >= min(CASES, 100)


def test_a_delete_that_names_resources_yet_takes_every_acl_needs_all(scratch):
    """Adversary pass on issue 13: `--topic X --resource-pattern-type match` on a cluster whose ACLs all cover X
    emptied the cluster without --all (the whole-cluster check ran only for filters naming no resource). The
    fuzzer's own cluster is emptied first, so this test holds the cluster's every ACL."""
    env, _, gw = scratch
    from tests.integration.acl_helpers import snapshot

    assert run("--context", "local-admin", "acls", "delete", "--all", "--yes", env=env).exit_code == 0
    for args in (["--topic", "fzm"], ["--topic", "fz", "--resource-pattern-type", "prefixed"], ["--topic", "*"]):
        assert run("--context", "local-admin", "acls", "create", "--allow-principal", "User:fz", "--operation", "Read",
                   *args, env=env).exit_code == 0
    before = snapshot(gw)
    assert len(before) == 3
    for spelling in (["--topic", "fzm", "--resource-pattern-type", "match"], ["--principal", "User:fz"],
                     ["--topic", "fzm", "--topic", "fz", "--topic", "*", "--resource-pattern-type", "any"]):
        r = run("--context", "local-admin", "acls", "delete", *spelling, "--yes", env=env)
        assert r.exit_code == 2 and "match every ACL of the cluster (3)" in r.stderr, (spelling, r.output)
        assert snapshot(gw) == before
    # one of three: no --all needed
    r = run("--context", "local-admin", "acls", "delete", "--topic", "fzm", "--yes", env=env)
    assert r.exit_code == 0 and len(snapshot(gw)) == 2, r.output
    assert run("--context", "local-admin", "acls", "delete", "--principal", "User:fz", "--all", "--yes",
               env=env).exit_code == 0
    assert not snapshot(gw)
    # the cluster's only ACL, named whole (resource, pattern, principal, host, operation, permission): exactly what
    # was written, no --all needed; one field less and it is a filter that matches every ACL again
    one = ["--topic", "fzm", "--allow-principal", "User:fz", "--allow-host", "10.0.0.9", "--operation", "Read"]
    assert run("--context", "local-admin", "acls", "create", *one, env=env).exit_code == 0
    r = run("--context", "local-admin", "acls", "delete", "--topic", "fzm", "--principal", "User:fz", "--yes", env=env)
    assert r.exit_code == 2 and "match every ACL of the cluster (1)" in r.stderr, r.output
    r = run("--context", "local-admin", "acls", "delete", *one, "--yes", env=env)
    assert r.exit_code == 0 and not snapshot(gw), r.output
