"""A second sandbox for the tests that need two clusters (MirrorMaker's target, `diff`)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def second_sandbox(base: Path, label: str) -> Iterator[tuple[str, Path]]:
    """(bootstrap, admin properties) of a sandbox of its own under `base`: its own home and, while it starts and
    stops, its own XDG directories (its contexts must not replace the session's)."""
    from kafkactl.local.sandbox import Sandbox
    from tests.conftest import own_xdg
    from tests.secrets_sweep import register

    mp = own_xdg(base)
    sb = Sandbox(home=base / "state" / "kafkactl" / "local")
    try:
        sb.up(timeout=240)
        state = sb.load_state()
    finally:
        mp.undo()
    assert state is not None
    for user, password in state.passwords.items():
        register(password, f"the {label} sandbox's password of {user}")
    admin_props = base / "admin.properties"
    admin_props.write_text(f"bootstrap.servers={state.bootstrap}\n" + (sb.home / "client-admin.properties").read_text())
    admin_props.chmod(0o600)
    try:
        yield state.bootstrap, admin_props
    finally:
        mp = own_xdg(base)
        try:
            sb.down(purge=True)
        finally:
            mp.undo()
