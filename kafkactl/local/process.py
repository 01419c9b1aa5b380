"""Process and port helpers for the sandbox's nodes: free ports, liveness, ownership and stopping."""

from __future__ import annotations

import os
import signal
import socket
import time
from pathlib import Path

HOST = "127.0.0.1"


def port_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.settimeout(0.2)
        return s.connect_ex((HOST, port)) != 0 and _bindable(port)


def port_holder(port: int) -> str | None:
    """Which process listens on `port` ("process 1234 (python3)"), read from /proc: the socket's inode in
    /proc/net/tcp*, then the process holding it; None when it cannot be told (another user's, no /proc)."""
    from pathlib import Path

    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            f = line.split()
            if len(f) > 9 and f[3] == "0A" and int(f[1].rsplit(":", 1)[1], 16) == port:  # 0A: LISTEN
                inodes.add(f"socket:[{f[9]}]")
    if not inodes:
        return None
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            fds = list((proc / "fd").iterdir())
        except OSError:  # gone, or another user's
            continue
        if any(_link(fd) in inodes for fd in fds):
            try:
                return f"process {proc.name} ({(proc / 'comm').read_text().strip()})"
            except OSError:
                return f"process {proc.name}"
    return None


def _link(fd: Path) -> str | None:
    """What a descriptor points at; None for one closed since it was listed (a busy process, such as one whose
    client threads open and close connections, closes some between the listing and the reading)."""
    try:
        return os.readlink(fd)
    except OSError:
        return None


def _bindable(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        # the broker binds with SO_REUSEADDR too, so a port in TIME_WAIT is still usable
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((HOST, port))
            return True
        except OSError:
            return False


def free_port(taken: set[int] | None = None) -> int:
    """A port nothing listens on, and not one of `taken` (ports planned but not bound yet)."""
    while True:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            s.bind((HOST, 0))
            port = s.getsockname()[1]
        if port not in (taken or set()):
            return port


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # a zombie child of this very process counts as dead
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(") ", 1)[1][:1] != "Z"
    except (FileNotFoundError, IndexError):
        return False


def is_ours(pid: int, properties: Path) -> bool:
    """Guard against a recycled pid: the process must be a java started with this node's properties file."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except FileNotFoundError:
        return False
    return str(properties).encode() in cmdline


def stop(pids: list[int], timeout: float) -> None:
    """SIGTERM each process group, then SIGKILL whatever still runs after `timeout` (all waited on together)."""
    for pid in pids:
        try:
            os.killpg(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and any(pid_alive(p) for p in pids):
        time.sleep(0.2)
    for pid in pids:
        try:
            os.killpg(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def argfile_line(arg: str) -> str:
    """One argument of a java @argfile: quoted, with the launcher's backslash escapes."""
    escaped = arg.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")
    return f'"{escaped}"\n'
