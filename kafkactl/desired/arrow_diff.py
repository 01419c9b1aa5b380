"""The in-process engine for large flat inputs: Arrow tables and hash anti-joins instead of Python objects.

Millions of bindings as Python objects cost seconds to build and gigabytes to hold; as Arrow columns the
diff is two anti-joins. Validation is vectorised too, and the first bad row is reported by file, row and
field, as the Python loader does. Only the changed rows become Python objects.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from kafkactl.acl.model import (
    CLUSTER_NAME,
    SUPPORTED_OPERATIONS,
    AclBinding,
    AclOperation,
    PatternType,
    Permission,
    ResourceType,
    refused_class,
    shown,
)
from kafkactl.desired.formats.arrow import BINDING, read_arrow
from kafkactl.desired.formats.flat import binding_where
from kafkactl.desired.plan import ClusterPlan, Guards, PlanRow, phase_of
from kafkactl.desired.state import Scope, StateFileError, flat_binding
from kafkactl.limits import MAX_STRING_BYTES

# flat inputs bigger than this go through Arrow (about 80,000 rows of JSONL)
ARROW_BYTES = 8 * 1024 * 1024


def _pa() -> tuple[ModuleType, ModuleType]:
    import pyarrow as pa
    import pyarrow.compute as pc

    return pa, pc


def bindings_table(bindings: Iterable[AclBinding]) -> Any:
    pa, _ = _pa()
    cols: dict[str, list[str]] = {c: [] for c in BINDING}
    for b in bindings:
        cols["principal"].append(b.principal)
        cols["host"].append(b.host)
        cols["operation"].append(b.operation.name)
        cols["permission"].append(b.permission.name)
        cols["resource_type"].append(b.resource_type.name)
        cols["resource_name"].append(b.resource_name)
        cols["pattern_type"].append(b.pattern_type.name)
    return pa.table({c: pa.array(v, pa.string()) for c, v in cols.items()})


def read_flat(path: str, scope: Scope) -> Any:
    """A JSONL, CSV or Parquet desired state as an Arrow table: normalised, validated, inside the scope. A file
    Arrow's readers refuse (or read otherwise than the Python loader would) is read by the Python loader, which
    names the line and field of a fault; a file it reads is taken as it reads it, so both engines agree."""
    p = Path(path)
    raw = read_arrow(p)
    table = _normalise(raw)
    _validate(p, raw, table, scope)
    return table


# pyarrow has no type information: its tables and arrays are Any here
def _normalise(t: Any) -> Any:
    pa, pc = _pa()
    names = {o.name.replace("_", ""): o.name for o in AclOperation}
    op = pc.utf8_upper(pc.replace_substring_regex(pc.utf8_trim_whitespace(t.column("operation")), "[-_ ]", ""))
    keys = pa.array(list(names))
    idx = pc.index_in(op, value_set=keys)
    op = pc.if_else(pc.is_null(idx), op, pc.take(pa.array(list(names.values())), idx))
    cols = {
        "principal": pc.utf8_trim_whitespace(t.column("principal")),
        "host": pc.utf8_trim_whitespace(t.column("host")),
        "operation": op,
        "permission": pc.utf8_upper(pc.utf8_trim_whitespace(t.column("permission"))),
        "resource_type": pc.utf8_upper(pc.replace_substring(pc.utf8_trim_whitespace(t.column("resource_type")),
                                                            "-", "_")),
        "resource_name": t.column("resource_name"),
        "pattern_type": pc.utf8_upper(pc.replace_substring_regex(pc.utf8_trim_whitespace(t.column("pattern_type")),
                                                                 "[-_ ]", "")),
    }
    return pa.table(cols)


REFUSED_RE2 = refused_class("\\x{{{:x}}}", surrogates=False)


def _validate(path: Path, raw: Any, t: Any, scope: Scope) -> None:
    """The first row that fails a check is phrased by the Python loader, from the values as read."""
    pa, pc = _pa()
    supported = [f"{rt.name}/{o.name}" for rt, ops in SUPPORTED_OPERATIONS.items() for o in (*ops, AclOperation.ALL)]
    pair = pc.binary_join_element_wise(t.column("resource_type"), t.column("operation"), "/")
    checks = [(c, pc.match_substring_regex(raw.column(c), REFUSED_RE2)) for c in ("principal", "host", "resource_name")]
    # longer than a protocol STRING (librdkafka crashes on one)
    checks += [(c, pc.greater(pc.binary_length(raw.column(c)), MAX_STRING_BYTES))
               for c in ("principal", "host", "resource_name")]
    checks += [
        ("principal", pc.invert(pc.match_substring_regex(t.column("principal"), "^[^:]+:.+$"))),
        ("permission", pc.invert(pc.is_in(t.column("permission"), pa.array(["ALLOW", "DENY"])))),
        ("pattern_type", pc.invert(pc.is_in(t.column("pattern_type"), pa.array(["LITERAL", "PREFIXED"])))),
        ("resource_name", pc.equal(pc.utf8_length(pc.coalesce(t.column("resource_name"), pa.scalar(""))), 0)),
        ("operation", pc.invert(pc.is_in(pair, pa.array(supported)))),
        ("resource_name", pc.and_(pc.equal(t.column("resource_type"), "CLUSTER"),
                                  pc.not_equal(t.column("resource_name"), CLUSTER_NAME))),
        # the cluster is a literal resource: PREFIXED kafka-cluster is refused as the Python loader refuses it
        ("pattern_type", pc.and_(pc.equal(t.column("resource_type"), "CLUSTER"),
                                 pc.not_equal(t.column("pattern_type"), "LITERAL"))),
        ("host", pc.equal(pc.utf8_length(t.column("host")), 0)),
    ]
    for field_name, bad in checks:
        bad = pc.fill_null(bad, True)
        if pc.any(bad).as_py():
            i = pc.index(bad, True).as_py()
            row = {c: raw.column(c)[i].as_py() for c in BINDING}
            where = binding_where(path, i)
            flat_binding(where, row)  # the Python loader phrases the error for this one row (with its suggestions)
            raise StateFileError(f"{where}: {field_name}: {shown(row[field_name])} is not valid")
    outside = pc.invert(in_scope(t, scope))
    if pc.any(outside).as_py():
        i = pc.index(outside, True).as_py()
        where = binding_where(path, i)
        b = flat_binding(where, {c: raw.column(c)[i].as_py() for c in BINDING})
        raise StateFileError(f"{where}: {b.describe()} is outside the declared scope")


def in_scope(t: Any, scope: Scope) -> Any:
    pa, pc = _pa()
    mask = pa.array([True] * len(t)) if len(t) else pa.array([], pa.bool_())
    if scope.principals or scope.principal_prefixes:
        m = pc.is_in(t.column("principal"), pa.array(sorted(scope.principals), pa.string()))
        for pre in scope.principal_prefixes:
            m = pc.or_(m, pc.starts_with(t.column("principal"), pre))
        mask = pc.and_(mask, m)
    if scope.resource_prefixes:
        r = pc.equal(t.column("resource_type"), "")
        for rtype, prefixes in scope.resource_prefixes.items():
            tm = pc.equal(t.column("resource_type"), "")
            for pre in prefixes:
                tm = pc.or_(tm, pc.starts_with(t.column("resource_name"), pre))
            r = pc.or_(r, pc.and_(pc.equal(t.column("resource_type"), rtype.name), tm))
        mask = pc.and_(mask, r)
    return mask


def _protected(t: Any, guards: Guards, supers: Sequence[str]) -> Any:
    pa, pc = _pa()
    exact = sorted(set(supers) | {p for p in guards.protect if not p.endswith("*")})
    m = pc.is_in(t.column("principal"), pa.array(exact, pa.string()))
    for p in guards.protect:
        if p.endswith("*"):
            m = pc.or_(m, pc.starts_with(t.column("principal"), p[:-1]))
    return m


def diff_tables(cluster: str, desired: Any, current: Any, scope: Scope, guards: Guards, supers: Sequence[str]
                ) -> ClusterPlan:
    """The same diff as plan.diff_cluster, on Arrow tables. `current` (read from a broker) has no duplicates;
    `desired` may repeat a binding, so counts are taken on de-duplicated rows without de-duplicating all of it."""
    pa, pc = _pa()
    plan = ClusterPlan(cluster, current_total=len(current))
    prot_d = _protected(desired, guards, supers)
    plan.protected_skipped = len(desired.filter(prot_d).group_by(BINDING).aggregate([]))
    wanted = desired.filter(pc.invert(prot_d))
    keep = pc.and_(in_scope(current, scope), pc.invert(_protected(current, guards, supers))) if len(current) else None
    in_scope_t = current.filter(keep) if keep is not None else current
    plan.current_in_scope = len(in_scope_t)
    creates = wanted.join(in_scope_t, keys=BINDING, join_type="left anti").group_by(BINDING).aggregate([])
    deletes = in_scope_t.join(wanted, keys=BINDING, join_type="left anti")
    # every wanted binding either exists (in scope, unprotected: the same principal) or is created
    plan.desired = len(in_scope_t) - len(deletes) + len(creates)
    if guards.no_delete:
        plan.deletes_withheld = len(deletes)
        deletes = deletes.slice(0, 0)
    guards.check_deletes(cluster, len(deletes), plan.current_in_scope)
    rows = []
    for action, table in (("CREATE", creates), ("DELETE", deletes)):
        for n, d in enumerate(table.to_pylist(), 1):
            b = _known_binding(d) or flat_binding(f"{cluster} {action.lower()} {n}", d)
            rows.append(PlanRow(cluster, phase_of(action, b.permission), action, b))
    plan.rows = sorted(rows, key=lambda r: (r.phase, r.binding))
    return plan


def _known_binding(d: dict[str, Any]) -> AclBinding | None:
    """Rows that were validated already (or read from a broker) need only their enums looked up."""
    try:
        return AclBinding(ResourceType[d["resource_type"]], d["resource_name"], PatternType[d["pattern_type"]],
                          d["principal"], d["host"], AclOperation[d["operation"]], Permission[d["permission"]])
    except (KeyError, TypeError):
        return None
