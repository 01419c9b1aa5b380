"""kafkactl acls ...: kafka-acls.sh, exact, faster, safer."""

from __future__ import annotations

from typing import Annotated

import typer

from kafkactl.cli import completers as complete
from kafkactl.cli.options import (
    AllowHosts,
    AllowPrincipals,
    Cluster,
    DelegationTokens,
    DenyHosts,
    DenyPrincipals,
    DryRun,
    FilterOperations,
    Groups,
    Hosts,
    Operations,
    PatternFilterOpt,
    PatternTypeOpt,
    PermissionOpt,
    Principals,
    Topics,
    TransactionalIds,
    UserPrincipals,
    Yes,
)

Producer = Annotated[bool, typer.Option("--producer",
                                        help="Producer role: Write, Describe, Create on --topic; Write, Describe "
                                             "on --transactional-id.",
                                        rich_help_panel="Shortcuts")]
Consumer = Annotated[bool, typer.Option("--consumer", help="Consumer role: Read, Describe on --topic; Read on --group.",
                                        rich_help_panel="Shortcuts")]
Idempotent = Annotated[bool, typer.Option("--idempotent", help="With --producer: IdempotentWrite on the cluster.",
                                          rich_help_panel="Shortcuts")]
_P = "Presets (each grant proved needed by a real client)"
Streams = Annotated[str | None, typer.Option("--streams", metavar="APP_ID",
                                             help="Kafka Streams app (classic or KIP-1071 groups, exactly-once): Read "
                                                  "on --topic (inputs), Write on --output-topic; Create, Read, Write, "
                                                  "Delete on topics prefixed APP_ID-; Read on group APP_ID; Write on "
                                                  "transactional ids prefixed APP_ID-.",
                                             rich_help_panel=_P, show_default=False)]
MirrorMaker = Annotated[str | None, typer.Option("--mirror-maker", metavar="SOURCE_ALIAS",
                                                 help="MirrorMaker 2 from the cluster alias SOURCE_ALIAS to "
                                                      "--target-alias, on the cluster --side names. Source: Read, "
                                                      "DescribeConfigs on --topic; Create, Write, Read on "
                                                      "mm2-offset-syncs.TARGET.internal; Describe on --group "
                                                      "(checkpointed). Target: Create, Write, AlterConfigs on "
                                                      "SOURCE.<topic>; Create, Read, Write on "
                                                      "mm2-configs.SOURCE.internal, mm2-offsets.SOURCE.internal, "
                                                      "mm2-status.SOURCE.internal; Read on group SOURCE-mm2; Create, "
                                                      "Write on heartbeats; Create, Write, Read on "
                                                      "SOURCE.checkpoints.internal.",
                                                 rich_help_panel=_P, show_default=False)]
TargetAlias = Annotated[str | None, typer.Option("--target-alias",
                                                 help="With --mirror-maker: the target cluster's alias.",
                                                 rich_help_panel=_P, show_default=False)]
Side = Annotated[str | None, typer.Option("--side", metavar="source|target",
                                          help="With --mirror-maker: the cluster this command grants on.",
                                          autocompletion=lambda: ["source", "target"], rich_help_panel=_P,
                                          show_default=False)]
AtLeastOnce = Annotated[bool, typer.Option("--at-least-once",
                                           help="With --streams: an at-least-once app (no transactional ids).",
                                           rich_help_panel=_P)]
OutputTopics = Annotated[list[str] | None, typer.Option("--output-topic",
                                                        help="With --streams: a topic the app writes (repeatable).",
                                                        autocompletion=complete.topics, rich_help_panel=_P,
                                                        show_default=False)]
ConnectWorker = Annotated[str | None, typer.Option("--connect-worker", metavar="GROUP",
                                                   help="Connect worker: Read on group GROUP; Read, Write, Create on "
                                                        "its config, offset and status topics.",
                                                   rich_help_panel=_P, show_default=False)]
ConfigTopic = Annotated[str | None, typer.Option("--config-topic",
                                                 help="With --connect-worker: config.storage.topic "
                                                      "(default GROUP-configs).",
                                                 rich_help_panel=_P, show_default=False)]
