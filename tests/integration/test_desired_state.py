"""Desired-state ACLs against the real broker: export/plan/apply, scope safety, phase order, engines."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kafkactl.acl.model import AclBinding, AclOperation, PatternType, Permission, ResourceType
from kafkactl.exitcodes import ExitCode
from tests.conftest import run
from tests.integration.acl_helpers import remove_exactly, snapshot, token


def ok(r):
    assert r.exit_code == 0, r.stderr[-3000:]
    return r


def state_yaml(prefix: str, acls: list[dict], extra_scope: dict | None = None) -> str:
    import yaml

    return yaml.safe_dump({"apiVersion": "kafkactl/v1", "kind": "AclState",
                           "scope": {"principalPrefixes": [f"User:{prefix}"], **(extra_scope or {})}, "acls": acls})


def mine(gw, prefix):
    return {b for b in snapshot(gw) if b.principal.startswith(f"User:{prefix}")}


@pytest.fixture
def team(sandbox):
    t = token()
    prefix = f"ds{t}-"
    yield prefix
    gw = sandbox.gateway("admin")
    remove_exactly(gw, snapshot(gw, f"ds{t}"))


def plan_exit(sandbox, path, *extra):
    return sandbox.as_user("admin", "acls", "plan", str(path), "--detailed-exitcode", *extra)


def test_export_then_plan_shows_no_changes_in_every_format(sandbox, team, tmp_path):
    p = f"User:{team}app"
    for args in (["--topic", f"{team}orders", "--operation", "Read", "--operation", "Write"],
                 ["--topic", f"{team}", "--resource-pattern-type", "prefixed", "--operation", "Describe"],
                 ["--group", f"{team}g", "--operation", "Read"]):
        ok(sandbox.as_user("admin", "acls", "create", "--allow-principal", p, *args))
    ok(sandbox.as_user("admin", "acls", "create", "--deny-principal", p, "--deny-host", "10.1.1.1",
                       "--topic", f"{team}x", "--operation", "Read"))
    for fmt, name in (("yaml", "e.yaml"), ("jsonl", "e.jsonl"), ("csv", "e.csv"), ("parquet", "e.parquet")):
        path = tmp_path / name
        ok(sandbox.as_user("admin", "acls", "export", "--format", fmt, "--principal-prefix", f"User:{team}",
                           "--file", str(path)))
        extra = []
        if fmt == "csv":
            scope = tmp_path / "scope.yaml"
            scope.write_text(f"scope:\n  principalPrefixes: ['User:{team}']\nacls: []\n")
            extra = ["--scope", str(scope)]
        r = plan_exit(sandbox, path, *extra)
        assert r.exit_code == 0, (fmt, r.stdout, r.stderr)
        assert "+0 -0" in r.stderr
    doc = (tmp_path / "e.yaml").read_text()
    assert "hosts:\n  - 10.1.1.1" in doc and "pattern: prefixed" in doc


def test_adds_removes_and_swaps_round_trip(sandbox, team, tmp_path):
    gw = sandbox.gateway("admin")
    app = f"User:{team}app"
    v1 = [{"principal": app, "allow": [{"topic": f"{team}a", "operations": ["Read", "Write"]},
                                       {"group": f"{team}g", "operations": ["Read"]}],
           "deny": [{"topic": f"{team}secret", "operations": ["Read"]}]}]
    # swap ALLOW<->DENY on secret, literal -> prefixed on a, drop the group, add a transactional id
    v2 = [{"principal": app, "allow": [{"topic": f"{team}a", "pattern": "prefixed", "operations": ["Read", "Write"]},
                                       {"topic": f"{team}secret", "operations": ["Read"]},
                                       {"transactional-id": f"{team}tx", "operations": ["Write", "TwoPhaseCommit"]}],
           "deny": [{"topic": f"{team}a", "operations": ["Write"]}]}]
    f1, f2 = tmp_path / "v1.yaml", tmp_path / "v2.yaml"
    f1.write_text(state_yaml(team, v1))
    f2.write_text(state_yaml(team, v2))
    assert plan_exit(sandbox, f1).exit_code == 2
    ok(sandbox.as_user("admin", "acls", "apply", str(f1), "--yes"))
    assert plan_exit(sandbox, f1).exit_code == 0
    r = ok(sandbox.as_user("admin", "-o", "json", "acls", "plan", str(f2)))
    changes = {(c["phase"], c["action"], c["resource_name"], c["pattern_type"], c["operation"], c["permission"])
               for c in json.loads(r.stdout)["changes"]}
    assert changes == {
        (1, "CREATE", f"{team}a", "LITERAL", "WRITE", "DENY"),
        (2, "CREATE", f"{team}a", "PREFIXED", "READ", "ALLOW"), (2, "CREATE", f"{team}a", "PREFIXED", "WRITE", "ALLOW"),
        (2, "CREATE", f"{team}secret", "LITERAL", "READ", "ALLOW"),
        (2, "CREATE", f"{team}tx", "LITERAL", "WRITE", "ALLOW"),
        (2, "CREATE", f"{team}tx", "LITERAL", "TWO_PHASE_COMMIT", "ALLOW"),
        (3, "DELETE", f"{team}a", "LITERAL", "READ", "ALLOW"), (3, "DELETE", f"{team}a", "LITERAL", "WRITE", "ALLOW"),
        (3, "DELETE", f"{team}g", "LITERAL", "READ", "ALLOW"),
        (4, "DELETE", f"{team}secret", "LITERAL", "READ", "DENY")}
    report = tmp_path / "report.jsonl"
    ok(sandbox.as_user("admin", "acls", "apply", str(f2), "--yes", "--report", str(report)))
    assert plan_exit(sandbox, f2).exit_code == 0
    lines = [json.loads(x) for x in report.read_text().splitlines()]
    assert len(lines) == 10 and {x["status"] for x in lines} == {"created", "deleted"}
    # one report line for every kind of change (desired/change.py): an ACL is there or not, and can be undone
    assert {(x["kind"], x["action"], x["before"], x["after"], x["undoable"]) for x in lines} == {
        ("acl", "CREATE", None, "present", True), ("acl", "DELETE", "present", None, True)}
    assert all(x["target"].endswith(f"{x['resource_type']}:{x['resource_name']} ({x['pattern_type']})")
               for x in lines), lines
    assert len(mine(gw, team)) == 6


def test_scope_safety_unmanaged_and_super_user_acls_survive(sandbox, team, tmp_path):
    gw = sandbox.gateway("admin")
    unmanaged = f"User:other{team}"
    ok(sandbox.as_user("admin", "acls", "create", "--allow-principal", unmanaged, "--topic", f"{team}t", "--operation",
                       "Read"))
    ok(sandbox.as_user("admin", "acls", "create", "--allow-principal", "User:admin", "--topic", f"{team}t",
                       "--operation", "Read"))
    ok(sandbox.as_user("admin", "acls", "create", "--allow-principal", f"User:{team}app", "--topic", f"{team}t",
                       "--operation", "Read"))
    f = tmp_path / "s.yaml"
    # the scope covers every principal on this run's topics: only protection keeps the admin's ACL
    f.write_text(state_yaml(team, [], {"resourcePrefixes": {"topic": [team]}}).replace(
        f"principalPrefixes:\n  - User:{team}\n", "principalPrefixes:\n  - 'User:'\n"))
    try:
        r = ok(sandbox.as_user("admin", "acls", "apply", str(f), "--yes", "--protect", f"User:other{team[:4]}*"))
        assert "protected" not in r.stdout
        left = {b.principal for b in snapshot(gw, team)}
        assert left == {unmanaged, "User:admin"}
        r = sandbox.as_user("admin", "acls", "apply", str(f), "--yes", "--max-deletes", "0")
        assert r.exit_code == ExitCode.USAGE and "--max-deletes" in r.stderr
        assert {b.principal for b in snapshot(gw, team)} == {unmanaged, "User:admin"}
    finally:
        remove_exactly(gw, {b for b in snapshot(gw, team)})


def test_phase_order_never_grants_what_both_policies_deny(sandbox, team, tmp_path):
    """A probe reads the principal's own KIP-430 operations between the phases."""
    from kafkactl.describe.topics import describe_topics
    from kafkactl.desired.apply import apply
    from kafkactl.desired.formats import read_state
    from kafkactl.desired.plan import Guards, make_plan
    from tests.secrets_sweep import new_secret

    user, pw = f"{team}probe", new_secret("the password of the phase-order probe's user")
    topic = f"{team}t"
    ok(sandbox.as_user("admin", "configs", "alter", "--user", user, "--add-config", f"SCRAM-SHA-512=[password={pw}]"))
    ok(sandbox.as_user("admin", "topics", "create", topic))
    props = tmp_path / "probe.properties"
    props.write_text("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-512\n"
                     "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required "
                     f'username="{user}" password="{pw}";\n')
    from kafkactl.gateway import Gateway
    from kafkactl.profiles import Selection, resolve

    probe_gw = Gateway(resolve(Selection(bootstrap_servers=sandbox.bootstrap, command_config=str(props))))
    old = [{"principal": f"User:{user}", "allow": [{"topic": topic, "operations": ["Read", "Describe"]}],
            "deny": [{"topic": topic, "operations": ["Write"]}]}]
    new = [{"principal": f"User:{user}",
            "allow": [{"topic": team, "pattern": "prefixed", "operations": ["Write", "Describe"]}],
            "deny": [{"topic": topic, "operations": ["Read"]}]}]
    f_old, f_new = tmp_path / "old.yaml", tmp_path / "new.yaml"
    f_old.write_text(state_yaml(team, old))
    f_new.write_text(state_yaml(team, new))
    try:
        ok(sandbox.as_user("admin", "acls", "apply", str(f_old), "--yes"))
        old_ops = {"READ", "DESCRIBE"}
        new_ops = {"WRITE", "DESCRIBE"}
        seen = []

        def probe(cluster, phase):  # noqa: ARG001 (the apply's probe signature)
            found, _ = describe_topics(probe_gw, [topic], authorized_operations=True)
            ops = set(found[0].authorized_operations.names()) if found else set()
            seen.append((phase, ops))

        gw = sandbox.gateway("admin")
        plan = make_plan([("local", gw, ["User:admin"])], read_state([str(f_new)]), Guards())
        apply(plan, {"local": gw}, on_phase=probe)
        assert [p for p, _ in seen] == [1, 2, 3, 4]
        all_ops = {o.name for o in (AclOperation.READ, AclOperation.WRITE, AclOperation.CREATE, AclOperation.DELETE,
                                    AclOperation.ALTER, AclOperation.DESCRIBE, AclOperation.DESCRIBE_CONFIGS,
                                    AclOperation.ALTER_CONFIGS)}
        both_deny = all_ops - old_ops - new_ops
        both_allow = old_ops & new_ops
        for phase, ops in seen:
            assert not (ops & both_deny), (phase, ops)  # never granted what both policies deny
            assert both_allow <= ops, (phase, ops)  # never interrupted what both allow
            assert ops <= old_ops | new_ops, (phase, ops)
        assert seen[-1][1] == new_ops
    finally:
        sandbox.as_user("admin", "topics", "delete", topic, "--yes")
        sandbox.as_user("admin", "configs", "delete", "--user", user, "SCRAM-SHA-512")


