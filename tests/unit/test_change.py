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

    def writelines(self, lines):
        if self.full:
            raise OSError(28, "No space left on device")
        self.fh.writelines(lines)

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
