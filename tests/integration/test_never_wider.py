"""Issue 28, against the real broker: what a desired-state command writes never replaces a file it reads, its report
always describes this run, and a plan that would lock out the caller is refused unless the operator says so."""

from __future__ import annotations

import json
import os

import pytest
import yaml

from tests.integration.acl_helpers import scram_user, token
from tests.secrets_sweep import new_secret


def ok(r):
    assert r.exit_code == 0, r.stderr
    return r


def admin(sandbox, *args, **kw):
    return sandbox.as_user("admin", *args, **kw)


def test_no_report_or_saved_plan_replaces_a_secret_file_the_state_reads(sandbox, tmp_path):
    """`configs plan --out S` and `configs apply --report S`, S the {file:} secret of a user's password (or a
    symbolic or hard link to it): refused, exit 2, the secret as it was and the user not created. Before, the
    report replaced the secret, and an apply of that plan would have set the password to the report's JSON."""
    base = f"nw{token()}"
    secret = tmp_path / "password.txt"
    password = new_secret("the password a State file reads from a file")
    secret.write_text(password + "\n")
    state = tmp_path / "users.yaml"
    state.write_text(yaml.safe_dump({"apiVersion": "kafkactl/v1", "kind": "State", "users": [
        {"name": f"{base}-u", "scram": [{"mechanism": "SCRAM-SHA-512", "password": {"file": str(secret)}}]}]}))
    link = tmp_path / "link.txt"
    link.symlink_to(secret)
    hard = tmp_path / "hard.txt"
    os.link(secret, hard)
    plandir = tmp_path / "plan"  # a saved plan's directory, one of whose files is the secret
    plandir.mkdir()
    (plandir / "plan.json").write_text('{"kind": "ConfigPlan"}')
    os.link(secret, plandir / "changes-x.jsonl")
    try:
        r = admin(sandbox, "configs", "plan", str(state), "--out", str(plandir))
        assert r.exit_code == 2 and "the command reads that file" in r.stderr, r.stderr
        for path in (secret, link, hard):
            r = admin(sandbox, "configs", "plan", str(state), "--out", str(path))
            assert r.exit_code == 2 and "not a directory" in r.stderr, (path.name, r.stderr)
            for mode in ("--yes", "--dry-run"):
                r = admin(sandbox, "configs", "apply", str(state), "--report", str(path), mode)
                assert r.exit_code == 2 and "the command reads that file" in r.stderr, (path.name, mode, r.stderr)
            assert secret.read_text() == password + "\n" and link.is_symlink()
        r = ok(admin(sandbox, "-o", "json", "configs", "plan", str(state)))
        changes = [(c["entity"], c["action"]) for c in json.loads(r.stdout)["changes"]]
        assert changes == [(f"{base}-u", "upsert-scram")]  # not created
    finally:  # (the secret's three names: the sweep would rightly find it in them)
        secret.unlink()
        hard.unlink()
        (plandir / "changes-x.jsonl").unlink()


def test_an_apply_with_nothing_to_do_leaves_its_own_report(sandbox, tmp_path):
    """Issue 28: an apply with nothing to do left the previous run's report at --report. Now the report is made
    before anything is sent, so it is always this run's: here, no change at all."""
    base = f"nr{token()}"
    report = tmp_path / "report.jsonl"
    configs = tmp_path / "configs.yaml"
    configs.write_text(yaml.safe_dump({"apiVersion": "kafkactl/v1", "kind": "State",
                                       "manage": {"topics": [f"{base}."]}, "topics": []}))
    acls = tmp_path / "acls.yaml"
    acls.write_text(yaml.safe_dump({"apiVersion": "kafkactl/v1", "kind": "AclState",
                                    "scope": {"principals": [f"User:{base}-none"]}, "acls": []}))
    for command, f in (("configs", configs), ("acls", acls)):
        report.write_text('{"status": "applied", "from": "an earlier run"}\n')
        r = ok(admin(sandbox, command, "apply", str(f), "--report", str(report), "--yes"))
        assert "nothing to do" in r.stderr
        assert report.read_text() == "", command