def test_in_process_and_spark_plans_are_identical(sandbox, spark, team, tmp_path):
    from kafkactl.desired.formats import read_state
    from kafkactl.desired.plan import Guards, make_plan
    from kafkactl.desired.spark import spark_plan
    from kafkactl.desired.targets import resolve_targets
    from kafkactl.profiles import Selection

    app = f"User:{team}app"
    for args in (["--topic", f"{team}old", "--operation", "Read"], ["--group", f"{team}g", "--operation", "Read"],
                 ["--topic", f"{team}keep", "--operation", "Write"]):
        ok(sandbox.as_user("admin", "acls", "create", "--allow-principal", app, *args))
    rows = [{"principal": app, "host": "*", "operation": op, "permission": perm, "resource_type": "TOPIC",
             "resource_name": f"{team}{name}", "pattern_type": pt}
            for name, op, perm, pt in (("keep", "WRITE", "ALLOW", "LITERAL"), ("new", "read", "allow", "prefixed"),
                                       ("deny", "write", "DENY", "LITERAL"))]
    f = tmp_path / "d.jsonl"
    f.write_text(json.dumps({"kind": "scope", "principalPrefixes": [f"User:{team}"]}) + "\n" +
                 "".join(json.dumps(r) + "\n" for r in [*rows, rows[1]]))  # a repeated binding, too
    y = tmp_path / "d.yaml"
    y.write_text(state_yaml(team, [{"principal": app, "allow": [{"topic": f"{team}y", "operations": ["Describe"]}]}]))
    targets = resolve_targets(["local-admin"], [], Selection())
    gw = targets[0].gateway()

    def rowset(plan):
        return {tuple(sorted(r.to_json().items())) for r in plan.rows()}

    def stats(plan):
        return [(c.current_total, c.current_in_scope, c.desired, c.protected_skipped, c.deletes_withheld)
                for c in plan.clusters]

    for guards, changes in ((Guards(), 5), (Guards(no_delete=True), 3)):
        local = make_plan([("local-admin", gw, targets[0].profile.super_users)], read_state([str(f), str(y)]), guards)
        spark = spark_plan(read_state([str(f), str(y)], flat_rows=False), targets, guards)
        assert rowset(local) == rowset(spark) and len(rowset(local)) == changes
        assert [c.fingerprint() for c in local.clusters] == [c.fingerprint() for c in spark.clusters]
        assert [c.counts() for c in local.clusters] == [c.counts() for c in spark.clusters]
        assert stats(local) == stats(spark)


