"""ACL wire enums, the supported-operations table, bindings and filters (kafka-semantics §1, §2, §5)."""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any, ClassVar, TypeVar

from kafkactl.errors import UsageError
from kafkactl.limits import check_string

CLUSTER_NAME = "kafka-cluster"
WILDCARD = "*"


class _Wire(IntEnum):
    # Enum hashes by name in Python code; the int's own hash is C, equal for equal codes, and several times
    # faster where bindings are grouped or deduplicated by the hundred thousand
    __hash__ = int.__hash__

    @classmethod
    def decode(cls, code: int) -> Any:
        """A code from the wire; codes this version does not know (a newer broker) become UNKNOWN."""
        try:
            return cls(code)
        except ValueError:
            return cls(0)

    @property
    def pascal(self) -> str:
        return "".join(part.capitalize() for part in self.name.split("_"))


class AclOperation(_Wire):
    UNKNOWN = 0
    ANY = 1
    ALL = 2
    READ = 3
    WRITE = 4
    CREATE = 5
    DELETE = 6
    ALTER = 7
    DESCRIBE = 8
    CLUSTER_ACTION = 9
    DESCRIBE_CONFIGS = 10
    ALTER_CONFIGS = 11
    IDEMPOTENT_WRITE = 12
    CREATE_TOKENS = 13
    DESCRIBE_TOKENS = 14
    TWO_PHASE_COMMIT = 15


class ResourceType(_Wire):
    UNKNOWN = 0
    ANY = 1
    TOPIC = 2
    GROUP = 3
    CLUSTER = 4
    TRANSACTIONAL_ID = 5
    DELEGATION_TOKEN = 6
    USER = 7


class PatternType(_Wire):
    UNKNOWN = 0
    ANY = 1
    MATCH = 2
    LITERAL = 3
    PREFIXED = 4


class Permission(_Wire):
    UNKNOWN = 0
    ANY = 1
    DENY = 2
    ALLOW = 3


Op = AclOperation
SUPPORTED_OPERATIONS: dict[ResourceType, frozenset[AclOperation]] = {
    ResourceType.TOPIC: frozenset({Op.READ, Op.WRITE, Op.CREATE, Op.DELETE, Op.ALTER, Op.DESCRIBE,
                                   Op.DESCRIBE_CONFIGS, Op.ALTER_CONFIGS}),
    ResourceType.GROUP: frozenset({Op.READ, Op.DELETE, Op.DESCRIBE, Op.DESCRIBE_CONFIGS, Op.ALTER_CONFIGS}),
    ResourceType.CLUSTER: frozenset({Op.CREATE, Op.ALTER, Op.DESCRIBE, Op.CLUSTER_ACTION, Op.DESCRIBE_CONFIGS,
                                     Op.ALTER_CONFIGS, Op.IDEMPOTENT_WRITE}),
    ResourceType.TRANSACTIONAL_ID: frozenset({Op.WRITE, Op.DESCRIBE, Op.TWO_PHASE_COMMIT}),
    ResourceType.DELEGATION_TOKEN: frozenset({Op.DESCRIBE}),
    ResourceType.USER: frozenset({Op.CREATE_TOKENS, Op.DESCRIBE_TOKENS}),
}
# operations a binding may hold (ALL may be granted on any type); ANY and UNKNOWN only in filters / never
BINDABLE_OPERATIONS = frozenset(o for o in AclOperation if o not in (Op.ANY, Op.UNKNOWN))


def _squash(text: str) -> str:
    return "".join(ch for ch in text.upper() if ch not in "_- ")


_E = TypeVar("_E", bound=IntEnum)


@functools.lru_cache(maxsize=64)
def _lookup(allowed: tuple[Any, ...]) -> dict[str, Any]:
    return {_squash(m.name): m for m in allowed}


def _parse_enum(enum_cls: type[_E], text: str, option: str, allowed: Iterable[_E] | None = None,
                noun: str = "a valid value") -> _E:
    allowed = tuple(allowed) if allowed is not None else tuple(m for m in enum_cls if m.name != "UNKNOWN")
    found: _E | None = _lookup(allowed).get(_squash(text.strip()))
    if found is not None:
        return found
    names: list[str] = [getattr(m, "pascal") for m in allowed]  # noqa: B009 (every kafkactl enum has one)
    hint = did_you_mean(text.strip().replace("_", "").replace("-", ""), names)
    raise UsageError(f"{option} {shown(text)} is not {noun}{hint}; valid: {', '.join(names)}")


