"""Config, SCRAM, quota and LIST_CONFIG_RESOURCES RPCs for the Gateway.

librdkafka serves topic, broker and group configs (DescribeConfigs, IncrementalAlterConfigs) and SCRAM
credentials. It has no BROKER_LOGGER or CLIENT_METRICS config resource, no LIST_CONFIG_RESOURCES and no
client-quota RPCs: those go through kafka-python's request classes (kafka-python has no admin method for
quotas, only the protocol classes, which are used as they are).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kafkactl.gateway.configtypes import (
    BROKER,
    BROKER_LOGGER,
    CLIENT_METRICS,
    GROUP,
    OPS,
    SOURCES,
    TOPIC,
    ListConfigResourcesError,
)

if TYPE_CHECKING:
    from kafkactl.gateway._host import GatewayHost as _Host
    from kafkactl.redact import Secret
else:
    _Host = object

_CONFLUENT_TYPES = {TOPIC: "TOPIC", BROKER: "BROKER", GROUP: "GROUP"}
DESCRIBE_CHUNK = 500
_SCRAM_MECHANISMS = {1: "SCRAM-SHA-256", 2: "SCRAM-SHA-512"}


@dataclass(frozen=True)
class RawConfig:
    name: str
    value: str | None
    source: str
    read_only: bool
    sensitive: bool
    synonyms: tuple[tuple[str, str | None, str], ...] = ()


class ConfigRpcs(_Host):
    """Mixed into Gateway."""

    # ------------------------------------------------------------------ describe
    def describe_configs(self, resources: Sequence[tuple[int, str]], synonyms: bool = False,
                         sources: Callable[[int, str], set[str] | None] | None = None
                         ) -> dict[tuple[int, str], list[RawConfig] | Exception]:
        """`sources`, when given, names for each resource the config sources wanted (None: all): the others are
        not made into records at all (20,000 topics hold 1.3 million configs, a few dozen of them set)."""
        out: dict[tuple[int, str], list[RawConfig] | Exception] = {}
        # librdkafka returns no synonyms and refuses an empty name (the cluster-wide broker default); a read of
        # chosen sources (the desired state's) is kafka-python's: librdkafka always asks the broker for every
        # entry's synonyms (almost twice the bytes to build, send and decode) and awaits one broker at a time
        ours = [r for r in resources if r[0] in _CONFLUENT_TYPES and r[1] and not synonyms
                and (sources is None or r[0] == BROKER)]
        # librdkafka takes one BROKER resource per call (_CONFLICT otherwise), the others together
        brokers = [r for r in ours if r[0] == BROKER]
        for batch in [[r] for r in brokers] + ([[r for r in ours if r[0] != BROKER]]
                                               if len(ours) > len(brokers) else []):
            out.update(self._describe_configs_confluent(batch, sources))
        taken = set(ours)
        theirs = [r for r in resources if r not in taken]
        if theirs:
            out.update(self._describe_configs_kp(theirs, synonyms, sources))
        return out

    def _describe_configs_confluent(self, resources: Sequence[tuple[int, str]],
                                    sources: Callable[[int, str], set[str] | None] | None = None
                                    ) -> dict[tuple[int, str], list[RawConfig] | Exception]:
        from confluent_kafka.admin import ConfigResource, ResourceType

        objs = {r: ConfigResource(getattr(ResourceType, _CONFLUENT_TYPES[r[0]]), r[1]) for r in resources}
        # librdkafka always asks for synonyms, and sends one request for a call: a broker building the answer for
        # 20,000 topics at once runs out of heap (its 1 GiB), so calls of DESCRIBE_CHUNK resources, all sent
        # before any is awaited
        futures: dict[Any, Any] = {}
        listed = list(objs.values())
        for start in range(0, len(listed), DESCRIBE_CHUNK):
            futures.update(self.admin.describe_configs(listed[start:start + DESCRIBE_CHUNK],
                                                       request_timeout=self.profile.timeout))
        if any(r[0] == BROKER for r in resources):  # a broker's own configs: only that broker answers
            self.wait(futures, "describe configs")
        else:
            ours, theirs = self.first_answer(futures, lambda: self._describe_configs_kp(resources, False, sources),
                                             "describe configs")
            if not ours:
                return theirs  # type: ignore[no-any-return]
        by_key = {(_res_key(res)): fut for res, fut in futures.items()}
        out: dict[tuple[int, str], list[RawConfig] | Exception] = {}
        for r, obj in objs.items():
            fut = by_key[_res_key(obj)]
            try:
                entries = fut.result()
            except Exception as exc:
                out[r] = exc
                continue
            keep = sources(*r) if sources else None
            out[r] = [RawConfig(e.name, e.value, SOURCES.get(int(e.source), str(e.source)), bool(e.is_read_only),
                                bool(e.is_sensitive),
                                tuple((s.name, s.value, SOURCES.get(int(s.source), str(s.source)))
                                      for s in (e.synonyms or {}).values()))
                      for e in entries.values() if keep is None or SOURCES.get(int(e.source)) in keep]
        return out

    def _describe_configs_kp(self, resources: Sequence[tuple[int, str]], synonyms: bool,
                             sources: Callable[[int, str], set[str] | None] | None = None
                             ) -> dict[tuple[int, str], list[RawConfig] | Exception]:
        """Requests of DESCRIBE_CHUNK resources, all sent before any answer is awaited and spread over the
        brokers (a broker's own resource goes to that broker: another refuses it), so that the brokers build
        their answers side by side while the first answers are decoded."""
        from kafka.protocol.admin import DescribeConfigsRequest

        R = DescribeConfigsRequest.DescribeConfigsResource
        pinned = [r for r in resources if r[0] in (BROKER, BROKER_LOGGER) and r[1]]
        free = [r for r in resources if not (r[0] in (BROKER, BROKER_LOGGER) and r[1])]
        nodes = self._kp_broker_ids() if len(free) > DESCRIBE_CHUNK else []
        batches: list[tuple[list[tuple[int, str]], int | None, bool]] = [([r], int(r[1]), False) for r in pinned]
        for i, start in enumerate(range(0, len(free), DESCRIBE_CHUNK)):
            batches.append((free[start:start + DESCRIBE_CHUNK], nodes[i % len(nodes)] if nodes else None, True))
        requests = [(DescribeConfigsRequest(
            resources=[R(resource_type=t, resource_name=n, configuration_keys=None) for t, n in batch],
            include_synonyms=synonyms, include_documentation=False), node, movable)
            for batch, node, movable in batches]

        def records(resp: Any) -> list[tuple[tuple[int, str], list[RawConfig] | Exception]]:
            out: list[tuple[tuple[int, str], list[RawConfig] | Exception]] = []
            for r in resp.results:
                key = (r.resource_type, r.resource_name)
                if r.error_code:
                    out.append((key, self.code_exception(r.error_code, r.error_message)))
                    continue
                keep = sources(*key) if sources else None
                codes = None if keep is None else {code for code, name in SOURCES.items() if name in keep}
                out.append((key, [RawConfig(c.name, c.value, SOURCES.get(c.config_source, str(c.config_source)),
                                            bool(c.read_only), bool(c.is_sensitive),
                                            tuple((s.name, s.value, SOURCES.get(s.source, str(s.source)))
                                                  for s in c.synonyms or ()))
                                  for c in r.configs if codes is None or c.config_source in codes]))
            return out

        return dict(kv for answer in self._kp_send_many(requests, "describe configs", records) for kv in answer)

    # ------------------------------------------------------------------ alter
    def incremental_alter_configs(self, resource: tuple[int, str], ops: Sequence[tuple[str, str | None, str]],
                                  validate_only: bool) -> Exception | None:
        """ops: (key, value, SET|DELETE|APPEND|SUBTRACT). Atomic per resource: one error or None."""
        pinned = resource[0] in (BROKER, BROKER_LOGGER)  # a broker's own resource: only that broker takes it
        if resource[0] in _CONFLUENT_TYPES and resource[1] and not (self._librdkafka_stuck and not pinned):
            from confluent_kafka.admin import AlterConfigOpType, ConfigEntry, ConfigResource, ResourceType

            entries = [ConfigEntry(k, v, incremental_operation=getattr(AlterConfigOpType, op)) for k, v, op in ops]
            res = ConfigResource(getattr(ResourceType, _CONFLUENT_TYPES[resource[0]]), resource[1],
                                 incremental_configs=entries)
            futures = self.admin.incremental_alter_configs([res], validate_only=validate_only,
                                                           request_timeout=self.profile.timeout)
            if pinned:
                self.wait(futures, "alter configs")
            else:  # setting or deleting a value twice is harmless: another broker is asked when one does not answer
                ours, theirs = self.first_answer(
                    futures, lambda: self._alter_configs_kp(resource, ops, validate_only), "alter configs")
                if not ours:
                    return theirs  # type: ignore[no-any-return]
            fut = next(iter(futures.values()))
            try:
                fut.result()
                return None
            except Exception as exc:
                return exc
        return self._alter_configs_kp(resource, ops, validate_only)

    def _alter_configs_kp(self, resource: tuple[int, str], ops: Sequence[tuple[str, str | None, str]],
                          validate_only: bool) -> Exception | None:
        from kafka.protocol.admin import IncrementalAlterConfigsRequest

        R = IncrementalAlterConfigsRequest.AlterConfigsResource
        C = R.AlterableConfig
        resp = self._kp_send(IncrementalAlterConfigsRequest(
            resources=[R(resource_type=resource[0], resource_name=resource[1],
                         configs=[C(name=k, config_operation=OPS[op], value=v) for k, v, op in ops])],
            validate_only=validate_only), "alter configs")
        r = resp.responses[0]
        return self.code_exception(r.error_code, r.error_message) if r.error_code else None

    def incremental_alter_many(self, changes: Mapping[tuple[int, str], Sequence[tuple[str, str | None, str]]],
                               validate_only: bool) -> dict[tuple[int, str], Exception | None]:
        """Many resources' changes in IncrementalAlterConfigs requests (kafka-python's class: librdkafka refuses a
        broker resource beside others, and the cluster-wide default's empty name); each resource is atomic. A
        broker's own resource goes to that broker, which refuses another broker's id; the rest in requests of
        DESCRIBE_CHUNK resources spread over the brokers, side by side (each forwards to the controller: 20,000
        topics in 2.8 s, against 5.3 s one request after another). Setting or deleting a value twice is
        harmless, so a request whose broker did not answer is sent again to another."""
        from kafka.protocol.admin import IncrementalAlterConfigsRequest

        R = IncrementalAlterConfigsRequest.AlterConfigsResource
        C = R.AlterableConfig
        by_node: dict[int | None, list[tuple[tuple[int, str], Sequence[tuple[str, str | None, str]]]]] = {}
        for (t, n), ops in changes.items():
            node = int(n) if t in (BROKER, BROKER_LOGGER) and n else None
            by_node.setdefault(node, []).append(((t, n), ops))
        free = by_node.pop(None, [])
        nodes = self._kp_broker_ids() if len(free) > DESCRIBE_CHUNK else []
        batches = [(items, node, False) for node, items in by_node.items()]
        batches += [(free[i:i + DESCRIBE_CHUNK], nodes[k % len(nodes)] if nodes else None, True)
                    for k, i in enumerate(range(0, len(free), DESCRIBE_CHUNK))]
        requests = [(IncrementalAlterConfigsRequest(
            resources=[R(resource_type=t, resource_name=n,
                         configs=[C(name=k, config_operation=OPS[op], value=v) for k, v, op in ops])
                       for (t, n), ops in items], validate_only=validate_only), node, movable)
            for items, node, movable in batches]
        out: dict[tuple[int, str], Exception | None] = {}
        for resp in self._kp_send_many(requests, "alter configs"):
            out.update({(r.resource_type, r.resource_name): self.code_exception(r.error_code, r.error_message)
                        if r.error_code else None for r in resp.responses})
        return out

    # ------------------------------------------------------------------ LIST_CONFIG_RESOURCES
    def list_config_resources(self, types: Sequence[int]) -> tuple[int, int, int, list[tuple[int, str]]]:
        """(negotiated version, broker's max, client's max, resources), or ListConfigResourcesError."""
        from kafka.protocol.admin import ListConfigResourcesRequest

        kp = self.kafka_python_for("list config resources")
        versions = kp._manager.broker_version_data.api_versions or {}
        broker_max = versions.get(ListConfigResourcesRequest.API_KEY, (0, -1))[1]
        client_max = ListConfigResourcesRequest.max_version
        version = min(broker_max, client_max)
        if version < 0:
            return version, broker_max, client_max, []
        resp = self._kp_send(ListConfigResourcesRequest(resource_types=list(types)), "list config resources")
        if resp.error_code:
            raise ListConfigResourcesError(resp.error_code, version, broker_max, client_max)
        # v0 (ListClientMetricsResources) names client-metrics resources only, without a type
        return version, broker_max, client_max, [(getattr(r, "resource_type", CLIENT_METRICS), r.resource_name)
                                                 for r in resp.config_resources]

    # ------------------------------------------------------------------ SCRAM (librdkafka)
    def describe_scram(self, users: Sequence[str] | None) -> dict[str, list[tuple[str, int]] | Exception]:
        """user -> [(mechanism, iterations)] or its error; users None: every user with a credential (when that
        request fails: {None: error}). kafka-python's class, asking for every user with an empty list, never
        null: a broker (4.4.0) answering a caller without Describe on the cluster builds its error response from
        the list, throws on null and never answers; librdkafka sends null, and confluent-kafka 2.16 then aborts
        the whole process (munmap_chunk(): invalid pointer)."""
        from kafka.protocol.admin import DescribeUserScramCredentialsRequest as R

        resp = self._kp_send(R(users=[R.UserName(name=u) for u in users or ()]), "describe SCRAM credentials")
        if resp.error_code:
            error = self.code_exception(resp.error_code, resp.error_message)
            return {u: error for u in users} if users else {None: error}  # type: ignore[dict-item]
        out: dict[Any, Any] = {}
        for r in resp.results:
            if r.error_code:
                out[r.user] = self.code_exception(r.error_code, r.error_message)
            else:
                out[r.user] = [(_SCRAM_MECHANISMS.get(i.mechanism, str(i.mechanism)), i.iterations)
                               for i in r.credential_infos]
        return out

    def alter_scram(self, upserts: Sequence[tuple[str, str, int, Secret]], deletes: Sequence[tuple[str, str]]
                    ) -> dict[str, Exception | None]:
        """upserts: (user, mechanism, iterations, Secret password); deletes: (user, mechanism)."""
        from confluent_kafka.admin import (
            ScramCredentialInfo,
            ScramMechanism,
            UserScramCredentialDeletion,
            UserScramCredentialUpsertion,
        )

        def mech(m: str) -> Any:
            return getattr(ScramMechanism, m.replace("-", "_"))

        alterations: list[Any] = [UserScramCredentialUpsertion(u, ScramCredentialInfo(mech(m), it),
                                                               pw.reveal().encode())
                                  for u, m, it, pw in upserts]
        alterations += [UserScramCredentialDeletion(u, mech(m)) for u, m in deletes]
        out: dict[str, Exception | None] = {}
        # the broker refuses two alterations of one user in one request (DUPLICATE_RESOURCE): one each
        for alteration in alterations:
            futures = self.admin.alter_user_scram_credentials([alteration], request_timeout=self.profile.timeout)
            self.wait(futures, "alter SCRAM credentials")
            for user, f in futures.items():
                try:
                    f.result()
                    out.setdefault(user, None)
                except Exception as exc:
                    out[user] = out.get(user) or exc
        return out

    # ------------------------------------------------------------------ client quotas (kafka-python classes)
    def describe_quotas(self, components: Sequence[tuple[str, int, str | None]], strict: bool
                        ) -> list[tuple[tuple[tuple[str, str | None], ...], dict[str, float]]]:
        """components: (entity_type, match_type 0 exact / 1 default / 2 any, name)."""
        from kafka.protocol.admin import DescribeClientQuotasRequest

        C = DescribeClientQuotasRequest.ComponentData
        resp = self._kp_send(DescribeClientQuotasRequest(
            components=[C(entity_type=t, match_type=m, match=n) for t, m, n in components], strict=strict),
            "describe client quotas")
        if resp.error_code:
            raise self.code_error(resp.error_code, resp.error_message, "describe client quotas",
                                  needs="DescribeConfigs on the Cluster")
        order = {"user": 0, "client-id": 1, "ip": 2}
        return [(tuple(sorted(((e.entity_type, e.entity_name) for e in entry.entity),
                              key=lambda x: order.get(x[0], 9))),
                 {v.key: v.value for v in entry.values}) for entry in resp.entries or []]

    def alter_quotas_many(self, entries: Sequence[tuple[Sequence[tuple[str, str | None]],
                                                           Sequence[tuple[str, float | None]]]],
                          validate_only: bool) -> list[Exception | None]:
        """Many entities' quota changes in one AlterClientQuotas request: (entity, ops) each, its error or None in
        the same order."""
        from kafka.protocol.admin import AlterClientQuotasRequest

        E = AlterClientQuotasRequest.EntryData
        if not entries:
            return []
        resp = self._kp_send(AlterClientQuotasRequest(entries=[E(
            entity=[E.EntityData(entity_type=t, entity_name=n) for t, n in entity],
            ops=[E.OpData(key=k, value=v if v is not None else 0.0, remove=v is None) for k, v in ops])
            for entity, ops in entries], validate_only=validate_only), "alter client quotas")
        by_entity = {tuple(sorted((e.entity_type, e.entity_name) for e in r.entity)):
                     (self.code_exception(r.error_code, r.error_message) if r.error_code else None)
                     for r in resp.entries}
        missing = RuntimeError("the broker did not answer for this entity")
        return [by_entity.get(tuple(sorted(entity)), missing) for entity, _ in entries]

    def alter_quotas(self, entity: Sequence[tuple[str, str | None]], ops: Sequence[tuple[str, float | None]],
                     validate_only: bool) -> Exception | None:
        from kafka.protocol.admin import AlterClientQuotasRequest

        E = AlterClientQuotasRequest.EntryData
        resp = self._kp_send(AlterClientQuotasRequest(entries=[E(
            entity=[E.EntityData(entity_type=t, entity_name=n) for t, n in entity],
            ops=[E.OpData(key=k, value=v if v is not None else 0.0, remove=v is None) for k, v in ops])],
            validate_only=validate_only), "alter client quotas")
        r = resp.entries[0]
        return self.code_exception(r.error_code, r.error_message) if r.error_code else None





def _res_key(res: Any) -> tuple[str, str]:
    return (str(getattr(res.restype, "name", res.restype)), res.name)