def test_a_plan_that_deletes_the_callers_own_credential_is_refused_unless_allowed(sandbox, tmp_path):
    """Issue 28: a users scope with an empty list deleted every SCRAM credential in it, the caller's own too, and the
    next command failed to authenticate; nothing warned, --dry-run included. Now plan warns, apply and its dry run
    refuse (exit 2, nothing changed) unless --allow-lockout, which then does lock the caller out."""
    base = f"lo{token()}"
    op = f"{base}-op"
    gw = scram_user(sandbox, tmp_path, op)
    gw.close()
    props = tmp_path / f"{op}.properties"
    grants = [("--cluster", "--operation", "Alter"), ("--cluster", "--operation", "Describe"),
              ("--cluster", "--operation", "DescribeConfigs")]
    for g in grants:
        ok(admin(sandbox, "acls", "create", "--allow-principal", f"User:{op}", *g))

    def as_op(*args):
        return sandbox_run(sandbox, props, *args)

    state = tmp_path / "users.yaml"
    state.write_text(yaml.safe_dump({"apiVersion": "kafkactl/v1", "kind": "State",
                                     "manage": {"users": [f"{base}-"]}, "users": []}))
    try:
        r = ok(as_op("-o", "json", "configs", "plan", str(state)))
        assert [(c["entity"], c["action"]) for c in json.loads(r.stdout)["changes"]] == [(op, "delete-scram")]
        assert "the user this command authenticates as" in r.stderr and "--allow-lockout" in r.stderr, r.stderr
        for mode in ("--dry-run", "--yes"):
            r = as_op("configs", "apply", str(state), mode)
            assert r.exit_code == 2 and "--allow-lockout" in r.stderr and "nothing applied" in r.stderr, r.stderr
        ok(as_op("configs", "plan", str(state)))  # still authenticates: nothing was deleted
        ok(as_op("configs", "apply", str(state), "--yes", "--allow-lockout", "--no-wait"))
        r = as_op("configs", "plan", str(state))
        assert r.exit_code != 0 and "authenticat" in r.stderr.lower(), r.stderr
    finally:
        for g in grants:
            admin(sandbox, "acls", "delete", "--allow-principal", f"User:{op}", *g, "--yes")
        admin(sandbox, "configs", "alter", "--user", op, "--delete-config", "SCRAM-SHA-512")


def sandbox_run(sandbox, props, *args):
    from tests.conftest import run

    return run("-b", sandbox.bootstrap, "--command-config", str(props), *args)