def did_you_mean(text: str, names: list[str]) -> str:
    """' (did you mean X?)' for the name closest to `text`, case aside, or '' (nothing for a very long text)."""
    lowered = [n.lower() for n in names]
    near = difflib.get_close_matches(text.lower(), lowered, n=1, cutoff=0.6) if len(text) < 100 else []
    return f" (did you mean {names[lowered.index(near[0])]}?)" if near else ""


_SORTED_BINDABLE = tuple(sorted(BINDABLE_OPERATIONS))


def parse_operation(text: str, option: str = "--operation", in_filter: bool = False) -> AclOperation:
    """Accepts IdempotentWrite, IDEMPOTENTWRITE, idempotent-write, idempotent_write, ...; in a filter (list, delete
    by --operation) Any too, which matches every operation."""
    if in_filter and _squash(text.strip()) == "ANY":
        return AclOperation.ANY
    if _squash(text.strip()) in ("ANY", "UNKNOWN"):
        raise UsageError(f"{option} {shown(text)}: {_squash(text)} is only meaningful in filters, not in an ACL")
    return _parse_enum(AclOperation, text, option, _SORTED_BINDABLE, "an operation")


def parse_pattern_type(text: str, for_create: bool, option: str = "--resource-pattern-type") -> PatternType:
    allowed: tuple[PatternType, ...] = (PatternType.LITERAL, PatternType.PREFIXED)
    if not for_create:
        allowed = (PatternType.ANY, PatternType.MATCH, *allowed)
    try:
        return _parse_enum(PatternType, text, option, allowed, "a pattern type")
    except UsageError:
        if for_create and _squash(text) in ("ANY", "MATCH"):
            raise UsageError(f"{option} {shown(text)}: not valid when creating ACLs (use "
                             "literal or prefixed)") from None
        raise


def parse_permission(text: str, option: str = "--permission", in_filter: bool = False) -> Permission:
    """Allow or Deny; in a filter (list, delete by --permission) Any too."""
    return _parse_enum(Permission, text, option,
                       [Permission.ALLOW, Permission.DENY, *([Permission.ANY] if in_filter else [])], "a permission")


def parse_resource_type(text: str, option: str = "--resource-type") -> ResourceType:
    return _parse_enum(ResourceType, text, option,
                       [t for t in ResourceType if t not in (ResourceType.UNKNOWN, ResourceType.ANY)],
                       "a resource type")


# Refused in principals, hosts and resource names: C0 controls, DEL and C1 controls (Unicode category Cc),
# invisible, and a NUL or a line break changes what a log, a terminal or another tool shows; unpaired
# surrogates (from a JSON escape such as "\\ud800"), which have no UTF-8 encoding; and U+FFFD, which stands where a
# reader replaced bytes that were not UTF-8 (Spark's readers do, silently).
REFUSED_RANGES = ((0x00, 0x1F), (0x7F, 0x9F), (0xD800, 0xDFFF), (0xFFFD, 0xFFFD))


def refused_class(escape: str = "\\u{:04x}", surrogates: bool = True) -> str:
    """REFUSED_RANGES as a regular-expression character class, each code point spelt by `escape` (Python and
    Java read \\uXXXX, RE2 in Arrow \\x{XXXX}). Arrow and Spark hold UTF-8, which has no surrogates."""
    ranges = [r for r in REFUSED_RANGES if surrogates or r[0] != 0xD800]
    return "[" + "".join(f"{escape.format(a)}-{escape.format(b)}" for a, b in ranges) + "]"


_REFUSED = re.compile(refused_class())
find_refused = _REFUSED.search  # for readers that check a field per row and leave the message to validate_text


def shown(value: Any, limit: int = 80) -> str:
    """A value for a one-line message: repr (control characters escaped), cut short if long."""
    r = repr(value)
    return r if len(r) <= limit else f"{r[:limit - 4]}...{r[-1]}"


def validate_text(text: str, option: str) -> str:
    """A principal, host or resource name: refused if it holds a character of REFUSED_RANGES, or if it is longer
    than a protocol STRING (librdkafka crashes on one)."""
    m = _REFUSED.search(text)
    if m is None:
        return check_string(text, option)
    ch = m.group()
    what = ("an unpaired surrogate" if "\ud800" <= ch <= "\udfff" else
            "U+FFFD, the replacement character (was the file not UTF-8?)" if ch == "\ufffd" else "a control character")
    raise UsageError(f"{option} {shown(text)}: contains {what} ({ch!r} at position {m.start()})")


