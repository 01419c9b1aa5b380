"""Parity with kafka-acls.sh: the real AclCommand (from the Maven jars) and kafkactl, same flags, same bindings.

Each case uses its own principals ({p}, {q}) and resource names, so all AclCommand runs can go first
(two JVMs at a time), then all kafkactl runs, and the broker's ACLs are compared case by case.
"""

from __future__ import annotations

import json
import re
from concurrent.futures import ThreadPoolExecutor

import pytest

from kafkactl.acl.model import AclBinding, AclOperation, PatternType, Permission, ResourceType
from tests.integration.acl_helpers import remove_exactly, snapshot, token

ADD_CASES = [
    "--allow-principal {p} --topic {r}.t1",
    "--allow-principal {p} --operation Read --operation Write --topic {r}.t1 --topic {r}.t2",
    "--allow-principal {p} --allow-principal {q} --allow-host 127.0.0.1 --allow-host 10.0.0.2 --operation "
    "Describe --group {r}.g1",
    "--deny-principal {p} --deny-host 10.0.0.3 --operation Write --topic {r}.t1",
    "--allow-principal {p} --deny-principal {q} --operation Read --topic {r}.t1",
    "--allow-principal {p} --operation Read --topic {r}.t --resource-pattern-type prefixed",
    "--allow-principal {p} --operation IdempotentWrite --cluster",
    "--allow-principal {p} --operation DescribeConfigs --operation AlterConfigs --cluster",
    "--allow-principal {p} --producer --topic {r}.t1",
    "--allow-principal {p} --producer --topic {r}.t1 --idempotent",
    "--allow-principal {p} --producer --topic {r}.t1 --transactional-id {r}.x1",
    "--allow-principal {p} --consumer --topic {r}.t1 --group {r}.g1",
    "--allow-principal {p} --producer --consumer --topic {r}.t1 --group {r}.g1",
    "--allow-principal {p} --producer --topic {r}.t --resource-pattern-type prefixed --idempotent",
    "--allow-principal {p} --operation Write --transactional-id {r}.x1",
    "--allow-principal {p} --operation TwoPhaseCommit --transactional-id {r}.x1",
    "--allow-principal {p} --operation Describe --delegation-token {r}.d1",
    "--allow-principal {p} --operation CreateTokens --operation DescribeTokens --user-principal User:{r}u",
    "--allow-principal {p} --operation All --group {r}.g1 --group {r}.g2 --resource-pattern-type prefixed",
    "--allow-principal {p} --operation Alter --operation Delete --topic {r}.t1 --allow-host 127.0.0.1",
    "--deny-principal {p} --operation Read --group {r}.g1",
    "--allow-principal {p} --consumer --topic {r}.t1 --topic {r}.t2 --group {r}.g1 --resource-pattern-type prefixed",
]

REMOVE_CASES = [
    # (set-up as kafka-acls --add lines, the --remove line)
    (["--allow-principal {p} --operation Read --operation Write --topic {r}.t1",
      "--deny-principal {q} --operation Read --topic {r}.t1", "--allow-principal {p} --topic {r}.t2"],
     "--topic {r}.t1"),
    (["--allow-principal {p} --operation Read --operation Write --topic {r}.t1",
      "--allow-principal {q} --operation Read --topic {r}.t1"],
     "--allow-principal {p} --operation Read --topic {r}.t1"),
    (["--allow-principal {p} --operation Read --topic {r}.t --resource-pattern-type prefixed",
      "--allow-principal {p} --operation Read --topic {r}.t1"],
     "--topic {r}.t --resource-pattern-type prefixed"),
    (["--deny-principal {p} --deny-host 10.0.0.3 --operation Write --topic {r}.t1",
      "--deny-principal {p} --operation Write --topic {r}.t1"],
     "--deny-principal {p} --deny-host 10.0.0.3 --operation Write --topic {r}.t1"),
]


def expand(line: str, case: str) -> list[str]:
    return line.format(p=f"User:{case}p", q=f"User:{case}q", r=case).split()


def of_case(bindings, case: str) -> set[AclBinding]:
    return {b for b in bindings if b.principal in (f"User:{case}p", f"User:{case}q")}


def kafkactl_add(sandbox, args):
    r = sandbox.as_user("admin", "acls", "create", *args)
    assert r.exit_code == 0, (args, r.stderr)


