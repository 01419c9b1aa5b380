"""SIGTERM and SIGHUP stop a command as Ctrl-C does, then exit 143 or 129; after the command, they end it at once.

Each case runs in a Python process of its own (a signal handler is the process's), which signals itself.
"""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest

_DURING = """
import os, signal, sys
from kafkactl import signals
from kafkactl.errors import Terminated
signals.arm()
try:
    os.kill(os.getpid(), signal.{name})
    import time; time.sleep(5)
    print("not raised")
except Terminated:
    print(signals.interrupted_word(), signals.interrupted_code(130), signals.interrupted_code(5))
"""

_AFTER = """
import os, signal, time
from kafkactl import signals
signals.arm()
signals.disarm()
os.kill(os.getpid(), signal.{name})
time.sleep(5)
print("survived")
"""


def _run(script: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=30)


@pytest.mark.parametrize(("name", "code"), [("SIGTERM", 143), ("SIGHUP", 129)])
def test_a_signal_during_a_command_raises_as_ctrl_c_and_gives_its_own_code(name: str, code: int) -> None:
    done = _run(_DURING.format(name=name))
    assert done.stdout.split() == ["interrupted", "by", name, str(code), "5"], done.stderr


def test_ctrl_c_alone_keeps_its_word_and_code() -> None:
    done = _run("from kafkactl import signals; signals.arm(); "
                "print(signals.interrupted_word(), signals.interrupted_code(130))")
    assert done.stdout.split() == ["interrupted", "130"], done.stderr


@pytest.mark.parametrize("name", ["SIGTERM", "SIGHUP"])
def test_a_signal_after_the_command_ends_the_process_at_once_of_that_signal(name: str) -> None:
    done = _run(_AFTER.format(name=name))
    assert done.returncode == -getattr(signal, name) and "survived" not in done.stdout, (done.returncode, done.stderr)


_TWICE = """
import os, signal, time
from kafkactl import signals
from kafkactl.errors import Terminated
signals.arm()
try:
    os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(5)
except Terminated:
    time.sleep({gap})
    os.kill(os.getpid(), signal.{second})  # (timeout(1): to its child, then to its process group)
    time.sleep(0.3)
    print("wrote the report")
"""


def test_the_same_signal_delivered_twice_at_once_still_lets_the_report_be_written() -> None:
    done = _run(_TWICE.format(gap=0.05, second="SIGTERM"))
    assert done.stdout.strip() == "wrote the report" and done.returncode == 0, (done.returncode, done.stderr)


@pytest.mark.parametrize(("gap", "second"), [(1.2, "SIGTERM"), (0.05, "SIGHUP")], ids=["later", "the other signal"])
def test_a_second_signal_later_or_of_the_other_kind_ends_the_process_at_once(gap: float, second: str) -> None:
    done = _run(_TWICE.format(gap=gap, second=second))
    assert done.returncode == -getattr(signal, second) and "wrote" not in done.stdout, (done.returncode, done.stderr)
