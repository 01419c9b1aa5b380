"""Presets: the ACLs a kind of client needs, each grant one its client fails without.

tests/integration/test_acl_presets.py runs the real client (Kafka Streams, a Connect worker with FileStream
connectors, a share consumer, a transactional producer) as a principal holding exactly a preset's ACLs, then
once more per grant with that grant removed: the client must work with all of them and fail without any one.
What each grant is for, as those runs showed (kafka-clients, kafka-streams and connect-runtime 4.3.1 against a
4.4.0 broker):

- streams: Read on the input topics; Write on the output topics; on the topics prefixed `APP_ID-` (repartition
  and changelog topics) Create (classic groups: the app creates them; KIP-1071 streams groups: the broker
  creates them for the app, which otherwise waits with MISSING_INTERNAL_TOPICS), Read, Write, and Delete (the
  app purges consumed repartition records: denied, it logs an authorization error at each purge); Read on the
  group `APP_ID`; Write on the transactional ids prefixed `APP_ID-` (exactly-once v2; left out for an
  at-least-once app, whose other grants are the same). Not needed: DescribeConfigs (not asked on a first start nor
  on a restart), IdempotentWrite on the cluster (KIP-679).
- connect-worker: Read on the group; Read, Write and Create on each of its config, offset and status topics.
- connector: a source Writes its topics; a sink Reads its topics and its group `connect-NAME`.
- share-consumer: Read on the topics and on the share group (KIP-932).
- two-phase-commit: Write on the topics, Write and TwoPhaseCommit on the transactional ids (KIP-939; the broker
  must also have transaction.two.phase.commit.enable=true). TwoPhaseCommit is the one grant no run proves: no
  released Java client sends InitProducerId with enable2Pc, and 4.4.0 brokers keep the version carrying it unstable.
- mirror-maker (MirrorMaker 2 4.3.1, dedicated mode, from a second sandbox's view as target): on the source, Read
  and DescribeConfigs (topic config sync) on the topics, Create, Write, Read on mm2-offset-syncs.TARGET.internal,
  Describe on the groups it checkpoints; on the target, Create, Write, AlterConfigs on SOURCE.topic (for '*':
  prefixed SOURCE.), Create, Read, Write on its worker's mm2-configs|offsets|status.SOURCE.internal, Read on the
  group SOURCE-mm2, Create and Write on heartbeats, Create, Write and Read on SOURCE.checkpoints.internal (a
  restarted MirrorMaker reads back the checkpoints it wrote; without Read it warns and translates group offsets only
  from fresh checkpoints).
"""

from __future__ import annotations

from dataclasses import dataclass

from kafkactl.acl.breadth import Pattern, TooWide, Written
from kafkactl.acl.model import (
    WILDCARD,
    AclBinding,
    AclOperation,
    PatternType,
    Permission,
    ResourceType,
    shown,
    validate_text,
)
from kafkactl.errors import UsageError

Op, RT = AclOperation, ResourceType
PRESETS = ("streams", "connect-worker", "connector", "share-consumer", "two-phase-commit", "mirror-maker")
SIDES = ("source", "target")


@dataclass(frozen=True, order=True)
class Grant:
    resource_type: ResourceType
    name: str
    pattern: PatternType
    operation: AclOperation

    def asked_name(self) -> str:
        """The resource name to ask the authorizer about: the name, or for a prefixed grant a name under it."""
        return under(self.name, self.pattern is PatternType.PREFIXED)


# a name under a prefix, to ask whether a grant of the prefix holds: the authorizer decides every name under a
# prefix alike unless an ACL names that very name, which no one writes for this one
PREFIX_SAMPLE = "kafkactl-sample"


def under(name: str, prefixed: bool) -> str:
    """`name`, or when it is a prefix, a name under it (PREFIX_SAMPLE appended)."""
    return name + PREFIX_SAMPLE if prefixed else name


@dataclass(frozen=True)
class Preset:
    kind: str  # one of PRESETS
    label: str  # what it is for, as a message names it: "Kafka Streams app wordcount"
    grants: tuple[Grant, ...]
    # the wide resource patterns the operator wrote (a '*' or prefixed --topic), and the prefixes derived from one
    # name they gave (APP_ID-): the only wide patterns its bindings may hold (breadth.py)
    written: frozenset[Pattern] = frozenset()

    def bindings(self, principals: list[str], hosts: list[str]) -> list[AclBinding]:
        """The grants for each principal (as the operator wrote them) and host, each wide value checked."""
        out = sorted({AclBinding(g.resource_type, g.name, g.pattern, p, h, g.operation, Permission.ALLOW)
                      for g in self.grants for p in principals for h in hosts})
        Written(f"the {self.kind} preset ({self.label})", set(principals), set(self.written)).bindings(out)
        return out


