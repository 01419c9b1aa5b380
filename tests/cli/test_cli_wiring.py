"""The real command tree, no broker: usage errors, exit codes, contexts."""

from __future__ import annotations

import stat

import pytest

from kafkactl.exitcodes import ExitCode
from tests.conftest import run


def test_version():
    r = run("--version")
    assert r.exit_code == 0 and r.stdout.startswith("kafkactl ")


def test_unknown_option_is_one_line_usage_error():
    r = run("topics", "list", "--frobnicate")
    assert r.exit_code == ExitCode.USAGE
    assert r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "--frobnicate" in lines[0] and lines[0].startswith("error:")


def test_bad_output_format_is_usage_error():
    r = run("-o", "xml", "topics", "list")
    assert r.exit_code == ExitCode.USAGE and "xml" in r.stderr


def test_bad_env_output_format_names_the_variable():
    r = run("-b", "127.0.0.1:1", "topics", "list", env={"KAFKACTL_OUTPUT": "xml"})
    assert r.exit_code == ExitCode.USAGE and "KAFKACTL_OUTPUT=xml" in r.stderr


def test_invalid_topic_name_fails_before_connecting():
    r = run("-b", "127.0.0.1:1", "topics", "create", "bad/name")
    assert r.exit_code == ExitCode.USAGE and "'bad/name'" in r.stderr and "Traceback" not in r.stderr


def test_unknown_context_exit_code():
    r = run("--context", "no-such-ctx", "topics", "list")
    assert r.exit_code == ExitCode.NOT_FOUND and "no-such-ctx" in r.stderr


