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
