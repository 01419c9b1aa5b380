"""The examples of README.md and docs/, checked without a broker: each runs (tests/integration) or says why not;
each names a command kafkactl has and options that command takes, so an example cannot drift from the CLI."""

from __future__ import annotations

import shlex

import pytest

from tests.docs_examples import examples
from tests.integration.cli_tree import leaf_commands

EXAMPLES = examples()
LEAVES = {path: cmd for path, cmd in leaf_commands()}
GLOBAL = {"-b", "--bootstrap-server", "--context", "--command-config", "-o", "--output", "--timeout", "--no-color",
          "--debug", "--version", "--help", "-h"}


def test_there_are_examples_and_every_one_not_run_says_why():
    assert len(EXAMPLES) > 20
    assert [e for e in EXAMPLES if e.not_run is not None and not e.not_run] == []


@pytest.mark.parametrize("ex", EXAMPLES, ids=lambda e: f"{e.page}:{e.line}")
def test_an_example_names_a_command_and_options_it_takes(ex):
    lex = shlex.shlex(ex.command, posix=True, punctuation_chars=True)
    lex.whitespace_split, lex.commenters = True, "#"
    tokens = list(lex)
    cut = next((i for i, t in enumerate(tokens) if t in ("|", ">", ">>", "&&", ";", "||", "<", "2>")), len(tokens))
    words = tokens[1:cut]  # the kafkactl command, up to a pipe or a redirection
    rest, path = [], []
    i = 0
    while i < len(words):  # global options first, then the command path
        w = words[i]
        if w in GLOBAL and not path:
            i += 2 if w in ("-b", "--bootstrap-server", "--context", "--command-config", "-o", "--output",
                            "--timeout") else 1
            continue
        if not w.startswith("-") and " ".join([*path, w]) in {" ".join(p.split()[:len(path) + 1]) for p in LEAVES}:
            path.append(w)
            i += 1
            continue
        rest = words[i:]
        break
    name = " ".join(path)
    if name not in LEAVES:
        assert words and (words[0] in ("--version", "--help") or "--help" in words), (ex.command, name)
        return
    cmd = LEAVES[name]
    taken = {o for p in cmd.params for o in (*getattr(p, "opts", ()), *getattr(p, "secondary_opts", ()))} | GLOBAL
    for w in rest:
        option = w.split("=", 1)[0]
        if option.startswith("--") or (option.startswith("-") and len(option) == 2 and option[1].isalpha()):
            assert option in taken, f"{ex.page}:{ex.line}: {name} takes no {option}"


def test_every_noun_names_its_guide_and_the_guide_exists():
    from kafkactl.cli.root import GUIDES, NOUNS
    from tests.conftest import run
    from tests.docs_examples import ROOT

    assert set(GUIDES) == set(NOUNS)
    for page in GUIDES.values():
        assert (ROOT / "docs" / page).is_file(), page
    text = " ".join(run("acls", "list", "--help").stdout.split())
    assert "Guide: docs/acls.md" in text
    linked = {line.split("](docs/")[1].split(")")[0] for line in (ROOT / "README.md").read_text().splitlines()
              if "](docs/" in line}
    assert linked == {p.name for p in (ROOT / "docs").glob("*.md")}  # the README links every page
