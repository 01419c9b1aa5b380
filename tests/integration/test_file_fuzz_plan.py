"""A sample of the file fuzzer's mutations (tests/unit/test_file_fuzz.py) planned against the sandbox broker: every
plan either fails with exit 2 naming the file, or deletes only ACLs inside the scope the file states (read
strictly, independently of the loaders). Plans only: nothing is applied. KAFKACTL_FUZZ_PLAN cases per format."""

from __future__ import annotations

import json
import os

import pytest

from kafkactl.acl.model import AclBinding, AclOperation, PatternType, Permission, ResourceType
from tests.integration.acl_helpers import remove_exactly, snapshot, token
from tests.unit.test_file_fuzz import SEED, make_case, stated_scope

CASES = int(os.environ.get("KAFKACTL_FUZZ_PLAN") or 20)


def inside(scope: dict, b: AclBinding) -> bool:
    principals, prefixes = scope.get("principals", set()), scope.get("principalPrefixes", set())
    if (principals or prefixes) and b.principal not in principals \
            and not any(b.principal.startswith(p) for p in prefixes):
        return False
    resources = scope.get("resourcePrefixes")
    return resources is None or any(b.resource_name.startswith(p) for p in resources.get(b.resource_type.name, ()))


@pytest.mark.parametrize("fmt", ["yaml", "jsonl", "csv", "parquet"])
def test_mutated_files_plan_inside_their_stated_scope_or_exit_2(sandbox, tmp_path, fmt):
    gw = sandbox.gateway("admin")
    t = token()
    r = sandbox.as_user("admin", "acls", "create", "--allow-principal", f"User:fuzz-{t}", "--operation", "Read",
                        "--topic", f"elsewhere-{t}")  # bystanders that a scope read too wide would delete
    assert r.exit_code == 0, r.output
    try:
        plan_cases(sandbox, tmp_path, fmt)
    finally:
        remove_exactly(gw, snapshot(gw, f"fuzz-{t}"))


def plan_cases(sandbox, tmp_path, fmt: str) -> None:
    for i in range(CASES):
        path, scope_file, what = make_case(tmp_path, fmt, i)
        ctx = f"replay with KAFKACTL_FUZZ_SEED={SEED} KAFKACTL_FUZZ_CASE={i}, format {fmt}: {what}"
        r = sandbox.as_user("admin", "acls", "plan", str(path), "--jsonl", "--context", sandbox.context("admin"),
                            *(["--scope", str(scope_file)] if scope_file else []))  # --context: not the file's clusters
        assert r.exit_code in (0, 2) and "Traceback" not in r.output, f"{ctx}: {r.output[-800:]}"
        if r.exit_code == 2:
            assert r.stderr.startswith("error: ") and r.stderr.count("\n") == 1, f"{ctx}: {r.stderr[-800:]!r}"
            assert str(path) in r.stderr or str(scope_file) in r.stderr, f"{ctx}: {r.stderr[-800:]!r}"
            continue
        scope = stated_scope(fmt, path, scope_file)
        assert scope is not None, ctx
        for line in r.stdout.splitlines():
            row = json.loads(line)
            if row["action"] == "DELETE":
                b = AclBinding(ResourceType[row["resource_type"]], row["resource_name"],
                               PatternType[row["pattern_type"]], row["principal"], row["host"],
                               AclOperation[row["operation"]], Permission[row["permission"]])
                assert inside(scope, b), f"{ctx}: deletes {b.describe()} outside {scope}"
