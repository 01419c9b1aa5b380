"""The one change type (desired/change.py): what each kind says it changes, and what cannot be taken back."""

from __future__ import annotations

import json

import pytest

from kafkactl.acl.model import AclBinding, AclOperation, PatternType, Permission, ResourceType
from kafkactl.desired.change import Change, Outcome, say_irreversible
from kafkactl.desired.configs.plan import SENSITIVE, Change as ConfigChange
from kafkactl.desired.plan import PlanRow
from kafkactl.desired.report import Report


def _b() -> AclBinding:
    return AclBinding(ResourceType.TOPIC, "t", PatternType.LITERAL, "User:a", "*", AclOperation.READ, Permission.ALLOW)


@pytest.mark.parametrize("action, before, after", [("CREATE", None, "present"), ("DELETE", "present", None)])
def test_an_acl_row_is_a_change_that_can_be_undone(action, before, after):
    c = PlanRow("prod", 2 if action == "CREATE" else 3, action, _b()).as_change()
    assert (c.kind, c.cluster, c.action, c.before, c.after, c.undoable) == ("acl", "prod", action, before, after, True)
    assert c.target == "ALLOW User:a READ from * on TOPIC:t (LITERAL)"


@pytest.mark.parametrize("section, action, key, current, desired, kind, undoable", [
    ("topics", "create-topic", None, None, "partitions=1", "topic", True),
    ("topics", "add-partitions", "partitions", "1", "3", "topic", False),  # Kafka cannot remove partitions
    ("topics", "delete-topic", None, "exists", None, "topic", False),  # the data goes with it
    ("topics", "set", "retention.ms", "1", "2", "config", True),
    ("topics", "set", "retention.ms", None, "2", "config", True),  # undone by deleting it
    ("brokers", "set", "ssl.key.password", SENSITIVE, "{file:/x}", "config", False),  # the old value is unknown
    ("brokers", "delete", "ssl.key.password", SENSITIVE, None, "config", False),
    ("brokers", "set", "ssl.key.password", None, "{file:/x}", "config", True),
    ("quotas", "set-quota", "producer_byte_rate", None, "1024", "quota", True),
    ("quotas", "remove-quota", "producer_byte_rate", "1024", None, "quota", True),
    ("users", "upsert-scram", "SCRAM-SHA-256", None, "iterations=4096 password=(file)", "scram", True),
    ("users", "upsert-scram", "SCRAM-SHA-256", "iterations=4096", "iterations=8192", "scram", False),
    ("users", "delete-scram", "SCRAM-SHA-256", "iterations=4096", None, "scram", False),
])
def test_each_config_action_says_its_kind_and_whether_it_can_be_undone(section, action, key, current, desired, kind,
                                                                       undoable):
    c = ConfigChange(section, "e", action, key, current, desired, None).as_change()
    assert (c.kind, c.before, c.after, c.undoable) == (kind, current, desired, undoable)
    assert (c.irreversible is None) == undoable
    assert c.target.endswith(f"e: {key}" if key else " e")


def test_what_cannot_be_undone_is_said_once_by_reason():
    changes = [ConfigChange("topics", n, "delete-topic", None, "exists", None, None).as_change() for n in "ab"]
    changes.append(ConfigChange("topics", "c", "add-partitions", "partitions", "1", "2", None).as_change())
    changes.append(PlanRow("x", 2, "CREATE", _b()).as_change())
    assert say_irreversible(changes) == ("3 changes cannot be undone (2 changes: the topic's data is deleted with "
                                         "it; 1 change: Kafka cannot remove partitions)")
    assert say_irreversible(changes[-1:]) is None


def test_a_report_line_holds_the_common_fields_and_the_kinds_own():
    o = Outcome(Change("acl", "c", "t", "CREATE", None, "present"), "failed", "denied", {"phase": 2, "target": "x"})
    line = o.to_json()
    assert line["target"] == "t"  # the common fields win over a kind's field of the same name
    assert (line["phase"], line["status"], line["error"], line["undoable"]) == (2, "failed", "denied", True)


class _FullDisk:
    def __init__(self, fh):
        self.fh, self.full = fh, False

    def write(self, text):
        if self.full:
            raise OSError(28, "No space left on device")
        self.fh.write(text)

    def flush(self):
        self.fh.flush()

    def close(self):
        self.fh.close()


