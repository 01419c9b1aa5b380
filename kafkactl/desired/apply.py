"""Apply a plan: phases in order, each confirmed on the broker before the next one starts.

Creates go in chunks well under CreateAcls' 10,000 limit. Deletes use one fully specified filter per
binding (a None/ANY field would match more than planned), in small batches with at most two requests in
flight per cluster: the controller tests every filter against every ACL on one thread. Creating an
existing ACL and deleting a missing one are no-ops, so a re-run after any interruption converges.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence, Set
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from kafkactl.acl.model import AclBinding
from kafkactl.acl.ops import chunks
from kafkactl.acl.visibility import Confirmation, await_visible, left_list
from kafkactl.desired.change import Outcome
from kafkactl.desired.formats.flat import flat_row
from kafkactl.desired.plan import PHASE_NAMES, PHASES, Plan, PlanRow
from kafkactl.errors import BrokerError, PartialFailure, UnreachableError
from kafkactl.results import API_VERSION

if TYPE_CHECKING:
    from concurrent.futures import Future

    from kafkactl.desired.report import Report
    from kafkactl.gateway import ErrorInfo, Gateway

T = TypeVar("T")
R = TypeVar("R")

CREATE_CHUNK = 2_000
DELETE_BATCH = 200
IN_FLIGHT = 2


@dataclass(frozen=True)
class ApplyRow:
    COLUMNS: ClassVar[tuple[str, ...]] = ("cluster", "phase", "action", "status", "count")
    cluster: str
    phase: int
    action: str
    status: str
    count: int


@dataclass
class ApplyResult:
    ROWS: ClassVar[str] = "summary"
    summary: list[ApplyRow] = field(default_factory=list)
    failures: list[dict[str, Any]] = field(default_factory=list)
    stopped_at: str | None = None
    dry_run: bool = False
    unconfirmed: str | None = None  # a phase applied and not confirmed, and why
    # per phase: how many brokers confirmed it and how long the slowest took (the barrier, see acl/visibility.py)
    confirmations: list[dict[str, Any]] = field(default_factory=list)

    def confirmed(self, cluster: str, phase: int, seen: Confirmation) -> None:
        if seen.slowest is not None:
            node, seconds = seen.slowest
            self.confirmations.append({"cluster": cluster, "phase": phase, "brokers": seen.brokers,
                                       "slowest_broker": node, "slowest_s": round(seconds, 3),
                                       "left": list(seen.left)})

    def slowest(self) -> str | None:
        """The slowest confirmation of the apply, said in words (None when nothing needed confirming)."""
        if not self.confirmations:
            return None
        c = max(self.confirmations, key=lambda c: c["slowest_s"])
        left = sorted({b for c in self.confirmations for b in c.get("left", ())})
        return (f"every phase confirmed by every live broker ({c['brokers']} in {c['cluster']}); slowest: broker "
                f"{c['slowest_broker']}, {c['slowest_s']:.2f} s after phase {c['phase']} ({PHASE_NAMES[c['phase']]})"
                + (f"; {left_list(left)}" if left else ""))

    @property
    def changed(self) -> bool:
        """Whether anything was created or deleted so far."""
        return any(r.status in ("created", "deleted") for r in self.summary)

    @property
    def failed(self) -> int:
        return sum(r.count for r in self.summary if r.status == "failed")

    def to_json(self) -> dict[str, Any]:
        return {"api_version": API_VERSION, "kind": "AclApplyResult", "dry_run": self.dry_run,
                "stopped_at": self.stopped_at, "unconfirmed": self.unconfirmed,
                "summary": [r.__dict__ for r in self.summary],
                "confirmations": self.confirmations, "failures": self.failures[:100]}


PhaseHook = Callable[[str, int], None]


def apply(plan: Plan, gateways: dict[str, Gateway], progress: Callable[[int], None] | None = None,
          on_phase: PhaseHook | None = None, report: Report | None = None, dry_run: bool = False) -> ApplyResult:
    result = ApplyResult(dry_run=dry_run)
    statuses: dict[AclBinding, str] = {}  # the current phase's outcomes so far
    started: list[tuple[str, int]] = []  # the phases begun
    sent: set[AclBinding] = set()  # the current phase's bindings handed to a request
    try:
        _apply(plan, gateways, result, statuses, started, progress, on_phase, report, dry_run, sent)
    except BaseException as exc:  # an error or Ctrl-C part way: the report still holds a line for every binding
        if not dry_run:
            _record_stop(plan, started, statuses, report, sent, result)
        if isinstance(exc, KeyboardInterrupt):  # (Ctrl-C, SIGTERM, SIGHUP)
            raise interrupted(result, plan.changes) from None
        raise
    return result


def interrupted(result: ApplyResult, total: int) -> PartialFailure:
    """Ctrl-C (SIGTERM, SIGHUP) part way: how many changes are made (counted, the phase in flight included), said;
    exit 130 (the root makes it 143, 129 for the signals)."""
    from kafkactl.exitcodes import ExitCode
    from kafkactl.limits import plural
    from kafkactl.signals import interrupted_word

    made = sum(r.count for r in result.summary if r.status in ("created", "deleted"))
    if made >= total:
        said = (f"{interrupted_word()} once all {plural(total, 'change')} were made, before every broker confirmed "
                "them: plan again to check")
    else:
        said = (f"{interrupted_word()}: {made:,} of {plural(total, 'change')} made before it stopped (a request in "
                "flight may have made more); applying the same plan again finishes the rest")
    err = PartialFailure(said, result=result)
    err.exit_code = ExitCode.INTERRUPTED
    return err


def _record_stop(plan: Plan, started: list[tuple[str, int]], statuses: dict[AclBinding, str],
                 report: Report | None, sent: set[AclBinding], result: ApplyResult) -> None:
    """The bindings an apply that stopped did not record: of the phase it stopped in, `unknown` if a request held
    it (it may have been on the wire), else `skipped`; of the phases after it, `skipped` (never sent). Into the
    report, a line each; into the result's summary, counted (with the outcomes so far of the phase it stopped in)."""
    from collections import Counter

    order = [(c.cluster, p) for c in plan.clusters for p in PHASES]
    at = order.index(started[-1]) if started else -1
    if started and not any((r.cluster, r.phase) == started[-1] for r in result.summary):
        cluster, phase = started[-1]
        for status, n in sorted(Counter(statuses.values()).items()):
            result.summary.append(ApplyRow(cluster, phase, PHASES[phase][0], status, n))
    out = []
    counts: Counter[tuple[str, int, str, str]] = Counter()
    for c in plan.clusters:
        for r in c.rows:
            i = order.index((c.cluster, r.phase))
            if i == at and r.binding not in statuses and r.binding in sent:
                status, why = "unknown", "the apply stopped before its answer"
            elif i > at or (i == at and r.binding not in statuses):
                status, why = "skipped", "the apply stopped before it was sent"
            else:
                continue
            counts[(r.cluster, r.phase, r.action, status)] += 1
            out.append(acl_outcome(r.cluster, r.phase, r.action, flat_row(r.binding), status, why))
    result.summary += [ApplyRow(*key, n) for key, n in sorted(counts.items())]
    if report is not None:
        report.write(out)


