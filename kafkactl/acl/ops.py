"""ACL operations: list, create (reporting created / already existed / failed), delete exactly what was listed."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

from kafkactl.acl.client import AclClient, ErrorLike
from kafkactl.acl.model import AclBinding, AclFilter, AclOperation
from kafkactl.acl.visibility import Confirmation, await_visible, lookup_filters
from kafkactl.errors import BrokerError, KafkactlError, NotAuthorizedError, PartialFailure, UsageError
from kafkactl.results import ChangeResult

# CreateAcls and DeleteAcls refuse more than 10,000 records per request (kafka-semantics §5)
BROKER_LIMIT = 10_000
CREATE_CHUNK = 5_000

Progress = Callable[[int], None]
T = TypeVar("T")
INVALID_REQUEST = 42
# ACL operations newer than some brokers kafkactl supports (the sandbox's versions, tests/integration/test_versions.py)
# how long create and delete wait for every live broker to show the change (as apply's barrier): a broker that
# stopped is waited for until the cluster stops listing it (its session times out, 9 s by default)
BARRIER_S = 60.0
OPERATION_SINCE = {AclOperation.TWO_PHASE_COMMIT: " (Kafka 4.0 and older lack it; KIP-939)"}


@dataclass(frozen=True)
class BindingResult:
    COLUMNS: ClassVar[tuple[str, ...]] = AclBinding.COLUMNS + ("status", "error")
    binding: AclBinding
    status: str  # created | exists | deleted | gone | would-create | would-delete | failed
    error: str | None = None
    error_code: int | None = None

    def __getattr__(self, name: str) -> Any:
        # the binding's fields read as this row's own columns
        return getattr(object.__getattribute__(self, "binding"), name)

    def to_json(self) -> dict[str, Any]:
        return {**self.binding.to_json(), "status": self.status, "error": self.error, "error_code": self.error_code}


def _failed(b: AclBinding, err: ErrorLike) -> BindingResult:
    return BindingResult(b, "failed", f"{err.message} ({err.name})", err.code)


def chunks(items: Sequence[T], size: int) -> Iterable[Sequence[T]]:
    assert size <= BROKER_LIMIT
    for i in range(0, len(items), size):
        yield items[i:i + size]


def list_acls(gw: AclClient, filters: Sequence[AclFilter]) -> list[AclBinding]:
    seen: set[AclBinding] = set()
    for f in filters:
        seen.update(gw.describe_acls(f))
    return sorted(seen)


def _why(why: str) -> str:
    return f" ({why})" if why else ""


def _lookup_filters(bindings: Sequence[AclBinding]) -> list[AclFilter]:
    return lookup_filters(bindings)


def existing_among(gw: AclClient, bindings: Sequence[AclBinding]) -> set[AclBinding]:
    """Which of these bindings the cluster already has (CreateAcls itself reports success for both)."""
    wanted = set(bindings)
    return {b for f in _lookup_filters(bindings) for b in gw.describe_acls(f, trust_empty=True) if b in wanted}


def create_acls(gw: AclClient | None, bindings: Sequence[AclBinding], dry_run: bool = False,
                progress: Progress | None = None) -> ChangeResult:
    """A dry run reads the cluster (an ACL already there is `exists`; a caller who may not read ACLs, and so may not
    create them, is told) and creates nothing; with `gw` None it sends nothing at all."""
    bindings = sorted(set(bindings))
    for b in bindings:
        if not b.is_concrete():
            raise UsageError(f"cannot create a non-concrete ACL: {b.describe()}")
    if dry_run and gw is None:
        return ChangeResult("AclCreateResult", tuple(BindingResult(b, "would-create") for b in bindings), dry_run=True)
    assert gw is not None, "only a dry run goes without a gateway"
    try:
        existing = existing_among(gw, bindings)
    except NotAuthorizedError:
        # Alter on the cluster implies Describe, so this caller could not create them either
        raise NotAuthorizedError(f"{gw.who()} is not authorized to create ACLs: "
                                 "needs Alter on the Cluster (CLUSTER_AUTHORIZATION_FAILED)") from None
    if dry_run:
        return ChangeResult("AclCreateResult", tuple(BindingResult(b, "exists" if b in existing else "would-create")
                                                     for b in bindings), dry_run=True)
    # Every binding is sent, existing ones too: the read above may be stale, and CreateAcls is
    # idempotent (an existing ACL reports success and writes no record). The read only labels them.
    outcome: dict[AclBinding, BindingResult] = {}
    for chunk in chunks(bindings, CREATE_CHUNK):
        for b, err in zip(chunk, gw.create_acls(chunk)):
            outcome[b] = _failed(b, err) if err else BindingResult(b, "exists" if b in existing else "created")
        if progress:
            progress(len(chunk))
    result = ChangeResult("AclCreateResult", tuple(outcome[b] for b in bindings))
    _raise_on_failures(gw, result, "create ACLs", "Alter on the Cluster")
    seen = _confirm(lambda: await_visible(gw, [r.binding for r in result.results if r.status == "created"], [],
                                          timeout=BARRIER_S, patience=_patience(gw)), result, "created")
    if not seen:
        raise _unconfirmed(result, seen, "created", "do not list them yet")
    return result


def _patience(gw: AclClient) -> float | None:
    """How long the barrier waits when no broker can be asked at all: the client's --timeout."""
    profile = getattr(gw, "profile", None)
    return getattr(profile, "timeout", None)


