"""The Arrow diff and the Python diff give the same plan, row for row (property test)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kafkactl.acl.model import AclBinding, AclOperation, PatternType, Permission, ResourceType
from kafkactl.bulk.arrow_diff import bindings_table, diff_tables
from kafkactl.bulk.plan import Guards, diff_cluster
from kafkactl.bulk.state import Scope

bindings = st.builds(
    AclBinding, st.sampled_from([ResourceType.TOPIC, ResourceType.GROUP]), st.sampled_from(["a", "a.b", "t-1", "ü"]),
    st.sampled_from([PatternType.LITERAL, PatternType.PREFIXED]),
    st.sampled_from(["User:team-1", "User:team-2", "User:admin", "User:other", "User:keep-x"]),
    st.sampled_from(["*", "10.0.0.1"]), st.sampled_from([AclOperation.READ, AclOperation.DESCRIBE, AclOperation.ALL]),
    st.sampled_from([Permission.ALLOW, Permission.DENY]))
scopes = st.sampled_from([Scope(principal_prefixes=("User:team-",)), Scope(principal_prefixes=("User:",)),
                          Scope(resource_prefixes={ResourceType.TOPIC: ("a",)}),
                          Scope(principals=frozenset({"User:other"}), resource_prefixes={ResourceType.GROUP: ("",)})])


@settings(max_examples=200, deadline=None)
@given(current=st.sets(bindings, max_size=40), desired=st.lists(bindings, max_size=60), scope=scopes,
       no_delete=st.booleans())
def test_arrow_and_python_diffs_agree(current, desired, scope, no_delete):
    # desired is a list: files may repeat a binding, the Arrow side sees every repeat, the Python side a set
    desired = [b for b in desired if scope.contains(b)]  # the loaders refuse desired outside the scope
    guards = Guards(protect=("User:keep-*",), no_delete=no_delete)
    py = diff_cluster("c", current, set(desired), scope, guards, ["User:admin"])
    ar = diff_tables("c", bindings_table(desired), bindings_table(current), scope, guards, ["User:admin"])
    assert [(r.phase, r.action, r.binding) for r in py.rows] == [(r.phase, r.action, r.binding) for r in ar.rows]
    assert (py.current_in_scope, py.desired, py.protected_skipped, py.deletes_withheld) == \
        (ar.current_in_scope, ar.desired, ar.protected_skipped, ar.deletes_withheld)
    assert py.fingerprint() == ar.fingerprint()
