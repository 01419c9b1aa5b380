"""kafkactl configs ...: kafka-configs.sh's entity model, incremental changes, LIST_CONFIG_RESOURCES done right."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from kafkactl.cli import completers as complete
from kafkactl.cli.options import DryRun

app = typer.Typer(help="Describe and change configs, SCRAM credentials and quotas (kafka-configs.sh).",
                  no_args_is_help=True)

_E = "Entity"
EntityType = Annotated[list[str] | None, typer.Option("--entity-type",
                                                      metavar="topics|brokers|broker-loggers|groups|client-metrics|"
                                                              "users|clients|ips",
                                                      autocompletion=complete.entity_types,
                                                      help="topics, brokers, broker-loggers, groups, client-metrics, "
                                                           "users, clients or ips (repeatable: users with clients).",
                                                      rich_help_panel=_E, show_default=False)]
EntityName = Annotated[list[str] | None, typer.Option("--entity-name", autocompletion=complete.entity_names,
                                                      help="Name of the entity (repeatable, pairs with --entity-type).",
                                                      rich_help_panel=_E, show_default=False)]
EntityDefault = Annotated[bool, typer.Option("--entity-default",
                                             help="The default entity (brokers, users, clients, ips).",
                                             rich_help_panel=_E)]
Topic = Annotated[str | None, typer.Option("--topic", help="Shortcut: --entity-type topics --entity-name T.",
                                           autocompletion=complete.topics, rich_help_panel=_E, show_default=False)]
Broker = Annotated[str | None, typer.Option("--broker", help="Shortcut for a broker id.", rich_help_panel=_E,
                                            show_default=False)]
BrokerDefaults = Annotated[bool, typer.Option("--broker-defaults", help="The cluster-wide broker default.",
                                              rich_help_panel=_E)]
BrokerLogger = Annotated[str | None, typer.Option("--broker-logger", help="The loggers of a broker id.",
                                                  rich_help_panel=_E, show_default=False)]
Group = Annotated[str | None, typer.Option("--group", help="A group.", autocompletion=complete.groups,
                                           rich_help_panel=_E, show_default=False)]
ClientMetrics = Annotated[str | None, typer.Option("--client-metrics", help="A client-metrics subscription.",
                                                   rich_help_panel=_E, show_default=False)]
User = Annotated[str | None, typer.Option("--user", help="A user (quotas and SCRAM credentials).", rich_help_panel=_E,
                                          show_default=False)]
UserDefaults = Annotated[bool, typer.Option("--user-defaults", help="The default user quota.", rich_help_panel=_E)]
Client = Annotated[str | None, typer.Option("--client", help="A client id (quotas).", rich_help_panel=_E,
                                            show_default=False)]
ClientDefaults = Annotated[bool, typer.Option("--client-defaults", help="The default client quota.",
                                              rich_help_panel=_E)]
Ip = Annotated[str | None, typer.Option("--ip", help="An IP (connection quotas).", rich_help_panel=_E,
                                        show_default=False)]
IpDefaults = Annotated[bool, typer.Option("--ip-defaults", help="The default IP quota.", rich_help_panel=_E)]
Verbose = Annotated[bool, typer.Option("--verbose", "-v",
                                       help="Synonyms of each config; the negotiated LIST_CONFIG_RESOURCES version.")]


def _entities(need_name: bool, **kw):
    from kafkactl.configs.entities import EntityOptions, parse_entities

    kw["entity_types"] = kw.get("entity_types") or []
    kw["entity_names"] = kw.get("entity_names") or []
    return parse_entities(EntityOptions(**kw), need_name=need_name)


def _print_listing_notes(app_ctx, listing, verbose: bool) -> None:
    from kafkactl.configs.listing import EMPTY_WARN

    if verbose and listing.version is not None:
        app_ctx.note(f"LIST_CONFIG_RESOURCES v{listing.version} (broker offers up to v{listing.broker_max}, "
                     f"kafkactl's client up to v{listing.client_max})")
    for n in listing.notes:
        app_ctx.warn(n)
    if listing.empty_answer:
        app_ctx.note(EMPTY_WARN)


@app.command("list")
def configs_list(ctx: typer.Context, entity_type: EntityType = None, verbose: Verbose = False) -> None:
    """List resources that have configs (LIST_CONFIG_RESOURCES), by type and name.

    Example:  kafkactl configs list --entity-type groups --verbose
    """
    from kafkactl.configs.entities import CONFIG_TYPES
    from kafkactl.configs.listing import list_resources
    from kafkactl.errors import UsageError

    app_ctx = ctx.obj
    for t in entity_type or []:
        if t not in CONFIG_TYPES:
            raise UsageError(f"--entity-type {t!r}: LIST_CONFIG_RESOURCES covers {', '.join(CONFIG_TYPES)}")
    listing = list_resources(app_ctx.gateway(), list(entity_type or []))
    from kafkactl.configs.listing import ConfigResource

    app_ctx.render(listing.resources, of=ConfigResource,
                   empty=f"no {' or '.join(entity_type) if entity_type else 'resources'} with configs the caller "
                         "may see")
    _print_listing_notes(app_ctx, listing, verbose)


@app.command("describe")
def configs_describe(
    ctx: typer.Context,
    entity_type: EntityType = None, entity_name: EntityName = None, entity_default: EntityDefault = False,
    topic: Topic = None, broker: Broker = None, broker_defaults: BrokerDefaults = False,
    broker_logger: BrokerLogger = None,
    group: Group = None, client_metrics: ClientMetrics = None, user: User = None, user_defaults: UserDefaults = False,
    client: Client = None, client_defaults: ClientDefaults = False, ip: Ip = None, ip_defaults: IpDefaults = False,
    all_: Annotated[bool, typer.Option("--all", help="Static and default values too, not only dynamic ones.")] = False,
    verbose: Verbose = False,
) -> None:
    """Describe configs: name, value, source, read-only and sensitive (sensitive values are never shown).

    Example:  kafkactl configs describe --entity-type groups     # every group, those with configs but no members too
    """
    from kafkactl.cli.authz import report_errors
    from kafkactl.configs import ops

    app_ctx = ctx.obj
    entities = _entities(False, entity_types=entity_type, entity_names=entity_name, entity_default=entity_default,
                         topic=topic, broker=broker, broker_defaults=broker_defaults, broker_logger=broker_logger,
                         group=group, client_metrics=client_metrics, user=user, user_defaults=user_defaults,
                         client=client, client_defaults=client_defaults, ip=ip, ip_defaults=ip_defaults)
    gw = app_ctx.gateway()
    if len(entities) == 2:  # a user+client quota entity
        rows, errors = ops.describe_quotas(gw, entities), list[Any]()
    else:
        [entity] = entities
        names = [entity.name]
        if entity.name is None:
            names, listing = ops.every_entity(gw, entity)
            if listing is not None:
                _print_listing_notes(app_ctx, listing, verbose)
        rows, errors = ops.describe(gw, entity, names, all_, verbose)
    from kafkactl.configs.ops import ConfigRow

    what = " and ".join(f"{e.type if e.type == 'client-metrics' else e.type.rstrip('s')} {e.label()}"
                        for e in entities)
    if rows or not errors:  # (nothing found and an error: the error alone, no empty result before it)
        app_ctx.render(rows, of=ConfigRow, empty=f"no {'' if all_ else 'dynamic '}configs set on {what}"
                       + ("" if all_ else "; --all shows defaults"))
    report_errors(app_ctx, errors, len(rows) or (0 if errors else 1))


def _changes(add_config, add_config_file, delete_config, append_config, subtract_config, keys=None):
    from kafkactl.configs.values import parse_file, parse_keys, parse_pairs

    ops = []
    for text in add_config or []:
        ops += [(k, v, "SET") for k, v in parse_pairs(text, "--add-config")]
    for path in add_config_file or []:
        ops += [(k, v, "SET") for k, v in parse_file(path)]
    for text in append_config or []:
        ops += [(k, v, "APPEND") for k, v in parse_pairs(text, "--append-config")]
    for text in subtract_config or []:
        ops += [(k, v, "SUBTRACT") for k, v in parse_pairs(text, "--subtract-config")]
    for text in (delete_config or []) + ([",".join(keys)] if keys else []):
        ops += [(k, None, "DELETE") for k in parse_keys(text)]
    return ops


def _report(app_ctx, result) -> None:
    app_ctx.render(result)
    app_ctx.note(", ".join(f"{n} {s}" for s, n in result.counts().items()))


@app.command("alter")
def configs_alter(
    ctx: typer.Context,
    entity_type: EntityType = None, entity_name: EntityName = None, entity_default: EntityDefault = False,
    topic: Topic = None, broker: Broker = None, broker_defaults: BrokerDefaults = False,
    broker_logger: BrokerLogger = None,
    group: Group = None, client_metrics: ClientMetrics = None, user: User = None, user_defaults: UserDefaults = False,
    client: Client = None, client_defaults: ClientDefaults = False, ip: Ip = None, ip_defaults: IpDefaults = False,
    add_config: Annotated[list[str] | None, typer.Option("--add-config", autocompletion=complete.add_config_keys,
                                                         help="'k1=v1,k2=[a,b]' (SET; "
                                                              "SCRAM-SHA-256=[iterations=8192,password=...] for "
                                                              "users).",
                                                         show_default=False)] = None,
    add_config_file: Annotated[list[str] | None, typer.Option("--add-config-file",
                                                              help="A properties file of configs to SET.",
                                                              show_default=False)] = None,
    delete_config: Annotated[list[str] | None, typer.Option("--delete-config",
                                                            help="'k1,k2' to DELETE (back to the default).",
                                                            autocompletion=complete.config_keys,
                                                            show_default=False)] = None,
    append_config: Annotated[list[str] | None, typer.Option("--append-config",
                                                            help="'k=[a,b]': APPEND to a list config.",
                                                            show_default=False)] = None,
    subtract_config: Annotated[list[str] | None, typer.Option("--subtract-config",
                                                              help="'k=[a]': SUBTRACT from a list config.",
                                                              show_default=False)] = None,
    dry_run: DryRun = False,
) -> None:
    """Change configs incrementally (SET / DELETE / APPEND / SUBTRACT); --dry-run validates on the broker.

    Example:  kafkactl configs alter --topic orders --add-config 'retention.ms=86400000,cleanup.policy=[compact,delete]'
    """
    from kafkactl.configs import ops

    app_ctx = ctx.obj
    entities = _entities(True, entity_types=entity_type, entity_names=entity_name, entity_default=entity_default,
                         topic=topic, broker=broker, broker_defaults=broker_defaults, broker_logger=broker_logger,
                         group=group, client_metrics=client_metrics, user=user, user_defaults=user_defaults,
                         client=client, client_defaults=client_defaults, ip=ip, ip_defaults=ip_defaults)
    changes = _changes(add_config, add_config_file, delete_config, append_config, subtract_config)
    _report(app_ctx, ops.alter(app_ctx.gateway, entities, changes, dry_run))


@app.command("delete")
def configs_delete(
    ctx: typer.Context,
    keys: Annotated[list[str] | None, typer.Argument(help="Config keys to delete (or --delete-config).",
                                                     autocompletion=complete.config_keys, show_default=False)] = None,
    entity_type: EntityType = None, entity_name: EntityName = None, entity_default: EntityDefault = False,
    topic: Topic = None, broker: Broker = None, broker_defaults: BrokerDefaults = False,
    broker_logger: BrokerLogger = None,
    group: Group = None, client_metrics: ClientMetrics = None, user: User = None, user_defaults: UserDefaults = False,
    client: Client = None, client_defaults: ClientDefaults = False, ip: Ip = None, ip_defaults: IpDefaults = False,
    delete_config: Annotated[list[str] | None, typer.Option("--delete-config", help="'k1,k2' to delete.",
                                                            autocompletion=complete.config_keys,
                                                            show_default=False)] = None,
    dry_run: DryRun = False,
) -> None:
    """Delete configs (they fall back to their defaults); SCRAM-SHA-256/512 removes a user's credential.

    Example:  kafkactl configs delete --topic orders retention.ms
    """
    from kafkactl.configs import ops

    app_ctx = ctx.obj
    entities = _entities(True, entity_types=entity_type, entity_names=entity_name, entity_default=entity_default,
                         topic=topic, broker=broker, broker_defaults=broker_defaults, broker_logger=broker_logger,
                         group=group, client_metrics=client_metrics, user=user, user_defaults=user_defaults,
                         client=client, client_defaults=client_defaults, ip=ip, ip_defaults=ip_defaults)
    changes = _changes(None, None, delete_config, None, None, keys)
    _report(app_ctx, ops.alter(app_ctx.gateway, entities, changes, dry_run))


def _register_state_commands() -> None:
    from kafkactl.commands import configs_state

    for name, fn in (("export", configs_state.configs_export), ("plan", configs_state.configs_plan),
                     ("apply", configs_state.configs_apply)):
        app.command(name)(fn)


_register_state_commands()
