"""Every example of README.md and docs/ runs as its page says, against a sandbox of its own (issue 29, item 8):
pages in order, each on a cluster emptied of the last page's topics and ACLs, each example's exit code the one
the page gives (0 unless `# exit N`)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.docs_examples import pages, script, steps

BIN = Path(sys.executable).parent


def _kafkactl(env: dict[str, str], *args: str, check: bool = True) -> subprocess.CompletedProcess:
    r = subprocess.run([str(BIN / "kafkactl"), *args], env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 or not check, (args, r.stderr)
    return r


def _empty(env: dict[str, str]) -> None:
    """The last page's topics and ACLs gone (the sandbox's users and contexts stay)."""
    _kafkactl(env, "local", "up")  # (a page may have stopped it)
    _kafkactl(env, "--context", "local-admin", "acls", "delete", "--all", "--yes")
    topics = _kafkactl(env, "--context", "local-admin", "-o", "plain", "topics", "list", "--exclude-internal")
    names = [line.split("\t")[0] for line in topics.stdout.splitlines() if line.strip()]
    if names:
        _kafkactl(env, "--context", "local-admin", "topics", "delete", *names, "--yes")


@pytest.mark.spark  # (docs/spark.md runs --spark, and a standalone Spark cluster)
@pytest.mark.timeout(1800)
def test_every_example_runs_as_its_page_says(own_sandbox_env, tmp_path):
    env = {**own_sandbox_env, "PATH": f"{BIN}:{os.environ['PATH']}", "TMPDIR": str(tmp_path / "tmp"),
           "NO_COLOR": "1", "COLUMNS": "120"}
    (tmp_path / "tmp").mkdir()
    failures, ran = [], 0
    try:
        for page in pages():
            _empty(env)
            out = tmp_path / "out" / page.stem
            work = tmp_path / "work" / page.stem
            out.mkdir(parents=True)
            work.mkdir(parents=True)
            subprocess.run(["bash", "-c", script(page, out)], cwd=work, env=env, capture_output=True, text=True,
                           timeout=1200)
            codes = dict(line.split() for line in (out / "codes").read_text().splitlines()) \
                if (out / "codes").exists() else {}
            for s in steps(page):
                ex = s.example
                if ex is None or ex.not_run is not None:
                    continue
                ran += 1
                got = codes.get(str(ex.line))
                if got != str(ex.exit_code):
                    err = (out / f"{ex.line}.err").read_text()[-400:] if (out / f"{ex.line}.err").exists() else ""
                    failures.append(f"{ex.page}:{ex.line}: {ex.command}\n  exit {got}, the page says "
                                    f"{ex.exit_code}: {err.strip()}")
    finally:
        _kafkactl(env, "local", "down", "--purge", check=False)
    print(f"{ran} examples run")
    assert ran and not failures, "\n".join(failures)
