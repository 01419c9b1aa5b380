"""completions/ and man/ are what the code generates; the man pages render cleanly; exit codes agree."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from kafkactl.cli import docs as _docs
from kafkactl.exitcodes import DESCRIPTIONS

ROOT = Path(__file__).resolve().parents[2]
GENERATED = _docs.generate()


def test_generated_files_are_committed_and_current():
    stale = [str(rel) for rel, text in GENERATED.items()
             if not (ROOT / rel).exists() or (ROOT / rel).read_text(encoding="utf-8") != text]
    assert stale == [], "run `make docs`"
    on_disk = {p.relative_to(ROOT) for d in ("man", "completions") for p in (ROOT / d).iterdir()}
    assert on_disk - set(GENERATED) == set(), "files no command generates any more"


def test_every_command_has_a_page():
    pages = {p.name for p in (ROOT / "man").glob("*.1")}
    for path in ("kafkactl", "kafkactl-acls", "kafkactl-acls-create", "kafkactl-acls-apply", "kafkactl-configs-alter",
                 "kafkactl-topics-delete", "kafkactl-groups-describe", "kafkactl-local-up", "kafkactl-completion-bash"):
        assert f"{path}.1" in pages


@pytest.mark.parametrize("page", sorted(p.name for p in (ROOT / "man").glob("*.1")))
def test_page_has_the_standard_sections(page):
    text = (ROOT / "man" / page).read_text()
    for section in ("NAME", "SYNOPSIS", "DESCRIPTION", "EXIT STATUS", "ENVIRONMENT", "FILES", "EXAMPLES", "SEE ALSO"):
        assert f'.SH {section}' in text or f'.SH "{section}"' in text, section


def test_exit_status_section_lists_every_exit_code():
    text = (ROOT / "man" / "kafkactl-acls-create.1").read_text()
    section = text.split(".SH EXIT STATUS", 1)[1].split(".SH ", 1)[0]
    codes = [int(c) for c in re.findall(r"\\fB(\d+)\\fP", section)]
    assert codes == [int(c) for c in DESCRIPTIONS]


def test_docs_exit_code_table_matches_the_code():
    page = (ROOT / "docs" / "exit-codes.md").read_text()
    table = page.split("# Exit codes", 1)[1].split("\n## ", 1)[0]
    rows = dict(re.findall(r"^\| (\d+) \| (.+?) \|$", table, re.M))
    assert {int(k): v.replace("`", "") for k, v in rows.items()} == {int(k): v for k, v in DESCRIPTIONS.items()}


@pytest.mark.parametrize("page", ["kafkactl.1", "kafkactl-acls-create.1", "kafkactl-configs-alter.1",
                                  "kafkactl-acls-apply.1"])
def test_man_renders_without_warnings(page):
    assert shutil.which("man"), "man(1) is needed to check the pages"
    p = subprocess.run(["man", "--warnings", "-l", str(ROOT / "man" / page)], capture_output=True, text=True,
                       env={"MANWIDTH": "80", "LC_ALL": "C.UTF-8", "PATH": "/usr/bin:/bin", "MANPAGER": "cat"},
                       timeout=30)
    assert p.returncode == 0 and p.stderr == ""
    assert "EXIT STATUS" in p.stdout and "kafkactl" in p.stdout.splitlines()[0]


def test_man_page_examples_come_from_the_command_docstrings():
    text = (ROOT / "man" / "kafkactl-acls-create.1").read_text()
    from kafkactl.commands.acls.crud import acls_create

    example = next(ln.split("Example:", 1)[1].strip() for ln in acls_create.__doc__.splitlines() if "Example:" in ln)
    assert example.replace("-", "\\-") in text


def test_the_wheel_installs_completions_and_man_pages(tmp_path):
    import sys
    import zipfile

    p = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(ROOT)],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    wheel = next(tmp_path.glob("kafkactl-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    data = {n.split(".data/data/", 1)[1]: n for n in names if ".data/data/" in n}
    from kafkactl.cli.shell import FILES, INSTALL_PATHS

    for shell, installed in INSTALL_PATHS.items():
        assert installed in data, shell
        assert zipfile.ZipFile(wheel).read(data[installed]).decode() == GENERATED[Path("completions") / FILES[shell]]
    pages = {n for n in data if n.startswith("share/man/man1/")}
    assert pages == {f"share/man/man1/{p.name}" for p in (ROOT / "man").glob("*.1")}
