"""`acls why` against the broker (issue 17): for each API, a principal that holds exactly the ACLs `why` tells it
to create sends the real request and the broker authorizes it; with any one of them removed, the broker refuses
the request with the error `why` names for it, and `why` says it is missing (exit 8).

The requests are kafka-python's protocol messages, sent as a fresh SCRAM user through kafkactl's gateway: one
request of the API named, so the broker's answer is about that API alone. "Authorized" means the broker's answer
carries no *_AUTHORIZATION_FAILED: some requests then fail for reasons of state the test provokes on purpose
(EndTxn of an empty transaction: INVALID_TXN_STATE), which each case names."""

from __future__ import annotations

import json
import shlex
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from kafkactl.exitcodes import ExitCode
from tests.conftest import run
from tests.integration.acl_helpers import scram_user, token

AUTH_ERRORS = {"TOPIC_AUTHORIZATION_FAILED", "GROUP_AUTHORIZATION_FAILED", "TRANSACTIONAL_ID_AUTHORIZATION_FAILED",
               "CLUSTER_AUTHORIZATION_FAILED"}
FILTERED = "(left out of the answer)"


def ok(r):
    assert r.exit_code == 0, r.stderr[-2000:]
    return r


def err(code: int) -> str | None:
    if not code:
        return None
    from kafka.errors import for_code

    return for_code(code).__name__ if not hasattr(for_code(code), "message") else for_code(code).message


def first_error(*codes: int) -> str | None:
    for c in codes:
        if c:
            return err(c)
    return None


@dataclass
class Client:
    """A fresh SCRAM user with no ACL, its gateway, and the names its requests use."""

    principal: str
    gw: Any
    admin: Any
    topic: str
    group: str
    txn: str
    state: dict = field(default_factory=dict)

    def send(self, request: Any) -> Any:
        return self.gw._kp_send(request, "a test request")

    def admin_send(self, request: Any) -> Any:
        return self.admin._kp_send(request, "a test request")


@pytest.fixture
def client(sandbox, tmp_path):
    t = token()
    user = f"why{t}"
    gw = scram_user(sandbox, tmp_path, user)
    admin = sandbox.gateway("admin")
    topic = f"why{t}-t"
    ok(run("--context", "local-admin", "topics", "create", topic, "--partitions", "1"))
    c = Client(f"User:{user}", gw, admin, topic, f"why{t}-g", f"why{t}-x")
    yield c
    gw.close()
    from tests.integration.acl_helpers import remove_exactly, snapshot

    remove_exactly(admin, {b for b in snapshot(admin) if b.principal == c.principal})
    _leave_nothing_open(c)


def _leave_nothing_open(c: Client) -> None:
    """No transaction left open (it would hold its partitions, __consumer_offsets' among them, for a minute) and
    no member left in a group: later modules share the sandbox's coordinators."""
    from kafka.protocol.admin import DeleteGroupsRequest, DescribeGroupsRequest
    from kafka.protocol.consumer import LeaveGroupRequest as L

    if c.state.get("txn"):
        _admin_init(c)  # a new epoch aborts what the test left open, and waits until it is aborted
    if c.state.get("group"):
        d = c.admin_send(DescribeGroupsRequest(groups=[c.group], include_authorized_operations=False)).groups[0]
        if d.members:
            c.admin_send(L(group_id=c.group, members=[L.MemberIdentity(member_id=m.member_id, group_instance_id=None,
                                                                       reason=None) for m in d.members]))
        c.admin_send(DeleteGroupsRequest(groups_names=[c.group]))


def _create_topic(admin, name: str) -> None:
    from kafka.protocol.admin import CreateTopicsRequest

    T = CreateTopicsRequest.CreatableTopic
    resp = admin._kp_send(CreateTopicsRequest(topics=[T(name=name, num_partitions=1, replication_factor=1,
                                                        assignments=[], configs=[])],
                                              timeout_ms=30000, validate_only=False), "create a topic")
    assert resp.topics[0].error_code in (0, 36), resp


# ---------------------------------------------------------------- the requests, one per API (and a few variants)

def metadata(c: Client) -> str | None:
    from kafka.protocol.metadata import MetadataRequest

    r = c.send(MetadataRequest(topics=[MetadataRequest.MetadataRequestTopic(name=c.topic, topic_id=None)],
                               allow_auto_topic_creation=False))
    return first_error(r.topics[0].error_code)


