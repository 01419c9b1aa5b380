"""The versioned envelope every mutating command returns (applied / skipped / failed per item)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, ClassVar

API_VERSION = "kafkactl/v1"


@dataclass(frozen=True)
class ChangeResult:
    ROWS: ClassVar[str] = "results"
    kind: str
    results: tuple[Any, ...]
    dry_run: bool = False
    api_version: str = field(default=API_VERSION)

    @property
    def failed(self) -> tuple[Any, ...]:
        return tuple(r for r in self.results if r.status == "failed")

    def counts(self) -> dict[str, int]:
        return dict(sorted(Counter(r.status for r in self.results).items()))

    def to_json(self) -> dict[str, Any]:
        return {"api_version": self.api_version, "kind": self.kind, "dry_run": self.dry_run,
                "summary": self.counts(), "results": [r.to_json() for r in self.results]}
