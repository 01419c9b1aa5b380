"""--acls-file reading for the authorizer's questions: the whole file, and the one-resource scan that decodes only
the rows whose name can cover the resource. The scan must find exactly what the whole read finds."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from kafkactl.acl.authorizer import Authorizer
from kafkactl.acl.model import AclBinding, AclOperation, PatternType, Permission, ResourceType
from kafkactl.desired.aclset import _scan, load_acl_set
from kafkactl.desired.state import StateFileError

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
                     + "".join(json.dumps(r, ensure_ascii=False, separators=sep) + "\n" for r in data),
                     encoding="utf-8")
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


def test_the_scan_reads_whole_when_an_unpaired_quote_puts_braces_inside_a_string(tmp_path):
    """A cut key ("resourcePrefi[[[]]]}, {") leaves every brace paired while the file's strings are not: the
    second row is text inside a string, and the scan must not answer from it (a fuzz case found in CI)."""
    broken = json.dumps({**ROW, "resource_name": "team-a.[y]"})[:-1] + ', "resourcePrefi[[[]]]}, '
    second = json.dumps({**ROW, "resource_type": "GROUP", "resource_name": "team-a.orders"})[1:]
    f = tmp_path / "a.json"
    f.write_text("[" + broken + "{" + second + "]")
    assert _scan(f, "team-a.orders") is None
    with pytest.raises(StateFileError, match=r"a.json:1:\d+: not valid JSON"):
        load_acl_set(str(f), "team-a.orders")


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


ROW = {"resource_type": "TOPIC", "resource_name": "orders", "pattern_type": "LITERAL", "principal": "User:x",
       "host": "*", "operation": "READ", "permission": "DENY"}


@pytest.mark.parametrize("text", [
    json.dumps(ROW) + "\n\n" + json.dumps({**ROW, "principal": "User:y"}) + "\n",  # a blank line
    json.dumps(ROW) + "\n" + json.dumps({**ROW, "resource_name": ["orders"]}) + "\n",  # a name that is not a string
    json.dumps(ROW) + "\n" + json.dumps(ROW).replace("resource_name", "resource_nam") + "\n",  # a mistyped key
    json.dumps(ROW) + "\n" + json.dumps({**ROW, "resource_name": "ord\xe9rs"}) + "\n",  # an escaped string
])
def test_the_scan_reads_whole_when_a_row_that_could_concern_the_resource_might_be_passed_over(tmp_path, text):
    f = tmp_path / "a.jsonl"
    f.write_bytes(text.encode("utf-8"))
    assert _scan(f, "orders") is None


def _row(**kw) -> str:
    return json.dumps({**ROW, **kw})


SCOPE = '{"kind": "scope", "principalPrefixes": ["User:"]}'
# a JSONL row cut after its key (the rest on the next line), the count of keys made good by a row holding the key
# in nested objects: the scan's pattern once took the newline as whitespace and read the two lines as one row
_CUT = _row()[:-1].split('"resource_name": "orders"')
_SPLIT = _CUT[0] + '"resource_name"\n: "orders"' + _CUT[1] + "}"
_NESTED_KEYS = _row(resource_name="other", meta={"resource_name": "a"}, meta2={"resource_name": "b"})


@pytest.mark.parametrize("suffix, text", [
    ("jsonl", SCOPE + "\n" + _SPLIT + "\n" + _NESTED_KEYS + "\n"),
    ("jsonl", _row(resource_name="x", note="kind", meta={"resource_name": "a"}) + "\n" + _SPLIT + "\n"),
    ("jsonl", _row().replace('"resource_name": ', '"resource_name" : ') + "\n" + _row(resource_name="x") + "\n"),
    ("json", "\x0b[" + _row() + "]"),  # \v and \f are not JSON's whitespace
    ("json", "[" + _row() + "\x0c, " + _row(resource_name="x") + "]"),
    # a mistyped key, made good by a row holding the key twice (neither value concerns the resource); in JSONL
    # the one fault the counts leave (see _one_name_a_line)
    ("json", "[" + _row(resource_name="x")[:-1] + ', "resource_name": "y"}, '
     + _row().replace("resource_name", "resource_nam") + "]"),
])
def test_the_scan_reads_whole_what_it_cannot_read_row_by_row(tmp_path, suffix, text):
    """Adversary pass: each of these passed a row that concerns 'orders' over, or read two lines as one row."""
    f = tmp_path / f"a.{suffix}"
    f.write_bytes(text.encode())
    assert _scan(f, "orders") is None
    try:
        whole = load_acl_set(str(f))
    except StateFileError:
        with pytest.raises(StateFileError):
            load_acl_set(str(f), "orders")
        return
    assert "orders" in {b.resource_name for b in whole} and load_acl_set(str(f), "orders") == whole


def test_a_long_group_name_is_scanned_not_a_recursion_error(tmp_path):
    """A group name of 600 bytes nested the pattern 600 deep: 'unexpected RecursionError', exit 1."""
    name = "g" * 600
    rows = [{**ROW, "resource_type": "GROUP", "resource_name": n, "pattern_type": p}
            for n, p in ((name, "LITERAL"), ("g" * 70, "PREFIXED"), ("g" * 10, "PREFIXED"), ("g" * 601, "LITERAL"),
                         ("*", "LITERAL"), ("h", "PREFIXED"))]
    f = tmp_path / "a.jsonl"
    f.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert sorted(b.resource_name for b in _scan(f, name)) == sorted(["*", "g" * 10, "g" * 70, name])


def test_the_scan_refuses_what_the_whole_read_refuses(tmp_path):
    f = tmp_path / "a.jsonl"
    deep = '{"kind": "scope", "principals": ' + "[" * 5000 + "]" * 5000 + "}\n" + json.dumps(ROW) + "\n"
    for data, needle in ((deep.encode(), r"a.jsonl:1: not valid JSON \(nested deeper than 64 levels\)"),
                         (json.dumps(ROW).encode("utf-16"), r"a.jsonl: not UTF-8 \(it starts with a UTF-16"),
                         ((json.dumps(ROW) + "\n" + json.dumps(ROW).replace("User:x", "User:\xe9")).encode("latin-1"),
                          r"a.jsonl:2: not UTF-8"),
                         (b"[[[[[[[[", r"a.jsonl:1: not valid JSON"),
                         (json.dumps(ROW)[:-1].encode() + b', "host": "1.2.3.4"}', r"a.jsonl:1: duplicate key 'host'"),
                         (json.dumps({**ROW, "host": "*\x00"}).encode(),
                          r"a.jsonl:1: host '\*\\x00': contains a control")):
        f.write_bytes(data)
        with pytest.raises(StateFileError, match=needle):
            load_acl_set(str(f), "orders")


def test_a_json_list_error_names_line_and_column_or_item(tmp_path):
    f = tmp_path / "a.json"
    f.write_text(json.dumps([ROW, ROW]).replace('"DENY"}, {', '"DENY"} {'))
    with pytest.raises(StateFileError, match=r"a.json:1:\d+: not valid JSON \(Expecting ',' delimiter\)"):
        load_acl_set(str(f))
    f.write_text(json.dumps([ROW, {**ROW, "host": "10.0.0.1"}]).replace('"host": "10.0.0.1"',
                                                                        '"host": "1", "host": "2"'))
    with pytest.raises(StateFileError, match=r"a.json item 2: duplicate key 'host'"):
        load_acl_set(str(f))
    f.write_text("[" * 5000)
    with pytest.raises(StateFileError, match=r"a.json:1:65: not valid JSON \(nested deeper than 64 levels\)"):
        load_acl_set(str(f))


def test_bad_acls_files_exit_2_with_one_line_through_the_command_tree(tmp_path):
    from tests.conftest import run

    files = {"a.jsonl": json.dumps(ROW).encode("utf-16"), "b.json": b"[" * 100_000,
             "c.csv": b"principal,host\n", "d.parquet": b"PAR1garbagePAR1", "e.yaml": b"[" * 100_000,
             "f.jsonl": json.dumps({**ROW, "resource_name": "a\x00"}).encode()}
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
        for args in (("acls", "lint"),
                     ("acls", "check", "--principal", "User:x", "--operation", "Read", "--topic", "a")):
            r = run(*args, "--acls-file", str(tmp_path / name))
            assert r.exit_code == 2, (name, r.output)
            assert r.stderr.startswith(f"error: {tmp_path / name}") and r.stderr.count("\n") == 1, (name, r.stderr)


def test_what_kafkactl_writes_takes_the_fast_path(tmp_path):
    """Review: the scan once took only a flat scope line, and `acls export --prefix` nests its prefixes: every
    check of an exported file read the whole file. Exported JSONL and a JSON list as `acls list -o json` writes
    it are scanned (not None), and find what the whole read finds."""
    import io

    from kafkactl.desired.formats.flat import flat_row, write_jsonl
    from kafkactl.desired.state import Scope

    bindings = [AclBinding(ResourceType.TOPIC, n, p, "User:team-a", "*", AclOperation.READ, Permission.ALLOW)
                for n, p in (("team-a.orders", PatternType.LITERAL), ("team-a.", PatternType.PREFIXED),
                             ("team-b.x", PatternType.LITERAL))]
    out = io.StringIO()
    write_jsonl(bindings, Scope(principal_prefixes=("User:team-",), resource_prefixes={ResourceType.TOPIC: ("team-",)}),
                out)
    assert out.getvalue().startswith('{"kind": "scope"') and "{" in out.getvalue().split("\n")[0][1:]
    files = {"e.jsonl": out.getvalue(), "l.json": json.dumps([{**flat_row(b)} for b in bindings], indent=2)}
    for name, text in files.items():
        f = tmp_path / name
        f.write_text(text)
        found = _scan(f, "team-a.orders")
        assert found is not None, name
        assert sorted(b.resource_name for b in found) == ["team-a.", "team-a.orders"], name
    # a first row holding "kind" as a value is a row, not a scope line
    f = tmp_path / "k.jsonl"
    f.write_text(_row(resource_name="kind") + "\n" + _row() + "\n")
    assert [b.resource_name for b in _scan(f, "orders")] == ["orders"]
