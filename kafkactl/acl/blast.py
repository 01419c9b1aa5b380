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
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from kafkactl.acl.authorizer import WILDCARD_PRINCIPAL, Authorizer
from kafkactl.acl.model import (
    CLUSTER_NAME,
    SUPPORTED_OPERATIONS,
    WILDCARD,
    AclBinding,
    AclOperation,
    Permission,
    ResourceType,
)
from kafkactl.acl.report import covered
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
    examples: str  # the first few names, comma-separated (a list in JSON: names may hold commas)
    names: tuple[str, ...] = ()  # those names

    def sentence(self) -> str:
        kind = self.resource_type.lower().replace("_", " ")
        what = "the cluster" if self.resource_type == RT.CLUSTER.name else \
            f"{self.resources:,} {kind}{'s' if self.resources != 1 else ''} ({self.examples}" \
            f"{', ...' if self.resources > 3 else ''})"
        who = f"{self.principal} (every principal)" if self.principal == WILDCARD_PRINCIPAL else self.principal
        return f"{self.cluster}: {who} {self.change} {self.operation} on {what}"

    def to_json(self) -> dict[str, Any]:
        return {**{c: getattr(self, c) for c in self.COLUMNS}, "examples": list(self.names)}


def _covered(b: AclBinding, names: Sequence[str]) -> Sequence[str]:
    return (CLUSTER_NAME,) if b.resource_type is RT.CLUSTER else covered(names, b.pattern_type, b.resource_name)


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
    hosts = sorted({b.host for b in changed if b.host != WILDCARD} | {OTHER_HOST})
    work: dict[str, set[tuple[ResourceType, str]]] = {}
    asked = 0
    by_principal: dict[str, list[AclBinding]] = defaultdict(list)  # (one pass: 25,000 changes, 5,000 principals)
    for b in changed:
        by_principal[b.principal].append(b)
    every = by_principal.get(WILDCARD_PRINCIPAL, [])
    for p in sorted(set(by_principal) | {p for p in also if p in by_principal or every}):
        applying = by_principal.get(p, []) + (every if p != WILDCARD_PRINCIPAL else [])
        cands = {(b.resource_type, n) for b in applying
                 if b.resource_type in names for n in _covered(b, names[b.resource_type])}
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
        out.append(Shift(cluster, p, change, op.name, rtype.name, len(hit), ", ".join(first), tuple(first)))
    return out, None


def check_guards(cluster: str, cluster_acls: Iterable[AclBinding], created: Iterable[AclBinding],
                 deleted: Iterable[AclBinding], caller: str | None, allow_every_principal: bool | None,
                 allow_lockout: bool | None, super_users: Sequence[str] = ()) -> list[str]:
    """The plan's guards, whatever its engine and size: refuse (exit 2) what needs a flag the operator did not give;
    return what to warn of (what a flag let through, or a check that could not run). A flag given as None: the
    plan is only shown; what apply would refuse without it is a warning naming it.

    Every principal: a new ALLOW for User:*, or a DENY for User:* taken away (what it blocked, every principal may
    then do). The caller: Alter, AlterConfigs or Describe on the cluster held before the plan and not after,
    decided on the cluster's ACLs (`cluster_acls`: those on the cluster resource, all of them), from any host or
    from the hosts the plan's cluster ACLs name."""
    created, deleted = set(created), set(deleted)
    warnings: list[str] = []

    def needs(said: str, flag: str, allowed: bool | None) -> None:
        if allowed is None:
            warnings.append(f"{said}: apply refuses it without {flag}")
        elif not allowed:
            raise UsageError(f"{said}; add {flag} to apply it: nothing applied")
        else:
            warnings.append(f"{said} ({flag} given)")

    wide = sorted(b for b in created if b.principal == WILDCARD_PRINCIPAL and b.permission is Permission.ALLOW)
    unblocked = sorted(b for b in deleted if b.principal == WILDCARD_PRINCIPAL and b.permission is Permission.DENY)
    if wide or unblocked:
        b = (wide or unblocked)[0]
        what = (f"grants every principal ({WILDCARD_PRINCIPAL}) {b.operation.name}" if wide else
                f"takes away the DENY of {b.operation.name} for every principal ({WILDCARD_PRINCIPAL})")
        more = len(wide) + len(unblocked) - 1
        needs(f"{cluster}: the plan {what} on {b.resource_type.name}:{b.resource_name}"
              + (f" (and {more} more such change{'s' if more > 1 else ''})" if more else ""),
              EVERY_PRINCIPAL_FLAG, allow_every_principal)
    on_cluster = {b for b in created | deleted if b.resource_type is RT.CLUSTER}
    if not on_cluster:
        return warnings
    if caller is None:
        return warnings + [f"{cluster}: the plan changes ACLs on the cluster resource, and the principal this command "
                           "runs as cannot be told (a certificate whose mapping rules cannot be read): the lock-out "
                           "check did not run"]
    if caller in super_users:
        return warnings
    before = {b for b in cluster_acls if b.resource_type is RT.CLUSTER}
    after = (before - deleted) | {b for b in created if b.resource_type is RT.CLUSTER}
    az_before, az_after = Authorizer(before, super_users), Authorizer(after, super_users)
    hosts = sorted({b.host for b in on_cluster if b.host != WILDCARD} | {OTHER_HOST})
    lost: dict[str, list[str]] = {}
    for op in ADMINISTER:
        for h in hosts:
            if (az_before.authorize(caller, h, op, RT.CLUSTER, CLUSTER_NAME).allowed
                    and not az_after.authorize(caller, h, op, RT.CLUSTER, CLUSTER_NAME).allowed):
                lost.setdefault(op.name, []).append(h)
    if lost:
        named = sorted({h for hs in lost.values() for h in hs if h != OTHER_HOST})
        where = "" if any(OTHER_HOST in hs for hs in lost.values()) else f" from host {', '.join(named)}"
        could = ("change ACLs or configs" if {"ALTER", "ALTER_CONFIGS"} & set(lost) else
                 "list ACLs (apply confirms each phase by listing them)")
        needs(f"{cluster}: the plan takes {', '.join(sorted(lost))} on the cluster{where} from {caller}, the "
              f"principal this command runs as: it could no longer {could}", LOCKOUT_FLAG, allow_lockout)
    return warnings
