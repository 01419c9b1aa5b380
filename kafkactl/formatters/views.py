"""Views: results whose look differs by output format. A command wraps its result in one of these and renders it
like any other; `render` finds the view's renderer here, so no command branches on the output format.

Each view keeps the full result for JSON and YAML (scripts get every field) and says what a person (table) and a
pipeline (plain, csv) see instead.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

from kafkactl.formatters import VIEWS, OutputFormat

Renderer = Callable[[Any, OutputFormat, TextIO, Any], None]


def view(cls: type) -> Callable[[Renderer], Renderer]:
    def register(fn: Renderer) -> Renderer:
        VIEWS[cls] = fn
        return fn

    return register


def _render(data: Any, fmt: OutputFormat, out: TextIO, console: Any) -> None:
    from kafkactl.formatters import render

    render(data, fmt, out, console)


def _legend(console: Any) -> None:
    from kafkactl.formatters.authz import LEGEND

    console.print(LEGEND, style="dim", highlight=False)


# ------------------------------------------------------------------------------------ authorized operations

@dataclass(frozen=True)
class AuthorizedOpsView:
    """KIP-430 authorized operations of resources of one type: `data` is the full description (JSON/YAML); table:
    a detail view for one resource, a matrix for several, with a legend; plain/csv: one line per resource and
    operation."""

    data: Any
    items: Sequence[tuple[str, Any]]  # (label, AuthorizedOps)
    title: str | None = None
    described: Any = None  # the describe view they add to (table: shown first); None for a listing


@view(AuthorizedOpsView)
def _authorized_ops(v: AuthorizedOpsView, fmt: OutputFormat, out: TextIO, console: Any) -> None:
    from kafkactl.formatters import authz

    if fmt in (OutputFormat.json, OutputFormat.yaml):
        _render(v.data, fmt, out, console)
    elif fmt is OutputFormat.table:
        if v.described is not None:
            _render(v.described, fmt, out, console)
        if len(v.items) == 1:
            _render(authz.detail(*v.items[0]), fmt, out, console)
        elif v.items:
            _render(authz.matrix(list(v.items), v.title), fmt, out, console)
        if v.items:
            _legend(console)
    else:
        _render(authz.long_rows(v.items), fmt, out, console)


@dataclass(frozen=True)
class DecodedOpsView:
    """`acls decode-ops`: plain gives the allowed operations' names, one per line."""

    bits: int
    ops: Any  # AuthorizedOps


@view(DecodedOpsView)
def _decoded_ops(v: DecodedOpsView, fmt: OutputFormat, out: TextIO, console: Any) -> None:
    if fmt is OutputFormat.plain:
        names = v.ops.names() if v.ops.supplied else ["not supplied by the broker"]
        out.write("".join(f"{n}\n" for n in names))
    else:
        _authorized_ops(AuthorizedOpsView(v.ops, [(str(v.bits), v.ops)]), fmt, out, console)


@dataclass(frozen=True)
class WhoamiView:
    """`auth whoami`: the caller's principal and its authorized operations on the cluster, topics and groups."""

    me: Any  # kafkactl.describe.whoami.Whoami