OffsetTopic = Annotated[str | None, typer.Option("--offset-topic",
                                                 help="With --connect-worker: offset.storage.topic "
                                                      "(default GROUP-offsets).",
                                                 rich_help_panel=_P, show_default=False)]
StatusTopic = Annotated[str | None, typer.Option("--status-topic",
                                                 help="With --connect-worker: status.storage.topic "
                                                      "(default GROUP-status).",
                                                 rich_help_panel=_P, show_default=False)]
Connector = Annotated[str | None, typer.Option("--connector", metavar="NAME",
                                               help="A connector, with --source (Write on --topic) or --sink (Read on "
                                                    "--topic and on group connect-NAME).",
                                               rich_help_panel=_P, show_default=False)]
Source = Annotated[bool, typer.Option("--source", help="With --connector: a source connector.", rich_help_panel=_P)]
Sink = Annotated[bool, typer.Option("--sink", help="With --connector: a sink connector.", rich_help_panel=_P)]
ShareConsumer = Annotated[bool, typer.Option("--share-consumer",
                                             help="KIP-932 share consumer: Read on --topic and on the share --group.",
                                             rich_help_panel=_P)]
TwoPhaseCommit = Annotated[bool, typer.Option("--two-phase-commit",
                                              help="KIP-939 producer: Write on --topic; Write, TwoPhaseCommit "
                                                   "on --transactional-id.",
                                              rich_help_panel=_P)]


def _options(**kw):
    from kafkactl.acl.options import AclOptions

    # Typer gives None for an absent repeatable option; the core wants lists
    scalars = {"pattern_type", "permission", "streams", "connect_worker", "config_topic", "offset_topic",
               "status_topic", "connector", "mirror_maker", "target_alias", "side"}
    return AclOptions(**{k: [] if v is None and k not in scalars else v for k, v in kw.items()})


def _report(app_ctx, result, verb: str) -> None:
    counts = result.counts()
    app_ctx.render(result)
    app_ctx.note(", ".join(f"{n} {status}" for status, n in counts.items()) or f"nothing to {verb}")


def acls_create(
    ctx: typer.Context,
    topic: Topics = None, group: Groups = None, cluster: Cluster = False, transactional_id: TransactionalIds = None,
    delegation_token: DelegationTokens = None, user_principal: UserPrincipals = None,
    resource_pattern_type: PatternTypeOpt = None,
    allow_principal: AllowPrincipals = None, deny_principal: DenyPrincipals = None,
    allow_host: AllowHosts = None, deny_host: DenyHosts = None, operation: Operations = None,
    producer: Producer = False, consumer: Consumer = False, idempotent: Idempotent = False,
    streams: Streams = None, output_topic: OutputTopics = None, at_least_once: AtLeastOnce = False,
    connect_worker: ConnectWorker = None,
    config_topic: ConfigTopic = None, offset_topic: OffsetTopic = None, status_topic: StatusTopic = None,
    connector: Connector = None, source: Source = False, sink: Sink = False, share_consumer: ShareConsumer = False,
    two_phase_commit: TwoPhaseCommit = False, mirror_maker: MirrorMaker = None, target_alias: TargetAlias = None,
    side: Side = None,
    dry_run: DryRun = False,
) -> None:
    """Create ACL bindings: every resource x principal x host x operation, or a preset's (alias: add).

    Example:  kafkactl acls create --allow-principal User:alice --operation Read --topic orders. --resource-pattern-type prefixed
    Example:  kafkactl acls create --allow-principal User:wordcount --streams wordcount --topic text --output-topic counts
    """  # noqa: E501 (help text: an example is one command line)
    from kafkactl.acl import ops
    from kafkactl.acl.options import bindings_for_create
    from kafkactl.cli.progress import progress_bar

    app_ctx = ctx.obj
    opts = _options(topics=topic, groups=group, cluster=cluster, transactional_ids=transactional_id,
                    delegation_tokens=delegation_token, user_principals=user_principal,
                    pattern_type=resource_pattern_type, allow_principals=allow_principal,
                    deny_principals=deny_principal, allow_hosts=allow_host, deny_hosts=deny_host,
                    operations=operation, producer=producer, consumer=consumer, idempotent=idempotent,
                    streams=streams, at_least_once=at_least_once, output_topics=output_topic,
                    connect_worker=connect_worker,
                    config_topic=config_topic, offset_topic=offset_topic, status_topic=status_topic,
                    connector=connector, source=source, sink=sink, share_consumer=share_consumer,
                    two_phase_commit=two_phase_commit, mirror_maker=mirror_maker, target_alias=target_alias, side=side)
    bindings = bindings_for_create(opts)
    from kafkactl.acl.lint import spelling_warnings

    for w in spelling_warnings(bindings):  # what `acls lint` would say of them, said before they exist
        app_ctx.warn(w)
    if dry_run:  # the cluster is read (what exists, whether the caller may), nothing is created
        _may_alter_acls(app_ctx.gateway())
        _report(app_ctx, ops.create_acls(app_ctx.gateway(), bindings, dry_run=True), "create")
        return
    with progress_bar(app_ctx, len(bindings), "creating ACLs", threshold=ops.CREATE_CHUNK) as advance:
        result = ops.create_acls(app_ctx.gateway(), bindings, progress=advance)
    _report(app_ctx, result, "create")


