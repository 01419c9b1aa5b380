"""The tour of `make demo` (scripts/tour.sh), run whole against a sandbox of its own: nothing it writes outlives it
unless asked for, and no file holding a password is left anywhere (issue 29: it left a 33 MB directory in /tmp
holding a client properties file with a SCRAM password)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _tour(env: dict[str, str], tmp: Path, **extra: str) -> subprocess.CompletedProcess:
    env = {**env, "TMPDIR": str(tmp), "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}",
           "TOUR_TEAMS": "1", "TOUR_APPS": "2", "TOUR_TOPICS": "5", "TOUR_SPARK": "", **extra}
    return subprocess.run(["bash", str(ROOT / "scripts" / "tour.sh")], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=600)


@pytest.mark.timeout(900)
def test_the_tour_leaves_nothing_behind_and_no_password_anywhere(own_sandbox_env, tmp_path):
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    try:
        r = _tour(own_sandbox_env, tmp)
        assert r.returncode == 0, r.stderr[-3000:]
        assert "User:teama-app-1" in r.stdout  # the last step ran: whoami as the user the tour made
        assert list(tmp.iterdir()) == [], list(tmp.rglob("*"))  # the tour's directory went with it
        assert "password=" not in r.stdout + r.stderr
        r = _tour(own_sandbox_env, tmp, TOUR_KEEP="1")  # kept when asked: said where, and still no password
        assert r.returncode == 0, r.stderr[-3000:]
        (kept,) = tmp.iterdir()
        assert f"kept {kept} (TOUR_KEEP)" in r.stderr
        assert sorted(p.name for p in kept.iterdir()) == ["plan", "report.jsonl", "teams.jsonl"]
        assert not [p for p in kept.rglob("*") if p.is_file() and "password" in p.read_text(errors="replace")]
    finally:
        subprocess.run([sys.executable, "-m", "kafkactl", "local", "down", "--purge"], env=own_sandbox_env,
                       capture_output=True, timeout=120)
