"""One change to a cluster, whatever its kind, and its outcome: what a plan shows, a report records and an undo
would reverse.

Each engine keeps its own working rows (an ACL plan's rows are Parquet in Spark; a config change carries the entity
key its request needs), and each turns them into a Change for everything the operator reads: the plan's JSON, the
report's lines, the note of what cannot be taken back. `before` and `after` are the value as kafkactl shows it,
None for absent (an ACL that does not exist, a config left at its default, a topic not there); a value Kafka never
returns (a password, a sensitive config) is `(sensitive)`, never the value.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

KINDS = ("acl", "topic", "config", "quota", "scram")
PRESENT = "present"  # an ACL binding's value: it exists


@dataclass(frozen=True)
class Change:
    kind: str  # one of KINDS
    cluster: str | None  # where it goes: an ACL plan's context or address, a configs plan's cluster id
    target: str  # what it changes, in words ("ALLOW User:a READ from * on TOPIC:t (LITERAL)", "topic t: retention.ms")
    action: str  # what the engine sends (CREATE, DELETE, set, delete-topic, ...)
    before: str | None
    after: str | None
    irreversible: str | None = None  # why nothing can take it back, if so (partitions added, data deleted, ...)

    @property
    def undoable(self) -> bool:
        return self.irreversible is None

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "cluster": self.cluster, "target": self.target, "action": self.action,
                "before": self.before, "after": self.after, "undoable": self.undoable,
                "irreversible": self.irreversible}


@dataclass(frozen=True)
class Outcome:
    """What became of a change: applied or created or deleted (done), gone (already absent), validated (a dry run),
    failed, skipped (never sent), unknown (sent, no answer). `detail`: the kind's own fields, kept beside the
    common ones so a report line still names the binding or the entity key in the engine's terms."""

    change: Change
    status: str
    error: str | None = None
    detail: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {**self.detail, **self.change.to_json(), "status": self.status, "error": self.error}


def irreversible(changes: Iterable[Change]) -> list[Change]:
    return [c for c in changes if not c.undoable]


def say_irreversible(changes: Iterable[Change]) -> str | None:
    """One line naming what the plan cannot take back, by reason (None when everything can be)."""
    from collections import Counter

    from kafkactl.limits import plural

    by: Counter[str] = Counter(c.irreversible for c in changes if c.irreversible)
    if not by:
        return None
    n = sum(by.values())
    parts = "; ".join(f"{plural(k, 'change')}: {why}" for why, k in sorted(by.items(), key=lambda x: (-x[1], x[0])))
    return f"{plural(n, 'change')} cannot be undone ({parts})"
