"""Plain (tab-separated, no header, never truncated) and CSV (with a header row)."""

from __future__ import annotations

import csv
from typing import Any, TextIO

from kafkactl.formatters.model import Tabular


def _plain_cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    # a tab or newline inside a value would break `cut -f`
    return str(value).replace("\t", " ").replace("\n", " ")


def render_plain(t: Tabular, out: TextIO) -> None:
    lines = []
    for row in t.rows:
        lines.append("\t".join(_plain_cell(v) for v in row) + "\n")
        if len(lines) == 512:  # a write per row costs more than the row's formatting
            out.write("".join(lines))
            lines.clear()
    out.write("".join(lines))


def render_csv(t: Tabular, out: TextIO) -> None:
    w = csv.writer(out, lineterminator="\n")
    if not t.columns:  # (nothing, and nothing to say of what it would have been)
        return
    w.writerow(t.columns)
    for row in t.rows:
        w.writerow(["" if v is None else ("true" if v is True else "false" if v is False else v) for v in row])
