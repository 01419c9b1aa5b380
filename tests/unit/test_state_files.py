"""Desired-state files: every malformed input fails with file, line/row and field named."""

from __future__ import annotations

import json

import pytest

from kafkactl.acl.model import AclBinding, AclOperation, PatternType, Permission, ResourceType
from kafkactl.desired.formats import read_state
from kafkactl.desired.plan import Guards, diff_cluster
from kafkactl.desired.state import Scope, StateFileError
from kafkactl.errors import UsageError

GOOD = """apiVersion: kafkactl/v1
kind: AclState
scope:
  principalPrefixes: ["User:team-a-"]
acls:
  - principal: User:team-a-app
    allow:
      - topic: team-a.orders
        operations: [Read, Write]
"""


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return str(p)


@pytest.mark.parametrize("text,needle", [
    ("scope: [unclosed\n", r"x.yaml:\d+: not valid YAML"),
    (GOOD.replace("Read, Write", "Read, Wirte"),
     r"x.yaml:8: operation 'Wirte' is not an operation \(did you mean Write\?\)"),
    (GOOD.replace("Read, Write", "Read, IdempotentWrite"),
     r"x.yaml:8: operation IdempotentWrite is not supported on TOPIC"),
    (GOOD.replace("principal: User:team-a-app", "principal: team-a-app"),
     r"x.yaml:6: acls.0.principal: 'team-a-app' does not match"),
    (GOOD.replace("  - principal: User:team-a-app\n", "  - hosts: ['*']\n"),
     r"x.yaml:6: acls.0: 'principal' is a required property"),
    (GOOD.replace("topic: team-a.orders", "topik: team-a.orders"),
     r"x.yaml:8: acls.0.allow.0: Additional properties are not allowed \('topik'"),
    (GOOD.replace("topic: team-a.orders", "topic: other.orders").replace("User:team-a-app", "User:other"),
     r"x.yaml:8: .* is outside the declared scope"),
    (GOOD.replace('scope:\n  principalPrefixes: ["User:team-a-"]\n', "scope: {}\n"), r"no scope declared"),
    (GOOD.replace("topic: team-a.orders", "cluster: other"), r"cluster"),
])
def test_yaml_errors_name_file_line_and_field(tmp_path, text, needle):
    with pytest.raises(StateFileError, match=needle):
        read_state([write(tmp_path, "x.yaml", text)])


def test_jsonl_errors_name_the_row_and_field(tmp_path):
    scope = json.dumps({"kind": "scope", "principalPrefixes": ["User:a"]})
    row = {"principal": "User:a", "host": "*", "operation": "READ", "permission": "ALLOW", "resource_type": "TOPIC",
           "resource_name": "t", "pattern_type": "LITERAL"}
    ok = write(tmp_path, "ok.jsonl", scope + "\n" + json.dumps(row) + "\n")
    assert len(read_state([ok]).bindings) == 1
    missing = dict(row)
    del missing["resource_name"]
    with pytest.raises(StateFileError, match=r"bad.jsonl:3: resource_name: missing"):
        read_state([write(tmp_path, "bad.jsonl", scope + "\n" + json.dumps(row) + "\n" + json.dumps(missing) + "\n")])
    with pytest.raises(StateFileError, match=r"bad2.jsonl:2: not valid JSON"):
        read_state([write(tmp_path, "bad2.jsonl", scope + "\n{oops\n")])
    with pytest.raises(StateFileError, match=r"bad3.jsonl:2: permission: 'MAYBE' is not valid"):
        read_state([write(tmp_path, "bad3.jsonl", scope + "\n" + json.dumps({**row, "permission": "MAYBE"}) + "\n")])


def test_csv_errors_name_the_row(tmp_path):
    header = "principal,host,operation,permission,resource_type,resource_name,pattern_type\n"
    scope = write(tmp_path, "scope.yaml", "scope:\n  principalPrefixes: [User:a]\nacls: []\n")
    f = write(tmp_path, "x.csv", header + "User:a,*,READ,ALLOW,TOPIC,t,LITERAL\nUser:a,*,READ,ALLOW,GROUP,g,WILDCARD\n")
    with pytest.raises(StateFileError, match=r"x.csv row 3: pattern 'WILDCARD' is not a pattern type"):
        read_state([f], scope)
    with pytest.raises(StateFileError, match="header row lacks .*pattern_type"):
        read_state([write(tmp_path, "y.csv", "principal,host\n")], scope)


