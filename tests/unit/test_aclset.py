"""--acls-file reading for the authorizer's questions: the whole file, and the one-resource scan that decodes only
the rows whose name can cover the resource. The scan must find exactly what the whole read finds."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kafkactl.acl.authorizer import Authorizer
from kafkactl.acl.model import AclBinding, AclOperation, PatternType, Permission, ResourceType
from kafkactl.bulk.aclset import _scan, load_acl_set
from kafkactl.bulk.state import StateFileError

NAMES = ["a", "a.b", "a.b(c)", "a+", "é", "é.ü", "*", "[x]", "a.b(c)d", "{g}"]
rows = st.builds(lambda n, p, t, perm, principal: {
    "resource_type": t, "resource_name": n, "pattern_type": p, "principal": principal, "host": "*",
    "operation": "READ", "permission": perm},
    st.sampled_from(NAMES), st.sampled_from(["LITERAL", "PREFIXED"]), st.sampled_from(["TOPIC", "GROUP"]),
    st.sampled_from(["ALLOW", "DENY"]), st.sampled_from(["User:alice", "User:*", "User:CN=x,O=y"]))


def relevant(bindings, name):
    az = Authorizer(bindings)
    return sorted(b for t in (ResourceType.TOPIC, ResourceType.GROUP) for b in az.relevant(t, name))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.lists(rows, max_size=15), name=st.sampled_from(NAMES + ["a.b(c)de", "zz", "é.üx"]),
       compact=st.booleans())
def test_the_scan_finds_what_the_whole_read_finds(tmp_path, data, name, compact):
    jsonl, js = tmp_path / "acls.jsonl", tmp_path / "acls.json"
    sep = (",", ":") if compact else (", ", ": ")
    jsonl.write_text(json.dumps({"kind": "scope", "principalPrefixes": ["User:"]}) + "\n"
                     + "".join(json.dumps(r, ensure_ascii=False, separators=sep) + "\n" for r in data), encoding="utf-8")
    js.write_text(json.dumps(data, indent=None if compact else 2, ensure_ascii=False), encoding="utf-8")
    for f in (jsonl, js):
        whole = load_acl_set(str(f))
        assert relevant(load_acl_set(str(f), name), name) == relevant(whole, name)


def test_the_scan_steps_aside_when_strings_are_escaped_or_braces_ambiguous(tmp_path):
    f = tmp_path / "a.jsonl"
    f.write_text(json.dumps({"resource_type": "TOPIC", "resource_name": "a\u00e9", "pattern_type": "LITERAL",
                             "principal": "User:x", "host": "*", "operation": "READ", "permission": "ALLOW"}) + "\n")
    assert _scan(f, "a\u00e9") is None  # ensure_ascii wrote \\u00e9: read whole
    assert [b.resource_name for b in load_acl_set(str(f), "a\u00e9")] == ["a\u00e9"]
    g = tmp_path / "a.json"
    g.write_text(json.dumps([{"resource_type": "GROUP", "resource_name": "{", "pattern_type": "LITERAL",
                              "principal": "User:x", "host": "*", "operation": "READ", "permission": "ALLOW"}]))
    assert _scan(g, "{") is None


def test_a_broken_candidate_row_is_reported_with_its_line(tmp_path):
    f = tmp_path / "a.jsonl"
    f.write_text('{"kind": "scope"}\n{"resource_type": "TOPIC", "resource_name": "orders", "pattern_type": "LITERAL",'
                 ' "principal": "alice", "host": "*", "operation": "READ", "permission": "ALLOW"}\n')
    with pytest.raises(StateFileError, match=r"a.jsonl:2: .*alice"):
        load_acl_set(str(f), "orders")


def test_unsupported_operations_are_kept_for_lint(tmp_path):
    f = tmp_path / "a.json"
    f.write_text(json.dumps([{"resource_type": "GROUP", "resource_name": "g", "pattern_type": "LITERAL",
                              "principal": "User:x", "operation": "WRITE", "permission": "ALLOW"}]))
    assert load_acl_set(str(f)) == [AclBinding(ResourceType.GROUP, "g", PatternType.LITERAL, "User:x", "*",
                                               AclOperation.WRITE, Permission.ALLOW)]
