"""The --report of an apply, one writer for every kind of change: one JSON object per line, each a change's outcome
(desired/change.py's Outcome: kind, cluster, target, action, before, after, undoable, status, error, and the kind's
own fields beside them).

The file is checked not to be one the command reads (by identity: another name or a link to it is the same file)
and created empty, owner-only, before anything is sent: whatever the run then does (nothing to do, a refusal, a
stop part way), the file at that path describes this run, never an earlier one. Outcomes are appended as they are
known, so an apply that stops still leaves the outcomes it had.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Protocol, TextIO

from kafkactl.privatefile import check_not_read, write_private


class Recorded(Protocol):
    def to_json(self) -> dict[str, Any]: ...


class Report:
    def __init__(self, path: str | None, option: str = "--report") -> None:
        self.path = path
        self.option = option
        self.started = False
        self.failed: str | None = None  # why a write failed (the apply goes on: its changes are made)
        self._fh: TextIO | None = None

    def start(self) -> Report:
        """Create the file empty, once every input file is read and before the cluster is asked anything (so that a
        refusal, too, leaves this run's empty report rather than the last run's)."""
        if self.path and not self.started:
            check_not_read(self.path, self.option)
            write_private(Path(self.path), "")
        self.started = True
        return self

    @property
    def handle(self) -> TextIO | None:
        """The open file the engines append to (None without --report)."""
        self.start()
        if self.path and self._fh is None:
            self._fh = open(self.path, "a", encoding="utf-8")  # noqa: SIM115 (closed by close(), after the apply)
        return self._fh

    def write(self, outcomes: Iterable[Recorded]) -> str | None:
        """Append outcomes; why they could not be written, if so (the changes are made: say it, don't raise). After
        a failed write nothing more is written: a report with a hole in it would read as complete."""
        if not self.path or self.failed:
            return self.failed
        try:
            fh = self.handle
            assert fh is not None
            fh.write("".join([json.dumps(o.to_json()) + "\n" for o in outcomes]))  # (one write: Ctrl-C lands
            # before or after it, never half way through a batch)
            fh.flush()
        except OSError as exc:
            self.failed = f"{self.path}: {exc.strerror or type(exc).__name__}"
        return self.failed

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None

    def __enter__(self) -> Report:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