def _apply(plan: Plan, gateways: dict[str, Gateway], result: ApplyResult, statuses: dict[AclBinding, str],
           started: list[tuple[str, int]], progress: Callable[[int], None] | None, on_phase: PhaseHook | None,
           report: Report | None, dry_run: bool, sent: set[AclBinding]) -> None:
    for cp in plan.clusters:
        gw = gateways[cp.cluster]
        taking = plan.lockout.get(cp.cluster, set())
        for phase in PHASES:
            # the changes taking the caller's own access go last (the caller cannot go on after them)
            rows = sorted((r for r in cp.rows if r.phase == phase), key=lambda r: r.binding in taking)
            action = PHASES[phase][0]
            if dry_run:
                if rows:
                    result.summary.append(ApplyRow(cp.cluster, phase, action, "would-" + action.lower(), len(rows)))
                    if report is not None:  # (as a configs dry run's: a line per change, nothing sent)
                        report.write([acl_outcome(r.cluster, r.phase, r.action, flat_row(r.binding), "skipped",
                                                  "dry run: not sent") for r in rows])
                continue
            changed_before = result.changed
            errors: dict[AclBinding, ErrorInfo] = {}
            statuses.clear()
            sent.clear()
            started.append((cp.cluster, phase))
            _run_phase(gw, action, rows, progress, report, errors, statuses, sent)
            for status in sorted(set(statuses.values())):
                result.summary.append(ApplyRow(cp.cluster, phase, action, status,
                                               sum(1 for s in statuses.values() if s == status)))
            failed = [r for r in rows if statuses.get(r.binding) == "failed"]
            if failed:
                result.failures += [{"cluster": cp.cluster, "phase": phase, **flat_row(r.binding)} for r in failed]
                causes = {(e.code, e.message) for e in errors.values()}
                raise phase_failure(gw, result, cp.cluster, phase, len(failed), len(rows), changed_before, causes)
            # the barrier: the broker that authorizes must list this phase's outcome before the next begins
            done = [r.binding for r in rows if statuses.get(r.binding) in ("created", "deleted", "gone")]
            present = done if action == "CREATE" else []
            absent = done if action == "DELETE" else []
            batch = CREATE_CHUNK if action == "CREATE" else DELETE_BATCH
            if taking and any(r.binding in taking for r in rows):
                # (they took the Describe that listing ACLs needs, or the Alter: nothing comes after them)
                result.unconfirmed = (f"{cp.cluster} phase {phase}: applied, not confirmed: the changes taking the "
                                      "caller's own access on the cluster came last (--allow-lockout)")
            elif present or absent:
                seen = await_visible(gw, present, absent, timeout=60, sample_every=batch, patience=gw.profile.timeout)
                if not seen:
                    raise unconfirmed(result, cp.cluster, phase, " within 60 s", seen)
                result.confirmed(cp.cluster, phase, seen)
            if on_phase:
                on_phase(cp.cluster, phase)


