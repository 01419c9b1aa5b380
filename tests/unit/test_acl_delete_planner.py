"""The delete planner: exact, bounded, never wider than its root (property-tested)."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from kafkactl.acl.deletes import batch, plan_filters
from kafkactl.acl.model import AclBinding, AclFilter, AclOperation, PatternType, Permission, ResourceType

bindings = st.builds(
    AclBinding,
    st.sampled_from([ResourceType.TOPIC, ResourceType.GROUP, ResourceType.TRANSACTIONAL_ID]),
    st.sampled_from(["a", "a.b", "b", "*", "a.b.c"]),
    st.sampled_from([PatternType.LITERAL, PatternType.PREFIXED]),
    st.sampled_from(["User:x", "User:y", "User:*", "Group:z"]),
    st.sampled_from(["*", "127.0.0.1", "10.0.0.1"]),
    st.sampled_from([AclOperation.READ, AclOperation.WRITE, AclOperation.DESCRIBE, AclOperation.ALL]),
    st.sampled_from([Permission.ALLOW, Permission.DENY]),
)
roots = st.sampled_from([
    AclFilter(),
    AclFilter(principal="User:x"),
    AclFilter(ResourceType.TOPIC, "a.b.c", PatternType.MATCH),
    AclFilter(ResourceType.ANY, "a", PatternType.ANY),
    AclFilter(operation=AclOperation.READ, permission=Permission.ALLOW),
])


@settings(max_examples=300, deadline=None)
@given(universe=st.sets(bindings, max_size=60), root=roots, data=st.data(), limit=st.integers(1, 12))
def test_planned_filters_delete_exactly_the_chosen_bindings(universe, root, data, limit):
    scope = [x for x in universe if root.matches(x)]
    chosen = set(data.draw(st.lists(st.sampled_from(sorted(scope)), unique=True))) if scope else set()
    planned = plan_filters(root, chosen, universe, limit=limit)
    covered = set()
    for p in planned:
        matched = {x for x in universe if p.filter.matches(x)}
        assert matched == set(p.expected)  # pure: nothing outside the chosen set
        assert len(p.expected) <= limit or len(matched) <= 1
        assert all(root.matches(x) for x in matched)  # never wider than the root
        covered |= matched
    assert covered == chosen


def test_one_broad_filter_when_everything_it_matches_goes():
    universe = {AclBinding(ResourceType.TOPIC, f"t{i}", PatternType.LITERAL, "User:x", "*", AclOperation.READ,
                           Permission.ALLOW) for i in range(50)}
    [p] = plan_filters(AclFilter(principal="User:x"), universe, universe)
    assert p.filter == AclFilter(principal="User:x")


def test_over_the_limit_is_split_along_the_fewest_values():
    universe = {AclBinding(ResourceType.TOPIC, f"t{i}", PatternType.LITERAL, f"User:p{i % 3}", "*", AclOperation.READ,
                           Permission.ALLOW) for i in range(30)}
    planned = plan_filters(AclFilter(), universe, universe, limit=10)
    assert sorted(p.filter.principal for p in planned) == ["User:p0", "User:p1", "User:p2"]


def test_batches_respect_match_and_filter_bounds():
    universe = [AclBinding(ResourceType.TOPIC, f"t{i}", PatternType.LITERAL, f"User:p{i}", "*", AclOperation.READ,
                           Permission.ALLOW) for i in range(25)]
    planned = plan_filters(AclFilter(), universe, universe, limit=1)
    requests = batch(planned, max_matches=10, max_filters=4)
    assert all(sum(len(p.expected) for p in r) <= 10 and len(r) <= 4 for r in requests)
    assert sum(len(r) for r in requests) == 25
