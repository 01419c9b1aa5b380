"""LIST_CONFIG_RESOURCES (API 74) done right (KIP-1142, KIP-1298; kafka-semantics §7).

v0/v1 need DescribeConfigs on CLUSTER and fail the whole request with CLUSTER_AUTHORIZATION_FAILED
otherwise; a broker before 4.1 answers UNSUPPORTED_VERSION for anything but CLIENT_METRICS. kafka-configs.sh
treats both as "no resources" and says nothing (KAFKA-20111). kafkactl says which permission the negotiated
version needs, falls back to what the caller can see, and marks that result as possibly incomplete. v2
(KIP-1298, when a broker offers it) answers an empty success instead of the error: the WARN line covers it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from kafkactl.configs.entities import CONFIG_TYPES
from kafkactl.gateway import Gateway
from kafkactl.gateway.configtypes import BROKER, BROKER_LOGGER, CLIENT_METRICS, CONFIG_TYPE_NAMES, GROUP, TOPIC

EMPTY_WARN = ("WARN LIST_CONFIG_RESOURCES returned an empty result. Grant Describe on CLUSTER "
              "(or per-resource Describe on GROUP/TOPIC) to receive results.")
CLUSTER_AUTHORIZATION_FAILED, UNSUPPORTED_VERSION = 31, 35
ENTITY_OF = {v: k for k, v in CONFIG_TYPES.items()}
ALL_TYPES = [TOPIC, BROKER, BROKER_LOGGER, CLIENT_METRICS, GROUP]


@dataclass(frozen=True)
class ConfigResource:
    COLUMNS: ClassVar[tuple[str, ...]] = ("entity_type", "name")
    entity_type: str
    name: str


@dataclass
class Listing:
    resources: list[ConfigResource] = field(default_factory=list)
    version: int | None = None  # negotiated API version (None: the broker lacks the API)
    broker_max: int | None = None
    client_max: int | None = None
    empty_answer: bool = False  # the broker answered successfully with nothing: print EMPTY_WARN
    incomplete: bool = False  # built by the fallback: what the caller can see
    notes: list[str] = field(default_factory=list)


def list_resources(gw: Gateway, entity_types: list[str]) -> Listing:
    types = [CONFIG_TYPES[t] for t in entity_types]
    from kafkactl.gateway.configtypes import ListConfigResourcesError

    out = Listing()
    try:
        version, broker_max, out.client_max, found = gw.list_config_resources(types)
    except ListConfigResourcesError as e:
        out.version, out.broker_max, out.client_max = e.version, e.broker_max, e.client_max
        if e.code == CLUSTER_AUTHORIZATION_FAILED:
            out.notes.append(f"LIST_CONFIG_RESOURCES v{e.version} needs DescribeConfigs on CLUSTER, which you lack "
                             "(KIP-1298's v2 would need only Describe); listing what you can see instead")
            return _fallback(gw, types, out, denied=True)
        elif e.code == UNSUPPORTED_VERSION:
            out.notes.append("this broker cannot list these config resources (before Kafka 4.1 LIST_CONFIG_RESOURCES "
                             "covers CLIENT_METRICS only); listing what you can see instead")
        else:
            raise gw.code_error(e.code, None, "list config resources") from None
        return _fallback(gw, types, out)
    out.version, out.broker_max = version, broker_max
    others = [t for t in (types or ALL_TYPES) if t != CLIENT_METRICS]
    if version == 0 and others:
        # v0 is ListClientMetricsResources (Kafka 3.7 to 4.0): it takes no types and answers client-metrics only
        out.notes.append("this broker's LIST_CONFIG_RESOURCES is v0, which lists client-metrics resources only "
                         "(before Kafka 4.1); listing the other resources you can see instead")
        metrics = ([ConfigResource("client-metrics", n) for _, n in found]
                   if CLIENT_METRICS in (types or ALL_TYPES) else [])
        _fallback(gw, others, out)
        out.resources = sorted(out.resources + metrics, key=lambda r: (r.entity_type, r.name))
        return out
    if version < 0:
        out.notes.append("this broker does not offer LIST_CONFIG_RESOURCES (API 74, Kafka 3.7+); "
                         "listing what you can see instead")
        return _fallback(gw, types, out)
    out.resources = sorted((ConfigResource(ENTITY_OF.get(t, CONFIG_TYPE_NAMES.get(t, str(t))), n) for t, n in found),
                           key=lambda r: (r.entity_type, r.name))
    out.empty_answer = not found
    return out


def _fallback(gw: Gateway, types: list[int], out: Listing, denied: bool = False) -> Listing:
    """Topics from Metadata (LIST_CONFIG_RESOURCES lists every topic), groups from ListGroups kept when
    DescribeConfigs shows a dynamic group config (it lists only those)."""
    from kafkactl.describe.groups import list_groups
    from kafkactl.describe.topics import list_topics

    wanted = set(types) or set(ALL_TYPES)
    out.incomplete = True
    if TOPIC in wanted:
        out.resources += [ConfigResource("topics", t.name) for t in list_topics(gw)]
    if GROUP in wanted:
        groups = [g.group for g in list_groups(gw)]
        described = gw.describe_configs([(GROUP, g) for g in groups]) if groups else {}
        unreadable = 0
        for g in groups:
            res = described.get((GROUP, g))
            if isinstance(res, Exception):
                unreadable += 1
            elif any(c.source == "GROUP_CONFIG" for c in res or []):
                out.resources.append(ConfigResource("groups", g))
        if unreadable:
            out.notes.append(f"{unreadable} visible group(s) left out: reading their configs needs "
                             "DescribeConfigs on each group")
    skipped = [ENTITY_OF[t] for t in (BROKER, BROKER_LOGGER, CLIENT_METRICS) if t in wanted]
    if BROKER in wanted or BROKER_LOGGER in wanted:
        # the brokers the cluster names, kept when their configs can be read (DescribeConfigs on CLUSTER)
        from kafkactl.describe.cluster import describe_cluster

        ids = [str(b.id) for b in describe_cluster(gw).brokers]
        described = gw.describe_configs([(BROKER, i) for i in ids]) if ids else {}
        if ids and not any(isinstance(described.get((BROKER, i)), Exception) for i in ids):
            for t in (BROKER, BROKER_LOGGER):
                if t in wanted:
                    out.resources += [ConfigResource(ENTITY_OF[t], i) for i in ids]
                    skipped.remove(ENTITY_OF[t])
    # why each is left out: a caller denied DescribeConfigs on CLUSTER is told so; a broker that cannot list
    # client-metrics otherwise (before LIST_CONFIG_RESOURCES covers them) leaves them out for anyone, a super user
    # too, who has nothing to grant itself
    unlisted = [] if denied else [s for s in skipped if s == ENTITY_OF[CLIENT_METRICS]]
    needing = [s for s in skipped if s not in unlisted]
    if needing:
        out.notes.append(f"{', '.join(needing)} left out: they need DescribeConfigs on CLUSTER")
    if unlisted:
        out.notes.append(f"{', '.join(unlisted)} left out: this broker lists them only through "
                         "LIST_CONFIG_RESOURCES, which it cannot answer for them")
    out.notes.append("the result above is possibly incomplete" if out.resources else
                     "the result is possibly incomplete: nothing was listed")
    out.resources.sort(key=lambda r: (r.entity_type, r.name))
    return out
