"""The table view of a big result on a terminal (issue 29, item 2): time from the rows being known to the first
line written, and to the last, for 50,000 ACL bindings; kafkactl's table view against its anchor, the same rows
laid out by one rich table as the view did before (how `acls list` took 30.5 s on the tour's 50,401 ACLs).
Interleaved rounds, render only (the broker's answer is the same for both: not measured here).

    .venv/bin/python bench/table_first_line.py --rows 50000 --rounds 3
"""

from __future__ import annotations

import argparse
import io
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


class _Terminal(io.StringIO):
    """A terminal of 160 columns that notes when its first line arrives."""

    def __init__(self) -> None:
        super().__init__()
        self.first: float | None = None

    def isatty(self) -> bool:
        return True

    def write(self, s: str) -> int:
        if self.first is None and "\n" in s:
            self.first = time.perf_counter()
        return super().write(s)


def rows(n: int) -> list:
    from kafkactl.acl.model import AclBinding, AclOperation, PatternType, Permission, ResourceType

    ops = [AclOperation.READ, AclOperation.WRITE, AclOperation.DESCRIBE]
    return [AclBinding(ResourceType.TOPIC, f"team{i % 4}.t{i:05d}", PatternType.LITERAL,
                       f"User:team{i % 4}-app-{i % 25}", "*", ops[i % 3], Permission.ALLOW) for i in range(n)]


def kafkactl_view(data: list, out: _Terminal) -> None:
    from rich.console import Console

    from kafkactl.formatters.table import render_table

    render_table(data, Console(file=out, width=160, force_terminal=True, color_system=None))


def anchor_view(data: list, out: _Terminal) -> None:
    """One rich table of every row, as the table view built it before."""
    from rich.console import Console
    from rich.table import Table

    from kafkactl.formatters.model import table_of

    t = table_of(data)
    table = Table()
    for c in t.columns:
        table.add_column(c.upper(), overflow="fold")
    for r in t.rows:
        table.add_row(*[str(v) for v in r])
    Console(file=out, width=160, force_terminal=True, color_system=None).print(table)


def timed(view, data: list) -> tuple[float, float]:
    out = _Terminal()
    start = time.perf_counter()
    view(data, out)
    end = time.perf_counter()
    return (out.first or end) - start, end - start


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=50_000)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    data = rows(args.rows)
    got: dict[str, list[tuple[float, float]]] = {"kafkactl": [], "anchor": []}
    import contextlib

    for _ in range(args.rounds):
        with contextlib.redirect_stderr(io.StringIO()):  # (the view's note: not part of the measurement)
            got["kafkactl"].append(timed(kafkactl_view, data))
        got["anchor"].append(timed(anchor_view, data))
    med = {k: (statistics.median(a for a, _ in v), statistics.median(b for _, b in v)) for k, v in got.items()}
    for k, (first, last) in med.items():
        print(f"{k:9} first line {first:7.3f} s   last line {last:7.3f} s")
    print(f"ratio (anchor / kafkactl): first line {med['anchor'][0] / med['kafkactl'][0]:.0f}x, "
          f"whole {med['anchor'][1] / med['kafkactl'][1]:.1f}x")


if __name__ == "__main__":
    main()
