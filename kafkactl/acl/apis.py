"""What the broker checks for each request, and what each kind of client sends: the table behind `acls why`.

Facts read from Kafka's request handlers (KafkaApis, AclApis, ConfigHelper in core/src/main/scala/kafka/server),
not code: for every API, the (operation, resource) pairs the broker authorizes, the error it answers when one is
denied, and the Kafka versions the row holds for within kafkactl's range (3.9 to 4.4). Pure: no I/O.

Three shapes of check occur:
- one operation on one resource (most rows);
- any of several (CreateTopics: CREATE on the cluster, else CREATE on each topic);
- "the operation on any resource of a type" (InitProducerId without a transactional id: IDEMPOTENT_WRITE on the
  cluster, else WRITE on any topic, KIP-679), which StandardAuthorizer answers by authorizeByResourceType.
Some denials are no error: the broker leaves the resource out of its answer (ListGroups, ListTransactions).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from kafkactl.acl.model import CLUSTER_NAME, AclOperation, ResourceType, did_you_mean, shown
from kafkactl.errors import UsageError

Op = AclOperation

# what a check names: the resources the question gives, the cluster, or any resource of a type
TOPIC, GROUP, TXN, CLUSTER, ANY_TOPIC = "topic", "group", "transactional-id", "cluster", "any-topic"
KIND_TYPES = {TOPIC: ResourceType.TOPIC, GROUP: ResourceType.GROUP, TXN: ResourceType.TRANSACTIONAL_ID,
              CLUSTER: ResourceType.CLUSTER, ANY_TOPIC: ResourceType.TOPIC}
KIND_OPTIONS = {TOPIC: "--topic", GROUP: "--group", TXN: "--transactional-id", CLUSTER: "--cluster"}

FILTERED = "(left out of the answer)"  # the broker answers without the resource, no error


@dataclass(frozen=True)
class Grant:
    """An operation on a kind of resource: one ACL check of the broker's."""

    operation: AclOperation
    kind: str


@dataclass(frozen=True)
class Need:
    """One check of a request: allowed when any of `any_of` is (most have one). `error` is the broker's answer
    when none is; `unless` names a kind whose presence makes the check another one (InitProducerId with a
    transactional id checks the id, not the cluster)."""

    any_of: tuple[Grant, ...]
    error: str
    unless: str | None = None
    note: str = ""
    asked: bool = False  # made only when the question names the cluster (a broker's configs)


@dataclass(frozen=True)
class Api:
    name: str
    key: int
    needs: tuple[Need, ...]
    requires: tuple[str, ...] = ()  # the kinds a question about it must name (Produce: a topic)
    since: str = "3.9"
    note: str = ""


def _n(op: AclOperation, kind: str, error: str, *more: Grant, unless: str | None = None, note: str = "",
       asked: bool = False) -> Need:
    return Need((Grant(op, kind), *more), error, unless, note, asked)


T_ERR, G_ERR = "TOPIC_AUTHORIZATION_FAILED", "GROUP_AUTHORIZATION_FAILED"
X_ERR, C_ERR = "TRANSACTIONAL_ID_AUTHORIZATION_FAILED", "CLUSTER_AUTHORIZATION_FAILED"


def _cluster(name: str, key: int, op: AclOperation, error: str = C_ERR, since: str = "3.9", note: str = "") -> Api:
    return Api(name, key, (_n(op, CLUSTER, error),), since=since, note=note)


