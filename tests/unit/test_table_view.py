"""The table view (issue 29, items 2 and 3): big results print at once, identifiers stay whole, constant columns
are said once, suggested commands are printed whole below the table."""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import ClassVar

import pytest
from rich.console import Console

from kafkactl.formatters.table import TABLE_ROWS, render_table


@dataclass(frozen=True)
class Row:
    COLUMNS: ClassVar[tuple[str, ...]] = ("principal", "resource_name", "operation", "why")
    principal: str
    resource_name: str
    operation: str
    why: str


def _render(rows, width=80) -> str:
    buf = io.StringIO()
    render_table(rows, Console(file=buf, width=width, color_system=None, force_terminal=False))
    return buf.getvalue()


def test_a_big_result_is_printed_plain_with_one_stderr_line_saying_so(capsys):
    rows = [Row(f"User:u{i}", f"topic-{i}", "READ", "allowed") for i in range(TABLE_ROWS * 50)]
    out = _render(rows)
    err = capsys.readouterr().err
    assert err == (f"note: {len(rows):,} rows: shown plain (a table draws only once every row is laid out); -o plain, "
                   "json or csv for scripts, or narrow the listing with its filters\n")
    lines = out.splitlines()
    assert lines[0] == "PRINCIPAL\tRESOURCE NAME\tOPERATION\tWHY" and len(lines) == len(rows) + 1
    assert lines[1] == "User:u0\ttopic-0\tREAD\tallowed"


@pytest.mark.parametrize("width", [40, 60, 100])
def test_identifiers_are_never_folded_whatever_the_width(width):
    long = "User:CN=service-account-payments-eu-west-1,OU=platform,O=Example"
    rows = [Row(long, "payments.eu.transactions.v2", "DESCRIBE_CONFIGS", "a prefixed ALLOW binding matches it"),
            Row("User:b", "orders", "READ", "no binding: denied by default")]
    out = _render(rows, width)
    for name in (long, "payments.eu.transactions.v2", "DESCRIBE_CONFIGS"):
        assert name in out, out  # whole, on one line: in the table or, too wide for it, in the plain view


def test_a_column_with_one_value_is_said_once_above_the_table():
    rows = [Row("User:a", f"t{i}", "READ", f"reason {i}") for i in range(3)]
    lines = _render(rows, 100).splitlines()
    assert lines[:2] == ["PRINCIPAL  User:a", "OPERATION  READ"], lines
    assert lines[2].split() == ["RESOURCE", "NAME", "WHY"] and [x.split()[0] for x in lines[4:]] == ["t0", "t1", "t2"]


def test_a_suggested_command_is_printed_whole_below_the_table():
    command = ("kafkactl acls create --allow-principal User:a --streams wordcount --topic text --output-topic "
               "counts")
    rows = [Row("User:a", "text", "READ", f"holds 3 of the 6 ACLs of the preset (grant them all: {command})"),
            Row("User:b", "counts", "WRITE", "allowed")]
    out = _render(rows, 60)
    assert f"\n[1] {command}\n" in "\n" + out, out
    assert "(grant them all: [1])" in " ".join(out.split()) and out.count("kafkactl") == 1, out


def test_a_long_value_said_above_the_table_keeps_its_label_and_is_whole():
    """New-user pass on issue 29: at 80 columns the values above the table lost their labels and a principal was
    cut with an ellipsis; a table too wide for the terminal printed them twice, the second time as Python spells
    them (False)."""
    long = "User:CN=very-long-service-account-name.production.example.com,OU=Platform,O=Example"
    out = _render([Row(long, "payments.settlement", "READ", "a"), Row(long, "payments.settlement", "DESCRIBE", "b")])
    assert f"PRINCIPAL      {long}\n" in out and "…" not in out, out
    wide = "x" * 90
    out = _render([Row(long, "t", "READ", wide), Row(long, "u", "READ", wide)], 60)  # too wide: the plain view
    assert out.count(long) == 1 and out.count("OPERATION") == 1 and "False" not in out, out
