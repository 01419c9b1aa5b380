"""Completion callbacks for options and arguments (Typer `autocompletion=`).

Static values come from kafkactl's own tables; cluster values through kafkactl.cli.lookups (time budget,
cache). The cluster is the one the command line names: --context, -b and --command-config count wherever
they were typed.
"""

from __future__ import annotations

from typing import Any


def _selection(ctx: Any):
    from kafkactl.profiles import Selection

    p = ctx.find_root().params if ctx is not None else {}
    return Selection(context=p.get("context"), bootstrap_servers=p.get("bootstrap_server"),
                     command_config=p.get("command_config"))


def _lookup(ctx: Any, kind: str, fetch: Any, incomplete: str) -> list[str]:
    from kafkactl.cli import lookups

    return lookups.matching(lookups.cached(kind, _selection(ctx), fetch), incomplete)


def topics(ctx: Any, incomplete: str) -> list[str]:
    from kafkactl.cli.lookups import topic_names

    return _lookup(ctx, "topics", topic_names, incomplete)


def groups(ctx: Any, incomplete: str) -> list[str]:
    from kafkactl.cli.lookups import group_names

    return _lookup(ctx, "groups", group_names, incomplete)


def principals(ctx: Any, incomplete: str) -> list[str]:
    from kafkactl.cli.lookups import principals as fetch

    return _lookup(ctx, "principals", fetch, incomplete)


def contexts(ctx: Any, incomplete: str) -> list[str]:  # noqa: ARG001 (Typer's signature)
    from kafkactl.cli.lookups import context_names, matching

    return matching(context_names(), incomplete)


def operations(ctx: Any, incomplete: str) -> list[str]:
    """Only the operations the resource types already on the line support (all of them if none is)."""
    from kafkactl.acl.model import BINDABLE_OPERATIONS, SUPPORTED_OPERATIONS, AclOperation, ResourceType

    by_option = {"topic": ResourceType.TOPIC, "group": ResourceType.GROUP, "cluster": ResourceType.CLUSTER,
                 "transactional_id": ResourceType.TRANSACTIONAL_ID, "delegation_token": ResourceType.DELEGATION_TOKEN,
                 "user_principal": ResourceType.USER}
    params = ctx.params if ctx is not None else {}
    types = [t for name, t in by_option.items() if params.get(name)]
    ops = set().union(*(SUPPORTED_OPERATIONS[t] for t in types), {AclOperation.ALL}) if types else set()
    names = sorted(o.pascal for o in (ops or BINDABLE_OPERATIONS))
    if ctx is not None and ctx.command is not None and ctx.command.name in ("list", "delete", "describe", "remove"):
        names.append("Any")  # (a filter's)
    typed = incomplete.lower()
    if "-" in typed or "_" in typed:  # idempotent-write, idempotent_write: the spelling typed, completed
        sep = "-" if "-" in typed else "_"
        spelled = {n: sep.join(w.lower() for w in _words(n)) for n in names}
        return [s for s in spelled.values() if s.startswith(typed)]
    return [n for n in names if n.lower().startswith(typed)]


def _words(pascal: str) -> list[str]:
    import re

    return re.findall(r"[A-Z][a-z]*", pascal)


def pattern_types(ctx: Any, incomplete: str) -> list[str]:
    """What the command accepts: create takes literal and prefixed; list and delete any and match too."""
    creating = ctx is not None and ctx.command is not None and ctx.command.name in ("create", "add")
    choices = ("literal", "prefixed") if creating else ("literal", "prefixed", "any", "match")
    return [p for p in choices if p.startswith(incomplete.lower())]


def entity_types(incomplete: str) -> list[str]:
    from kafkactl.configs.entities import ENTITY_TYPES

    return [t for t in ENTITY_TYPES if t.startswith(incomplete)]


def entity_names(ctx: Any, incomplete: str) -> list[str]:
    """Names for the --entity-type given just before (topics and groups from the cluster)."""
    kinds = (ctx.params.get("entity_type") or []) if ctx is not None else []
    named = len(ctx.params.get("entity_name") or []) if ctx is not None else 0
    kind = kinds[named] if named < len(kinds) else (kinds[-1] if kinds else None)
    if kind == "topics":
        return topics(ctx, incomplete)
    if kind == "groups":
        return groups(ctx, incomplete)
    if kind == "users":
        return [p.split(":", 1)[1] for p in principals(ctx, "User:" + incomplete)]
    return []


def config_keys(ctx: Any, incomplete: str) -> list[str]:
    """Keys for --delete-config and `configs delete`: the ones the broker reports for the named entity."""
    return _keys(ctx, incomplete, "")


def add_config_keys(ctx: Any, incomplete: str) -> list[str]:
    """Keys for --add-config, each followed by '='."""
    return _keys(ctx, incomplete, "=")


def _keys(ctx: Any, incomplete: str, suffix: str) -> list[str]:
    # completes the key after the last comma of 'k1=v1,k2=...', keeping what comes before it
    head, comma, key = incomplete.rpartition(",")
    if "=" in key:
        return []
    return [f"{head}{comma}{k}{suffix}" for k in _keys_for(ctx) if k.startswith(key)]


def _keys_for(ctx: Any) -> list[str]:
    from dataclasses import fields

    from kafkactl.configs.entities import CONFIG_TYPES, QUOTA_TYPES, EntityOptions, parse_entities
    from kafkactl.configs.values import QUOTA_KEYS, SCRAM_MECHANISMS
    from kafkactl.errors import UsageError

    p = ctx.params if ctx is not None else {}
    kw = {f.name: p[f.name] for f in fields(EntityOptions) if p.get(f.name) is not None}
    kw["entity_types"], kw["entity_names"] = p.get("entity_type") or [], p.get("entity_name") or []
    try:  # the entity as the command itself will read it (shortcuts included)
        entity = parse_entities(EntityOptions(**kw), need_name=False)[0]
    except UsageError:
        return []
    if entity.type in QUOTA_TYPES:
        keys = list(QUOTA_KEYS.get(QUOTA_TYPES[entity.type], ()))
        return keys + (list(SCRAM_MECHANISMS) if entity.type == "users" else [])
    if entity.type not in CONFIG_TYPES or not entity.name:
        return []
    from kafkactl.cli import lookups

    rtype, name = CONFIG_TYPES[entity.type], entity.name
    return lookups.cached(f"config-keys:{entity.type}:{name}", _selection(ctx),
                             lambda sel: lookups.config_keys(sel, rtype, name))


def api_names(ctx: Any, incomplete: str) -> list[str]:  # noqa: ARG001 (Typer's signature)
    from kafkactl.acl.apis import APIS

    return sorted(a.name for a in APIS if a.name.lower().startswith(incomplete.lower()))


def role_names(ctx: Any, incomplete: str) -> list[str]:  # noqa: ARG001
    from kafkactl.acl.apis import ROLES

    return [r.name for r in ROLES if r.name.startswith(incomplete.lower())]


def auth_errors(ctx: Any, incomplete: str) -> list[str]:  # noqa: ARG001
    from kafkactl.acl.apis import ERRORS

    return [e for e in ERRORS if e.startswith(incomplete.upper())]


def kafka_versions(incomplete: str) -> list[str]:
    """The versions the sandbox runs."""
    from kafkactl.local.assembly import KAFKA_VERSIONS

    return [v for v in KAFKA_VERSIONS if v.startswith(incomplete)]
