"""Rich tables for terminals."""

from __future__ import annotations

import re
import sys
from dataclasses import replace
from typing import Any

from kafkactl.formatters.model import Tabular, table_of


def header_label(column: str) -> str:
    """RESOURCE NAME for resource_name; in "first: prod-eu" only the part before the colon (a name stays as it is)."""
    head, sep, name = column.partition(": ")
    return head.replace("_", " ").upper() + sep + name


# past this many rows the table view prints the plain view (one stderr line says so): rich lays out every row before
# it prints the first, seconds at tens of thousands of rows
TABLE_ROWS = 1_000
# a command suggested in a cell: kafkactl, global options, a command, up to the closing parenthesis or the end
_COMMAND = re.compile(r"kafkactl (?:--?\S+ (?:\S+ )?)*(?:acls|auth|cluster|configs|diff|topics|groups|context|local) "
                      r"[^()]*(?=\)|$)")


def render_table(data: Any, console: Any) -> None:
    t = table_of(data, vertical=True)
    if len(t.rows) > TABLE_ROWS:
        _say(f"{len(t.rows):,} rows: shown plain (a table draws only once every row is laid out); -o plain, json or "
             "csv for scripts, or narrow the listing with its filters")
        _plain(console, t)
        return
    t = _constants_above(t)
    _header_lines(console, t.header)
    if not t.columns:
        return
    rows, commands = _commands_below(t.rows)
    table = _table(console, t, rows)
    # rich would squeeze a column below its longest word and crop it: the columns' own minimums, the padding and
    # the separators between them must fit
    needed = sum(c.min_width or 0 for c in table.columns) + 3 * (len(table.columns) - 1)
    if needed > console.width:
        _say(f"the table is wider than the terminal ({console.width} columns) without folding a name: shown plain")
        _plain(console, replace(t, rows=rows, header=()))  # (the header is printed above)
    else:
        _print(console, table)
    for n, command in enumerate(commands, 1):  # whole, one per line, outside the table: ready to copy
        console.file.write(f"[{n}] {command}\n")


def _table(console: Any, t: Tabular, rows: list[tuple[Any, ...]]) -> Any:
    """Each column at least as wide as its longest word: a cell wraps between words, never inside a name."""
    from rich.table import Table

    table = Table(title=t.title, box=None if console.no_color else _box(), header_style="bold", pad_edge=False)
    cells = [["-" if v is None else _mark(v) if t.checkmarks and isinstance(v, bool) else _fmt(v) for v in row]
             for row in rows]
    for i, col in enumerate(t.columns):
        longest = max((len(w) for c in cells for w in _words(c[i])), default=0)
        table.add_column(header_label(col), overflow="fold", min_width=max(longest, len(header_label(col))))
    previous: tuple[Any, ...] | None = None
    for row, shown in zip(rows, cells):
        if t.group_by:
            group = tuple(row[:t.group_by])
            if previous is not None and group == previous:
                shown[:t.group_by] = [""] * t.group_by
            elif previous is not None:
                table.rows[-1].end_section = True
            previous = group
        table.add_row(*shown)
    return table


def _words(cell: str) -> list[str]:
    from rich.text import Text

    return Text.from_markup(cell).plain.split()


def _constants_above(t: Tabular) -> Tabular:
    """A column with one value in every row (of several) is said once above the table, with the header."""
    if len(t.rows) < 2 or len(t.columns) < 2 or t.checkmarks:  # (a matrix of ✓ and ✗ keeps its every column)
        return t
    same = [i for i in range(len(t.columns)) if all(r[i] == t.rows[0][i] for r in t.rows)]
    if not same or len(same) == len(t.columns):
        return t
    keep = [i for i in range(len(t.columns)) if i not in same]
    return replace(t, columns=tuple(t.columns[i] for i in keep), rows=[tuple(r[i] for i in keep) for r in t.rows],
                   header=(*t.header, *((t.columns[i], t.rows[0][i]) for i in same)),
                   group_by=sum(1 for i in keep if i < t.group_by))


def _commands_below(rows: list[tuple[Any, ...]]) -> tuple[list[tuple[Any, ...]], list[str]]:
    """A kafkactl command suggested in a cell becomes [N] there and is printed whole below the table."""
    commands: list[str] = []

    def mark(value: Any) -> Any:
        if not isinstance(value, str) or "kafkactl " not in value:
            return value

        def note(m: re.Match[str]) -> str:
            commands.append(m.group(0).strip())
            return f"[{len(commands)}]"

        return _COMMAND.sub(note, value)

    return [tuple(mark(v) for v in row) for row in rows], commands


def _header_lines(console: Any, header: tuple[tuple[str, Any], ...]) -> None:
    """LABEL  value, one a line, the values aligned and whole (written, not laid out: a long name is never cut)."""
    if not header:
        return
    width = max(len(header_label(k)) for k, _ in header)
    console.file.write("".join(f"{header_label(k).ljust(width)}  {_header_value(v)}\n" for k, v in header))


def _header_value(value: Any) -> str:
    return "-" if value is None else ("yes" if value else "no") if isinstance(value, bool) else str(value)


def _plain(console: Any, t: Tabular) -> None:
    from kafkactl.formatters.text import render_plain

    _header_lines(console, t.header)
    console.file.write("\t".join(header_label(c) for c in t.columns) + "\n")
    render_plain(t, console.file)


def _say(text: str) -> None:
    sys.stderr.write(f"note: {text}\n")
    sys.stderr.flush()


def _print(console: Any, renderable: Any) -> None:
    """On a terminal as rich draws it; into a pipe or file without the blank padding lines, the box's blank left
    edge and trailing spaces."""
    if console.is_terminal:
        console.print(renderable)
        return
    with console.capture() as captured:
        console.print(renderable)
    lines = [line.rstrip() for line in captured.get().splitlines()]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    indent = min((len(line) - len(line.lstrip(" ")) for line in lines if line), default=0)
    if lines:
        console.file.write("\n".join(line[indent:] for line in lines) + "\n")


def _mark(value: bool) -> str:
    return "[green]✓[/green]" if value else "[red]✗[/red]"


def _fmt(value: Any) -> str:
    from rich.markup import escape

    if isinstance(value, bool):
        return "yes" if value else "no"
    return escape(str(value))


def _box() -> Any:
    from rich import box

    return box.SIMPLE_HEAD
