"""The one writer of owner-only files."""

from __future__ import annotations

import os
import stat

import pytest

from kafkactl.privatefile import write_private


def mode(path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def test_a_new_file_is_0600_under_a_0700_directory(tmp_path):
    target = tmp_path / "new" / "state.json"
    old = os.umask(0)
    try:
        write_private(target, "secret")
    finally:
        os.umask(old)
    assert target.read_text() == "secret" and mode(target) == 0o600 and mode(target.parent) == 0o700
    assert [p.name for p in target.parent.iterdir()] == ["state.json"]  # no temporary file left behind


def test_an_existing_readable_file_is_replaced_by_a_private_one(tmp_path):
    target = tmp_path / "config.yaml"
    target.write_text("old")
    os.chmod(target, 0o644)
    write_private(target, "new")
    assert target.read_text() == "new" and mode(target) == 0o600


@pytest.mark.parametrize("atomic", [True, False])
def test_a_planted_link_is_not_written_through(tmp_path, atomic):
    victim = tmp_path / "victim"
    victim.write_text("untouched")
    link = tmp_path / "argfile"
    link.symlink_to(victim)
    write_private(link, "payload", atomic=atomic, fresh=True)
    assert victim.read_text() == "untouched"
    assert not link.is_symlink() and link.read_text() == "payload" and mode(link) == 0o600


def test_without_fresh_a_link_is_refused_rather_than_followed(tmp_path):
    victim = tmp_path / "victim"
    victim.write_text("untouched")
    link = tmp_path / "cache.json"
    link.symlink_to(victim)
    with pytest.raises(OSError):
        write_private(link, "payload", atomic=False)
    assert victim.read_text() == "untouched"


@pytest.mark.parametrize("signame", ["SIGTERM", "SIGHUP"])
def test_private_temporary_directories_go_when_the_process_is_terminated(tmp_path, signame):
    """timeout(1), systemd and CI cancels send SIGTERM, a closed terminal SIGHUP: Python runs no atexit for them."""
    import signal
    import subprocess
    import sys

    code = ("import sys, time\nfrom kafkactl.privatefile import private_tempdir\n"
            "d = private_tempdir('kafkactl-test-')\n(d / 'key.pem').write_text('x')\n"
            "print(d, flush=True)\ntime.sleep(60)\n")
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True,
                         env={**os.environ, "TMPDIR": str(tmp_path)})
    made = p.stdout.readline().strip()
    assert made and os.path.isdir(made)
    p.send_signal(getattr(signal, signame))
    assert p.wait(timeout=20) == -getattr(signal, signame)  # still dies of the signal: 143 / 129 in a shell
    assert not os.path.exists(made)


def test_an_out_file_is_tried_for_writing_once_a_killed_run_s_temporary_file_is_gone(tmp_path):
    """Review: the write probe took the temporary file's own name with O_EXCL, so a file left by a killed run
    with the same process id (kafkactl as PID 1 in each container) refused every later run; the probe leaves
    nothing behind."""
    from kafkactl.errors import UsageError
    from kafkactl.privatefile import check_out_file

    report = tmp_path / "r.jsonl"
    stale = tmp_path / f".r.jsonl.{os.getpid()}.tmp"
    stale.write_text("half a report")
    check_out_file(str(report), "--report")
    assert sorted(p.name for p in tmp_path.iterdir()) == []
    with pytest.raises(UsageError, match="cannot be written"):
        check_out_file(str(tmp_path / ("r" * 250)), "--report")