def find_group_coordinator(c: Client) -> str | None:
    from kafka.protocol.metadata import FindCoordinatorRequest

    return first_error(c.send(FindCoordinatorRequest(key_type=0, coordinator_keys=[c.group]))
                       .coordinators[0].error_code)


def find_txn_coordinator(c: Client) -> str | None:
    from kafka.protocol.metadata import FindCoordinatorRequest

    return first_error(c.send(FindCoordinatorRequest(key_type=1, coordinator_keys=[c.txn])).coordinators[0].error_code)


def list_offsets(c: Client) -> str | None:
    from kafka.protocol.consumer import ListOffsetsRequest as R

    r = c.send(R(replica_id=-1, isolation_level=0, topics=[R.ListOffsetsTopic(name=c.topic, partitions=[
        R.ListOffsetsTopic.ListOffsetsPartition(partition_index=0, current_leader_epoch=-1, timestamp=-1)])]))
    return first_error(r.topics[0].partitions[0].error_code)


def offset_for_leader_epoch(c: Client) -> str | None:
    from kafka.protocol.consumer import OffsetForLeaderEpochRequest as R

    P = R.OffsetForLeaderTopic.OffsetForLeaderPartition
    r = c.send(R(replica_id=-1, topics=[R.OffsetForLeaderTopic(topic=c.topic, partitions=[
        P(partition=0, current_leader_epoch=-1, leader_epoch=0)])]))
    return first_error(r.topics[0].partitions[0].error_code)


def produce(c: Client) -> str | None:
    from confluent_kafka import Producer

    errors: list[str] = []
    p = Producer({**_quiet(c.gw.confluent_config()), "enable.idempotence": False, "acks": "all",
                  "message.timeout.ms": 8000, "topic.metadata.refresh.interval.ms": 1000})
    p.produce(c.topic, b"v",
              on_delivery=lambda e, m: errors.append(e.name()) if e else None)  # noqa: ARG005 (a delivery callback)
    p.flush(15)
    return errors[0] if errors else None


def fetch(c: Client) -> str | None:
    from kafka.protocol.consumer import FetchRequest as R
    from kafka.protocol.metadata import MetadataRequest

    meta = c.admin_send(MetadataRequest(topics=[MetadataRequest.MetadataRequestTopic(name=c.topic, topic_id=None)],
                                        allow_auto_topic_creation=False))
    P = R.FetchTopic.FetchPartition
    r = c.send(R(replica_id=-1, max_wait_ms=100, min_bytes=0, max_bytes=1 << 20, isolation_level=0, session_id=0,
                 session_epoch=-1, topics=[R.FetchTopic(topic_id=meta.topics[0].topic_id, partitions=[
                     P(partition=0, current_leader_epoch=-1, fetch_offset=0, last_fetched_epoch=-1, log_start_offset=-1,
                       partition_max_bytes=1 << 20)])], forgotten_topics_data=[], rack_id=""))
    return first_error(r.error_code, r.responses[0].partitions[0].error_code)


def _quiet(conf: dict) -> dict:
    return {k: v for k, v in conf.items() if k != "error_cb"}


def init_idempotent(c: Client) -> str | None:
    from kafka.protocol.producer import InitProducerIdRequest

    r = c.send(InitProducerIdRequest(transactional_id=None, transaction_timeout_ms=-1, producer_id=-1,
                                     producer_epoch=-1))
    return first_error(r.error_code)


def _init_txn(c: Client) -> tuple[str | None, int, int]:
    from kafka.protocol.producer import InitProducerIdRequest

    c.state["txn"] = True
    r = c.send(InitProducerIdRequest(transactional_id=c.txn, transaction_timeout_ms=60000, producer_id=-1,
                                     producer_epoch=-1))
    return first_error(r.error_code), r.producer_id, r.producer_epoch


def init_transactional(c: Client) -> str | None:
    return _init_txn(c)[0]