def test_add_parity_with_kafka_acls(sandbox):
    gw = sandbox.gateway("admin")
    t = token()
    cases = [(f"pa{t}c{i}", line) for i, line in enumerate(ADD_CASES)]

    def run_java(case_line):
        case, line = case_line
        p = sandbox.kafka_acls("--add", *expand(line, case))
        assert p.returncode == 0 and "Error" not in p.stdout, (line, p.stdout[-2000:], p.stderr[-2000:])

    with ThreadPoolExecutor(max_workers=2) as pool:
        list(pool.map(run_java, cases))
    by_java = {case: of_case(snapshot(gw), case) for case, _ in cases}
    remove_exactly(gw, set().union(*by_java.values()))
    for case, line in cases:
        kafkactl_add(sandbox, expand(line, case))
    after = snapshot(gw)
    try:
        mismatches = [(line, by_java[case] ^ of_case(after, case)) for case, line in cases
                      if by_java[case] != of_case(after, case)]
        assert mismatches == []
        assert all(by_java[case] for case, _ in cases)  # every case really created something
    finally:
        remove_exactly(gw, {b for b in snapshot(gw) if f"pa{t}" in b.principal})


@pytest.mark.parametrize("setup,remove", REMOVE_CASES)
def test_remove_parity_with_kafka_acls(sandbox, setup, remove):
    gw = sandbox.gateway("admin")
    case = f"pr{token()}"
    results = []
    for tool in ("java", "kafkactl"):
        for line in setup:
            kafkactl_add(sandbox, expand(line, case))
        if tool == "java":
            p = sandbox.kafka_acls("--remove", "--force", *expand(remove, case))
            assert p.returncode == 0, p.stdout[-2000:]
        else:
            r = sandbox.as_user("admin", "acls", "delete", "--yes", *expand(remove, case))
            assert r.exit_code == 0, r.stderr
        left = snapshot(gw, case)
        results.append(left)
        remove_exactly(gw, left)
    assert results[0] == results[1]


_RESOURCE = re.compile(r"resourceType=(\w+), name=(.*), patternType=(\w+)\)`:")
_ENTRY = re.compile(r"\(principal=(.*), host=(.*), operation=(\w+), permissionType=(\w+)\)")


def parse_kafka_acls_list(text: str) -> set[AclBinding]:
    out, resource = set(), None
    for line in text.splitlines():
        m = _RESOURCE.search(line)
        if m:
            resource = (ResourceType[m.group(1)], m.group(2), PatternType[m.group(3)])
            continue
        m = _ENTRY.search(line)
        if m and resource:
            out.add(AclBinding(*resource, m.group(1), m.group(2), AclOperation[m.group(3)], Permission[m.group(4)]))
    return out


@pytest.mark.parametrize("filter_line", [
    "--topic {r}.orders.eu --resource-pattern-type match",
    "--topic {r}.orders.eu --resource-pattern-type any",
    "--topic {r}.orders. --resource-pattern-type prefixed",
    "--topic {r}.orders.eu",
])
def test_list_parity_with_kafka_acls(sandbox, filter_line):
    gw = sandbox.gateway("admin")
    case = f"pl{token()}"
    for line in ["--allow-principal {p} --operation Read --topic {r}.orders.eu",
                 "--allow-principal {p} --operation Read --topic {r}.orders. --resource-pattern-type prefixed",
                 "--allow-principal {q} --operation Write --topic {r}.orders.eu --resource-pattern-type prefixed",
                 "--allow-principal {p} --operation Read --topic {r}.other"]:
        kafkactl_add(sandbox, expand(line, case))
    try:
        p = sandbox.kafka_acls("--list", *expand(filter_line, case))
        assert p.returncode == 0, p.stdout[-2000:]
        java = parse_kafka_acls_list(p.stdout)
        r = sandbox.as_user("admin", "-o", "json", "acls", "list", *expand(filter_line, case))
        ours = {AclBinding(ResourceType[d["resource_type"]], d["resource_name"], PatternType[d["pattern_type"]],
                           d["principal"], d["host"], AclOperation[d["operation"]], Permission[d["permission"]])
                for d in json.loads(r.stdout)}
        assert java and ours == java
    finally:
        remove_exactly(gw, snapshot(gw, case))