@pytest.mark.parametrize("cur_n,want_n", [(2, 2), (0, 2), (2, 0), (0, 0), (3, 1)])
@pytest.mark.parametrize("no_delete", [False, True])
@pytest.mark.usefixtures("spark")
def test_spark_plan_statistics_match_the_python_diff_on_empty_sides(tmp_path, cur_n, want_n, no_delete):
    """The Spark plan observes its statistics during the join: an empty side must not lose them."""
    from kafkactl.desired.formats import read_state
    from kafkactl.desired.formats.flat import flat_row
    from kafkactl.desired.plan import Guards, diff_cluster
    from kafkactl.desired.spark import BINDING, CURRENT_SCHEMA, session, spark_plan
    from kafkactl.desired.state import Scope
    from kafkactl.desired.targets import Target
    from kafkactl.profiles import Profile

    bs = [AclBinding(ResourceType.TOPIC, f"t{i}", PatternType.LITERAL, "User:p1", "*", AclOperation.READ,
                     Permission.ALLOW if i % 2 else Permission.DENY) for i in range(4)]
    current, desired = bs[:cur_n], bs[1:1 + want_n]
    f = tmp_path / "d.jsonl"
    f.write_text(json.dumps({"kind": "scope", "principalPrefixes": ["User:p"]}) + "\n"
                 + "".join(json.dumps(flat_row(b)) + "\n" for b in desired))
    cur_df = session().createDataFrame([("c", *[flat_row(b)[k] for k in BINDING]) for b in current], CURRENT_SCHEMA)
    target = Target("c", Profile(bootstrap_servers="unused:1", context="c", super_users=("User:admin",)))
    guards = Guards(no_delete=no_delete)
    got = spark_plan(read_state([str(f)], flat_rows=False), [target], guards, current=cur_df).clusters[0]
    want = diff_cluster("c", current, desired, Scope(principal_prefixes=("User:p",)), guards, ["User:admin"])
    assert (got.current_total, got.current_in_scope, got.desired, got.protected_skipped, got.deletes_withheld) == \
        (want.current_total, want.current_in_scope, want.desired, want.protected_skipped, want.deletes_withheld)
    assert got.counts() == want.counts() and got.fingerprint() == want.fingerprint()


@pytest.mark.usefixtures("spark")
def test_binding_key_equals_sparks_xxhash64():
    from pyspark.sql import functions as F

    from kafkactl.desired.plan import KEY_SEP, binding_key
    from kafkactl.desired.spark import session

    bs = [AclBinding(ResourceType.TOPIC, n, PatternType.LITERAL, p, "*", AclOperation.READ, Permission.ALLOW)
          for n in ("a", "ü-ñ", "x" * 300) for p in ("User:a", "User:*")]
    df = session().createDataFrame([(b.principal, b.host, b.operation.name, b.permission.name, b.resource_type.name,
                                     b.resource_name, b.pattern_type.name) for b in bs],
                                   "p string, h string, o string, pe string, rt string, rn string, pt string")
    keys = [r[0] for r in df.select(F.xxhash64(F.concat_ws(KEY_SEP, *df.columns))).collect()]
    assert keys == [binding_key(b) for b in bs]


@pytest.mark.usefixtures("spark")
def test_apply_on_spark(sandbox, team, tmp_path):
    gw = sandbox.gateway("admin")
    app = f"User:{team}app"
    f = tmp_path / "s.yaml"
    f.write_text(state_yaml(team, [{"principal": app, "allow": [{"topic": f"{team}s{i}", "operations": ["Read"]}
                                                                 for i in range(30)],
                                    "deny": [{"topic": f"{team}d", "operations": ["Write"]}]}]))
    report = tmp_path / "spark-report.jsonl"
    r = ok(sandbox.as_user("admin", "acls", "apply", str(f), "--spark", "--yes", "--report", str(report)))
    assert "created" in r.stdout
    lines = [json.loads(x) for x in report.read_text().splitlines()]
    assert len(lines) == 31 and {x["status"] for x in lines} == {"created"}
    assert {(x["kind"], x["before"], x["after"]) for x in lines} == {("acl", None, "present")}  # as in-process
    assert len(mine(gw, team)) == 31
    assert plan_exit(sandbox, f, "--spark").exit_code == 0
    f.write_text(state_yaml(team, []))
    ok(sandbox.as_user("admin", "acls", "apply", str(f), "--spark", "--yes"))
    assert mine(gw, team) == set()


