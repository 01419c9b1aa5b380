"""kafkactl acls create/list/delete against the real broker, as admin and as alice."""

from __future__ import annotations

import json

import pytest

from kafkactl.acl.model import AclBinding, AclFilter, AclOperation, PatternType, Permission, ResourceType
from kafkactl.exitcodes import ExitCode
from tests.integration.acl_helpers import remove_exactly, snapshot, token

Op, RT, PT, P = AclOperation, ResourceType, PatternType, Permission


def listed(sandbox, *args, user="admin") -> set[AclBinding]:
    r = sandbox.as_user(user, "-o", "json", "acls", "list", *args)
    assert r.exit_code == 0, r.stderr
    return {AclBinding(RT[d["resource_type"]], d["resource_name"], PT[d["pattern_type"]], d["principal"], d["host"],
                       Op[d["operation"]], P[d["permission"]]) for d in json.loads(r.stdout)}


@pytest.fixture
def admin_gw(sandbox):
    return sandbox.gateway("admin")


def test_every_resource_type_and_the_newest_operations_round_trip(sandbox, admin_gw):
    t = token()
    principal = f"User:rt{t}"
    r = sandbox.as_user("admin", "-o", "json", "acls", "create", "--allow-principal", principal,
                        "--topic", f"t{t}", "--group", f"g{t}", "--transactional-id", f"x{t}",
                        "--delegation-token", f"d{t}", "--user-principal", f"User:u{t}", "--cluster",
                        "--operation", "All")
    assert r.exit_code == 0, r.stderr
    assert json.loads(r.stdout)["summary"] == {"created": 6}
    r = sandbox.as_user("admin", "acls", "create", "--allow-principal", principal, "--transactional-id", f"x{t}",
                        "--operation", "TwoPhaseCommit", "--operation", "write")
    assert r.exit_code == 0, r.stderr
    r = sandbox.as_user("admin", "acls", "create", "--allow-principal", principal, "--user-principal", f"User:u{t}",
                        "--operation", "create-tokens", "--operation", "DESCRIBE_TOKENS")
    assert r.exit_code == 0, r.stderr
    try:
        got = listed(sandbox, "--principal", principal)
        assert {(b.resource_type, b.operation) for b in got} == {
            (RT.TOPIC, Op.ALL), (RT.GROUP, Op.ALL), (RT.TRANSACTIONAL_ID, Op.ALL), (RT.DELEGATION_TOKEN, Op.ALL),
            (RT.USER, Op.ALL), (RT.CLUSTER, Op.ALL), (RT.TRANSACTIONAL_ID, Op.TWO_PHASE_COMMIT),
            (RT.TRANSACTIONAL_ID, Op.WRITE), (RT.USER, Op.CREATE_TOKENS), (RT.USER, Op.DESCRIBE_TOKENS)}
        assert got == {b for b in snapshot(admin_gw) if b.principal == principal}  # what the broker holds
        # delete through kafkactl, including the types librdkafka cannot express
        r = sandbox.as_user("admin", "-o", "json", "acls", "delete", "--principal", principal, "--yes")
        assert r.exit_code == 0, r.stderr
        assert json.loads(r.stdout)["summary"] == {"deleted": 10}
        assert listed(sandbox, "--principal", principal) == set()
    finally:
        remove_exactly(admin_gw, {b for b in snapshot(admin_gw) if b.principal == principal})


def test_create_reports_created_then_exists_and_chunks(sandbox, admin_gw):
    t = token()
    args = ["acls", "create", "--allow-principal", f"User:c{t}", "--operation", "Read", "--topic", f"a{t}"]
    first = json.loads(sandbox.as_user("admin", "-o", "json", *args).stdout)
    args2 = args + ["--topic", f"b{t}"]
    second = sandbox.as_user("admin", "-o", "json", *args2)
    try:
        assert first["summary"] == {"created": 1} and first["kind"] == "AclCreateResult"
        assert first["api_version"] == "kafkactl/v1"
        assert json.loads(second.stdout)["summary"] == {"created": 1, "exists": 1}
        assert "1 created, 1 exists" in second.stderr
    finally:
        remove_exactly(admin_gw, snapshot(admin_gw, t))