def test_acl_plans_show_their_blast_radius_and_guard_it(sandbox, tmp_path):
    """Issue 28: an ACL plan says, per principal, what it gains and loses on the topics, groups and transactional
    ids that exist (JSON and YAML in the plan, a table, a sentence on stderr). A grant to every principal, and a
    plan taking from the caller Alter or Describe on the cluster, are refused unless their flag is given."""
    base = f"br{token()}"
    topics = [f"{base}.{x}" for x in ("a", "b", "c")]
    for t in topics:
        ok(admin(sandbox, "topics", "create", t))
    op = f"{base}-op"
    scram_user(sandbox, tmp_path, op).close()
    props = tmp_path / f"{op}.properties"
    own = {"principal": f"User:{op}", "allow": [{"cluster": True, "operations": ["Alter", "Describe"]}]}
    app = {"principal": f"User:{base}-app", "allow": [{"topic": f"{base}.", "pattern": "prefixed",
                                                        "operations": ["Read"]}]}
    scope = {"principals": [f"User:{op}", f"User:{base}-app", f"User:{base}-new", "User:*"]}
    state = tmp_path / "acls.yaml"

    def write(*entries):
        state.write_text(yaml.safe_dump({"apiVersion": "kafkactl/v1", "kind": "AclState", "scope": scope,
                                         "acls": list(entries)}))

    try:
        write(own, app)
        ok(admin(sandbox, "acls", "apply", str(state), "--yes"))
        # the app's grant: 3 existing topics (READ, and DESCRIBE it implies); the op's own Alter and Describe
        write(own)
        r = ok(admin(sandbox, "-o", "json", "acls", "plan", str(state)))  # (counted among what the caller sees)
        radius = {(s["principal"], s["change"], s["operation"], s["resource_type"], s["resources"])
                  for s in json.loads(r.stdout)["blast_radius"]}
        assert radius == {(f"User:{base}-app", "loses", "READ", "TOPIC", 3),
                          (f"User:{base}-app", "loses", "DESCRIBE", "TOPIC", 3)}, radius
        assert f"User:{base}-app loses READ on 3 topics ({topics[0]}, {topics[1]}, {topics[2]})" in r.stderr
        # taking the caller's own Alter: warned in plan, refused in apply, done with the flag
        write(app)
        r = ok(sandbox_run(sandbox, props, "acls", "plan", str(state)))
        assert f"takes ALTER, DESCRIBE on the cluster from User:{op}" in r.stderr, r.stderr
        for mode in ("--dry-run", "--yes"):
            r = sandbox_run(sandbox, props, "acls", "apply", str(state), mode)
            assert r.exit_code == 2 and "--allow-lockout" in r.stderr and "nothing applied" in r.stderr, r.stderr
        # a grant to every principal
        write(own, app, {"principal": "User:*", "allow": [{"topic": topics[0], "operations": ["Read"]}]})
        r = admin(sandbox, "acls", "apply", str(state), "--yes")
        assert r.exit_code == 2 and "--allow-every-principal" in r.stderr, r.stderr
        listed = json.loads(ok(admin(sandbox, "-o", "json", "acls", "list", "--topic", topics[0])).stdout)
        assert not [b for b in listed if b["principal"] == "User:*"]
        ok(admin(sandbox, "acls", "apply", str(state), "--yes", "--allow-every-principal"))
        # (new-user pass) a lock-out before other changes left the apply half done: it must come last, else exit 2
        newcomer = {"principal": f"User:{base}-new", "allow": [{"topic": topics[1], "operations": ["Read"]}]}
        write(own, app, newcomer, {"principal": f"User:{op}", "deny": [{"cluster": True, "operations": ["Alter"]}]})
        r = sandbox_run(sandbox, props, "acls", "apply", str(state), "--yes", "--allow-lockout", "--no-spark")
        assert r.exit_code == 2 and "apply the other changes first" in r.stderr, r.stderr
        write(app)
        r = sandbox_run(sandbox, props, "acls", "apply", str(state), "--yes", "--allow-lockout")
        # made last and not confirmed: confirming needs the Describe on the cluster the caller just gave up
        assert r.exit_code == 0 and "applied, not confirmed" in r.stderr, r.stderr
        listed = json.loads(ok(admin(sandbox, "-o", "json", "acls", "list", "--principal", f"User:{op}")).stdout)
        assert listed == []
        r = sandbox_run(sandbox, props, "acls", "plan", str(state))
        assert r.exit_code == 3 and "needs Describe on the Cluster" in r.stderr, r.stderr
    finally:
        write()
        admin(sandbox, "acls", "apply", str(state), "--yes", "--allow-lockout")
        admin(sandbox, "topics", "delete", *topics, "--yes")
        admin(sandbox, "configs", "alter", "--user", op, "--delete-config", "SCRAM-SHA-512")


def _acl_state(path, principals, *entries):
    path.write_text(yaml.safe_dump({"apiVersion": "kafkactl/v1", "kind": "AclState",
                                    "scope": {"principals": list(principals)}, "acls": list(entries)}))