def validate_principal(text: str, option: str = "--principal") -> str:
    """`Type:name`, split at the first ':' as KafkaPrincipal does; both parts non-empty."""
    validate_text(text, option)
    p = text.strip()
    ptype, sep, name = p.partition(":")
    if not sep or not ptype.strip():
        raise UsageError(f"{option} {shown(text)}: a principal is Type:name, e.g. User:alice or User:*")
    if not name:
        raise UsageError(f"{option} {shown(text)}: the principal name is empty")
    return p


def check_operation_supported(rtype: ResourceType, op: AclOperation, option: str = "--operation") -> None:
    valid = SUPPORTED_OPERATIONS.get(rtype)
    if valid is None or op is Op.ALL or op in valid:
        return
    names = ", ".join(o.pascal for o in sorted(valid | {Op.ALL}))
    raise UsageError(f"{option} {op.pascal} is not supported on {rtype.name} resources; valid: {names}")


@dataclass(frozen=True, order=True)
class AclBinding:
    """One ACL: a resource pattern plus an access control entry. Ordered by resource first."""

    COLUMNS: ClassVar[tuple[str, ...]] = ("resource_type", "resource_name", "pattern_type", "principal", "host",
                                          "operation", "permission")
    GROUP_BY: ClassVar[int] = 3  # table view: one block per resource
    resource_type: ResourceType
    resource_name: str
    pattern_type: PatternType
    principal: str
    host: str
    operation: AclOperation
    permission: Permission
    # raw codes of enums this version does not know (from a newer broker), e.g. "operation=16"
    unknown: str | None = field(default=None, compare=False)

    @property
    def resource(self) -> tuple[ResourceType, str, PatternType]:
        return (self.resource_type, self.resource_name, self.pattern_type)

    def is_concrete(self) -> bool:
        return (self.resource_type not in (ResourceType.ANY, ResourceType.UNKNOWN)
                and self.pattern_type in (PatternType.LITERAL, PatternType.PREFIXED)
                and self.operation in BINDABLE_OPERATIONS
                and self.permission in (Permission.ALLOW, Permission.DENY))

    def to_filter(self) -> AclFilter:
        return AclFilter(self.resource_type, self.resource_name, self.pattern_type, self.principal, self.host,
                         self.operation, self.permission)

    def to_json(self) -> dict[str, Any]:
        # _name_, not name: Enum.name is a Python-level descriptor, and exports run to hundreds of thousands
        d = {"resource_type": self.resource_type._name_, "resource_name": self.resource_name,
             "pattern_type": self.pattern_type._name_, "principal": self.principal, "host": self.host,
             "operation": self.operation._name_, "permission": self.permission._name_}
        if self.unknown:
            d["unknown"] = self.unknown
        return d

    def describe(self) -> str:
        return (f"{self.permission.name} {self.principal} {self.operation.name} from {self.host} on "
                f"{self.resource_type.name}:{self.resource_name} ({self.pattern_type.name})")


@dataclass(frozen=True)
class AclFilter:
    """DescribeAcls/DeleteAcls filter: None name/principal/host and ANY enums match anything."""

    resource_type: ResourceType = ResourceType.ANY
    resource_name: str | None = None
    pattern_type: PatternType = PatternType.ANY
    principal: str | None = None
    host: str | None = None
    operation: AclOperation = AclOperation.ANY
    permission: Permission = Permission.ANY

    def matches(self, b: AclBinding) -> bool:
        """The broker's filter semantics (KIP-140, KIP-290), used for previews and tests."""
        if self.resource_type is not ResourceType.ANY and b.resource_type is not self.resource_type:
            return False
        if not self._pattern_matches(b):
            return False
        if self.principal is not None and self.principal != b.principal:
            return False
        if self.host is not None and self.host != b.host:
            return False
        if self.operation is not AclOperation.ANY and self.operation is not b.operation:
            return False
        return self.permission is Permission.ANY or self.permission is b.permission

    def _pattern_matches(self, b: AclBinding) -> bool:
        pt, name = self.pattern_type, self.resource_name
        if pt is PatternType.MATCH:
            if name is None:
                return True
            if b.pattern_type is PatternType.LITERAL:
                return b.resource_name == name or b.resource_name == WILDCARD
            if b.pattern_type is PatternType.PREFIXED:
                return name.startswith(b.resource_name)
            return False
        if pt is not PatternType.ANY and pt is not b.pattern_type:
            return False
        return name is None or name == b.resource_name

    def is_concrete(self) -> bool:
        return None not in (self.resource_name, self.principal, self.host) and AclBinding(
            self.resource_type, self.resource_name or "", self.pattern_type, self.principal or "", self.host or "",
            self.operation, self.permission).is_concrete()