def _confirm(wait: Callable[[], Confirmation], result: ChangeResult, done: str) -> Confirmation:
    """The barrier after a create or delete; interrupted (Ctrl-C, SIGTERM, SIGHUP) while it waits, the change is
    made all the same: said, with the per-binding result on stdout."""
    try:
        return wait()
    except KeyboardInterrupt:
        from kafkactl.exitcodes import ExitCode
        from kafkactl.signals import interrupted_word

        err = PartialFailure(f"{interrupted_word()} while waiting for every broker to show them: the ACLs were "
                             f"{done}", result=result)
        err.exit_code = ExitCode.INTERRUPTED
        raise err from None


@dataclass(frozen=True)
class DeleteRoot:
    """A root filter, everything it matches now (`universe`), and which of those to delete."""

    filter: AclFilter
    universe: tuple[AclBinding, ...]
    delete: tuple[AclBinding, ...]


@dataclass(frozen=True)
class DeletePreview:
    roots: tuple[DeleteRoot, ...]

    @property
    def bindings(self) -> list[AclBinding]:
        return sorted({b for r in self.roots for b in r.delete})

    @classmethod
    def exactly(cls, delete: Sequence[AclBinding], universe: Sequence[AclBinding]) -> DeletePreview:
        """Delete these bindings and nothing else; `universe` must be every ACL the cluster holds now."""
        return cls((DeleteRoot(AclFilter(), tuple(universe), tuple(delete)),))


def refresh_preview(gw: AclClient, preview: DeletePreview) -> DeletePreview:
    """The same preview against a fresh listing: what was deleted meanwhile drops out, and ACLs created since
    the first listing join each root's universe, so the filters planned from it steer around them."""
    roots = []
    for root in preview.roots:
        now = tuple(gw.describe_acls(root.filter))
        present = set(now)
        roots.append(DeleteRoot(root.filter, now, tuple(b for b in root.delete if b in present)))
    return DeletePreview(tuple(roots))


def is_every_acl(gw: AclClient, bindings: Sequence[AclBinding]) -> bool:
    """Whether these bindings are every ACL the cluster holds (and there is at least one)."""
    every = set(gw.describe_acls(AclFilter(), bulk=True))  # every ACL: the bulk reader (see describe_acls)
    return bool(every) and every <= set(bindings)


def preview_delete(gw: AclClient, filters: Sequence[AclFilter]) -> DeletePreview:
    """Everything the operator's filters match now is to be deleted."""
    roots = []
    for f in filters:
        matched = tuple(gw.describe_acls(f))
        roots.append(DeleteRoot(f, matched, matched))
    return DeletePreview(tuple(roots))


# up to this many bindings a delete sends one exact filter each (the controller tests each filter against every ACL
# it holds: 2,000 x 100,000 ACLs is about a second); beyond, filters refined from the operator's own (deletes.py)
EXACT_DELETES_UP_TO = 2000