def _may_alter_acls(gw) -> None:
    """A dry run's caller who may not create ACLs is told so, as the create would tell it (exit 3): the broker's own
    answer, its authorized operations on the cluster (KIP-430), Alter among them."""
    from kafkactl.acl.model import AclOperation
    from kafkactl.describe.cluster import describe_cluster
    from kafkactl.errors import NotAuthorizedError

    ops = describe_cluster(gw, authorized_operations=True).authorized_operations
    if ops is not None and ops.allows(AclOperation.ALTER) is False:
        raise NotAuthorizedError(f"{gw.who()} is not authorized to create ACLs: needs Alter on the Cluster (its "
                                 "authorized operations on the cluster, as the broker gives them, lack Alter)")


def acls_list(
    ctx: typer.Context,
    topic: Topics = None, group: Groups = None, cluster: Cluster = False, transactional_id: TransactionalIds = None,
    delegation_token: DelegationTokens = None, user_principal: UserPrincipals = None,
    resource_pattern_type: PatternFilterOpt = None,
    principal: Principals = None, host: Hosts = None, operation: FilterOperations = None,
    permission: PermissionOpt = None,
) -> None:
    """List ACL bindings, grouped by resource (alias: describe).

    Example:  kafkactl acls list --topic orders.eu --resource-pattern-type match -o json
    """
    from kafkactl.acl import ops
    from kafkactl.acl.options import filters_for_query

    app_ctx = ctx.obj
    filters = filters_for_query(_options(
        topics=topic, groups=group, cluster=cluster, transactional_ids=transactional_id,
        delegation_tokens=delegation_token, user_principals=user_principal, pattern_type=resource_pattern_type,
        principals=principal, hosts=host, operations=operation, permission=permission), for_delete=False)
    bindings = ops.list_acls(app_ctx.gateway(), filters)
    from kafkactl.acl.model import AclBinding

    app_ctx.render(bindings, of=AclBinding, empty="")  # (its summary says "0 ACL bindings")
    app_ctx.note(ops.resource_summary(bindings))


