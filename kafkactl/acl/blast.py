"""Blast radius: what an ACL plan changes in who may do what on the resources that exist.

For each principal a change names, every existing topic, group and transactional id (and the cluster) a changed
binding covers is decided before and after the plan by the authorizer model; an operation allowed after and not
before is gained, the reverse lost. "User:app gains READ on 1,240 topics" counts resources, not ACLs: a prefixed
or `*` binding is expanded against what exists. Pure: the caller reads the ACLs and the resources.

Guards on it: a plan that grants something to every principal (`User:*`), or that takes from the caller the
operations administering the cluster rests on (Alter, AlterConfigs and Describe on the cluster: ACLs, configs and
SCRAM credentials are changed through them), is refused unless the operator adds the flag the error names.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any, ClassVar, Iterable, Mapping, Sequence

from kafkactl.acl.authorizer import WILDCARD_PRINCIPAL, Authorizer, principal_applies
from kafkactl.acl.model import (CLUSTER_NAME, SUPPORTED_OPERATIONS, WILDCARD, AclBinding, AclOperation, PatternType,
                                Permission, ResourceType)
from kafkactl.errors import UsageError

Op, RT = AclOperation, ResourceType
TYPES = (RT.TOPIC, RT.GROUP, RT.TRANSACTIONAL_ID, RT.CLUSTER)
ADMINISTER = (Op.ALTER, Op.ALTER_CONFIGS, Op.DESCRIBE)  # on the cluster: ACLs, configs, credentials
EVERY_PRINCIPAL_FLAG = "--allow-every-principal"
LOCKOUT_FLAG = "--allow-lockout"
# decisions (principal x resource x operation x host) one plan may ask the model; beyond, the radius is not computed
MAX_DECISIONS = 3_000_000
OTHER_HOST = "*"  # as a client's address: one no host-specific ACL names


@dataclass(frozen=True)
class Shift:
    """One principal gaining or losing one operation on some existing resources of one type."""

    COLUMNS: ClassVar[tuple[str, ...]] = ("cluster", "principal", "change", "operation", "resource_type", "resources",
                                          "examples")
    cluster: str
    principal: str
    change: str  # gains | loses
    operation: str
    resource_type: str
    resources: int
    examples: str  # the first few names, comma-separated

    def sentence(self) -> str:
        kind = self.resource_type.lower().replace("_", " ")
        what = "the cluster" if self.resource_type == RT.CLUSTER.name else \
            f"{self.resources:,} {kind}{'s' if self.resources != 1 else ''} ({self.examples}" \
            f"{', ...' if self.resources > 3 else ''})"
        who = f"{self.principal} (every principal)" if self.principal == WILDCARD_PRINCIPAL else self.principal
        return f"{self.cluster}: {who} {self.change} {self.operation} on {what}"

    def to_json(self) -> dict[str, Any]:
        return {c: getattr(self, c) for c in self.COLUMNS}


def _covered(b: AclBinding, names: Sequence[str], known: set[str]) -> Iterable[str]:
    if b.resource_type is RT.CLUSTER:
        return (CLUSTER_NAME,)
    if b.pattern_type is PatternType.PREFIXED:
        return (n for n in names if n.startswith(b.resource_name))
    if b.resource_name == WILDCARD:
        return names
    return (b.resource_name,) if b.resource_name in known else ()


def blast_radius(cluster: str, current: Iterable[AclBinding], created: Iterable[AclBinding],
                 deleted: Iterable[AclBinding], existing: Mapping[ResourceType, Sequence[str]],
                 super_users: Sequence[str] = (), also: Sequence[str] = ()) -> tuple[list[Shift], str | None]:
    """(every principal's gains and losses, why the radius is not computed or None). `also`: principals a change
    may reach without naming them (the caller, through a `User:*` binding)."""
    created, deleted = set(created), set(deleted)
    changed = created | deleted
    if not changed:
        return [], None
    before = set(current)
    after = (before - deleted) | created
    names = {t: sorted(set(existing.get(t, ()))) for t in TYPES}
    known = {t: set(v) for t, v in names.items()}
    hosts = sorted({b.host for b in changed if b.host != WILDCARD} | {OTHER_HOST})
    work: dict[str, set[tuple[ResourceType, str]]] = {}
    asked = 0
    for p in sorted({b.principal for b in changed} | {p for p in also if any(principal_applies(b.principal, p)
                                                                              for b in changed)}):
        cands = {(b.resource_type, n) for b in changed if principal_applies(b.principal, p)
                 and b.resource_type in names for n in _covered(b, names[b.resource_type], known[b.resource_type])}
        work[p] = cands
        asked += sum(len(SUPPORTED_OPERATIONS[t]) for t, _ in cands) * len(hosts)
        if asked > MAX_DECISIONS:
            return [], (f"{cluster}: the blast radius is not computed: it would take over {MAX_DECISIONS:,} "
                        "decisions (the plan's prefixed and '*' bindings cover that many existing resources)")
    az_before, az_after = Authorizer(before, super_users), Authorizer(after, super_users)
    found: dict[tuple[str, str, AclOperation, ResourceType], set[str]] = defaultdict(set)
    for p, cands in work.items():
        for rtype, name in cands:
            for op in SUPPORTED_OPERATIONS[rtype]:
                for h in hosts:
                    was = az_before.authorize(p, h, op, rtype, name).allowed
                    now = az_after.authorize(p, h, op, rtype, name).allowed
                    if was != now:
                        found[(p, "gains" if now else "loses", op, rtype)].add(name)
    out = []
    for (p, change, op, rtype), hit in sorted(found.items(), key=lambda kv: (kv[0][0], kv[0][1], kv[0][3], kv[0][2])):
        first = sorted(hit)[:3]
        out.append(Shift(cluster, p, change, op.name, rtype.name, len(hit), ", ".join(first)))
    return out, None


def check_radius(shifts: Sequence[Shift], created: Iterable[AclBinding], caller: str | None,
                 allow_every_principal: bool, allow_lockout: bool) -> list[str]:
    """Refuse (exit 2) what needs a flag the operator did not give; return what to warn of when it was given."""
    warnings = []
    wide = sorted({b for b in created if b.principal == WILDCARD_PRINCIPAL and b.permission is Permission.ALLOW})
    if wide:
        said = (f"the plan grants every principal ({WILDCARD_PRINCIPAL}) {wide[0].operation.name} on "
                f"{wide[0].resource_type.name}:{wide[0].resource_name}"
                + (f" (and {len(wide) - 1} more grants to {WILDCARD_PRINCIPAL})" if len(wide) > 1 else ""))
        if not allow_every_principal:
            raise UsageError(f"{said}; add {EVERY_PRINCIPAL_FLAG} to apply it: nothing applied")
        warnings.append(said)
    if caller:
        lost = [s for s in shifts if s.change == "loses" and s.resource_type == RT.CLUSTER.name
                and s.operation in {o.name for o in ADMINISTER} and s.principal == caller]
        if lost:
            said = (f"the plan takes {', '.join(sorted({s.operation for s in lost}))} on the cluster from {caller}, "
                    "the principal this command runs as: it could no longer change ACLs or configs")
            if not allow_lockout:
                raise UsageError(f"{said}; add {LOCKOUT_FLAG} to apply it: nothing applied")
            warnings.append(said)
    return warnings
