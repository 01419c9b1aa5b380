"""acls check / explain offline (--acls-file): decisions, reasons and exit codes through the real command tree.
The model's agreement with the broker is tested against the sandbox (issue 8's differential test)."""

from __future__ import annotations

import json

from kafkactl.exitcodes import ExitCode
from tests.conftest import run

ACLS = [
    {"resource_type": "TOPIC", "resource_name": "orders.", "pattern_type": "PREFIXED", "principal": "User:alice",
     "host": "*", "operation": "READ", "permission": "ALLOW"},
    {"resource_type": "TOPIC", "resource_name": "orders.secret", "pattern_type": "LITERAL", "principal": "User:*",
     "host": "*", "operation": "ALL", "permission": "DENY"},
]


def write(tmp_path):
    f = tmp_path / "acls.json"
    f.write_text(json.dumps(ACLS))
    return str(f)


def test_allowed_exits_0_and_names_the_deciding_binding(tmp_path):
    r = run("acls", "check", "--principal", "User:alice", "--operation", "Read", "--topic", "orders.eu",
            "--acls-file", write(tmp_path), "-o", "json")
    assert r.exit_code == 0
    out = json.loads(r.stdout)
    assert out["decision"] == "ALLOWED" and "orders. (PREFIXED)" in out["why"]


def test_denied_exits_8_without_an_error_line(tmp_path):
    r = run("acls", "check", "--principal", "User:alice", "--operation", "Describe", "--topic", "orders.secret",
            "--acls-file", write(tmp_path), "-o", "json")
    assert r.exit_code == ExitCode.DENIED
    assert json.loads(r.stdout)["reason"] == "deny-acl" and "error" not in r.stderr


def test_super_user_and_the_no_acl_default(tmp_path):
    f = write(tmp_path)
    r = run("acls", "check", "--principal", "User:admin", "--operation", "Write", "--topic", "orders.secret",
            "--acls-file", f, "--super-user", "User:admin", "-o", "json")
    assert r.exit_code == 0 and json.loads(r.stdout)["reason"] == "super-user"
    r = run("acls", "check", "--principal", "User:bob", "--operation", "Read", "--topic", "payments",
            "--acls-file", f, "-o", "json")
    assert r.exit_code == ExitCode.DENIED and json.loads(r.stdout)["reason"] == "no-acl-on-resource"
    r = run("acls", "check", "--principal", "User:bob", "--operation", "Read", "--topic", "payments",
            "--acls-file", f, "--allow-everyone-if-no-acl", "-o", "json")
    assert r.exit_code == 0


def test_explain_gives_every_operation_of_the_type(tmp_path):
    r = run("acls", "explain", "--principal", "User:alice", "--topic", "orders.eu", "--acls-file", write(tmp_path),
            "-o", "json")
    assert r.exit_code == 0
    rows = {x["operation"]: x["decision"] for x in json.loads(r.stdout)}
    assert rows["READ"] == rows["DESCRIBE"] == "ALLOWED"  # READ implies DESCRIBE
    assert rows["WRITE"] == "DENIED" and len(rows) == 8


def test_bad_input_is_refused_before_anything(tmp_path):
    f = write(tmp_path)
    for args, bad in ((["--principal", "alice", "--operation", "Read", "--topic", "t"], "alice"),
                      (["--principal", "User:a", "--operation", "Wirte", "--topic", "t"], "Wirte"),
                      (["--principal", "User:a", "--operation", "Write", "--group", "g"], "Write"),
                      (["--principal", "User:a", "--operation", "Read"], "exactly one resource")):
        r = run("acls", "check", *args, "--acls-file", f)
        assert r.exit_code == ExitCode.USAGE and bad in r.stderr and "Traceback" not in r.stderr
    (tmp_path / "broken.json").write_text("[{")
    r = run("acls", "check", "--principal", "User:a", "--operation", "Read", "--topic", "t",
            "--acls-file", str(tmp_path / "broken.json"))
    assert r.exit_code == ExitCode.USAGE and "broken.json" in r.stderr