def acls_delete(
    ctx: typer.Context,
    topic: Topics = None, group: Groups = None, cluster: Cluster = False, transactional_id: TransactionalIds = None,
    delegation_token: DelegationTokens = None, user_principal: UserPrincipals = None,
    resource_pattern_type: PatternFilterOpt = None,
    allow_principal: AllowPrincipals = None, deny_principal: DenyPrincipals = None,
    allow_host: AllowHosts = None, deny_host: DenyHosts = None, operation: FilterOperations = None,
    principal: Principals = None, host: Hosts = None, permission: PermissionOpt = None,
    producer: Producer = False, consumer: Consumer = False, idempotent: Idempotent = False,
    all_: Annotated[bool, typer.Option("--all",
                                       help="Allow a delete with no filter at all, or with filters that together match "
                                            "every ACL of the cluster (refused without it).")] = False,
    yes: Yes = False,
    dry_run: DryRun = False,
) -> None:
    """Delete the ACL bindings the filters match: lists them first, then asks (alias: remove).

    --producer and --consumer delete what create with the same options adds, as kafka-acls.sh --remove does.

    Example:  kafkactl acls delete --principal User:bob --topic payments. --resource-pattern-type prefixed --yes
    """
    import time

    from kafkactl.acl import ops
    from kafkactl.acl.options import filters_for_query, matches_every_acl
    from kafkactl.cli.progress import progress_bar
    from kafkactl.errors import UsageError

    app_ctx = ctx.obj
    opts = _options(topics=topic, groups=group, cluster=cluster, transactional_ids=transactional_id,
                    delegation_tokens=delegation_token, user_principals=user_principal,
                    pattern_type=resource_pattern_type, allow_principals=allow_principal,
                    deny_principals=deny_principal, allow_hosts=allow_host, deny_hosts=deny_host,
                    operations=operation, principals=principal, hosts=host, permission=permission,
                    producer=producer, consumer=consumer, idempotent=idempotent)
    filters = filters_for_query(opts, for_delete=True)
    if matches_every_acl(filters) and not all_:
        narrowing = " (a pattern type alone does not narrow it)" if resource_pattern_type else ""
        raise UsageError(f"no filter given{narrowing}: this would delete every ACL of the cluster; "
                         "name a resource, principal, host, operation or permission, or pass --all if you mean it")
    gw = app_ctx.gateway()
    preview = ops.preview_delete(gw, filters)
    listed_at = time.monotonic()
    matches = preview.bindings
    if not matches:
        app_ctx.note("no ACL matches the filters: nothing to delete")
        return
    # however the filters are spelt (every operation, host, principal or resource, a match or any pattern),
    # a delete that takes every ACL of the cluster needs --all; filters that each name one whole binding take
    # exactly what was written, even when that is the cluster's only ACL
    if not all_ and not all(f.is_concrete() for f in filters) and ops.is_every_acl(gw, matches):
        raise UsageError(f"these filters match every ACL of the cluster ({len(matches)}): "
                         "pass --all if you mean to delete them all")
    if dry_run:
        _report(app_ctx, ops.delete_acls(gw, preview, dry_run=True), "delete")
        return
    if not yes and app_ctx.interactive():
        app_ctx.render_to_stderr(matches)
    app_ctx.confirm(f"Delete these {ops.resource_summary(matches)}?", yes, f"delete {len(matches)} ACL bindings")
    if time.monotonic() - listed_at > 1.0:
        # an operator read the list: plan the deletes against the cluster as it is now, so an ACL created
        # meanwhile is not deleted with the ones shown
        preview = ops.refresh_preview(gw, preview)
    with progress_bar(app_ctx, len(matches), "deleting ACLs", threshold=1000) as advance:
        result = ops.delete_acls(gw, preview, progress=advance)
    _report(app_ctx, result, "delete")
    if any(r.status == "deleted-unlisted" for r in result.results):
        app_ctx.warn("some ACLs were created after the listing and matched the filters; they were deleted too")


def acls_decode_ops(
    ctx: typer.Context,
    bits: Annotated[int, typer.Argument(help="An authorized-operations bitfield: signed or unsigned INT32 (put -- "
                                             "before a negative one).")],
    resource_type: Annotated[str, typer.Option("--resource-type",
                                               metavar="topic|group|cluster|transactional-id|delegation-token|user",
                                               help="topic, group, cluster, transactional-id, "
                                                    "delegation-token or user.")] = "topic",
) -> None:
    """Decode a KIP-430 authorized-operations bitfield from a protocol dump.

    Example:  kafkactl acls decode-ops 3576 --resource-type topic;  kafkactl acls decode-ops -- -2147483648
    """
    from kafkactl.acl.bitfield import decode
    from kafkactl.acl.model import parse_resource_type
    from kafkactl.errors import UsageError
    from kafkactl.formatters.views import DecodedOpsView

    rtype = parse_resource_type(resource_type)
    if 2**31 <= bits < 2**32:  # the same 32 bits written unsigned
        bits -= 2**32
    try:
        ops = decode(bits, rtype)
    except ValueError as exc:
        raise UsageError(f"{bits}: {exc}") from None
    ctx.obj.render(DecodedOpsView(bits, ops))
