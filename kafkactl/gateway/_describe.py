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

from kafkactl.errors import KafkactlError, PartialAnswer
from kafkactl.gateway._base import ErrorInfo
from kafkactl.gateway.records import GroupRecord, ListedGroup, MemberRecord, QuorumRecord, ReplicaRecord

if TYPE_CHECKING:
    from kafkactl.gateway._host import GatewayHost as _Host
else:
    _Host = object


# a broker passes DescribeQuorum on to the quorum's leader: when that one is frozen, no broker answers until a new
# leader is elected; `cluster describe` shows the rest without the quorum after this long
QUORUM_PATIENCE_S = 5.0
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

    def describe_quorum(self) -> QuorumRecord:
        """The metadata quorum, as kafka-metadata-quorum.sh describes it: DescribeQuorum, which a broker passes on to
        the active controller. It needs Describe on the cluster."""
        from kafka.protocol.admin import DescribeQuorumRequest as R

        from kafkactl.errors import UnreachableError

        what = "describe the metadata quorum"
        patience = min(self.profile.timeout, QUORUM_PATIENCE_S)
        try:
            resp = self._kp_send(R(topics=[R.TopicData(
                topic_name="__cluster_metadata", partitions=[R.TopicData.PartitionData(partition_index=0)])]),
                what, timeout_s=patience)
        except UnreachableError:
            raise UnreachableError(f"the metadata quorum did not answer within {patience:g} s (its leader stopped? "
                                   "an election takes a few seconds)") from None
        if resp.error_code:
            raise self.code_error(resp.error_code, resp.error_message, what, needs="Describe on the Cluster")
        p = resp.topics[0].partitions[0]
        if p.error_code:
            raise self.code_error(p.error_code, p.error_message, what, needs="Describe on the Cluster")

        def replicas(states: Sequence[Any]) -> tuple[ReplicaRecord, ...]:
            return tuple(sorted((ReplicaRecord(s.replica_id, s.log_end_offset, s.last_fetch_timestamp,
                                               s.last_caught_up_timestamp) for s in states), key=lambda r: r.id))

        return QuorumRecord(p.leader_id if p.leader_id >= 0 else None, p.leader_epoch, p.high_watermark,
                            replicas(p.current_voters), replicas(p.observers))

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
        def listed(raw: list[Any]) -> list[ListedGroup]:
            return [ListedGroup(g.group_id, g.group_type or None, g.protocol_type or None, g.group_state or None)
                    for g in raw]

        try:
            return listed(self._list_groups_raw())
        except PartialAnswer as exc:
            raise PartialAnswer(exc.message, listed(exc.partial)) from None  # type: ignore[arg-type]

    def _list_groups_raw(self) -> list[Any]:
        from kafka.protocol.admin import ListGroupsRequest

        answered, down = self._ask_every_broker(ListGroupsRequest, "list groups", "groups")
        groups: list[Any] = []
        for resp in answered:
            if resp.error_code:
                raise self.code_error(resp.error_code, None, "list groups")
            groups.extend(resp.groups)
        if down is not None:
            raise PartialAnswer(down.message, groups)
        return groups

    def _ask_every_broker(self, make: Any, what: str, listed: str) -> tuple[list[Any], KafkactlError | None]:
        """make()'s request sent to every broker side by side, each of which lists only the `listed` it coordinates:
        the answers, and the error naming the brokers that gave none (None: every broker answered; the caller
        raises it as a PartialAnswer with what the others listed). When no broker answered, or another error came,
        that is raised. A broker whose coordinator is not ready (loading the groups it has just taken over from a
        broker that stopped, say) is asked again, with backoff, within --timeout."""
        import time

        kp = self.kafka_python_for(what)
        deadline = time.monotonic() + self.profile.timeout
        try:
            brokers = sorted(kp._manager.cluster.brokers(), key=lambda b: b.node_id)
            self._saw_brokers((b.node_id, b.host, b.port) for b in brokers)
            answers = self._kp_ask_each(make, [b.node_id for b in brokers])
            delay = 0.1
            while True:
                loading = [n for n, a in answers.items()
                           if not isinstance(a, BaseException) and a.error_code in COORDINATOR_NOT_READY]
                if not loading or time.monotonic() + delay >= deadline:
                    break
                time.sleep(delay)
                delay = min(delay * 2, 1.0)
                answers.update(self._kp_ask_each(make, loading))
        except Exception as exc:
            raise self._translate_kp(exc, what) from None
        for answer in answers.values():
            if isinstance(answer, BaseException) and not self._kp_lost(answer):
                raise self._translate_kp(answer, what) from None
        silent = [b for b in brokers if isinstance(answers[b.node_id], BaseException)]
        if silent and len(silent) == len(brokers):
            raise self._translate_kp(answers[silent[0].node_id], what) from None  # the whole cluster: diagnose it
        answered = [answers[b.node_id] for b in brokers if b not in silent]
        if not silent:
            return answered, None
        return answered, self.brokers_down(what, [(b.node_id, f"{b.host}:{b.port}") for b in silent], len(brokers),
                                           f"each broker lists only the {listed} it coordinates")

    def list_transactional_ids(self) -> list[str]:
        """ListTransactions on every broker (each answers for the ids it coordinates): only the ids the caller may
        describe, never an authorization error (KafkaApis filters by DESCRIBE on each id)."""
        from kafka.protocol.admin import ListTransactionsRequest

        def make() -> Any:
            return ListTransactionsRequest(state_filters=[], producer_id_filters=[], duration_filter=-1,
                                           transactional_id_pattern=None)

        answered, down = self._ask_every_broker(make, "list transactional ids", "transactional ids")
        ids: set[str] = set()
        for resp in answered:
            if resp.error_code and resp.error_code not in COORDINATOR_NOT_READY:  # (still loading at --timeout: it
                raise self.code_error(resp.error_code, None, "list transactional ids")  # lists none, as before)
            ids.update(t.transactional_id for t in resp.transaction_states)
        if down is not None:
            raise PartialAnswer(down.message, sorted(ids))  # type: ignore[arg-type]
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
