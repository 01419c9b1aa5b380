"""Global options may follow the subcommand, unless that command defines the same option itself."""

import pytest
from typer.main import get_command

from kafkactl.cli.argv import hoist_global_options
from kafkactl.cli.root import app
from tests.conftest import run

ROOT = get_command(app)


def test_output_after_the_subcommand_moves_to_the_front():
    assert hoist_global_options(ROOT, ["acls", "list", "--topic", "t", "-o", "json"]) == \
        ["-o", "json", "acls", "list", "--topic", "t"]


def test_equals_form_and_flags():
    assert hoist_global_options(ROOT, ["topics", "list", "--output=csv", "--debug"]) == \
        ["--output=csv", "--debug", "topics", "list"]


def test_options_of_the_command_itself_stay():
    argv = ["context", "add", "prod", "-b", "k:9092", "--command-config", "c.properties", "-o", "json"]
    assert hoist_global_options(ROOT, argv) == ["-o", "json", "context", "add", "prod", "-b", "k:9092",
                                                "--command-config", "c.properties"]


def test_leading_globals_and_values_that_look_like_commands_are_untouched():
    argv = ["--context", "acls", "topics", "list"]  # a context named "acls"
    assert hoist_global_options(ROOT, argv) == argv


def test_after_double_dash_nothing_moves():
    assert hoist_global_options(ROOT, ["topics", "create", "--", "-o"]) == ["topics", "create", "--", "-o"]


def test_a_repeated_global_option_keeps_its_last_value_as_typed():
    """Adversary pass on issue 13: `-o json acls list -o yaml` printed JSON (the hoisted option came first)."""
    assert hoist_global_options(ROOT, ["-o", "json", "--context", "acls", "acls", "list", "-o", "yaml"]) == \
        ["-o", "json", "--context", "acls", "-o", "yaml", "acls", "list"]
    r = run("-o", "json", "acls", "decode-ops", "8", "-o", "plain")
    assert r.exit_code == 0 and r.stdout == "READ\n", r.output


@pytest.mark.parametrize("flag", ["--detailed-exitcode=true", "--detailed-exitcode=1", "--detailed-exitcode="])
def test_detailed_exitcode_with_a_value_is_an_error_not_changes(flag):
    r = run("acls", "plan", "x.yaml", flag)
    assert r.exit_code == 1 and r.stderr.startswith("error:"), r.output


@pytest.mark.parametrize("argv, expected", [
    (["acls", "plan", "f.yaml", "--spark", "auto"], ["acls", "plan", "f.yaml", "--spark-auto"]),
    (["acls", "plan", "--spark=auto", "f.yaml"], ["acls", "plan", "--spark-auto", "f.yaml"]),
    (["acls", "plan", "--spark", "auto", "f.yaml"], ["acls", "plan", "--spark-auto", "f.yaml"]),
    (["acls", "plan", "--spark", "f.yaml"], ["acls", "plan", "--spark", "f.yaml"]),
    (["acls", "plan", "f.yaml", "--", "--spark", "auto"], ["acls", "plan", "f.yaml", "--", "--spark", "auto"]),
])
def test_spark_takes_an_optional_value_anywhere(argv, expected):
    from kafkactl.cli.argv import optional_values

    assert optional_values(argv) == expected


def test_a_file_named_auto_stays_a_file(tmp_path, monkeypatch):
    from kafkactl.cli.argv import optional_values

    monkeypatch.chdir(tmp_path)
    (tmp_path / "auto").write_text("")
    assert optional_values(["acls", "plan", "--spark", "auto"]) == ["acls", "plan", "--spark", "auto"]


def test_spark_with_another_value_names_it():
    r = run("acls", "plan", "--spark=yes", "f.yaml")
    assert r.exit_code == 2 and r.stderr == "error: --spark 'yes': --spark takes no value, or one of auto\n", r.output


def test_diff_s_help_offers_no_completion_install_and_no_root_option_it_defines_itself():
    """Issue 18 new-user pass: diff's --help listed typer's --install-completion, and its footer offered the root's
    --context, which diff takes twice as its own."""
    r = run("diff", "--help")
    assert r.exit_code == 0 and "--install-completion" not in r.stdout and "--show-completion" not in r.stdout
    footer = r.stdout[r.stdout.index("Global options"):]
    assert "--context" not in footer and "--timeout" in footer