def test_a_report_that_cannot_be_written_says_so_once_and_writes_no_more(tmp_path):
    path = tmp_path / "r.jsonl"
    o = Outcome(Change("acl", "c", "t", "CREATE", None, "present"), "created")
    with Report(str(path)) as r:
        assert r.write([o]) is None
        disk = r._fh = _FullDisk(r.handle)
        disk.full = True
        assert r.write([o]) == f"{path}: No space left on device" == r.failed
        disk.full = False  # space again: still nothing more, a report with a hole would read as whole
        assert r.write([o]) == r.failed
    assert [json.loads(x)["status"] for x in path.read_text().splitlines()] == ["created"]


class _StopsOnSecondChunk:
    """A gateway whose second CreateAcls request is interrupted (Ctrl-C): what the apply's report then holds is
    kafkactl's bookkeeping, not Kafka's behaviour (that is tested against the broker)."""

    def __init__(self) -> None:
        self.calls = 0

    def create_acls(self, chunk):
        self.calls += 1
        if self.calls == 2:
            raise KeyboardInterrupt
        return [None] * len(chunk)


def _plan(creates: int, deletes: int):
    from kafkactl.desired.plan import ClusterPlan, Plan
    from kafkactl.desired.state import Scope

    def b(i, perm=Permission.ALLOW):
        return AclBinding(ResourceType.TOPIC, f"t{i}", PatternType.LITERAL, "User:a", "*", AclOperation.READ, perm)

    rows = [PlanRow("c", 2, "CREATE", b(i)) for i in range(creates)]
    rows += [PlanRow("c", 3, "DELETE", b(-i - 1)) for i in range(deletes)]
    return Plan([ClusterPlan("c", rows)], Scope(principals=frozenset({"User:a"})))


@pytest.mark.parametrize("creates, unknown, skipped", [(5_000, 3_000, 10), (9_000, 4_000, 3_010)])
def test_an_apply_stopped_part_way_reports_every_binding(tmp_path, creates, unknown, skipped):
    """Issue 28 adversary pass: Ctrl-C during acls apply left a report of 1,765 lines while 4,000 bindings were on
    the cluster. Now each binding has a line: its outcome, `unknown` (its request may have been on the wire) or
    `skipped` (never sent)."""
    from kafkactl.desired.apply import apply
    from kafkactl.errors import PartialFailure

    path = tmp_path / "r.jsonl"
    total = f"{creates + 10:,}"
    with Report(str(path)) as report, pytest.raises(PartialFailure, match=rf"^interrupted: 2,000 of {total} changes "
                                                                          r"made before it stopped") as stop:
        apply(_plan(creates, 10), {"c": _StopsOnSecondChunk()}, report=report)
    assert stop.value.exit_code == 130
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    from collections import Counter

    # in flight when it stopped (two requests at a time: the one interrupted and the next): unknown; the rest of
    # the phase and the phases after it, never sent: skipped (the adversary pass found them all unknown)
    assert Counter(x["status"] for x in lines) == {"created": 2_000, "unknown": unknown, "skipped": skipped}
    assert len({(x["resource_name"], x["action"]) for x in lines}) == creates + 10  # each binding once
    assert all(x["error"] is None for x in lines if x["status"] == "created")  # every field on every line


def test_a_dry_run_reports_a_line_per_binding_and_sends_nothing(tmp_path):
    from kafkactl.desired.apply import apply

    path = tmp_path / "r.jsonl"
    gw = _StopsOnSecondChunk()
    with Report(str(path)) as report:
        apply(_plan(3, 2), {"c": gw}, report=report, dry_run=True)
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    assert gw.calls == 0 and [(x["status"], x["error"]) for x in lines] == [("skipped", "dry run: not sent")] * 5


def test_spark_asked_for_without_pyspark_is_one_error_naming_the_option_before_any_work(monkeypatch):
    from kafkactl.desired import engine
    from kafkactl.errors import KafkactlError

    monkeypatch.setattr(engine, "spark_missing", lambda: "pyspark is not installed (pip install 'kafkactl[spark]')")
    with pytest.raises(KafkactlError, match=r"^--spark: pyspark is not installed"):
        engine.make(engine.PlanRequest(files=("x.yaml",), spark="on"))
    with pytest.raises(KafkactlError, match=r"^--spark-master: pyspark"):
        engine.make(engine.PlanRequest(files=("x.yaml",), spark_master="local[2]"))
