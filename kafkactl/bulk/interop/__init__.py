"""Other tools' ACL and quota files, read into kafkactl's desired state (import) and written from it (export):
kafka-security-manager CSV, julie-ops and kafka-gitops YAML, terraform's kafka provider, Strimzi KafkaUser."""

from __future__ import annotations

from dataclasses import dataclass, field

from kafkactl.acl.model import AclBinding


@dataclass
class Imported:
    """What a foreign file declares: ACL bindings (each with where it came from), quota entries and notes on what
    has no kafkactl equivalent (said on stderr, never dropped silently)."""

    bindings: dict[AclBinding, str] = field(default_factory=dict)
    quotas: list[dict] = field(default_factory=list)  # entries of a State file's quotas: section
    topics: list[dict] = field(default_factory=list)  # ... and of its topics: and users: sections
    users: list[dict] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def add(self, b: AclBinding, where: str) -> None:
        self.bindings.setdefault(b, where)