def test_dry_run_sends_nothing(sandbox, admin_gw):
    t = token()
    before = snapshot(admin_gw)
    r = sandbox.as_user("admin", "acls", "create", "--allow-principal", f"User:d{t}", "--topic", f"d{t}", "--dry-run")
    assert r.exit_code == 0 and "would-create" in r.stdout
    assert snapshot(admin_gw) == before
    # it reads the cluster (issue 29): an ACL already there is `exists`, a caller who may not create is told
    ok = sandbox.as_user("admin", "acls", "create", "--allow-principal", f"User:d{t}", "--topic", f"d{t}",
                         "--operation", "Write")
    assert ok.exit_code == 0, ok.stderr
    try:
        r = sandbox.as_user("admin", "-o", "json", "acls", "create", "--allow-principal", f"User:d{t}", "--topic",
                            f"d{t}", "--operation", "Write", "--operation", "Read", "--dry-run")
        assert r.exit_code == 0 and json.loads(r.stdout)["summary"] == {"exists": 1, "would-create": 1}, r.output
        r = sandbox.as_user("carol", "acls", "create", "--allow-principal", f"User:d{t}", "--topic", f"d{t}",
                            "--dry-run")
        assert r.exit_code == ExitCode.NOT_AUTHORIZED and "User:carol is not authorized to create ACLs" in r.stderr
        r = sandbox.as_user("admin", "-b", "127.0.0.1:1", "acls", "create", "--allow-principal", f"User:d{t}",
                            "--topic", f"d{t}", "--dry-run")
        assert r.exit_code == ExitCode.UNREACHABLE and r.stderr.count("\n") == 1, r.stderr
    finally:
        remove_exactly(admin_gw, [b for b in snapshot(admin_gw) if b.principal == f"User:d{t}"])
    # the warnings lint would give, given before anything exists (issue 29)
    r = sandbox.as_user("admin", "acls", "create", "--allow-principal", f"user:d{t}", "--allow-host", "localhost",
                        "--topic", f"d{t}", "--dry-run")
    assert "warning: principal user:d" in r.stderr and "principal types are case-sensitive" in r.stderr, r.stderr
    assert "host 'localhost' is not an IP address: the broker compares the client's IP, never a name" in r.stderr


def test_delete_safety(sandbox, admin_gw):
    t = token()
    sandbox.as_user("admin", "acls", "create", "--allow-principal", f"User:s{t}", "--topic", f"s{t}")
    try:
        before = snapshot(admin_gw)
        r = sandbox.as_user("admin", "acls", "delete")
        assert r.exit_code == ExitCode.USAGE and "--all" in r.stderr
        r = sandbox.as_user("admin", "acls", "delete", "--principal", f"User:s{t}")  # not a TTY, no --yes
        assert r.exit_code == ExitCode.USAGE and "--yes" in r.stderr
        r = sandbox.as_user("admin", "acls", "delete", "--principal", f"User:s{t}", "--dry-run")
        assert r.exit_code == 0 and "would-delete" in r.stdout
        assert snapshot(admin_gw) == before
        r = sandbox.as_user("admin", "acls", "remove", "--principal", f"User:s{t}", "--force")  # the aliases
        assert r.exit_code == 0 and "deleted" in r.stdout
        r = sandbox.as_user("admin", "acls", "delete", "--principal", f"User:s{t}", "--yes")
        assert r.exit_code == 0 and "nothing to delete" in r.stderr
    finally:
        remove_exactly(admin_gw, snapshot(admin_gw, t))