APIS: tuple[Api, ...] = (
    # produce path
    Api("Produce", 0, (_n(Op.WRITE, TXN, X_ERR), _n(Op.WRITE, TOPIC, T_ERR)), requires=(TOPIC,),
        note="a transactional producer's requests carry its transactional id"),
    Api("InitProducerId", 22, (
        _n(Op.WRITE, TXN, X_ERR, note="with transaction.two.phase.commit.enable and a 2PC client (KIP-939) also "
                                       "TWO_PHASE_COMMIT on the id"),
        _n(Op.IDEMPOTENT_WRITE, CLUSTER, C_ERR, Grant(Op.WRITE, ANY_TOPIC), unless=TXN,
           note="KIP-679: WRITE on any topic stands in for IDEMPOTENT_WRITE on the cluster"))),
    Api("AddPartitionsToTxn", 24, (_n(Op.WRITE, TXN, X_ERR), _n(Op.WRITE, TOPIC, T_ERR)), requires=(TXN, TOPIC),
        note="transactions v1; with transaction.version=2 (KIP-890, Kafka 4.0+) the Produce request adds them"),
    Api("AddOffsetsToTxn", 25, (_n(Op.WRITE, TXN, X_ERR), _n(Op.READ, GROUP, G_ERR)), requires=(TXN, GROUP)),
    Api("TxnOffsetCommit", 28, (_n(Op.WRITE, TXN, X_ERR), _n(Op.READ, GROUP, G_ERR), _n(Op.READ, TOPIC, T_ERR)),
        requires=(TXN, GROUP)),
    Api("EndTxn", 26, (_n(Op.WRITE, TXN, X_ERR),), requires=(TXN,)),
    # consume path and groups
    Api("Metadata", 3, (_n(Op.DESCRIBE, TOPIC, T_ERR),),
        note="auto-creation of a missing topic also needs CREATE on the cluster or the topic; topics not "
             "described are left out when all topics are asked for"),
    Api("Fetch", 1, (_n(Op.READ, TOPIC, T_ERR),), requires=(TOPIC,),
        note="a follower's fetch needs CLUSTER_ACTION on the cluster instead"),
    Api("ListOffsets", 2, (_n(Op.DESCRIBE, TOPIC, T_ERR),), requires=(TOPIC,)),
    Api("OffsetForLeaderEpoch", 23, (_n(Op.DESCRIBE, TOPIC, T_ERR),), requires=(TOPIC,)),
    Api("FindCoordinator", 10, (_n(Op.DESCRIBE, GROUP, G_ERR), _n(Op.DESCRIBE, TXN, X_ERR))),
    Api("JoinGroup", 11, (_n(Op.READ, GROUP, G_ERR),), requires=(GROUP,)),
    Api("SyncGroup", 14, (_n(Op.READ, GROUP, G_ERR),), requires=(GROUP,)),
    Api("Heartbeat", 12, (_n(Op.READ, GROUP, G_ERR),), requires=(GROUP,)),
    Api("LeaveGroup", 13, (_n(Op.READ, GROUP, G_ERR),), requires=(GROUP,)),
    Api("OffsetCommit", 8, (_n(Op.READ, GROUP, G_ERR), _n(Op.READ, TOPIC, T_ERR)), requires=(GROUP,)),
    Api("OffsetFetch", 9, (_n(Op.DESCRIBE, GROUP, G_ERR), _n(Op.DESCRIBE, TOPIC, T_ERR)), requires=(GROUP,),
        note="asked for all the group's topics, those not described are left out"),
    Api("ConsumerGroupHeartbeat", 68, (_n(Op.READ, GROUP, G_ERR), _n(Op.DESCRIBE, TOPIC, T_ERR)),
        requires=(GROUP,), since="4.0", note="KIP-848 consumer protocol; the topics are the subscribed ones"),
    Api("ShareGroupHeartbeat", 76, (_n(Op.READ, GROUP, G_ERR), _n(Op.DESCRIBE, TOPIC, T_ERR)), requires=(GROUP,),
        since="4.1", note="KIP-932 share groups (share.version=1)"),
    Api("ShareFetch", 78, (_n(Op.READ, GROUP, G_ERR), _n(Op.READ, TOPIC, T_ERR)), requires=(GROUP, TOPIC),
        since="4.1", note="KIP-932 share groups"),
    Api("ShareAcknowledge", 79, (_n(Op.READ, GROUP, G_ERR), _n(Op.READ, TOPIC, T_ERR)), requires=(GROUP, TOPIC),
        since="4.1", note="KIP-932 share groups"),
    Api("DescribeGroups", 15, (_n(Op.DESCRIBE, GROUP, G_ERR),), requires=(GROUP,)),
    Api("ConsumerGroupDescribe", 69, (_n(Op.DESCRIBE, GROUP, G_ERR),), requires=(GROUP,), since="4.0"),
    Api("ShareGroupDescribe", 77, (_n(Op.DESCRIBE, GROUP, G_ERR),), requires=(GROUP,), since="4.1"),
    Api("ListGroups", 16, (_n(Op.DESCRIBE, CLUSTER, FILTERED, Grant(Op.DESCRIBE, GROUP)),),
        note="KIP-231: DESCRIBE on the cluster lists every group, else each group the caller may describe"),
    Api("DeleteGroups", 42, (_n(Op.DELETE, GROUP, G_ERR),), requires=(GROUP,)),
    Api("OffsetDelete", 47, (_n(Op.DELETE, GROUP, G_ERR), _n(Op.READ, TOPIC, T_ERR)), requires=(GROUP, TOPIC)),
    # topics
    Api("CreateTopics", 19, (_n(Op.CREATE, CLUSTER, T_ERR, Grant(Op.CREATE, TOPIC)),), requires=(TOPIC,),
        note="DESCRIBE_CONFIGS on the topic too for the answer to carry its configs (else no error, no configs)"),
    Api("DeleteTopics", 20, (_n(Op.DELETE, TOPIC, T_ERR),), requires=(TOPIC,)),
    Api("CreatePartitions", 37, (_n(Op.ALTER, TOPIC, T_ERR),), requires=(TOPIC,)),
    Api("DeleteRecords", 21, (_n(Op.DELETE, TOPIC, T_ERR),), requires=(TOPIC,)),
    Api("DescribeTopicPartitions", 75, (_n(Op.DESCRIBE, TOPIC, T_ERR),), requires=(TOPIC,)),
    Api("DescribeProducers", 61, (_n(Op.READ, TOPIC, T_ERR),), requires=(TOPIC,)),
    # configs (the resource decides: a topic's, a group's, or a broker's through the cluster)
    Api("DescribeConfigs", 32, (_n(Op.DESCRIBE_CONFIGS, TOPIC, T_ERR), _n(Op.DESCRIBE_CONFIGS, GROUP, G_ERR),
                                _n(Op.DESCRIBE_CONFIGS, CLUSTER, C_ERR, asked=True)),
        note="brokers, broker loggers and client metrics: DESCRIBE_CONFIGS on the cluster (--cluster)"),
    Api("AlterConfigs", 33, (_n(Op.ALTER_CONFIGS, TOPIC, T_ERR), _n(Op.ALTER_CONFIGS, CLUSTER, C_ERR, asked=True))),
    Api("IncrementalAlterConfigs", 44, (_n(Op.ALTER_CONFIGS, TOPIC, T_ERR), _n(Op.ALTER_CONFIGS, GROUP, G_ERR),
                                        _n(Op.ALTER_CONFIGS, CLUSTER, C_ERR, asked=True))),
    _cluster("ListConfigResources", 74, Op.DESCRIBE_CONFIGS, note="Kafka 4.1+ for every type (3.9/4.0: client "
                                                                  "metrics only)"),
    _cluster("DescribeClientQuotas", 48, Op.DESCRIBE_CONFIGS),
    _cluster("AlterClientQuotas", 49, Op.ALTER_CONFIGS),
    # transactions, inspected
    Api("DescribeTransactions", 65, (_n(Op.DESCRIBE, TXN, X_ERR),), requires=(TXN,)),
    Api("ListTransactions", 66, (_n(Op.DESCRIBE, TXN, FILTERED),), requires=(TXN,),
        note="each transactional id the caller may not describe is left out"),
    # the cluster
    _cluster("DescribeAcls", 29, Op.DESCRIBE),
    _cluster("CreateAcls", 30, Op.ALTER),
    _cluster("DeleteAcls", 31, Op.ALTER),
    _cluster("DescribeLogDirs", 35, Op.DESCRIBE),
    _cluster("AlterReplicaLogDirs", 34, Op.ALTER),
    _cluster("ElectLeaders", 43, Op.ALTER),
    _cluster("AlterPartitionReassignments", 45, Op.ALTER),
    _cluster("ListPartitionReassignments", 46, Op.DESCRIBE),
    _cluster("DescribeUserScramCredentials", 50, Op.DESCRIBE),
    _cluster("AlterUserScramCredentials", 51, Op.ALTER),
    _cluster("UpdateFeatures", 57, Op.ALTER),
    _cluster("DescribeQuorum", 55, Op.DESCRIBE),
)
BY_NAME = {a.name.lower(): a for a in APIS}


