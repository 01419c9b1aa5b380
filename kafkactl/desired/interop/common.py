"""What the foreign readers share: a binding checked as any desired-state binding is, a YAML document read with
lines, a field that must be a string."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kafkactl.acl.model import AclBinding, Permission, ResourceType
from kafkactl.desired.state import checked_binding, checked_principal
from kafkactl.errors import StateFileError
from kafkactl.limits import shown


def binding(where: str, principal: Any, rtype: ResourceType, name: Any, pattern: str, op: str,
            permission: Permission = Permission.ALLOW, host: str = "*") -> AclBinding:
    p = checked_principal(where, principal)
    if not isinstance(name, str):
        raise StateFileError(f"{where}: a {rtype.name.lower()} name must be a string (not {shown(str(name))})")
    return checked_binding(where, p, host, op, permission, rtype, name, pattern)


def document(path: Path) -> Any:
    from kafkactl.desired.formats.yamldoc import yaml_document

    doc = yaml_document(path)
    if not isinstance(doc, dict):
        raise StateFileError(f"{path}: expected a mapping at the top")
    return doc


def line(path: Path, node: Any, fallback: Any = None) -> str:
    n = getattr(node, "line", None) or getattr(fallback, "line", None)
    return f"{path}:{n}" if n else str(path)


def text(where: str, value: Any, what: str) -> str:
    if not isinstance(value, str) or not value:
        raise StateFileError(f"{where}: {what}: {'missing' if value is None else shown(str(value)) + ' is not a name'}")
    return value


def strings(where: str, value: Any, what: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise StateFileError(f"{where}: {what}: expected a list of names")
    return list(value)


def mapping(where: str, value: Any, what: str) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise StateFileError(f"{where}: {what}: expected a mapping")
    return value


def sequence(where: str, value: Any, what: str) -> list[Any]:
    """A list the file gives (or nothing): a number or a mapping where a list belongs is named, not iterated."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise StateFileError(f"{where}: {what}: expected a list (not {shown(str(value)[:40])})")
    return value