@view(WhoamiView)
def _whoami(v: WhoamiView, fmt: OutputFormat, out: TextIO, console: Any) -> None:
    from kafkactl.formatters import authz

    me = v.me
    sections = [("cluster", [me.cluster]), ("topics", list(me.topics)), ("groups", list(me.groups))]
    if fmt in (OutputFormat.json, OutputFormat.yaml):
        _render(me, fmt, out, console)
    elif fmt is OutputFormat.table:
        if me.principal or not (me.certificate_dn or me.kerberos_name):
            console.print(f"principal: {me.principal or 'ANONYMOUS'}", highlight=False)
        if me.kerberos_name:
            console.print(f"kerberos: {me.kerberos_name}" + ("" if me.principal else
                          " (the brokers' sasl.kerberos.principal.to.local.rules could not be read to map it)"),
                          highlight=False)
        if me.certificate_dn:
            console.print(f"certificate: {me.certificate_dn}" + ("" if me.principal else
                          " (the brokers' ssl.principal.mapping.rules could not be read to map it)"), highlight=False)
        for title, items in sections:
            if items:
                _render(authz.matrix([(r.name, r.authorized_operations) for r in items], title), fmt, out, console)
            else:
                console.print(f"{title}: none visible", style="dim", highlight=False)
        _legend(console)
    elif fmt is OutputFormat.plain:  # the principal alone: `$(kafkactl auth whoami)` in a script
        if me.principal or not (me.certificate_dn or me.kerberos_name):
            out.write(f"{me.principal or 'ANONYMOUS'}\n")
        elif me.kerberos_name:
            sys.stderr.write(f"note: Kerberos principal {me.kerberos_name}: the brokers' "
                             "sasl.kerberos.principal.to.local.rules could not be read to map it to a principal "
                             "(reading them needs DescribeConfigs on the cluster; kafkactl auth principal --kerberos "
                             "NAME --rules RULES maps it with rules you give)\n")
        else:  # (mapped by rules that could not be read: no principal to print)
            sys.stderr.write(f"note: certificate {me.certificate_dn}: the brokers' ssl.principal.mapping.rules "
                             "could not be read to map it to a principal\n")
    else:
        rows = [(r.name, r.authorized_operations) for _, items in sections for r in items]
        _render(authz.long_rows(rows), fmt, out, console)


# -------------------------------------------------------------------------------------- topics and groups

@dataclass(frozen=True)
class TopicsView:
    """`topics describe`: JSON/YAML the topics whole; the other formats one row per partition."""

    topics: Sequence[Any]


@view(TopicsView)
def _topics(v: TopicsView, fmt: OutputFormat, out: TextIO, console: Any) -> None:
    if fmt in (OutputFormat.json, OutputFormat.yaml):
        _render(list(v.topics), fmt, out, console)
    else:
        _render([p for t in v.topics for p in t.partitions], fmt, out, console)


@dataclass(frozen=True)
class GroupsView:
    """`groups describe`: a table per group on a terminal (its header and members), a list elsewhere."""

    groups: Sequence[Any]


@view(GroupsView)
def _groups(v: GroupsView, fmt: OutputFormat, out: TextIO, console: Any) -> None:
    if fmt is OutputFormat.table:
        for g in v.groups:
            _render(g, fmt, out, console)
    else:
        _render(list(v.groups), fmt, out, console)


@dataclass(frozen=True)
class ReachView:
    """`acls report --principal`: on a terminal a matrix (a resource a row, an operation a column, ✓ where
    allowed); otherwise a row per allowed (resource, operation) with its reason."""

    reach: Sequence[Any]


@view(ReachView)
def _reach(v: ReachView, fmt: OutputFormat, out: TextIO, console: Any) -> None:
    from kafkactl.formatters.model import Tabular

    if fmt is not OutputFormat.table:
        _render(list(v.reach), fmt, out, console)
        return
    ops: list[str] = []
    cells: dict[tuple[str, str], set[str]] = {}
    for r in v.reach:
        if r.operation not in ops:
            ops.append(r.operation)
        cells.setdefault((r.resource_type, r.resource_name), set()).add(r.operation)
    if not cells:
        return
    from kafkactl.acl.model import SUPPORTED_OPERATIONS, AclOperation

    ops.sort(key=lambda o: AclOperation[o])

    supported = {t.name: {o.name for o in s} for t, s in SUPPORTED_OPERATIONS.items()}
    rows = [(t, n, *((o in got) if o in supported.get(t, ()) else None for o in ops))
            for (t, n), got in cells.items()]
    _render(Tabular(columns=("resource_type", "resource_name", *[o.lower() for o in ops]), rows=rows, group_by=1,
                    checkmarks=True), fmt, out, console)


# ------------------------------------------------------------------------------------------- desired state