# ------------------------------------------------------------------ how a phase stops an apply (both engines)


def phase_failure(gw: Gateway, result: ApplyResult, cluster: str, phase: int, failed: int, total: int,
                  changed_before: bool, causes: Set[tuple[int | None, str | None]]) -> Exception:
    """The error that stops an apply at a failed phase: the one reason's own (exit 3 when not authorized) when
    nothing was changed and every binding failed for it, else a partial failure (exit 5). The result, printed
    either way, says where it stopped."""
    result.stopped_at = f"{cluster} phase {phase} ({PHASE_NAMES[phase]})"
    codes = {code for code, _ in causes}
    if not changed_before and failed == total and len(codes) == 1 and None not in codes:
        code, message = min(causes, key=lambda c: str(c))
        err = gw.code_error(code or -1, message, f"apply the plan ({result.stopped_at})", needs="Alter on the Cluster")
        err.result = result
        return err
    from kafkactl.limits import plural

    return PartialFailure(f"{plural(failed, 'binding')} failed in {result.stopped_at}; later phases were not started "
                          "(re-run apply once the cause is fixed: it converges)", result=result)


def unconfirmed(result: ApplyResult, cluster: str, phase: int, waited: str = "",
                seen: Confirmation | None = None) -> Exception:
    """The error that stops an apply whose phase a broker did not confirm (the next would start too early)."""
    result.stopped_at = f"{cluster} phase {phase} ({PHASE_NAMES[phase]})"
    who = ", ".join(seen.missing) if seen is not None and seen.missing else "the broker"
    why = f" ({seen.why})" if seen is not None and seen.why else ""
    # exit 4 when the brokers could not be asked (the network, a broker down), 1 when they answered without it
    kind = UnreachableError if seen is not None and seen.why else BrokerError
    err = kind(f"{result.stopped_at}: {who} did not confirm the changes{waited}{why}; later phases were "
               "not started (re-run apply to converge)")
    err.result = result  # printed with the error (cli.root)
    return err


