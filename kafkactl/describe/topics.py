"""Topics: list, create, delete (describe grows in a later issue)."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import Any, ClassVar

from kafkactl.acl.bitfield import AuthorizedOps, decode
from kafkactl.acl.model import ResourceType
from kafkactl.errors import KafkactlError, PartialFailure, UsageError
from kafkactl.gateway import ErrorInfo, Gateway, TopicRecord
from kafkactl.results import ChangeResult

INTERNAL_TOPICS = frozenset({"__consumer_offsets", "__transaction_state", "__share_group_state"})
_LEGAL = re.compile(r"^[a-zA-Z0-9._-]+$")
MAX_NAME_LENGTH = 249
MAX_PARTITIONS = 100000  # librdkafka's bounds for a new topic
MAX_REPLICATION_FACTOR = 10000


def validate_topic_name(name: str) -> None:
    """Kafka's own rules (org.apache.kafka.common.internals.Topic.validate)."""
    if not name:
        raise UsageError("topic name is empty")
    if name in (".", ".."):
        raise UsageError(f"topic name {name!r} is not allowed")
    if len(name) > MAX_NAME_LENGTH:
        raise UsageError(f"topic name {name[:40]}... is {len(name)} characters long; the limit is {MAX_NAME_LENGTH}")
    if not _LEGAL.match(name):
        bad = sorted({c for c in name if not _LEGAL.match(c)})
        raise UsageError(f"topic name {name!r} contains {''.join(bad)!r}; only ASCII letters, digits, '.', "
                         "'_' and '-' are legal")


@dataclass(frozen=True)
class TopicSummary:
    COLUMNS: ClassVar[tuple[str, ...]] = ("name", "partitions", "replication_factor", "internal")
    name: str
    partitions: int
    replication_factor: int
    internal: bool


def list_topics(gw: Gateway, include_internal: bool = True) -> list[TopicSummary]:
    out = []
    for t in gw.topics():
        if t.error is not None and not t.partitions:
            continue  # described but failed (e.g. being deleted)
        internal = t.name in INTERNAL_TOPICS
        if internal and not include_internal:
            continue
        rf = len(t.partitions[0].replicas) if t.partitions else 0
        out.append(TopicSummary(name=t.name, partitions=len(t.partitions), replication_factor=rf, internal=internal))
    return sorted(out, key=lambda s: s.name)


@dataclass(frozen=True)
class ItemResult:
    """One item of a mutating command's result envelope."""

    COLUMNS: ClassVar[tuple[str, ...]] = ("name", "status", "error")
    name: str
    status: str  # created | deleted | validated | failed
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "status": self.status, "error": self.error}


def parse_config_pairs(pairs: list[str], option: str = "--config") -> dict[str, str]:
    out: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            from kafkactl.limits import shown
            from kafkactl.redact import may_be_secret

            # `sasl.password hunter2` (a space for the =) holds a password: only its first word is repeated
            words = pair.split(None, 1)
            what = f"{shown(words[0])} (the rest not shown)" if words and may_be_secret(pair) else shown(pair)
            raise UsageError(f"{option} {what} is not key=value")
        out[key.strip()] = value.strip()
    return out


def create_topic(gw: Gateway, name: str, partitions: int | None, replication_factor: int | None,
                 configs: dict[str, str], dry_run: bool = False) -> ChangeResult:
    from kafkactl.limits import shown

    validate_topic_name(name)
    # the protocol's fields are INT32 and INT16, but confluent-kafka's NewTopic refuses more than these
    for option, value, top in (("--partitions", partitions, MAX_PARTITIONS),
                               ("--replication-factor", replication_factor, MAX_REPLICATION_FACTOR)):
        if value is not None and not 1 <= value <= top:
            raise UsageError(f"{option} {shown(value, 40)}: must be from 1 to {top}")
    # -1 asks the broker for num.partitions / default.replication.factor (KIP-464)
    spec = (name, partitions or -1, replication_factor or -1, configs)
    errors = gw.create_topics([spec], validate_only=dry_run)
    result = _envelope(gw, "TopicCreateResult", errors, "validated" if dry_run else "created", dry_run,
                       what="create topic", needs="Create on Topic:{name} or on the Cluster")
    if not dry_run:
        _await_brokers(gw, result, [r.name for r in result.results if r.status == "created"], present=True)
    return result


def delete_topics(gw: Gateway, names: list[str]) -> ChangeResult:
    for n in names:
        validate_topic_name(n)
    errors = gw.delete_topics(names)
    result = _envelope(gw, "TopicDeleteResult", errors, "deleted", False, what="delete topic",
                       needs="Delete on Topic:{name}")
    _await_brokers(gw, result, [r.name for r in result.results if r.status == "deleted"], present=False)
    return result


