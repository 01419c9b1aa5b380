"""Issue 14: the gateway is the one place that talks to Kafka; everything else gets kafkactl's records from it."""

from __future__ import annotations

import pkgutil
import tomllib
from pathlib import Path

import kafkactl

ROOT = Path(__file__).resolve().parents[2]


def test_the_client_contract_covers_every_module_outside_the_gateway():
    """A new module must be named in the contract (tests/unit/test_startup_and_layering.py runs lint-imports)."""
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    contract = next(c for c in contracts if c["forbidden_modules"] == ["confluent_kafka", "kafka"])
    every = {f"kafkactl.{m.name}" for m in pkgutil.iter_modules(kafkactl.__path__)}
    assert every - set(contract["source_modules"]) == {"kafkactl.gateway", "kafkactl.__main__"}


def test_nothing_outside_the_gateway_imports_a_kafka_client():
    """Imports inside functions too (grimp sees them); the gateway and its records are the only way in."""
    import grimp

    graph = grimp.build_graph("kafkactl", include_external_packages=True)
    importers = {m for client in ("confluent_kafka", "kafka") for m in graph.find_modules_that_directly_import(client)}
    assert {m for m in importers if not m.startswith("kafkactl.gateway")} == set()


def test_the_core_reads_records_not_client_shapes():
    """No core module reaches into a client's metadata or exception shapes (they stay inside kafkactl/gateway)."""
    shapes = (".topics[", ".partitions.items()", "KafkaException", "KafkaError", ".error_code", "_raw(",
              "topic_metadata(", "gw.admin", "gw.kafka_python", ".code_error(")
    core = ["describe/topics.py", "describe/groups.py", "describe/cluster.py", "describe/whoami.py", "cli/lookups.py"]
    found = [(name, shape) for name in core for shape in shapes
             if shape in (ROOT / "kafkactl" / name).read_text()]
    assert found == []