def test_context_add_use_list_delete(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    r = run("context", "add", "prod", "-b", "k1:9092,k2:9092", "--security-protocol", "SASL_SSL",
            "--sasl-mechanism", "SCRAM-SHA-512", "--username", "ops", "--password-stdin", input="pw-from-stdin-9\n")
    assert r.exit_code == 0, r.stderr
    cfg = tmp_path / "kafkactl" / "config.yaml"
    assert stat.S_IMODE(cfg.stat().st_mode) == 0o600
    assert "pw-from-stdin-9" not in r.output
    run("context", "add", "dev", "-b", "localhost:9092")
    assert run("context", "current").stdout.strip() == "prod"  # the first context added becomes current
    assert run("context", "use", "dev").exit_code == 0
    assert run("context", "current").stdout.strip() == "dev"
    rows = [line.split("\t") for line in run("-o", "plain", "context", "list").stdout.splitlines()]
    assert rows == [["dev", "true", "localhost:9092", "", "", "", ""],  # (the certificate column: mTLS only)
                    ["prod", "false", "k1:9092,k2:9092", "ops", "SCRAM-SHA-512", "", ""]]
    assert "pw-from-stdin-9" not in run("-o", "json", "context", "list").stdout
    assert run("context", "delete", "dev").exit_code == 0
    assert run("context", "current").exit_code == ExitCode.NOT_FOUND
    assert run("context", "use", "gone").exit_code == ExitCode.NOT_FOUND


def test_context_add_validates_properties(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    r = run("context", "add", "x", "-b", "h:1", "--property", "ssl.truststore.location=/t.jks")
    assert r.exit_code == ExitCode.NOT_FOUND and "ssl.truststore.location /t.jks: no such file" in r.stderr
    (tmp_path / "t.jks").write_bytes(b"\xfe\xed\xfe\xed garbage")
    r = run("context", "add", "x", "-b", "h:1", "--property", f"ssl.truststore.location={tmp_path / 't.jks'}")
    assert r.exit_code == ExitCode.USAGE and "a damaged JKS store" in r.stderr
    assert not (tmp_path / "kafkactl" / "config.yaml").exists()


def test_every_noun_is_a_group_with_its_verbs():
    """The command tree is loaded lazily; each noun must still resolve to a group of verbs (a verb of its own,
    `diff`, to one command)."""
    from typer.main import get_command

    from kafkactl.cli.root import NOUNS, app

    root = get_command(app)
    for noun in NOUNS:
        group = root.get_command(None, noun)
        assert group is not None, noun
        if noun == "diff":
            assert not hasattr(group, "list_commands") and run(noun, "--help").exit_code == 0
            continue
        assert group.list_commands(None), noun
        assert all(group.get_command(None, c) is not None for c in group.list_commands(None)), noun
        r = run(noun, "--help")
        assert r.exit_code == 0 and "Usage" in r.stdout


def test_debug_logging_is_set_up_once_however_often_commands_run():
    """Helper B's finding on issue 13: every in-process --debug run added another handler (each log line printed
    once more per run) and records went to the root logger's handlers as well."""
    import logging

    from kafkactl.cli import root as cli

    saved = {n: (list(logging.getLogger(n).handlers), logging.getLogger(n).propagate, logging.getLogger(n).level)
             for n in ("kafkactl", "kafka")}
    try:
        cli._enable_debug_logging()
        cli._enable_debug_logging()
        for name in ("kafkactl", "kafka"):
            lg = logging.getLogger(name)
            assert [h.get_name() for h in lg.handlers].count("kafkactl-debug") == 1 and not lg.propagate
    finally:
        for name, (handlers, propagate, level) in saved.items():
            lg = logging.getLogger(name)
            lg.handlers[:], lg.propagate = handlers, propagate
            lg.setLevel(level)


@pytest.mark.parametrize("delay", [0.1, 0.2, 0.3, 0.5])
def test_ctrl_c_at_any_moment_of_start_up_exits_130_without_a_traceback(delay):
    """Helper-3's finding on issue 13: a Ctrl-C while kafkactl was still importing printed a traceback. The
    command waits on an address that never answers, so the signal always lands before it ends. (The first few
    milliseconds, while Python starts and runs the console script's own import line, are Python's.)"""
    import shutil
    import signal
    import socket
    import subprocess
    import sys
    import time
    from pathlib import Path

    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(0)
        exe = shutil.which("kafkactl", path=str(Path(sys.executable).parent))
        p = subprocess.Popen([exe, "-b", f"127.0.0.1:{silent.getsockname()[1]}", "--timeout", "20", "topics", "list"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(delay)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=30)
    assert p.returncode == 130 and "Traceback" not in err and err.count("\n") <= 1, (p.returncode, err[-2000:])


@pytest.mark.parametrize("argv, suggestion", [(["acl"], "'acls'"), (["acls", "lst"], "'list'"),
                                              (["cluster", "descrbe"], "'describe'"), (["ACLS", "list"], "'acls'")])
def test_a_misspelt_subcommand_gets_a_suggestion(argv, suggestion):
    r = run(*argv)
    assert r.exit_code == 2 and r.stdout == "" and r.stderr.count("\n") == 1, r.output
    assert f"did you mean {suggestion}?" in r.stderr and r.stderr.startswith("error: ")


def test_nothing_close_gets_no_suggestion():
    r = run("acls", "zzz")
    assert r.exit_code == 2 and "No such command 'zzz'." in r.stderr and "did you mean" not in r.stderr


def test_every_subcommand_help_lists_the_global_options_and_shows_choices():
    """Issue 14: a subcommand's --help did not say which global options it accepts (they may follow it)."""
    from tests.integration.cli_tree import leaf_commands

    for path, _ in leaf_commands():
        r = run(*path.split(), "--help")
        assert r.exit_code == 0 and "Global options, also accepted after the command" in r.stdout, path
        assert "-o/--output table|plain|json|yaml|csv" in " ".join(r.stdout.split()), path
    text = " ".join(run("acls", "list", "--help", env={"COLUMNS": "200"}).stdout.split())
    assert "literal|prefixed|any|match" in text and "allow|deny" in text
    assert "Examples:" in run("--help").stdout
