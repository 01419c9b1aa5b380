"""From kafka-acls.sh style options to bindings (create) and filters (list/delete).

Create follows AclCommand exactly: every resource gets the cross product of principals x hosts x
operations; --producer/--consumer expand to AclCommand's fixed operation sets. Where AclCommand
silently drops input (an --allow-host without --allow-principal, --cluster with a prefixed pattern),
kafkactl refuses instead.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kafkactl.acl.breadth import Written
from kafkactl.acl.model import (
    CLUSTER_NAME,
    AclBinding,
    AclFilter,
    AclOperation,
    PatternType,
    Permission,
    ResourceType,
    check_operation_supported,
    parse_operation,
    parse_pattern_type,
    parse_permission,
    validate_principal,
    validate_text,
)
from kafkactl.errors import UsageError

if TYPE_CHECKING:
    from kafkactl.acl.presets import Preset

Op = AclOperation


@dataclass
class AclOptions:
    topics: list[str] = field(default_factory=list)
    groups: list[str] = field(default_factory=list)
    cluster: bool = False
    transactional_ids: list[str] = field(default_factory=list)
    delegation_tokens: list[str] = field(default_factory=list)
    user_principals: list[str] = field(default_factory=list)
    pattern_type: str | None = None
    allow_principals: list[str] = field(default_factory=list)
    deny_principals: list[str] = field(default_factory=list)
    allow_hosts: list[str] = field(default_factory=list)
    deny_hosts: list[str] = field(default_factory=list)
    operations: list[str] = field(default_factory=list)
    producer: bool = False
    consumer: bool = False
    idempotent: bool = False
    # presets (kafkactl.acl.presets)
    streams: str | None = None
    at_least_once: bool = False
    output_topics: list[str] = field(default_factory=list)
    connect_worker: str | None = None
    config_topic: str | None = None
    offset_topic: str | None = None
    status_topic: str | None = None
    connector: str | None = None
    source: bool = False
    sink: bool = False
    share_consumer: bool = False
    two_phase_commit: bool = False
    mirror_maker: str | None = None
    target_alias: str | None = None
    side: str | None = None
    # list/delete filters beyond kafka-acls.sh
    principals: list[str] = field(default_factory=list)
    hosts: list[str] = field(default_factory=list)
    permission: str | None = None

    def has_resource(self) -> bool:
        return bool(self.topics or self.groups or self.cluster or self.transactional_ids
                    or self.delegation_tokens or self.user_principals)


def _names(values: list[str], option: str, trim: bool = True) -> list[str]:
    out = []
    for v in values:
        name = v.strip() if trim else v
        if not name:
            raise UsageError(f"{option} {v!r}: the resource name is empty")
        out.append(validate_text(name, option))
    return out


def _resources(o: AclOptions, pattern: PatternType) -> list[tuple[ResourceType, str, PatternType]]:
    res = []
    res += [(ResourceType.TOPIC, n, pattern) for n in _names(o.topics, "--topic")]
    res += [(ResourceType.GROUP, n, pattern) for n in _names(o.groups, "--group")]
    # AclCommand does not trim transactional ids; neither do we
    res += [(ResourceType.TRANSACTIONAL_ID, n, pattern)
            for n in _names(o.transactional_ids, "--transactional-id", trim=False)]
    res += [(ResourceType.DELEGATION_TOKEN, n, pattern) for n in _names(o.delegation_tokens, "--delegation-token")]
    res += [(ResourceType.USER, n, pattern) for n in _names(o.user_principals, "--user-principal")]
    if o.cluster:
        if pattern is PatternType.PREFIXED:
            raise UsageError(f"--cluster with --resource-pattern-type prefixed: the cluster resource is always "
                             f"the literal {CLUSTER_NAME}")
        res.append((ResourceType.CLUSTER, CLUSTER_NAME, pattern))
    return res


def single_resource(o: AclOptions) -> tuple[ResourceType, str]:
    """The one resource a question is about (acls check, acls explain)."""
    res = _resources(o, PatternType.LITERAL)
    if len(res) != 1:
        raise UsageError("name exactly one resource: --topic, --group, --cluster, --transactional-id, "
                         "--delegation-token or --user-principal")
    return res[0][0], res[0][1]


def _check_shortcuts(o: AclOptions) -> None:
    if o.producer or o.consumer:
        which = "--producer" if o.producer else "--consumer"
        for flag, present in (("--operation", o.operations), ("--deny-principal", o.deny_principals),
                              ("--deny-host", o.deny_hosts)):
            if present:
                raise UsageError(f"{which} sets the operations itself and grants only: {flag} "
                                 "cannot be combined with it")
    if o.idempotent and not o.producer:
        raise UsageError("--idempotent is only available with --producer")
    if o.producer and not o.topics:
        raise UsageError("--producer needs at least one --topic")
    if o.consumer:
        if not o.topics or not o.groups:
            raise UsageError("--consumer needs a --topic and a --group")
        if not o.producer and (o.cluster or o.transactional_ids):
            raise UsageError("--consumer cannot be combined with --cluster or --transactional-id (without --producer)")


def _entries(o: AclOptions, operations: list[AclOperation]) -> list[tuple[str, str, AclOperation, Permission]]:
    """principal x host x operation for allows, then denies; hosts default to '*' (AclCommand)."""
    out = []
    for principals, hosts, perm, popt, hopt in (
        (o.allow_principals, o.allow_hosts, Permission.ALLOW, "--allow-principal", "--allow-host"),
        (o.deny_principals, o.deny_hosts, Permission.DENY, "--deny-principal", "--deny-host"),
    ):
        if hosts and not principals:
            raise UsageError(f"{hopt} given without {popt}: nothing to apply it to")
        ps = [validate_principal(p, popt) for p in principals]
        hs = [h.strip() for h in hosts] or ["*"]
        for h in hs:
            if not h:
                raise UsageError(f"{hopt} is empty (use * for every host)")
            validate_text(h, hopt)
        out += [(p, h, op, perm) for p in ps for h in hs for op in operations]
    return out


def _operations(o: AclOptions) -> list[AclOperation]:
    return [parse_operation(x) for x in o.operations] or [Op.ALL]


def bindings_for_create(o: AclOptions) -> list[AclBinding]:
    """The bindings `kafka-acls.sh --add` with the same options would create, validated, sorted, unique."""
    if o.principals or o.hosts or o.permission is not None:
        raise UsageError("--principal, --host and --permission are filters for list/delete; "
                         "create takes --allow-principal/--deny-principal and --allow-host/--deny-host")
    pattern = parse_pattern_type("literal" if o.pattern_type is None else o.pattern_type, for_create=True)
    preset = _preset(o, pattern)
    _check_shortcuts(o)
    if preset is not None:
        return _preset_bindings(o, preset)
    _check_resources_and_principals(o)
    resources = _resources(o, pattern)
    _check_user_resources(resources)
    bindings = set()
    for (rtype, name, pt), planned in _operations_by_resource(o, resources).items():
        for op in sorted(planned):
            check_operation_supported(rtype, op)
        for principal, host, op, perm in _entries(o, sorted(planned)):
            bindings.add(AclBinding(rtype, name, pt, principal, host, op, perm))
    # every principal and resource is one the options name (the cluster resource of --idempotent is one name)
    Written("acls create", {p for p, _, _, _ in _entries(o, [Op.ALL])}, set(resources)).bindings(bindings)
    return sorted(bindings)


def _preset_bindings(o: AclOptions, preset: Preset) -> list[AclBinding]:
    if not o.allow_principals:
        raise UsageError("give --allow-principal (Type:name, e.g. User:alice): a preset grants")
    entries = _entries(o, [Op.READ])
    return preset.bindings(sorted({p for p, _, _, _ in entries}), sorted({h for _, h, _, _ in entries}))


def _check_resources_and_principals(o: AclOptions) -> None:
    if not o.has_resource() and not o.idempotent:
        raise UsageError("give at least one resource: --topic, --group, --cluster, --transactional-id, "
                         "--delegation-token or --user-principal")
    if not o.allow_principals and not o.deny_principals:
        raise UsageError("give --allow-principal or --deny-principal (Type:name, e.g. User:alice)")


def _check_user_resources(resources: list[tuple[ResourceType, str, PatternType]]) -> None:
    for rtype, name, pt in resources:
        # the broker checks CreateTokens/DescribeTokens against the owner's principal string ("User:bob"): a
        # literal USER resource named otherwise never matches (kafka-acls.sh creates it all the same)
        if rtype is ResourceType.USER and pt is PatternType.LITERAL and name != "*":
            validate_principal(name, "--user-principal")


def _operations_by_resource(o: AclOptions, resources: list[tuple[ResourceType, str, PatternType]]
                            ) -> dict[tuple[ResourceType, str, PatternType], set[AclOperation]]:
    """The operations to grant on each resource: --operation's, or the --producer and --consumer shortcuts'."""
    plan: dict[tuple[ResourceType, str, PatternType], set[AclOperation]] = {}
    if not (o.producer or o.consumer):
        ops = _operations(o)
        for r in resources:
            plan[r] = set(ops)
    if o.producer:
        for r in resources:
            if r[0] is ResourceType.TOPIC:
                plan.setdefault(r, set()).update({Op.WRITE, Op.DESCRIBE, Op.CREATE})
            elif r[0] is ResourceType.TRANSACTIONAL_ID:
                plan.setdefault(r, set()).update({Op.WRITE, Op.DESCRIBE})
        if o.idempotent:  # always the literal cluster resource, whatever the pattern type
            plan.setdefault((ResourceType.CLUSTER, CLUSTER_NAME, PatternType.LITERAL), set()).add(Op.IDEMPOTENT_WRITE)
    if o.consumer:
        for r in resources:
            if r[0] is ResourceType.TOPIC:
                plan.setdefault(r, set()).update({Op.READ, Op.DESCRIBE})
            elif r[0] is ResourceType.GROUP:
                plan.setdefault(r, set()).add(Op.READ)
    return plan


def _preset_flags(o: AclOptions) -> list[str]:
    return [flag for flag, given in (("--streams", o.streams is not None),
                                     ("--connect-worker", o.connect_worker is not None),
                                     ("--connector", o.connector is not None), ("--share-consumer", o.share_consumer),
                                     ("--two-phase-commit", o.two_phase_commit),
                                     ("--mirror-maker", o.mirror_maker is not None)) if given]


def _preset(o: AclOptions, pattern: PatternType) -> Preset | None:
    """The preset the options ask for, checked, or None."""
    from kafkactl.acl import presets

    flags = _preset_flags(o)
    loose = [flag for flag, given in (("--output-topic", o.output_topics), ("--at-least-once", o.at_least_once),
                                      ("--config-topic", o.config_topic),
                                      ("--offset-topic", o.offset_topic), ("--status-topic", o.status_topic),
                                      ("--source", o.source), ("--sink", o.sink),
                                      ("--target-alias", o.target_alias is not None), ("--side", o.side is not None))
             if given]
    if not flags:
        if loose:
            raise UsageError(f"{loose[0]} belongs to a preset (--streams, --connect-worker, --connector)")
        return None
    if len(flags) > 1:
        raise UsageError(f"{flags[0]} and {flags[1]}: give one preset per command")
    flag = flags[0]
    others = [f for f, given in (("--producer", o.producer), ("--consumer", o.consumer), ("--idempotent", o.idempotent),
                                 ("--operation", o.operations), ("--deny-principal", o.deny_principals),
                                 ("--deny-host", o.deny_hosts), ("--cluster", o.cluster),
                                 ("--delegation-token", o.delegation_tokens),
                                 ("--user-principal", o.user_principals)) if given]
    if others:
        raise UsageError(f"{flag} sets the resources and operations itself and grants only: {others[0]} cannot be "
                         "combined with it")
    allowed = {"--streams": {"--output-topic", "--at-least-once"},
               "--connect-worker": {"--config-topic", "--offset-topic", "--status-topic"},
               "--connector": {"--source", "--sink"}, "--mirror-maker": {"--target-alias", "--side"}}.get(flag, set())
    stray = [x for x in loose if x not in allowed]
    if stray:
        raise UsageError(f"{stray[0]} does not apply to {flag}")
    unused = [f for f, given in (("--topic", o.topics), ("--group", o.groups),
                                 ("--transactional-id", o.transactional_ids)) if given
              and f not in {"--streams": {"--topic"}, "--connect-worker": set(), "--connector": {"--topic"},
                            "--share-consumer": {"--topic", "--group"},
                            "--two-phase-commit": {"--topic", "--transactional-id"},
                            "--mirror-maker": {"--topic", "--group"}}[flag]]
    if unused:
        raise UsageError(f"{unused[0]} does not apply to {flag}")
    if flag == "--streams":
        return presets.streams(o.streams or "", o.topics, o.output_topics, pattern, exactly_once=not o.at_least_once)
    if flag == "--connect-worker":
        if o.pattern_type is not None:
            raise UsageError("--connect-worker names its group and topics literally: --resource-pattern-type "
                             "does not apply")
        return presets.connect_worker(o.connect_worker or "", o.config_topic, o.offset_topic, o.status_topic)
    if flag == "--connector":
        if o.source == o.sink:
            raise UsageError("--connector needs one of --source or --sink")
        return presets.connector(o.connector or "", o.topics, o.source, pattern)
    if flag == "--share-consumer":
        return presets.share_consumer(o.topics, o.groups, pattern)
    if flag == "--mirror-maker":
        if o.target_alias is None or o.side is None:
            raise UsageError("--mirror-maker SOURCE_ALIAS needs --target-alias and --side source|target (the "
                             "cluster this command grants on)")
        return presets.mirror_maker(o.mirror_maker or "", o.target_alias, o.side.strip().lower(), o.topics,
                                    o.groups, pattern)
    return presets.two_phase_commit(o.transactional_ids, o.topics, pattern)


def filters_for_query(o: AclOptions, for_delete: bool) -> list[AclFilter]:
    """Filters for list/delete. Absent options match anything.

    For delete, --allow-principal/--deny-principal work as in kafka-acls.sh --remove: exact entries
    (hosts default '*', operations default All). --principal/--host/--operation/--permission filter
    on their own, matching any value of what is not given.
    """
    if for_delete and (o.producer or o.consumer):
        # as kafka-acls.sh --remove --producer/--consumer: exactly the ACLs the same create would add
        return [b.to_filter() for b in bindings_for_create(o)]
    if o.producer or o.consumer or o.idempotent:
        raise UsageError("--producer/--consumer/--idempotent apply to create and delete, not to list"
                         if not for_delete else "--idempotent goes with --producer")
    if _preset_flags(o):
        raise UsageError(f"{_preset_flags(o)[0]} only applies to create")
    if not for_delete and (o.allow_principals or o.deny_principals or o.allow_hosts or o.deny_hosts):
        raise UsageError("list filters by --principal (and --host, --operation, --permission), "
                         "not --allow-principal/--deny-principal")
    for value, option in ((o.pattern_type, "--resource-pattern-type"), (o.permission, "--permission")):
        if value is not None and not value.strip():
            raise UsageError(f"{option} {value!r} is empty: leave the option out to match any")
    if (o.allow_hosts or o.deny_hosts) and not (o.allow_principals or o.deny_principals):
        which = "--allow-host" if o.allow_hosts else "--deny-host"
        raise UsageError(f"{which} given without --allow-principal/--deny-principal: nothing to apply it to "
                         "(filter by host with --host)")
    pattern = None if o.pattern_type is None else parse_pattern_type(o.pattern_type, for_create=False)
    if for_delete and o.cluster and pattern in (PatternType.ANY, PatternType.MATCH):
        # AclCommand --remove builds no cluster filter for these and refuses ("at least one resource")
        raise UsageError(f"--cluster with --resource-pattern-type {o.pattern_type}: a delete names the cluster "
                         f"resource as the literal {CLUSTER_NAME} (--resource-pattern-type literal)")
    resources: list[tuple[ResourceType, str | None, PatternType]]
    if o.has_resource():
        resources = list(_resources(o, pattern or PatternType.LITERAL))
    else:
        resources = [(ResourceType.ANY, None, pattern or PatternType.ANY)]
    entry_filters: list[tuple[str | None, str | None, AclOperation, Permission]]
    if o.allow_principals or o.deny_principals:
        if o.principals or o.hosts or o.permission is not None:
            raise UsageError("use either --allow-principal/--deny-principal (exact entries, as kafka-acls.sh --remove) "
                             "or --principal/--host/--permission filters, not both")
        entry_filters = list(_entries(o, _operations(o)))
        for rtype, _, _ in resources:  # as AclCommand --remove validates its entries (and refuses)
            for op in {op for _, _, op, _ in entry_filters}:
                check_operation_supported(rtype, op)
    else:
        principals: list[str | None] = [validate_principal(p) for p in o.principals] or [None]
        hosts: list[str | None] = [_host_filter(h) for h in o.hosts] or [None]
        ops = [parse_operation(x, in_filter=True) for x in o.operations] or [Op.ANY]
        perm = Permission.ANY if o.permission is None else parse_permission(o.permission, in_filter=True)
        entry_filters = [(p, h, op, perm) for p in principals for h in hosts for op in ops]
    return [AclFilter(rt, name, pt, p, h, op, perm) for rt, name, pt in resources for p, h, op, perm in entry_filters]


def _host_filter(value: str) -> str:
    host = value.strip()
    if not host:
        raise UsageError(f"--host {value!r} is empty (use * for the wildcard host, or leave --host out for any)")
    return validate_text(host, "--host")


def matches_every_acl(filters: list[AclFilter]) -> bool:
    """True when one of the filters matches every ACL of the cluster. A pattern type without a resource name
    (or `--operation`/`--permission` of ANY) narrows nothing that counts: only a resource, principal, host,
    operation or permission does."""
    return any(f.resource_type is ResourceType.ANY and f.resource_name is None and f.principal is None
               and f.host is None and f.operation is Op.ANY and f.permission is Permission.ANY for f in filters)


ROLE_KINDS = ("producer", "consumer", "streams", "connectWorker", "connector", "shareConsumer", "twoPhaseCommit",
              "mirrorMaker")


def role_bindings(kind: str, spec: dict[str, Any], principal: str, hosts: list[str]) -> list[AclBinding]:
    """A desired-state file's role (one of ROLE_KINDS, its fields as the schema has them): the bindings the same
    acls create shortcut or preset would create for `principal` on `hosts`."""
    o = AclOptions(allow_principals=[principal], allow_hosts=[] if hosts == ["*"] else list(hosts),
                   pattern_type=spec.get("pattern"), topics=list(spec.get("topics") or []),
                   groups=list(spec.get("groups") or []),
                   transactional_ids=list(spec.get("transactionalIds") or []))
    if kind == "producer":
        o.producer, o.idempotent = True, bool(spec.get("idempotent"))
    elif kind == "consumer":
        o.consumer = True
    elif kind == "streams":
        o.streams, o.topics, o.output_topics = spec["applicationId"], list(spec.get("inputs") or []), \
            list(spec.get("outputs") or [])
        o.at_least_once = spec.get("exactlyOnce") is False
    elif kind == "connectWorker":
        o.connect_worker, o.config_topic = spec["group"], spec.get("configTopic")
        o.offset_topic, o.status_topic = spec.get("offsetTopic"), spec.get("statusTopic")
    elif kind == "connector":
        o.connector, o.source, o.sink = spec["name"], spec["type"] == "source", spec["type"] == "sink"
    elif kind == "shareConsumer":
        o.share_consumer = True
    elif kind == "twoPhaseCommit":
        o.two_phase_commit = True
    elif kind == "mirrorMaker":
        o.mirror_maker, o.target_alias, o.side = spec["source"], spec["target"], spec["side"]
    else:
        raise UsageError(f"unknown role {kind!r}: one of {', '.join(ROLE_KINDS)}")
    return bindings_for_create(o)
