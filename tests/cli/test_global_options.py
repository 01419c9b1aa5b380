"""Global options may follow the subcommand, unless that command defines the same option itself."""

from typer.main import get_command

from kafkactl.cli import app, hoist_global_options

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
