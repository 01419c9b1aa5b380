"""Issue 29, item 6 and 7: what a new operator met in the first hour, each fixed, offline (no broker)."""

from __future__ import annotations

import io
import os

import pytest

from kafkactl.acl.model import AclOperation, Permission
from tests.cli.test_completion import values
from tests.conftest import run


def test_a_list_filter_takes_any_operation_and_any_permission():
    from kafkactl.acl.options import AclOptions, filters_for_query

    (f,) = filters_for_query(AclOptions(topics=["t"], operations=["Any"], permission="any"), for_delete=False)
    assert (f.operation, f.permission) == (AclOperation.ANY, Permission.ANY)
    r = run("-b", "127.0.0.1:1", "acls", "create", "--allow-principal", "User:a", "--topic", "t", "--operation", "Any")
    assert r.exit_code == 2 and "ANY is only meaningful in filters" in r.stderr  # an ACL names an operation


def test_no_color_writes_no_escape_sequence_at_all():
    from kafkactl.cli.context import _make_console

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    out = Terminal()
    _make_console(out, no_color=True).print("[bold]principal[/bold] [red]denied[/red]")
    assert out.getvalue() == "principal denied\n"  # no bold either (rich kept it)


def test_command_config_dev_null_is_an_empty_file_as_the_java_tools_read_it():
    r = run("--command-config", os.devnull, "-b", "127.0.0.1:1", "--timeout", "1", "topics", "list")
    assert r.exit_code == 4 and r.stderr == "error: cannot reach 127.0.0.1:1 to list topics: connection refused\n"


@pytest.mark.parametrize("mode, warned", [(0o644, True), (0o600, False)])
def test_a_command_config_holding_a_password_that_others_may_read_is_warned_of(tmp_path, mode, warned):
    props = tmp_path / "client.properties"
    props.write_text("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\nsasl.jaas.config=org.apache.kafka."
                     'common.security.plain.PlainLoginModule required username="u" password="pw-first-hour";\n')
    props.chmod(mode)
    r = run("--command-config", str(props), "-b", "127.0.0.1:1", "--timeout", "1", "topics", "list")
    warning = (f"warning: {props} is readable by other users (mode 644); it holds passwords: chmod 600 {props}")
    assert (warning in r.stderr.splitlines()) is warned and "pw-first-hour" not in r.output, r.stderr


def test_the_mapping_rules_option_has_one_name():
    for argv in (["acls", "check"], ["auth", "principal"]):
        text = run(*argv, "--help").stdout
        assert "--rules" in text and "--ssl-rules" not in text, argv


def test_completion_offers_the_sandbox_versions_and_the_spelling_typed():
    assert values("kafkactl local up --kafka-version ") == ["3.9.1", "4.0.1", "4.3.1", "4.4.0"]
    assert values("kafkactl acls create --topic t --operation idempotent-") == []  # (not on a topic)
    assert values("kafkactl acls create --cluster --operation idempotent-") == ["idempotent-write"]
    assert values("kafkactl acls create --cluster --operation idempotent_") == ["idempotent_write"]
    assert "Any" in values("kafkactl acls list --operation A") and \
        "Any" not in values("kafkactl acls create --operation A")


def test_delete_help_says_what_a_filter_without_operation_matches():
    text = " ".join(run("acls", "delete", "--help").stdout.replace("│", " ").split())
    assert "Without it: any operation; with --allow-principal or --deny-principal (delete), only ACLs of " \
           "operation All, as kafka-acls.sh --remove." in text, text


@pytest.mark.parametrize("argv, said", [
    (["--username", "ops"], "--username needs --password-stdin (and the reverse)"),
    (["--password-stdin"], "--password-stdin needs --username"),
    (["--sasl-mechanism", "SCRAM-SHA-512", "--security-protocol", "SASL_SSL"],
     "--sasl-mechanism SCRAM-SHA-512 needs --username and --password-stdin"),
    (["--username", "ops", "--password-stdin", "--sasl-mechanism", "PLAIN"],
     "--username with security.protocol PLAINTEXT, which sends no SASL login"),
    (["--username", "ops", "--password-stdin", "--security-protocol", "SASL_SSL"],
     "security.protocol SASL_SSL needs --sasl-mechanism"),
    (["--security-protocol", "SASL_PLAINTEXT"], "security.protocol SASL_PLAINTEXT needs --sasl-mechanism"),
    (["--property", "security.protocol=SASL_SSL"], "security.protocol SASL_SSL needs --sasl-mechanism"),
    (["--security-protocol", "SASL_SSL", "--sasl-mechanism", "PLAIN", "--property", "sasl.mechanism=SCRAM-SHA-256",
      "--username", "ops", "--password-stdin"], "--sasl-mechanism PLAIN and --property sasl.mechanism=SCRAM-SHA-256"),
])
def test_context_add_refuses_half_filled_sasl_settings_and_saves_nothing(tmp_path, monkeypatch, argv, said):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    r = run("context", "add", "half", "-b", "k:9092", *argv, input="pw-half-filled\n")
    assert r.exit_code == 2 and r.stderr.startswith(f"error: {said}"), r.stderr
    assert not (tmp_path / "kafkactl" / "config.yaml").exists() and "pw-half-filled" not in r.output


def test_an_empty_plan_or_lint_in_csv_prints_its_header(tmp_path):
    """New-user pass on issue 29: acls lint, acls plan and configs plan printed nothing at all in csv when empty."""
    import io

    from kafkactl.desired.configs.plan import Change, ConfigPlan
    from kafkactl.desired.plan import Plan, PlanRow
    from kafkactl.desired.state import Scope
    from kafkactl.formatters import OutputFormat, render
    from kafkactl.formatters.views import PlanView

    for data, columns in ((ConfigPlan([], "fp", ["topics"]), Change.COLUMNS),
                          (PlanView(Plan([], Scope(principals=frozenset({"User:a"})))), PlanRow.COLUMNS)):
        out = io.StringIO()
        render(data, OutputFormat.csv, out)
        assert out.getvalue() == ",".join(columns) + "\n"
    f = tmp_path / "acls.json"
    f.write_text("[]")
    r = run("-o", "csv", "acls", "lint", "--acls-file", str(f))
    assert (r.exit_code, r.stdout) == (0, "severity,check,subject,message\n")


@pytest.mark.parametrize("argv, env", [(["--no-color", "topics", "list", "--help"], {}),
                                       (["topics", "list", "--help"], {"NO_COLOR": "1"})])
def test_help_on_a_terminal_has_no_escape_sequence_without_colour(argv, env):
    """New-user pass on issue 29: --no-color and NO_COLOR were not honoured by --help (bold, dim and yellow)."""
    import sys

    import pexpect

    child = pexpect.spawn(sys.executable, ["-m", "kafkactl", *argv], env={**os.environ, "TERM": "xterm", **env},
                          encoding="utf-8", dimensions=(50, 120), timeout=30)
    text = child.read()
    child.close()
    assert "--exclude-internal" in text and "\x1b" not in text, repr(text[:300])


def test_a_mistyped_context_gets_the_nearest_name(tmp_path, monkeypatch):
    """New-user pass on issue 29: `--context local-admn` named every context but not the one meant."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    for name in ("local-admin", "local-alice"):
        assert run("context", "add", name, "-b", "127.0.0.1:1").exit_code == 0
    r = run("--context", "local-admn", "topics", "list")
    assert r.exit_code == 7 and r.stderr == ("error: context 'local-admn' does not exist (did you mean local-admin? "
                                             "known: local-admin, local-alice)\n"), r.stderr