@pytest.mark.usefixtures("sandbox")
def test_bad_file_fails_before_any_request(tmp_path):
    f = tmp_path / "bad.yaml"
    f.write_text(state_yaml("x", [{"principal": "User:x1", "allow": [{"topic": "t", "operations": ["Raed"]}]}]))
    r = run("-b", "127.0.0.1:1", "--timeout", "1", "acls", "apply", str(f), "--yes")
    assert r.exit_code == ExitCode.USAGE and "bad.yaml:" in r.stderr and "did you mean Read" in r.stderr
    r = run("-b", "127.0.0.1:1", "acls", "plan", str(Path(tmp_path) / "missing.yaml"))
    assert r.exit_code == ExitCode.NOT_FOUND and "no such file" in r.stderr  # issue 14: 7 for every missing file


def _saved_plan(sandbox, team, tmp_path, *holders):
    """Read on {team}t for each of `holders`; a desired state that gives it to User:{team}new alone, saved as a
    plan (which deletes the holders' ACLs in the scope and creates the new one)."""
    for p in holders:
        ok(sandbox.as_user("admin", "acls", "create", "--allow-principal", p, "--topic", f"{team}t", "--operation",
                           "Read"))
    f = tmp_path / "s.yaml"
    f.write_text(state_yaml(team, [{"principal": f"User:{team}new",
                                    "allow": [{"topic": f"{team}t", "operations": ["Read"]}]}]))
    saved = tmp_path / "plan"
    ok(sandbox.as_user("admin", "acls", "plan", str(f), "--out", str(saved)))
    return f, saved


def test_apply_of_a_saved_plan_is_held_to_the_guards_given_with_it(sandbox, team, tmp_path):
    """Adversary pass on issue 13: `acls apply --plan DIR` ignored --no-delete, --max-deletes and --protect, so a
    guard an operator added at apply time protected nothing. A saved plan is refused (never trimmed) when it breaks
    one, and --context/--scope, which the plan already fixed, are refused with it."""
    gw = sandbox.gateway("admin")
    old, new = f"User:{team}old", f"User:{team}new"
    f, saved = _saved_plan(sandbox, team, tmp_path, old)
    before = mine(gw, team)
    for extra, needle in ((["--no-delete"], "--no-delete"), (["--max-deletes", "0"], "--max-deletes 0"),
                          (["--max-deletes", "0%"], "--max-deletes 0%"), (["--protect", f"User:{team}o*"], old),
                          (["--protect", new], new), (["--context", "local-admin"], "--context with --plan"),
                          (["--scope", str(f)], "--scope with --plan"), (["--max-deletes", ""], "--max-deletes ''"),
                          (["--max-deletes", "-1"], "--max-deletes '-1'"), (["--max-deletes", "1e400%"], "1e400%")):
        r = sandbox.as_user("admin", "acls", "apply", "--plan", str(saved), "--yes", *extra)
        assert r.exit_code == ExitCode.USAGE and needle in r.stderr, (extra, r.output)
        assert r.stderr.count("\n") == 1 and mine(gw, team) == before
    ok(sandbox.as_user("admin", "acls", "apply", "--plan", str(saved), "--yes", "--max-deletes", "1"))
    assert {b.principal for b in mine(gw, team)} == {new}


def _forge(saved, extra_rows=(), edit_meta=None, edit_row=None, edit_plan=None) -> None:
    """Edit a saved plan as an attacker would: rows added or changed, the fingerprint recomputed to match."""
    from kafkactl.desired.plan import binding_key
    from kafkactl.desired.state import flat_binding

    meta = json.loads((saved / "plan.json").read_text())
    for c in meta["clusters"]:
        path = saved / f"changes-{c['cluster']}.jsonl"
        rows = [json.loads(x) for x in path.read_text().splitlines()]
        rows = [edit_row(r) if edit_row else r for r in rows] + [{"cluster": c["cluster"], **r} for r in extra_rows]
        x = 0
        for r in rows:
            x ^= binding_key(flat_binding("forged", r)) ^ (int(r["phase"]) << 60)
        c["fingerprint"] = [x, len(rows)]
        if edit_meta:
            edit_meta(c)
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    if edit_plan:
        edit_plan(meta)
    (saved / "plan.json").write_text(json.dumps(meta))