def _run_phase(gw: Gateway, action: str, rows: Sequence[PlanRow], progress: Callable[[int], None] | None,
               report: Report | None, errors: dict[AclBinding, ErrorInfo] | None = None,
               statuses: dict[AclBinding, str] | None = None, sent: set[AclBinding] | None = None
               ) -> dict[AclBinding, str]:
    """Each binding's outcome, into `statuses` as it is known (once its report line is written); `sent`: the
    bindings handed to a request so far (an apply that stops tells them, `unknown`, from those never sent)."""
    bindings = [r.binding for r in rows]
    statuses = {} if statuses is None else statuses
    sent = set() if sent is None else sent
    if not bindings:
        return statuses

    def noted(batches: Iterable[Sequence[AclBinding]]) -> Iterator[Sequence[AclBinding]]:
        for batch in batches:
            sent.update(batch)  # (pipelined submits a batch as soon as it has it)
            yield batch

    if action == "CREATE":
        # two requests in flight: the controller appends one batch while the next is on the wire
        for chunk, errs in pipelined(_resent(gw.create_acls), noted(chunks(bindings, CREATE_CHUNK))):
            _record(statuses, report, rows[0], chunk, errs, "created", errors=errors)
            if progress:
                progress(len(chunk))
        return statuses

    def send(chunk: Sequence[AclBinding]) -> list[tuple[list[AclBinding], ErrorInfo | None]]:
        return gw.delete_acls([b.to_filter() for b in chunk])

    for chunk, results in pipelined(_resent(send), noted(chunks(bindings, DELETE_BATCH))):
        errs = [err if err else None for _, err in results]
        gone = {b for b, (matched, err) in zip(chunk, results) if not err and not matched}
        _record(statuses, report, rows[0], chunk, errs, "deleted", gone, errors=errors)
        if progress:
            progress(len(chunk))
    return statuses


def _resent(fn: Callable[[T], R], attempts: int = 3) -> Callable[[T], R]:
    """fn, sent again when the broker it went to stopped answering (another takes it: the client avoids a broker
    whose connection failed). Creating an existing ACL and deleting a missing one change nothing, so a request
    that did reach the controller before its broker stopped is safe to send twice."""
    import time

    def call(batch: T) -> R:
        for attempt in range(attempts - 1):
            try:
                return fn(batch)
            except UnreachableError:
                time.sleep(0.5 * (attempt + 1))
        return fn(batch)  # the last attempt: its error is raised
    return call


def pipelined(fn: Callable[[T], R], batches: Iterable[T], in_flight: int = IN_FLIGHT) -> Iterator[tuple[T, R]]:
    """(batch, fn(batch)) in order, with at most `in_flight` requests outstanding. Nothing is queued beyond
    that, so an interrupt (Ctrl-C) stops after the requests already on the wire: a re-run converges."""
    pending: deque[tuple[T, Future[R]]] = deque()
    pool = ThreadPoolExecutor(max_workers=in_flight)
    stopped = False
    try:
        for batch in batches:
            pending.append((batch, pool.submit(fn, batch)))
            if len(pending) >= in_flight:
                batch0, fut = pending.popleft()
                yield batch0, fut.result()
        while pending:
            batch0, fut = pending.popleft()
            yield batch0, fut.result()
    except (KeyboardInterrupt, GeneratorExit):
        stopped = True
        raise
    finally:
        # stopped (Ctrl-C, SIGTERM, SIGHUP, or the caller's own failure): the requests on the wire are not waited
        # for, their bindings are reported unknown; waiting on a frozen broker held the report and the exit for the
        # client's timeout, three times over with the resends (30 s: a pod's whole grace period before SIGKILL)
        pool.shutdown(wait=not stopped, cancel_futures=True)


def _record(statuses: dict[AclBinding, str], report: Report | None, row: PlanRow, chunk: Sequence[AclBinding],
            errs: Sequence[ErrorInfo | None], ok: str, gone: Set[AclBinding] = frozenset(),
            errors: dict[AclBinding, ErrorInfo] | None = None) -> None:
    out = []
    known = {}
    for b, err in zip(chunk, errs):
        known[b] = "failed" if err else ("gone" if b in gone else ok)
        if err and errors is not None:
            errors[b] = err
        if report is not None:
            out.append(acl_outcome(row.cluster, row.phase, row.action, flat_row(b), known[b],
                                   f"{err.message} ({err.name})" if err else None))
    if report is not None:
        report.write(out)  # first: a binding with a status has its line (a stop records the others)
    statuses.update(known)


def acl_outcome(cluster: str, phase: int, action: str, fields: dict[str, str], status: str,
                error: str | None) -> Outcome:
    """A binding's outcome as every report records it: the common change fields, its phase and flat fields beside."""
    from kafkactl.desired.state import flat_binding

    change = PlanRow(cluster, phase, action, flat_binding("(report)", fields, supported_only=False)).as_change()
    return Outcome(change, status, error, {"phase": phase, **fields})

