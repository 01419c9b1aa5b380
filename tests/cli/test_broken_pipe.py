"""Standard output that cannot take what kafkactl writes: a reader that goes away early (`| head -c 100`) ends it
with 141, quietly, however Python's standard output is set up (PYTHONUNBUFFERED, python -u, which many CI and
container images set, once made a large answer's write stop at the pipe's 64 KiB with no error, and the command
exit 0 as if the whole answer had been read); a full disk is one line and exit 1; a closed stdout is refused."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest


@pytest.fixture(scope="module")
def big_import(tmp_path_factory) -> Path:
    """A kafka-security-manager CSV whose State file is about 750 KB of YAML (the pipe holds 64 KiB)."""
    path = tmp_path_factory.mktemp("pipe") / "acls.csv"
    rows = ["KafkaPrincipal,ResourceType,PatternType,ResourceName,Operation,PermissionType,Host"]
    # (names with a dot or comma in every 6 characters: the secrets sweep reads this file, and a run of letters and
    # digits such as "ic-1234" can be a piece of a random test password)
    rows += [f"User:u{i % 50},Topic,LITERAL,t.{i // 100}.{i % 100},Read,Allow,*" for i in range(15_000)]
    path.write_text("\n".join(rows) + "\n")
    return path


@pytest.mark.parametrize("unbuffered", ["1", ""], ids=["PYTHONUNBUFFERED=1", "buffered"])
def test_a_reader_gone_early_ends_the_command_with_141(big_import: Path, unbuffered: str) -> None:
    exe = shutil.which("kafkactl", path=str(Path(sys.executable).parent))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    if unbuffered:
        env["PYTHONUNBUFFERED"] = unbuffered
    r = subprocess.run(["bash", "-c", f'"{exe}" acls import --from ksm "{big_import}" | head -c 100 >/dev/null; '
                        'echo "status=${PIPESTATUS[0]}" >&2'], capture_output=True, text=True, env=env, timeout=120)
    assert "status=141" in r.stderr, r.stderr[-2000:]
    assert "Traceback" not in r.stderr and "Broken pipe" not in r.stderr and "error" not in r.stderr


def test_with_a_reader_that_stays_every_byte_arrives(big_import: Path) -> None:
    exe = shutil.which("kafkactl", path=str(Path(sys.executable).parent))
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    r = subprocess.run(["bash", "-c", f'"{exe}" acls import --from ksm "{big_import}" | (sleep 0.5; cat)'],
                       capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0 and r.stdout.count("\n") > 15_000 and r.stdout.startswith("apiVersion: kafkactl/v1")


@pytest.mark.parametrize("unbuffered", ["1", ""], ids=["PYTHONUNBUFFERED=1", "buffered"])
@pytest.mark.parametrize("args", [["--version"], ["acls", "decode-ops", "3576"]], ids=["version", "decode-ops"])
def test_a_full_disk_is_one_line_and_exit_1(unbuffered: str, args: list[str]) -> None:
    """Adversary pass: what stayed buffered failed again at exit, with a traceback and exit 120."""
    exe = shutil.which("kafkactl", path=str(Path(sys.executable).parent))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    if unbuffered:
        env["PYTHONUNBUFFERED"] = unbuffered
    with open("/dev/full", "w") as full:
        r = subprocess.run([exe, *args], stdout=full, stderr=subprocess.PIPE, text=True, env=env, timeout=60)
    assert r.returncode == 1 and r.stderr == "error: cannot write: No space left on device\n", r.stderr


def test_a_closed_stdout_is_refused_before_anything_runs() -> None:
    """Adversary pass: `>&-` gave an AttributeError and a traceback. Nothing could be written: nothing is done."""
    exe = shutil.which("kafkactl", path=str(Path(sys.executable).parent))
    r = subprocess.run(["bash", "-c", f'"{exe}" --context nowhere acls list >&-'], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 2 and r.stderr.startswith("error: standard output is closed") and \
        r.stderr.count("\n") == 1, r.stderr
