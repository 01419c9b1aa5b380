"""`acls delete` is safe whatever options it is given: the --all guard cannot be got around, a delete removes only
what its preview listed, and it never removes more than kafka-acls.sh --remove with the same options.

Everything runs against the real broker; the ACLs a case deletes (its own and any other test's) are put back
after it.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from kafkactl.acl.model import AclBinding
from tests.conftest import run
from tests.integration.acl_helpers import remove_exactly, snapshot

SET = [
    ("--topic", "ds.t1"), ("--topic", "ds."), ("--group", "ds.g"), ("--transactional-id", "ds.x"),
]


def _bindings() -> list[AclBinding]:
    from kafkactl.acl.model import AclOperation as Op, PatternType as PT, Permission as P, ResourceType as RT

    out = []
    for principal in ("User:ds-a", "User:ds-b"):
        for host in ("*", "10.0.0.1"):
            out += [AclBinding(RT.TOPIC, "ds.t1", PT.LITERAL, principal, host, Op.READ, P.ALLOW),
                    AclBinding(RT.TOPIC, "ds.t1", PT.LITERAL, principal, host, Op.ALL, P.DENY),
                    AclBinding(RT.TOPIC, "ds.", PT.PREFIXED, principal, host, Op.WRITE, P.ALLOW),
                    AclBinding(RT.TOPIC, "ds.t2", PT.LITERAL, principal, host, Op.DESCRIBE, P.ALLOW),
                    AclBinding(RT.GROUP, "ds.g", PT.LITERAL, principal, host, Op.READ, P.ALLOW),
                    AclBinding(RT.TRANSACTIONAL_ID, "ds.x", PT.PREFIXED, principal, host, Op.WRITE, P.ALLOW),
                    AclBinding(RT.CLUSTER, "kafka-cluster", PT.LITERAL, principal, host, Op.IDEMPOTENT_WRITE, P.ALLOW)]
    return out


@pytest.fixture(scope="module")
def acl_set(sandbox):
    gw = sandbox.gateway("admin")
    wanted = _bindings()
    gw.create_acls(wanted)
    yield gw, wanted
    remove_exactly(gw, wanted)


_all = snapshot


def _restore(gw, deleted: set[AclBinding]) -> None:
    if deleted:
        gw.create_acls(sorted(deleted))


# option sets drawn from every filter kafka-acls.sh and kafkactl know, including ones that narrow nothing
options = st.fixed_dictionaries({
    "resources": st.lists(st.sampled_from([*SET, ("--cluster", None)]), max_size=2, unique=True),
    "pattern": st.sampled_from([None, "literal", "prefixed", "any", "match"]),
    "principal": st.sampled_from([None, "User:ds-a"]),
    "host": st.sampled_from([None, "10.0.0.1", "*"]),
    "operation": st.sampled_from([None, "Read", "All", "Write"]),
    "permission": st.sampled_from([None, "allow", "deny"]),
    "allow_principal": st.sampled_from([None, None, "User:ds-b"]),
})


def _argv(o: dict) -> list[str]:
    argv: list[str] = []
    for opt, value in o["resources"]:
        argv += [opt] if value is None else [opt, value]
    if o["pattern"]:
        argv += ["--resource-pattern-type", o["pattern"]]
    if o["allow_principal"]:
        argv += ["--allow-principal", o["allow_principal"]]
        if o["operation"]:
            argv += ["--operation", o["operation"]]
        return argv  # exact entries, as kafka-acls.sh --remove takes them
    for key, opt in (("principal", "--principal"), ("host", "--host"), ("operation", "--operation"),
                     ("permission", "--permission")):
        if o[key]:
            argv += [opt, o[key]]
    return argv


def _rows(stdout: str) -> set[AclBinding]:
    """The bindings of an AclDeleteResult envelope (-o json)."""
    from kafkactl.acl.model import AclOperation, PatternType, Permission, ResourceType

    rows = json.loads(stdout)["results"] if stdout.strip() else []
    return {AclBinding(ResourceType[r["resource_type"]], r["resource_name"], PatternType[r["pattern_type"]],
                       r["principal"], r["host"], AclOperation[r["operation"]], Permission[r["permission"]])
            for r in rows}


@settings(max_examples=40, deadline=None, database=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(o=options)
def test_delete_removes_only_what_its_preview_listed_and_never_everything(acl_set, o):
    gw, _ = acl_set
    argv = _argv(o)
    before = _all(gw)
    preview = run("--context", "local-admin", "-o", "json", "acls", "delete", *argv, "--dry-run")
    r = run("--context", "local-admin", "-o", "json", "acls", "delete", *argv, "--yes")
    after = _all(gw)
    deleted = before - after
    try:
        assert r.exit_code in (0, 2, 5), r.output
        assert "Traceback" not in r.output
        if r.exit_code == 2:
            assert preview.exit_code == 2 and not deleted, (argv, r.stderr)
            return
        assert after, f"{argv} deleted every ACL of the cluster"
        assert deleted <= _rows(preview.stdout), f"{argv} deleted what its preview did not list"
        assert deleted == _rows(r.stdout) & before, f"{argv}: the report differs from what went"
    finally:
        _restore(gw, deleted)


@pytest.mark.parametrize("argv", [
    ["--resource-pattern-type", "any"], ["--resource-pattern-type", "match"], ["--resource-pattern-type", "prefixed"],
    ["--resource-pattern-type", "literal"], ["--cluster", "--resource-pattern-type", "any"],
    ["--cluster", "--resource-pattern-type", "match"], [],
])
def test_the_all_guard_holds_for_options_that_narrow_nothing(acl_set, argv):
    """Issue 13: a pattern type without a resource once counted as a filter and deleted every ACL."""
    gw, _ = acl_set
    before = _all(gw)
    r = run("--context", "local-admin", "acls", "delete", *argv, "--yes")
    assert r.exit_code == 2, r.output
    assert r.stderr.count("error:") == 1 and _all(gw) == before


# kafka-acls.sh --remove needs a resource and knows no --principal/--host/--permission filters for removal
acl_command_options = st.fixed_dictionaries({
    "resources": st.lists(st.sampled_from([*SET, ("--cluster", None)]), min_size=1, max_size=2, unique=True),
    "pattern": st.sampled_from([None, "literal", "prefixed", "any", "match"]),
    "principal": st.none(), "host": st.none(), "permission": st.none(),
    "operation": st.sampled_from([None, "Read", "All", "Write"]),
    "allow_principal": st.sampled_from([None, "User:ds-b"]),
})


@settings(max_examples=5, deadline=None, database=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(o=acl_command_options)
def test_never_deletes_more_than_kafka_acls_remove(sandbox, acl_set, o):
    """On the same ACL set, what kafkactl deletes is a subset of what AclCommand --remove --force deletes (the
    documented differences are all on the side of deleting less); where AclCommand refuses, kafkactl refuses."""
    gw, _ = acl_set
    argv = _argv(o)
    before = _all(gw)
    java = sandbox.kafka_acls("--remove", "--force", *argv)
    theirs = before - _all(gw)
    _restore(gw, theirs)
    r = run("--context", "local-admin", "acls", "delete", *argv, "--yes")
    ours = before - _all(gw)
    _restore(gw, ours)
    refused = java.returncode != 0 or "You must provide at least one resource" in java.stdout + java.stderr
    if refused:
        assert r.exit_code == 2 and not ours, (argv, java.stdout[-300:], r.output)
    else:
        assert r.exit_code in (0, 2), r.output
        assert ours <= theirs, f"{argv}: kafkactl deleted {sorted(map(str, ours - theirs))} that AclCommand kept"


def _spelt_as_everything(gw) -> dict[str, list[str]]:
    every = _all(gw)
    ops = sorted({b.operation.name for b in every})
    return {
        "every operation": [a for op in ops for a in ("--operation", op)],
        "every host": [a for h in sorted({b.host for b in every}) for a in ("--host", h)],
        "every principal": [a for p in sorted({b.principal for b in every}) for a in ("--principal", p)],
    }


@pytest.mark.parametrize("spelling", ["every operation", "every host", "every principal"])
def test_the_all_guard_holds_however_everything_is_spelt(acl_set, spelling):
    """Adversary pass on issue 13: listing every operation (or host, or principal) present matched every ACL and
    got past the --all guard, which looked only at whether a filter was given."""
    gw, _ = acl_set
    argv = _spelt_as_everything(gw)[spelling]
    before = _all(gw)
    for extra in (["--dry-run"], ["--yes"]):
        r = run("--context", "local-admin", "acls", "delete", *argv, *extra)
        assert r.exit_code == 2 and "match every ACL of the cluster" in r.stderr, (argv, r.output)
        assert r.stderr.count("\n") == 1
    assert _all(gw) == before


@pytest.mark.parametrize("argv, named", [
    (["--topic", "ds.t1", "--allow-host", "10.0.0.1"], "--allow-host given without"),
    (["--topic", "ds.t1", "--deny-host", "10.0.0.1"], "--deny-host given without"),
    (["--topic", "ds.t1", "--permission", ""], "--permission ''"),
    (["--topic", "ds.t1", "--resource-pattern-type", ""], "--resource-pattern-type ''"),
    (["--topic", "ds.t1", "--host", ""], "--host ''"),
    (["--topic", "ds.t1", "--host", " "], "--host ' '"),
])
def test_options_that_would_be_dropped_are_refused(acl_set, argv, named):
    """Adversary pass: an --allow-host without a principal, or an empty --permission/--resource-pattern-type/--host,
    used to be dropped silently, so the delete matched more than the operator wrote."""
    gw, _ = acl_set
    before = _all(gw)
    r = run("--context", "local-admin", "acls", "delete", *argv, "--yes")
    assert r.exit_code == 2 and named in r.stderr, r.output
    assert _all(gw) == before


@pytest.mark.parametrize("fresh_listing", [False, True])
@pytest.mark.usefixtures("sandbox")
def test_an_acl_created_after_the_listing_survives_the_delete(acl_set, fresh_listing):
    """Adversary passes on issue 13: a delete sent the operator's own filter, so an ACL created between the listing
    and the request went too ('deleted-unlisted'). Up to 2,000 bindings each goes by an exact filter; after a
    confirmation the delete is planned against a fresh listing (kafkactl acls delete does that past 1 s)."""
    from kafkactl.acl import ops
    from kafkactl.acl.model import AclFilter, AclOperation, PatternType, Permission, ResourceType

    gw, _ = acl_set
    name = f"ds.race{int(fresh_listing)}"
    shown = AclBinding(ResourceType.TOPIC, name, PatternType.LITERAL, "User:ds-a", "*", AclOperation.READ,
                       Permission.ALLOW)
    late = AclBinding(ResourceType.TOPIC, name, PatternType.LITERAL, "User:ds-b", "*", AclOperation.READ,
                      Permission.ALLOW)
    gw.create_acls([shown])
    try:
        assert ops.await_visible(gw, [shown], [])
        preview = ops.preview_delete(gw, [AclFilter(ResourceType.TOPIC, name, PatternType.LITERAL)])
        assert preview.bindings == [shown]
        gw.create_acls([late])
        assert ops.await_visible(gw, [late], [])
        result = ops.delete_acls(gw, ops.refresh_preview(gw, preview) if fresh_listing else preview)
        assert {(r.binding, r.status) for r in result.results} == {(shown, "deleted")}
        assert late in _all(gw) and shown not in _all(gw)
    finally:
        remove_exactly(gw, [shown, late])
