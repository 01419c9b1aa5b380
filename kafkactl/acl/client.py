"""What the ACL operations ask of the cluster: the Gateway's ACL calls, as protocols for the type checker.

The gateway sits above kafkactl.acl in the layers (pyproject.toml), so acl cannot name its classes, not even for
typing: these protocols say what acl uses of them, and mypy checks the Gateway against them where it is passed in.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from kafkactl.acl.model import AclBinding, AclFilter
from kafkactl.errors import KafkactlError


class ErrorLike(Protocol):
    """A Kafka error of one item (the gateway's ErrorInfo)."""

    @property
    def code(self) -> int: ...

    @property
    def name(self) -> str: ...

    @property
    def message(self) -> str: ...


class BrokerLike(Protocol):
    """A live broker (the gateway's NodeRecord)."""

    @property
    def id(self) -> int: ...

    @property
    def host(self) -> str: ...

    @property
    def port(self) -> int: ...


class AclClient(Protocol):
    """The Gateway's ACL calls (gateway/_acls.py) and the rest that acl uses."""

    def describe_acls(self, f: AclFilter, trust_empty: bool = False, bulk: bool = False,
                      node: int | None = None) -> list[AclBinding]: ...

    def create_acls(self, bindings: Sequence[AclBinding]) -> Sequence[ErrorLike | None]: ...

    def delete_acls(self, filters: Sequence[AclFilter]) -> Sequence[tuple[list[AclBinding], ErrorLike | None]]: ...

    def live_brokers(self) -> Sequence[BrokerLike]: ...

    def who(self) -> str: ...

    def code_error(self, code: int, message: str | None, what: str, **kw: Any) -> KafkactlError: ...