def _written(grants: list[Grant] | set[Grant], *derived: Grant) -> frozenset[Pattern]:
    """The patterns of `grants` (named by the operator in a list of resources) and of `derived` (prefixes made from
    one name the operator gave, already checked to be one name)."""
    return frozenset((g.resource_type, g.name, g.pattern) for g in (*grants, *derived))


def _name(value: str, what: str) -> str:
    name = value.strip()
    if not name:
        raise UsageError(f"{what} {value!r}: the name is empty")
    return validate_text(name, what)


def _own(value: str, what: str, longest_suffix: str = "-") -> str:
    """A name a preset derives others from (an application id, a worker group, a connector): not '*', which as a
    literal group means every group, and short enough that what is derived from it is a name Kafka accepts."""
    name = _name(value, what)
    if name == WILDCARD:
        raise UsageError(f"{what} '*': a preset is for one client; '*' as its group would grant every group")
    validate_text(name + longest_suffix, what)  # GROUP-configs, APP_ID-: refused here, naming the option
    return name


def _names(values: list[str], what: str) -> list[str]:
    return [_name(v, what) for v in values]


def _grants(rtype: ResourceType, names: list[str], pattern: PatternType, *ops: AclOperation) -> list[Grant]:
    return [Grant(rtype, n, pattern, op) for n in names for op in ops]


def streams(app_id: str, inputs: list[str], outputs: list[str],
            pattern: PatternType = PatternType.LITERAL, exactly_once: bool = True) -> Preset:
    """A Kafka Streams application: `inputs` and `outputs` are the topics its topology reads and writes;
    `exactly_once` (processing.guarantee=exactly_once_v2) adds its transactional ids."""
    if not inputs and not outputs:
        raise UsageError("--streams needs the topics the application reads (--topic) or writes (--output-topic)")
    own = streams_own(app_id, exactly_once)
    listed = {*_grants(RT.TOPIC, _names(inputs, "--topic"), pattern, Op.READ),
              *_grants(RT.TOPIC, _names(outputs, "--output-topic"), pattern, Op.WRITE)}
    return Preset("streams", own.label, tuple(sorted({*listed, *own.grants})), _written(listed) | own.written)


def streams_own(app_id: str, exactly_once: bool = True) -> Preset:
    """What a Streams app needs whatever its topology: its internal topics, group and, exactly-once, its
    transactional ids."""
    app = _own(app_id, "--streams")
    internal = f"{app}-"
    txn = [Grant(RT.TRANSACTIONAL_ID, internal, PatternType.PREFIXED, Op.WRITE)] if exactly_once else []
    derived = {*_grants(RT.TOPIC, [internal], PatternType.PREFIXED, Op.CREATE, Op.READ, Op.WRITE, Op.DELETE), *txn}
    return Preset("streams", f"Kafka Streams app {app}", tuple(sorted({
        *derived, Grant(RT.GROUP, app, PatternType.LITERAL, Op.READ)})), _written([], *derived))


def worker_topics(group: str, config: str | None = None, offset: str | None = None,
                  status: str | None = None) -> tuple[str, str, str]:
    """A Connect worker's config, offset and status topics: as given, else GROUP-configs, -offsets, -status."""
    return (_one(config, "--config-topic") if config is not None else f"{group}-configs",
            _one(offset, "--offset-topic") if offset is not None else f"{group}-offsets",
            _one(status, "--status-topic") if status is not None else f"{group}-status")


def _one(value: str, what: str) -> str:
    """A name that is one resource (a worker's config topic): not '*', which as a literal name is every one."""
    name = _name(value, what)
    if name == WILDCARD:
        raise TooWide(f"{what} '*': this option names one topic; '*' would grant on every topic")
    return name


def connect_worker(group: str, config: str | None = None, offset: str | None = None,
                   status: str | None = None) -> Preset:
    g = _own(group, "--connect-worker", "-offsets")
    topics = list(worker_topics(g, config, offset, status))
    return Preset("connect-worker", f"Connect worker group {g}", tuple(sorted({
        Grant(RT.GROUP, g, PatternType.LITERAL, Op.READ),
        *_grants(RT.TOPIC, topics, PatternType.LITERAL, Op.READ, Op.WRITE, Op.CREATE),
    })))


def connector(name: str, topics: list[str], source: bool, pattern: PatternType = PatternType.LITERAL) -> Preset:
    """A connector's own needs (its worker's are connect_worker's): a source writes its topics, a sink reads its
    topics in the group connect-NAME (the worker's default consumer group for a sink)."""
    n = _own(name, "--connector", "")
    validate_text(f"connect-{n}", "--connector")
    kind = "--source" if source else "--sink"
    if not topics:
        raise UsageError(f"--connector {kind} needs the topics it {'writes' if source else 'reads'} (--topic)")
    names = _names(topics, "--topic")
    listed = _grants(RT.TOPIC, names, pattern, Op.WRITE if source else Op.READ)
    grants = listed if source else [*listed, Grant(RT.GROUP, f"connect-{n}", PatternType.LITERAL, Op.READ)]
    return Preset("connector", f"{'source' if source else 'sink'} connector {n}", tuple(sorted(set(grants))),
                  _written(listed))