@dataclass(frozen=True)
class Role:
    """A kind of client: the APIs it sends, each with the resources the question gives."""

    name: str
    apis: tuple[str, ...]
    requires: tuple[str, ...]
    about: str


ROLES: tuple[Role, ...] = (
    Role("producer", ("Metadata", "InitProducerId", "Produce"), (TOPIC,),
         "an idempotent producer (the default since Kafka 3.0's clients)"),
    Role("transactional-producer", ("Metadata", "FindCoordinator", "InitProducerId", "AddPartitionsToTxn", "Produce",
                                    "EndTxn"), (TOPIC, TXN),
         "a transactional producer; with --group also its offsets sent to the transaction (consume-transform-"
         "produce: AddOffsetsToTxn, TxnOffsetCommit)"),
    Role("consumer", ("Metadata", "FindCoordinator", "JoinGroup", "SyncGroup", "Heartbeat", "OffsetFetch",
                      "ListOffsets", "Fetch", "OffsetForLeaderEpoch", "OffsetCommit", "LeaveGroup"), (TOPIC, GROUP),
         "a consumer in a classic group (group.protocol=classic)"),
    Role("consumer-protocol", ("Metadata", "FindCoordinator", "ConsumerGroupHeartbeat", "OffsetFetch", "ListOffsets",
                               "Fetch", "OffsetForLeaderEpoch", "OffsetCommit"), (TOPIC, GROUP),
         "a consumer with group.protocol=consumer (KIP-848, Kafka 4.0+)"),
    Role("share-consumer", ("Metadata", "FindCoordinator", "ShareGroupHeartbeat", "ShareFetch", "ShareAcknowledge"),
         (TOPIC, GROUP), "a share consumer (KIP-932, Kafka 4.1+)"),
    Role("admin-read", ("Metadata", "DescribeConfigs", "ListGroups", "DescribeGroups", "DescribeAcls"), (),
         "a read-only administrator (kafka-topics.sh --describe, kafka-consumer-groups.sh --describe, "
         "kafka-acls.sh --list)"),
)
# kinds of client whose checks are their preset's grants (kafkactl.acl.presets: each proved needed by the real
# client), named by --group: the Streams application.id, the Connect worker's group.id
PRESET_ROLES: tuple[Role, ...] = (
    Role("streams", (), (GROUP,), "a Kafka Streams app, exactly-once (--group: its application.id; --topic: the "
                                  "topics it reads; what it writes: --role producer)"),
    Role("connect-worker", (), (GROUP,), "a distributed Connect worker (--group: its group.id; its topics the "
                                         "default GROUP-configs, -offsets, -status)"),
)
ROLES = ROLES + PRESET_ROLES
ROLE_BY_NAME = {r.name: r for r in ROLES}
TXN_GROUP_APIS = ("AddOffsetsToTxn", "TxnOffsetCommit")