def delete_acls(gw: AclClient, preview: DeletePreview, dry_run: bool = False,
                progress: Progress | None = None) -> ChangeResult:
    """Delete what the preview listed, through filters refined from the operator's own (see deletes.py)."""
    from kafkactl.acl.deletes import PlannedFilter, batch, plan_filters

    wanted = preview.bindings
    if dry_run:
        return ChangeResult("AclDeleteResult", tuple(BindingResult(b, "would-delete") for b in wanted), dry_run=True)
    if len(wanted) <= EXACT_DELETES_UP_TO:
        # one fully specified filter per binding: nothing the listing did not show can match
        planned = [PlannedFilter(b.to_filter(), (b,)) for b in wanted]
    else:
        planned, assigned = [], set()
        for root in preview.roots:
            mine = [b for b in root.delete if b not in assigned]
            assigned.update(mine)
            planned += plan_filters(root.filter, mine, root.universe)
    outcome: dict[AclBinding, BindingResult] = {}
    extra: dict[AclBinding, BindingResult] = {}
    for request in batch(planned):
        for p, (matched, err) in zip(request, gw.delete_acls([p.filter for p in request])):
            if err:
                outcome.update({b: _failed(b, err) for b in p.expected})
                continue
            hit = set(matched)
            outcome.update({b: BindingResult(b, "deleted" if b in hit else "gone") for b in p.expected})
            # created after the listing and matching the operator's filter: deleted, and said so
            extra.update({b: BindingResult(b, "deleted-unlisted") for b in hit - set(p.expected)})
        if progress:
            progress(sum(len(p.expected) for p in request))
    result = ChangeResult("AclDeleteResult", tuple(outcome[b] for b in wanted) + tuple(extra[b] for b in sorted(extra)))
    _raise_on_failures(gw, result, "delete ACLs", "Alter on the Cluster")
    seen = _confirm(lambda: await_visible(gw, [], [r.binding for r in result.results
                                                   if r.status.startswith("deleted")],
                                          timeout=BARRIER_S, patience=_patience(gw)), result, "deleted")
    if not seen:
        raise _unconfirmed(result, seen, "deleted", "still list some of them")
    return result


def _unconfirmed(result: ChangeResult, seen: Confirmation, done: str, lagging: str) -> KafkactlError:
    """The change is made (the controller took it) but some brokers do not show it yet: the per-binding result still
    goes to stdout; exit 4 when a broker did not answer, else 1."""
    one = len(seen.missing) == 1
    verb = lagging.replace("do not", "does not").replace("still list", "still lists") if one else lagging
    message = (f"the ACLs were {done} but {', '.join(seen.missing)} {verb} after {BARRIER_S:g} s (every broker "
               f"authorizes by its own copy); check again shortly{_why(seen.why)}")
    return seen.error(result, message)


def _raise_on_failures(gw: AclClient, result: ChangeResult, what: str, needs: str) -> None:
    failed = result.failed
    if not failed:
        return
    codes = {r.error_code for r in failed}
    first = failed[0]
    if first.error_code == INVALID_REQUEST and "invalid operation" in (first.error or "").lower():
        op = first.binding.operation
        why = (f"this broker does not know the {op.pascal} operation{OPERATION_SINCE.get(op, '')}; upgrade the "
               "broker or leave the operation out")
        if len(failed) < len(result.results):  # the broker took the others: say which, exit 5
            raise PartialFailure(f"{len(failed)} of {len(result.results)} ACL bindings failed: {why}", result=result)
        raise BrokerError(f"cannot {what}: {why}")
    if len(failed) == len(result.results) and len(codes) == 1:
        # nothing worked, for one reason (e.g. not authorized): report it with its own exit code
        message = (first.error or "").rsplit(" (", 1)[0]  # "message (NAME)": code_error names it once
        raise gw.code_error(first.error_code or -1, message, what, needs=needs)
    raise PartialFailure(f"{len(failed)} of {len(result.results)} ACL bindings failed; first: "
                         f"{failed[0].binding.describe()}: {failed[0].error}", result=result)


def resource_summary(bindings: Sequence[AclBinding]) -> str:
    n_res = len({b.resource for b in bindings})
    return (f"{len(bindings)} ACL binding{'s' if len(bindings) != 1 else ''} on {n_res} "
            f"resource{'s' if n_res != 1 else ''}")

