"""Views of KIP-430 authorized operations: a matrix for many resources, a detail view for one."""

from __future__ import annotations

from collections.abc import Sequence

from kafkactl.acl.bitfield import AuthorizedOps, supported_columns
from kafkactl.formatters.model import Tabular

LEGEND = "✓ allowed   ✗ not allowed   - not supplied by the broker"


def matrix(rows: Sequence[tuple[str, AuthorizedOps]], title: str | None = None) -> Tabular:
    """One row per resource, one column per operation its type supports (all rows share one type)."""
    ops = supported_columns(rows[0][1].resource_type) if rows else []
    body = [(label, *(a.allows(op) for op in ops)) for label, a in rows]
    return Tabular(columns=("resource", *(op.name for op in ops)), rows=body, title=title, checkmarks=True)


def detail(label: str, a: AuthorizedOps) -> Tabular:
    rows = [(op.name, a.allows(op)) for op in supported_columns(a.resource_type)]  # as ACL output spells them
    rows += [(f"unknown({n})", True) for n in a.unknown]
    raw = str(a.raw) if a.supplied else f"{a.raw} (not supplied by the broker)"
    return Tabular(columns=("operation", "allowed"), rows=rows,
                   header=(("resource", f"{a.resource_type.name}:{label}"), ("raw bitfield", raw)), checkmarks=True)


def long_rows(items: Sequence[tuple[str, AuthorizedOps]]) -> Tabular:
    """For plain and csv: one line per resource and operation (allowed is true, false or empty)."""
    body = []
    for label, a in items:
        for op in supported_columns(a.resource_type):
            body.append((a.resource_type.name, label, op.name, a.allows(op)))
    return Tabular(columns=("resource_type", "resource", "operation", "allowed"), rows=body)
