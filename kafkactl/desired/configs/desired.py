"""The desired state of topics, configs, quotas and SCRAM users: read from `kind: State` documents (YAML or JSON),
checked against the one JSON Schema, every entity knowing the file and line that declared it."""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kafkactl.errors import KafkactlError, StateFileError
from kafkactl.limits import shown

if TYPE_CHECKING:
    from kafkactl.redact import Secret

SECTIONS = ("topics", "brokers", "groups", "clientMetrics", "quotas", "users")
# what one entity of each section is called in plans and errors
NOUN = {"topics": "topic", "brokers": "broker", "groups": "group", "clientMetrics": "client-metrics",
        "quotas": "quota", "users": "user"}
QUOTA_COMPONENTS = (("user", "user"), ("client", "client-id"), ("ip", "ip"))  # the file's word, the wire's
# a quota entity: (wire entity type, name or None for the default) per component
QuotaKey = tuple[tuple[str, str | None], ...]
WORD_OF_WIRE = {wire: word for word, wire in QUOTA_COMPONENTS}
DEFAULT = "<default>"  # how a default entity (broker, quota component) is shown; never a name in the file
MAX_SECRET_BYTES = 1 << 20  # a secret file larger than this is not a password or a key
_CONFIG_NAME = re.compile(r"[A-Za-z0-9._-]+")
MAX_INT32 = 2**31 - 1


def env_name(*parts: str) -> str:
    """An environment variable's name for a secret (export's references, and terraform's imported passwords):
    KAFKACTL_ and the parts, upper case, other characters `_`."""
    return "KAFKACTL_" + "_".join(re.sub(r"[^A-Za-z0-9]+", "_", p).strip("_").upper() or "DEFAULT" for p in parts)


@dataclass(frozen=True)
class SecretRef:
    """A secret's place: an environment variable or a file. Only the place is ever written or shown."""

    env: str | None = None
    file: str | None = None

    def label(self) -> str:
        return f"env:{self.env}" if self.env is not None else f"file:{self.file}"

    def to_json(self) -> dict[str, Any]:
        return {"env": self.env} if self.env is not None else {"file": self.file}

    def resolve(self, where: str) -> Secret:
        """The secret, wrapped so that it never prints; an error names the reference, never a value."""
        from kafkactl.redact import Secret

        if self.env is not None:
            value = os.environ.get(self.env)
            if value is None:
                raise StateFileError(f"{where}: the environment variable {self.env} (a secret's reference) is not set")
        else:
            path = Path(os.path.expanduser(self.file or ""))
            try:
                if not path.is_file():  # a FIFO would block, a device never end
                    raise StateFileError(f"{where}: the secret file {shown(self.file)} is not a regular file")
                if path.stat().st_size > MAX_SECRET_BYTES:
                    raise StateFileError(f"{where}: the secret file {shown(self.file)} is larger than "
                                         f"{MAX_SECRET_BYTES:,} bytes")
                value = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                why = exc.strerror if isinstance(exc, OSError) else "not UTF-8"
                raise StateFileError(f"{where}: the secret file {shown(self.file)} cannot be read ({why})") from None
            value = value[:-1] if value.endswith("\n") else value
        if not value:
            raise StateFileError(f"{where}: the secret {self.label()} is empty")
        return Secret(value)


Value = "str | SecretRef"


@dataclass
class Entity:
    """One entity a file names. name: a topic, group or client-metrics name, a broker id ("" for the cluster-wide
    default), a user; for a quota, its label (user=alice,client-id=<default>)."""

    section: str
    name: str
    where: str
    configs: dict[str, Any] = field(default_factory=dict)  # config or quota key -> str | SecretRef
    partitions: int | None = None
    replication_factor: int | None = None
    quota: QuotaKey = ()
    scram: dict[str, tuple[int | None, SecretRef, str]] = field(default_factory=dict)  # mechanism -> (iter, pw, where)
    key_where: dict[str, str] = field(default_factory=dict)  # a config key's own file:line (warnings name it)

    def where_of(self, key: str) -> str:
        return self.key_where.get(key, self.where)

    @property
    def key(self) -> tuple[str, Any]:
        return (self.section, self.quota if self.section == "quotas" else self.name)

    def shown_name(self) -> str:
        return DEFAULT if self.section == "brokers" and self.name == "" else self.name


def quota_label(entity: Iterable[tuple[str, str | None]]) -> str:
    return ",".join(f"{t}={DEFAULT if n is None else n}" for t, n in entity)


