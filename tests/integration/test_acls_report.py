"""`acls report` and the exposure lint checks against the broker (issue 17): what the model says a principal can
reach is what the broker reports it may do (KIP-430 authorized operations asked as that principal)."""

from __future__ import annotations

import json

import pytest

from kafkactl.acl.bitfield import decode
from kafkactl.acl.model import ResourceType
from kafkactl.exitcodes import ExitCode
from tests.conftest import run
from tests.integration.acl_helpers import remove_exactly, scram_user, snapshot, token


def ok(r):
    assert r.exit_code == 0, r.stderr[-2000:]
    return r


@pytest.fixture
def user(sandbox, tmp_path):
    """A fresh SCRAM user, its gateway, and a team prefix for its resources; its ACLs removed at the end."""
    t = token()
    name = f"rep{t}"
    gw = scram_user(sandbox, tmp_path, name)
    yield f"User:{name}", f"rep{t}.", gw
    gw.close()
    admin = sandbox.gateway("admin")
    remove_exactly(admin, snapshot(admin, f"rep{t}"))


def grant(principal, *args):
    ok(run("--context", "local-admin", "acls", "create", "--allow-principal", principal, *args))


def test_a_principals_reach_is_what_the_broker_says_it_may_do(user):
    principal, team, gw = user
    topics = [f"{team}in.a", f"{team}in.b", f"{team}out", f"{team}hidden"]
    for t in topics:
        ok(run("--context", "local-admin", "topics", "create", t, "--partitions", "1"))
    grant(principal, "--operation", "Read", "--topic", f"{team}in.", "--resource-pattern-type", "prefixed")
    grant(principal, "--operation", "Write", "--operation", "DescribeConfigs", "--topic", f"{team}out")
    r = ok(run("--context", "local-admin", "-o", "json", "acls", "report", "--principal", principal))
    rows = json.loads(r.stdout)
    model = {(x["resource_name"], x["operation"]) for x in rows if x["resource_type"] == "TOPIC"
             and x["resource_name"].startswith(team)}
    assert model == {(f"{team}in.a", "READ"), (f"{team}in.a", "DESCRIBE"), (f"{team}in.b", "READ"),
                     (f"{team}in.b", "DESCRIBE"), (f"{team}out", "WRITE"), (f"{team}out", "DESCRIBE"),
                     (f"{team}out", "DESCRIBE_CONFIGS")}, model
    # the broker's own answer, asked as the principal (the topic it may not describe comes back with an error)
    broker = set()
    for rec in gw.topics(topics, include_authorized_operations=True):
        if rec.error is None:
            broker |= {(rec.name, op.name) for op in decode(rec.authorized_operations, ResourceType.TOPIC).operations}
    assert broker == model
    assert "can reach" in r.stderr and "Traceback" not in r.stderr


def test_who_can_reach_a_topic_lists_the_principals_with_reasons_and_the_denied(user):
    principal, team, _ = user
    topic = f"{team}shared"
    grant(principal, "--operation", "Read", "--topic", team, "--resource-pattern-type", "prefixed")
    ok(run("--context", "local-admin", "acls", "create", "--deny-principal", "User:bob", "--operation", "Read",
           "--topic", topic))
    grant("User:bob", "--operation", "Read", "--topic", topic)
    r = ok(run("--context", "local-admin", "-o", "json", "acls", "report", "--topic", topic))
    rows = {(x["operation"], x["principal"]): x for x in json.loads(r.stdout)}
    assert rows[("READ", principal)]["decision"] == "ALLOWED" and "PREFIXED" in rows[("READ", principal)]["why"]
    assert rows[("READ", "User:bob")]["decision"] == "DENIED" and rows[("READ", "User:bob")]["reason"] == "deny-acl"
    assert rows[("READ", "User:admin")]["reason"] == "super-user"
    assert ("WRITE", principal) not in rows


@pytest.mark.parametrize("args,needle", [
    ([], "give --principal (what it can reach) or one resource (who can reach it): no target was given"),
    (["--principal", "User:a", "--topic", "t"], "not both"),
    (["--topic", "a", "--topic", "b"], "name exactly one resource"),
    (["--principal", "nocolon"], "nocolon"),
])
def test_bad_report_questions_are_one_line_exit_2(args, needle):
    r = run("-b", "127.0.0.1:1", "--timeout", "1", "acls", "report", *args)
    assert r.exit_code == ExitCode.USAGE and needle in r.stderr and r.stdout == "", r.output