def _admin_init(c: Client) -> tuple[int, int]:
    """The producer id and epoch, got as admin: a step the request tested does not depend on."""
    from kafka.protocol.producer import InitProducerIdRequest

    c.state["txn"] = c.state["group"] = True
    _coordinator(c, 1, c.txn)
    _coordinator(c, 0, c.group)
    for _ in range(100):  # the previous request's transaction may still be ending (CONCURRENT_TRANSACTIONS)
        r = c.admin_send(InitProducerIdRequest(transactional_id=c.txn, transaction_timeout_ms=60000, producer_id=-1,
                                               producer_epoch=-1))
        if err(r.error_code) not in RETRIABLE:
            break
        time.sleep(0.2)
    assert r.error_code == 0, r
    return r.producer_id, r.producer_epoch


def add_partitions_to_txn(c: Client) -> str | None:
    from kafka.protocol.producer import AddPartitionsToTxnRequest as R

    pid, epoch = _admin_init(c)
    r = c.send(R(max_version=3, v3_and_below_transactional_id=c.txn, v3_and_below_producer_id=pid,
                 v3_and_below_producer_epoch=epoch,
                 v3_and_below_topics=[R.AddPartitionsToTxnTopic(name=c.topic, partitions=[0])]))
    res = r.results_by_topic_v3_and_below[0].results_by_partition[0]
    return first_error(r.error_code, res.partition_error_code)


def add_offsets_to_txn(c: Client) -> str | None:
    from kafka.protocol.producer import AddOffsetsToTxnRequest

    pid, epoch = _admin_init(c)
    r = c.send(AddOffsetsToTxnRequest(transactional_id=c.txn, producer_id=pid, producer_epoch=epoch,
                                      group_id=c.group))
    return first_error(r.error_code)


def txn_offset_commit(c: Client) -> str | None:
    from kafka.protocol.producer import AddOffsetsToTxnRequest, TxnOffsetCommitRequest as R

    pid, epoch = _admin_init(c)
    a = c.admin_send(AddOffsetsToTxnRequest(transactional_id=c.txn, producer_id=pid, producer_epoch=epoch,
                                            group_id=c.group))
    assert a.error_code == 0, a
    r = c.send(R(transactional_id=c.txn, group_id=c.group, producer_id=pid, producer_epoch=epoch, generation_id=-1,
                 member_id="", group_instance_id=None, topics=[R.TxnOffsetCommitRequestTopic(name=c.topic, partitions=[
                     R.TxnOffsetCommitRequestTopic.TxnOffsetCommitRequestPartition(
                         partition_index=0, committed_offset=0, committed_leader_epoch=-1, committed_metadata="")])]))
    return first_error(r.error_code if hasattr(r, "error_code") else 0, r.topics[0].partitions[0].error_code)


def end_txn(c: Client) -> str | None:
    from kafka.protocol.producer import EndTxnRequest

    pid, epoch = _admin_init(c)
    return first_error(c.send(EndTxnRequest(transactional_id=c.txn, producer_id=pid, producer_epoch=epoch,
                                            committed=False)).error_code)


def _join(c: Client) -> tuple[str | None, str, int]:
    from kafka.protocol.consumer import JoinGroupRequest as R

    def join(member: str):
        return c.send(R(group_id=c.group, session_timeout_ms=10000, rebalance_timeout_ms=10000, member_id=member,
                        group_instance_id=None, protocol_type="consumer",
                        protocols=[R.JoinGroupRequestProtocol(name="range", metadata=b"")], reason=None))

    c.state["group"] = True
    r = join("")
    if err(r.error_code) == "MEMBER_ID_REQUIRED":
        r = join(r.member_id)
    return first_error(r.error_code), r.member_id, r.generation_id


def join_group(c: Client) -> str | None:
    return _join(c)[0]


def sync_group(c: Client) -> str | None:
    from kafka.protocol.consumer import SyncGroupRequest as R

    e, member, gen = _join_as_admin(c)
    r = c.send(R(group_id=c.group, generation_id=gen, member_id=member, group_instance_id=None,
                 protocol_type="consumer", protocol_name="range", assignments=[]))
    return first_error(r.error_code)


def _join_as_admin(c: Client) -> tuple[str | None, str, int]:
    """A member joined by the admin, for the requests of a member (SyncGroup, Heartbeat, LeaveGroup)."""
    saved = c.gw
    c.gw = c.admin
    try:
        e, member, gen = _join(c)
    finally:
        c.gw = saved
    assert e is None, e
    return e, member, gen