def _await_brokers(gw: Gateway, result: ChangeResult, names: list[str], present: bool) -> None:
    """Return once every live broker's metadata shows the topics made (or none of those deleted): CreateTopics and
    DeleteTopics answer when the controller has the change, and each broker answers Metadata (and so the next
    command's describe, produce or ACL check) from its own copy of the metadata log, a moment later. A broker that
    may not tell (the caller lacks Describe on the topic: Create does not imply it) is not waited for. Past
    the client's timeout: the result still goes to stdout, with exit 4 when a broker did not answer, else 1."""
    from kafkactl.acl.visibility import on_every_broker

    if not names:
        return

    def shows(node: int, deadline: float) -> bool:
        while True:
            records = {t.name: t for t in gw.topics(names, node=node)}
            lagging = [n for n in names if _lags(records.get(n), present)]
            if not lagging:
                return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.05)

    seen = on_every_broker(gw, shows, gw.profile.timeout)
    if seen:
        return
    which = ", ".join(seen.missing)
    message = (f"the topics were {'created' if present else 'deleted'} but {which} "
               f"{'do not show them' if present else 'still show some of them'} after {gw.profile.timeout:g} s "
               f"(every broker answers from its own copy of the metadata); check again shortly"
               + (f" ({seen.why})" if seen.why else ""))
    raise seen.error(result, message)


def _lags(record: TopicRecord | None, present: bool) -> bool:
    """Whether a broker's Metadata record of a topic (None: not in the answer) still lacks the change."""
    if record is None:
        return present
    if record.error is None:
        return not present
    if "UNKNOWN_TOPIC" in record.error.name:
        return present
    return False  # not the caller's to see (an authorization error): nothing to wait for


def _envelope(gw: Gateway, kind: str, errors: dict[str, ErrorInfo | None], ok_status: str, dry_run: bool, what: str,
              needs: str) -> ChangeResult:
    results = []
    failures: dict[str, ErrorInfo] = {}
    for name, info in sorted(errors.items()):
        if info is None:
            results.append(ItemResult(name, ok_status))
        else:
            failures[name] = info
            err = gw.item_error(info, f"{what} {name!r}", resource=f"topic {name!r}", needs=needs.format(name=name))
            results.append(ItemResult(name, "failed", err.message))
    result = ChangeResult(kind=kind, results=tuple(results), dry_run=dry_run)
    failed = result.failed
    if failed and len(failed) == len(results):
        # all failed: surface the (first) translated error with its own exit code
        name = failed[0].name
        raise gw.item_error(failures[name], f"{what} {name!r}", resource=f"topic {name!r}",
                            needs=needs.format(name=name))
    if failed:
        first = failed[0]
        raise PartialFailure(f"{len(failed)} of {len(results)} failed; first: {first.name}: {first.error}",
                             result=result)
    return result


# ------------------------------------------------------------------------------------------- describe


@dataclass(frozen=True)
class PartitionInfo:
    COLUMNS: ClassVar[tuple[str, ...]] = ("topic", "partition", "leader", "replicas", "isr", "offline_replicas")
    topic: str
    partition: int
    leader: int | None
    replicas: tuple[int, ...]
    isr: tuple[int, ...]
    offline_replicas: tuple[int, ...]


@dataclass(frozen=True)
class TopicDescription:
    ROWS: ClassVar[str] = "partitions"
    name: str
    topic_id: str | None
    internal: bool
    partitions: tuple[PartitionInfo, ...]
    authorized_operations: AuthorizedOps | None = None


@dataclass(frozen=True)
class TopicError:
    name: str
    error: KafkactlError


def describe_topics(gw: Gateway, names: list[str] | None, authorized_operations: bool = False
                    ) -> tuple[list[TopicDescription], list[TopicError]]:
    """Describe the named topics (None: every topic the caller may Describe), as the broker answers."""
    for n in names or []:
        validate_topic_name(n)
    found, errors = [], []
    for t in gw.topics(names, include_authorized_operations=authorized_operations):
        if t.error is not None:
            errors.append(TopicError(t.name, gw.item_error(t.error, f"describe topic {t.name!r}",
                                                           resource=f"topic {t.name!r}",
                                                           needs=f"Describe on Topic:{t.name}")))
            continue
        parts = tuple(PartitionInfo(t.name, p.partition, p.leader, p.replicas, p.isr, p.offline) for p in t.partitions)
        ops = decode(t.authorized_operations, ResourceType.TOPIC) if authorized_operations else None
        found.append(TopicDescription(t.name, t.topic_id, t.internal, parts, ops))
    return sorted(found, key=lambda d: d.name), sorted(errors, key=lambda e: e.name)


EMPTY_LIST_HINT = "no topics visible: the broker only lists topics you may Describe"
UNKNOWN_TOPIC_OR_PARTITION = 3


def may_describe_all_under(gw: Gateway, prefix: str) -> bool:
    """Whether the caller may Describe every topic name under the prefix (then a listing shows every such topic).
    The broker answers a name nobody created with UNKNOWN_TOPIC_OR_PARTITION to a caller who may Describe it, and
    TOPIC_AUTHORIZATION_FAILED to the others; two such names that share nothing beyond the prefix are asked for, so
    no one prefixed ACL under it covers both."""
    import uuid

    probe = [f"{prefix}{first}{uuid.uuid4().hex}" for first in "0Z"]
    try:
        answers = gw.topics(probe)
    except KafkactlError:
        return False
    return len(answers) == len(probe) and all(t.error is not None and t.error.code == UNKNOWN_TOPIC_OR_PARTITION
                                              for t in answers)


def why_empty(gw: Gateway) -> str | None:
    """The hint for an empty topic list, given only when it can be the reason: a caller who may Describe any name
    (a super user, or Describe granted on every topic) sees every topic, and an empty list means there are none."""
    return None if may_describe_all_under(gw, "") else EMPTY_LIST_HINT
