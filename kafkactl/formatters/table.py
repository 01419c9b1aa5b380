"""Rich tables for terminals."""

from __future__ import annotations

from typing import Any

from kafkactl.formatters.model import table_of


def header_label(column: str) -> str:
    return column.replace("_", " ").upper()


def render_table(data: Any, console: Any) -> None:
    from rich.table import Table

    t = table_of(data, vertical=True)
    if t.header:
        grid = Table.grid(padding=(0, 2))
        grid.add_column(style="bold")
        grid.add_column()
        for key, value in t.header:
            grid.add_row(header_label(key), "-" if value is None else str(value))
        _print(console, grid)
    if not t.columns:
        return
    table = Table(title=t.title, box=None if console.no_color else _box(), header_style="bold", pad_edge=False)
    for col in t.columns:
        table.add_column(header_label(col), overflow="fold")
    previous: tuple[Any, ...] | None = None
    for row in t.rows:
        cells: list[str] = ["-" if v is None else _mark(v) if t.checkmarks and isinstance(v, bool) else _fmt(v)
                            for v in row]
        if t.group_by:
            group = tuple(row[:t.group_by])
            if previous is not None and group == previous:
                cells[:t.group_by] = [""] * t.group_by
            elif previous is not None:
                table.rows[-1].end_section = True
            previous = group
        table.add_row(*cells)
    _print(console, table)


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
