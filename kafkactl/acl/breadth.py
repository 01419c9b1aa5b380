"""Never wider than written: the one check every producer of ACL bindings (command options, presets, roles, the
imports, State files) hands its output through.

A binding is wide when it names every principal of a type (`User:*`), every resource of a type (the literal
name `*`) or every name under a prefix. Each may appear in a producer's output only where the operator wrote
exactly that value in a field that names principals or resources: `User:*` as a principal, `*` or the prefix
as a resource name of that type and pattern. A prefix the producer derives from one name the operator gave (a
Streams application id `app` gives `app-`) is written too, and only when that name is neither empty nor `*`.
What a producer makes of a single name (a KafkaUser's name, a worker's config topic, a group left unset) is
never a wide value: a binding that would make it one is refused, exit 2, naming the input and the value.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from kafkactl.acl.model import WILDCARD, AclBinding, PatternType, ResourceType, shown
from kafkactl.errors import UsageError

Pattern = tuple[ResourceType, str, PatternType]


class TooWide(UsageError):
    """A producer's output is wider than its input (exit 2)."""


def is_wide_principal(principal: str) -> bool:
    return principal.partition(":")[2] == WILDCARD


def wide_pattern(b: AclBinding) -> bool:
    """Whether the binding's resource pattern covers more than one name."""
    if b.resource_type is ResourceType.CLUSTER:
        return False
    return b.pattern_type is PatternType.PREFIXED or (b.pattern_type is PatternType.LITERAL
                                                       and b.resource_name == WILDCARD)


@dataclass
class Written:
    """The wide values an input holds where they mean what they say; `source` names the input in messages."""

    source: str
    principals: set[str] = field(default_factory=set)
    patterns: set[Pattern] = field(default_factory=set)

    def principal(self, principal: str) -> str:
        """`principal` was written in a field naming principals."""
        self.principals.add(principal)
        return principal

    def pattern(self, rtype: ResourceType, name: str, pattern: PatternType) -> str:
        """`name` was written as a resource name (or prefix) of this type, in a field naming resources."""
        self.patterns.add((rtype, name, pattern))
        return name

    def derived_prefix(self, rtype: ResourceType, own: str, suffix: str, what: str) -> str:
        """A prefix made from one name the operator gave (`own` + `suffix`): written when `own` is one name."""
        if not own or own == WILDCARD:
            raise TooWide(f"{self.source}: {what} {shown(own)}: one name is needed here; a prefix made from it "
                          f"({shown(own + suffix)}) would cover names the input does not name")
        return self.pattern(rtype, own + suffix, PatternType.PREFIXED)

    def bindings(self, bindings: Iterable[AclBinding]) -> None:
        """Every binding the producer gives: each wide value in it written; whichever first is not, refused."""
        for b in bindings:
            self.check(b)

    def check(self, b: AclBinding, where: str | None = None) -> None:
        at = where or self.source
        if is_wide_principal(b.principal) and b.principal not in self.principals:
            raise TooWide(f"{at}: {shown(b.principal)} would be every principal of its type, and the input does not "
                          f"write {shown(b.principal)} as a principal ({b.describe()})")
        if wide_pattern(b) and (b.resource_type, b.resource_name, b.pattern_type) not in self.patterns:
            what = ("every " + b.resource_type.name.lower().replace("_", " ") if b.resource_name == WILDCARD
                    and b.pattern_type is PatternType.LITERAL else
                    f"every {b.resource_type.name.lower().replace('_', ' ')} named {shown(b.resource_name)}...")
            raise TooWide(f"{at}: {shown(b.resource_name)} ({b.pattern_type.name.lower()}) would be {what}, and the "
                          f"input does not write it as a {b.resource_type.name.lower().replace('_', ' ')} "
                          f"{'prefix' if b.pattern_type is PatternType.PREFIXED else 'name'} ({b.describe()})")