def test_validation_happens_before_any_request(sandbox):
    cases = [
        (["--allow-principal", "User:a", "--group", "g", "--operation", "Write"], "not supported on GROUP"),
        (["--allow-principal", "alice", "--topic", "t"], "Type:name"),
        (["--allow-principal", "User:a", "--topic", "t", "--operation", "Wirte"], "did you mean Write"),
        (["--allow-principal", "User:a", "--topic", "t", "--resource-pattern-type", "match"],
         "not valid when creating"),
        (["--allow-principal", "User:a", "--topic", ""], "empty"),
    ]
    for args, needle in cases:
        # an unreachable bootstrap proves nothing was sent: it would fail with exit 4 otherwise
        r = sandbox.as_user("admin", "-b", "127.0.0.1:1", "--timeout", "1", "acls", "create", *args)
        assert r.exit_code == ExitCode.USAGE, (args, r.stderr)
        assert needle in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_alice_gets_authorization_errors_naming_the_permission(sandbox, admin_gw):
    t = token()
    before = snapshot(admin_gw)
    r = sandbox.as_user("alice", "acls", "list")
    assert r.exit_code == ExitCode.NOT_AUTHORIZED and "Describe on the Cluster" in r.stderr
    r = sandbox.as_user("alice", "acls", "create", "--allow-principal", "User:alice", "--topic", f"al{t}")
    assert r.exit_code == ExitCode.NOT_AUTHORIZED and "Alter on the Cluster" in r.stderr
    r = sandbox.as_user("alice", "acls", "delete", "--principal", "User:alice", "--yes")
    assert r.exit_code == ExitCode.NOT_AUTHORIZED
    assert snapshot(admin_gw) == before


def test_alice_with_describe_but_not_alter_on_cluster(sandbox, admin_gw):
    """Describe on CLUSTER lets alice list, not create: the broker says so per binding."""
    t = token()
    grant = ["acls", "create", "--allow-principal", "User:alice", "--cluster", "--operation", "Describe"]
    assert sandbox.as_user("admin", *grant).exit_code == 0
    try:
        assert sandbox.as_user("alice", "acls", "list").exit_code == 0
        r = sandbox.as_user("alice", "acls", "create", "--allow-principal", "User:alice", "--topic", f"al{t}")
        assert r.exit_code == ExitCode.NOT_AUTHORIZED and "Alter on the Cluster" in r.stderr
        assert snapshot(admin_gw, f"al{t}") == set()
        # she can see what a delete would remove, but the broker refuses the delete itself
        sandbox.as_user("admin", "acls", "create", "--allow-principal", f"User:v{t}", "--topic", f"al{t}")
        r = sandbox.as_user("alice", "acls", "delete", "--principal", f"User:v{t}", "--yes")
        assert r.exit_code == ExitCode.NOT_AUTHORIZED and "Alter on the Cluster" in r.stderr
        assert "Request(" not in r.stderr
        assert len(snapshot(admin_gw, f"al{t}")) == 1
    finally:
        sandbox.as_user("admin", "acls", "delete", "--allow-principal", "User:alice", "--cluster",
                        "--operation", "Describe", "--yes")
        remove_exactly(admin_gw, snapshot(admin_gw, f"al{t}"))


# ------------------------------------------------------------------------------------------- filters


@pytest.fixture
def filter_fixture(sandbox, admin_gw):
    """Literal, prefixed and wildcard ACLs on names that share prefixes."""
    t = token()
    base = f"ff{t}"
    specs = [("literal", f"{base}.orders.eu"), ("literal", f"{base}.orders"), ("prefixed", f"{base}.orders."),
             ("prefixed", f"{base}.ord"), ("prefixed", f"{base}.orders.eu"), ("literal", "*"),
             ("prefixed", f"{base}.other")]
    principal = f"User:ff{t}"
    for pt, name in specs:
        r = sandbox.as_user("admin", "acls", "create", "--allow-principal", principal, "--topic", name,
                            "--resource-pattern-type", pt, "--operation", "Read")
        assert r.exit_code == 0, r.stderr
    created = {b for b in snapshot(admin_gw) if b.principal == principal}
    assert len(created) == len(specs)
    yield base, principal, created
    remove_exactly(admin_gw, {b for b in snapshot(admin_gw) if b.principal == principal})