def test_a_tampered_saved_plan_is_refused(sandbox, team, tmp_path):
    """Adversary pass on issue 13: a saved plan's fingerprint is no signature. Edits that keep it consistent (a
    DELETE relabelled CREATE to slip past --no-delete, an inflated current_in_scope to stretch --max-deletes P%, a
    forged row outside the scope or for a super user) and a global -b/--context pointing elsewhere are refused."""
    import shutil

    gw = sandbox.gateway("admin")
    outsider = f"User:x{team}keep"
    _, pristine = _saved_plan(sandbox, team, tmp_path, f"User:{team}old", outsider)
    before = snapshot(gw, team)
    row = {"resource_type": "TOPIC", "resource_name": f"{team}t", "pattern_type": "LITERAL", "host": "*",
           "operation": "READ", "permission": "ALLOW", "phase": 3, "action": "DELETE"}
    cases = [
        ({"edit_row": lambda r: {**r, "action": "CREATE"} if r["action"] == "DELETE" else r}, ["--no-delete"],
         "disagree"),
        ({"edit_meta": lambda c: c.update(current_in_scope="lots")}, [], "is not a count"),
        ({"edit_meta": lambda c: c.update(current_in_scope=1e308)}, ["--max-deletes", "50%"], "is not a count"),
        ({"edit_meta": lambda c: c.update(current_in_scope=1000000)}, ["--max-deletes", "1%"], "--max-deletes 1%"),
        ({"extra_rows": [{**row, "principal": outsider}]}, [], "outside the plan's scope"),
        ({"extra_rows": [{**row, "principal": f"User:{team}admin"}]}, ["--protect", f"User:{team}a*"], "protected"),
        ({}, ["--scope="], "--scope '' is empty"),
        # a scope taken out holds every binding: an outsider's row would pass the scope check
        ({"extra_rows": [{**row, "principal": outsider}], "edit_plan": lambda m: m.pop("scope")}, [], "no scope"),
        ({"extra_rows": [{**row, "principal": outsider}], "edit_plan": lambda m: m.update(scope={})}, [],
         "no scope"),
    ]
    for i, (edit, extra, needle) in enumerate(cases):
        saved = tmp_path / f"p{i}"
        shutil.copytree(pristine, saved)
        if edit:
            _forge(saved, **edit)
        r = sandbox.as_user("admin", "acls", "apply", "--plan", str(saved), "--yes", *extra)
        assert r.exit_code == ExitCode.USAGE and needle in r.stderr, (i, r.output)
        assert snapshot(gw, team) == before
    for where in (["--context", "local-carol"], ["-b", "127.0.0.1:1"]):
        r = sandbox.as_user("admin", *where, "acls", "apply", "--plan", str(pristine), "--yes")
        assert r.exit_code == ExitCode.USAGE and "the saved plan was made for" in r.stderr, (where, r.output)
    assert snapshot(gw, team) == before


@pytest.mark.parametrize("engine", [[], pytest.param(["--spark"], marks=pytest.mark.spark)])  # (a param has no fixture)
def test_an_apply_refused_for_one_reason_exits_with_that_reason(sandbox, team, tmp_path, engine):
    """Adversary pass on issue 13: a user who may read ACLs but not alter them got exit 5 ("partial") from an
    apply that changed nothing; it is exit 3, the reason named, the summary still on stdout."""
    from tests.secrets_sweep import new_secret

    user, pw = f"{team}planner", new_secret("the planner's password")
    ok(sandbox.as_user("admin", "configs", "alter", "--user", user, "--add-config", f"SCRAM-SHA-512=[password={pw}]"))
    ok(sandbox.as_user("admin", "acls", "create", "--allow-principal", f"User:{user}", "--cluster",
                       "--operation", "Describe"))
    props = tmp_path / "planner.properties"
    props.write_text("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-512\n"
                     "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required "
                     f'username="{user}" password="{pw}";\n')
    f = tmp_path / "s.yaml"
    f.write_text(state_yaml(f"{team}app", [{"principal": f"User:{team}app",
                                            "allow": [{"topic": f"{team}t{i}", "operations": ["Read"]}
                                                      for i in range(3)]}]))
    try:
        before = mine(sandbox.gateway("admin"), f"{team}app")
        r = run("-b", sandbox.bootstrap, "--command-config", str(props), "-o", "json", "acls", "apply", str(f),
                "--yes", *engine)
        assert r.exit_code == ExitCode.NOT_AUTHORIZED, r.output
        assert f"User:{user}" in r.stderr and "not authorized to apply the plan" in r.stderr
        assert "CLUSTER_AUTHORIZATION_FAILED" in r.stderr and r.stderr.count("error:") == 1
        out = json.loads(r.stdout)
        assert {(s["status"], s["count"]) for s in out["summary"]} == {("failed", 3)}
        assert mine(sandbox.gateway("admin"), f"{team}app") == before == set()
    finally:
        sandbox.as_user("admin", "configs", "delete", "--user", user, "SCRAM-SHA-512")


@pytest.mark.parametrize("spelling", [["{f}", "--spark", "auto"], ["--spark=auto", "{f}"], ["--spark", "auto", "{f}"]])
def test_spark_auto_works_in_any_position(sandbox, team, tmp_path, spelling):
    """Issue 14: `acls plan FILE --spark auto` took 'auto' for a second file; `--spark=auto` was a usage error.
    A small file under auto stays in-process."""
    f = tmp_path / "s.yaml"
    f.write_text(state_yaml(team, [{"principal": f"User:{team}a",
                                    "allow": [{"topic": f"{team}t", "operations": ["Read"]}]}]))
    r = ok(sandbox.as_user("admin", "-o", "json", "acls", "plan", *[a.format(f=f) for a in spelling]))
    doc = json.loads(r.stdout)
    assert doc["engine"].startswith("in-process") and doc["sources"] == [str(f)], doc


def test_export_takes_its_file_format_from_format_and_leaves_o_global(sandbox, team):
    """Issue 14: `acls export -o` was the file format, shadowing the global -o."""
    ok(sandbox.as_user("admin", "acls", "create", "--allow-principal", f"User:{team}x", "--topic", f"{team}t",
                       "--operation", "Read"))
    r = ok(sandbox.as_user("admin", "acls", "export", "-o", "json", "-f", "jsonl", "--principal-prefix",
                           f"User:{team}"))
    lines = [json.loads(line) for line in r.stdout.splitlines()]
    assert any(d.get("principal") == f"User:{team}x" for d in lines), r.stdout
    r = sandbox.as_user("admin", "acls", "export", "-o", "jsonl")
    assert r.exit_code == 2 and "-o" in r.stderr


@pytest.mark.parametrize("engine", [[], pytest.param(["--spark"], marks=pytest.mark.spark)])  # (a param has no fixture)
def test_a_saved_plan_applied_twice_is_stale_the_second_time(sandbox, team, tmp_path, engine):
    """Issue 14: re-applying an applied saved plan reported `created` again (CreateAcls is idempotent)."""
    gw = sandbox.gateway("admin")
    f = tmp_path / "s.yaml"
    f.write_text(state_yaml(team, [{"principal": f"User:{team}a",
                                    "allow": [{"topic": f"{team}t", "operations": ["Read"]}]}]))
    saved = tmp_path / "plan"
    ok(sandbox.as_user("admin", "acls", "plan", str(f), "--out", str(saved), *engine))
    ok(sandbox.as_user("admin", "acls", "apply", "--plan", str(saved), "--yes", *engine))
    after = mine(gw, team)
    assert len(after) == 1
    r = sandbox.as_user("admin", "acls", "apply", "--plan", str(saved), "--yes", *engine)
    assert r.exit_code == ExitCode.USAGE and "the saved plan is stale: of its 1 change, 1 made already" in r.stderr, \
        r.output
    assert r.stdout == "" and mine(gw, team) == after


