"""Plan: (current ∩ scope) against desired, in four phases (kafka-semantics §4).

Phase 1 creates new DENYs, 2 creates new ALLOWs, 3 deletes old ALLOWs, 4 deletes old DENYs. Every
intermediate ACL set then lies between the old and the new policy: no moment grants an access both
policies deny, and no access both allow is interrupted.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from kafkactl.acl.model import AclBinding, AclFilter, PatternType, Permission, ResourceType, find_refused, shown
from kafkactl.desired.change import PRESENT, Change
from kafkactl.desired.formats.flat import flat_row
from kafkactl.desired.state import DesiredState, Scope, StateFileError, flat_binding
from kafkactl.errors import UsageError
from kafkactl.limits import delete_limit
from kafkactl.results import API_VERSION

if TYPE_CHECKING:
    from kafkactl.acl.blast import Shift
    from kafkactl.gateway import Gateway

PHASES = {1: ("CREATE", Permission.DENY), 2: ("CREATE", Permission.ALLOW), 3: ("DELETE", Permission.ALLOW),
          4: ("DELETE", Permission.DENY)}
PHASE_NAMES = {1: "create DENY", 2: "create ALLOW", 3: "delete ALLOW", 4: "delete DENY"}
KEY_SEP = "\x1f"
SEED = 42


def binding_key(b: AclBinding) -> int:
    """xxh64 of the binding's fields joined by U+001F, seed 42, signed: equal to Spark's xxhash64(concat_ws(...))."""
    import xxhash

    s = KEY_SEP.join((b.principal, b.host, b.operation.name, b.permission.name, b.resource_type.name,
                      b.resource_name, b.pattern_type.name))
    v = xxhash.xxh64_intdigest(s.encode("utf-8"), seed=SEED)
    return v - (1 << 64) if v >= 1 << 63 else v


def phase_of(action: str, permission: Permission) -> int:
    return next(p for p, (a, perm) in PHASES.items() if a == action and perm is permission)


@dataclass(frozen=True)
class PlanRow:
    COLUMNS: ClassVar[tuple[str, ...]] = ("cluster", "phase", "action") + AclBinding.COLUMNS
    GROUP_BY: ClassVar[int] = 3
    cluster: str
    phase: int
    action: str
    binding: AclBinding

    def __getattr__(self, name: str) -> Any:
        return getattr(object.__getattribute__(self, "binding"), name)

    def to_json(self) -> dict[str, Any]:
        return {**self.as_change().to_json(), "phase": self.phase, **flat_row(self.binding)}

    def as_change(self) -> Change:
        """The row as every kind of change is shown and recorded (desired/change.py): an ACL is there or not."""
        create = self.action == "CREATE"
        return Change("acl", self.cluster, self.binding.describe(), self.action, None if create else PRESENT,
                      PRESENT if create else None)


@dataclass
class ClusterPlan:
    cluster: str
    rows: list[PlanRow] = field(default_factory=list)
    current_total: int = 0
    current_in_scope: int = 0
    desired: int = 0
    protected_skipped: int = 0
    deletes_withheld: int = 0  # --no-delete
    cluster_id: str | None = None  # the cluster the plan was made from: a saved plan applies there only
    # (counts, fingerprint) of a plan whose rows stay on disk (Spark)
    stored: tuple[dict[int, int], tuple[int, int]] | None = None

    def fingerprint(self) -> tuple[int, int]:
        if self.stored is not None:
            return self.stored[1]
        x = 0
        for r in self.rows:
            x ^= binding_key(r.binding) ^ (r.phase << 60)
        return x, len(self.rows)

    def counts(self) -> dict[int, int]:
        if self.stored is not None:
            return dict(self.stored[0])
        out = {p: 0 for p in PHASES}
        for r in self.rows:
            out[r.phase] += 1
        return out


@dataclass
class Plan:
    clusters: list[ClusterPlan]
    scope: Scope
    sources: list[str] = field(default_factory=list)
    engine: str = "in-process"
    location: str | None = None  # a directory with rows/ (Parquet, by cluster and phase): Spark plans
    radius: list[Shift] = field(default_factory=list)  # who gains and loses what (not saved)
    radius_notes: list[str] = field(default_factory=list)  # why a cluster's radius was not computed
    guards: list[str] = field(default_factory=list)  # what apply refuses without a flag, or what a flag let through
    # per cluster, the changes that take the caller's access (--allow-lockout given): applied last, unconfirmed
    lockout: dict[str, set[AclBinding]] = field(default_factory=dict)

    @property
    def changes(self) -> int:
        return sum(sum(c.counts().values()) for c in self.clusters)

    def rows(self, limit: int | None = None) -> list[PlanRow]:
        """The plan's rows (at most `limit`); rows kept on disk are read with pyarrow, never all via Spark."""
        if self.location is None:
            rows = [r for c in self.clusters for r in c.rows]
            return rows[:limit] if limit else rows
        import pyarrow.dataset as ds

        if not any((Path(self.location) / "rows").rglob("*.parquet")):
            return []
        import heapq

        dataset = ds.dataset(str(Path(self.location) / "rows"), format="parquet", partitioning="hive")
        # the in-process engine's order (clusters as planned, then phase and binding), so that both engines show the
        # same first `limit` rows: the smallest of all, a batch at a time (bounded memory), not the first written
        order = {c.cluster: i for i, c in enumerate(self.clusters)}

        def key(r: PlanRow) -> tuple[int, str, int, AclBinding]:
            return (order.get(r.cluster, len(order)), r.cluster, r.phase, r.binding)

        records = (d for batch in dataset.to_batches() for d in batch.to_pylist())
        stored = (PlanRow(str(d["cluster"]), int(d["phase"]), d["action"], flat_binding(f"plan row {n}", d))
                  for n, d in enumerate(records, 1))
        return heapq.nsmallest(limit, stored, key=key) if limit else sorted(stored, key=key)

    def rows_touching(self, cluster: str, principal: str, rtype: ResourceType) -> list[PlanRow]:
        """The rows of `cluster` whose principal is `principal` or whose resource is of type `rtype`: few, whatever
        the plan's size (rows kept on disk are filtered by pyarrow, never all loaded)."""
        if self.location is None:
            return [r for c in self.clusters if c.cluster == cluster for r in c.rows
                    if r.binding.principal == principal or r.binding.resource_type is rtype]
        import pyarrow.dataset as ds

        if not any((Path(self.location) / "rows").rglob("*.parquet")):
            return []
        dataset = ds.dataset(str(Path(self.location) / "rows"), format="parquet", partitioning="hive")
        wanted = (ds.field("cluster") == cluster) & ((ds.field("principal") == principal)
                                                     | (ds.field("resource_type") == rtype.name))
        return [PlanRow(str(d["cluster"]), int(d["phase"]), d["action"], flat_binding(f"plan row {n}", d))
                for n, d in enumerate(dataset.to_table(filter=wanted).to_pylist(), 1)]

    def materialize(self) -> Plan:
        """Rows in memory (for the in-process apply of a plan made on Spark)."""
        if self.location is None:
            return self
        for c in self.clusters:
            c.rows = [r for r in self.rows() if r.cluster == c.cluster]
            c.stored = None
        self.location = None
        return self

    def summary(self) -> list[PlanSummary]:
        return [PlanSummary(c.cluster, p, PHASE_NAMES[p], n) for c in self.clusters for p, n in c.counts().items()]

    def to_json(self, include_changes: bool = True) -> dict[str, Any]:
        doc = {"api_version": API_VERSION, "kind": "AclPlan", "engine": self.engine, "sources": self.sources,
                "scope": self.scope.to_json(),
                "clusters": [{"cluster": c.cluster, "cluster_id": c.cluster_id, "current_total": c.current_total,
                              "current_in_scope": c.current_in_scope, "desired": c.desired,
                              "protected_skipped": c.protected_skipped, "deletes_withheld": c.deletes_withheld,
                              "counts": {PHASE_NAMES[p]: n for p, n in c.counts().items()},
                              "fingerprint": list(c.fingerprint())} for c in self.clusters]}
        doc["blast_radius"] = [s.to_json() for s in self.radius]
        if self.radius_notes:
            doc["blast_radius_notes"] = list(self.radius_notes)
        doc["guards"] = list(self.guards)
        if include_changes:
            doc["changes"] = [r.to_json() for r in self.rows()]
        return doc


