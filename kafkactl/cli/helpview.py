"""--help at any width: no option name, metavar (a choice list) or environment variable is cut with '…'.

Typer lays out an options panel as a rich table whose every column may shrink, so at 80 columns (a pipe) rich cut
`--resource-pattern-type` to `--resource-pattern-ty…`. Here the columns that name things keep their width (they
never wrap or shrink), a long choice list breaks after a '|', and the help text alone takes what is left, wrapping
between words. Installed only when help is rendered: the help path imports rich anyway, a command does not.
"""

from __future__ import annotations

from typing import Any

WIDE = 120  # from this many columns on, a choice list stays on one line
CHOICES_WIDTH = 16  # a metavar longer than this breaks after a '|' (literal|prefixed|any|match: two lines)
_installed = False


def install() -> None:
    global _installed
    if _installed:
        return
    _installed = True
    from rich.table import Table
    from rich.text import Text
    from typer import rich_utils

    class OptionsTable(Table):
        """Typer's options table, its naming columns (all but the help text, the last) whole."""

        def add_row(self, *cells: Any, **kw: Any) -> None:
            narrow = rich_utils._get_rich_console().width < WIDE
            n = len(cells) - 1
            cells = tuple(_broken(c, Text) if i == n - 1 and narrow else _joined(c, Text) if i == n else c
                          for i, c in enumerate(cells))
            super().add_row(*cells, **kw)
            for col in self.columns[:-1]:
                col.no_wrap = True
            if self.columns:
                last = self.columns[-1]
                last.ratio = 1  # the help text takes what the names leave, and no less than its longest word
                last.overflow = "fold"  # (a word longer still goes on over lines, never cut with an ellipsis)
                words = [len(w) for c in last._cells for w in _plain(c).split()]
                last.min_width = max([last.min_width or 0, *words])

    setattr(rich_utils, "Table", OptionsTable)  # (the module's own name: only the panels it draws use it)  # noqa: B010
    import os
    import sys

    if "--no-color" in sys.argv or os.environ.get("NO_COLOR"):  # help, too, without escape sequences
        setattr(rich_utils, "COLOR_SYSTEM", None)  # noqa: B010


def _plain(cell: Any) -> str:
    """The text of a help cell: a rich Text, or typer's Columns of them."""
    if hasattr(cell, "plain"):
        return str(cell.plain)
    return " ".join(_plain(r) for r in getattr(cell, "renderables", ()))


def _joined(cell: Any, text_type: Any) -> Any:
    """Typer's help cell (a Columns of texts: the help, [default: ...], [required]) as one text that wraps between
    words: a Columns lays its items out in a grid of its own, which cuts a long word with an ellipsis."""
    items = getattr(cell, "renderables", None)
    if not items or not all(isinstance(i, text_type) for i in items):
        return cell
    out = text_type(" ").join(items)
    out.overflow = "fold"
    return out


def _broken(cell: Any, text_type: Any) -> Any:
    """A choice list longer than CHOICES_WIDTH, broken after its '|'s into lines that fit (each choice whole)."""
    if not isinstance(cell, text_type) or len(cell.plain) <= CHOICES_WIDTH or "|" not in cell.plain:
        return cell
    lines, line = [], ""
    for part in cell.plain.split("|"):
        piece = part if not line else f"|{part}"
        if line and len(line) + len(piece) > CHOICES_WIDTH:
            lines.append(line + "|")
            line = part
        else:
            line += piece
    lines.append(line)
    out = text_type("\n".join(lines), style=cell.style)
    return out


def wrap_format_help() -> None:
    """Make every typer command's and group's help install the layout first (cheap: no rich import until then)."""
    import typer.core as core

    for cls in (core.TyperCommand, core.TyperGroup):
        original = cls.format_help
        if getattr(original, "_kafkactl", False):
            continue

        def format_help(self: Any, ctx: Any, formatter: Any, _original: Any = original) -> None:
            install()
            _original(self, ctx, formatter)

        format_help._kafkactl = True  # type: ignore[attr-defined]
        cls.format_help = format_help  # type: ignore[method-assign]