def heartbeat(c: Client) -> str | None:
    from kafka.protocol.consumer import HeartbeatRequest, SyncGroupRequest as S

    e, member, gen = _join_as_admin(c)
    c.admin_send(S(group_id=c.group, generation_id=gen, member_id=member, group_instance_id=None,
                   protocol_type="consumer", protocol_name="range", assignments=[]))
    return first_error(c.send(HeartbeatRequest(group_id=c.group, generation_id=gen, member_id=member,
                                               group_instance_id=None)).error_code)


def leave_group(c: Client) -> str | None:
    from kafka.protocol.consumer import LeaveGroupRequest as R

    e, member, gen = _join_as_admin(c)
    r = c.send(R(group_id=c.group, members=[R.MemberIdentity(member_id=member, group_instance_id=None, reason=None)]))
    return first_error(r.error_code, *(m.error_code for m in r.members))


def _commit(c: Client, as_admin: bool = False) -> str | None:
    from kafka.protocol.consumer import OffsetCommitRequest as R

    P = R.OffsetCommitRequestTopic.OffsetCommitRequestPartition
    req = R(group_id=c.group, generation_id_or_member_epoch=-1, member_id="", group_instance_id=None,
            retention_time_ms=-1, max_version=9, topics=[R.OffsetCommitRequestTopic(name=c.topic, partitions=[
                P(partition_index=0, committed_offset=0, committed_leader_epoch=-1, commit_timestamp=-1,
                  committed_metadata="")])])
    c.state["group"] = True
    if as_admin:
        _coordinator(c, 0, c.group)
    deadline = time.monotonic() + (90 if as_admin else 0)
    while True:  # as the admin, a set-up step: until the group coordinator of a new sandbox is ready
        r = (c.admin_send if as_admin else c.send)(req)
        e = first_error(r.error_code if hasattr(r, "error_code") else 0, r.topics[0].partitions[0].error_code)
        if e not in RETRIABLE or time.monotonic() > deadline:
            return e
        time.sleep(0.3)


def _coordinator(c: Client, key_type: int, key: str) -> None:
    """As a client does first (FindCoordinator, as the admin): this makes the broker create __consumer_offsets or
    __transaction_state on first use, and waits until their coordinator is loaded."""
    from kafka.protocol.metadata import FindCoordinatorRequest

    deadline = time.monotonic() + 90
    while True:
        r = c.admin_send(FindCoordinatorRequest(key_type=key_type, coordinator_keys=[key]))
        e = first_error(r.coordinators[0].error_code)
        if e is None:
            return
        assert e in RETRIABLE and time.monotonic() < deadline, e
        time.sleep(0.3)


def offset_commit(c: Client) -> str | None:
    return _commit(c)


def offset_fetch(c: Client) -> str | None:
    from kafka.protocol.consumer import OffsetFetchRequest as R

    assert _commit(c, as_admin=True) is None
    r = c.send(R(require_stable=False, max_version=9,
                 groups=[R.OffsetFetchRequestGroup(group_id=c.group, member_id=None, member_epoch=-1, topics=[
                     R.OffsetFetchRequestGroup.OffsetFetchRequestTopics(name=c.topic, partition_indexes=[0])])]))
    g = r.groups[0]
    return first_error(g.error_code, *(p.error_code for t in g.topics for p in t.partitions))


def describe_groups(c: Client) -> str | None:
    from kafka.protocol.admin import DescribeGroupsRequest

    assert _commit(c, as_admin=True) is None
    r = c.send(DescribeGroupsRequest(groups=[c.group], include_authorized_operations=True))
    return first_error(r.groups[0].error_code)


def list_groups(c: Client) -> str | None:
    from kafka.protocol.admin import ListGroupsRequest

    assert _commit(c, as_admin=True) is None
    r = c.send(ListGroupsRequest(states_filter=[], types_filter=[]))
    if r.error_code:
        return err(r.error_code)
    return None if c.group in {g.group_id for g in r.groups} else FILTERED


def delete_groups(c: Client) -> str | None:
    from kafka.protocol.admin import DeleteGroupsRequest

    assert _commit(c, as_admin=True) is None
    return first_error(c.send(DeleteGroupsRequest(groups_names=[c.group])).results[0].error_code)