@dataclass(frozen=True)
class PlanView:
    """`acls plan`: JSON/YAML the whole plan; table the summary and the first `limit` changes (0: all); plain and
    csv every change."""

    plan: Any
    limit: int = 200


@view(PlanView)
def _plan(v: PlanView, fmt: OutputFormat, out: TextIO, console: Any) -> None:
    if fmt in (OutputFormat.json, OutputFormat.yaml):
        _render(v.plan, fmt, out, console)
    elif fmt is OutputFormat.table:
        rows = v.plan.rows(v.limit or None)
        _render(v.plan.summary(), fmt, out, console)
        if v.plan.radius:
            _render(v.plan.radius, fmt, out, console)
        if rows:
            _render(rows, fmt, out, console)
            if v.limit and v.plan.changes > v.limit:
                console.print(f"... {v.plan.changes - v.limit} more changes (--limit 0 shows all, --jsonl streams "
                              "them)", style="dim", highlight=False)
    else:
        from kafkactl.desired.plan import PlanRow
        from kafkactl.formatters.model import Rows

        _render(Rows(v.plan.rows(), PlanRow), fmt, out, console)  # (an empty plan's csv: its header)


@dataclass(frozen=True)
class PlanLinesView:
    """`acls plan --jsonl`: one JSON object per change, whatever -o says (the flag chose the format)."""

    plan: Any


# a view's signature: the flag chose the format, and JSON lines need no console
@view(PlanLinesView)
def _plan_lines(v: PlanLinesView, fmt: OutputFormat, out: TextIO, console: Any) -> None:  # noqa: ARG001
    import json

    for r in v.plan.rows():
        out.write(json.dumps(r.to_json()) + "\n")


# -------------------------------------------------------------------------------------------- local things

@dataclass(frozen=True)
class Named:
    COLUMNS = ("name",)
    name: str


@dataclass(frozen=True)
class Name:
    """One name (`context current`): the bare name in plain and table, so `$(kafkactl context current)` works."""

    name: str


@view(Name)
def _name(v: Name, fmt: OutputFormat, out: TextIO, console: Any) -> None:
    if fmt in (OutputFormat.plain, OutputFormat.table):
        out.write(v.name + "\n")
    else:
        _render(Named(v.name) if fmt is not OutputFormat.csv else [Named(v.name)], fmt, out, console)


@dataclass(frozen=True)
class Variable:
    COLUMNS = ("name", "value")
    name: str
    value: str


@dataclass(frozen=True)
class ShellExports:
    """`local env`: shell lines to eval (plain, table); JSON/YAML the variables and the kafka-*.sh arguments."""

    lines: Sequence[str]
    variables: Sequence[tuple[str, str]]
    tool_arguments: Sequence[str]


@view(ShellExports)
def _exports(v: ShellExports, fmt: OutputFormat, out: TextIO, console: Any) -> None:
    if fmt in (OutputFormat.json, OutputFormat.yaml):
        _render({"variables": dict(v.variables), "kafka_sh_arguments": list(v.tool_arguments)}, fmt, out, console)
    elif fmt is OutputFormat.csv:
        _render([Variable(k, val) for k, val in v.variables], fmt, out, console)
    else:
        out.write("".join(f"{line}\n" for line in v.lines))


@dataclass(frozen=True)
class DiffView:
    """`diff`: one row per difference; on a terminal the value columns are named by their clusters."""

    found: Sequence[Any]  # kafkactl.desired.diff.Difference
    first: str
    second: str


@view(DiffView)
def _diff(v: DiffView, fmt: OutputFormat, out: TextIO, console: Any) -> None:
    from kafkactl.desired.diff import Difference
    from kafkactl.formatters.model import Rows, Tabular

    if fmt is OutputFormat.table and v.found:
        _render(Tabular(columns=("kind", "entity", "key", f"first: {v.first}", f"second: {v.second}"),
                        rows=[(d.kind, d.entity, d.key, d.first, d.second) for d in v.found]), fmt, out, console)
    else:
        _render(Rows(v.found, Difference), fmt, out, console)