def test_who_can_names_grants_blocks_and_everyone_else(tmp_path, monkeypatch):
    # no current context lends its super users (run after a sandbox)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    rows = ACLS + [
        {"resource_type": "TOPIC", "resource_name": "orders.eu", "pattern_type": "LITERAL", "principal": "User:*",
         "host": "*", "operation": "DESCRIBE", "permission": "ALLOW"},
        {"resource_type": "TOPIC", "resource_name": "orders.", "pattern_type": "PREFIXED", "principal": "User:bob",
         "host": "*", "operation": "ALL", "permission": "DENY"}]
    f = tmp_path / "acls.jsonl"
    f.write_text("".join(json.dumps(r) + "\n" for r in rows))
    r = run("acls", "who-can", "--operation", "Describe", "--topic", "orders.eu", "--acls-file", str(f),
            "--super-user", "User:admin", "-o", "json")
    assert r.exit_code == 0, r.stderr
    got = [(x["principal"], x["decision"]) for x in json.loads(r.stdout)]
    assert got == [("User:admin", "ALLOWED"), ("User:alice", "ALLOWED"), ("User:bob", "DENIED"), ("User:*", "ALLOWED")]
    r = run("acls", "who-can", "--operation", "Write", "--topic", "orders.eu", "--acls-file", str(f))
    assert r.exit_code == 0 and r.stdout == "" and "nobody may Write TOPIC:orders.eu" in r.stderr


def test_lint_reports_with_severity_and_exit_code(tmp_path):
    rows = ACLS + [
        {"resource_type": "TOPIC", "resource_name": "*", "pattern_type": "PREFIXED", "principal": "User:carol",
         "host": "*", "operation": "READ", "permission": "ALLOW"},
        {"resource_type": "GROUP", "resource_name": "g", "pattern_type": "LITERAL", "principal": "User:carol",
         "host": "localhost", "operation": "WRITE", "permission": "ALLOW"},  # the broker stores this; lint says why not
        {"resource_type": "TOPIC", "resource_name": "orders.eu", "pattern_type": "LITERAL", "principal": "User:alice",
         "host": "*", "operation": "DESCRIBE", "permission": "ALLOW"}]
    f = tmp_path / "acls.json"
    f.write_text(json.dumps(rows))
    r = run("acls", "lint", "--acls-file", str(f), "-o", "json")
    assert r.exit_code == ExitCode.FINDINGS, r.stderr
    found = {(x["check"], x["severity"]) for x in json.loads(r.stdout)}
    assert found == {("prefixed-wildcard", "warning"), ("unsupported-operation", "warning"),
                     ("unmatchable-host", "warning"), ("redundant", "info")}
    assert "0 errors, 3 warnings, 1 info" in r.stderr
    r = run("acls", "lint", "--acls-file", str(f), "--severity", "warning", "--fail-on", "error", "-o", "csv")
    assert r.exit_code == 0 and r.stdout.splitlines()[0] == "severity,check,subject,message"
    assert len(r.stdout.splitlines()) == 4
    # --fail-on counts what --severity shows (issue 29): warnings hidden by --severity error fail nothing
    r = run("acls", "lint", "--acls-file", str(f), "--severity", "error", "--fail-on", "warning", "-o", "json")
    assert (r.exit_code, json.loads(r.stdout)) == (0, []), r.stderr
    r = run("acls", "lint", "--acls-file", str(f), "--severity", "warning", "--fail-on", "warning", "-o", "json")
    assert r.exit_code == ExitCode.FINDINGS
    r = run("acls", "lint", "--acls-file", str(f), "--fail-on", "sometimes")
    assert r.exit_code == ExitCode.USAGE and "sometimes" in r.stderr and r.stdout == ""
