"""A real bash on a pseudo-terminal (pexpect): TAB completion, delete prompts, Ctrl-C, and the non-TTY refusal."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pexpect
import pytest

from kafkactl.exitcodes import ExitCode
from tests.integration.acl_helpers import snapshot, token

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
PROMPT = "KPROMPT> "


class Shell:
    def __init__(self, child: pexpect.spawn) -> None:
        self.child = child

    def run(self, line: str, timeout: float = 60) -> str:
        """Run a command line; its output (echo excluded)."""
        self.child.sendline(line)
        self.child.expect_exact(line[-20:])
        self.child.expect_exact(PROMPT, timeout=timeout)
        return self.child.before

    def status(self) -> int:
        out = self.run("echo rc=$?")
        return int(out.strip().split("rc=")[-1].split()[0])

    def tab(self, typed: str, expect: str, timeout: float = 10) -> None:
        """Type, press TAB, and wait for the line to read `expect`."""
        self.child.send(typed + "\t")
        self.child.expect_exact(expect, timeout=timeout)


@pytest.fixture
def shell(sandbox, tmp_path):  # noqa: ARG001 (the fixture starts the broker)
    env = {**os.environ, "PATH": f"{BIN}:{os.environ['PATH']}", "XDG_CACHE_HOME": str(tmp_path / "cache"),
           "TERM": "dumb", "INPUTRC": "/dev/null", "HISTFILE": "/dev/null"}
    child = pexpect.spawn("bash", ["--norc", "--noprofile"], env=env, encoding="utf-8", timeout=30,
                          dimensions=(50, 250), cwd=str(tmp_path))
    child.sendline(f"source {ROOT / 'completions' / 'kafkactl.bash'}; bind 'set show-all-if-ambiguous on'; "
                   f"PS1='K''PROMPT> '")
    child.expect_exact(PROMPT)
    yield Shell(child)
    child.close(force=True)


def ok(args: list[str]) -> subprocess.CompletedProcess:
    p = subprocess.run([str(BIN / "kafkactl"), *args], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return p


def test_tab_completes_subcommands_and_options(shell):
    shell.tab("kafkactl ac", "kafkactl acls ")
    shell.tab("lis", "list ")  # what TAB added to the line ("li" is list or lint)
    shell.tab("--pr", "--principal ")
    shell.child.send("\x15")  # Ctrl-U: clear the line
    shell.tab("kafkactl acls create --group g --operation Des", "--operation Describe")
    shell.child.send("\x15")
    shell.tab("kafkactl acls list -o ya", "-o yaml ")
    shell.child.send("\x15")
    assert shell.run("true") is not None


def test_tab_completes_live_topic_names_and_the_command_runs(shell):
    t = token()
    for n in (f"pexp.{t}.orders", f"pexp.{t}.payments"):
        ok(["--context", "local-admin", "topics", "create", n, "--partitions", "1"])
    shell.tab(f"kafkactl --context local-admin topics describe pexp.{t}.o", f"pexp.{t}.orders ")
    out = shell.run("-o json")
    assert json.loads(out[out.index("["):])[0]["name"] == f"pexp.{t}.orders"
    # two candidates: TAB lists both
    shell.tab(f"kafkactl --context local-admin topics describe pexp.{t}.", f"pexp.{t}.payments")
    shell.child.send("\x15")
    shell.run("true")


def test_tab_completes_principals_across_the_colon(shell):
    t = token()
    ok(["--context", "local-admin", "acls", "create", "--allow-principal", f"User:{t}-svc", "--operation", "Read",
        "--topic", t])
    shell.tab(f"kafkactl --context local-admin acls list --principal User:{t}-s", f"--principal User:{t}-svc ")
    out = shell.run("-o csv")
    assert f"User:{t}-svc" in out and "TOPIC" in out


def test_tab_completes_a_certificate_name_escaped_and_the_command_runs(shell):
    """Issue 15: a DN principal (spaces, an escaped comma) goes in shell-escaped, so the line runs as it reads."""
    t = token()
    dn = f"User:CN=dn{t} one,OU=eng,O=Corp\\, Inc"
    ok(["--context", "local-admin", "acls", "create", "--allow-principal", dn, "--operation", "Read", "--topic", t])
    # bash's printf %q escapes the spaces, the backslash and the commas: the line reads back as the name
    shell.tab(f"kafkactl --context local-admin acls list --principal User:CN=dn{t}", "Inc ")
    out = shell.run("-o csv")
    assert dn in out.replace('""', '"') and "TOPIC" in out, out


def test_tab_right_after_the_colon_adds_no_second_colon(shell):
    """Issue 14: `--principal User:<TAB>` gave `User::...`."""
    import time

    t = token()
    ok(["--context", "local-admin", "acls", "create", "--allow-principal", f"User:{t}-only", "--operation", "Read",
        "--topic", t])
    shell.child.send("kafkactl --context local-admin acls create --allow-principal User:\t")
    time.sleep(3)  # the candidates (every principal of the cluster) are listed; nothing is inserted wrongly
    shell.child.send("\x01echo LINE:")  # Ctrl-A: prefix the line, so it prints itself
    shell.child.sendline("")
    shell.child.expect("LINE:(.*)\r\n")
    line = shell.child.match.group(1)
    assert "User:" in line and "User::" not in line, line
    shell.child.expect_exact(PROMPT)


@pytest.mark.parametrize("answer,deleted", [("n", False), ("y", True)])
def test_acls_delete_asks_on_a_terminal(shell, sandbox, answer, deleted):
    t = token()
    ok(["--context", "local-admin", "acls", "create", "--allow-principal", f"User:{t}", "--operation", "Read",
        "--topic", t])
    shell.child.sendline(f"kafkactl --context local-admin acls delete --principal User:{t} --topic {t}")
    shell.child.expect(r"\[y/N\]")
    shell.child.sendline(answer)
    shell.child.expect_exact(PROMPT)
    mine = [b for b in snapshot(sandbox.gateway("admin")) if b.principal == f"User:{t}"]
    assert (mine == []) == deleted
    assert shell.status() == (0 if deleted else ExitCode.ERROR)  # "no" at the prompt: aborted, nothing changed


def test_acls_apply_lists_what_it_deletes_before_asking(shell, sandbox, tmp_path):
    """Issue 29, item 6: on a terminal the question came with counts only; the bindings it deletes come first."""
    t = token()
    for topic in (f"{t}a", f"{t}b"):
        ok(["--context", "local-admin", "acls", "create", "--allow-principal", f"User:{t}", "--operation", "Read",
            "--topic", topic])
    state = tmp_path / "s.yaml"
    state.write_text(f"apiVersion: kafkactl/v1\nkind: AclState\nscope: {{principals: ['User:{t}']}}\nacls:\n"
                     f"- principal: User:{t}\n  allow: [{{topic: {t}a, operations: [Read]}}]\n")
    shell.child.sendline(f"kafkactl --context local-admin acls apply {state}")
    shell.child.expect_exact("the apply deletes 1 ACL binding (1 ALLOW on TOPIC):")
    shell.child.expect_exact(f"{t}b")  # the binding itself, before the question
    shell.child.expect(r"\[y/N\]")
    shell.child.sendline("n")
    shell.child.expect_exact(PROMPT)
    mine = sorted(b.resource_name for b in snapshot(sandbox.gateway("admin")) if b.principal == f"User:{t}")
    assert mine == [f"{t}a", f"{t}b"]  # "no": nothing changed
    from tests.integration.acl_helpers import remove_exactly

    remove_exactly(sandbox.gateway("admin"), [b for b in snapshot(sandbox.gateway("admin"))
                                              if b.principal == f"User:{t}"])


@pytest.mark.parametrize("answer,deleted", [("n", False), ("y", True)])
@pytest.mark.usefixtures("sandbox")
def test_topics_delete_asks_on_a_terminal(shell, answer, deleted):
    t = token()
    ok(["--context", "local-admin", "topics", "create", f"del.{t}", "--partitions", "1"])
    shell.child.sendline(f"kafkactl --context local-admin topics delete del.{t}")
    shell.child.expect(r"\[y/N\]")
    shell.child.sendline(answer)
    shell.child.expect_exact(PROMPT)
    assert shell.status() == (0 if deleted else ExitCode.ERROR)
    names = ok(["--context", "local-admin", "topics", "list", "-o", "plain"]).stdout.split()
    assert (f"del.{t}" not in names) == deleted


@pytest.mark.parametrize("signame", ["SIGTERM", "SIGHUP"])
@pytest.mark.usefixtures("sandbox")
def test_a_signal_at_the_prompt_says_so_and_deletes_nothing(shell, signame):
    """A prompt turns the stop into an Abort: it is still named as the signal, with its exit code."""
    import signal
    import time

    t = token()
    ok(["--context", "local-admin", "topics", "create", f"sig.{t}", "--partitions", "1"])
    shell.child.sendline(f"kafkactl --context local-admin topics delete sig.{t}")
    shell.child.expect(r"\[y/N\]")
    pids = []
    for _ in range(50):
        found = subprocess.run(["pgrep", "-f", f"topics delete sig.{t}"], capture_output=True, text=True).stdout
        pids = [int(p) for p in found.split()]
        if pids:
            break
        time.sleep(0.1)
    assert pids, "the kafkactl process was not found"
    for pid in pids:
        os.kill(pid, getattr(signal, signame))
    shell.child.expect_exact(PROMPT)
    said = shell.child.before
    assert f"error: interrupted by {signame}" in said and "Traceback" not in said, said
    assert shell.status() == {"SIGTERM": ExitCode.TERMINATED, "SIGHUP": ExitCode.HANGUP}[signame]
    assert f"sig.{t}" in ok(["--context", "local-admin", "topics", "list", "-o", "plain"]).stdout.split()


def test_non_tty_delete_without_yes_is_refused(sandbox):
    t = token()
    ok(["--context", "local-admin", "acls", "create", "--allow-principal", f"User:{t}", "--operation", "Read",
        "--topic", t])
    p = subprocess.run([str(BIN / "kafkactl"), "--context", "local-admin", "acls", "delete", "--principal",
                        f"User:{t}"], capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60)
    assert p.returncode == ExitCode.USAGE
    assert "--yes" in p.stderr and "Traceback" not in p.stderr
    assert [b for b in snapshot(sandbox.gateway("admin")) if b.principal == f"User:{t}"] != []


def test_ctrl_c_mid_apply_exits_130_and_a_rerun_finishes(shell, sandbox, tmp_path):
    t = token()
    scope = {"kind": "scope", "principalPrefixes": [f"User:{t}-"]}
    rows = [{"principal": f"User:{t}-{p}", "host": "*", "operation": "READ", "permission": "ALLOW",
             "resource_type": "TOPIC", "resource_name": f"{t}.{i}", "pattern_type": "LITERAL"}
            for p in range(20) for i in range(1000)]
    full = tmp_path / "full.jsonl"
    full.write_text("".join(json.dumps(r) + "\n" for r in [scope, *rows]))
    empty = tmp_path / "empty.jsonl"
    empty.write_text(json.dumps(scope) + "\n")
    ok(["--context", "local-admin", "acls", "apply", str(full), "--yes"])  # 20,000 ACLs to delete below
    ok(["--context", "local-admin", "acls", "create", "--allow-principal", f"User:other-{t}", "--topic", t])
    # deletes run at about 1,000/s: interrupt once the progress bar shows (rich draws none on a dumb terminal)
    shell.run("export TERM=xterm")
    shell.child.sendline(f"kafkactl --context local-admin acls apply {empty} --yes")
    shell.child.expect_exact("applying", timeout=60)
    shell.child.expect(r"[1-9]\d*/20000", timeout=60)
    shell.child.sendintr()
    # how many it made is said (issue 29), counted: at least those the broker has no longer
    shell.child.expect(r"error: interrupted: ([\d,]+) of 20,000 changes made before it stopped", timeout=60)
    made = int(shell.child.match.group(1).replace(",", ""))
    shell.child.expect_exact(PROMPT, timeout=60)
    assert shell.status() == ExitCode.INTERRUPTED
    left = [b for b in snapshot(sandbox.gateway("admin")) if b.principal.startswith(f"User:{t}-")]
    assert 0 < len(left) < 20000  # really interrupted mid-way
    assert made <= 20000 - len(left)  # (a request in flight may have deleted more than it counted)
    ok(["--context", "local-admin", "acls", "apply", str(empty), "--yes"])
    after = snapshot(sandbox.gateway("admin"))
    assert [b for b in after if b.principal.startswith(f"User:{t}-")] == []
    assert any(b.principal == f"User:other-{t}" for b in after)  # outside the scope: untouched


@pytest.mark.usefixtures("sandbox", "spark")
def test_a_spark_plan_shows_spark_tasks_on_a_terminal_and_nothing_in_a_pipe(tmp_path):
    """Issue 16: on a terminal, a bar fed by Spark's status tracker (the running jobs' tasks done of total); piped,
    stderr has the summary only."""
    t = token()
    f = tmp_path / "p.yaml"
    f.write_text(f"scope:\n  principalPrefixes: ['User:sp{t}-']\nacls:\n  - principal: User:sp{t}-app\n"
                 f"    allow:\n      - topic: sp{t}\n        operations: [Read]\n")
    env = {**os.environ, "PATH": f"{BIN}:{os.environ['PATH']}", "TERM": "xterm-256color", "COLUMNS": "200"}
    child = pexpect.spawn(str(BIN / "kafkactl"), ["--context", "local-admin", "acls", "plan", str(f), "--spark"],
                          env=env, encoding="utf-8", timeout=240, dimensions=(50, 200))
    # the bar moves: some frame shows tasks done (it used to count only active stages, so always 0 done)
    child.expect(r"Spark jobs? [0-9]+(-[0-9]+)? \(tasks\)[^\r\n]*?(\s|\x1b\[[0-9;]*m)[1-9][0-9]*/[0-9]+")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    p = subprocess.run([str(BIN / "kafkactl"), "--context", "local-admin", "acls", "plan", str(f), "--spark"],
                       capture_output=True, text=True, timeout=240, env=env)
    assert p.returncode == 0 and "Spark job" not in p.stderr and "+1 -0" in p.stderr, p.stderr


@pytest.mark.usefixtures("sandbox", "spark")
def test_ctrl_c_during_a_spark_apply_is_one_line_and_no_traceback(tmp_path):
    """Issue 16 new-user pass: pyspark's own SIGINT handler cancelled the jobs through py4j from inside the py4j read
    the signal cut, and py4j logged each failed call through the root logger (45 lines of tracebacks), the JVM then
    logged every aborted task; typer made the interrupt a silent 130. Now: one 'error: interrupted' line."""
    t = token()
    f = tmp_path / "p.jsonl"
    f.write_text(json.dumps({"kind": "scope", "principalPrefixes": [f"User:cc{t}-"]}) + "\n" + "".join(
        json.dumps({"principal": f"User:cc{t}-a", "host": "*", "operation": "READ", "permission": "ALLOW",
                    "resource_type": "TOPIC", "resource_name": f"cc{t}.{i}", "pattern_type": "LITERAL"}) + "\n"
        for i in range(3000)))
    env = {**os.environ, "PATH": f"{BIN}:{os.environ['PATH']}", "TERM": "xterm-256color", "COLUMNS": "200"}
    child = pexpect.spawn(str(BIN / "kafkactl"), ["--context", "local-admin", "acls", "apply", str(f), "--spark",
                                                  "--yes"], env=env, encoding="utf-8", timeout=240,
                          dimensions=(50, 200))
    child.expect(r"Spark jobs? [0-9]")
    child.sendintr()
    child.expect(pexpect.EOF)
    child.close()
    out = child.before or ""
    assert child.exitstatus == ExitCode.INTERRUPTED, out[-2000:]
    assert "error: interrupted" in out
    for noise in ("Traceback", "ERROR:root", "Py4J", "Exception", "at org.apache"):
        assert noise not in out, out[-3000:]
    # what was applied stays, and the same apply finishes the rest
    r = subprocess.run([str(BIN / "kafkactl"), "--context", "local-admin", "acls", "apply", str(f), "--yes"],
                       capture_output=True, text=True, timeout=240, env=env)
    assert r.returncode == 0, r.stderr
    empty = tmp_path / "empty.jsonl"
    empty.write_text(json.dumps({"kind": "scope", "principalPrefixes": [f"User:cc{t}-"]}) + "\n")
    r = subprocess.run([str(BIN / "kafkactl"), "--context", "local-admin", "acls", "apply", str(empty), "--yes"],
                       capture_output=True, text=True, timeout=240, env=env)
    assert r.returncode == 0, r.stderr