def b(name, principal="User:a", perm=Permission.ALLOW, op=AclOperation.READ):
    return AclBinding(ResourceType.TOPIC, name, PatternType.LITERAL, principal, "*", op, perm)


def test_diff_only_deletes_inside_scope_and_never_protected():
    current = [b("t1"), b("t2"), b("x", "User:other"), b("t9", "User:admin"), b("t3", "User:keep-me")]
    scope = Scope(principal_prefixes=("User:",))
    plan = diff_cluster("c", current, [b("t1"), b("new", perm=Permission.DENY)], scope,
                        Guards(protect=("User:keep-*",)), super_users=["User:admin"])
    got = {(r.action, r.phase, r.binding.resource_name, r.binding.principal) for r in plan.rows}
    assert got == {("CREATE", 1, "new", "User:a"), ("DELETE", 3, "t2", "User:a"), ("DELETE", 3, "x", "User:other")}


def test_guards():
    current = [b(f"t{i}") for i in range(10)]
    scope = Scope(principal_prefixes=("User:a",))
    assert diff_cluster("c", current, [], scope, Guards(no_delete=True), []).deletes_withheld == 10
    from kafkactl.errors import UsageError

    with pytest.raises(UsageError, match="more than --max-deletes 50%"):
        diff_cluster("c", current, [b("t0")], scope, Guards(max_deletes="50%"), [])
    assert len(diff_cluster("c", current, [b("t0")], scope, Guards(max_deletes="9"), []).rows) == 9


ROW = {"principal": "User:h-app", "host": "*", "operation": "READ", "permission": "ALLOW", "resource_type": "TOPIC",
       "resource_name": "t", "pattern_type": "LITERAL"}


@pytest.mark.parametrize("scope_line,needle", [
    ({"kind": "scope", "principalPrefixes": "User:h-"},
     r"x.jsonl:1: scope.principalPrefixes: 'User:h-' is not of type 'array'"),
    ({"kind": "scope", "principals": "User:h-app"},
     r"x.jsonl:1: scope.principals: 'User:h-app' is not of type 'array'"),
    ({"kind": "scope", "resourcePrefixes": {"topic": "t"}},
     r"x.jsonl:1: scope.resourcePrefixes.topic: 't' is not of type 'array'"),
    ({"kind": "scope", "resourcePrefixes": ["topic"]},
     r"x.jsonl:1: scope.resourcePrefixes: \['topic'\] is not of type 'object'"),
    ({"kind": "scope", "principalPrefix": ["User:h-"]},
     r"x.jsonl:1: scope: Additional properties are not allowed \('principalPrefix'"),
])
def test_a_jsonl_scope_line_of_the_wrong_shape_never_widens_the_scope(tmp_path, scope_line, needle):
    text = json.dumps(scope_line) + "\n" + json.dumps(ROW) + "\n"
    for flat_rows in (True, False):  # the in-process reader and the Spark engine's scope-only reader
        with pytest.raises(StateFileError, match=needle):
            read_state([write(tmp_path, "x.jsonl", text)], flat_rows=flat_rows)