def share_consumer(topics: list[str], groups: list[str], pattern: PatternType = PatternType.LITERAL) -> Preset:
    if not topics or not groups:
        raise UsageError("--share-consumer needs a --topic and a --group (the share group)")
    listed = {*_grants(RT.TOPIC, _names(topics, "--topic"), pattern, Op.READ),
              *_grants(RT.GROUP, _names(groups, "--group"), pattern, Op.READ)}
    return Preset("share-consumer", "share consumer", tuple(sorted(listed)), _written(listed))


def two_phase_commit(transactional_ids: list[str], topics: list[str],
                     pattern: PatternType = PatternType.LITERAL) -> Preset:
    if not transactional_ids or not topics:
        raise UsageError("--two-phase-commit needs a --transactional-id and a --topic")
    ids = [validate_text(t, "--transactional-id") for t in transactional_ids if t or _empty_id()]
    listed = {*_grants(RT.TOPIC, _names(topics, "--topic"), pattern, Op.WRITE),
              *_grants(RT.TRANSACTIONAL_ID, ids, pattern, Op.WRITE, Op.TWO_PHASE_COMMIT)}
    return Preset("two-phase-commit", "two-phase-commit producer", tuple(sorted(listed)), _written(listed))


def _empty_id() -> bool:
    raise UsageError("--transactional-id '': the name is empty")


def mirror_maker(source: str, target: str, side: str, topics: list[str], groups: list[str],
                 pattern: PatternType = PatternType.LITERAL) -> Preset:
    """MirrorMaker 2 in dedicated mode replicating `topics` (and checkpointing `groups`) from the cluster alias
    `source` to `target`, with the default replication policy (SOURCE.topic), offset syncs kept on the source and
    ACL sync off (sync.topic.acls.enabled=false: syncing needs Alter on the target cluster, which lets its holder
    create any ACL). `side`: the grants on the source cluster or on the target."""
    src = _own(source, "--mirror-maker", ".checkpoints.internal")
    dst = _own(target, "--target-alias", ".internal")
    validate_text(f"mm2-offset-syncs.{dst}.internal", "--target-alias")
    validate_text(f"mm2-configs.{src}.internal", "--mirror-maker")
    if side not in SIDES:
        raise UsageError(f"--side {shown(side)}: one of source, target (the cluster this command grants on)")
    if not topics:
        raise UsageError("--mirror-maker needs the source topics it replicates (--topic)")
    names = _names(topics, "--topic")
    if groups and side == "target":
        raise UsageError("--group (the source groups it checkpoints) applies to --side source")
    if side == "source":
        listed = [*_grants(RT.TOPIC, names, pattern, Op.READ, Op.DESCRIBE_CONFIGS),
                  *_grants(RT.GROUP, _names(groups, "--group"), pattern, Op.DESCRIBE)]
        grants = [*listed, *_grants(RT.TOPIC, [f"mm2-offset-syncs.{dst}.internal"], PatternType.LITERAL,
                                    Op.CREATE, Op.WRITE, Op.READ)]
        written = _written(listed)
    else:
        # every topic ('*') arrives as every SOURCE.-prefixed one: a literal 'SOURCE.*' would match none
        every = pattern is PatternType.LITERAL and WILDCARD in names
        remote = [validate_text(f"{src}.{n}", "--topic") for n in names if not (every and n == WILDCARD)]
        grants = [*_grants(RT.TOPIC, remote, pattern, Op.CREATE, Op.WRITE, Op.ALTER_CONFIGS),
                  *_grants(RT.TOPIC, [f"{src}."] if every else [], PatternType.PREFIXED,
                           Op.CREATE, Op.WRITE, Op.ALTER_CONFIGS),
                  *_grants(RT.TOPIC, [f"mm2-{k}.{src}.internal" for k in ("configs", "offsets", "status")],
                           PatternType.LITERAL, Op.CREATE, Op.READ, Op.WRITE),
                  Grant(RT.GROUP, f"{src}-mm2", PatternType.LITERAL, Op.READ),
                  *_grants(RT.TOPIC, ["heartbeats"], PatternType.LITERAL, Op.CREATE, Op.WRITE),
                  *_grants(RT.TOPIC, [f"{src}.checkpoints.internal"], PatternType.LITERAL,
                           Op.CREATE, Op.WRITE, Op.READ)]
        # every prefix here is made from the alias (one name, checked above) and a --topic the operator gave
        written = _written([], *(g for g in grants if g.pattern is PatternType.PREFIXED))
    return Preset("mirror-maker", f"MirrorMaker 2 {src}->{dst} ({side})", tuple(sorted(set(grants))), written)
