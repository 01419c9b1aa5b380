"""Against the real broker: other tools' files imported, applied, exported (kafkactl's format and theirs) and
planned with no change; `diff` between two sandboxes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.conftest import run
from tests.integration.acl_helpers import token
from tests.markers import starts

DATA = Path(__file__).resolve().parents[1] / "data" / "interop"
FOREIGN_EXPORT = {"ksm": "csv", "terraform": "tf", "strimzi": "yaml"}


def ok(r):
    assert r.exit_code == 0, r.stderr
    return r


def admin(sandbox, *args, **kw):
    return sandbox.as_user("admin", *args, **kw)


def unchanged(sandbox, noun, path) -> None:
    r = admin(sandbox, noun, "plan", str(path), "--detailed-exitcode")
    assert r.exit_code == 0, r.stdout + r.stderr


@pytest.mark.parametrize("fmt,name", [("ksm", "ksm.csv"), ("julie-ops", "julie-topology.yaml"),
                                      ("kafka-gitops", "kafka-gitops.yaml"), ("terraform", "kafka.tf"),
                                      ("strimzi", "strimzi-users.yaml")])
def test_import_apply_export_plan_shows_no_change(sandbox, tmp_path, fmt, name):
    state = tmp_path / "state.yaml"
    ok(admin(sandbox, "acls", "import", "--from", fmt, str(DATA / name), "--file", str(state)))
    doc = yaml.safe_load(state.read_text())
    principals = doc["scope"]["principals"]
    has_configs = any(k in doc for k in ("topics", "quotas", "users"))
    try:
        ok(admin(sandbox, "acls", "apply", str(state), "--yes"))
        if has_configs:
            ok(admin(sandbox, "configs", "apply", str(state), "--yes"))
            unchanged(sandbox, "configs", state)
        unchanged(sandbox, "acls", state)
        # kafkactl's own export of the same principals plans no change
        exported = tmp_path / "exported.yaml"
        ok(admin(sandbox, "acls", "export", *[x for p in principals for x in ("--principal", p)], "--file",
                 str(exported)))
        unchanged(sandbox, "acls", exported)
        # the tool's own format, where it has one, read back plans no change either
        if fmt in FOREIGN_EXPORT:
            out = tmp_path / f"out.{FOREIGN_EXPORT[fmt]}"
            ok(admin(sandbox, "acls", "export", "--format", fmt, *[x for p in principals for x in ("--principal", p)],
                     "--file", str(out)))
            back = tmp_path / "back.yaml"
            ok(admin(sandbox, "acls", "import", "--from", fmt, str(out), "--file", str(back)))
            assert yaml.safe_load(back.read_text())["acls"] == doc["acls"]
            unchanged(sandbox, "acls", back)
            if fmt == "strimzi":  # its KafkaUsers carry the users' quotas
                assert yaml.safe_load(back.read_text())["quotas"] == doc["quotas"]
                unchanged(sandbox, "configs", back)
    finally:
        empty = tmp_path / "empty.yaml"
        empty.write_text(yaml.safe_dump({"apiVersion": "kafkactl/v1", "kind": "AclState",
                                         "scope": {"principals": principals}, "acls": []}))
        ok(admin(sandbox, "acls", "apply", str(empty), "--yes"))
        users = [q["user"] for q in doc.get("quotas") or [] if "user" in q]
        if users:
            empty.write_text(yaml.safe_dump({"apiVersion": "kafkactl/v1", "kind": "State",
                                             "manage": {"quotas": users}, "quotas": []}))
            ok(admin(sandbox, "configs", "apply", str(empty), "--yes"))
        for t in doc.get("topics") or []:
            admin(sandbox, "topics", "delete", t["name"], "--yes")


@pytest.fixture(scope="module")
@starts("broker")
def second(sandbox, tmp_path_factory):  # noqa: ARG001 (the session's sandbox first: the contexts are its)
    """A second sandbox, and contexts for it in the session's store: `second`, and `second-again` (the same
    cluster under another name, to compare a cluster with itself)."""
    from tests.integration.sandboxes import second_sandbox

    with second_sandbox(tmp_path_factory.mktemp("diff-second"), "diff's second") as (boot, props):
        for name in ("second", "second-again"):
            ok(run("context", "add", name, "-b", boot, "--command-config", str(props)))
        try:
            yield boot, props
        finally:
            for name in ("second", "second-again"):
                run("context", "delete", name)


def diff_rows(*args) -> tuple[int, set]:
    r = run("-o", "json", "diff", *args, "--detailed-exitcode")
    assert r.exit_code in (0, 2), r.stderr
    plain = run("-o", "json", "diff", *args)  # without it, differing is no failure (issue 29)
    assert plain.exit_code == 0 and json.loads(plain.stdout) == json.loads(r.stdout), plain.stderr
    return r.exit_code, {(d["kind"], d["entity"], d["key"], d["first"], d["second"]) for d in json.loads(r.stdout)}


@pytest.mark.usefixtures("second")
def test_diff_two_clusters(tmp_path):
    base = f"df{token()}"
    state = tmp_path / "state.yaml"
    doc = {"apiVersion": "kafkactl/v1", "kind": "State", "scope": {"principals": [f"User:{base}-app"]},
           "acls": [{"principal": f"User:{base}-app", "allow": [
               {"topic": f"{base}.orders", "operations": ["Read", "Describe"]},
               {"topic": f"{base}.", "pattern": "prefixed", "operations": ["Write"]},
               {"group": f"{base}-g", "operations": ["Read"]}]}],
           "topics": [{"name": f"{base}.orders", "partitions": 2, "configs": {"retention.ms": "3600000"}}],
           "quotas": [{"user": f"{base}-app", "values": {"producer_byte_rate": 1024}}]}
    state.write_text(yaml.safe_dump(doc))
    try:
        _diff_two_clusters(base, state)
    finally:  # the session's cluster: what this test put there (the second is torn down with its fixture)
        doc.update(acls=[], topics=[], quotas=[], manage={"quotas": [f"{base}-app"], "topics": [f"{base}."]})
        state.write_text(yaml.safe_dump(doc))
        run("--context", "local-admin", "acls", "apply", str(state), "--yes")
        run("--context", "local-admin", "configs", "apply", str(state), "--delete-topics", "--yes")


def _diff_two_clusters(base: str, state: Path) -> None:
    for ctx in ("local-admin", "second"):
        ok(run("--context", ctx, "acls", "apply", str(state), "--yes"))
        ok(run("--context", ctx, "configs", "apply", str(state), "--yes"))

    def ours(rows):
        return {r for r in rows if base in r[1]}

    code, rows = diff_rows("--context", "local-admin", "--context", "second")
    assert code == 2 and ours(rows) == set()  # the session's cluster holds other tests' things; ours match
    # one change of each kind on the second cluster, and diff names exactly those
    ok(run("--context", "second", "configs", "alter", "--topic", f"{base}.orders", "--add-config",
           "retention.ms=7200000"))
    ok(run("--context", "second", "configs", "alter", "--user", f"{base}-app", "--add-config",
           "producer_byte_rate=2048"))
    ok(run("--context", "second", "acls", "create", "--allow-principal", f"User:{base}-app", "--operation", "Delete",
           "--topic", f"{base}.orders"))
    ok(run("--context", "second", "topics", "create", f"{base}.extra"))
    code, rows = diff_rows("--context", "local-admin", "--context", "second")
    assert ours(rows) == {
        ("topic", f"{base}.orders", "retention.ms", "3600000", "7200000"),
        ("quota", f"user={base}-app", "producer_byte_rate", "1024", "2048"),
        ("acl", f"ALLOW User:{base}-app DELETE from * on TOPIC:{base}.orders (LITERAL)", None, None, "present"),
        ("topic", f"{base}.extra", None, None, "present")}
    # on a terminal, the value columns are named by their clusters (issue 29)
    r = ok(run("-o", "table", "diff", "--context", "local-admin", "--context", "second", "--quotas"))
    assert "FIRST: local-admin" in r.stdout and "SECOND: second" in r.stdout, r.stdout
    # parts chosen: only ACLs
    _, rows = diff_rows("--context", "local-admin", "--context", "second", "--acls")
    assert {r[0] for r in ours(rows)} == {"acl"}
    # MirrorMaker 2's naming: the first cluster's t is the second's src.t
    ok(run("--context", "second", "topics", "create", f"src.{base}.mirrored", "--partitions", "3"))
    ok(run("--context", "local-admin", "topics", "create", f"{base}.mirrored", "--partitions", "3"))
    _, rows = diff_rows("--context", "local-admin", "--context", "second", "--configs", "--topic-map", "=src.")
    mapped = {r for r in rows if "mirrored" in r[1]}
    assert mapped == set()  # src.<base>.mirrored is <base>.mirrored, renamed
    # a cluster against itself under two names: no difference, exit 0
    code, rows = diff_rows("--context", "second", "--context", "second-again")
    assert (code, rows) == (0, set())
    r = run("diff", "--context", "second", "--context", "second-again")  # and it is said (issue 18 new-user pass)
    assert "second and second-again reach the same cluster" in r.stderr
    r = run("diff", "--context", "local-admin", "--context", "second")
    assert "same cluster" not in r.stderr
    r = run("diff", "--context", "second")
    assert r.exit_code == 2 and "give --context twice" in r.stderr
    r = run("diff", "--context", "second", "--context", "second-again", "--topic-map", "nomap")
    assert r.exit_code == 2 and "'nomap'" in r.stderr


@pytest.mark.usefixtures("second")
def test_diff_topic_map_leaves_the_wildcard_topic_alone():
    """Issue 28: with --topic-map =src., the first cluster's ACL on every topic ('*') was compared as one on the
    literal topic 'src.*', so two clusters granting the same thing differed."""
    base = f"dw{token()}"
    who = f"User:{base}-every"
    try:
        for ctx in ("local-admin", "second"):
            ok(run("--context", ctx, "acls", "create", "--allow-principal", who, "--operation", "Read", "--topic", "*"))
        _, rows = diff_rows("--context", "local-admin", "--context", "second", "--acls", "--topic-map", "=src.")
        assert {r for r in rows if base in r[1]} == set()
    finally:
        for ctx in ("local-admin", "second"):
            run("--context", ctx, "acls", "delete", "--principal", who, "--yes")


@pytest.mark.usefixtures("second")
def test_a_saved_configs_plan_applies_only_to_the_cluster_it_was_made_on(tmp_path):
    """Issue 28: both clusters held the same managed state (none of the file's topics), so the plan saved on one
    applied on the other: the fingerprint held no cluster id."""
    base = f"sp{token()}"
    state = tmp_path / "state.yaml"
    state.write_text(yaml.safe_dump({"apiVersion": "kafkactl/v1", "kind": "State",
                                     "manage": {"topics": [f"{base}."]},
                                     "topics": [{"name": f"{base}.t", "partitions": 1}]}))
    saved = tmp_path / "plan.json"
    ok(run("--context", "local-admin", "configs", "plan", str(state), "--out", str(saved)))
    r = run("--context", "second", "configs", "apply", "--plan", str(saved), "--yes")
    assert r.exit_code == 2 and "made on the cluster" in r.stderr, r.stderr
    topics = json.loads(ok(run("--context", "second", "-o", "json", "topics", "list")).stdout)
    assert not [t for t in topics if t["name"].startswith(base)]
    try:  # on its own cluster it applies
        ok(run("--context", "local-admin", "configs", "apply", "--plan", str(saved), "--yes"))
    finally:
        run("--context", "local-admin", "topics", "delete", f"{base}.t", "--yes")


def test_a_saved_acl_plan_applies_only_to_the_cluster_it_was_made_on(sandbox, second, tmp_path):
    """Issue 28, found by the same class of check as the configs plan: a saved ACL plan names its clusters by
    context, so a context pointed at another cluster (holding the same ACLs in scope) took the plan there."""
    boot, props = second
    base = f"sa{token()}"
    state = tmp_path / "acls.yaml"
    state.write_text(yaml.safe_dump({"apiVersion": "kafkactl/v1", "kind": "AclState",
                                     "scope": {"principals": [f"User:{base}"]},
                                     "acls": [{"principal": f"User:{base}", "allow": [{"topic": base,
                                                                                      "operations": ["Read"]}]}]}))
    name = f"moving-{base}"
    ok(run("context", "add", name, "-b", sandbox.bootstrap, "--command-config",
           str(sandbox.home / "client-admin.properties")))
    try:
        ok(run("--context", name, "acls", "plan", str(state), "--out", str(tmp_path / "plan")))
        ok(run("context", "delete", name))
        ok(run("context", "add", name, "-b", boot, "--command-config", str(props)))
        r = run("acls", "apply", "--plan", str(tmp_path / "plan"), "--yes")
        assert r.exit_code == 2 and "the saved plan was made on the cluster" in r.stderr, r.stderr
        listed = json.loads(ok(run("--context", "second", "-o", "json", "acls", "list", "--principal",
                                   f"User:{base}")).stdout)
        assert listed == []
    finally:
        run("context", "delete", name)
