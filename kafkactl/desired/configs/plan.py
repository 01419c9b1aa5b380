"""What the cluster holds of the entities a desired state owns, and the changes that make it match.

Only values set on an entity itself are read (a topic's DYNAMIC_TOPIC_CONFIG, a broker's DYNAMIC_BROKER_CONFIG,
the cluster-wide DYNAMIC_DEFAULT_BROKER_CONFIG, GROUP_CONFIG, CLIENT_METRICS_CONFIG): a default the broker gains
(a static setting, a new Kafka's default) is not drift. The broker never returns a sensitive value, so one that is
set is left as it is and said so; SCRAM passwords likewise cannot be compared, only mechanisms and iterations.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, NamedTuple

from kafkactl.configs.values import DEFAULT_ITERATIONS
from kafkactl.desired.change import Change as CoreChange
from kafkactl.desired.configs.desired import DEFAULT, NOUN, DesiredConfigs, Entity, QuotaKey, SecretRef, quota_label
from kafkactl.errors import NotFoundError, StateFileError, UsageError
from kafkactl.gateway import Gateway
from kafkactl.gateway.configtypes import BROKER, CLIENT_METRICS, GROUP, TOPIC, explicit_sources
from kafkactl.limits import plural, shown

CONFIG_SECTIONS = {"topics": TOPIC, "brokers": BROKER, "groups": GROUP, "clientMetrics": CLIENT_METRICS}
DELETIONS = frozenset({"delete", "delete-topic", "remove-quota", "delete-scram"})
SENSITIVE = "(sensitive)"


@dataclass(frozen=True)
class Change:
    COLUMNS: ClassVar[tuple[str, ...]] = ("section", "entity", "action", "key", "current", "desired", "where")
    section: str
    entity: str
    action: str  # create-topic add-partitions set delete delete-topic set-quota remove-quota upsert-scram delete-scram
    key: str | None
    current: str | None
    desired: str | None
    where: str | None
    # what apply needs and no view shows: the entity's key, the value (a SecretRef is resolved only at apply)
    target: Any = field(default=None, compare=False, repr=False)
    value: Any = field(default=None, compare=False, repr=False)
    cluster: str | None = field(default=None, compare=False)  # the cluster's id (the plan goes to that one)

    def to_json(self) -> dict[str, Any]:
        return {**self.as_change().to_json(), **{c: getattr(self, c) for c in self.COLUMNS}}

    def as_change(self) -> CoreChange:
        """The change as every kind is shown and recorded (desired/change.py)."""
        kind = KIND_OF.get(self.action) or ("quota" if self.section == "quotas" else "config")
        noun = NOUN.get(self.section, self.section)
        return CoreChange(kind, self.cluster, f"{noun} {self.entity}{f': {self.key}' if self.key else ''}", self.action,
                          self.current, self.desired, self._irreversible())

    def _irreversible(self) -> str | None:
        if self.action == "add-partitions":
            return "Kafka cannot remove partitions"
        if self.action == "delete-topic":
            return "the topic's data is deleted with it"
        if self.action == "delete-scram":
            return "the broker never returns a SCRAM password, so the one deleted cannot be set back"
        if self.action == "upsert-scram" and self.current is not None:
            return "the broker never returns a SCRAM password, so the one replaced cannot be set back"
        if self.action in ("set", "delete") and self.current == SENSITIVE:
            return "the broker never returns a sensitive value, so the one replaced cannot be set back"
        return None


# a change's kind by its action, where the action says it (the rest: a config, or a quota in the quotas section)
KIND_OF = {"create-topic": "topic", "add-partitions": "topic", "delete-topic": "topic", "upsert-scram": "scram",
           "delete-scram": "scram"}


class TopicShape(NamedTuple):
    partitions: int
    replication_factor: int
    internal: bool


@dataclass
class Current:
    topics: dict[str, TopicShape] = field(default_factory=dict)
    configs: dict[tuple[str, str], dict[str, str | None]] = field(default_factory=dict)  # None: sensitive, unknown
    quotas: dict[QuotaKey, dict[str, float]] = field(default_factory=dict)
    users: dict[str, dict[str, int]] = field(default_factory=dict)  # user -> mechanism -> iterations
    brokers: list[str] = field(default_factory=list)
    cluster_id: str | None = None  # part of the fingerprint: a saved plan applies to the cluster it was made on

    def fingerprint(self) -> str:
        doc = {"cluster": self.cluster_id, "topics": sorted(self.topics.items()),
               "configs": sorted((list(k), sorted(v.items())) for k, v in self.configs.items()),
               "quotas": sorted((quota_label(k), sorted(v.items())) for k, v in self.quotas.items()),
               "users": sorted((u, sorted(m.items())) for u, m in self.users.items())}
        return hashlib.sha256(json.dumps(doc, default=str).encode()).hexdigest()[:16]


@dataclass
class ConfigPlan:
    ROWS: ClassVar[str] = "changes"
    ROW_COLUMNS: ClassVar[tuple[str, ...]] = Change.COLUMNS  # (an empty plan's csv: its header)
    changes: list[Change]
    fingerprint: str
    sections: list[str]
    cluster_id: str | None = None
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    managed: int = 0  # items (config values, quota values, credentials, topics) the cluster has in the scope

    @property
    def deletions(self) -> int:
        return sum(1 for c in self.changes if c.action in DELETIONS)

    def to_json(self) -> dict[str, Any]:
        return {"api_version": "kafkactl/v1", "kind": "ConfigPlan", "cluster_id": self.cluster_id,
                "fingerprint": self.fingerprint, "sections": self.sections,
                "changes": [c.to_json() for c in self.changes]}


# ----------------------------------------------------------------------------------------------- the cluster


def managed_names(desired: DesiredConfigs, section: str, existing: list[str]) -> list[str]:
    named = [e.name for e in desired.of(section)]
    return sorted(set(named) | {n for n in existing if desired.manage.holds(section, n)})


def read_current(gw: Gateway, desired: DesiredConfigs) -> Current:
    cur = Current(cluster_id=gw.describe_cluster().cluster_id)
    sections = desired.sections | set(desired.manage.prefixes)
    if "topics" in sections:
        from kafkactl.describe.topics import list_topics

        cur.topics = {t.name: TopicShape(t.partitions, t.replication_factor, t.internal) for t in list_topics(gw)}
        _topics_not_listed(gw, desired, cur)
    if "brokers" in sections:
        from kafkactl.describe.cluster import describe_cluster

        cur.brokers = sorted((str(b.id) for b in describe_cluster(gw).brokers), key=int)
    wanted: list[tuple[int, str]] = []
    for section, ctype in CONFIG_SECTIONS.items():
        if section in sections:
            wanted += [(ctype, n) for n in _config_names(gw, desired, cur, section)]
    if wanted:
        _read_configs(gw, cur, wanted)
    if "quotas" in sections:
        cur.quotas = {tuple((t, n) for t, n in ent): values for ent, values in gw.describe_quotas([], strict=False)}
    if "users" in sections:
        for user, creds in gw.describe_scram(None).items():
            if isinstance(creds, Exception):
                raise gw.translate(creds, "describe SCRAM credentials", needs="Describe on the Cluster")
            cur.users[str(user)] = {m: it for m, it in creds}
    return cur


def _config_names(gw: Gateway, desired: DesiredConfigs, cur: Current, section: str) -> list[str]:
    """The entities of a config section whose configs the plan compares: those the file names or manages."""
    if section == "topics":
        existing = [t for t, shape in cur.topics.items() if not shape.internal]
        return [n for n in managed_names(desired, section, existing) if n in cur.topics]
    if section == "brokers":
        names = sorted({e.name for e in desired.of(section)} | set(desired.manage.prefixes.get(section, ())))
        for n in names:
            if n and n not in cur.brokers:
                where = next((e.where for e in desired.of(section) if e.name == n), "manage.brokers")
                raise NotFoundError(f"{where}: broker {n} does not exist (brokers: {', '.join(cur.brokers)})")
        return names
    return managed_names(desired, section, _listed(gw, section) if section in desired.manage.prefixes else [])


def _read_configs(gw: Gateway, cur: Current, wanted: list[tuple[int, str]]) -> None:
    """The explicit configs of `wanted` (config type, name) into `cur`; a topic deleted since is dropped."""
    section_of = {v: k for k, v in CONFIG_SECTIONS.items()}
    for (ctype, name), res in gw.describe_configs(wanted, sources=explicit_sources).items():
        if isinstance(res, Exception) and ctype == TOPIC and _code(res) == UNKNOWN_TOPIC:
            cur.topics.pop(name, None)  # deleted since the listing (the check after an apply that deletes)
            continue
        if isinstance(res, Exception):
            noun = NOUN[section_of[ctype]]
            raise gw.translate(res, f"describe configs of {noun} {DEFAULT if name == '' else name!r}",
                               needs=f"DescribeConfigs on {noun.capitalize()}:{name}"
                               if ctype in (TOPIC, GROUP) else "DescribeConfigs on the Cluster")
        keep = explicit_sources(ctype, name)
        cur.configs[(section_of[ctype], name)] = {c.name: (None if c.sensitive else c.value)
                                                  for c in res if keep is None or c.source in keep}


def _topics_not_listed(gw: Gateway, desired: DesiredConfigs, cur: Current) -> None:
    """A topic the file names but the listing left out may not exist, or may be one the caller cannot Describe
    (the broker leaves those out of a listing silently): asked for by name, the broker says which. Planning to
    create a topic that exists would be a wrong plan (issue 18 new-user pass: as a user without Describe)."""
    from kafkactl.describe.topics import INTERNAL_TOPICS

    missing = sorted(e.name for e in desired.of("topics") if e.name not in cur.topics)
    for start in range(0, len(missing), 1000):
        for t in gw.topics(missing[start:start + 1000]):
            if t.error is None and t.partitions:  # created since the listing
                cur.topics[t.name] = TopicShape(len(t.partitions), len(t.partitions[0].replicas),
                                                t.name in INTERNAL_TOPICS)
            elif t.error is not None and t.error.code != UNKNOWN_TOPIC:
                where = next(e.where for e in desired.of("topics") if e.name == t.name)
                raise gw.code_error(t.error.code, t.error.message, f"tell whether topic {t.name!r} ({where}) exists",
                                    needs=f"Describe on Topic:{t.name}")


def unknown_config_names(gw: Gateway, desired: DesiredConfigs, cur: Current) -> tuple[list[str], list[str]]:
    """(warnings, notes): a warning for each topic or group config name the file sets that the cluster does not list, a
    likely typo, shown with the file's line and the closest listed name when the plan is made. The names are those a
    full DescribeConfigs of one such resource returns (a topic's or a group's every config, defaults included; for a
    group even one that does not exist yet): a topic the file names that exists, else any the caller sees; the first
    group the file names. A warning, not a refusal: a broker accepts a few names it does not list (internal ones), and
    in a rolling upgrade brokers list different names. The apply sends the plan in validate-only requests first, so a
    name the brokers refuse changes nothing. A key already set on the entity is not questioned (the cluster took it
    once); no listing (none to ask, or not allowed): a note says the names were not checked.
    (A broker's names are not all listed, listener-prefixed ones being open-ended; a client-metrics resource
    lists only what is set on it: neither is checked.)"""
    import difflib

    out: list[str] = []
    notes: list[str] = []
    for section, ctype in (("topics", TOPIC), ("groups", GROUP)):
        entities = desired.of(section)
        if not any(e.configs for e in entities):
            continue
        if section == "topics":
            named = [e.name for e in entities if e.name in cur.topics]
            sample = next(iter(named), None) or next((t for t, shape in sorted(cur.topics.items())
                                                      if not shape.internal), None)
        else:
            sample = entities[0].name
        res = gw.describe_configs([(ctype, sample)]).get((ctype, sample)) if sample else None
        noun = NOUN[section]
        if not isinstance(res, list) or not res:
            notes.append(f"{noun} config names not checked: " + (
                f"the cluster has no {noun} the caller sees to list them from" if sample is None else
                f"the configs of {noun} {shown(sample)} could not be described") + "; apply's validation checks them")
            continue
        known = {c.name for c in res}
        for e in entities:
            for key in e.configs:
                if key not in known and key not in cur.configs.get((section, e.name), {}):
                    close = difflib.get_close_matches(key, known, 1)
                    out.append(f"{e.where_of(key)}: {noun} {shown(e.name)}: {shown(key)} is not a {noun} config this "
                               "cluster lists" + (f" (did you mean {close[0]}?)" if close else "")
                               + "; apply will send it to the brokers' validation first")
    return out, notes


UNKNOWN_TOPIC = 3


def _code(exc: Exception) -> int:
    from kafkactl.gateway._base import error_info

    return error_info(exc).code


def _listed(gw: Gateway, section: str) -> list[str]:
    from kafkactl.configs.listing import list_resources

    etype = "groups" if section == "groups" else "client-metrics"
    names = {r.name for r in list_resources(gw, [etype]).resources if r.entity_type == etype}
    if section == "groups":
        from kafkactl.describe.groups import list_groups

        names |= {g.group for g in list_groups(gw)}
    return sorted(names)


# ------------------------------------------------------------------------------------------------- the plan


def make_plan(desired: DesiredConfigs, cur: Current, delete_topics: bool = False) -> ConfigPlan:
    plan = ConfigPlan([], cur.fingerprint(), sorted(desired.sections | set(desired.manage.prefixes)), cur.cluster_id)
    if "topics" in plan.sections:
        _plan_topics(desired, cur, plan, delete_topics)
    for section in ("brokers", "groups", "clientMetrics"):
        if section in plan.sections:
            for (s, name), values in sorted(cur.configs.items()):
                if s == section:
                    e = desired.entities.get((section, name))
                    _plan_configs(section, name, values, e, plan)
            for e in desired.of(section):
                if (section, e.name) not in cur.configs:  # a client-metrics resource not yet there, say
                    _plan_configs(section, e.name, {}, e, plan)
    if "quotas" in plan.sections:
        _plan_quotas(desired, cur, plan)
    if "users" in plan.sections:
        _plan_users(desired, cur, plan)
    sensitive = [c for c in plan.changes if c.action == "set" and isinstance(c.value, SecretRef)]
    for c in sensitive:
        c.value.resolve(c.where or "")  # at plan time: a missing secret is an error before anything changes
    plan.changes = [replace(c, cluster=cur.cluster_id) for c in plan.changes]  # (every record names its cluster)
    return plan


def _check_collisions(desired: DesiredConfigs, cur: Current) -> None:
    """Kafka refuses a topic whose name differs from another's only by '.' against '_' (their metric names
    would be one), but only against the topics that exist: two such topics in one file were both created, and
    in different requests the second failed after the first was made. Exit 2 at plan (adversary pass)."""
    seen = {n.replace(".", "_"): (n, "on the cluster") for n in cur.topics}
    for e in desired.of("topics"):
        if e.name in cur.topics:
            continue
        other = seen.setdefault(e.name.replace(".", "_"), (e.name, e.where))
        if other[0] != e.name:
            raise StateFileError(f"{e.where}: topic {shown(e.name)} collides with topic {shown(other[0])} "
                                 f"({other[1]}): Kafka takes '.' and '_' in topic names for one character")


def _plan_topics(desired: DesiredConfigs, cur: Current, plan: ConfigPlan, delete_topics: bool) -> None:
    _check_collisions(desired, cur)
    for e in sorted(desired.of("topics"), key=lambda e: e.name):
        have = cur.topics.get(e.name)
        if have is None:
            for ref in (v for v in e.configs.values() if isinstance(v, SecretRef)):
                ref.resolve(e.where)
            # the configs it is created with are part of the change: shown, and compared when a saved plan is
            # applied (adversary pass: a saved plan did not cover them)
            parts = " ".join([f"partitions={e.partitions or 'default'}",
                              f"replicationFactor={e.replication_factor or 'default'}",
                              *(f"{k}={v.label() if isinstance(v, SecretRef) else v}"
                                for k, v in sorted(e.configs.items()))])
            plan.changes.append(Change("topics", e.name, "create-topic", None, None, parts, e.where, e.key, e))
            continue
        partitions, rf = have.partitions, have.replication_factor
        if e.partitions is not None and e.partitions < partitions:
            raise StateFileError(f"{e.where}: topic {shown(e.name)} has {partitions} partitions; Kafka cannot "
                                 f"reduce them to {e.partitions}")
        if e.partitions is not None and e.partitions > partitions:
            plan.changes.append(Change("topics", e.name, "add-partitions", "partitions", str(partitions),
                                       str(e.partitions), e.where, e.key, e.partitions))
        if e.replication_factor is not None and e.replication_factor != rf:
            plan.warnings.append(f"{e.where}: topic {e.name} has replication factor {rf}, the file says "
                                 f"{e.replication_factor}: kafkactl does not reassign replicas (left as it is)")
        _plan_configs("topics", e.name, cur.configs.get(("topics", e.name), {}), e, plan)
    extra = sorted(n for n, shape in cur.topics.items()
                   if not shape.internal and desired.manage.holds("topics", n)
                   and ("topics", n) not in desired.entities)
    plan.managed += len(extra) + sum(1 for e in desired.of("topics") if e.name in cur.topics)
    # a managed topic the files leave out is deleted with --delete-topics; without it, it is left as it is, its
    # configs too: resetting them would be a silent half-deletion (cleanup.policy=compact back to delete, a long
    # retention back to a week: data lost) of a topic that may only have been forgotten in the file
    for n in extra if delete_topics else ():
        plan.changes.append(Change("topics", n, "delete-topic", None, "exists", None, None, ("topics", n)))
    if extra and not delete_topics:
        plan.notes.append(f"{len(extra)} managed topic{'s' * (len(extra) != 1)} not in the desired state "
                          f"({', '.join(extra[:5])}{', ...' if len(extra) > 5 else ''}): left as "
                          f"{'they are' if len(extra) != 1 else 'it is'}, configs included (--delete-topics "
                          f"deletes {'them' if len(extra) != 1 else 'it'})")


def _plan_configs(section: str, name: str, have: dict[str, str | None], e: Entity | None, plan: ConfigPlan) -> None:
    want = e.configs if e is not None else {}
    where = e.where if e is not None else None
    shown_name = DEFAULT if section == "brokers" and name == "" else name
    not_compared = []
    plan.managed += len(have)
    for key in sorted(set(have) | set(want)):
        if key not in want:
            plan.changes.append(Change(section, shown_name, "delete", key,
                                       SENSITIVE if have[key] is None else have[key], None, where, (section, name)))
        elif key not in have or (have[key] is not None and (isinstance(want[key], SecretRef)
                                                            or not same_value(str(have[key]), str(want[key])))):
            value = want[key]
            plan.changes.append(Change(section, shown_name, "set", key,
                                       None if key not in have else (SENSITIVE if have[key] is None else have[key]),
                                       value.label() if isinstance(value, SecretRef) else value,
                                       e.where_of(key) if e is not None else where,
                                       (section, name), value))
        elif have[key] is None:
            not_compared.append(key)
    if not_compared:
        plan.notes.append(f"{NOUN[section]} {shown_name}: {', '.join(not_compared)} set and sensitive: the broker "
                          "never returns such a value, so it is not compared (left as it is)")


_INTEGER = re.compile(r"[+-]?[0-9]+")
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def same_value(have: str, want: str) -> bool:
    """Whether the broker's value is the file's as a broker reads it: Kafka trims a value and each item of a
    list, reads a number as a number (+0100 is 100, 0.50 is 0.5) and a boolean in any case, and describes what it
    read. Compared as written, such a value was set again by every apply and never shown (adversary pass). The
    config's type is not known here: any value with a comma is compared as a list, so spaces around a comma in
    a plain string value (none of Kafka's topic or group configs holds one) are not a difference."""
    if have == want:
        return True
    w = want.strip()
    if "," in w:
        return [x.strip() for x in w.split(",")] == [x.strip() for x in have.split(",")]
    if _INTEGER.fullmatch(w) and _INTEGER.fullmatch(have):
        return int(w) == int(have)
    if w.lower() in ("true", "false"):
        return w.lower() == have
    if _DECIMAL.fullmatch(w) and _DECIMAL.fullmatch(have) and not _INTEGER.fullmatch(have):
        return float(w) == float(have)  # a double the broker describes as it read it (not "100.0" for an integer)
    return w == have


def _plan_quotas(desired: DesiredConfigs, cur: Current, plan: ConfigPlan) -> None:
    keys = {e.quota for e in desired.of("quotas")} | {q for q in cur.quotas if desired.manage.holds("quotas", "", q)}
    for q in sorted(keys, key=quota_label):
        e = desired.entities.get(("quotas", q))
        have, want = cur.quotas.get(q, {}), (e.configs if e is not None else {})
        label = quota_label(q)
        plan.managed += len(have)
        for key in sorted(set(have) | set(want)):
            if key not in want:
                plan.changes.append(Change("quotas", label, "remove-quota", key, _num(have[key]), None,
                                           e.where if e else None, q))
            elif have.get(key) != want[key]:
                plan.changes.append(Change("quotas", label, "set-quota", key, _num(have[key]) if key in have else None,
                                           _num(want[key]), e.where if e else None, q, want[key]))


def _num(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else str(v)


def _plan_users(desired: DesiredConfigs, cur: Current, plan: ConfigPlan) -> None:
    names = {e.name for e in desired.of("users")} | {u for u in cur.users if desired.manage.holds("users", u)}
    for user in sorted(names):
        e = desired.entities.get(("users", user))
        have = cur.users.get(user, {})
        want = e.scram if e is not None else {}
        plan.managed += len(have)
        for mech in sorted(set(have) | set(want)):
            if mech not in want:
                plan.changes.append(Change("users", user, "delete-scram", mech, f"iterations={have[mech]}", None,
                                           e.where if e else None, user))
                continue
            iterations, ref, where = want[mech]
            iterations = iterations or DEFAULT_ITERATIONS
            if have.get(mech) != iterations:
                ref.resolve(where)  # a missing password is an error now, not halfway through apply
                plan.changes.append(Change("users", user, "upsert-scram", mech,
                                           f"iterations={have[mech]}" if mech in have else None,
                                           f"iterations={iterations} password={ref.label()}", where, user,
                                           (iterations, ref)))


def check_max_deletes(plan: ConfigPlan, max_deletes: str | None, applying: bool = True) -> None:
    """--max-deletes N, or P% of the items the cluster holds in the file's scope; exit 2 before anything changes."""
    from kafkactl.limits import delete_limit

    limit = delete_limit(max_deletes, plan.managed, "items")
    if limit is not None and plan.deletions > limit:
        raise UsageError(f"the plan deletes {plural(plan.deletions, 'item')} (configs, quotas, credentials, topics), "
                         f"more than --max-deletes {max_deletes}" + (": nothing applied" if applying else ""))


LOCKOUT_FLAG = "--allow-lockout"


def lockouts(plan: ConfigPlan, profile: Any) -> list[str]:
    """What in the plan takes away or replaces a credential the cluster's administration rests on: the SCRAM
    credential this command authenticates with, or one of a super user's (the context's super-users). A credential
    replaced (new iterations, so a new password) locks out whoever still logs in with the old password."""
    mine = profile.username if (profile.sasl_mechanism or "").upper().startswith("SCRAM-") else None
    supers = {s.partition(":")[2] for s in profile.super_users if s.startswith("User:")}
    out = []
    for c in plan.changes:
        replaced = c.action == "upsert-scram" and c.current is not None
        if c.action != "delete-scram" and not replaced:
            continue
        verb = "deletes" if c.action == "delete-scram" else "replaces (new password)"
        if c.entity == mine and (c.key or "").upper() == (profile.sasl_mechanism or "").upper():
            out.append(f"the plan {verb} the {c.key} credential of {c.entity}, the user this command authenticates "
                       "as: the next command would fail to authenticate")
        elif c.entity in supers:
            out.append(f"the plan {verb} the {c.key} credential of {c.entity}, a super user of this context")
    return out


def check_lockout(plan: ConfigPlan, profile: Any, allow: bool) -> None:
    """Refuse (exit 2, nothing changed) a plan that locks out the caller or a super user, unless `allow`."""
    found = lockouts(plan, profile)
    if found and not allow:
        more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
        raise UsageError(f"{found[0]}{more}; add {LOCKOUT_FLAG} to apply it anyway: nothing applied")


def confirm(gw: Gateway, desired: DesiredConfigs, delete_topics: bool, timeout: float) -> tuple[float, int]:
    """After an apply: wait until the broker shows the desired state (it answers describes from its metadata, which
    the controller's records reach a moment after the change returns). (seconds waited, changes still unseen)."""
    import time

    started = time.monotonic()
    while True:
        began = time.monotonic()
        left = len(make_plan(desired, read_current(gw, desired), delete_topics).changes)
        waited = time.monotonic() - started
        if not left or waited > timeout:
            return waited, left
        # as long again as a look took, at least 0.1 s: looking at 20,000 topics' configs back to back kept the
        # brokers (which apply the controller's records one topic at a time) from catching up
        time.sleep(max(0.1, time.monotonic() - began))


# ------------------------------------------------------------------------------------------- saved plans


def _file_digest(path: str) -> str:
    from pathlib import Path

    from kafkactl.desired.formats.text import read_bytes

    return hashlib.sha256(read_bytes(Path(path))).hexdigest()


def save_plan(plan: ConfigPlan, files: list[str], delete_topics: bool, out: str) -> None:
    """The plan (desired/saved.py), the files it came from (by digest) and the fingerprint of the cluster state it
    was made from."""
    from pathlib import Path

    from kafkactl.desired import saved

    doc = plan.to_json()
    d = saved.begin(out)
    saved.finish(d, {"kind": "ConfigPlan", "sections": doc["sections"], "delete_topics": delete_topics,
                     "files": [{"path": str(Path(f).resolve()), "sha256": _file_digest(f)} for f in files],
                     "clusters": [{"cluster_id": plan.cluster_id, "fingerprint": plan.fingerprint}],
                     "changes": doc["changes"]})


def load_saved(path: str) -> tuple[list[str], bool, str, list[dict[str, Any]], str | None]:
    """(files, delete_topics, fingerprint, changes, cluster id) of a saved plan, its files unchanged since; else
    exit 2."""
    from kafkactl.desired import saved

    d, doc = saved.read_meta(path, "ConfigPlan")
    try:
        files = [(f["path"], f["sha256"]) for f in doc["files"]]
        assert files and all(isinstance(p, str) and p and isinstance(h, str) for p, h in files)
        assert isinstance(doc["changes"], list) and all(isinstance(c, dict) for c in doc["changes"])
        (cluster,) = doc["clusters"]
        out = ([f for f, _ in files], bool(doc["delete_topics"]), str(cluster["fingerprint"]), list(doc["changes"]),
               cluster["cluster_id"])
    except (ValueError, KeyError, TypeError, AssertionError):
        raise StateFileError(f"{d}: not a plan saved by kafkactl configs plan --out (plan.json was edited)") from None
    for f, digest in files:
        if _file_digest(f) != digest:
            raise StateFileError(f"{d}: {f} changed since the plan was made: plan again")
    return out


def check_saved(plan: ConfigPlan, fingerprint: str, changes: list[dict[str, Any]], path: str,
                cluster_id: str | None = None) -> None:
    """The plan made now from the same files must be the saved one, on the same cluster, from the same state."""
    if plan.cluster_id != cluster_id:
        raise StateFileError(f"{path}: made on the cluster {cluster_id}, not this one ({plan.cluster_id}): plan "
                             "again against this cluster")
    if plan.fingerprint != fingerprint:
        raise StateFileError(f"{path}: stale: the cluster changed since the plan was made (state {fingerprint}, now "
                             f"{plan.fingerprint}): plan again")

    # where a change comes from names its file as given on the command line
    def what(change: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in change.items() if k != "where"}

    if [what(c.to_json()) for c in plan.changes] != [what(c) for c in changes]:
        raise StateFileError(f"{path}: the plan made now from the same files and cluster state differs from the "
                             "saved one: plan again")