def offset_delete(c: Client) -> str | None:
    from kafka.protocol.consumer import OffsetDeleteRequest as R

    assert _commit(c, as_admin=True) is None
    r = c.send(R(group_id=c.group, topics=[R.OffsetDeleteRequestTopic(name=c.topic, partitions=[
        R.OffsetDeleteRequestTopic.OffsetDeleteRequestPartition(partition_index=0)])]))
    return first_error(r.error_code, *(p.error_code for t in r.topics for p in t.partitions))


def create_topics(c: Client) -> str | None:
    from kafka.protocol.admin import CreateTopicsRequest

    T = CreateTopicsRequest.CreatableTopic
    r = c.send(CreateTopicsRequest(topics=[T(name=c.topic + "-new", num_partitions=1, replication_factor=1,
                                             assignments=[], configs=[])], timeout_ms=30000, validate_only=True))
    return first_error(r.topics[0].error_code)


def delete_topics(c: Client) -> str | None:
    from kafka.protocol.admin import DeleteTopicsRequest as R

    _create_topic(c.admin, c.topic)
    for _ in range(40):  # a topic just deleted and created again: wait until the name is usable
        r = c.send(R(topics=[R.DeleteTopicState(name=c.topic, topic_id=None)], topic_names=[c.topic],
                     timeout_ms=30000))
        e = first_error(r.responses[0].error_code)
        if e != "UNKNOWN_TOPIC_OR_PARTITION":
            return e
        time.sleep(0.25)
        _create_topic(c.admin, c.topic)
    return e


def create_partitions(c: Client) -> str | None:
    from kafka.protocol.admin import CreatePartitionsRequest as R

    r = c.send(R(topics=[R.CreatePartitionsTopic(name=c.topic, count=2, assignments=None)], timeout_ms=30000,
                 validate_only=True))
    return first_error(r.results[0].error_code)


def delete_records(c: Client) -> str | None:
    from kafka.protocol.admin import DeleteRecordsRequest as R

    r = c.send(R(topics=[R.DeleteRecordsTopic(name=c.topic, partitions=[
        R.DeleteRecordsTopic.DeleteRecordsPartition(partition_index=0, offset=0)])], timeout_ms=30000))
    return first_error(r.topics[0].partitions[0].error_code)


def describe_topic_partitions(c: Client) -> str | None:
    from kafka.protocol.admin import DescribeTopicPartitionsRequest as R

    r = c.send(R(topics=[R.TopicRequest(name=c.topic)], response_partition_limit=100, cursor=None))
    return first_error(r.topics[0].error_code)


def describe_producers(c: Client) -> str | None:
    from kafka.protocol.admin import DescribeProducersRequest as R

    r = c.send(R(topics=[R.TopicRequest(name=c.topic, partition_indexes=[0])]))
    return first_error(r.topics[0].partitions[0].error_code)


def _describe_configs(c: Client, rtype: int, name: str) -> str | None:
    from kafka.protocol.admin import DescribeConfigsRequest as R

    r = c.send(R(resources=[R.DescribeConfigsResource(resource_type=rtype, resource_name=name,
                                                      configuration_keys=None)],
                 include_synonyms=False, include_documentation=False))
    return first_error(r.results[0].error_code)


def describe_topic_configs(c: Client) -> str | None:
    return _describe_configs(c, 2, c.topic)


def describe_group_configs(c: Client) -> str | None:
    return _describe_configs(c, 32, c.group)


def describe_broker_configs(c: Client) -> str | None:
    return _describe_configs(c, 4, "1")


def incremental_alter_topic_configs(c: Client) -> str | None:
    from kafka.protocol.admin import IncrementalAlterConfigsRequest as R

    Res = R.AlterConfigsResource
    r = c.send(R(resources=[Res(resource_type=2, resource_name=c.topic, configs=[
        Res.AlterableConfig(name="retention.ms", config_operation=0, value="3600000")])], validate_only=True))
    return first_error(r.responses[0].error_code)


