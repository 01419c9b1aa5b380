"""The desired-state model: what a file manages (Scope), what it declares (DesiredState), and the checks every
binding read from any format passes, so that an error names file, place and field whichever format it came from.
The formats themselves (reading and writing YAML, JSON, JSONL, CSV, Parquet): kafkactl/desired/formats/.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, TypeVar

from kafkactl.acl.model import (
    CLUSTER_NAME,
    AclBinding,
    PatternType,
    Permission,
    ResourceType,
    check_operation_supported,
    find_refused,
    parse_operation,
    parse_pattern_type,
    shown,
    validate_principal,
    validate_text,
)
from kafkactl.errors import KafkactlError, StateFileError
from kafkactl.limits import too_long

__all__ = ["RESOURCE_KEYS", "TYPE_KEYS", "FLAT_FIELDS", "Scope", "DesiredState", "StateFileError", "checked_principal",
           "checked_text", "checked_binding", "flat_binding"]

RESOURCE_KEYS = {"topic": ResourceType.TOPIC, "group": ResourceType.GROUP, "cluster": ResourceType.CLUSTER,
                 "transactional-id": ResourceType.TRANSACTIONAL_ID, "delegation-token": ResourceType.DELEGATION_TOKEN,
                 "user": ResourceType.USER}

TYPE_KEYS = {v: k for k, v in RESOURCE_KEYS.items()}

FLAT_FIELDS = ("principal", "host", "operation", "permission", "resource_type", "resource_name", "pattern_type")

E = TypeVar("E", bound=Enum)


@dataclass(frozen=True)
class Scope:
    """What a file manages. Declared dimensions intersect; an undeclared one is unconstrained."""

    principals: frozenset[str] = frozenset()
    principal_prefixes: tuple[str, ...] = ()
    resource_prefixes: dict[ResourceType, tuple[str, ...]] = field(default_factory=dict)

    def declared(self) -> bool:
        return bool(self.principals or self.principal_prefixes or self.resource_prefixes)

    def contains(self, b: AclBinding) -> bool:
        if self.principals or self.principal_prefixes:
            if b.principal not in self.principals \
                    and not any(b.principal.startswith(p) for p in self.principal_prefixes):
                return False
        if self.resource_prefixes:
            prefixes = self.resource_prefixes.get(b.resource_type)
            if prefixes is None or not any(b.resource_name.startswith(p) for p in prefixes):
                return False
        return True

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {}
        if self.principals:
            d["principals"] = sorted(self.principals)
        if self.principal_prefixes:
            d["principalPrefixes"] = list(self.principal_prefixes)
        if self.resource_prefixes:
            d["resourcePrefixes"] = {TYPE_KEYS[t]: list(p) for t, p in sorted(self.resource_prefixes.items())}
        return d

    def merge(self, other: Scope, where: str) -> Scope:
        """The scope of both, exactly: the files' union, or an error where no one scope is that union.

        A scope is a set of principals times a set of resources. Two such products make one product only when
        they share a dimension or one holds the other; otherwise merging each dimension (principals A+B times
        resources A+B) would also manage A's principals on B's resources, and plan deletes there that neither
        file asked for."""
        if not self.declared():
            return other
        if not other.declared() or other.within(self):
            return self
        if self.within(other):
            return other
        if self._principal_key() == other._principal_key():
            res = {t: tuple(dict.fromkeys(self.resource_prefixes.get(t, ()) + other.resource_prefixes.get(t, ())))
                   for t in set(self.resource_prefixes) | set(other.resource_prefixes)}
            return Scope(self.principals, self.principal_prefixes, res)
        if self._resource_key() == other._resource_key():
            return Scope(self.principals | other.principals,
                         tuple(dict.fromkeys(self.principal_prefixes + other.principal_prefixes)),
                         self.resource_prefixes)
        raise StateFileError(
            f"{where}: its scope {json.dumps(other.to_json())} and the scope read before it "
            f"{json.dumps(self.to_json())} differ in principals and in resources, so no one scope is their union "
            "(merging them would manage each one's principals on the other's resources): plan them separately, "
            "or give them the same principals or the same resources")

    def within(self, other: Scope) -> bool:
        """Every binding this scope holds, `other` holds (judged from the declarations: it may say no when the
        answer is yes, never yes when it is no)."""
        if other.principals or other.principal_prefixes:
            if not (self.principals or self.principal_prefixes):
                return False
            if not all(p in other.principals or p.startswith(other.principal_prefixes) for p in self.principals):
                return False
            if not all(p.startswith(other.principal_prefixes) for p in self.principal_prefixes):
                return False
        if other.resource_prefixes:
            if not self.resource_prefixes:
                return False
            for rtype, prefixes in self.resource_prefixes.items():
                if not all(p.startswith(other.resource_prefixes.get(rtype, ())) for p in prefixes):
                    return False
        return True

    def _principal_key(self) -> tuple[frozenset[str], frozenset[str]]:
        return self.principals, frozenset(self.principal_prefixes)

    def _resource_key(self) -> dict[ResourceType, frozenset[str]]:
        return {t: frozenset(p) for t, p in self.resource_prefixes.items()}


@dataclass
class DesiredState:
    bindings: dict[AclBinding, str] = field(default_factory=dict)  # binding -> where it was declared
    scope: Scope = field(default_factory=Scope)
    clusters: list[str] = field(default_factory=list)
    duplicates: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)

    def add(self, b: AclBinding, where: str) -> None:
        if b in self.bindings:
            self.duplicates.append(f"{where}: duplicate of {self.bindings[b]}")
            return
        self.bindings[b] = where


# ------------------------------------------------------------------------------------------ binding checks


def checked_principal(where: str, value: Any, field_name: str = "principal") -> str:
    if not isinstance(value, str):
        raise StateFileError(f"{where}: {field_name}: missing or not a string")
    try:
        return validate_principal(value, field_name)
    except KafkactlError as exc:
        raise StateFileError(f"{where}: {exc.message}") from None


def checked_text(where: str, value: str, field_name: str) -> str:
    try:
        return validate_text(value, field_name)
    except KafkactlError as exc:
        raise StateFileError(f"{where}: {exc.message}") from None


def checked_binding(where: str, principal: str, host: str, op: Any, perm: Permission, rtype: ResourceType, name: str,
             pattern: Any, supported_only: bool = True, name_field: str = "resource_name") -> AclBinding:
    try:
        if find_refused(name) or find_refused(host) or too_long(name) or too_long(host):
            validate_text(name, name_field)
            validate_text(host, "host")
        operation = parse_operation(str(op), "operation")
        pt = parse_pattern_type(str(pattern), for_create=True, option="pattern")
        if supported_only:
            check_operation_supported(rtype, operation, "operation")
    except KafkactlError as exc:
        raise StateFileError(f"{where}: {exc.message}") from None
    if not name:
        raise StateFileError(f"{where}: {TYPE_KEYS[rtype]}: the resource name is empty")
    if rtype is ResourceType.CLUSTER and (name != CLUSTER_NAME or pt is not PatternType.LITERAL):
        given = shown(name) if name != CLUSTER_NAME else f"{pt.name} {shown(name)}"
        raise StateFileError(f"{where}: cluster: the only cluster resource is the literal {CLUSTER_NAME} "
                             f"(not {given})")
    if not host.strip():
        raise StateFileError(f"{where}: host: empty (use * for every host)")
    return AclBinding(rtype, name, pt, principal, host.strip(), operation, perm)


def flat_binding(where: str, row: dict[str, Any], supported_only: bool = True) -> AclBinding:
    """A flat row (JSONL, CSV, Parquet): every field a string, enum names as Kafka spells them.
    supported_only=False accepts an operation its resource type lacks (the broker stores those)."""
    for f in FLAT_FIELDS:
        v = row.get(f)
        if v.__class__ is not str or not v:
            raise StateFileError(f"{where}: {f}: missing" if v is None or v == "" else
                                 f"{where}: {f}: {shown(v)} is not a string")
    principal = checked_principal(where, row["principal"])
    rtype = _enum(where, ResourceType, "resource_type", row["resource_type"])
    perm = _enum(where, Permission, "permission", row["permission"])
    if rtype in (ResourceType.ANY, ResourceType.UNKNOWN) or perm in (Permission.ANY, Permission.UNKNOWN):
        raise StateFileError(f"{where}: ANY and UNKNOWN are not allowed in a desired state")
    return checked_binding(where, principal, row["host"], row["operation"], perm, rtype, row["resource_name"],
                    row["pattern_type"], supported_only)


def _enum(where: str, enum_cls: type[E], field_name: str, value: str) -> E:
    try:
        return enum_cls[value.strip().upper().replace("-", "_")]
    except KeyError:
        raise StateFileError(f"{where}: {field_name}: {shown(value)} is not valid") from None
