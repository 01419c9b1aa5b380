"""The renderers: plain never truncates, csv parses back, json keeps types."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from typing import ClassVar

import pytest

from kafkactl.formatters import OutputFormat, render


@dataclass(frozen=True)
class Row:
    COLUMNS: ClassVar[tuple[str, ...]] = ("name", "count", "flag", "tags")
    name: str
    count: int
    flag: bool
    tags: tuple[str, ...]


LONG = "orders." + "x" * 300
ROWS = [Row(LONG, 3, True, ("a", "b")), Row("b\tc", 0, False, ())]


def out(fmt: OutputFormat, data=ROWS) -> str:
    buf = io.StringIO()
    render(data, fmt, buf)
    return buf.getvalue()


def test_plain_is_tab_separated_and_never_truncated():
    lines = out(OutputFormat.plain).splitlines()
    assert lines[0].split("\t") == [LONG, "3", "true", "a,b"]
    assert lines[1].split("\t") == ["b c", "0", "false", ""]


def test_csv_has_header_and_parses_back():
    rows = list(csv.reader(io.StringIO(out(OutputFormat.csv))))
    assert rows[0] == ["name", "count", "flag", "tags"]
    assert rows[1] == [LONG, "3", "true", "a,b"]
    assert rows[2][0] == "b\tc"


def test_json_keeps_types_and_lists():
    data = json.loads(out(OutputFormat.json))
    assert data[0] == {"name": LONG, "count": 3, "flag": True, "tags": ["a", "b"]}


def test_table_in_a_pipe_is_not_truncated():
    from kafkactl.cli.context import _make_console

    buf = io.StringIO()
    console = _make_console(buf, no_color=True)
    render(ROWS, OutputFormat.table, buf, console)
    assert LONG in buf.getvalue().replace("\n", "")
    assert LONG in buf.getvalue()


@pytest.mark.parametrize("no_color", [True, False])
def test_table_in_a_pipe_has_no_padding_lines_or_trailing_spaces(no_color):
    """Issue 14: rich pads a table with a blank line above and below, and every line to the table's width."""
    from kafkactl.cli.context import _make_console

    buf = io.StringIO()
    render(ROWS, OutputFormat.table, buf, _make_console(buf, no_color=no_color))
    lines = buf.getvalue().split("\n")
    assert lines[-1] == "" and all(lines[:-1]), buf.getvalue()  # one newline at the end, no blank line
    assert not [line for line in lines if line != line.rstrip()]
    assert lines[0].startswith("NAME") and LONG in buf.getvalue()  # nor the box's blank left edge


def test_table_on_a_terminal_stays_as_rich_draws_it():
    from rich.console import Console

    buf = io.StringIO()
    console = Console(file=buf, force_terminal=True, color_system=None, width=60)
    render([Row("a", 1, True, ())], OutputFormat.table, buf, console)
    lines = buf.getvalue().split("\n")
    assert not lines[0].strip() and lines[1].startswith(" NAME") and lines[1].endswith(" "), buf.getvalue()


@dataclass(frozen=True)
class Status:
    running: bool
    log_file: str


def test_single_object_is_field_value_lines_in_plain_and_one_row_in_csv():
    assert out(OutputFormat.plain, Status(True, "/x/broker.log")) == "running\ttrue\nlog_file\t/x/broker.log\n"
    assert out(OutputFormat.csv, Status(True, "/x/broker.log")) == "running,log_file\ntrue,/x/broker.log\n"