@pytest.mark.parametrize("plan_engine", [[], ["--spark"]])
def test_a_saved_plan_applies_on_the_engine_apply_is_given(sandbox, spark, team, tmp_path, plan_engine):
    """A saved plan (made in-process or on Spark) goes through the same core API as a new one: `apply --plan DIR
    --spark` applies it on Spark (it was silently applied in-process), without --spark in-process."""
    from kafkactl.desired.engine import PlanRequest, make
    from kafkactl.profiles import Selection

    gw = sandbox.gateway("admin")
    f = tmp_path / "s.yaml"
    f.write_text(state_yaml(team, [{"principal": f"User:{team}a",
                                    "allow": [{"topic": f"{team}t{i}", "operations": ["Read"]} for i in range(3)]}]))
    saved = tmp_path / "plan"
    ok(sandbox.as_user("admin", "acls", "plan", str(f), "--out", str(saved), *plan_engine))
    where = Selection(context=sandbox.context("admin"))
    for spark, engine in (("off", "in-process"), ("on", "spark"), ("auto", "in-process")):
        result = make(PlanRequest(plan_dir=str(saved), spark=spark, selection=where))
        result.close()
        assert result.mode == engine and result.plan.changes == 3
    report = tmp_path / "report.jsonl"
    ok(sandbox.as_user("admin", "acls", "apply", "--plan", str(saved), "--yes", "--spark", "--report", str(report)))
    assert len(mine(gw, team)) == 3
    assert sorted(json.loads(x)["status"] for x in report.read_text().splitlines()) == ["created"] * 3


def test_max_deletes_is_one_guard_on_spark_too(spark, tmp_path):
    """The Spark plan refuses with the in-process engine's words (Guards.check_deletes), never trims."""
    from kafkactl.desired.formats import read_state
    from kafkactl.desired.formats.flat import flat_row
    from kafkactl.desired.plan import Guards, diff_cluster
    from kafkactl.desired.spark import BINDING, CURRENT_SCHEMA, session, spark_plan
    from kafkactl.desired.state import Scope
    from kafkactl.desired.targets import Target
    from kafkactl.errors import UsageError
    from kafkactl.profiles import Profile

    current = [AclBinding(ResourceType.TOPIC, f"t{i}", PatternType.LITERAL, "User:p1", "*", AclOperation.READ,
                          Permission.ALLOW) for i in range(4)]
    f = tmp_path / "d.jsonl"
    f.write_text(json.dumps({"kind": "scope", "principalPrefixes": ["User:p"]}) + "\n"
                 + "".join(json.dumps(flat_row(b)) + "\n" for b in current[:1]))
    cur_df = session().createDataFrame([("c", *[flat_row(b)[k] for k in BINDING]) for b in current], CURRENT_SCHEMA)
    target = Target("c", Profile(bootstrap_servers="unused:1", context="c"))
    for limit in ("2", "50%"):
        guards = Guards(max_deletes=limit)
        with pytest.raises(UsageError) as local:
            diff_cluster("c", current, current[:1], Scope(principal_prefixes=("User:p",)), guards, ())
        with pytest.raises(UsageError) as spark:
            spark_plan(read_state([str(f)], flat_rows=False), [target], guards, current=cur_df)
        assert spark.value.message == local.value.message
        assert local.value.message.startswith("c: the plan deletes 3 ACL bindings, more than --max-deletes")


def test_export_writes_the_format_its_file_is_named_for(sandbox, tmp_path):
    """New-user pass (issue 14): `export --file x.jsonl` wrote YAML, which plan then read as JSONL and refused. The
    extension decides when --format is left out, and a --format it contradicts is refused, writing nothing."""
    t = token()
    ok(sandbox.as_user("admin", "acls", "create", "--allow-principal", f"User:{t}-x", "--topic", t, "--operation",
                       "Read"))
    for suffix in ("jsonl", "parquet", "yaml"):
        path = tmp_path / f"out.{suffix}"
        ok(sandbox.as_user("admin", "acls", "export", "--principal", f"User:{t}-x", "--file", str(path)))
        assert plan_exit(sandbox, path).exit_code == 0, suffix
    wrong = tmp_path / "wrong.jsonl"
    r = sandbox.as_user("admin", "acls", "export", "--principal", f"User:{t}-x", "--format", "csv", "--file",
                        str(wrong))
    assert r.exit_code == 2 and "--format csv with --file" in r.stderr and not wrong.exists(), r.output


def test_an_acls_file_is_judged_with_the_contexts_super_users(sandbox, tmp_path):
    """New-user pass (issue 14): offline (--acls-file) the context's super users were forgotten, so the super user
    was DENIED offline and ALLOWED online."""
    acls = tmp_path / "acls.json"
    acls.write_text(ok(sandbox.as_user("admin", "-o", "json", "acls", "list")).stdout)
    ask = ["acls", "check", "--principal", "User:admin", "--operation", "Read", "--group", f"{token()}.g", "-o", "json"]
    online = json.loads(ok(sandbox.as_user("admin", *ask)).stdout)
    offline = json.loads(ok(sandbox.as_user("admin", *ask, "--acls-file", str(acls))).stdout)
    assert online["decision"] == offline["decision"] == "ALLOWED" and offline["reason"] == "super-user"