@pytest.mark.spark  # (its --spark applies start a local Spark session)
@pytest.mark.tls  # (a local-mtls context)
def test_the_acl_guards_hold_on_every_engine_and_for_a_certificate(sandbox, tmp_path):
    """Adversary pass on issue 28: the guards ran only with the in-process engine's blast radius, so --spark (and a
    flat file large enough for Arrow, and a radius past its budget) applied a grant to every principal and a lock-out;
    a caller logged in by certificate was never checked; taking away a DENY for every principal went through; and a
    refused apply left the previous run's report."""
    base = f"ge{token()}"
    topic = f"{base}.t"
    ok(admin(sandbox, "topics", "create", topic))
    report = tmp_path / "report.jsonl"
    star = tmp_path / "star.yaml"
    _acl_state(star, ["User:*"], {"principal": "User:*", "allow": [{"topic": topic, "operations": ["Read"]}]})
    try:
        for engine in ("--spark", "--no-spark"):
            report.write_text('{"from": "an earlier run"}\n')
            r = admin(sandbox, "acls", "apply", str(star), engine, "--yes", "--report", str(report))
            assert r.exit_code == 2 and "--allow-every-principal" in r.stderr, (engine, r.stderr)
            assert report.read_text() == ""
        listed = json.loads(ok(admin(sandbox, "-o", "json", "acls", "list", "--topic", topic)).stdout)
        assert listed == []
        # a DENY for every principal taken away: every principal may then do what it blocked
        ok(admin(sandbox, "acls", "create", "--deny-principal", "User:*", "--operation", "Read", "--topic", topic))
        _acl_state(star, ["User:*"])
        r = admin(sandbox, "acls", "apply", str(star), "--yes")
        assert r.exit_code == 2 and "takes away the DENY of READ for every principal" in r.stderr, r.stderr
        ok(admin(sandbox, "acls", "apply", str(star), "--yes", "--allow-every-principal"))
        # a certificate's principal, mapped by the brokers' rules, is the caller the lock-out guard holds
        from kafkactl.local.tls import APP_PRINCIPAL as me  # (its DN, which the mapping rules leave whole)

        mine = {"principal": me, "allow": [{"cluster": True, "operations": ["Alter", "Describe", "DescribeConfigs"]}]}
        state = tmp_path / "mine.yaml"
        _acl_state(state, [me], mine)
        ok(admin(sandbox, "acls", "apply", str(state), "--yes"))
        seen = json.loads(ok(run_ctx("local-mtls-app", "-o", "json", "auth", "whoami")).stdout)["principal"]
        assert seen == me  # read with DescribeConfigs on the cluster: the rules the brokers map its DN by
        _acl_state(state, [me], {"principal": me, "allow": [{"cluster": True, "operations": ["DescribeConfigs"]}]})
        for engine in ("--spark", "--no-spark"):
            r = run_ctx("local-mtls-app", "acls", "apply", str(state), engine, "--yes")
            assert r.exit_code == 2 and f"ALTER, DESCRIBE on the cluster from {me}" in r.stderr, (engine, r.stderr)
    finally:
        _acl_state(star, ["User:*"])
        admin(sandbox, "acls", "apply", str(star), "--yes", "--allow-every-principal")
        if "state" in locals():
            _acl_state(state, [me])
            admin(sandbox, "acls", "apply", str(state), "--yes", "--allow-lockout")
        admin(sandbox, "topics", "delete", topic, "--yes")


