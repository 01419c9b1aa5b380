"""--help at any width (issue 29, item 4): piped (80 columns) or narrower, no option name, choice list or
environment variable is cut with an ellipsis, and the choices shown are the command's own."""

from __future__ import annotations

import re

import pytest

from tests.integration.cli_tree import leaf_commands

COMMANDS = sorted(path for path, _ in leaf_commands())


def _all_help(width: int) -> dict[str, str]:
    from typer.testing import CliRunner

    from kafkactl.cli.root import app

    out = {}
    for path in ["", *COMMANDS]:
        argv = [*path.split(), "--help"]
        # (COLUMNS only: typer reads TERMINAL_WIDTH once, at its first help, for the rest of the process)
        r = CliRunner().invoke(app, argv, env={"COLUMNS": str(width)}, terminal_width=width)
        assert r.exit_code == 0, (path, r.output)
        out[path] = r.stdout
    return out


@pytest.mark.parametrize("width", [80, 100])
def test_no_help_cuts_a_name_with_an_ellipsis(width):
    cut = {path: [line for line in text.splitlines() if "…" in line] for path, text in _all_help(width).items()}
    assert {p: lines for p, lines in cut.items() if lines} == {}


def test_every_option_name_is_shown_whole_at_80_columns():
    texts = _all_help(80)
    for path, cmd in leaf_commands():
        for param in (p for p in cmd.params if not getattr(p, "hidden", False)):
            for name in [o for o in getattr(param, "opts", []) if o.startswith("--")]:
                assert re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", texts[path]), (path, name)
    assert texts  # (the tree was walked: every leaf's help was rendered above)


def test_create_offers_only_the_pattern_types_it_accepts():
    texts = _all_help(80)
    create = texts["acls create"]
    assert "literal|prefixed" in create and "any" not in create.split("--resource-pattern-type")[1].split("│\n")[0]
    assert "match" in texts["acls list"].split("--resource-pattern-type")[1][:200]