def test_lint_finds_public_dangling_unsecured_and_hot_patterns_on_the_cluster(user):
    principal, team, _ = user
    ok(run("--context", "local-admin", "topics", "create", f"{team}open", "--partitions", "1"))
    ok(run("--context", "local-admin", "topics", "create", f"{team}hot.1", "--partitions", "1"))
    grant("User:*", "--operation", "Read", "--topic", f"{team}public")
    grant(principal, "--operation", "Read", "--topic", f"{team}never-created")
    for i in range(4):
        grant(f"User:{team}p{i}", "--operation", "Read", "--topic", f"{team}hot.", "--resource-pattern-type",
              "prefixed")
    r = run("--context", "local-admin", "-o", "json", "acls", "lint", "--hot-threshold", "4",
            "--allow-everyone-if-no-acl")
    assert r.exit_code == ExitCode.FINDINGS, r.stderr
    mine = {(f["check"], f["subject"]) for f in json.loads(r.stdout) if team in f["subject"]}
    assert ("public", f"ALLOW User:* READ from * on TOPIC:{team}public (LITERAL)") in mine
    assert ("dangling", f"ALLOW {principal} READ from * on TOPIC:{team}never-created (LITERAL)") in mine
    assert ("unsecured", f"TOPIC:{team}open") in mine
    assert ("hot-prefix", f"TOPIC:{team}hot. (PREFIXED)") in mine
    assert ("unsecured", f"TOPIC:{team}hot.1") not in mine  # covered by the prefixed ACLs
    # without allow.everyone.if.no.acl.found, nothing is open to everyone
    r = run("--context", "local-admin", "-o", "json", "acls", "lint", "--hot-threshold", "4")
    assert not [f for f in json.loads(r.stdout) if f["check"] == "unsecured"]


def test_lint_finds_a_preset_granted_but_for_one_acl_on_the_cluster(user):
    """incomplete-preset, read from the cluster: a Streams app granted with --streams, then one ACL deleted."""
    principal, team, _ = user
    app = f"{team}app"
    ok(run("--context", "local-admin", "acls", "create", "--allow-principal", principal, "--streams", app,
           "--topic", f"{team}in", "--output-topic", f"{team}out"))
    r = run("--context", "local-admin", "-o", "json", "acls", "lint")
    assert not [f for f in json.loads(r.stdout) if f["check"] == "incomplete-preset" and f["subject"] == principal]
    ok(run("--context", "local-admin", "acls", "delete", "--allow-principal", principal, "--operation", "Delete",
           "--topic", f"{app}-", "--resource-pattern-type", "prefixed", "--yes"))
    r = run("--context", "local-admin", "-o", "json", "acls", "lint")
    assert r.exit_code == ExitCode.FINDINGS, r.stderr
    (f,) = [f for f in json.loads(r.stdout) if f["check"] == "incomplete-preset" and f["subject"] == principal]
    assert f"Delete on TOPIC:{app}- (prefixed)" in f["message"] and f"--streams {app}" in f["message"]


def test_why_role_streams_names_the_one_missing_prefixed_grant_and_its_command_fixes_it(user):
    """acls why --role streams: the preset's grants as checks (prefixed ones asked for a name under the prefix);
    the grant command it prints, run, makes it pass."""
    import shlex

    principal, team, _ = user
    app = f"{team}why"
    ok(run("--context", "local-admin", "acls", "create", "--allow-principal", principal, "--streams", app,
           "--topic", f"{team}in"))
    ok(run("--context", "local-admin", "acls", "delete", "--allow-principal", principal, "--operation", "Delete",
           "--topic", f"{app}-", "--resource-pattern-type", "prefixed", "--yes"))
    ask = ("--context", "local-admin", "-o", "json", "acls", "why", "--principal", principal, "--role", "streams",
           "--group", app, "--topic", f"{team}in")
    r = run(*ask)
    assert r.exit_code == ExitCode.DENIED, r.output
    rows = json.loads(r.stdout)
    assert len(rows) == 7
    (denied,) = [row for row in rows if row["decision"] != "ALLOWED"]
    assert (denied["operation"], denied["resource_name"]) == ("DELETE", f"{app}-* (prefixed)")
    command = shlex.split(denied["grant"])
    assert command[:3] == ["kafkactl", "acls", "create"] and command[-2:] == ["--resource-pattern-type", "prefixed"]
    ok(run("--context", "local-admin", *command[1:]))
    assert run(*ask).exit_code == 0