@dataclass(frozen=True)
class PlanSummary:
    COLUMNS: ClassVar[tuple[str, ...]] = ("cluster", "phase", "step", "bindings")
    cluster: str
    phase: int
    step: str
    bindings: int


# ------------------------------------------------------------------------------------- current state


def shard_filters() -> list[AclFilter]:
    """Resource type x pattern type x permission: never one giant describe."""
    types = [t for t in ResourceType if t not in (ResourceType.ANY, ResourceType.UNKNOWN)]
    return [AclFilter(t, None, pt, None, None, permission=perm) for t in types
            for pt in (PatternType.LITERAL, PatternType.PREFIXED) for perm in (Permission.ALLOW, Permission.DENY)]


def read_current(gw: Gateway) -> list[AclBinding]:
    out: list[AclBinding] = []
    for f in shard_filters():
        out.extend(gw.describe_acls(f, bulk=True))
    return out


# ------------------------------------------------------------------------------------- diff


@dataclass(frozen=True)
class Guards:
    protect: tuple[str, ...] = ()  # principals, or prefixes ending in '*'
    no_delete: bool = False
    max_deletes: str | None = None  # "N" or "P%"
    applying: bool = True  # the plan is for an apply (a refusal then says nothing was changed); False: only shown

    def protected(self, principal: str, super_users: Sequence[str]) -> bool:
        if principal in super_users:
            return True
        return any(principal == p or (p.endswith("*") and principal.startswith(p[:-1])) for p in self.protect)

    def __post_init__(self) -> None:
        for p in self.protect:
            kind, colon, name = p.partition(":")
            if p != p.strip() or not colon or not kind or not (name or p.endswith("*")) or find_refused(p):
                raise UsageError(f"--protect {shown(p)}: expected a principal (User:alice) or a prefix ending in * "
                                 "(User:svc-*)")
        if self.max_deletes is not None:
            self.delete_limit(0)  # a bad value is refused before anything is read or sent

    def delete_limit(self, in_scope: int) -> int | None:
        return delete_limit(self.max_deletes, in_scope)

    def check_deletes(self, cluster: str, deletes: int, in_scope: int, what: str = "the plan") -> None:
        """--max-deletes, the one check of all three engines and of saved plans: refused, never trimmed."""
        limit = self.delete_limit(in_scope)
        if limit is not None and deletes > limit:
            said = "; nothing was changed" if self.applying else ""
            raise UsageError(f"{cluster}: {what} deletes {deletes} ACL bindings, more than --max-deletes "
                             f"{self.max_deletes} allows ({limit}){said}")

    def check_saved(self, plan: Plan, super_users: Callable[[str], Sequence[str]],
                    in_scope_now: Callable[[str], int]) -> None:
        """Hold a saved plan (apply --plan) to the guards given now and to the target's super users: it is
        refused, never trimmed. A percentage is of the ACLs in the plan's scope on the cluster now (the count the
        plan recorded is only as honest as its directory)."""
        for c in plan.clusters:
            deletes = [r for r in c.rows if r.action == "DELETE"]
            if self.no_delete and deletes:
                raise UsageError(f"{c.cluster}: the saved plan deletes {len(deletes)} ACL bindings and --no-delete "
                                 "was given; nothing was changed")
            supers = super_users(c.cluster)
            touched = sorted({r.binding.principal for r in c.rows if self.protected(r.binding.principal, supers)})
            if touched:
                raise UsageError(f"{c.cluster}: the saved plan changes ACLs of protected principal {touched[0]}"
                                 f"{f' (and {len(touched) - 1} more)' if len(touched) > 1 else ''}; nothing was "
                                 "changed")
            if self.max_deletes is not None:
                in_scope = in_scope_now(c.cluster) if self.max_deletes.strip().endswith("%") else 0
                self.check_deletes(c.cluster, len(deletes), in_scope, "the saved plan")


