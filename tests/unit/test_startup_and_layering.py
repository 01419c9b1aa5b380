"""Start-up stays light, and the core never reaches into the CLI layer."""

from __future__ import annotations

import pkgutil
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import kafkactl

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("confluent_kafka", "kafka", "pyspark", "pyarrow", "yaml")


def imported_modules(*args: str) -> set[str]:
    p = subprocess.run([sys.executable, "-X", "importtime", "-m", "kafkactl", *args],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr[-2000:]
    names = set()
    for line in p.stderr.splitlines():
        m = re.match(r"import time:\s+\d+ \|\s+\d+ \|\s+(\S+)", line)
        if m:
            names.add(m.group(1).strip())
    return names


@pytest.mark.parametrize("args", [["--help"], ["--version"], ["topics", "--help"], ["local", "--help"]])
def test_help_and_version_import_no_client_spark_or_yaml(args):
    mods = imported_modules(*args)
    assert "kafkactl.cli" in mods or args == ["--version"] or "kafkactl" in mods  # the probe really ran
    loaded_heavy = sorted(m for m in mods if m.split(".")[0] in HEAVY)
    assert loaded_heavy == []


def test_import_linter_contract_passes():
    lint = Path(sys.executable).with_name("lint-imports")
    p = subprocess.run([str(lint)], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-2000:]
    assert "0 broken" in p.stdout


def test_contract_covers_every_core_module():
    """A new core module must be added to the contract, or it would escape the check."""
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text())
    contract = cfg["tool"]["importlinter"]["contracts"][0]
    covered = set(contract["source_modules"])
    cli_layer = {"kafkactl.cli", "kafkactl.commands", "kafkactl.formatters", "kafkactl.__main__", "kafkactl.entry"}
    core = {f"kafkactl.{m.name}" for m in pkgutil.iter_modules(kafkactl.__path__)} - cli_layer
    assert core - covered == set()


def test_no_import_cycles():
    """Every import kafkactl makes, at module level or inside a function, forms no cycle (issue 14)."""
    import grimp

    # (no cache: a graph cached by an earlier run hid a cycle that only a fresh clone's run found)
    graph = grimp.build_graph("kafkactl", cache_dir=None)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles = []

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph.find_modules_directly_imported_by(v):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = stack[stack.index(v):]
            del stack[stack.index(v):]
            if len(component) > 1:
                cycles.append(sorted(component))

    for module in sorted(graph.modules):
        if module not in index:
            visit(module)
    assert cycles == []


def test_contracts_name_every_noun():
    """The independence contract lists every noun, so a new one is checked too."""
    from kafkactl.cli.root import NOUNS

    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text())
    independent = next(c for c in cfg["tool"]["importlinter"]["contracts"] if c["type"] == "independence")
    assert set(independent["modules"]) == {f"kafkactl.commands.{m}" for m in NOUNS.values()}
