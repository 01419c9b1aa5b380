"""Issue 14: KAFKACTL_OUTPUT chooses the format of every command's result, and --help names choices as choices."""

from __future__ import annotations

import json

import pytest
import yaml

from tests.conftest import run

ACLS = [{"resource_type": "CLUSTER", "resource_name": "kafka-cluster", "pattern_type": "LITERAL",
         "principal": "User:alice", "host": "*", "operation": "IDEMPOTENT_WRITE", "permission": "ALLOW"},
        {"resource_type": "TOPIC", "resource_name": "orders", "pattern_type": "LITERAL",
         "principal": "User:alice", "host": "*", "operation": "IDEMPOTENT_WRITE", "permission": "ALLOW"}]

# commands whose result needs no broker; {f} is an `acls list -o json` file
OFFLINE = [
    ["context", "list"],
    ["context", "current"],
    ["local", "status"],
    ["acls", "decode-ops", "--resource-type", "cluster", "4096"],
    ["acls", "check", "--acls-file", "{f}", "--principal", "User:alice", "--operation", "IdempotentWrite", "--cluster"],
    ["acls", "explain", "--acls-file", "{f}", "--principal", "User:alice", "--cluster"],
    ["acls", "who-can", "--acls-file", "{f}", "--operation", "IdempotentWrite", "--cluster"],
    ["acls", "lint", "--acls-file", "{f}", "--fail-on", "never"],
]


@pytest.fixture
def acls_file(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    assert run("context", "add", "prod", "-b", "k1:9092").exit_code == 0
    f = tmp_path / "acls.json"
    f.write_text(json.dumps(ACLS))
    return str(f)


@pytest.mark.parametrize("argv", OFFLINE, ids=lambda a: " ".join(a[:2]))
@pytest.mark.parametrize("fmt, parse", [("json", json.loads), ("yaml", yaml.safe_load)])
def test_kafkactl_output_is_honoured_by_every_command(acls_file, argv, fmt, parse):
    r = run(*[a.format(f=acls_file) for a in argv], env={"KAFKACTL_OUTPUT": fmt})
    assert r.exit_code == 0, r.output
    assert isinstance(parse(r.stdout), (dict, list)), r.stdout


@pytest.mark.usefixtures("acls_file")
def test_context_current_is_a_document_in_json_and_a_bare_name_in_plain():
    assert json.loads(run("context", "current", env={"KAFKACTL_OUTPUT": "json"}).stdout) == {"name": "prod"}
    assert run("context", "current", env={"KAFKACTL_OUTPUT": "plain"}).stdout == "prod\n"
    assert run("-o", "plain", "context", "current", env={"KAFKACTL_OUTPUT": "json"}).stdout == "prod\n"  # -o wins


def test_operations_are_spelt_as_acl_output_spells_them_in_every_view(acls_file):
    """Issue 14: the authorized-operations views and lint said IdempotentWrite where ACL output says
    IDEMPOTENT_WRITE (kafka-acls.sh's spelling)."""
    listed = run("-o", "plain", "acls", "decode-ops", "--resource-type", "cluster", "4096").stdout
    assert listed == "IDEMPOTENT_WRITE\n"
    for argv in OFFLINE[3:]:
        out = run(*[a.format(f=acls_file) for a in argv], env={"KAFKACTL_OUTPUT": "json"}).stdout
        assert "IdempotentWrite" not in out and "IDEMPOTENT_WRITE" in out, (argv, out)


@pytest.mark.parametrize("argv, shown", [
    (["context", "add"], ["PLAINTEXT|SSL|SASL_PLAINTEXT|SASL_SSL", "PLAIN|SCRAM-SHA-256|SCRAM-SHA-512"]),
    (["local", "env"], ["admin|alice|bob|carol"]),
    (["acls", "lint"], ["error|warning|info|never"]),
    (["topics", "list"], ["--context NAME", "-b/--bootstrap-server HOST:PORT[,...]", "--command-config FILE"]),
])
def test_help_shows_a_fixed_set_as_its_choices(argv, shown):
    text = " ".join(run(*argv, "--help", env={"COLUMNS": "250"}).stdout.split())
    for s in shown:
        assert s in text, (s, text)


@pytest.mark.usefixtures("acls_file")
def test_local_status_has_only_the_sandboxs_state():
    """Issue 14: how a start went (started_in_s, already_running) is what `local up` reports, not `status`."""
    status = json.loads(run("-o", "json", "local", "status").stdout)
    assert status["running"] is False and not {"started_in_s", "already_running"} & set(status)
