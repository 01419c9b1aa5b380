"""The Arrow diff and the Python diff give the same plan, row for row (property test)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings, strategies as st

from kafkactl.acl.model import AclBinding, AclOperation, PatternType, Permission, ResourceType
from kafkactl.desired.arrow_diff import bindings_table, diff_tables
from kafkactl.desired.plan import Guards, diff_cluster
from kafkactl.desired.state import Scope

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


ROW = {"principal": "User:team-1", "host": "*", "operation": "READ", "permission": "ALLOW", "resource_type": "TOPIC",
       "resource_name": "a", "pattern_type": "LITERAL"}
HEAD = json.dumps({"kind": "scope", "principalPrefixes": ["User:"]}) + "\n"


@pytest.mark.parametrize("name,text", [
    ("ok.jsonl", HEAD + json.dumps(ROW) + "\n\n" + json.dumps({**ROW, "resource_name": "b"}) + "\n"),
    ("split.jsonl", HEAD + json.dumps(ROW).replace(", ", ",\n", 1) + "\n"),  # one object over two lines
    ("two.jsonl", HEAD + json.dumps(ROW) + " " + json.dumps(ROW) + "\n"),  # two objects on one line
    ("ignored.jsonl", HEAD + json.dumps({**ROW, "note": "\ud800"}) + "\n"),  # a field nobody reads, invalid to Arrow
    ("latin1.jsonl", HEAD + json.dumps({**ROW, "note": "x"}).replace('"x"', '"\xe9"') + "\n"),
    ("late.jsonl", HEAD + json.dumps(ROW) + "\n" + HEAD),
    ("kind.jsonl", HEAD + json.dumps({**ROW, "kind": "row"}) + "\n"),
    ("ctrl.jsonl", HEAD + json.dumps({**ROW, "principal": "User:a\t"}) + "\n"),  # Arrow trims a tab, Python refuses it
    ("spelt.csv", ",".join(ROW) + "\n" + ",".join(ROW.values()).replace("LITERAL", "Lit-eral") + "\n"),
    ("header.csv", ",".join(ROW)),  # no rows, no line end: Arrow's reader refuses it
    ("short.csv", ",".join(ROW) + "\nUser:a,*\n"),
    ("huge.csv", ",".join(ROW) + "\n" + ",".join(ROW.values()).replace(",a,", "," + "x" * 200_000 + ",") + "\n"),
])
def test_the_arrow_reader_reads_what_the_python_loader_reads_or_fails_as_it_does(tmp_path, name, text):
    from kafkactl.desired.arrow_diff import read_flat
    from kafkactl.desired.formats import read_state
    from kafkactl.desired.formats.flat import flat_row
    from kafkactl.desired.state import StateFileError

    f = tmp_path / name
    f.write_bytes(text.encode("latin-1" if "latin1" in name else "utf-8", "surrogatepass"))
    (tmp_path / "s.yaml").write_text("scope:\n  principalPrefixes: ['User:']\nacls: []\n")
    scope_file = str(tmp_path / "s.yaml") if name.endswith(".csv") else None
    try:
        want = {tuple(flat_row(b).values()) for b in read_state([str(f)], scope_file).bindings}
    except StateFileError as exc:
        with pytest.raises(StateFileError) as arrow:
            read_flat(str(f), read_state([str(f)], scope_file, flat_rows=False).scope)
        assert arrow.value.message == exc.message
        return
    table = read_flat(str(f), read_state([str(f)], scope_file, flat_rows=False).scope)
    assert {tuple(r.values()) for r in table.to_pylist()} == want
