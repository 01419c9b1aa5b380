"""SIGTERM and SIGHUP end a command as Ctrl-C does: its report and per-change result written, then exit 143 or 129.

`arm` (the CLI calls it on the main thread as a command starts) makes the first SIGTERM or SIGHUP raise
`Terminated`, a KeyboardInterrupt, in the main thread, so every path that handles Ctrl-C handles them too. The same
signal again within TWICE_S is the first one delivered twice (timeout(1) signals its child, then its process group)
and changes nothing; a second one after that, the other of the two, SIGQUIT, or one that comes after the command
has ended (`disarm`) removes the private files and ends the process at once, of that signal.
"""

from __future__ import annotations

import signal
import sys

from kafkactl.exitcodes import ExitCode
from kafkactl.privatefile import remove_and_die, remove_on_signals

_CODES = {signal.SIGTERM: ExitCode.TERMINATED, signal.SIGHUP: ExitCode.HANGUP}
# the same signal again this soon is the first one delivered twice, not a second request: timeout(1) sends SIGTERM
# to its child and then to its whole process group, and systemd and a shell's job control signal every process
# of the group too
TWICE_S = 1.0
_ended_by: list[signal.Signals] = []  # the SIGTERM or SIGHUP that is ending the command, once one came
_ended_at: list[float] = []


def _terminate(signum: int, frame: object) -> None:  # noqa: ARG001 (a signal handler's signature)
    """The first SIGTERM or SIGHUP: the command stops as on Ctrl-C."""
    import time

    _ended_by.append(signal.Signals(signum))
    _ended_at.append(time.monotonic())
    for sig in _CODES:
        signal.signal(sig, _again)
    spark = sys.modules.get("kafkactl.desired.spark")
    if spark is not None:  # py4j turns the exception into its own: the engine is told, as for Ctrl-C
        spark.note_interrupt()
    from kafkactl.errors import Terminated

    raise Terminated(signal.Signals(signum).name)


def _again(signum: int, frame: object) -> None:
    """A signal after the first: the same one delivered twice changes nothing; any other ends the process."""
    import time

    if signum == _ended_by[0] and time.monotonic() - _ended_at[0] < TWICE_S:
        return  # the first one, delivered twice: the command is already stopping
    remove_and_die(signum, frame)


def arm() -> None:
    """From the main thread, as a command starts (no handler can be set on another thread)."""
    try:
        for sig in _CODES:
            if signal.getsignal(sig) is signal.SIG_DFL:  # never over a handler someone else set
                signal.signal(sig, _terminate)
    except ValueError:  # not the main thread
        pass
    remove_on_signals()


def disarm() -> None:
    """The command has ended: a SIGTERM or SIGHUP from now on ends the process at once (nothing is left to report),
    its private files removed."""
    try:
        for sig in _CODES:
            if signal.getsignal(sig) in (_terminate, _again):
                signal.signal(sig, remove_and_die)
    except ValueError:  # not the main thread
        pass


def ended_by() -> str | None:
    """The name of the SIGTERM or SIGHUP that is ending the command (None: none came)."""
    return _ended_by[0].name if _ended_by else None


def interrupted_word() -> str:
    """How an interrupted command says it stopped: 'interrupted', or 'interrupted by SIGTERM' (or SIGHUP)."""
    return f"interrupted by {_ended_by[0].name}" if _ended_by else "interrupted"


def interrupted_code(code: int) -> int:
    """An interrupted command's exit code: 130 for Ctrl-C, 143 for SIGTERM and 129 for SIGHUP (as a shell reports
    a process the signal ended)."""
    return int(_CODES[_ended_by[0]]) if code == ExitCode.INTERRUPTED and _ended_by else code
