"""Helpers for ACL tests: snapshots of the broker's ACLs and exact clean-up."""

from __future__ import annotations

import uuid

from kafkactl.acl import ops
from kafkactl.acl.model import AclBinding, AclFilter


def token() -> str:
    return uuid.uuid4().hex[:8]


def snapshot(gw, needle: str | None = None) -> set[AclBinding]:
    """Every ACL on the broker (read as admin), optionally only those whose name or principal holds `needle`."""
    everything = set(gw.describe_acls(AclFilter()))
    if needle is None:
        return everything
    return {b for b in everything if needle in b.resource_name or needle in b.principal}


def remove_exactly(gw, bindings) -> None:
    bindings = set(bindings)
    if not bindings:
        return
    universe = snapshot(gw)
    result = ops.delete_acls(gw, ops.DeletePreview.exactly(sorted(bindings & universe), sorted(universe)))
    assert not result.failed