def alter_topic_configs(c: Client) -> str | None:
    from kafka.protocol.admin import AlterConfigsRequest as R

    Res = R.AlterConfigsResource
    r = c.send(R(resources=[Res(resource_type=2, resource_name=c.topic, configs=[
        Res.AlterableConfig(name="retention.ms", value="3600000")])], validate_only=True))
    return first_error(r.responses[0].error_code)


def describe_acls(c: Client) -> str | None:
    from kafka.protocol.admin import DescribeAclsRequest

    return first_error(c.send(DescribeAclsRequest(
        resource_type_filter=1, resource_name_filter=None, pattern_type_filter=1, principal_filter=None,
        host_filter=None, operation=1, permission_type=1)).error_code)


def create_acls(c: Client) -> str | None:
    from kafka.protocol.admin import CreateAclsRequest as R

    r = c.send(R(creations=[R.AclCreation(resource_type=2, resource_name=c.topic + "-other", resource_pattern_type=3,
                                          principal=f"User:{c.group}-nobody", host="*", operation=3,
                                          permission_type=3)]))
    return first_error(r.results[0].error_code)


def delete_acls(c: Client) -> str | None:
    from kafka.protocol.admin import DeleteAclsRequest as R

    r = c.send(R(filters=[R.DeleteAclsFilter(resource_type_filter=2, resource_name_filter=c.topic + "-other",
                                             pattern_type_filter=3, principal_filter=f"User:{c.group}-nobody",
                                             host_filter="*", operation=3, permission_type=3)]))
    return first_error(r.filter_results[0].error_code)


def describe_log_dirs(c: Client) -> str | None:
    from kafka.protocol.admin import DescribeLogDirsRequest

    return first_error(c.send(DescribeLogDirsRequest(topics=None)).error_code)


def describe_client_quotas(c: Client) -> str | None:
    from kafka.protocol.admin import DescribeClientQuotasRequest

    return first_error(c.send(DescribeClientQuotasRequest(components=[], strict=False)).error_code)


def alter_client_quotas(c: Client) -> str | None:
    from kafka.protocol.admin import AlterClientQuotasRequest as R

    E = R.EntryData
    r = c.send(R(entries=[E(entity=[E.EntityData(entity_type="user", entity_name=c.group)],
                            ops=[E.OpData(key="producer_byte_rate", value=1048576.0, remove=False)])],
                 validate_only=True))
    return first_error(r.entries[0].error_code)


def describe_scram(c: Client) -> str | None:
    from kafka.protocol.admin import DescribeUserScramCredentialsRequest

    R = DescribeUserScramCredentialsRequest
    return first_error(c.send(R(users=[R.UserName(name=c.group + "-nobody")])).error_code)


def alter_scram(c: Client) -> str | None:
    from kafka.protocol.admin import AlterUserScramCredentialsRequest as R

    r = c.send(R(deletions=[R.ScramCredentialDeletion(name=c.group + "-nobody", mechanism=1)], upsertions=[]))
    return first_error(r.results[0].error_code)


def list_partition_reassignments(c: Client) -> str | None:
    from kafka.protocol.admin import ListPartitionReassignmentsRequest

    return first_error(c.send(ListPartitionReassignmentsRequest(timeout_ms=30000, topics=None)).error_code)


def elect_leaders(c: Client) -> str | None:
    from kafka.protocol.admin import ElectLeadersRequest as R

    r = c.send(R(election_type=0, topic_partitions=[R.TopicPartitions(topic=c.topic, partitions=[0])],
                 timeout_ms=30000))
    return first_error(r.error_code)


def describe_transactions(c: Client) -> str | None:
    from kafka.protocol.admin import DescribeTransactionsRequest

    return first_error(c.send(DescribeTransactionsRequest(transactional_ids=[c.txn])).transaction_states[0].error_code)


@dataclass(frozen=True)
class Case:
    api: str
    args: tuple[str, ...]
    send: Callable[[Client], str | None]
    passes: frozenset[str] = frozenset()  # a non-authorization error that shows the broker authorized it

    @property
    def id(self) -> str:
        return f"{self.api}[{self.send.__name__}]"