def test_a_changed_password_of_the_caller_is_a_lockout_too(sandbox, tmp_path, monkeypatch):
    """Adversary pass: a State file replacing the caller's own SCRAM credential (new iterations, new password) applied
    without --allow-lockout, and the caller's context then failed to authenticate."""
    base = f"lp{token()}"
    op = f"{base}-op"
    scram_user(sandbox, tmp_path, op).close()
    props = tmp_path / f"{op}.properties"
    ok(admin(sandbox, "acls", "create", "--allow-principal", f"User:{op}", "--cluster", "--operation", "Alter",
             "--operation", "Describe"))
    monkeypatch.setenv("LP_NEW_PASSWORD", new_secret("the caller's next password"))
    state = tmp_path / "users.yaml"
    state.write_text(yaml.safe_dump({"apiVersion": "kafkactl/v1", "kind": "State", "users": [
        {"name": op, "scram": [{"mechanism": "SCRAM-SHA-512", "iterations": 8192,
                                "password": {"env": "LP_NEW_PASSWORD"}}]}]}))
    try:
        r = sandbox_run(sandbox, props, "configs", "apply", str(state), "--yes")
        assert r.exit_code == 2 and "replaces (new password) the SCRAM-SHA-512 credential of" in r.stderr, r.stderr
        ok(sandbox_run(sandbox, props, "configs", "plan", str(state)))  # still logs in
    finally:
        admin(sandbox, "acls", "delete", "--allow-principal", f"User:{op}", "--cluster", "--operation", "Alter",
              "--operation", "Describe", "--yes")
        admin(sandbox, "configs", "alter", "--user", op, "--delete-config", "SCRAM-SHA-512")


def run_ctx(context, *args):
    from tests.conftest import run

    return run("--context", context, *args)


def test_no_export_or_saved_plan_replaces_a_file_the_command_reads(sandbox, tmp_path):
    """Adversary pass: `acls export --format parquet --file` wrote over the --command-config it logged in with,
    `configs export --file` over the contexts file (every context and password lost), and `acls plan --out DIR`
    removed a State file kept in DIR under a saved plan's name."""
    import shutil

    from tests.conftest import run

    props = tmp_path / "admin.properties"
    shutil.copy(sandbox.home / "client-admin.properties", props)
    before = props.read_bytes()
    r = run("-b", sandbox.bootstrap, "--command-config", str(props), "acls", "export", "--format", "parquet",
            "--file", str(props))
    assert r.exit_code == 2 and "the command reads that file" in r.stderr, r.stderr
    assert props.read_bytes() == before
    from kafkactl.profiles.store import contexts_path

    contexts = contexts_path()
    kept = contexts.read_bytes()
    r = admin(sandbox, "configs", "export", "--section", "quotas", "--file", str(contexts))
    assert r.exit_code == 2 and "the command reads that file" in r.stderr, r.stderr
    assert contexts.read_bytes() == kept
    # (new-user pass) a --report there: the report was started before the client, and so these files, were read
    empty = tmp_path / "empty.yaml"
    empty.write_text(yaml.safe_dump({"apiVersion": "kafkactl/v1", "kind": "State", "manage": {"quotas": ["nobody"]},
                                     "quotas": []}))
    for command in (("configs", "apply", str(empty)), ("acls", "apply", str(tmp_path / "none.yaml"))):
        (tmp_path / "none.yaml").write_text(yaml.safe_dump({"apiVersion": "kafkactl/v1", "kind": "AclState",
                                                            "scope": {"principals": ["User:nobody"]}, "acls": []}))
        r = admin(sandbox, *command, "--yes", "--report", str(contexts))
        assert r.exit_code == 2 and "the command reads that file" in r.stderr, (command, r.stderr)
        assert contexts.read_bytes() == kept
        r = run("-b", sandbox.bootstrap, "--command-config", str(props), *command, "--yes", "--report", str(props))
        assert r.exit_code == 2 and "the command reads that file" in r.stderr, (command, r.stderr)
        assert props.read_bytes() == before
    d = tmp_path / "plan"
    d.mkdir()
    state = d / "changes-local-admin.jsonl"
    state.write_text(json.dumps({"kind": "scope", "principals": [f"User:{token()}"]}) + "\n")
    r = admin(sandbox, "acls", "plan", str(state), "--out", str(d))  # no plan.json: not a plan, whatever its names
    assert r.exit_code == 2 and "holds other files than a saved plan" in r.stderr, r.stderr
    (d / "plan.json").write_text('{"kind": "AclPlan"}')  # a plan's directory: the State file is still not replaced
    r = admin(sandbox, "acls", "plan", str(state), "--out", str(d))
    assert r.exit_code == 2 and "the command reads that file" in r.stderr, r.stderr
    assert state.exists()
