"""ACL RPCs (KIP-140) for the Gateway.

Which client (bench/acl_read_clients.py and bench/RESULTS.md): librdkafka maps DELEGATION_TOKEN, USER,
CREATE_TOKENS, DESCRIBE_TOKENS and TWO_PHASE_COMMIT to UNKNOWN, so kafka-python's request classes are
the exact path. confluent-kafka imports in 40 ms against kafka-python's 100 ms, which dominates a
command of ordinary size; kafka-python decodes 100,000 ACLs in half confluent's time. Reads therefore
try librdkafka first when the filter is expressible there and re-read through kafka-python the moment
a result holds an UNKNOWN. Creates and deletes go through confluent-kafka when nothing in the request
(or matched by a filter in it) is beyond librdkafka's enums. Codes are decoded here, so an enum value
from a newer broker becomes UNKNOWN instead of an exception.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, overload

from kafkactl.acl.model import AclBinding, AclFilter, AclOperation, PatternType, Permission, ResourceType

if TYPE_CHECKING:
    from confluent_kafka.admin import (
        AclOperation as COperation,
        AclPermissionType as CPermission,
        ResourcePatternType as CPattern,
        ResourceType as CType,
    )

    from kafkactl.errors import KafkactlError
    from kafkactl.gateway._base import ErrorInfo
    from kafkactl.gateway._host import GatewayHost as _Host

    # the fields of confluent-kafka's AclBinding, and of its AclBindingFilter (whose None strings match anything)
    _Fields = tuple[CType, str, CPattern, str, str, COperation, CPermission]
    _FilterFields = tuple[CType, str | None, CPattern, str | None, str | None, COperation, CPermission]
else:
    _Host = object

# what librdkafka's enums can express (confluent-kafka 2.16)
_CONFLUENT_TYPES = {ResourceType.TOPIC, ResourceType.GROUP, ResourceType.CLUSTER, ResourceType.TRANSACTIONAL_ID}
_CONFLUENT_OPS = {op for op in AclOperation if AclOperation.ALL <= op <= AclOperation.IDEMPOTENT_WRITE}
SECURITY_DISABLED = 54
BULK_THRESHOLD = 200
LATE_ANSWER_S = 3600.0


def confluent_can_express(items: Sequence[AclBinding | AclFilter]) -> bool:
    """Whether librdkafka can carry these, and everything a filter among them may match, without loss.

    A filter with ANY type or operation may match a USER or TWO_PHASE_COMMIT ACL, which librdkafka
    would hand back as UNKNOWN: such requests go through kafka-python.
    """
    return all(i.resource_type in _CONFLUENT_TYPES and i.operation in _CONFLUENT_OPS for i in items)


def check_lengths(items: Sequence[AclBinding | AclFilter]) -> None:
    """Refuse a request holding a string longer than the protocol allows, before it is sent (librdkafka crashes
    on one). The options and state files are checked where they are read; this is the last line."""
    from kafkactl.limits import MAX_STRING_BYTES, check_string

    for i in items:
        for what, text in (("resource name", i.resource_name), ("principal", i.principal), ("host", i.host)):
            if text is not None and len(text) > MAX_STRING_BYTES // 4:
                check_string(text, what)


def _binding(rtype: int, name: str, ptype: int, principal: str, host: str, op: int, perm: int) -> AclBinding:
    d = _decode(rtype, ptype, op, perm)
    return AclBinding(d[0], name, d[1], principal, host, d[2], d[3], unknown=d[4])


@functools.lru_cache(maxsize=1024)
def _decode(rtype: int, ptype: int, op: int, perm: int
            ) -> tuple[ResourceType, PatternType, AclOperation, Permission, str | None]:
    """The four codes of a binding, decoded once per combination (a bulk read repeats a few dozen of them)."""
    decoded = (ResourceType.decode(rtype), PatternType.decode(ptype), AclOperation.decode(op), Permission.decode(perm))
    unknown = [f"{label}={code}" for label, code, member in
               (("resource_type", rtype, decoded[0]), ("pattern_type", ptype, decoded[1]),
                ("operation", op, decoded[2]), ("permission", perm, decoded[3]))
               if member.value == 0 and code != 0]
    return (*decoded, ",".join(unknown) or None)


class AclRpcs(_Host):
    """Mixed into Gateway: uses its clients, `translate` and `wait`."""

    # ------------------------------------------------------------------ describe
    def describe_acls(self, f: AclFilter, trust_empty: bool = False, bulk: bool = False,
                      node: int | None = None) -> list[AclBinding]:
        """ACLs matching f. librdkafka returns [] for CLUSTER_AUTHORIZATION_FAILED and SECURITY_DISABLED
        alike, so an empty answer is re-asked through kafka-python (exact errors), unless the caller
        says an empty answer is good enough (a lookup before a create, whose own errors will tell).
        `bulk` reads (expected to be large) go straight to kafka-python, which decodes 2.4x faster.
        `node`: ask that broker (by id), for its own authorizer's view; otherwise any broker answers."""
        check_lengths([f])
        if (node is None and not bulk and not self._librdkafka_stuck
                and f.resource_type in _CONFLUENT_TYPES | {ResourceType.ANY}
                and f.operation in _CONFLUENT_OPS | {AclOperation.ANY}):
            found = self._describe_acls_confluent(f)
            if (found or trust_empty) and not any(b.resource_type is ResourceType.UNKNOWN
                                                  or b.operation is AclOperation.UNKNOWN for b in found):
                return found
        return self._describe_acls_kafka_python(f, node)

    def acl_principals(self) -> list[str]:
        """The principals named in any ACL, for completion: one DescribeAcls through kafka-python, reading only the
        principal of each binding (no binding records). With 100,000 ACLs that is 0.5 s where the full read through
        librdkafka took 1.0 s, past the look-up budget; and librdkafka aborts the process (an assertion in
        rd_kafka_admin_response_parse) when such an answer arrives after the request timed out."""
        from kafka.protocol.admin import DescribeAclsRequest

        everything = AclFilter()
        req = DescribeAclsRequest(
            resource_type_filter=int(everything.resource_type), resource_name_filter=None,
            pattern_type_filter=int(everything.pattern_type), principal_filter=None, host_filter=None,
            operation=int(everything.operation), permission_type=int(everything.permission))
        resp = self._kp_send(req, "list ACLs")
        self._raise_acl_error(resp.error_code, resp.error_message, "list ACLs", "Describe on the Cluster")
        return sorted({a.principal for r in resp.resources for a in r.acls})

    def _describe_acls_confluent(self, f: AclFilter) -> list[AclBinding]:
        from confluent_kafka.admin import AclBindingFilter

        from kafkactl.gateway._base import error_info

        # librdkafka aborts the process (an assertion in rd_kafka_admin_response_parse) when a DescribeAcls answer
        # arrives after its own request timeout: it never times out here; `wait` gives up at --timeout instead
        # confluent-kafka's AclBindingFilter takes AclBinding's signature (str): its None strings match anything
        fut = self.admin.describe_acls(AclBindingFilter(*_confluent_fields(f)),  # type: ignore[arg-type]
                                       request_timeout=max(self.profile.timeout, LATE_ANSWER_S))
        ours, theirs = self.first_answer([fut], lambda: self._describe_acls_kafka_python(f), "list ACLs")
        if not ours:
            return theirs  # type: ignore[no-any-return]
        try:
            found = fut.result()
        except Exception as exc:
            info = error_info(exc)
            self._raise_acl_error(info.code, info.message, "list ACLs", "Describe on the Cluster")
            raise
        return [_binding(int(c.restype.value), c.name, int(c.resource_pattern_type.value), c.principal, c.host,
                         int(c.operation.value), int(c.permission_type.value)) for c in found]

    def _describe_acls_kafka_python(self, f: AclFilter, node: int | None = None) -> list[AclBinding]:
        from kafka.protocol.admin import DescribeAclsRequest

        req = DescribeAclsRequest(
            resource_type_filter=int(f.resource_type), resource_name_filter=f.resource_name,
            pattern_type_filter=int(f.pattern_type), principal_filter=f.principal, host_filter=f.host,
            operation=int(f.operation), permission_type=int(f.permission))
        resp = self._kp_send(req, "list ACLs" if node is None else f"list ACLs on broker {node}", node)
        self._raise_acl_error(resp.error_code, resp.error_message, "list ACLs", "Describe on the Cluster")
        return [_binding(r.resource_type, r.resource_name, r.pattern_type, a.principal, a.host, a.operation,
                         a.permission_type)
                for r in resp.resources for a in r.acls]

    # ------------------------------------------------------------------ create
    def create_acls(self, bindings: Sequence[AclBinding]) -> list[ErrorInfo | None]:
        """One request; results per binding in input order (None = success).

        Large batches go through kafka-python: measured 10,000 creates in 0.43 s against 0.64-0.89 s
        through librdkafka (bench/RESULTS.md); a few bindings go through librdkafka, whose import is cheaper."""
        check_lengths(bindings)
        if confluent_can_express(bindings) and len(bindings) <= BULK_THRESHOLD and not self._librdkafka_stuck:
            return self._create_acls_confluent(bindings)
        return self._create_acls_kp(bindings)

    def _create_acls_kp(self, bindings: Sequence[AclBinding]) -> list[ErrorInfo | None]:
        from kafka.protocol.admin import CreateAclsRequest

        C = CreateAclsRequest.AclCreation
        req = CreateAclsRequest(creations=[
            C(resource_type=int(b.resource_type), resource_name=b.resource_name,
              resource_pattern_type=int(b.pattern_type), principal=b.principal, host=b.host,
              operation=int(b.operation), permission_type=int(b.permission)) for b in bindings])
        resp = self._kp_send(req, "create ACLs")
        return [self._result_error(r.error_code, r.error_message) for r in resp.results]

    def _create_acls_confluent(self, bindings: Sequence[AclBinding]) -> list[ErrorInfo | None]:
        from confluent_kafka.admin import AclBinding as CBinding

        objs = [CBinding(*_confluent_fields(b)) for b in bindings]
        futures = self.admin.create_acls(objs, request_timeout=self.profile.timeout)
        # librdkafka sends it to the broker its metadata names as controller (any broker forwards it to the quorum):
        # when that one does not answer, the same creations go to another (creating a binding twice makes one)
        ours, theirs = self.first_answer(futures, lambda: self._create_acls_kp(bindings), "create ACLs")
        if not ours:
            return theirs  # type: ignore[no-any-return]
        return [_future_error(futures[o]) for o in objs]

    # ------------------------------------------------------------------ delete
    def delete_acls(self, filters: Sequence[AclFilter]) -> list[tuple[list[AclBinding], ErrorInfo | None]]:
        """One request; per filter the ACLs it deleted, or its error."""
        check_lengths(filters)
        if confluent_can_express(filters) and not self._librdkafka_stuck:
            return self._delete_acls_confluent(filters)
        return self._delete_acls_kp(filters)

    def _delete_acls_kp(self, filters: Sequence[AclFilter]) -> list[tuple[list[AclBinding], ErrorInfo | None]]:
        from kafka.protocol.admin import DeleteAclsRequest

        F = DeleteAclsRequest.DeleteAclsFilter
        req = DeleteAclsRequest(filters=[
            F(resource_type_filter=int(f.resource_type), resource_name_filter=f.resource_name,
              pattern_type_filter=int(f.pattern_type), principal_filter=f.principal, host_filter=f.host,
              operation=int(f.operation), permission_type=int(f.permission)) for f in filters])
        resp = self._kp_send(req, "delete ACLs")
        out = []
        for r in resp.filter_results:
            matched = [_binding(m.resource_type, m.resource_name, m.pattern_type, m.principal, m.host, m.operation,
                                m.permission_type) for m in r.matching_acls if m.error_code == 0]
            out.append((matched, self._result_error(r.error_code, r.error_message)))
        return out

    def _delete_acls_confluent(self, filters: Sequence[AclFilter]) -> list[tuple[list[AclBinding], ErrorInfo | None]]:
        from confluent_kafka.admin import AclBindingFilter

        objs = [AclBindingFilter(*_confluent_fields(f)) for f in filters]  # type: ignore[arg-type]  # None: any
        futures = self.admin.delete_acls(objs, request_timeout=self.profile.timeout)
        # as for creations; a deletion the unanswering broker did pass on shows, in the second answer, as nothing
        # matched: the binding is gone either way
        ours, theirs = self.first_answer(futures, lambda: self._delete_acls_kp(filters), "delete ACLs")
        if not ours:
            return theirs  # type: ignore[no-any-return]
        out = []
        for o in objs:
            err = _future_error(futures[o])
            matched = [] if err else [_binding(int(c.restype.value), c.name, int(c.resource_pattern_type.value),
                                               c.principal, c.host, int(c.operation.value),
                                               int(c.permission_type.value)) for c in futures[o].result()]
            out.append((matched, err))
        return out

    # ------------------------------------------------------------------ helpers
    def _result_error(self, code: int, message: str | None) -> ErrorInfo | None:
        return None if code == 0 else self._code_info(code, message)

    def _code_info(self, code: int, message: str | None) -> ErrorInfo:
        from kafka.errors import for_code

        from kafkactl.gateway._base import ErrorInfo, protocol_name

        cls = for_code(code)
        name = protocol_name(code, getattr(cls, "message", cls.__name__))
        return clean_error(ErrorInfo(code, name, message or cls.description))

    def code_exception(self, code: int, message: str | None) -> Exception:
        """A Kafka error code as an exception `translate` understands (for per-item results)."""
        from kafkactl.gateway._base import _CodeError

        err = self._code_info(code, message)
        return _CodeError(err.code, err.name, err.message)

    def code_error(self, code: int, message: str | None, what: str, **kw: Any) -> KafkactlError:
        """A Kafka error code as kafkactl's error (and so its exit code)."""
        return self.translate(self.code_exception(code, message), what, **kw)

    def _raise_acl_error(self, code: int, message: str | None, what: str, needs: str) -> None:
        from kafkactl.errors import BrokerError

        if code == 0:
            return
        if code == SECURITY_DISABLED:
            raise BrokerError("the cluster has no authorizer (authorizer.class.name is not set): it keeps no ACLs")
        raise self.code_error(code, message, what, needs=needs)