@dataclass
class Manage:
    """The entities a file owns beyond those it names: section -> name prefixes (brokers: ids, "" the default)."""

    prefixes: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def holds(self, section: str, name: str, quota: QuotaKey = ()) -> bool:
        prefixes = self.prefixes.get(section)
        if prefixes is None:
            return False
        if section == "brokers":
            return name in prefixes
        if section == "quotas":  # every named component under a prefix; a default component only under ""
            return all(any(p == "" if n is None else n.startswith(p) for p in prefixes) for _, n in quota)
        return any(name.startswith(p) for p in prefixes)

    def merge(self, other: Manage) -> Manage:
        out = dict(self.prefixes)
        for s, p in other.prefixes.items():
            out[s] = tuple(dict.fromkeys(out.get(s, ()) + p))
        return Manage(out)

    def to_json(self) -> dict[str, Any]:
        return {s: [int(x) if s == "brokers" and x else ("default" if s == "brokers" else x) for x in p]
                for s, p in self.prefixes.items()}


@dataclass
class DesiredConfigs:
    entities: dict[tuple[str, Any], Entity] = field(default_factory=dict)
    manage: Manage = field(default_factory=Manage)
    sections: set[str] = field(default_factory=set)
    sources: list[str] = field(default_factory=list)

    def add(self, e: Entity) -> None:
        before = self.entities.get(e.key)
        if before is not None:
            raise StateFileError(f"{e.where}: {NOUN[e.section]} {shown(e.shown_name())} is declared twice "
                                 f"(first at {before.where})")
        self.entities[e.key] = e

    def of(self, section: str) -> list[Entity]:
        return [e for (s, _), e in self.entities.items() if s == section]


# ----------------------------------------------------------------------------------------------------- reading


def read_desired(paths: Iterable[str | Path]) -> DesiredConfigs:
    from kafkactl.desired.formats.yamldoc import check_schema, yaml_document

    out = DesiredConfigs()
    for p in paths:
        path = Path(p)
        doc = yaml_document(path)
        if not isinstance(doc, dict):
            raise StateFileError(f"{path}: expected a mapping (apiVersion, kind: State, and its sections)")
        check_schema(path, doc)
        if doc.get("kind") != "State":
            raise StateFileError(f"{path}: kind {shown(doc.get('kind') or '(none)')} holds ACLs only: give "
                                 "kind: State for topics, configs, quotas and users (kafkactl acls plan reads ACLs)")
        out.sources.append(str(path))
        read_document(path, doc, out)
    if not out.sections and not out.manage.prefixes:
        raise StateFileError(f"{', '.join(out.sources)}: nothing for configs plan: no manage:, topics, brokers, "
                             "groups, clientMetrics, quotas or users section (acls plan reads scope: and acls:)")
    return out


def read_document(path: Path, doc: dict[str, Any], out: DesiredConfigs) -> None:
    manage = _manage(path, doc.get("manage"))
    out.manage = out.manage.merge(manage)
    for section in SECTIONS:
        if section not in doc:
            continue
        out.sections.add(section)
        for item in doc[section] or []:
            where = f"{path}:{getattr(item, 'line', '?')}"
            e = _ENTITY_READERS[section](where, section, item)
            if section in manage.prefixes and not manage.holds(section, e.name, e.quota):
                raise StateFileError(f"{where}: {NOUN[section]} {shown(e.shown_name())} is outside the file's "
                                     f"manage.{section} ({', '.join(map(repr, manage.to_json()[section]))})")
            out.add(e)


def _manage(path: Path, m: Any) -> Manage:
    if not m:
        return Manage()
    where = f"{path}:{getattr(m, 'line', '?')}"
    prefixes: dict[str, tuple[str, ...]] = {}
    for section, values in m.items():
        if section == "brokers":
            prefixes[section] = tuple("" if v == "default" else str(_broker_id(where, v)) for v in values)
        else:
            for v in values:
                _text(where, v, f"manage.{section}")
            prefixes[section] = tuple(values)
    return Manage(prefixes)


def _broker_id(where: str, value: Any) -> int:
    n = int(value)
    if n > MAX_INT32:
        raise StateFileError(f"{where}: broker {n}: a broker id is at most {MAX_INT32}")
    return n


def _text(where: str, value: str, what: str) -> str:
    from kafkactl.acl.model import validate_text

    try:
        return validate_text(value, what)
    except KafkactlError as exc:
        raise StateFileError(f"{where}: {exc.message}") from None


def _key_wheres(where: str, raw: Any) -> dict[str, str]:
    from kafkactl.desired.formats.yamldoc import key_where

    return {k: key_where(where, raw, k) for k in (raw or {})}


