"""What differs between two clusters: ACLs, topics and explicit configs, client quotas, SCRAM users.

A topic-name map relates the names of the first cluster to the second's (MirrorMaker 2 names a replicated topic
`SOURCE.name`): it applies to topics, their configs and topic ACLs (literal and prefixed names). Internal topics
are left out. Passwords and sensitive values cannot be read, so SCRAM users compare by mechanism and iterations,
and a sensitive config by whether it is set.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from kafkactl.errors import UsageError
from kafkactl.gateway import Gateway
from kafkactl.limits import shown

if TYPE_CHECKING:
    from kafkactl.acl.model import AclBinding
    from kafkactl.desired.configs.plan import Current, TopicShape

PARTS = ("acls", "configs", "quotas", "users")


@dataclass(frozen=True)
class Difference:
    COLUMNS: ClassVar[tuple[str, ...]] = ("kind", "entity", "key", "first", "second")
    kind: str  # acl, topic, broker, group, client-metrics, quota, user
    entity: str
    key: str | None
    first: str | None  # the value in the first cluster; None: absent there
    second: str | None

    def to_json(self) -> dict[str, Any]:
        return {c: getattr(self, c) for c in self.COLUMNS}


@dataclass(frozen=True)
class TopicMap:
    """first-cluster prefix -> second-cluster prefix; the longest matching prefix wins."""

    pairs: tuple[tuple[str, str], ...] = ()

    @classmethod
    def parse(cls, specs: Iterable[str]) -> TopicMap:
        pairs: list[tuple[str, str]] = []
        for spec in specs:
            if "=" not in spec:
                raise UsageError(f"--topic-map {shown(spec)}: give FIRST_PREFIX=SECOND_PREFIX (=source. maps every "
                                 "topic t to source.t)")
            a, b = spec.split("=", 1)
            if any(a == x for x, _ in pairs):
                raise UsageError(f"--topic-map {shown(spec)}: {shown(a)} is mapped twice")
            pairs.append((a, b))
        return cls(tuple(sorted(pairs, key=lambda p: -len(p[0]))))

    def __call__(self, name: str) -> str:
        for a, b in self.pairs:
            if name.startswith(a):
                return b + name[len(a):]
        return name

    def binding(self, b: AclBinding) -> AclBinding:
        """A topic ACL of the first cluster as the second would hold it. The literal '*' is every topic on either
        cluster, never a name to map ('source.*' would be one topic); a prefix mapped to nothing is refused."""
        from dataclasses import replace

        from kafkactl.acl.model import WILDCARD, PatternType, ResourceType

        if b.resource_type is not ResourceType.TOPIC or (b.pattern_type is PatternType.LITERAL
                                                         and b.resource_name == WILDCARD):
            return b
        name = self(b.resource_name)
        if not name or (name == WILDCARD and b.pattern_type is PatternType.LITERAL):
            raise UsageError(f"--topic-map maps the topic {b.pattern_type.name.lower()} {shown(b.resource_name)} "
                             f"of {b.principal} to {shown(name) if name else 'an empty name'}, which would be every "
                             "topic: map it to a prefix")
        return replace(b, resource_name=name)


def diff_clusters(first: Gateway, second: Gateway, parts: Iterable[str], topic_map: TopicMap) -> list[Difference]:
    chosen = list(parts) or list(PARTS)
    for p in chosen:
        if p not in PARTS:
            raise UsageError(f"{p!r} is not one of {', '.join(PARTS)}")
    out: list[Difference] = []
    if "acls" in chosen:
        out += _acls(first, second, topic_map)
    sections = [s for p, s in (("configs", "topics"), ("configs", "brokers"), ("configs", "groups"),
                               ("configs", "clientMetrics"), ("quotas", "quotas"), ("users", "users")) if p in chosen]
    if sections:
        out += _state(_current(first, sections), _current(second, sections), topic_map)
    return out


def _acls(first: Gateway, second: Gateway, topic_map: TopicMap) -> list[Difference]:
    from kafkactl.acl.model import AclFilter

    a = {topic_map.binding(b) for b in first.describe_acls(AclFilter(), bulk=True)}
    b = set(second.describe_acls(AclFilter(), bulk=True))
    return ([Difference("acl", x.describe(), None, "present", None) for x in sorted(a - b)]
            + [Difference("acl", x.describe(), None, None, "present") for x in sorted(b - a)])


def _current(gw: Gateway, sections: list[str]) -> Current:
    from kafkactl.desired.configs.desired import DesiredConfigs, Manage
    from kafkactl.desired.configs.plan import read_current

    manage: dict[str, tuple[str, ...]] = {s: ("",) for s in sections if s != "brokers"}
    if "brokers" in sections:
        from kafkactl.describe.cluster import describe_cluster

        manage["brokers"] = ("",) + tuple(str(b.id) for b in describe_cluster(gw).brokers)
    return read_current(gw, DesiredConfigs(manage=Manage(manage), sections=set(sections)))


def _state(a: Current, b: Current, topic_map: TopicMap) -> list[Difference]:
    from kafkactl.desired.configs.desired import DEFAULT, NOUN, quota_label

    out: list[Difference] = []

    def compare(kind: str, entity: str, x: Mapping[str, object], y: Mapping[str, object]) -> None:
        for key in sorted(set(x) | set(y)):
            vx, vy = x.get(key, _ABSENT), y.get(key, _ABSENT)
            if vx != vy:
                out.append(Difference(kind, entity, key, _shown(vx), _shown(vy)))

    ta: dict[str, TopicShape] = {}
    for n, v in a.topics.items():
        if v.internal:
            continue
        renamed = topic_map(n)
        if renamed in ta:  # two topics made one by the map would hide one of them
            first = next(m for m in a.topics if m != n and topic_map(m) == renamed)
            raise UsageError(f"--topic-map makes the first cluster's topics {shown(first)} and {shown(n)} both "
                             f"{shown(renamed)}: give a map that keeps them apart")
        ta[renamed] = v
    tb = {n: v for n, v in b.topics.items() if not v.internal}
    for name in sorted(set(ta) | set(tb)):
        x, y = ta.get(name), tb.get(name)
        if x is None or y is None:
            out.append(Difference("topic", name, None, "present" if x else None, "present" if y else None))
            continue
        compare("topic", name, {"partitions": x.partitions, "replicationFactor": x.replication_factor},
                {"partitions": y.partitions, "replicationFactor": y.replication_factor})
    ca = {(s, topic_map(n) if s == "topics" else n): v for (s, n), v in a.configs.items()}
    for s, n in sorted(set(ca) | set(b.configs)):
        if s == "topics" and (n not in ta or n not in tb):
            continue  # a topic on one side only is reported once, above
        compare(NOUN[s], DEFAULT if s == "brokers" and n == "" else n, ca.get((s, n), {}), b.configs.get((s, n), {}))
    for q in sorted(set(a.quotas) | set(b.quotas), key=quota_label):
        compare("quota", quota_label(q), a.quotas.get(q, {}), b.quotas.get(q, {}))
    for u in sorted(set(a.users) | set(b.users)):
        compare("user", u, {m: f"iterations={i}" for m, i in a.users.get(u, {}).items()},
                {m: f"iterations={i}" for m, i in b.users.get(u, {}).items()})
    return out


_ABSENT = object()


def _shown(v: Any) -> str | None:
    if v is _ABSENT:
        return None
    if v is None:
        return "(sensitive)"
    return str(int(v)) if isinstance(v, float) and v.is_integer() else str(v)
