"""`configs plan` and `configs apply` from start to end, for any front end: read and check the files (or a saved
plan), plan against the cluster, apply, write the report, wait until the brokers show the changes, and turn
failed changes into the one error with the right exit code. The command only confirms, shows progress and
renders."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NoReturn

from kafkactl.desired.configs.desired import DesiredConfigs
from kafkactl.desired.configs.plan import ConfigPlan
from kafkactl.desired.report import Report
from kafkactl.errors import PartialFailure, UsageError
from kafkactl.exitcodes import ExitCode
from kafkactl.gateway import Gateway
from kafkactl.limits import plural
from kafkactl.results import ChangeResult

if TYPE_CHECKING:
    from kafkactl.desired.configs.desired import SecretRef
    from kafkactl.redact import Secret


@dataclass(frozen=True)
class Planned:
    desired: DesiredConfigs
    plan: ConfigPlan
    delete_topics: bool  # as given, or as the saved plan was made

    def summary(self) -> str:
        counts = Counter(c.action for c in self.plan.changes)
        shown = ", ".join(f"{n} {a}" for a, n in sorted(counts.items())) or "none"
        return (f"{plural(len(self.plan.changes), 'change')} ({shown}) in {', '.join(self.plan.sections)}; "
                f"{self.plan.deletions} deletion{'s' * (self.plan.deletions != 1)}; current state "
                f"{self.plan.fingerprint}")


def plan_files(gateway: Callable[[], Gateway], files: list[str], delete_topics: bool, max_deletes: str | None,
               said: Callable[[Planned], None] = lambda _: None, allow_lockout: bool | None = None,
               files_read: Callable[[], object] = lambda: None) -> Planned:
    """Every file read and checked before the cluster is asked anything (`gateway` is called only then); then the
    plan, within --max-deletes, handed to `said` (its warnings and notes are shown before anything refuses it).
    A plan that locks out the caller or a super user is refused unless `allow_lockout`; None (a plan only
    shown): it is said as a warning."""
    from kafkactl.desired.configs.desired import read_desired
    from kafkactl.desired.configs.plan import (
        LOCKOUT_FLAG,
        check_lockout,
        check_max_deletes,
        lockouts,
        make_plan,
        read_current,
        unknown_config_names,
    )

    desired = read_desired(files)
    gw = gateway()
    # every file is read: the State files (and the places of their secrets), and, resolving the client, the
    # contexts file and client properties; the cluster is not asked anything yet
    files_read()
    cur = read_current(gw, desired)
    plan = make_plan(desired, cur, delete_topics)
    warnings, notes = unknown_config_names(gw, desired, cur)
    plan.warnings[:0], plan.notes[:0] = warnings, notes
    if allow_lockout is None:
        plan.warnings += [f"{w}: apply refuses it without {LOCKOUT_FLAG}" for w in lockouts(plan, gw.profile)]
    check_max_deletes(plan, max_deletes, applying=allow_lockout is not None)  # (a plan shown changes nothing)
    planned = Planned(desired, plan, delete_topics)
    said(planned)
    if allow_lockout is not None:
        check_lockout(plan, gw.profile, allow_lockout)
    return planned


def plan_for_apply(gateway: Callable[[], Gateway], files: list[str] | None, plan_file: str | None,
                   delete_topics: bool, max_deletes: str | None,
                   said: Callable[[Planned], None] = lambda _: None, allow_lockout: bool = False,
                   files_read: Callable[[], object] = lambda: None) -> Planned:
    """The plan `configs apply` carries out: made from the files, or the saved plan made again from the files it
    names, refused (exit 2) when they or the cluster changed since it was saved."""
    if bool(files) == bool(plan_file):
        raise UsageError("configs apply takes State files or --plan with a saved plan: give one of them")
    if not plan_file:
        return plan_files(gateway, list(files or ()), delete_topics, max_deletes, said, allow_lockout, files_read)
    from kafkactl.desired.configs.plan import check_saved, load_saved

    if delete_topics:
        raise UsageError("--delete-topics and --plan: a saved plan keeps the choice it was made with")
    saved_files, saved_delete, fingerprint, changes, cluster_id = load_saved(plan_file)
    planned = plan_files(gateway, saved_files, saved_delete, max_deletes, said, allow_lockout, files_read)
    check_saved(planned.plan, fingerprint, changes, plan_file, cluster_id)
    return planned


def apply(gw: Gateway, planned: Planned, dry_run: bool, report: Report | None,
          advance: Callable[[int], None] | None = None) -> ChangeResult:
    """Apply the plan and write the per-change report. A failed change raises PartialFailure carrying the result;
    when every change failed for one reason, with that reason's own exit code.

    Before anything is changed, the plan goes to the brokers once in validate-only requests (what --dry-run
    sends): a config name or value a broker refuses, or a change the caller may not make, stops the apply with
    nothing changed, rather than after every other change has been made. A dry run that finds a refusal exits
    with the same code as that apply would."""
    from kafkactl.desired.configs.apply import Stopped, apply_plan, checks_stopped, not_permitted, validated_first

    resolved: dict[SecretRef, Secret] = {}  # each secret read once: what was validated is what is sent
    try:
        try:
            may_not = not_permitted(gw, planned.plan)
        except (Exception, KeyboardInterrupt) as exc:
            raise checks_stopped(gw, planned.plan, exc, dry_run) from exc
        refused = None if dry_run else validated_first(gw, planned.plan, resolved, may_not)
        result = refused or apply_plan(gw, planned.plan, dry_run, advance, resolved, may_not)
    except Stopped as stop:
        _stopped(gw, stop, dry_run, _write_report(report, stop.result))
    unwritten = _write_report(report, result)
    if unwritten:
        err = PartialFailure(f"the report was not written: {unwritten}", result=result)
        err.exit_code = ExitCode.ERROR
        raise err
    failed = result.failed
    if failed:
        # a resource's changes go in one request and fail together: the first named is one the error names
        first = next((o for o in failed if o.key and o.error and o.key in o.error), failed[0])
        # (a comma, not a colon, after the key: "ssl.key.password: cannot" reads as an assignment to the scrub)
        n_of = f"{len(failed)} of {plural(len(result.results), 'change')}"
        named = f"first: {first.section} {first.entity} {first.key or first.action}, {first.error}"
        codes = {o.exit_code for o in failed}
        if refused or dry_run:  # a dry run exits as the apply would: nothing was changed either way
            err = PartialFailure(f"{'dry run' if dry_run else 'nothing applied'}: the validation refused {n_of}; "
                                 f"{named}", result=result)
            err.exit_code = codes.pop() if len(codes) == 1 else ExitCode.ERROR  # not partial: nothing changed
        else:
            err = PartialFailure(f"{n_of} failed; {named}", result=result)
            if len(failed) == len(result.results) and len(codes) == 1:
                err.exit_code = codes.pop()  # nothing took: not a partial failure, but the failure's own code
        raise err
    return result


def _write_report(report: Report | None, result: ChangeResult) -> str | None:
    """Write the outcomes; why they could not be, if so (the changes are made: their result is not to be lost)."""
    return report.write(result.results) if report is not None else None


def _stopped(gw: Gateway, stop: Any, dry_run: bool, unwritten: str | None) -> NoReturn:
    """A request raised part way: Ctrl-C exits 130; an error keeps its own exit code when no change is known to
    have been applied (the checks, the validation pass, a dry run, the first request), else it is a partial
    failure. The result goes to stdout as any partial failure's does."""
    counts = Counter(o.status for o in stop.result.results)
    said = ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
    lead = "" if counts["applied"] else "none confirmed applied: " if counts["unknown"] else "nothing applied: "
    stopped = f"{lead}the {'dry run' if dry_run else 'apply'} stopped ({said})"
    if unwritten:
        stopped += f" and its report was not written ({unwritten})"
    if not isinstance(stop.cause, Exception):  # Ctrl-C, SIGTERM, SIGHUP
        from kafkactl.signals import interrupted_word

        err = PartialFailure(f"{interrupted_word()}: {stopped}", result=stop.result,
                             hint="plan again to see what the cluster holds now")
        err.exit_code = ExitCode.INTERRUPTED
        raise err from None
    cause = gw.translate(stop.cause, "apply")  # (its exit code; its message as said, secrets sent masked)
    err = PartialFailure(f"{stopped}: {stop.said}", result=stop.result, hint=cause.hint)
    if not counts["applied"]:
        err.exit_code = cause.exit_code
    raise err from stop.cause


def settle(gw: Gateway, planned: Planned, timeout: float = 30) -> tuple[bool, str]:
    """After an apply: wait (up to `timeout`) until the brokers show every change, so that a plan made next shows
    none; (whether they all do, what to say)."""
    from kafkactl.desired.configs.plan import confirm

    waited, left = confirm(gw, planned.desired, planned.delete_topics, timeout=timeout)
    if left:
        return False, (f"after {waited:.1f} s the broker still does not show {left} of the changes: plan again in a "
                       "moment")
    return True, f"the broker shows every change ({waited:.1f} s after the apply returned)"