# confluent-kafka's enums, imported once (not per binding)
_CONFLUENT_ENUMS: tuple[type[CType], type[CPattern], type[COperation], type[CPermission]] | None = None


@overload
def _confluent_fields(x: AclBinding) -> _Fields: ...


@overload
def _confluent_fields(x: AclFilter) -> _FilterFields: ...


def _confluent_fields(x: AclBinding | AclFilter) -> _Fields | _FilterFields:
    global _CONFLUENT_ENUMS
    if _CONFLUENT_ENUMS is None:  # imported once, not per binding
        from confluent_kafka.admin import AclOperation, AclPermissionType, ResourcePatternType, ResourceType as CType

        _CONFLUENT_ENUMS = (CType, ResourcePatternType, AclOperation, AclPermissionType)
    c_type, c_pat, c_op, c_perm = _CONFLUENT_ENUMS
    return (c_type(int(x.resource_type)), x.resource_name, c_pat(int(x.pattern_type)), x.principal, x.host,
            c_op(int(x.operation)), c_perm(int(x.permission)))


def _future_error(future: Any) -> ErrorInfo | None:
    from kafkactl.gateway._base import error_info

    try:
        future.result()
        return None
    except Exception as exc:
        return clean_error(error_info(exc))


def clean_error(info: ErrorInfo) -> ErrorInfo:
    """The broker fills some error messages with its internal request dump; keep Kafka's own words instead."""
    from kafkactl.gateway._base import ErrorInfo

    if info.message.startswith("Request Request(") or len(info.message) > 300:
        return ErrorInfo(info.code, info.name, info.name.replace("_", " ").lower())
    return info