T, G, X, C = ("--topic", "{topic}"), ("--group", "{group}"), ("--transactional-id", "{txn}"), ("--cluster",)
CASES = [
    Case("Metadata", T, metadata),
    Case("FindCoordinator", G, find_group_coordinator),
    Case("FindCoordinator", X, find_txn_coordinator),
    Case("ListOffsets", T, list_offsets),
    Case("OffsetForLeaderEpoch", T, offset_for_leader_epoch),
    Case("Produce", T, produce),
    Case("Fetch", T, fetch),
    Case("InitProducerId", (), init_idempotent),
    Case("InitProducerId", X, init_transactional),
    Case("AddPartitionsToTxn", X + T, add_partitions_to_txn),
    Case("AddOffsetsToTxn", X + G, add_offsets_to_txn),
    Case("TxnOffsetCommit", X + G + T, txn_offset_commit),
    Case("EndTxn", X, end_txn, frozenset({"INVALID_TXN_STATE"})),
    Case("JoinGroup", G, join_group),
    Case("SyncGroup", G, sync_group, frozenset({"REBALANCE_IN_PROGRESS"})),
    Case("Heartbeat", G, heartbeat, frozenset({"REBALANCE_IN_PROGRESS"})),
    Case("LeaveGroup", G, leave_group),
    Case("OffsetCommit", G + T, offset_commit),
    Case("OffsetFetch", G + T, offset_fetch),
    Case("DescribeGroups", G, describe_groups),
    Case("ListGroups", G, list_groups),
    Case("DeleteGroups", G, delete_groups),
    Case("OffsetDelete", G + T, offset_delete),
    Case("CreateTopics", ("--topic", "{topic}-new"), create_topics),
    Case("DeleteTopics", T, delete_topics),
    Case("CreatePartitions", T, create_partitions),
    Case("DeleteRecords", T, delete_records),
    Case("DescribeTopicPartitions", T, describe_topic_partitions),
    Case("DescribeProducers", T, describe_producers),
    Case("DescribeConfigs", T, describe_topic_configs),
    Case("DescribeConfigs", G, describe_group_configs),
    Case("DescribeConfigs", C, describe_broker_configs),
    Case("AlterConfigs", T, alter_topic_configs),
    Case("IncrementalAlterConfigs", T, incremental_alter_topic_configs),
    Case("DescribeAcls", (), describe_acls),
    Case("CreateAcls", (), create_acls),
    Case("DeleteAcls", (), delete_acls),
    Case("DescribeLogDirs", (), describe_log_dirs),
    Case("DescribeClientQuotas", (), describe_client_quotas),
    Case("AlterClientQuotas", (), alter_client_quotas),
    Case("DescribeUserScramCredentials", (), describe_scram),
    Case("AlterUserScramCredentials", (), alter_scram, frozenset({"RESOURCE_NOT_FOUND"})),
    Case("ListPartitionReassignments", (), list_partition_reassignments),
    Case("ElectLeaders", T, elect_leaders),
    Case("DescribeTransactions", X, describe_transactions, frozenset({"TRANSACTIONAL_ID_NOT_FOUND"})),
]


def why(c: Client, case: Case) -> tuple[int, list[dict]]:
    args = [a.format(topic=c.topic, group=c.group, txn=c.txn) for a in case.args]
    r = run("--context", "local-admin", "-o", "json", "acls", "why", "--principal", c.principal, "--api", case.api,
            *args)
    assert r.exit_code in (0, ExitCode.DENIED), r.stderr
    return r.exit_code, json.loads(r.stdout)


def admin_cli(command: str, verb: str) -> None:
    argv = shlex.split(command)
    assert argv[:3] == ["kafkactl", "acls", "create"], command
    ok(run("--context", "local-admin", "acls", verb, *argv[3:], *(["--yes"] if verb == "delete" else [])))


RETRIABLE = {"COORDINATOR_NOT_AVAILABLE", "COORDINATOR_LOAD_IN_PROGRESS", "NOT_COORDINATOR", "CONCURRENT_TRANSACTIONS",
             "NOT_LEADER_OR_FOLLOWER", "LEADER_NOT_AVAILABLE", "UNKNOWN_TOPIC_OR_PARTITION"}


def attempt(case: Case, c: Client) -> str | None:
    """The request, again while the broker answers what passes with time (the first group or transaction of a
    new sandbox waits for its internal topic)."""
    deadline = time.monotonic() + 60
    while True:
        got = case.send(c)
        if got not in RETRIABLE or time.monotonic() > deadline:
            return got
        time.sleep(0.3)


