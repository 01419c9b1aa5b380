"""The examples of README.md and docs/*.md, read as their reader reads them (issue 29, item 8).

In a ```sh block, every line that starts with `kafkactl ` is an example: it must exit 0, or the code its
`# exit N` comment names, against a fresh sandbox, run in page order. A line ending in `# not run: REASON` is
shown, not run: the reason is required. A heredoc that writes a file (`cat > f <<'EOF'` ... `EOF`) is written
before the examples after it; other shell lines (make, pip, eval ...) are instructions, not examples.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NOT_RUN = re.compile(r"#\s*not run:\s*(.*)$")
EXIT = re.compile(r"#\s*exit\s+(\d+)\s*$")
HEREDOC = re.compile(r"^cat\s+(?:>\s*\S+\s+<<-?\s*'?(\w+)'?|<<-?\s*'?(\w+)'?\s*>\s*\S+)\s*$")


@dataclass(frozen=True)
class Example:
    page: str
    line: int  # 1-based, in the page
    command: str  # as the page shows it (continuation lines joined)
    exit_code: int = 0
    not_run: str | None = None  # why it is shown and not run


@dataclass(frozen=True)
class Step:
    """What the page's script does, in order: write a file (a heredoc), or run an example."""

    text: str
    example: Example | None = None


def pages() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def steps(page: Path) -> list[Step]:
    rel = str(page.relative_to(ROOT))
    out: list[Step] = []
    lines = page.read_text(encoding="utf-8").splitlines()
    in_sh = False
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if stripped.startswith("```"):
            in_sh = not in_sh and stripped in ("```sh", "```bash", "```shell")
            i += 1
            continue
        if not in_sh:
            i += 1
            continue
        start = i
        if HEREDOC.match(stripped):
            end = (HEREDOC.match(stripped).group(1) or HEREDOC.match(stripped).group(2))  # type: ignore[union-attr]
            body = [stripped]
            i += 1
            while i < len(lines) and lines[i].strip() != end:
                body.append(lines[i])
                i += 1
            body.append(end)
            out.append(Step("\n".join(body)))
            i += 1
            continue
        text = stripped.removeprefix("$ ")
        while text.endswith("\\") and i + 1 < len(lines):  # a command continued over lines
            i += 1
            text = text[:-1].rstrip() + " " + lines[i].strip()
        i += 1
        if not text.startswith("kafkactl "):
            continue
        reason = NOT_RUN.search(text)
        code = EXIT.search(text)
        out.append(Step(text, Example(rel, start + 1, text, int(code.group(1)) if code else 0,
                                      reason.group(1).strip() if reason else None)))
    return out


def examples() -> list[Example]:
    return [s.example for p in pages() for s in steps(p) if s.example is not None]


def script(page: Path, outdir: Path) -> str:
    """The page as one bash script: each example's exit code and output kept by its line number."""
    body = ["set -u -o pipefail"]
    for s in steps(page):
        if s.example is None:
            body.append(s.text)
        elif s.example.not_run is None:
            n = s.example.line
            body.append(f"( {s.text}\n) > {outdir}/{n}.out 2> {outdir}/{n}.err < /dev/null; echo \"{n} $?\" >> "
                        f"{outdir}/codes")
    return "\n".join(body) + "\n"