@pytest.mark.usefixtures("sandbox", "spark")
def test_spark_runs_quietly_and_leaves_no_temporary_file(team, tmp_path):
    """Issue 16: no JVM or Spark start-up lines on stderr (only --debug shows them), and nothing left in the
    temporary directory (the log configuration, the plan and the results are private and removed at exit)."""
    from tests.conftest import run_process

    scratch = tmp_path / "scratch"
    scratch.mkdir()
    f = tmp_path / "q.yaml"
    f.write_text(state_yaml(team, [{"principal": f"User:{team}q",
                                    "allow": [{"topic": f"{team}q", "operations": ["Read"]}]}]))
    noise = ("Using incubator modules", "Setting default log level", "To adjust logging level")
    r = run_process("--context", "local-admin", "acls", "apply", str(f), "--spark", "--yes",
                    env={"TMPDIR": str(scratch)}, timeout=300)
    assert r.exit_code == 0, r.stderr[-2000:]
    assert not [n for n in noise if n in r.stderr], r.stderr
    assert [p.name for p in scratch.iterdir()] == []
    # the driver JVM ended with the command (it was started with -Djava.io.tmpdir=<scratch>): at once, not a second
    # later when it noticed its parent gone (with its scratch, blockmgr-* and spark-*, still in TMPDIR until then)
    marker = f"-Djava.io.tmpdir={scratch}".encode()
    alive = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and marker in (proc / "cmdline").read_bytes():
                alive.append(proc.name)
        except OSError:
            pass
    assert not alive, f"the Spark driver JVM outlived the command: pids {alive}"
    r = run_process("--debug", "--context", "local-admin", "acls", "plan", str(f), "--spark",
                    env={"TMPDIR": str(scratch)}, timeout=300)
    assert r.exit_code == 0 and "Using incubator modules" in r.stderr, r.stderr[-2000:]
    assert [p.name for p in scratch.iterdir()] == []


def _jsonl_state(path, team: str, n: int) -> None:
    path.write_text(json.dumps({"kind": "scope", "principalPrefixes": [f"User:{team}"]}) + "\n" + "".join(
        json.dumps({"principal": f"User:{team}a", "host": "*", "operation": "READ", "permission": "ALLOW",
                    "resource_type": "TOPIC", "resource_name": f"{team}t{i}", "pattern_type": "LITERAL"}) + "\n"
        for i in range(n)))


@pytest.mark.usefixtures("spark")
def test_auto_is_the_default_engine_and_says_what_it_chose_and_why(sandbox, team, tmp_path):
    """Issue 16: with no engine flag the plan is auto's: in-process while it fits in half the memory available,
    said on stderr with the size and the memory; --no-spark and --spark force and say nothing of a choice."""
    f = tmp_path / "s.yaml"
    f.write_text(state_yaml(team, [{"principal": f"User:{team}a",
                                    "allow": [{"topic": f"{team}t{i}", "operations": ["Read"]} for i in range(3)]}]))
    r = ok(sandbox.as_user("admin", "-o", "json", "acls", "plan", str(f)))
    assert json.loads(r.stdout)["engine"] == "in-process"
    engine_lines = [x for x in r.stderr.splitlines() if x.startswith("engine: ")]
    assert len(engine_lines) == 1 and engine_lines[0].startswith(
        "engine: in-process (3 desired bindings need about 1.8 KiB in-process, "), r.stderr
    assert engine_lines[0].endswith(" available)")
    for forced, engine in (("--no-spark", "in-process"), ("--spark", "spark")):
        r = ok(sandbox.as_user("admin", "-o", "json", "acls", "plan", str(f), forced))
        assert json.loads(r.stdout)["engine"] == engine and "engine: " not in r.stderr, r.stderr


@pytest.mark.usefixtures("spark")
def test_auto_sends_a_plan_too_large_for_the_memory_to_spark_with_the_same_result(sandbox, team, tmp_path):
    """KAFKACTL_MEMORY stands for a small machine: 3,000 bindings (counted from the file, not loaded) need about
    1.8 MiB in-process, more than half of 1 MiB, so auto plans on Spark, and the plan is the one --no-spark makes."""
    gw = sandbox.gateway("admin")
    ok(sandbox.as_user("admin", "acls", "create", "--allow-principal", f"User:{team}a", "--topic", f"{team}gone",
                       "--operation", "Read"))
    f = tmp_path / "big.jsonl"
    _jsonl_state(f, team, 3000)
    small = {"KAFKACTL_MEMORY": "1m"}
    r = ok(sandbox.as_user("admin", "-o", "json", "acls", "plan", str(f), env=small))
    assert "engine: Spark (3,000 desired bindings need about 1.8 MiB in-process, more than half of the 1.0 MiB " \
        "available)" in r.stderr, r.stderr
    on_spark = json.loads(r.stdout)
    r = ok(sandbox.as_user("admin", "-o", "json", "acls", "plan", str(f), "--no-spark", env=small))
    in_process = json.loads(r.stdout)
    assert on_spark["engine"] == "spark" and in_process["engine"] == "in-process"
    assert on_spark["clusters"] == in_process["clusters"], (on_spark["clusters"], in_process["clusters"])
    assert [c["counts"] for c in on_spark["clusters"]] and mine(gw, team) == {
        b for b in snapshot(gw) if b.resource_name == f"{team}gone"}


@pytest.mark.parametrize("args,env,needle", [
    (["--no-spark", "--spark-master", "local[2]"], {}, "--no-spark and --spark-master"),
    (["--spark", "auto", "--no-spark"], {}, "--spark auto and --no-spark"),
    (["--spark", "--no-spark"], {}, "--no-spark and --spark: give one or the other"),
    (["--spark-master", "local[2]", "--spark-remote", "sc://127.0.0.1:1"], {}, "--spark-master and --spark-remote"),
    (["--spark-master", "bogus"], {}, "--spark-master 'bogus': expected"),
    (["--spark-master", "local[abc]"], {}, "--spark-master 'local[abc]': expected"),
    (["--spark-remote", "http://x"], {}, "--spark-remote 'http://x': expected sc://HOST:PORT"),
    ([], {"KAFKACTL_MEMORY": "lots"}, "KAFKACTL_MEMORY='lots'"),
    ([], {"KAFKACTL_MEMORY": "0"}, "KAFKACTL_MEMORY='0'"),
    (["--no-spark"], {"KAFKACTL_MEMORY": "abc"}, "KAFKACTL_MEMORY='abc'"),  # refused whatever the engine
])
def test_contradictory_engine_choices_are_refused_before_any_change(sandbox, team, tmp_path, args, env, needle):
    f = tmp_path / "s.yaml"
    f.write_text(state_yaml(team, [{"principal": f"User:{team}a",
                                    "allow": [{"topic": f"{team}t", "operations": ["Read"]}]}]))
    r = sandbox.as_user("admin", "acls", "apply", str(f), "--yes", *args, env=env)
    assert r.exit_code == ExitCode.USAGE and needle in r.stderr and r.stdout == "", r.output
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr
    assert mine(sandbox.gateway("admin"), team) == set()