def passed(case: Case, got: str | None) -> bool:
    return got is None or got in case.passes


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_the_acls_why_lists_are_what_the_broker_checks(client, case):
    code, rows = why(client, case)
    assert code == ExitCode.DENIED and rows and all(r["decision"] == "DENIED" for r in rows), rows
    # nothing granted: the broker refuses, with an error why names
    got = attempt(case, client)
    assert got in {r["error"] for r in rows}, (got, rows)
    grants = sorted({r["grant"] for r in rows if r["grant"].startswith("kafkactl acls create")})
    assert grants, rows
    for g in grants:
        admin_cli(g, "create")
    code, after = why(client, case)
    assert code == ExitCode.OK and all(r["decision"] == "ALLOWED" for r in after), after
    got = attempt(case, client)
    assert passed(case, got), f"{case.id} with every ACL why lists: {got}"
    if len(grants) == 1 and len(rows) == 1:
        return  # removing the only one is the first request above
    for g in grants:  # each one is needed: without it the broker refuses with the error why names for it
        admin_cli(g, "delete")
        code, now = why(client, case)
        missing = [r for r in now if r["decision"] == "DENIED"]
        assert code == ExitCode.DENIED and missing, now
        got = attempt(case, client)
        assert got in {r["error"] for r in missing}, (case.id, g, got, missing)
        admin_cli(g, "create")


def test_why_works_offline_from_a_file_and_exits_8_only_when_something_is_missing(tmp_path):
    f = tmp_path / "acls.yaml"
    f.write_text("scope:\n  principalPrefixes: ['User:app']\nacls:\n  - principal: User:app\n    allow:\n"
                 "      - topic: orders\n        operations: [Read]\n"
                 "      - group: billing\n        operations: [Read]\n")
    base = ("acls", "why", "--principal", "User:app", "--acls-file", str(f), "--role", "consumer", "--topic", "orders")
    r = run("-o", "json", *base, "--group", "billing")
    assert r.exit_code == 0 and {x["decision"] for x in json.loads(r.stdout)} == {"ALLOWED"}, r.output
    assert "passes all" in r.stderr
    r = run("-o", "json", *base, "--group", "other")
    assert r.exit_code == ExitCode.DENIED, r.output
    assert [x["grant"] for x in json.loads(r.stdout) if x["grant"].startswith("kafkactl")] == [
        "kafkactl acls create --allow-principal User:app --operation Read --group other"]


@pytest.mark.parametrize("args,needle", [
    ([], "give one of --api, --role and --error"),
    (["--api", "Produce", "--role", "producer"], "give one of --api, --role and --error"),
    (["--api", "Prodce", "--topic", "t"], "--api 'Prodce' is not an API kafkactl knows (did you mean Produce?)"),
    (["--role", "producer"], "--role producer needs --topic"),
    (["--error", "NOPE", "--topic", "t"], "--error 'NOPE' is not an authorization error"),
    (["--api", "Metadata"], "no check applies to the resources given"),
    (["--api", "Fetch", "--topic", ""], "--topic"),
])
def test_bad_questions_are_one_line_exit_2_before_any_request(args, needle):
    r = run("-b", "127.0.0.1:1", "--timeout", "1", "acls", "why", "--principal", "User:app", *args)
    assert r.exit_code == ExitCode.USAGE and needle in r.stderr and r.stdout == "", r.output
    assert len(r.stderr.strip().splitlines()) == 1


def test_why_with_the_broker_down_is_one_line_exit_4():
    r = run("-b", "127.0.0.1:1", "--timeout", "2", "acls", "why", "--principal", "User:app", "--api", "Fetch",
            "--topic", "t")
    assert r.exit_code == ExitCode.UNREACHABLE and len(r.stderr.strip().splitlines()) == 1, r.output


def test_why_as_a_user_that_may_not_list_acls_says_so(sandbox):
    r = sandbox.as_user("carol", "acls", "why", "--principal", "User:carol", "--api", "Fetch", "--topic", "t")
    assert r.exit_code == ExitCode.NOT_AUTHORIZED and "Describe on the Cluster" in r.stderr, r.output
    assert len(r.stderr.strip().splitlines()) <= 2 and "Traceback" not in r.stderr