def test_a_parquet_scope_of_the_wrong_shape_names_the_metadata(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    for meta, needle in (('{"principalPrefixes": "User:h-"}',
                          r"x.parquet metadata kafkactl.scope: scope.principalPrefixes: 'User:h-' is not of type"),
                         ('not json', r"x.parquet metadata kafkactl.scope: not valid JSON"),
                         ('["User:h-"]',
                          r"x.parquet metadata kafkactl.scope: scope: \['User:h-'\] is not of type 'object'"),
                         (b'\xff\xfe', r"x.parquet metadata kafkactl.scope: not UTF-8")):
        table = pa.Table.from_pylist([ROW]).replace_schema_metadata({"kafkactl.scope": meta})
        pq.write_table(table, tmp_path / "x.parquet")
        for flat_rows in (True, False):
            with pytest.raises(StateFileError, match=needle):
                read_state([str(tmp_path / "x.parquet")], flat_rows=flat_rows)


def test_a_scope_file_of_the_wrong_shape_is_refused(tmp_path):
    scope = write(tmp_path, "scope.yaml", "scope:\n  principalPrefixes: User:h-\nacls: []\n")
    csv_file = write(tmp_path, "x.csv", ",".join(ROW) + "\n" + ",".join(ROW.values()) + "\n")
    with pytest.raises(StateFileError,
                       match=r"scope.yaml:2: scope.principalPrefixes: 'User:h-' is not of type 'array'"):
        read_state([csv_file], scope)


def test_a_scope_dimension_given_is_not_empty(tmp_path):
    # an empty list would read as undeclared, so as unconstrained: wider than a file that names the dimension
    line = json.dumps({"kind": "scope", "principalPrefixes": [], "resourcePrefixes": {"topic": ["t"]}})
    with pytest.raises(StateFileError, match=r"x.jsonl:1: scope.principalPrefixes: \[\] should be non-empty"):
        read_state([write(tmp_path, "x.jsonl", line + "\n" + json.dumps(ROW) + "\n")])


def test_a_missing_scope_file_is_named(tmp_path):
    csv_file = write(tmp_path, "x.csv", ",".join(ROW) + "\n")
    from kafkactl.errors import MissingFileError

    with pytest.raises(MissingFileError, match=r"nope.yaml: no such file"):  # exit 7, as every missing file
        read_state([csv_file], str(tmp_path / "nope.yaml"))


JSONL_HEAD = json.dumps({"kind": "scope", "principalPrefixes": ["User:"]}) + "\n"
YAML_HEAD = "scope:\n  principalPrefixes: ['User:']\nacls:\n"


def parquet_bytes(tmp_path, table) -> bytes:
    import pyarrow.parquet as pq

    pq.write_table(table, tmp_path / "t.parquet")
    return (tmp_path / "t.parquet").read_bytes()


def bad_parquets(tmp_path):
    import pyarrow as pa

    good = pa.Table.from_pylist([ROW]).replace_schema_metadata({"kafkactl.scope": '{"principalPrefixes": ["User:"]}'})
    data = parquet_bytes(tmp_path, good)
    return [
        (b"PAR1 not really", r"x.parquet: not a readable Parquet file"),
        (data[:len(data) // 2], r"x.parquet: not a readable Parquet file"),
        (parquet_bytes(tmp_path, pa.table({**{k: [v] for k, v in ROW.items()}, "principal": [5]})),
         r"x.parquet: column principal: int64, not strings"),
        (parquet_bytes(tmp_path, good.replace_schema_metadata({"kafkactl.scope": "{"})),
         r"x.parquet metadata kafkactl.scope: not valid JSON"),
        (parquet_bytes(tmp_path, good.replace_schema_metadata({"kafkactl.scope": '"User:"'})),
         r"x.parquet metadata kafkactl.scope: scope: 'User:' is not of type 'object'"),
        (parquet_bytes(tmp_path, pa.Table.from_pylist([{**ROW, "resource_name": "a\x00b"}])
                       .replace_schema_metadata(good.schema.metadata)),
         r"x.parquet row 1: resource_name 'a\\x00b': contains a control character"),
    ]


BAD_FILES = [
    # not UTF-8: the line of the first bad byte, or the UTF-16 byte-order mark
    ("x.yaml", (YAML_HEAD + "  - principal: User:\xe9\n").encode("latin-1"), r"x.yaml:4: not UTF-8 \(byte 0xe9"),
    ("x.jsonl", (JSONL_HEAD + json.dumps(ROW)).encode("utf-16"), r"x.jsonl: not UTF-8 \(it starts with a UTF-16"),
    ("x.jsonl", (JSONL_HEAD + json.dumps(ROW).replace("User:h-app", "User:\xe9")).encode("latin-1"),
     r"x.jsonl:2: not UTF-8 \(byte 0xe9"),
    ("x.csv", (",".join(ROW) + "\n" + ",".join(ROW.values()).replace(",t,", ",\xe9,")).encode("latin-1"),
     r"x.csv:2: not UTF-8"),
    # nesting: YAML beyond 64 levels (libyaml's own composer would crash the process near 30,000), JSON too
    ("x.yaml", (YAML_HEAD + "  - principal: " + "[" * 100_000).encode(),
     r"x.yaml:4: not valid YAML \(nested deeper than 64"),
    ("x.jsonl", (JSONL_HEAD + "[" * 100_000 + "]" * 100_000).encode(), r"x.jsonl:2: not valid JSON \(nested deeper"),
    # ... and through aliases: each anchor 40 levels deep holds the one before (adversary pass on issue 18: exit 1
    # on a RecursionError once jsonschema walked the expanded document)
    ("x.yaml", (YAML_HEAD + "".join(f"  - principal: User:a{n}\n    hosts: &d{n} {'[' * 40}{f'*d{n - 1}' if n else 'x'}"
                                    f"{']' * 40}\n" for n in range(20))).encode(),
     r"x.yaml:\d+: not valid YAML \(nested deeper than 64 levels \(with its aliases expanded\)\)"),
    # a key given twice: refused everywhere (a scope must not lose or gain a dimension silently)
    ("x.yaml", YAML_HEAD.replace("acls:", "  principalPrefixes: ['']\nacls:").encode(),
     r"x.yaml:3: not valid YAML \(duplicate key 'principalPrefixes'\)"),
    ("x.jsonl", JSONL_HEAD.replace("}", ', "principalPrefixes": [""]}').encode(),
     r"x.jsonl:1: duplicate key 'principalPrefixes'"),
    ("x.jsonl", (JSONL_HEAD + json.dumps(ROW)[:-1] + ', "host": "10.0.0.1"}').encode(),
     r"x.jsonl:2: duplicate key 'host'"),
    ("x.csv", ("principal," + ",".join(ROW) + "\nUser:x," + ",".join(ROW.values())).encode(),
     r"x.csv: header row names 'principal' more than once"),
    # CSV shapes: a field over csv's 128 KiB limit, a row longer or shorter than the header
    ("x.csv", (",".join(ROW) + "\n" + ",".join(ROW.values()).replace(",t,", "," + "x" * 200_000 + ",")).encode(),
     r"x.csv row 2: not valid CSV \(field larger than field limit"),
    ("x.csv", (",".join(ROW) + "\n" + ",".join(ROW.values()) + ",extra\n").encode(),
     r"x.csv row 2: 8 fields, the header has 7"),
    ("x.csv", (",".join(ROW) + "\nUser:a,*\n").encode(), r"x.csv row 2: 2 fields, the header has 7"),
    # control characters (C0, DEL, C1), unpaired surrogates and U+FFFD in principals, hosts and names
    ("x.jsonl", (JSONL_HEAD + json.dumps({**ROW, "principal": "User:a\nb"})).encode(),
     r"x.jsonl:2: principal 'User:a\\nb': contains a control character \('\\n' at position 6\)"),
    ("x.jsonl", (JSONL_HEAD + json.dumps({**ROW, "host": "10.0.0.1\x7f"})).encode(), r"x.jsonl:2: host .*'\\x7f'"),
    ("x.jsonl", (JSONL_HEAD + json.dumps({**ROW, "resource_name": "t\x9b"})).encode(),
     r"x.jsonl:2: resource_name .*'\\x9b'"),
    ("x.jsonl", (JSONL_HEAD + json.dumps({**ROW, "resource_name": "t\ud800"})).encode(),
     r"x.jsonl:2: .* an unpaired surrogate"),
    ("x.jsonl", (JSONL_HEAD + json.dumps({**ROW, "resource_name": "t\ufffd"})).encode(), r"x.jsonl:2: .* U\+FFFD"),
    ("x.yaml", (YAML_HEAD + '  - principal: User:a\n    allow: [{topic: "t\\0", operations: [Read]}]\n').encode(),
     r"x.yaml:5: topic 't\\x00': contains a control character"),
    ("x.yaml", (YAML_HEAD + '  - principal: "User:\\x01"\n').encode(), r"x.yaml:4: principal 'User:\\x01': contains"),
    ("x.csv", (",".join(ROW) + "\n" + ",".join(ROW.values()).replace(",t,", ",a\x00b,")).encode(),
     r"x.csv row 2: resource_name 'a\\x00b': contains a control character"),
    ("x.jsonl", json.dumps({"kind": "scope", "principalPrefixes": ["User:\x1b"]}).encode(),
     r"x.jsonl:1: scope.principalPrefixes 'User:\\x1b': contains a control character"),
    # every field of a flat row is a string
    ("x.jsonl", (JSONL_HEAD + json.dumps({**ROW, "resource_name": 5})).encode(),
     r"x.jsonl:2: resource_name: 5 is not a string"),
    ("x.jsonl", (JSONL_HEAD + json.dumps({**ROW, "host": ["*"]})).encode(),
     r"x.jsonl:2: host: \['\*'\] is not a string"),
    # YAML that no desired state needs, and that would otherwise crash or hang: aliases that loop or explode
    ("x.yaml", (YAML_HEAD + "  - &a {principal: User:a, allow: [*a]}\n").encode(),
     r"x.yaml:4: not valid YAML \(an alias refers"),
    ("x.yaml", ("a: &a [x, x, x, x, x, x, x, x, x, x]\n"
                + "".join(f"{c}: &{c} [{', '.join(['*' + p] * 10)}]\n" for p, c in zip("abcdefg", "bcdefgh"))
                + YAML_HEAD).encode(), r"x.yaml:1: not valid YAML \(aliases expand it"),
    ("x.yaml", (YAML_HEAD + "  - {principal: User:a, 7: x}\n").encode(),
     r"x.yaml:4: not valid YAML \(a key is not a string"),
    ("x.yaml", (YAML_HEAD + "  - {principal: 2020-13-45}\n").encode(),
     r"x.yaml: not valid YAML \(month must be in 1..12\)"),
    # the head of a JSONL file: the scope line first, clusters lines next, then bindings; no other kind
    ("x.jsonl", (json.dumps(ROW) + "\n" + JSONL_HEAD).encode(), r"x.jsonl:2: a scope line must be the first line"),
    ("x.jsonl", (JSONL_HEAD + json.dumps(ROW) + '\n{"kind": "clusters", "clusters": ["a"]}\n').encode(),
     r"x.jsonl:3: clusters lines come before the first binding line"),
    ("x.jsonl", (JSONL_HEAD + '{"kind": "clusters", "clusters": "prod"}\n').encode(),
     r"x.jsonl:2: clusters: 'prod' is not of type 'array'"),
    ("x.jsonl", (JSONL_HEAD + json.dumps({**ROW, "kind": "acl"})).encode(),
     r"x.jsonl:2: kind: 'acl' is not scope or clusters"),
]


@pytest.mark.parametrize("name,data,needle", BAD_FILES)
def test_bad_files_fail_with_exit_2_naming_file_line_and_field(tmp_path, name, data, needle):
    (tmp_path / name).write_bytes(data)
    scope = write(tmp_path, "scope.yaml", YAML_HEAD + "  []\n")
    with pytest.raises(StateFileError, match=needle) as exc:
        read_state([str(tmp_path / name)], scope if name.endswith(".csv") else None)
    assert "\n" not in exc.value.message and len(exc.value.message) < 400 and exc.value.exit_code == 2


def test_bad_parquet_files_name_the_file_row_and_field(tmp_path):
    for data, needle in bad_parquets(tmp_path):
        (tmp_path / "x.parquet").write_bytes(data)
        for flat_rows in (True, False):  # the Spark engine's head read checks the schema and metadata too
            if flat_rows or "row 1" not in needle:
                with pytest.raises(StateFileError, match=needle):
                    read_state([str(tmp_path / "x.parquet")], flat_rows=flat_rows)


def test_a_byte_order_mark_and_crlf_line_ends_are_read(tmp_path):
    (tmp_path / "x.jsonl").write_bytes(b"\xef\xbb\xbf"
                                       + (JSONL_HEAD + json.dumps(ROW) + "\n").replace("\n", "\r\n").encode())
    (tmp_path / "x.csv").write_bytes(b"\xef\xbb\xbf"
                                     + (",".join(ROW) + "\r\n" + ",".join(ROW.values()) + "\r\n").encode())
    scope = write(tmp_path, "scope.yaml", YAML_HEAD + "  []\n")
    assert len(read_state([str(tmp_path / "x.jsonl")]).bindings) == 1
    assert len(read_state([str(tmp_path / "x.csv")], scope).bindings) == 1


@pytest.mark.parametrize("text", ["", " ", "-1", "1e400%", "nan", "inf%", "101%", "1.5", "5 %", "５", "1" * 13, "%"])
def test_max_deletes_refuses_what_is_not_a_count_or_percentage(text):
    """Adversary pass: '' was taken as no limit, '1e400%' crashed, '-1' passed."""
    with pytest.raises(UsageError, match="--max-deletes"):
        Guards(max_deletes=text)


@pytest.mark.parametrize("text, in_scope, limit", [("0", 10, 0), ("7", 10, 7), ("50%", 9, 4), ("100%", 3, 3),
                                                   ("0.5%", 1000, 5), (" 12 ", 1, 12)])
def test_max_deletes_limits(text, in_scope, limit):
    assert Guards(max_deletes=text).delete_limit(in_scope) == limit


def test_a_scope_file_may_hold_only_its_scope(tmp_path):
    """`--scope FILE` for a CSV state: `scope:` alone is enough (it asked for an empty `acls:` before); the scope is
    still checked against the schema, so a string where a list belongs stays an error."""
    rows = write(tmp_path, "s.csv", "principal,host,operation,permission,resource_type,resource_name,pattern_type\n"
                                    "User:x,*,READ,ALLOW,TOPIC,t,LITERAL\n")
    state = read_state([rows], write(tmp_path, "scope.yaml", "scope:\n  principals: ['User:x']\n"))
    assert state.scope.principals == frozenset({"User:x"}) and len(state.bindings) == 1
    with pytest.raises(StateFileError, match="scope.principals: 'User:x' is not of type 'array'"):
        read_state([rows], write(tmp_path, "bad.yaml", "scope:\n  principals: User:x\n"))


def _scope_doc(tmp_path, name: str, scope: str, acls: str = "[]") -> str:
    return write(tmp_path, name, f"apiVersion: kafkactl/v1\nkind: AclState\nscope: {scope}\nacls: {acls}\n")


A_ON_X = "{principals: ['User:a'], resourcePrefixes: {topic: ['x.']}}"
B_ON_Y = "{principals: ['User:b'], resourcePrefixes: {topic: ['y.']}}"


def test_two_files_whose_scopes_make_no_one_scope_are_refused(tmp_path):
    """The adversary's widening: a scope for User:a on x.* and one for User:b on y.* merged per dimension would
    manage User:a on y.* (and b on x.*), and plan deletes of ACLs neither file mentions."""
    a, b = _scope_doc(tmp_path, "a.yaml", A_ON_X), _scope_doc(tmp_path, "b.yaml", B_ON_Y)
    with pytest.raises(StateFileError, match=r"b.yaml:3: its scope .* differ in principals and in resources"):
        read_state([a, b])
    # the same through --scope FILE, a JSONL scope line and Parquet metadata
    with pytest.raises(StateFileError, match=r"--scope .*b.yaml: its scope"):
        read_state([a], b)
    jl = write(tmp_path, "b.jsonl", json.dumps({"kind": "scope", "principals": ["User:b"],
                                                "resourcePrefixes": {"topic": ["y."]}}) + "\n")
    with pytest.raises(StateFileError, match=r"b.jsonl:1: its scope"):
        read_state([a, jl])
    # an undeclared dimension is every principal (or resource): User:b on everything with User:a on x.* is no
    # one scope either
    every = _scope_doc(tmp_path, "c.yaml", "{principals: ['User:b']}")
    with pytest.raises(StateFileError, match="no one scope is their union"):
        read_state([a, every])


@pytest.mark.parametrize("first, second, principals, prefixes, resources", [
    # the same principals: the resources add up
    (A_ON_X, "{principals: ['User:a'], resourcePrefixes: {topic: ['y.'], group: ['g.']}}",
     {"User:a"}, (), {ResourceType.TOPIC: ("x.", "y."), ResourceType.GROUP: ("g.",)}),
    # the same resources: the principals add up
    (A_ON_X, "{principals: ['User:b'], resourcePrefixes: {topic: ['x.']}}", {"User:a", "User:b"}, (),
     {ResourceType.TOPIC: ("x.",)}),
    # one inside the other: the wider one
    (A_ON_X, "{principalPrefixes: ['User:'], resourcePrefixes: {topic: ['']}}", set(), ("User:",),
     {ResourceType.TOPIC: ("",)}),
    ("{principalPrefixes: ['User:'], resourcePrefixes: {topic: ['x']}}", A_ON_X, set(), ("User:",),
     {ResourceType.TOPIC: ("x",)}),
    (A_ON_X, "{principals: ['User:a']}", {"User:a"}, (), {}),
])
def test_scopes_that_make_one_scope_merge_to_exactly_their_union(tmp_path, first, second, principals, prefixes,
                                                                  resources):
    state = read_state([_scope_doc(tmp_path, "1.yaml", first), _scope_doc(tmp_path, "2.yaml", second)])
    assert (state.scope.principals, state.scope.principal_prefixes) == (frozenset(principals), prefixes)
    assert {t: tuple(sorted(p)) for t, p in state.scope.resource_prefixes.items()} == resources


def test_the_merged_scope_never_holds_a_binding_neither_file_holds(tmp_path):
    """Every pair of scopes from a grid of declarations: each merge read_state accepts holds exactly the bindings
    one of the files holds (an exact union, never wider, never narrower)."""
    import itertools

    principals, names = ["User:a", "User:ab", "User:b", "Group:a"], ["x.1", "xy", "y.1", "g.1", "z"]
    dims_p = ["", "principals: ['User:a']", "principals: ['User:b', 'User:a']", "principalPrefixes: ['User:a']",
              "principalPrefixes: ['User:']"]
    dims_r = ["", "resourcePrefixes: {topic: ['x.']}", "resourcePrefixes: {topic: ['x']}",
              "resourcePrefixes: {topic: ['y.'], group: ['g.']}", "resourcePrefixes: {group: ['']}"]
    scopes = ["{" + ", ".join(d for d in pair if d) + "}" for pair in itertools.product(dims_p, dims_r) if any(pair)]
    merged_pairs = 0
    for n, (s1, s2) in enumerate(itertools.product(scopes, scopes)):
        f1, f2 = _scope_doc(tmp_path, f"{n}a.yaml", s1), _scope_doc(tmp_path, f"{n}b.yaml", s2)
        try:
            merged = read_state([f1, f2]).scope
        except StateFileError:
            continue
        merged_pairs += 1
        own = [read_state([f1]).scope, read_state([f2]).scope]
        for principal, rtype, name in itertools.product(principals, (ResourceType.TOPIC, ResourceType.GROUP), names):
            b = AclBinding(rtype, name, PatternType.LITERAL, principal, "*", AclOperation.READ, Permission.ALLOW)
            assert merged.contains(b) == any(s.contains(b) for s in own), (s1, s2, b)
    assert merged_pairs > len(scopes)  # not only each scope with itself


@pytest.mark.parametrize("kind", ["fifo", "device", "directory"])
@pytest.mark.parametrize("as_scope", [False, True])
def test_a_state_file_that_is_no_regular_file_is_refused_without_reading(tmp_path, kind, as_scope):
    # a FIFO would block the reader for ever and /dev/zero would never end: both are refused before any open
    import os

    if kind == "fifo":
        path = tmp_path / "x.yaml"
        os.mkfifo(path)
    elif kind == "device":
        path = tmp_path / "x.yaml"
        path.symlink_to("/dev/zero")
    else:
        path = tmp_path / "x.yaml"
        path.mkdir()
    good = write(tmp_path, "good.yaml", GOOD)
    args = ([good], str(path)) if as_scope else ([str(path)], None)
    with pytest.raises(StateFileError, match=r"x\.yaml: not a regular file"):
        read_state(*args)


def test_a_prefixed_cluster_row_is_refused_by_both_readers_of_a_flat_file(tmp_path):
    """The file fuzzer (seed 807938470, case 612): a Parquet row CLUSTER / kafka-cluster / PREFIXED was refused by
    the Python loader and read by the Arrow reader the large-plan engines use."""
    import pyarrow as pa

    from kafkactl.desired.arrow_diff import read_flat

    row = {**ROW, "resource_type": "CLUSTER", "resource_name": "kafka-cluster", "pattern_type": "PREFIXED",
           "operation": "DESCRIBE"}
    table = (pa.Table.from_pylist([ROW, row])
             .replace_schema_metadata({"kafkactl.scope": '{"principalPrefixes": ["User:"]}'}))
    (tmp_path / "x.parquet").write_bytes(parquet_bytes(tmp_path, table))
    needle = r"x.parquet row 2: cluster: the only cluster resource is the literal kafka-cluster \(not PREFIXED"
    with pytest.raises(StateFileError, match=needle):
        read_state([str(tmp_path / "x.parquet")])
    head = read_state([str(tmp_path / "x.parquet")], flat_rows=False)
    with pytest.raises(StateFileError, match=needle):
        read_flat(str(tmp_path / "x.parquet"), head.scope)
