"""Apply a config plan: topics created first (with their configs), partitions added, then configs in batched
IncrementalAlterConfigs requests (atomic per resource), quotas in batched AlterClientQuotas requests, SCRAM
credentials, and topic deletions last. Every change gets an outcome; a re-run after a crash converges, since each
step sets a value rather than adding to one."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from kafkactl.desired.change import Change as CoreChange, Outcome as CoreOutcome
from kafkactl.desired.configs.plan import Change, ConfigPlan
from kafkactl.exitcodes import ExitCode
from kafkactl.gateway import Gateway
from kafkactl.gateway.configtypes import BROKER, CLIENT_METRICS, GROUP, TOPIC
from kafkactl.results import ChangeResult

if TYPE_CHECKING:
    from kafkactl.desired.configs.desired import QuotaKey, SecretRef
    from kafkactl.redact import Secret

T = TypeVar("T")

CHUNK = 500  # resources or entities per request: well under the broker's limits, small enough to show progress
# the order the apply sends them in
STEPS = {a: i for i, actions in enumerate((("create-topic",), ("add-partitions",), ("set", "delete"),
                                           ("set-quota", "remove-quota"), ("upsert-scram", "delete-scram"),
                                           ("delete-topic",))) for a in actions}
_TYPES = {"topics": TOPIC, "brokers": BROKER, "groups": GROUP, "clientMetrics": CLIENT_METRICS}


@dataclass(frozen=True)
class Outcome:
    COLUMNS: ClassVar[tuple[str, ...]] = ("section", "entity", "action", "key", "status", "error")
    section: str
    entity: str
    action: str
    key: str | None
    status: str  # applied | validated | failed | skipped | unknown (its request got no answer)
    error: str | None = None
    exit_code: int = 0  # a failure's own exit code (not a column)
    change: CoreChange | None = field(default=None, compare=False, repr=False)  # (what every report line shows)

    @classmethod
    def of(cls, c: Change, status: str, error: str | None = None, exit_code: int = 0) -> Outcome:
        return cls(c.section, c.entity, c.action, c.key, status, error, exit_code, c.as_change())

    def to_json(self) -> dict[str, Any]:
        own = {c: getattr(self, c) for c in self.COLUMNS}
        if self.change is None:
            return own
        return CoreOutcome(self.change, self.status, self.error, own).to_json()


class Stopped(Exception):
    """A request raised part way (the brokers went away, the caller pressed Ctrl-C): `result` holds what was done,
    the changes whose request got no answer (status unknown) and those never sent (skipped); `cause` the error."""

    def __init__(self, result: ChangeResult, cause: BaseException, said: str) -> None:
        super().__init__(said)
        self.result = result
        self.cause = cause
        self.said = said  # the cause in one line, secrets masked


def apply_plan(gw: Gateway, plan: ConfigPlan, dry_run: bool, advance: Callable[[int], None] | None = None,
               resolved: dict[SecretRef, Secret] | None = None, refused: dict[int, Exception] | None = None
               ) -> ChangeResult:
    """`resolved`: the secrets read so far, by reference; given the validate-only pass's, the apply sends the very
    values that were validated (a secret file rewritten between the passes is not read again). `refused`: in a
    dry run, the SCRAM and topic-deletion changes (by id) the caller may not make (they have no validate-only
    request). A request that raises stops the apply: Stopped carries the outcomes so far."""
    run = _Run(gw, plan, dry_run, advance, {} if resolved is None else resolved, refused or {})
    try:
        run.steps()
    except (Exception, KeyboardInterrupt) as exc:
        raise run.stopped(exc) from exc
    return ChangeResult("ConfigApply", tuple(run.done.values()), dry_run)


class _Run:
    """One pass of apply_plan over the plan's changes, in STEPS' order: the outcomes so far, the request in flight
    and every secret sent."""

    def __init__(self, gw: Gateway, plan: ConfigPlan, dry_run: bool, advance: Callable[[int], None] | None,
                 resolved: dict[SecretRef, Secret], refused: dict[int, Exception]) -> None:
        self.gw, self.plan, self.dry_run, self.advance = gw, plan, dry_run, advance
        self.resolved, self.refused = resolved, refused
        self.ok = "validated" if dry_run else "applied"
        # by change: an outcome and its change recorded in one step (Ctrl-C may come)
        self.done: dict[int, Outcome] = {}
        self.sent: list[Change] = []  # the changes of the request in flight
        self.revealed: list[str] = []  # every secret sent: a broker's message may quote one, however short

    def secret_of(self, ref: SecretRef, where: str | None) -> Secret:
        if ref not in self.resolved:
            self.resolved[ref] = ref.resolve(where or "")
        return self.resolved[ref]

    def reveal(self, value: Any, where: str | None) -> Any:
        from kafkactl.desired.configs.desired import SecretRef
        from kafkactl.redact import register

        if not isinstance(value, SecretRef):
            return value
        secret = self.secret_of(value, where).reveal()
        self.revealed.append(secret)
        # the broker trims a value, and splits a list-valued one, whose message then quotes one item, trimmed
        # (pieces of 4 characters or more: a shorter one would mask ordinary words)
        for part in {p.strip() for p in [secret, *secret.split(",")]} - {secret}:
            if len(part) >= 4:
                register(part)
                self.revealed.append(part)
        return secret

    def record(self, changes: Iterable[Change], error: Any, status: str | None = None, why: str | None = None
               ) -> None:
        n = 0
        for c in changes:
            n += 1
            code = 0 if error is None else _exit_code(self.gw, error)
            if code == ExitCode.UNREACHABLE:  # no answer: whether it took is unknown, and the next fares no better
                raise error if isinstance(error, Exception) else self.gw.item_error(error, "apply")
            text = why if error is None else _text(self.gw, error, c)
            for secret in sorted(self.revealed, key=len, reverse=True):
                text = text.replace(secret, "******") if text and secret else text
            state = status or ("failed" if error else self.ok)
            if text and state == "failed" and _done_already(c, text):
                state, text = "skipped", f"done already (since the plan was made): {text}"
            self.done[id(c)] = Outcome.of(c, state, text, code if state == "failed" else 0)
        if self.advance is not None:
            self.advance(n)

    def steps(self) -> None:
        by_action: dict[str, list[Change]] = {}
        for c in self.plan.changes:
            by_action.setdefault(c.action, []).append(c)
        created_configs = self.create_topics(by_action.get("create-topic", []))
        self.add_partitions(by_action.get("add-partitions", []))
        self.alter_configs(by_action.get("set", []) + by_action.get("delete", []), created_configs)
        self.alter_quotas(by_action.get("set-quota", []) + by_action.get("remove-quota", []))
        self.alter_scram(by_action.get("upsert-scram", []) + by_action.get("delete-scram", []))
        self.delete_topics(by_action.get("delete-topic", []))

    def create_topics(self, creates: list[Change]) -> set[Any]:
        """The topics created, with their configs; the targets whose configs went with a creation."""
        for chunk in _chunks(creates):
            specs = [(c.entity, c.value.partitions or -1, c.value.replication_factor or -1,
                      {k: self.reveal(v, c.where) for k, v in c.value.configs.items()}) for c in chunk]
            self.sent[:] = chunk
            created = self.gw.create_topics(specs, validate_only=self.dry_run)
            for c in chunk:
                self.record([c], created.get(c.entity))
        return {c.target for c in creates}

    def add_partitions(self, changes: list[Change]) -> None:
        for chunk in _chunks(changes):
            self.sent[:] = chunk
            grown = self.gw.create_partitions({c.entity: c.value for c in chunk}, validate_only=self.dry_run)
            for c in chunk:
                self.record([c], grown.get(c.entity))

    def alter_configs(self, changes: list[Change], created_configs: set[Any]) -> None:
        # configs: one entry per resource, a created topic's configs already went with its creation
        per_resource: dict[tuple[int, str], list[Change]] = {}
        for c in changes:
            if c.target in created_configs:
                continue
            section, name = c.target
            per_resource.setdefault((_TYPES[section], name), []).append(c)
        for resources in _chunks(list(per_resource.items()), CHUNK * 3):  # (the gateway spreads it over three brokers)
            ops = {res: [(_key(c), self.reveal(c.value, c.where) if c.action == "set" else None,
                          "SET" if c.action == "set" else "DELETE") for c in changes] for res, changes in resources}
            self.sent[:] = [c for _, changes in resources for c in changes]
            altered = self.gw.incremental_alter_many(ops, validate_only=self.dry_run)
            for res, changes in resources:
                self.record(changes, altered.get(res, RuntimeError("the broker did not answer for this resource")))

    def alter_quotas(self, changes: list[Change]) -> None:
        per_entity: dict[QuotaKey, list[Change]] = {}
        for c in changes:
            per_entity.setdefault(c.target, []).append(c)
        for entities in _chunks(list(per_entity.items())):
            entries = [(entity, [(_key(c), c.value if c.action == "set-quota" else None) for c in changes])
                       for entity, changes in entities]
            self.sent[:] = [c for _, changes in entities for c in changes]
            for (_, changes), error in zip(entities, self.gw.alter_quotas_many(entries, validate_only=self.dry_run)):
                self.record(changes, error)

    def alter_scram(self, scram: list[Change]) -> None:
        if scram and self.dry_run:  # AlterUserScramCredentials has no validate-only: the caller's Alter on the cluster
            for c in scram:
                self.record([c], self.refused.get(id(c)), None if id(c) in self.refused else "skipped", PERMITTED)
        # one request each (the broker refuses two alterations of one user in one request): a broker that does
        # not answer one stops the apply, rather than each of the rest waiting out --timeout
        for c in scram if not self.dry_run else ():
            upserts, removals = [], [(str(c.target), str(c.key))]
            if c.action == "upsert-scram":
                password = self.secret_of(c.value[1], c.where)
                self.revealed.append(password.reveal())
                upserts, removals = [(str(c.target), str(c.key), c.value[0], password)], []
            self.sent[:] = [c]
            self.record([c], self.gw.alter_scram(upserts, removals).get(c.target))

    def delete_topics(self, doomed: list[Change]) -> None:
        if doomed and self.dry_run:  # DeleteTopics has no validate-only: the caller's Delete on each topic
            for c in doomed:
                self.record([c], self.refused.get(id(c)), None if id(c) in self.refused else "skipped", PERMITTED)
        elif doomed:
            self.sent[:] = doomed
            deleted = self.gw.delete_topics([c.entity for c in doomed])
            for c in doomed:
                self.record([c], deleted.get(c.entity))

    def stopped(self, exc: BaseException) -> Stopped:
        """A request raised: the changes without an outcome are unknown (in the request in flight) or skipped."""
        said = _said(self.gw, exc, self.revealed)
        in_flight = {id(c) for c in self.sent} if not self.dry_run else set()  # validate-only: nothing may have taken
        for c in sorted((c for c in self.plan.changes if id(c) not in self.done), key=lambda c: STEPS[c.action]):
            state, why = ("unknown", f"sent, the apply stopped before the answer ({said}): plan again to see "
                                     "whether it took") \
                if id(c) in in_flight else ("skipped", f"not {'validated' if self.dry_run else 'sent'}: the "
                                                       f"{'dry run' if self.dry_run else 'apply'} stopped ({said})")
            self.done[id(c)] = Outcome.of(c, state, why)
        return Stopped(ChangeResult("ConfigApply", tuple(self.done.values()), self.dry_run), exc, said)


VALIDATED = frozenset({"create-topic", "add-partitions", "set", "delete", "set-quota", "remove-quota"})


def validated_first(gw: Gateway, plan: ConfigPlan, resolved: dict[SecretRef, Secret] | None = None,
                    refused: dict[int, Exception] | None = None) -> ChangeResult | None:
    """The plan sent in validate-only requests (SCRAM credentials and topic deletions have none: `refused` holds
    those of them the caller may not make): None when the brokers take every change; otherwise the result to
    report, nothing having been changed: the refused changes failed, the others skipped."""
    if not refused and not any(c.action in VALIDATED for c in plan.changes):
        return None
    try:
        checked = apply_plan(gw, plan, dry_run=True, resolved=resolved, refused=refused)
    except Stopped as stop:  # validate-only requests change nothing: no change is applied or unknown; a refusal
        why = f"not sent: the apply stopped in its validation ({stop.said})"  # found so far stays
        raise Stopped(ChangeResult("ConfigApply", tuple(o if o.status == "failed" else replace(
            o, status="skipped", error=why, exit_code=0) for o in stop.result.results), False),
                      stop.cause, stop.said) from stop.cause
    if not checked.failed:
        return None
    n = len(checked.failed)
    why = f"not applied: the validation refused {n} change{'s' * (n != 1)} of this plan"

    def told(o: Outcome) -> Outcome:  # a refusal, and what the cluster reached since the plan was made, stay
        return o if o.status == "failed" or (o.error or "").startswith("done already") else \
            replace(o, status="skipped", error=why)

    return ChangeResult("ConfigApply", tuple(told(o) for o in checked.results), False)


PERMITTED = "not validated: there is no validate-only request for it (the caller's operation is checked)"


def _said(gw: Gateway, exc: BaseException, revealed: Iterable[str] = ()) -> str:
    """What stopped an apply, in one line, any secret it sent masked."""
    from kafkactl.signals import interrupted_word

    try:
        said = _text(gw, exc) if isinstance(exc, Exception) else interrupted_word()
    except Exception:  # noqa: BLE001 - the error that stopped it is what counts
        said = type(exc).__name__
    for secret in sorted(revealed, key=len, reverse=True):
        said = said.replace(secret, "******") if secret else said
    return said


def checks_stopped(gw: Gateway, plan: ConfigPlan, exc: BaseException, dry_run: bool) -> Stopped:
    """The checks before the apply (the caller's operations) raised: every change skipped, none sent."""
    said = _said(gw, exc)
    why = f"not sent: the apply stopped in its checks ({said})"
    return Stopped(ChangeResult("ConfigApply", tuple(Outcome.of(c, "skipped", why)
                                                    for c in plan.changes), dry_run), exc, said)


def not_permitted(gw: Gateway, plan: ConfigPlan) -> dict[int, Exception]:
    """The SCRAM and topic-deletion changes (by id) the caller may not make, by the operations the brokers say it
    holds (KIP-430): those requests have no validate-only form. Where a broker does not supply them, none."""
    from kafkactl.acl.bitfield import decode
    from kafkactl.acl.model import AclOperation, ResourceType
    from kafkactl.errors import NotAuthorizedError

    out: dict[int, Exception] = {}
    scram = [c for c in plan.changes if c.action in ("upsert-scram", "delete-scram")]
    if scram:
        ops = decode(gw.describe_cluster(include_authorized_operations=True).authorized_operations,
                     ResourceType.CLUSTER)
        if ops.allows(AclOperation.ALTER) is False:
            error = NotAuthorizedError(f"{gw.who()} is not authorized to alter SCRAM credentials: needs Alter on "
                                       "the Cluster (its authorized operations there lack it)")
            out.update({id(c): error for c in scram})
    doomed = [c for c in plan.changes if c.action == "delete-topic"]
    if doomed:
        topics = {t.name: t for t in gw.topics(sorted({c.entity for c in doomed}), include_authorized_operations=True)}
        for c in doomed:
            t = topics.get(c.entity)
            if t is None:
                continue
            refusal = gw.item_error(t.error, "delete topics", needs=f"Delete on Topic:{c.entity}") if t.error else None
            if isinstance(refusal, NotAuthorizedError):
                out[id(c)] = refusal
            elif t.error is None and decode(t.authorized_operations, ResourceType.TOPIC).allows(
                    AclOperation.DELETE) is False:
                out[id(c)] = NotAuthorizedError(f"{gw.who()} is not authorized to delete topic {c.entity}: needs "
                                                "Delete on it (its authorized operations there lack it)")
    return out


def _done_already(c: Change, text: str) -> bool:
    """A create, a partition count or a deletion the cluster reached after the plan was read (by a run killed with
    its request in flight, or by someone else): the goal holds, nothing failed. Whatever else differs, the wait
    after apply finds."""
    import re

    if c.action == "create-topic":
        return text.startswith("TOPIC_ALREADY_EXISTS")
    if c.action == "delete-topic":  # deleted by someone else since
        return text.startswith("UNKNOWN_TOPIC_OR_PARTITION")
    if c.action == "delete-scram":
        return "RESOURCE_NOT_FOUND" in text
    if c.action == "add-partitions" and text.startswith("INVALID_PARTITIONS"):
        has = re.search(r"(?:currently|already) has (\d+) partition", text)
        return has is not None and int(has.group(1)) == c.value
    return False


def _exit_code(gw: Gateway, error: Any) -> int:
    from kafkactl.gateway import ErrorInfo

    if isinstance(error, ErrorInfo):
        error = gw.code_exception(error.code, error.message)
    return int(gw.translate(error, "apply").exit_code) if isinstance(error, Exception) else 1


def _text(gw: Gateway, error: Any, c: Change | None = None) -> str:
    """One line; a broker's message may quote the value it refused, so a secret's value is scrubbed from it. For
    a change `c` refused for want of an ACL, the ACL it needs."""
    from kafkactl.gateway import ErrorInfo
    from kafkactl.redact import scrub

    if isinstance(error, ErrorInfo):
        text = f"{error.name}: {error.message}" if error.message else error.name
    elif isinstance(error, Exception):
        what, needs = _needs(c) if c is not None else ("apply", None)
        text = gw.translate(error, what, needs=needs).message
    else:
        text = str(error)
    return scrub(text)


def _needs(c: Change) -> tuple[str, str | None]:
    """(what the request does, the ACL it needs) for a change sent in a request whose errors are exceptions."""
    from kafkactl.configs.ops import alter_needs

    if c.action in ("set", "delete"):
        return "alter configs", alter_needs(c.section, str(c.entity))
    if c.action in ("set-quota", "remove-quota"):
        return "alter client quotas", "AlterConfigs on the Cluster"
    if c.action in ("upsert-scram", "delete-scram"):
        return "alter SCRAM credentials", "Alter on the Cluster"
    return "apply", None


def _key(c: Change) -> str:
    """The key a config or quota change sets or removes (only a topic's creation or deletion has none)."""
    assert c.key is not None, c
    return c.key


def _chunks(items: list[T], size: int = CHUNK) -> Iterable[list[T]]:
    for i in range(0, len(items), size):
        yield items[i:i + size]
