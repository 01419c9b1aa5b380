"""describe / alter / delete for every kafka-configs.sh entity type (configs, SCRAM credentials, quotas)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from kafkactl.configs.entities import CONFIG_TYPES, QUOTA_TYPES, Entity
from kafkactl.configs.values import QUOTA_KEYS, SCRAM_MECHANISMS, ScramChange, parse_scram
from kafkactl.errors import KafkactlError, NotFoundError, PartialFailure, UsageError
from kafkactl.gateway import Gateway
from kafkactl.gateway.configtypes import BROKER, explicit_sources
from kafkactl.limits import plural, shown
from kafkactl.redact import may_be_secret
from kafkactl.results import ChangeResult

if TYPE_CHECKING:
    from kafkactl.configs.listing import Listing



@dataclass(frozen=True)
class ConfigRow:
    COLUMNS: ClassVar[tuple[str, ...]] = ("entity_type", "entity", "name", "value", "source", "read_only", "sensitive")
    GROUP_BY: ClassVar[int] = 2
    entity_type: str
    entity: str
    name: str
    value: str | None  # None for sensitive values: never shown
    source: str
    read_only: bool = False
    sensitive: bool = False
    synonyms: tuple[str, ...] = field(default=())


@dataclass(frozen=True)
class VerboseConfigRow(ConfigRow):
    COLUMNS: ClassVar[tuple[str, ...]] = ConfigRow.COLUMNS + ("synonyms",)


@dataclass(frozen=True)
class EntityError:
    entity: str
    error: KafkactlError


# --------------------------------------------------------------------------------------------- describe


def describe(gw: Gateway, entity: Entity, names: list[str], all_values: bool, verbose: bool
             ) -> tuple[list[ConfigRow], list[EntityError]]:
    """Describe one entity type for the given names (already resolved from 'every entity' by the caller)."""
    if entity.type in CONFIG_TYPES:
        return _describe_configs(gw, entity, names, all_values, verbose)
    if entity.type == "users":
        return _describe_users(gw, entity, names)
    return describe_quotas(gw, [entity]), []


def every_entity(gw: Gateway, entity: Entity) -> tuple[list[str], Listing | None]:
    """kafka-configs.sh's 'every entity' for describe without a name, and the LIST_CONFIG_RESOURCES
    listing used to find them (its notes are for the caller to print), if one was used."""
    if entity.type == "topics":
        from kafkactl.describe.topics import list_topics

        return [t.name for t in list_topics(gw)], None
    if entity.type in ("brokers", "broker-loggers"):
        from kafkactl.describe.cluster import describe_cluster

        return [str(b.id) for b in describe_cluster(gw).brokers], None
    if entity.type in ("groups", "client-metrics"):
        from kafkactl.configs.listing import list_resources

        listing = list_resources(gw, [entity.type])
        names = {r.name for r in listing.resources if r.entity_type == entity.type}
        if entity.type == "groups":
            from kafkactl.describe.groups import list_groups

            # ListGroups finds groups with members, LIST_CONFIG_RESOURCES those with configs but none
            names |= {g.group for g in list_groups(gw)}
        return sorted(names), listing
    return [], None  # users, clients, ips: the quota RPC matches every entity itself


def _describe_configs(gw: Gateway, entity: Entity, names: list[str], all_values: bool, verbose: bool
                      ) -> tuple[list[ConfigRow], list[EntityError]]:
    ctype = CONFIG_TYPES[entity.type]
    rows: list[ConfigRow] = []
    errors: list[EntityError] = []
    if entity.type in ("brokers", "broker-loggers") and any(names):
        # a request for a broker id the cluster lacks goes nowhere and waits --timeout: say so at once
        from kafkactl.describe.cluster import describe_cluster

        ids = sorted(str(b.id) for b in describe_cluster(gw).brokers)
        for n in [n for n in names if n and n not in ids]:
            errors.append(EntityError(n, NotFoundError(_no_broker(n, ids))))
        names = [n for n in names if not n or n in ids]
    results = gw.describe_configs([(ctype, n) for n in names], synonyms=verbose) if names else {}
    row_cls = VerboseConfigRow if verbose else ConfigRow
    for n in names:
        res = results.get((ctype, n))
        label = "<default>" if n == "" else n
        if isinstance(res, Exception):
            errors.append(EntityError(label, gw.translate(res, f"describe configs of {entity.type[:-1]} {label!r}",
                                                          resource=f"{entity.type[:-1]} {label!r}",
                                                          needs=_describe_needs(entity.type, label))))
            continue
        keep = explicit_sources(ctype, n)  # without --all: the entity's own values, as kafka-configs.sh
        for c in sorted(res or [], key=lambda c: c.name):
            if not all_values and keep is not None and c.source not in keep:
                continue
            syn = tuple(f"{s[0]}={'(sensitive)' if c.sensitive else s[1]} ({s[2]})"
                        for s in c.synonyms) if verbose else ()
            rows.append(row_cls(entity.type, label, c.name, None if c.sensitive else c.value, c.source,
                                c.read_only, c.sensitive, syn))
    return rows, errors


def _describe_needs(entity_type: str, label: str) -> str:
    if entity_type in ("topics", "groups"):
        return f"DescribeConfigs on {entity_type[:-1].capitalize()}:{label}"
    return "DescribeConfigs on the Cluster"


def _describe_users(gw: Gateway, entity: Entity, names: list[str]) -> tuple[list[ConfigRow], list[EntityError]]:
    rows = describe_quotas(gw, [entity])
    errors: list[EntityError] = []
    if not entity.default:
        scram = gw.describe_scram(names or None)
        for user, creds in sorted(scram.items(), key=lambda kv: str(kv[0])):
            if isinstance(creds, Exception):
                from kafkactl.gateway._base import error_info

                if error_info(creds).code == 91:  # RESOURCE_NOT_FOUND: the user has no SCRAM credentials
                    continue
                errors.append(EntityError(str(user), gw.translate(creds, "describe SCRAM credentials",
                                                                  needs="Describe on the Cluster")))
                continue
            for mech, iterations in sorted(creds):
                rows.append(ConfigRow("users", user, mech, f"iterations={iterations}", "SCRAM_CREDENTIAL"))
    return rows, errors


def describe_quotas(gw: Gateway, entities: list[Entity]) -> list[ConfigRow]:
    components: list[tuple[str, int, str | None]] = []
    for e in entities:
        qtype = QUOTA_TYPES[e.type]
        if e.default:
            components.append((qtype, 1, None))
        elif e.name is None:
            components.append((qtype, 2, None))
        else:
            components.append((qtype, 0, e.name))
    rows = []
    for ent, values in gw.describe_quotas(components, strict=len(entities) > 1 or any(e.name for e in entities)):
        label = ",".join(f"{t}={'<default>' if n is None else n}" for t, n in ent)
        etype = "+".join(_ENTITY_OF_QUOTA.get(t, t) for t, _ in ent)
        for key, value in sorted(values.items()):
            rows.append(ConfigRow(etype, label, key, _number(value), "QUOTA"))
    return rows


_ENTITY_OF_QUOTA = {v: k for k, v in QUOTA_TYPES.items()}


def _number(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else str(v)


# --------------------------------------------------------------------------------------------- alter


@dataclass(frozen=True)
class ConfigChange:
    COLUMNS: ClassVar[tuple[str, ...]] = ("entity_type", "entity", "name", "operation", "value", "status", "error")
    entity_type: str
    entity: str
    name: str
    operation: str  # SET | DELETE | APPEND | SUBTRACT
    value: str | None  # a SCRAM password is never kept here
    status: str  # changed | validated | failed
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {c: getattr(self, c) for c in self.COLUMNS}


def alter(gateway: Callable[[], Gateway], entities: list[Entity], ops: list[tuple[str, str | None, str]],
          dry_run: bool) -> ChangeResult:
    """ops: (key, value, SET|DELETE|APPEND|SUBTRACT), applied incrementally; nothing partial goes unreported.
    `gateway` is called once what can be checked here is (a bad value is refused before any client starts)."""
    if not ops:
        raise UsageError("nothing to change: give --add-config, --add-config-file, --delete-config, "
                         "--append-config or --subtract-config")
    keys = [k for k, _, _ in ops]
    dup = {k for k in keys if keys.count(k) > 1}
    if dup:
        raise UsageError(f"config {sorted(dup)[0]!r} is given more than once")
    if len(entities) == 1 and entities[0].type in CONFIG_TYPES:
        return _alter_config(gateway(), entities[0], ops, dry_run)
    if all(e.type in QUOTA_TYPES for e in entities):
        return _alter_user_or_quota(gateway, entities, ops, dry_run)
    raise UsageError("a user+client entity takes quotas only")


def _alter_config(gw: Gateway, entity: Entity, ops: list[tuple[str, str | None, str]], dry_run: bool
                  ) -> ChangeResult:
    for _, _, op in ops:
        if op in ("APPEND", "SUBTRACT") and entity.type in ("broker-loggers",):
            raise UsageError(f"{op.lower()} does not apply to {entity.type}")
    ctype = CONFIG_TYPES[entity.type]
    label = entity.label()
    _check_broker_exists(gw, entity)
    err = gw.incremental_alter_configs((ctype, entity.name or ""), ops, validate_only=dry_run)
    ok = "validated" if dry_run else "changed"
    if err is None:
        # a value that may be a password or a key is never shown back (None, as describe shows sensitive ones)
        shown_keys = _not_sensitive(gw, ctype, entity.name or "", [k for k, v, _ in ops if v is not None])
        rows = [ConfigChange(entity.type, label, k, op, v if k in shown_keys else None, ok) for k, v, op in ops]
        return ChangeResult("ConfigAlterResult", tuple(rows), dry_run=dry_run)
    translated = gw.translate(err, f"alter configs of {entity.type[:-1]} {label!r}",
                              resource=f"{entity.type[:-1]} {label!r}", needs=alter_needs(entity.type, label))
    # IncrementalAlterConfigs is all-or-nothing per resource: every key of it failed with the broker's message
    if "unknown" in translated.message.lower() and translated.hint is None:
        translated.hint = _closest_names(gw, ctype, entity.name or "", [k for k, _, _ in ops])
    raise translated


def _closest_names(gw: Gateway, ctype: int, name: str, keys: list[str]) -> str | None:
    """For a config name the broker does not know: the nearest names it describes for the entity (configs plan
    suggests them too), or None when it cannot describe them."""
    import difflib

    try:
        described = gw.describe_configs([(ctype, name)]).get((ctype, name))
    except KafkactlError:
        return None
    if not isinstance(described, list):
        return None
    known = sorted({c.name for c in described})
    near = [(k, difflib.get_close_matches(k, known, 1)) for k in keys if k not in known]
    said = [f"{k}: did you mean {m[0]}?" for k, m in near if m]
    return "; ".join(said) or None


def _check_broker_exists(gw: Gateway, entity: Entity) -> None:
    """A named broker (or broker-logger) must be a live broker: a request for another id goes to no broker and
    waits out --timeout (brokers) or comes back as INVALID_REQUEST (broker-loggers)."""
    if entity.type not in ("brokers", "broker-loggers") or entity.default or not entity.name:
        return
    from kafkactl.describe.cluster import describe_cluster

    ids = [str(b.id) for b in describe_cluster(gw).brokers]
    if entity.name not in ids:
        raise NotFoundError(_no_broker(entity.name, ids))


def _not_sensitive(gw: Gateway, ctype: int, name: str, keys: list[str]) -> set[str]:
    """The keys whose values may be shown back: none that may be a secret by its name and, for a broker, only those
    the broker describes as not sensitive. The broker marks every config it does not know as sensitive (a custom
    key may hold anything), so a key it does not describe is not shown either."""
    keys_left = {k for k in keys if not may_be_secret(k)}
    if ctype != BROKER or not keys_left:
        return keys_left
    try:
        if not name:  # the cluster-wide default describes only what is set: any live broker knows every config
            from kafkactl.describe.cluster import describe_cluster

            name = next((str(b.id) for b in describe_cluster(gw).brokers), "")
        described = gw.describe_configs([(BROKER, name)]).get((BROKER, name)) if name else None
    except KafkactlError:
        described = None
    if not isinstance(described, list):
        return set()  # the alter went through; only its values stay unshown
    sensitive = {c.name: c.sensitive for c in described}

    def known_safe(key: str) -> bool:
        # listener.name.<listener>.[<mechanism>.]<config> is typed as <config> (DynamicBrokerConfig)
        parts = key.split(".")
        candidates = [key] + ([".".join(parts[3:]), ".".join(parts[4:])] if key.startswith("listener.name.") else [])
        return any(sensitive.get(c) is False for c in candidates if c)

    return {k for k in keys_left if known_safe(k)}


def alter_needs(entity_type: str, label: str) -> str:
    if entity_type in ("topics", "groups"):
        return f"AlterConfigs on {entity_type[:-1].capitalize()}:{label}"
    return "AlterConfigs on the Cluster"


def _alter_user_or_quota(gateway: Callable[[], Gateway], entities: list[Entity],
                         ops: list[tuple[str, str | None, str]], dry_run: bool) -> ChangeResult:
    scram, quota = _scram_and_quota_ops(entities, ops)
    gw = gateway()
    label = ",".join(e.label() for e in entities)
    etype = "+".join(e.type for e in entities)
    rows: list[ConfigChange] = []
    errors: list[KafkactlError] = []
    ok = "validated" if dry_run else "changed"

    def outcome(err: BaseException | None, what: str, resource: str | None = None) -> tuple[str, str | None]:
        if err is None:
            return ok, None
        errors.append(gw.translate(err, what, resource, needs="Alter on the Cluster"))
        return "failed", errors[-1].message

    if quota:
        entity = [(QUOTA_TYPES[e.type], None if e.default else e.name) for e in entities]
        status, msg = outcome(gw.alter_quotas(entity, quota, validate_only=dry_run), f"alter quotas of {label}")
        rows += [ConfigChange(etype, label, k, "SET" if v is not None else "DELETE",
                              None if v is None else _number(v), status, msg) for k, v in quota]
    if scram:
        user = entities[0].name or ""
        if dry_run:
            # AlterUserScramCredentials has no validate-only mode: checked locally, nothing sent
            rows += [ConfigChange("users", user, k, op, _scram_shown(c), "validated") for k, c, op in scram]
        else:
            upserts = [(user, k, c.iterations, c.password) for k, c, op in scram if op == "SET" and c is not None]
            deletes = [(user, k) for k, c, op in scram if op == "DELETE"]
            status, msg = outcome(gw.alter_scram(upserts, deletes).get(user), f"alter SCRAM credentials of {user}",
                                  f"the {' or '.join(m for _, m in deletes) or 'SCRAM'} credential of user {user}")
            rows += [ConfigChange("users", user, k, op, _scram_shown(c), status, msg) for k, c, op in scram]
    result = ChangeResult("ConfigAlterResult", tuple(rows), dry_run=dry_run)
    failed = result.failed
    if failed and len(failed) == len(rows):
        raise errors[0]
    if failed:
        raise PartialFailure(f"{len(failed)} of {plural(len(rows), 'change')} failed; first: {failed[0].name}: "
                             f"{failed[0].error}", result=result)
    return result


def _scram_and_quota_ops(entities: list[Entity], ops: list[tuple[str, str | None, str]]
                         ) -> tuple[list[tuple[str, ScramChange | None, str]], list[tuple[str, float | None]]]:
    """A user's or a quota entity's changes, checked: (SCRAM credentials, quota values)."""
    scram: list[tuple[str, ScramChange | None, str]] = []
    quota: list[tuple[str, float | None]] = []
    qtypes = [QUOTA_TYPES[e.type] for e in entities]
    for key, value, op in ops:
        if key in SCRAM_MECHANISMS:
            if len(entities) != 1 or entities[0].type != "users" or entities[0].default:
                raise UsageError(f"{key} credentials belong to one named user (--user NAME)")
            scram.append(_scram_op(key, value, op))
            continue
        allowed = set().union(*(QUOTA_KEYS[q] for q in qtypes))
        if key not in allowed:
            raise UsageError(f"{key!r} is not a quota of {'+'.join(e.type for e in entities)} "
                             f"(valid: {', '.join(sorted(allowed))}; users also take SCRAM-SHA-256/SCRAM-SHA-512)")
        quota.append(_quota_op(key, value, op))
    return scram, quota


def _scram_op(key: str, value: str | None, op: str) -> tuple[str, ScramChange | None, str]:
    if op == "SET":
        return key, parse_scram(key, value or ""), "SET"
    if op == "DELETE":
        return key, None, "DELETE"
    raise UsageError(f"{op.lower()} does not apply to {key}")


def _quota_op(key: str, value: str | None, op: str) -> tuple[str, float | None]:
    if op == "SET":
        try:
            number = float(value or "")
        except ValueError:
            number = math.nan
        if not math.isfinite(number):  # float() reads 'nan', 'inf' and a 400-digit number as no rate at all
            raise UsageError(f"quota {key}={shown(value, 40)} is not a finite number")
        return key, number
    if op == "DELETE":
        return key, None
    raise UsageError(f"{op.lower()} does not apply to quota {key}")


def _scram_shown(c: ScramChange | None) -> str | None:
    return None if c is None else f"iterations={c.iterations}"


def _no_broker(name: object, ids: list[str]) -> str:
    """A broker id the cluster does not list: none such, or one that stopped (fenced once its session timed out)."""
    return (f"broker {name} is not among the live brokers ({', '.join(ids) or 'none'}): it does not exist, or it "
            "stopped and the cluster fenced it")