@pytest.mark.parametrize("pattern,name,expected", [
    ("match", "{b}.orders.eu", {"{b}.orders.eu/L", "{b}.orders./P", "{b}.ord/P", "{b}.orders.eu/P", "*/L"}),
    ("any", "{b}.orders.eu", {"{b}.orders.eu/L", "{b}.orders.eu/P"}),
    ("literal", "{b}.orders.eu", {"{b}.orders.eu/L"}),
    ("prefixed", "{b}.orders.eu", {"{b}.orders.eu/P"}),
    ("literal", "*", {"*/L"}),
    ("match", "{b}.orders", {"{b}.orders/L", "{b}.ord/P", "*/L"}),
    ("match", "{b}.other.x", {"{b}.other/P", "*/L"}),
    ("prefixed", "{b}.ord", {"{b}.ord/P"}),
])
def test_filter_semantics_on_the_broker(sandbox, filter_fixture, pattern, name, expected):
    base, principal, created = filter_fixture
    got = listed(sandbox, "--principal", principal, "--topic", name.format(b=base), "--resource-pattern-type", pattern)
    short = {f"{b.resource_name}/{b.pattern_type.name[0]}" for b in got}
    assert short == {e.format(b=base) for e in expected}
    # the local model of the filter semantics agrees with the broker
    local = AclFilter(RT.TOPIC, name.format(b=base), PT[pattern.upper()], principal).matches
    assert {b for b in created if local(b)} == got


def test_absent_resource_matches_anything(sandbox, filter_fixture):
    base, principal, created = filter_fixture
    assert listed(sandbox, "--principal", principal) == created
    assert len(listed(sandbox, "--principal", principal, "--resource-pattern-type", "prefixed")) == 4


def test_delete_with_match_removes_exactly_what_applies(sandbox, admin_gw, filter_fixture):
    base, principal, created = filter_fixture
    r = sandbox.as_user("admin", "-o", "json", "acls", "delete", "--principal", principal, "--topic",
                        f"{base}.orders.eu", "--resource-pattern-type", "match", "--yes")
    assert r.exit_code == 0, r.stderr
    left = {f"{b.resource_name}/{b.pattern_type.name[0]}" for b in snapshot(admin_gw) if b.principal == principal}
    assert left == {f"{base}.orders/L", f"{base}.other/P"}


def test_delete_producer_and_consumer_remove_what_create_added(sandbox):
    """Issue 29, item 6: kafka-acls.sh --remove takes --producer and --consumer; kafkactl refused them."""
    who, topic = f"User:pc{token()}", f"pc.{token()}"
    gw = sandbox.gateway("admin")
    for role in (["--producer", "--idempotent"], ["--consumer", "--group", f"{topic}-g"]):
        r = sandbox.as_user("admin", "acls", "create", "--allow-principal", who, "--topic", topic, *role)
        assert r.exit_code == 0, r.stderr
    r = sandbox.as_user("admin", "acls", "create", "--allow-principal", who, "--topic", topic, "--operation", "Alter")
    assert r.exit_code == 0, r.stderr

    def ops():
        return sorted((b.resource_type.name, b.operation.name) for b in snapshot(gw) if b.principal == who)

    r = sandbox.as_user("admin", "acls", "delete", "--allow-principal", who, "--topic", topic, "--producer",
                        "--idempotent", "--yes")
    assert r.exit_code == 0, r.stderr
    # (the consumer's Describe on the topic is the producer's very binding: gone with it, as with kafka-acls.sh)
    assert ops() == [("GROUP", "READ"), ("TOPIC", "ALTER"), ("TOPIC", "READ")]
    r = sandbox.as_user("admin", "acls", "delete", "--allow-principal", who, "--topic", topic, "--consumer",
                        "--group", f"{topic}-g", "--yes")
    assert r.exit_code == 0, r.stderr
    assert ops() == [("TOPIC", "ALTER")]  # what neither role names stays
    remove_exactly(gw, [b for b in snapshot(gw) if b.principal == who])
