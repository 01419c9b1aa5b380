"""A pytest plugin: at the end of the run, the wall time each part of the suite took.

A part is a test module under tests/integration (each starts its own brokers or shares the session's) or
the unit and cli directories as a whole. Setup and teardown count with the test they ran for, so a module's
broker start-up is in that module's time (the session's shared sandbox
in the first module that asks for it). The table goes to the terminal summary, where CI's log keeps it. On
pytest-xdist workers the parts run side by side: the total is their sum, and the run's wall time is given too.
"""

from __future__ import annotations

import time
from collections import defaultdict

import pytest

_seconds: defaultdict[str, float] = defaultdict(float)
_tests: defaultdict[str, set[str]] = defaultdict(set)  # (a test that fails in its set-up counts too)
_started = {"at": time.monotonic()}


def _part(nodeid: str) -> str:
    path = nodeid.split("::", 1)[0]
    directory, _, name = path.rpartition("/")
    if directory.endswith("integration"):
        return name.removesuffix(".py")
    return directory.rpartition("/")[2] or name


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    part = _part(report.nodeid)
    _seconds[part] += report.duration
    _tests[part].add(report.nodeid)


def pytest_sessionstart(session: pytest.Session) -> None:  # noqa: ARG001 (pytest's hook signature)
    _started["at"] = time.monotonic()


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:  # noqa: ARG001 (pytest's hook signature)
    if not _seconds:
        return
    terminalreporter.section("time per part")
    total = sum(_seconds.values())
    for part, seconds in sorted(_seconds.items(), key=lambda item: -item[1]):
        terminalreporter.write_line(f"{part:<34} {len(_tests[part]):>5} tests {seconds:>8.1f} s")
    workers = getattr(config.option, "numprocesses", None)
    summed = f" (summed over {workers} workers; wall time {time.monotonic() - _started['at']:.1f} s)" if workers else ""
    terminalreporter.write_line(f"{'all':<34} {sum(len(t) for t in _tests.values()):>5} tests {total:>8.1f} s{summed}")
