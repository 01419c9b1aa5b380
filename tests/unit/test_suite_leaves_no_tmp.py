"""The suite's own check that a run leaves nothing in /tmp (tests/conftest.py): it sees what a process that escapes
TMPDIR leaves, as a Spark executor with Java's default java.io.tmpdir did (lz4's native library)."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from tests import conftest


def test_the_run_s_temporary_files_live_in_the_session_directory():
    assert Path(tempfile.gettempdir()) == conftest._SESSION_HOME / "tmp" == Path(os.environ["TMPDIR"])
    child = subprocess.run([sys.executable, "-c", "import tempfile; print(tempfile.gettempdir())"],
                           capture_output=True, text=True, check=True)
    assert child.stdout.strip() == str(conftest._SESSION_HOME / "tmp")


def test_an_escaped_file_in_tmp_is_seen_and_counted_as_the_suite_s():
    name = f"liblz4-java-{os.getpid()}-check.so"
    path = conftest._TMP_ROOT / name
    path.write_bytes(b"")
    try:
        left = conftest._new_in_tmp()
        assert name in left and name.startswith(conftest._OURS_IN_TMP)
    finally:
        path.unlink()
    assert name not in conftest._new_in_tmp()


def test_another_run_s_session_directory_is_not_this_run_s():
    """A second run of the suite beside this one (another checkout) makes its session directory in /tmp too:
    while that run goes on, it is not counted as this run's; once its process is gone, it is."""
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    path = Path(tempfile.mkdtemp(prefix="kafkactl-tests-", dir=conftest._TMP_ROOT))
    try:
        (path / "run.pid").write_text(str(other.pid))
        assert path.name not in conftest._new_in_tmp()
        other.kill()
        other.wait()
        assert path.name in conftest._new_in_tmp()
    finally:
        other.kill()
        (path / "run.pid").unlink(missing_ok=True)
        path.rmdir()
