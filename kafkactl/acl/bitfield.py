"""KIP-430 authorized-operations bitfields (kafka-semantics §3).

Bit `1 << code` for each allowed operation that the resource type supports. INT32 min means the broker
did not supply the field (not requested, or an older broker): that is "not supplied", never "no
operations". 0 is a real empty set. ALL, ANY and UNKNOWN never appear; a bit kafkactl does not know for
the resource type (a future operation) is kept as unknown(N) for raw and JSON output and ignored elsewhere.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from kafkactl.acl.model import SUPPORTED_OPERATIONS, AclOperation, ResourceType

NOT_SUPPLIED = -(2**31)
_NEVER = (AclOperation.UNKNOWN, AclOperation.ANY, AclOperation.ALL)


@dataclass(frozen=True)
class AuthorizedOps:
    resource_type: ResourceType
    raw: int  # the signed INT32 as on the wire
    operations: frozenset[AclOperation] = frozenset()
    unknown: tuple[int, ...] = ()  # set bits that are no supported operation of this type

    @property
    def supplied(self) -> bool:
        return self.raw != NOT_SUPPLIED

    def allows(self, op: AclOperation) -> bool | None:
        """True/False, or None when the broker did not supply the bitfield."""
        return (op in self.operations) if self.supplied else None

    def names(self) -> list[str]:
        return [o.name for o in sorted(self.operations)] + [f"unknown({n})" for n in self.unknown]

    def cell(self) -> str:
        if not self.supplied:
            return "not supplied by the broker"
        return ",".join(o.name for o in sorted(self.operations)) or "(none)"  # as ACL output spells them

    def to_json(self) -> dict[str, Any]:
        return {"supplied": self.supplied, "raw": self.raw,
                "operations": self.names() if self.supplied else None}


def decode(bits: int | None, resource_type: ResourceType) -> AuthorizedOps:
    """Decode a wire bitfield (None is treated like the INT32-min sentinel)."""
    if bits is None or bits == NOT_SUPPLIED:
        return AuthorizedOps(resource_type, NOT_SUPPLIED)
    if not -(2**31) <= bits < 2**31:
        raise ValueError(f"{bits} is not a 32-bit signed integer")
    unsigned = bits & 0xFFFFFFFF
    supported = SUPPORTED_OPERATIONS.get(resource_type, frozenset())
    ops, unknown = set(), []
    for n in range(32):
        if unsigned >> n & 1:
            op = AclOperation.decode(n) if n < 16 else AclOperation.UNKNOWN
            if op in supported and op not in _NEVER:
                ops.add(op)
            else:
                unknown.append(n)
    return AuthorizedOps(resource_type, bits, frozenset(ops), tuple(unknown))


def encode(ops: Iterable[AclOperation]) -> int:
    """The bitfield of a set of concrete operations, as a signed INT32."""
    value = 0
    for op in ops:
        if op in _NEVER:
            raise ValueError(f"{op.name} never appears in an authorized-operations bitfield")
        value |= 1 << int(op)
    return value - (1 << 32) if value >= 1 << 31 else value


def from_bit_positions(positions: Iterable[int] | None) -> int:
    """kafka-python decodes bitfields into sets of bit positions (None for the sentinel); back to the INT32."""
    if positions is None:
        return NOT_SUPPLIED
    value = 0
    for n in positions:
        value |= 1 << n
    return value - (1 << 32) if value >= 1 << 31 else value


def supported_columns(resource_type: ResourceType) -> list[AclOperation]:
    return sorted(SUPPORTED_OPERATIONS.get(resource_type, frozenset()))