def _configs(where: str, raw: Any) -> dict[str, Any]:
    from kafkactl.redact import may_be_secret

    out: dict[str, Any] = {}
    for key, value in (raw or {}).items():
        if not _CONFIG_NAME.fullmatch(key):
            raise StateFileError(f"{where}: configs: {shown(key)} is not a config name")
        if may_be_secret(key) and not isinstance(value, dict):  # the value is not repeated, not even in the error
            # ("password: a secret's" would read as an assignment, and the output's scrub would mask "a")
            raise StateFileError(f"{where}: configs.{key} takes no value in clear (a secret's value is never written "
                                 "in a state file): give a reference, {env: NAME} or {file: PATH}")
        if isinstance(value, dict):
            out[key] = _ref(where, value)
        elif isinstance(value, bool):
            out[key] = "true" if value else "false"
        elif isinstance(value, float):
            if not math.isfinite(value):
                raise StateFileError(f"{where}: configs.{key}: {value} is not a number Kafka reads")
            out[key] = repr(int(value)) if value.is_integer() else repr(value)
        else:
            out[key] = _text(where, str(value), f"configs.{key}")
    return out


def _topic(where: str, section: str, item: dict[str, Any]) -> Entity:
    from kafkactl.describe.topics import validate_topic_name

    try:
        validate_topic_name(item["name"])
    except KafkactlError as exc:
        raise StateFileError(f"{where}: {exc.message}") from None
    partitions, replicas = (None if item.get(k) is None else int(item[k]) for k in ("partitions", "replicationFactor"))
    return Entity(section, item["name"], where, _configs(where, item.get("configs")), partitions, replicas,
                  key_where=_key_wheres(where, item.get("configs")))


def _broker(where: str, section: str, item: dict[str, Any]) -> Entity:
    b = item["broker"]
    name = "" if b == "default" else str(_broker_id(where, b))
    return Entity(section, name, where, _configs(where, item.get("configs")),
                  key_where=_key_wheres(where, item.get("configs")))


def _named(where: str, section: str, item: dict[str, Any]) -> Entity:
    name = _text(where, item["name"], "name")
    if not name.strip():
        raise StateFileError(f"{where}: name: empty")
    return Entity(section, name, where, _configs(where, item.get("configs")),
                  key_where=_key_wheres(where, item.get("configs")))


def _quota(where: str, section: str, item: dict[str, Any]) -> Entity:
    from kafkactl.configs.values import QUOTA_KEYS

    defaults = set(item.get("default") or ())
    entity: list[tuple[str, str | None]] = []
    for word, wire in QUOTA_COMPONENTS:
        if word in item and word in defaults:
            raise StateFileError(f"{where}: {word}: both named ({shown(item[word])}) and in default")
        if word in item:
            entity.append((wire, _text(where, item[word], word)))
        elif word in defaults:
            entity.append((wire, None))
    kinds = {t for t, _ in entity}
    if "ip" in kinds and len(kinds) > 1:
        raise StateFileError(f"{where}: an ip quota stands alone (Kafka has no ip quota combined with a user or "
                             "client)")
    allowed = set.intersection(*(set(QUOTA_KEYS[t]) for t in kinds))
    values: dict[str, Any] = {}
    for key, value in (item.get("values") or {}).items():
        if key not in allowed:
            raise StateFileError(f"{where}: values.{key}: not a quota of {'+'.join(sorted(kinds))} entities "
                                 f"({', '.join(sorted(allowed))})")
        try:
            number = float(value)
        except OverflowError:
            number = math.inf
        if isinstance(value, bool) or not math.isfinite(number):
            raise StateFileError(f"{where}: values.{key}: {shown(str(value)[:40])} is not a number Kafka reads")
        values[key] = float(value)
    e = Entity(section, quota_label(entity), where, values, quota=tuple(entity))
    return e


def _ref(where: str, raw: dict[str, Any]) -> SecretRef:
    env = raw.get("env")
    if env is not None and not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", env):
        raise StateFileError(f"{where}: env: {shown(env)} is not an environment variable's name")
    if env is None and isinstance(raw.get("file"), str):
        from kafkactl.privatefile import note_read

        note_read(raw["file"])  # read at apply time: no output of this command may be written over it
    return SecretRef(env, raw.get("file"))


def _user(where: str, section: str, item: dict[str, Any]) -> Entity:
    name = _text(where, item["name"], "name")
    if not name.strip():
        raise StateFileError(f"{where}: name: empty")
    e = Entity(section, name, where)
    for cred in item.get("scram") or []:
        cwhere = f"{where.rsplit(':', 1)[0]}:{getattr(cred, 'line', '?')}"
        mech = cred["mechanism"]
        if mech in e.scram:
            raise StateFileError(f"{cwhere}: {mech} is declared twice for user {shown(name)}")
        pw = cred["password"]
        e.scram[mech] = (cred.get("iterations"), _ref(cwhere, pw), cwhere)
    return e


_ENTITY_READERS = {"topics": _topic, "brokers": _broker, "groups": _named, "clientMetrics": _named,
                   "quotas": _quota, "users": _user}