def diff_cluster(cluster: str, current: Iterable[AclBinding], desired: Iterable[AclBinding], scope: Scope,
                 guards: Guards, super_users: Sequence[str]) -> ClusterPlan:
    plan = ClusterPlan(cluster)
    current = set(current)
    plan.current_total = len(current)
    wanted = set()
    for b in desired:
        if guards.protected(b.principal, super_users):
            plan.protected_skipped += 1
        else:
            wanted.add(b)
    plan.desired = len(wanted)
    in_scope = {b for b in current if scope.contains(b) and not guards.protected(b.principal, super_users)}
    plan.current_in_scope = len(in_scope)
    creates = wanted - current
    deletes = in_scope - wanted
    if guards.no_delete:
        plan.deletes_withheld = len(deletes)
        deletes = set()
    guards.check_deletes(cluster, len(deletes), len(in_scope))
    rows = [PlanRow(cluster, phase_of("CREATE", b.permission), "CREATE", b) for b in creates]
    rows += [PlanRow(cluster, phase_of("DELETE", b.permission), "DELETE", b) for b in deletes]
    plan.rows = sorted(rows, key=lambda r: (r.phase, r.binding))
    return plan


def make_plan(targets: Sequence[tuple[str, Gateway, Sequence[str]]], state: DesiredState, guards: Guards,
              read: Callable[[Gateway], Iterable[AclBinding]] = read_current) -> Plan:
    """targets: (cluster name, gateway, super users)."""
    clusters = [diff_cluster(name, read(gw), state.bindings, state.scope, guards, supers)
                for name, gw, supers in targets]
    return Plan(clusters, state.scope, list(state.sources))


# ------------------------------------------------------------------------------------- saved plans


