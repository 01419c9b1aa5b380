"""Planning DeleteAcls filters that remove exactly a known set of bindings, cheaply.

The controller tests every filter of a DeleteAcls request against every ACL it holds, and refuses a
request that would delete more than 10,000 ACLs. Deleting D bindings through one concrete filter each
therefore costs D x (all ACLs): hours for 100,000. Instead, start from a root filter (the operator's
own filter, or match-all) and refine it, one dimension at a time, until each refined filter is *pure*
(among the current ACLs it matches only bindings to delete) and small enough. Refinements only add
constraints, so a refined filter never reaches beyond its root.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace

from kafkactl.acl.model import AclBinding, AclFilter, AclOperation, PatternType, Permission, ResourceType

# stay under the broker's 10,000 per request, with room for ACLs created since the listing
MAX_MATCHES_PER_REQUEST = 9_000
# each filter costs one pass over all ACLs on the controller thread
MAX_FILTERS_PER_REQUEST = 200


@dataclass(frozen=True)
class PlannedFilter:
    filter: AclFilter
    expected: tuple[AclBinding, ...]


def _constrain_resource(f: AclFilter, b: AclBinding) -> AclFilter:
    return replace(f, resource_type=b.resource_type, resource_name=b.resource_name, pattern_type=b.pattern_type)


# (is this dimension still open on the filter?, the key of a binding, constrain the filter to a binding's value)
_DIMENSIONS: tuple[tuple[Callable[[AclFilter], bool], Callable[[AclBinding], object],
                         Callable[[AclFilter, AclBinding], AclFilter]], ...] = (
    (lambda f: f.principal is None, lambda b: b.principal, lambda f, b: replace(f, principal=b.principal)),
    (lambda f: f.resource_type is ResourceType.ANY, lambda b: b.resource_type,
     lambda f, b: replace(f, resource_type=b.resource_type)),
    (lambda f: f.resource_name is None or f.pattern_type in (PatternType.ANY, PatternType.MATCH),
     lambda b: b.resource, _constrain_resource),
    (lambda f: f.operation is AclOperation.ANY, lambda b: b.operation, lambda f, b: replace(f, operation=b.operation)),
    (lambda f: f.permission is Permission.ANY, lambda b: b.permission,
     lambda f, b: replace(f, permission=b.permission)),
    (lambda f: f.host is None, lambda b: b.host, lambda f, b: replace(f, host=b.host)),
)


def plan_filters(root: AclFilter, delete: Iterable[AclBinding], universe: Iterable[AclBinding],
                 limit: int = MAX_MATCHES_PER_REQUEST) -> list[PlannedFilter]:
    """Filters under `root` whose matches within `universe` are exactly `delete`, each at most `limit`.

    `universe` must hold every current ACL that `root` matches (the listing just taken).
    """
    todo = set(delete)
    scope = [b for b in set(universe) if root.matches(b)]
    missing = todo - set(scope)
    if missing:
        raise ValueError(f"{len(missing)} bindings to delete are not matched by the root filter")
    out: list[PlannedFilter] = []
    _split(root, sorted(todo), scope, limit, out)
    return out


def _split(f: AclFilter, delete: list[AclBinding], scope: list[AclBinding], limit: int,
           out: list[PlannedFilter]) -> None:
    if not delete:
        return
    if len(delete) == len(scope) and len(delete) <= limit:
        out.append(PlannedFilter(f, tuple(delete)))
        return
    open_dims = [d for d in _DIMENSIONS if d[0](f)]
    if not open_dims:  # fully concrete: matches one binding at most, so it is pure
        out.append(PlannedFilter(f, tuple(delete)))
        return
    # refine along the dimension with the fewest distinct values among the bindings to delete:
    # one value narrows the scope for free, many values multiply the filters
    _, key, constrain = min(open_dims, key=lambda d: len({d[1](b) for b in delete}))
    groups: dict[object, list[AclBinding]] = {}
    for b in delete:
        groups.setdefault(key(b), []).append(b)
    # every binding in scope already matches f, so it matches the refined filter iff its key is equal
    scope_groups: dict[object, list[AclBinding]] = {}
    for b in scope:
        scope_groups.setdefault(key(b), []).append(b)
    for value, members in groups.items():
        _split(constrain(f, members[0]), members, scope_groups.get(value, []), limit, out)


def batch(planned: Sequence[PlannedFilter], max_matches: int = MAX_MATCHES_PER_REQUEST,
          max_filters: int = MAX_FILTERS_PER_REQUEST) -> list[list[PlannedFilter]]:
    """Group filters into requests under the per-request match limit and a bound on filters."""
    batches: list[list[PlannedFilter]] = []
    current: list[PlannedFilter] = []
    count = 0
    for p in planned:
        n = len(p.expected)
        if current and (count + n > max_matches or len(current) >= max_filters):
            batches.append(current)
            current, count = [], 0
        current.append(p)
        count += n
    if current:
        batches.append(current)
    return batches