@pytest.mark.usefixtures("tls_sandbox", "spark")
def test_two_contexts_of_one_cluster_are_refused_before_any_change(sandbox, team, tmp_path):
    """Issue 16 new-user pass: local-admin and local-tls-admin reach the same cluster (another listener); a fan-out
    to both planned every change twice and reported 400 created where 200 were. Refused, on both engines, naming
    the two contexts; nothing changed."""
    f = tmp_path / "rows.jsonl"
    _jsonl_state(f, team, 5)
    for engine in ("--no-spark", "--spark"):
        r = run("acls", "apply", str(f), "--context", "local-tls-admin", "--context", "local-admin", engine, "--yes")
        assert r.exit_code == ExitCode.USAGE and r.stdout == "", r.output
        assert "contexts 'local-tls-admin' and 'local-admin' reach the same cluster" in r.stderr, r.stderr
    assert mine(sandbox.gateway("admin"), team) == set()


def test_spark_without_java_is_one_line_and_auto_says_it_stays(sandbox, team, tmp_path):
    """A JAVA_HOME without bin/java: pyspark runs $JAVA_HOME/bin/java (PATH does not make up for it), so --spark is
    one line naming it, exit 1, nothing changed; auto, which would pick Spark for a small KAFKACTL_MEMORY, stays
    in-process and says why."""
    from tests.conftest import run_process

    f = tmp_path / "j.yaml"
    f.write_text(state_yaml(team, [{"principal": f"User:{team}j",
                                    "allow": [{"topic": f"{team}j", "operations": ["Read"]}]}]))
    env = {"JAVA_HOME": str(tmp_path / "no-jdk")}
    r = run_process("--context", "local-admin", "acls", "apply", str(f), "--spark", "--yes", env=env, timeout=120)
    assert r.exit_code == 1 and r.stderr.strip().splitlines() == [
        f"error: --spark: Spark needs Java, and JAVA_HOME={str(tmp_path / 'no-jdk')!r} has no bin/java"], r.stderr
    assert mine(sandbox.gateway("admin"), team) == set()
    r = run_process("--context", "local-admin", "-o", "json", "acls", "plan", str(f),
                    env={**env, "KAFKACTL_MEMORY": "1k"},
                    timeout=120)
    assert r.exit_code == 0 and json.loads(r.stdout)["engine"] == "in-process", r.stderr
    assert "but Spark needs Java, and JAVA_HOME=" in r.stderr


@pytest.mark.usefixtures("spark")
def test_out_replaces_a_plan_saved_before_and_refuses_anything_else(sandbox, team, tmp_path):
    """Issue 16 new-user pass: a plan saved with --out into a directory holding an earlier plan kept the earlier
    plan's partitions beside the new ones (Spark) or its rows/ beside the new changes file (in-process), and apply
    --plan refused the mix as 'changed or truncated'. Now the earlier plan is replaced whole; a file, or a directory
    holding anything else, is refused before any work."""
    big, small = tmp_path / "big.jsonl", tmp_path / "small.jsonl"
    _jsonl_state(big, team, 30)
    _jsonl_state(small, team, 2)
    ok(sandbox.as_user("admin", "acls", "create", "--allow-principal", f"User:{team}old", "--topic", f"{team}old",
                       "--operation", "Read"))  # a delete (another partition) in the first plan only
    out = tmp_path / "plan"
    for f, engine in ((big, "--spark"), (small, "--spark"), (big, "--spark"), (small, "--no-spark")):
        ok(sandbox.as_user("admin", "acls", "plan", str(f), engine, "--out", str(out)))
        r = ok(sandbox.as_user("admin", "-o", "json", "acls", "apply", "--plan", str(out), "--dry-run"))
        assert sum(x["count"] for x in json.loads(r.stdout)["summary"]) == (31 if f == big else 3), r.stdout
    afile = tmp_path / "afile"
    afile.write_text("x")
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    for where, needle in ((afile, "not a directory"), (other, "holds other files than a saved plan")):
        r = sandbox.as_user("admin", "-b", "127.0.0.1:1", "acls", "plan", str(small), "--out", str(where))
        assert r.exit_code == ExitCode.USAGE and needle in r.stderr and r.stdout == "", r.output
    assert (other / "notes.txt").read_text() == "mine" and afile.read_text() == "x"


def test_a_plan_warns_of_hosts_and_principals_that_never_match(sandbox, team, tmp_path):
    """New-user pass on issue 29: acls create warned of a lowercase user: and of a host name, a plan of the same
    ACLs in a file did not."""
    f = tmp_path / "w.yaml"
    f.write_text(f"apiVersion: kafkactl/v1\nkind: AclState\nscope: {{principals: ['user:{team}x']}}\nacls:\n"
                 f"- principal: user:{team}x\n  hosts: [myhost.example.com]\n"
                 f"  allow: [{{topic: {team}t, operations: [Read]}}]\n")
    r = sandbox.as_user("admin", "acls", "plan", str(f))
    assert r.exit_code == 0, r.stderr
    assert f"warning: principal user:{team}x: principal types are case-sensitive" in r.stderr, r.stderr
    assert "warning: host 'myhost.example.com' is not an IP address" in r.stderr