def save(plan: Plan, plandir: str) -> Path:
    """The plan in `plandir` (desired/saved.py), replacing a plan saved there before."""
    import shutil

    from kafkactl.desired import saved

    here = plan.location is not None and Path(plan.location).resolve() == Path(plandir).expanduser().resolve()
    d = saved.begin(plandir, keep_rows=here)  # the plan was written here (Spark's --out): its rows are the new ones
    meta = plan.to_json(include_changes=False)
    for key in ("api_version", "blast_radius", "blast_radius_notes", "guards"):  # (made again when applied)
        meta.pop(key, None)
    if plan.location is not None:
        if not here:
            shutil.copytree(Path(plan.location) / "rows", d / "rows", dirs_exist_ok=True)
    else:
        for c in plan.clusters:
            saved.write_lines(d, f"changes-{c.cluster}.jsonl", (json.dumps(r.to_json()) for r in c.rows))
    saved.finish(d, meta)
    return d


def load_saved(plandir: str) -> Plan:
    """A plan saved by `acls plan --out`, checked against its fingerprints. A damaged or hand-edited directory is
    exit 2 naming it, never a crash."""
    try:
        return _load_saved(plandir)
    except StateFileError:
        raise
    except (ValueError, KeyError, TypeError, IndexError, AttributeError, OSError) as exc:
        detail = f"missing {exc}" if isinstance(exc, KeyError) else f"{type(exc).__name__}: {str(exc)[:120]}"
        raise StateFileError(f"{plandir}: not a readable saved plan ({detail})") from None


def _load_saved(plandir: str) -> Plan:
    from kafkactl.desired import saved
    from kafkactl.desired.formats.compact import parse_scope

    d, meta = saved.read_meta(plandir, "AclPlan")
    clusters = []
    # a scope taken out (or emptied) would hold every binding, an outsider's row included
    edited = "acls plan always saves one; the plan was edited"
    if not meta.get("scope"):
        raise StateFileError(f"{d}: not a readable saved plan (plan.json has no scope: {edited})")
    scope = parse_scope(d / "plan.json", meta["scope"])
    if not scope.declared():
        raise StateFileError(f"{d}: not a readable saved plan (plan.json has an empty scope: {edited})")
    for c in meta["clusters"]:
        cp = ClusterPlan(c["cluster"], current_total=c["current_total"], current_in_scope=c["current_in_scope"],
                         desired=c["desired"], protected_skipped=c["protected_skipped"],
                         deletes_withheld=c.get("deletes_withheld", 0), cluster_id=c["cluster_id"])
        clusters.append(cp)
    if (d / "rows").is_dir():  # rows kept as Parquet (a Spark plan): verify the fingerprint as stored
        plan = Plan(clusters, scope, meta.get("sources", []), "spark", location=str(d))
        plan.materialize()
        for cp, c in zip(plan.clusters, meta["clusters"]):
            if list(cp.fingerprint()) != c["fingerprint"]:
                raise StateFileError(f"{d / 'rows'}: does not match the fingerprint in plan.json "
                                     "(changed or truncated)")
        _check_rows(d, plan)
        return plan
    for cp, c in zip(clusters, meta["clusters"]):
        path = d / f"changes-{c['cluster']}.jsonl"
        with path.open(encoding="utf-8") as fh:
            for n, line in enumerate(fh, 1):
                row = json.loads(line)
                b = flat_binding(f"{path}:{n}", row)
                cp.rows.append(PlanRow(row["cluster"], int(row["phase"]), row["action"], b))
        if list(cp.fingerprint()) != c["fingerprint"]:
            raise StateFileError(f"{path}: does not match the fingerprint in plan.json (changed or truncated)")
    plan = Plan(clusters, scope, meta.get("sources", []), meta.get("engine", "in-process"))
    _check_rows(d, plan)
    return plan


def _check_rows(d: Path, plan: Plan) -> None:
    """What a saved plan's own rules make impossible (its fingerprint is no signature: anyone can recompute it):
    counts that are not counts, a row whose action, phase and permission disagree, a row outside the plan's scope."""
    for c in plan.clusters:
        for key in ("current_total", "current_in_scope", "desired", "protected_skipped", "deletes_withheld"):
            value = getattr(c, key)
            if type(value) is not int or not 0 <= value < 2**31:
                raise StateFileError(f"{d / 'plan.json'}: {c.cluster}: {key} {shown(value)} is not a count")
        for r in c.rows:
            if r.action not in ("CREATE", "DELETE") or r.phase != phase_of(r.action, r.binding.permission):
                raise StateFileError(f"{d}: {c.cluster}: a {shown(r.action)} row in phase {r.phase} for "
                                     f"{r.binding.describe()}: action, phase and permission disagree")
            if r.cluster != c.cluster or not plan.scope.contains(r.binding):
                raise StateFileError(f"{d}: {c.cluster}: {r.binding.describe()} is outside the plan's scope")