def find_api(name: str) -> Api:
    api = BY_NAME.get(name.replace("_", "").replace("-", "").lower())
    if api is None:
        raise UsageError(f"--api {shown(name)} is not an API kafkactl "
                         f"knows{did_you_mean(name, [a.name for a in APIS])}")
    return api


def find_role(name: str) -> Role:
    role = ROLE_BY_NAME.get(name.lower())
    if role is None:
        raise UsageError(f"--role {shown(name)} is not a role kafkactl "
                         f"knows{did_you_mean(name, [r.name for r in ROLES])}")
    return role


ERRORS = (T_ERR, G_ERR, X_ERR, C_ERR)


def find_error(name: str) -> str:
    up = name.strip().upper().replace("-", "_")
    if up.isdigit():  # the codes as clients log them
        up = {"29": T_ERR, "30": G_ERR, "53": X_ERR, "31": C_ERR}.get(up, up)
    if up not in ERRORS:
        raise UsageError(f"--error {shown(name)} is not an authorization error{did_you_mean(up, list(ERRORS))} "
                         f"(one of {', '.join(ERRORS)})")
    return up


@dataclass(frozen=True)
class Ask:
    """The resources a question names: topics, groups, transactional ids, the cluster."""

    topics: tuple[str, ...] = ()
    groups: tuple[str, ...] = ()
    transactional_ids: tuple[str, ...] = ()
    cluster: bool = False

    def names(self, kind: str) -> tuple[str, ...]:
        if kind == TOPIC:
            return self.topics
        if kind == GROUP:
            return self.groups
        if kind == TXN:
            return self.transactional_ids
        if kind == ANY_TOPIC:
            return ("*",)
        return (CLUSTER_NAME,) if self.cluster else ()

    def has(self, kind: str) -> bool:
        return bool(self.names(kind))


