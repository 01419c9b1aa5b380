"""Other tools' ACL and quota files, read into kafkactl's desired state (import) and written from it (export):
kafka-security-manager CSV, julie-ops and kafka-gitops YAML, terraform's kafka provider, Strimzi KafkaUser."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kafkactl.acl.breadth import Written
from kafkactl.acl.model import AclBinding


@dataclass
class Imported:
    """What a foreign file declares: ACL bindings (each with where it came from), quota entries and notes on what
    has no kafkactl equivalent (said on stderr, never dropped silently)."""

    bindings: dict[AclBinding, str] = field(default_factory=dict)
    quotas: list[dict[str, Any]] = field(default_factory=list)  # entries of a State file's quotas: section
    topics: list[dict[str, Any]] = field(default_factory=list)  # ... and of its topics: and users: sections
    users: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def add(self, b: AclBinding, where: str, principal_written: bool = True, pattern_written: bool = True) -> None:
        """A binding read at `where`. Its principal is as the file wrote it in a principal field unless
        `principal_written` is False (Strimzi's is made from a resource name); its resource name likewise unless
        `pattern_written` is False (a name that is one resource): a wide value not written is refused."""
        Written(where, {b.principal} if principal_written else set(),
                {b.resource} if pattern_written else set()).check(b)
        self.bindings.setdefault(b, where)
