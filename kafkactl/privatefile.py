"""Files only their owner may read (contexts, sandbox state and passwords, completion caches): one writer.

The file is created 0600 from its first byte (never chmod-ed after a window in which others could open it),
under a directory created 0700. `atomic` writes a temporary file beside it and renames it into place, so a
reader sees the old or the new text, never half of one; `fresh` refuses to write through whatever is already at
the path (a link planted there by someone else) and creates the file anew.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path

# every file this process reads for a command (State files, scope files, saved plans, secret files, client
# properties), by identity: an output path that is one of them is refused, whatever name or link reaches it
_READ: dict[tuple[int, int], str] = {}


def note_read(path: str | os.PathLike[str]) -> None:
    """`path` is (or will be) read by this command: no output may be written over it."""
    try:
        st = os.stat(os.path.expanduser(path))
    except (OSError, ValueError):
        return  # no file there: its reader says so; nothing can be written over it either
    _READ.setdefault((st.st_dev, st.st_ino), str(path))


def forget_reads() -> None:
    """A new command begins: the files the last one read are no longer this one's."""
    _READ.clear()


def read_as(path: str | os.PathLike[str]) -> str | None:
    """The name under which this command read the file at `path` (the same file: a link or another name for it)."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return _READ.get((st.st_dev, st.st_ino))


def check_not_read(path: str | os.PathLike[str], option: str) -> None:
    """Refuse to write `path` when the command read that very file (same device and inode)."""
    from kafkactl.errors import UsageError
    from kafkactl.limits import shown

    read = read_as(path)
    if read is not None:
        same = "" if str(read) == str(path) else f" (the file read as {shown(str(read))})"
        raise UsageError(f"{option} {shown(str(path))}: the command reads that file{same}; write elsewhere")


def check_out_file(path: str | None, option: str, inputs: Iterable[str] = ()) -> None:
    """A file kafkactl will write, checked before anything is read, sent or asked: its directory exists, it is
    not a directory or something other than a file, nor one of the command's `inputs`, and a file can be made
    beside it (the write goes through a temporary file there: a read-only or immutable directory, /proc, a
    name too long would otherwise fail only after the cluster was changed)."""
    from kafkactl.errors import UsageError
    from kafkactl.limits import shown

    if path is None:
        return
    p = Path(path)
    if p.is_symlink() and not p.exists():
        raise UsageError(f"{option} {shown(path)}: a symbolic link to nothing")
    if p.exists() and not p.is_file():
        raise UsageError(f"{option} {shown(path)}: not a regular file")
    if not p.resolve().parent.is_dir():
        raise UsageError(f"{option} {shown(path)}: its directory does not exist")
    for i in inputs:
        note_read(i)
        if Path(i).is_dir():  # a saved plan: every file in it is read
            for f in Path(i).rglob("*"):
                note_read(f)
    check_not_read(p, option)
    probe = p.with_name(f".{p.name}.{os.getpid()}.tmp")  # the temporary file's own name (and length)
    try:
        probe.unlink(missing_ok=True)  # left by a killed run with this process id: the write removes it too
        os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600))
        probe.unlink()
    except OSError as exc:
        raise UsageError(f"{option} {shown(path)}: cannot be written ({exc.strerror or type(exc).__name__})") from None


def write_output(path: str, text: str, option: str) -> None:
    """A file the operator asked for (a report, a saved plan, an export), never over a file the command read."""
    check_not_read(path, option)
    write_private(Path(path), text)


def write_private(path: Path, text: str, *, atomic: bool = True, fresh: bool = False) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    target = path.with_name(f".{path.name}.{os.getpid()}.tmp") if atomic else path
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW
    if fresh or atomic:
        target.unlink(missing_ok=True)
        flags |= os.O_EXCL
    fd = os.open(target, flags, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.chmod(target, 0o600)  # an umask cannot widen it, but an existing file kept its mode under O_TRUNC
        if atomic:
            if fresh:
                path.unlink(missing_ok=True)
            os.replace(target, path)
    except BaseException:
        if atomic:
            target.unlink(missing_ok=True)
        raise


_TEMP_DIRS: list[Path] = []


def private_tempdir(prefix: str) -> Path:
    """A fresh 0700 directory for this process's private files (PEM material made from a key store, ...), removed
    by `remove_tempdirs()`: the CLI calls it before it exits, and atexit for other users of the core."""
    import atexit
    import tempfile

    path = Path(tempfile.mkdtemp(prefix=prefix))
    if not _TEMP_DIRS:
        atexit.register(remove_tempdirs)
        remove_on_signals()
    _TEMP_DIRS.append(path)
    return path


def remove_and_die(signum: int, frame: object) -> None:  # noqa: ARG001 (a signal handler's signature)
    import signal

    remove_tempdirs()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def remove_on_signals() -> None:
    """SIGTERM (timeout, systemd, a CI cancel), SIGHUP (a closed terminal) and SIGQUIT (Ctrl-\\) end Python without
    atexit: remove the directories first, then die of the same signal, so the caller still sees 143, 129 or 131."""
    import signal

    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT):
        try:
            if signal.getsignal(sig) is signal.SIG_DFL:  # never over a handler someone else set
                signal.signal(sig, remove_and_die)
        except ValueError:  # not the main thread: atexit is all there is
            pass


def remove_tempdirs() -> None:
    import shutil

    while _TEMP_DIRS:
        shutil.rmtree(_TEMP_DIRS.pop(), ignore_errors=True)
    while _ALSO:
        try:
            _ALSO.pop()()
        except Exception:  # noqa: S110 (cleaning up on the way out: nothing to tell, nowhere to tell it)
            pass


_ALSO: list[Callable[[], None]] = []


def remove_also(cleanup: Callable[[], None]) -> None:
    """One more cleanup for `remove_tempdirs` (and so for SIGTERM and SIGHUP, and atexit): files this process's
    helpers made where it can remove them, such as the task directories of a local Spark run."""
    _ALSO.append(cleanup)