@dataclass(frozen=True)
class Check:
    """One check the broker makes for the question: the APIs that make it, the resource (or its alternatives,
    as (operation, type, name) triples; name "*" with kind any-topic means any topic) and the error."""

    apis: tuple[str, ...]
    alternatives: tuple[tuple[AclOperation, str, str], ...]
    error: str
    note: str = ""
    prefixed: bool = False  # the check is for every resource whose name starts with the name (a preset's grant)


def checks_for_apis(apis: list[Api], ask: Ask) -> list[Check]:
    """Every check the APIs make for the resources asked about, in the order the APIs list them, each check once
    (with every API that makes it). A check is made per resource asked about of its kind (a topic's for each
    --topic); a check on the cluster alone is made once, and a configs API's only when --cluster is asked."""
    out: dict[tuple[tuple[tuple[AclOperation, str, str], ...], str], Check] = {}  # (alternatives, error)
    for api in apis:
        for kind in api.requires:
            if not ask.has(kind):
                raise UsageError(f"--api {api.name} needs {KIND_OPTIONS[kind]}")
        for need in api.needs:
            if need.unless is not None and ask.has(need.unless):
                continue
            per = next((g.kind for g in need.any_of if g.kind in (TOPIC, GROUP, TXN)), None)
            if per is not None and ask.has(per):
                names: tuple[str | None, ...] = ask.names(per)
            elif per is None and not (need.asked and not ask.cluster):
                names = (None,)  # the cluster, or any topic: one check
            elif per is not None and len(need.any_of) > 1 and not need.asked:
                names = (None,)  # ListGroups without a group: the cluster's alternative alone
            else:
                continue
            for name in names:
                alts = tuple((g.operation, g.kind, _name(g.kind, name)) for g in need.any_of
                             if g.kind != per or name is not None)
                key = (alts, need.error)
                prev = out.get(key)
                if prev is None:
                    out[key] = Check((api.name,), alts, need.error, need.note)
                elif api.name not in prev.apis:
                    out[key] = Check((*prev.apis, api.name), alts, need.error, prev.note or need.note)
    return list(out.values())


def _name(kind: str, name: str | None) -> str:
    if kind == CLUSTER:
        return CLUSTER_NAME
    if kind == ANY_TOPIC:
        return "*"
    assert name is not None
    return name


def checks_for_role(role: Role, ask: Ask) -> list[Check]:
    for kind in role.requires:
        if not ask.has(kind):
            raise UsageError(f"--role {role.name} needs {KIND_OPTIONS[kind]}")
    if role in PRESET_ROLES:
        return _preset_checks(role, ask)
    names = list(role.apis)
    if role.name == "transactional-producer" and ask.groups:
        names += TXN_GROUP_APIS
    apis = [BY_NAME[n.lower()] for n in names]
    return checks_for_apis([a for a in apis if all(ask.has(k) for k in a.requires)], ask)


def _preset_checks(role: Role, ask: Ask) -> list[Check]:
    from kafkactl.acl import presets
    from kafkactl.acl.model import PatternType

    grants: list[presets.Grant] = []
    for group in ask.groups:
        if role.name == "streams":
            grants += presets.streams(group, list(ask.topics), [], PatternType.LITERAL).grants if ask.topics else \
                presets.streams_own(group).grants
        else:
            grants += presets.connect_worker(group).grants
    kinds = {ResourceType.TOPIC: (TOPIC, T_ERR), ResourceType.GROUP: (GROUP, G_ERR),
             ResourceType.TRANSACTIONAL_ID: (TXN, X_ERR)}
    out = []
    for g in dict.fromkeys(grants):
        kind, error = kinds[g.resource_type]
        out.append(Check((f"{role.name} preset",), ((g.operation, kind, g.name),), error,
                         prefixed=g.pattern is PatternType.PREFIXED))
    return out


def checks_for_error(error: str, ask: Ask) -> list[Check]:
    """Every check of every API whose denial answers `error`, for the resources asked about."""
    apis = [a for a in APIS if all(ask.has(k) for k in a.requires) and any(n.error == error for n in a.needs)]
    return [c for c in checks_for_apis(apis, ask) if c.error == error]


@dataclass(frozen=True)
class Why:
    """One row of `acls why`: a check, its decision by the model, and the command that grants it when missing."""

    COLUMNS: ClassVar[tuple[str, ...]] = ("decision", "operation", "resource_type", "resource_name", "apis", "error",
                                          "why", "grant")
    decision: str
    operation: str
    resource_type: str
    resource_name: str
    apis: str
    error: str
    why: str
    grant: str
