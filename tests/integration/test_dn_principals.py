"""Certificate-style principals end to end (issue 15): names with commas, escaped commas, equals signs, spaces and
non-ASCII, as ssl.principal.mapping.rules' DEFAULT rule leaves them (`User:CN=app one,OU=eng,O=Corp\\, Inc`).
They are only strings to the broker: every command and every file format must carry them unchanged."""

from __future__ import annotations

import json

import pytest

from kafkactl.exitcodes import ExitCode
from tests.integration.acl_helpers import token


def ok(r):
    assert r.exit_code == 0, r.output[-3000:]
    return r


@pytest.fixture
def dns():
    t = token()
    return [f"User:CN=app one {t},OU=eng,O=Corp\\, Inc,C=DE", f"User:CN=Zoë Ünïcode {t},O=Åcme=x,L=São Paulo"]


def test_create_list_check_and_delete(sandbox, dns):
    t = dns[0].split()[2].split(",")[0]
    topic = f"{t}.dn"
    for p in dns:
        ok(sandbox.as_user("admin", "acls", "create", "--allow-principal", p, "--topic", topic, "--operation", "Read"))
    for p in dns:
        listed = json.loads(ok(sandbox.as_user("admin", "-o", "json", "acls", "list", "--principal", p)).stdout)
        assert [b["principal"] for b in listed] == [p]
        r = ok(sandbox.as_user("admin", "-o", "json", "acls", "check", "--principal", p, "--operation", "Read",
                               "--topic", topic))
        assert json.loads(r.stdout)["decision"] == "ALLOWED"
        r = sandbox.as_user("admin", "-o", "json", "acls", "check", "--principal", p, "--operation", "Write",
                            "--topic", topic)
        assert json.loads(r.stdout)["decision"] == "DENIED"
        assert "READ" in ok(sandbox.as_user("admin", "acls", "explain", "--principal", p, "--topic", topic)).stdout
    who = json.loads(ok(sandbox.as_user("admin", "-o", "json", "acls", "who-can", "--operation", "Read",
                                        "--topic", topic)).stdout)
    assert set(dns) <= {row["principal"] for row in who}
    ok(sandbox.as_user("admin", "acls", "lint"))
    # the delete filter takes the first name exactly: the second, sharing the topic, stays
    ok(sandbox.as_user("admin", "acls", "delete", "--allow-principal", dns[0], "--topic", topic, "--operation",
                       "Read", "--yes"))
    left = json.loads(ok(sandbox.as_user("admin", "-o", "json", "acls", "list", "--topic", topic)).stdout)
    assert [b["principal"] for b in left] == [dns[1]]
    ok(sandbox.as_user("admin", "acls", "delete", "--allow-principal", dns[1], "--topic", topic, "--yes"))


@pytest.mark.parametrize("fmt", ["yaml", "jsonl", "csv", "parquet"])
def test_export_then_plan_then_apply_in_every_format(sandbox, dns, tmp_path, fmt):
    t = dns[0].split()[2].split(",")[0]
    for p in dns:
        ok(sandbox.as_user("admin", "acls", "create", "--allow-principal", p, "--topic", f"{t}.exp",
                           "--operation", "Read", "--operation", "Write"))
    path = tmp_path / f"state.{fmt}"
    scope_args = [a for p in dns for a in ("--principal", p)]
    ok(sandbox.as_user("admin", "acls", "export", *scope_args, "--format", fmt, "--file", str(path)))
    scope = None
    if fmt == "csv":  # CSV has no place for a scope: it is given with --scope
        scope = tmp_path / "scope.yaml"
        scope.write_text(json.dumps({"scope": {"principals": dns}}))
    extra = ["--scope", str(scope)] if scope else []
    r = sandbox.as_user("admin", "acls", "plan", str(path), *extra, "--detailed-exitcode")
    assert r.exit_code == 0, r.output  # exported, unchanged: nothing to do
    # edit: the second principal loses Write; the plan shows exactly that, apply makes it so
    if fmt == "parquet":
        import pyarrow.parquet as pq

        table = pq.read_table(path)
        rows = [row for row in table.to_pylist() if not (row["principal"] == dns[1] and row["operation"] == "WRITE")]
        pq.write_table(type(table).from_pylist(rows, schema=table.schema), path)
    elif fmt == "yaml":
        import yaml

        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
        for entry in doc["acls"]:
            if entry["principal"] == dns[1]:
                for item in entry["allow"]:
                    item["operations"] = [o for o in item["operations"] if o != "Write"]
        path.write_text(yaml.safe_dump(doc, sort_keys=False, allow_unicode=True), encoding="utf-8")
    else:
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        keep = [ln for ln in lines if not (("WRITE" in ln) and (json.dumps(dns[1])[1:-1] in ln or dns[1] in ln))]
        assert len(keep) == len(lines) - 1
        path.write_text("".join(keep), encoding="utf-8")
    r = sandbox.as_user("admin", "acls", "plan", str(path), *extra, "--detailed-exitcode")
    assert r.exit_code == 2 and "+0 -1" in r.output, r.output
    ok(sandbox.as_user("admin", "acls", "apply", str(path), *extra, "--yes"))
    assert sandbox.as_user("admin", "acls", "plan", str(path), *extra, "--detailed-exitcode").exit_code == 0
    listed = json.loads(ok(sandbox.as_user("admin", "-o", "json", "acls", "list", "--principal", dns[1])).stdout)
    assert [b["operation"] for b in listed] == ["READ"]
    first = json.loads(ok(sandbox.as_user("admin", "-o", "json", "acls", "list", "--principal", dns[0])).stdout)
    assert sorted(b["operation"] for b in first) == ["READ", "WRITE"]
    for p in dns:
        r = sandbox.as_user("admin", "acls", "delete", "--principal", p, "--yes")
        assert r.exit_code in (0, ExitCode.NOT_FOUND), r.output
