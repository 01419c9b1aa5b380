"""Describe/list RPCs with KIP-430 authorized operations, for the Gateway.

Cluster and topics go through kafka-python's Metadata and DescribeCluster request classes: they carry
the raw bitfield (librdkafka turns an empty set into None, which is indistinguishable from "not
supplied") and offline replicas (librdkafka's TopicPartitionInfo has none). Groups go through
librdkafka, which describes classic and KIP-848 consumer groups alike (ConsumerGroupDescribe; the
classic DescribeGroups answers GROUP_ID_NOT_FOUND for a consumer-protocol group). A described group
always includes Describe, so librdkafka's None there can only mean "not supplied".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from kafkactl.gateway._base import ErrorInfo
from kafkactl.gateway.records import GroupRecord, ListedGroup, MemberRecord

if TYPE_CHECKING:
    from kafkactl.gateway._host import GatewayHost as _Host
else:
    _Host = object


# COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR: the coordinator is not ready yet
COORDINATOR_NOT_READY = frozenset({14, 15, 16})


class DescribeRpcs(_Host):
    """Mixed into Gateway. The raw responses stay in here: callers get kafkactl's records."""

    def _describe_cluster_raw(self, include_authorized_operations: bool) -> Any:
        from kafka.protocol.admin import DescribeClusterRequest

        resp = self._kp_send(DescribeClusterRequest(
            include_cluster_authorized_operations=include_authorized_operations), "describe the cluster")
        if resp.error_code:
            raise self.code_error(resp.error_code, resp.error_message, "describe the cluster")
        self._saw_brokers((b.broker_id, b.host, b.port) for b in resp.brokers)
        return resp

    def _topic_metadata(self, names: Sequence[str] | None, include_authorized_operations: bool,
                        node: int | None = None) -> Any:
        """Metadata for these topics (None: every topic the caller may Describe); no auto-creation."""
        from kafka.protocol.metadata import MetadataRequest

        topics = None if names is None else [MetadataRequest.MetadataRequestTopic(name=n) for n in names]
        resp = self._kp_send(MetadataRequest(topics=topics, allow_auto_topic_creation=False,
                                             include_topic_authorized_operations=include_authorized_operations),
                             "describe topics", node)
        self._saw_brokers((b.node_id, b.host, b.port) for b in resp.brokers)
        return resp

    def list_groups(self) -> list[ListedGroup]:
        """ListGroups on every broker (each answers for the groups it coordinates). KIP-231: never an
        authorization error, only the groups the caller may describe."""
        return [ListedGroup(g.group_id, g.group_type or None, g.protocol_type or None, g.group_state or None)
                for g in self._list_groups_raw()]

    def _list_groups_raw(self) -> list[Any]:
        from kafka.protocol.admin import ListGroupsRequest

        kp = self.kafka_python
        groups: list[Any] = []
        silent: list[tuple[int, str, BaseException]] = []  # brokers that did not answer: (id, address, error)
        try:
            brokers = sorted(kp._manager.cluster.brokers(), key=lambda b: b.node_id)
            self._saw_brokers((b.node_id, b.host, b.port) for b in brokers)
            for b in brokers:
                try:
                    resp = kp._manager.run(kp._manager.send, ListGroupsRequest(), b.node_id)
                except Exception as exc:
                    if not self._kp_lost(exc):
                        raise
                    silent.append((b.node_id, f"{b.host}:{b.port}", exc))
                    continue
                if resp.error_code:
                    raise self.code_error(resp.error_code, None, "list groups")
                groups.extend(resp.groups)
        except Exception as exc:
            if hasattr(exc, "exit_code"):
                raise
            raise self._translate_kp(exc, "list groups") from None
        if silent and len(silent) == len(brokers):
            raise self._translate_kp(silent[0][2], "list groups") from None  # the whole cluster: diagnose it
        if silent:
            raise self.brokers_down("list groups", [(node, address) for node, address, _ in silent], len(brokers),
                                    "each broker lists only the groups it coordinates")
        return groups

    def list_transactional_ids(self) -> list[str]:
        """ListTransactions on every broker (each answers for the ids it coordinates): only the ids the caller may
        describe, never an authorization error (KafkaApis filters by DESCRIBE on each id)."""
        from kafka.protocol.admin import ListTransactionsRequest

        kp = self.kafka_python
        ids: set[str] = set()
        try:
            brokers = sorted(kp._manager.cluster.brokers(), key=lambda b: b.node_id)
            for b in brokers:
                resp = kp._manager.run(kp._manager.send, ListTransactionsRequest(
                    state_filters=[], producer_id_filters=[], duration_filter=-1, transactional_id_pattern=None),
                    b.node_id)
                if resp.error_code and resp.error_code not in COORDINATOR_NOT_READY:
                    raise self.code_error(resp.error_code, None, "list transactional ids")
                ids.update(t.transactional_id for t in resp.transaction_states)
        except Exception as exc:
            if hasattr(exc, "exit_code"):
                raise
            raise self._translate_kp(exc, "list transactional ids") from None
        return sorted(ids)

    def describe_groups(self, group_ids: Sequence[str], include_authorized_operations: bool
                        ) -> dict[str, GroupRecord | ErrorInfo]:
        """Each group as kafkactl's record, or the error its describe met (`item_error` makes it kafkactl's error).
        A coordinator that is still loading (the first group lookup of a new cluster creates __consumer_offsets)
        or has moved is asked again, within --timeout."""
        import time

        from kafkactl.gateway._base import error_info

        deadline = time.monotonic() + self.profile.timeout
        out: dict[str, GroupRecord | ErrorInfo] = {}
        pending, delay = list(group_ids), 0.1
        while pending:
            futures = self.admin.describe_consumer_groups(
                pending, include_authorized_operations=include_authorized_operations,
                request_timeout=self.profile.timeout)
            self.wait(futures, "describe groups")
            retry = []
            for gid, fut in futures.items():
                try:
                    out[gid] = _group_record(gid, fut.result(), include_authorized_operations)
                except Exception as exc:  # per group: GROUP_AUTHORIZATION_FAILED, not found, ...
                    out[gid] = info = error_info(exc)
                    if info.code in COORDINATOR_NOT_READY and time.monotonic() + delay < deadline:
                        retry.append(gid)
            if retry:
                time.sleep(delay)
                delay = min(delay * 2, 1.0)
            pending = retry
        return out


