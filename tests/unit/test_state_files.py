"""Desired-state files: every malformed input fails with file, line/row and field named."""

from __future__ import annotations

import json

import pytest

from kafkactl.acl.model import AclBinding, AclOperation, PatternType, Permission, ResourceType
from kafkactl.bulk.plan import Guards, diff_cluster
from kafkactl.bulk.state import Scope, StateFileError, load

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
    (GOOD.replace("Read, Write", "Read, Wirte"), r"x.yaml:8: operation 'Wirte' is not an operation \(did you mean Write\?\)"),
    (GOOD.replace("Read, Write", "Read, IdempotentWrite"), r"x.yaml:8: operation IdempotentWrite is not supported on TOPIC"),
    (GOOD.replace("principal: User:team-a-app", "principal: team-a-app"), r"x.yaml:6: acls.0.principal: 'team-a-app' does not match"),
    (GOOD.replace("  - principal: User:team-a-app\n", "  - hosts: ['*']\n"), r"x.yaml:6: acls.0: 'principal' is a required property"),
    (GOOD.replace("topic: team-a.orders", "topik: team-a.orders"), r"x.yaml:8: acls.0.allow.0: Additional properties are not allowed \('topik'"),
    (GOOD.replace("topic: team-a.orders", "topic: other.orders").replace("User:team-a-app", "User:other"), r"x.yaml:8: .* is outside the declared scope"),
    (GOOD.replace('scope:\n  principalPrefixes: ["User:team-a-"]\n', "scope: {}\n"), r"no scope declared"),
    (GOOD.replace("topic: team-a.orders", "cluster: other"), r"cluster"),
])
def test_yaml_errors_name_file_line_and_field(tmp_path, text, needle):
    with pytest.raises(StateFileError, match=needle):
        load([write(tmp_path, "x.yaml", text)])


def test_jsonl_errors_name_the_row_and_field(tmp_path):
    scope = json.dumps({"kind": "scope", "principalPrefixes": ["User:a"]})
    row = {"principal": "User:a", "host": "*", "operation": "READ", "permission": "ALLOW", "resource_type": "TOPIC",
           "resource_name": "t", "pattern_type": "LITERAL"}
    ok = write(tmp_path, "ok.jsonl", scope + "\n" + json.dumps(row) + "\n")
    assert len(load([ok]).bindings) == 1
    missing = dict(row)
    del missing["resource_name"]
    with pytest.raises(StateFileError, match=r"bad.jsonl:3: resource_name: missing"):
        load([write(tmp_path, "bad.jsonl", scope + "\n" + json.dumps(row) + "\n" + json.dumps(missing) + "\n")])
    with pytest.raises(StateFileError, match=r"bad2.jsonl:2: not valid JSON"):
        load([write(tmp_path, "bad2.jsonl", scope + "\n{oops\n")])
    with pytest.raises(StateFileError, match=r"bad3.jsonl:2: permission: 'MAYBE' is not valid"):
        load([write(tmp_path, "bad3.jsonl", scope + "\n" + json.dumps({**row, "permission": "MAYBE"}) + "\n")])


def test_csv_errors_name_the_row(tmp_path):
    header = "principal,host,operation,permission,resource_type,resource_name,pattern_type\n"
    scope = write(tmp_path, "scope.yaml", "scope:\n  principalPrefixes: [User:a]\nacls: []\n")
    f = write(tmp_path, "x.csv", header + "User:a,*,READ,ALLOW,TOPIC,t,LITERAL\nUser:a,*,READ,ALLOW,GROUP,g,WILDCARD\n")
    with pytest.raises(StateFileError, match=r"x.csv row 3: pattern 'WILDCARD' is not a pattern type"):
        load([f], scope)
    with pytest.raises(StateFileError, match="header row lacks .*pattern_type"):
        load([write(tmp_path, "y.csv", "principal,host\n")], scope)


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