# librdkafka's enum names -> the strings the broker itself uses (as ListGroups returns them)
_STATES = {"UNKNOWN": "Unknown", "PREPARING_REBALANCING": "PreparingRebalance", "COMPLETING_REBALANCING":
           "CompletingRebalance", "STABLE": "Stable", "DEAD": "Dead", "EMPTY": "Empty", "ASSIGNING": "Assigning",
           "RECONCILING": "Reconciling"}


def _enum_name(value: Any) -> str | None:
    name = getattr(value, "name", None)
    return None if value is None else (name or str(value))


def _group_record(gid: str, d: Any, include_authorized_operations: bool) -> GroupRecord:
    from kafkactl.acl.bitfield import encode
    from kafkactl.acl.model import AclOperation

    state = _enum_name(d.state)
    members = tuple(MemberRecord(m.member_id, m.client_id, m.host, tuple(
        (tp.topic, tp.partition) for tp in (m.assignment.topic_partitions if m.assignment else [])))
        for m in sorted(d.members, key=lambda m: m.member_id))
    ops = None
    if include_authorized_operations and d.authorized_operations is not None:
        # librdkafka gives a list (or None when not supplied; a described group always has Describe)
        ops = encode(AclOperation(int(o.value)) for o in d.authorized_operations)
    kind = _enum_name(getattr(d, "type", None))
    return GroupRecord(gid, None if kind in (None, "UNKNOWN") else kind.lower(),
                       _STATES.get(state or "", state), getattr(d, "partition_assignor", None) or None,
                       d.coordinator.id if d.coordinator is not None else None, members, ops)
