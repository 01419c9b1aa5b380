"""Commands run whole (argv, rendering, notes, exit codes) against a gateway handed in through the app context, with
no broker: what the command does with an answer, not what Kafka answers (that is tested against the broker)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from kafkactl.acl.model import AclBinding, AclOperation, PatternType, Permission, ResourceType
from kafkactl.cli.context import Injected
from kafkactl.errors import NotAuthorizedError, UnreachableError
from kafkactl.exitcodes import ExitCode

BINDINGS = [AclBinding(ResourceType.TOPIC, "orders", PatternType.LITERAL, "User:alice", "*", AclOperation.READ,
                       Permission.ALLOW),
            AclBinding(ResourceType.GROUP, "app", PatternType.PREFIXED, "User:alice", "*", AclOperation.READ,
                       Permission.ALLOW)]


class Answers:
    """A gateway that answers describe_acls with fixed bindings, or raises a kafkactl error."""

    def __init__(self, bindings=(), error: Exception | None = None) -> None:
        self.bindings, self.error, self.filters = list(bindings), error, []

    # the factory: one gateway per invocation
    def __call__(self, profile, debug: bool = False) -> Answers:  # noqa: ARG002 (Gateway's signature)
        self.profile = profile
        return self

    def describe_acls(self, f, bulk: bool = False):  # noqa: ARG002 (Gateway.describe_acls's signature)
        self.filters.append(f)
        if self.error is not None:
            raise self.error
        return [b for b in self.bindings if f.matches(b)]

    def close(self) -> None:
        pass


def invoke(gateway: Answers, *argv: str):
    from kafkactl.cli.root import app, close_clients

    try:
        r = CliRunner().invoke(app, ["-b", "offline:9092", *argv], obj=Injected(gateway), catch_exceptions=False)
    finally:
        close_clients()
    return r


def test_acls_list_renders_what_the_gateway_answers_in_every_format():
    gw = Answers(BINDINGS)
    r = invoke(gw, "-o", "json", "acls", "list", "--principal", "User:alice")
    assert r.exit_code == 0 and len(gw.filters) == 1 and gw.filters[0].principal == "User:alice"
    assert {d["resource_name"] for d in json.loads(r.stdout)} == {"orders", "app"}
    assert "2 ACL bindings on 2 resources" in r.stderr
    r = invoke(Answers(BINDINGS), "-o", "csv", "acls", "list")
    assert r.stdout.splitlines()[0].startswith("resource_type,resource_name,pattern_type,principal")


def test_nothing_found_is_an_empty_result_and_a_note():
    r = invoke(Answers([]), "-o", "json", "acls", "list", "--topic", "nope")
    assert (r.exit_code, json.loads(r.stdout)) == (0, []) and "0 ACL bindings" in r.stderr


@pytest.mark.parametrize("error, code", [
    (NotAuthorizedError("User:bob is not authorized to describe ACLs: needs Describe on the Cluster"),
     ExitCode.NOT_AUTHORIZED),
    (UnreachableError("cannot reach offline:9092 to describe ACLs: connection refused"), ExitCode.UNREACHABLE),
])
def test_a_gateway_error_is_one_line_and_its_exit_code(error, code):
    r = invoke(Answers(error=error), "acls", "list")
    assert r.exit_code == code and r.stdout == "" and r.stderr == f"error: {error.message}\n"


@pytest.mark.parametrize("argv", [["configs", "plan"], ["configs", "apply", "--yes"]])
def test_configs_state_files_are_checked_before_the_cluster_is_chosen(tmp_path, argv):
    """A broken State file is the one error, whatever the cluster selection says (here: a context that does not
    exist); the cluster is resolved only once the files are read and checked."""
    from tests.conftest import run

    bad = tmp_path / "state.yaml"
    bad.write_text("apiVersion: kafkactl/v1\nkind: State\ntopics:\n  - name: t\n    partitions: many\n")
    r = run("--context", "no-such-context-here", *argv, str(bad))
    assert r.exit_code == ExitCode.USAGE, r.stderr
    assert "state.yaml" in r.stderr and "no-such-context-here" not in r.stderr, r.stderr
    r = run("--context", "no-such-context-here", "configs", "apply", "--yes")
    assert r.exit_code == ExitCode.USAGE and "takes State files or --plan" in r.stderr, r.stderr


@pytest.mark.parametrize("body, shown", [
    ("users:\n- name: u\n  scram:\n  - {mechanism: SCRAM-SHA-512, iterations: 8192, password: hunter2XYZ}\n",
     ":6: users.0.scram.0.password takes no value in clear here (a secret is given as {env: NAME} or {file: PATH})"),
    ("brokers:\n- broker: default\n  configs: {sasl.jaas.password: hunter2XYZ}\n",
     ":4: configs.sasl.jaas.password takes no value in clear (a secret's value is never written in a state file)"),
])
def test_a_secret_in_clear_is_refused_in_words_the_output_s_scrub_leaves_whole(tmp_path, body, shown):
    """New-user pass: "password: not valid here" read as an assignment to the scrub of every output line, which
    printed "password: ****** valid here"; the value itself is never repeated."""
    from tests.conftest import run

    f = tmp_path / "s.yaml"
    f.write_text("apiVersion: kafkactl/v1\nkind: State\n" + body)
    r = run("--context", "no-such-context-here", "configs", "plan", str(f))
    assert r.exit_code == ExitCode.USAGE and shown in r.stderr and "*" not in r.stderr, r.stderr
    assert "hunter2" not in r.stderr + r.stdout


def test_acls_plan_takes_its_clusters_clients_from_the_app_context(tmp_path):
    """Issue 28: the desired-state engine made its own clients, so no command test could hand one in. Now a plan's
    targets are connected by the app context's factory: the plan is this gateway's ACLs against the file."""
    from types import SimpleNamespace

    class Cluster(Answers):
        def describe_cluster(self, include_authorized_operations: bool = False):  # noqa: ARG002
            return SimpleNamespace(cluster_id="offline-cluster", controller_id=1, nodes=[], authorized_operations=None)

        principal, certificate_dn = "User:admin", None

        def topics(self):
            return [SimpleNamespace(name=n, error=None) for n in ("orders", "payments")]

        def list_groups(self):
            return [SimpleNamespace(group_id="app")]

        def list_transactional_ids(self):
            return []

    f = tmp_path / "s.yaml"
    f.write_text("apiVersion: kafkactl/v1\nkind: AclState\nscope: {principals: ['User:alice']}\nacls:\n"
                 "- principal: User:alice\n  allow: [{topic: orders, operations: [Read]}]\n")
    gw = Cluster(BINDINGS)
    r = invoke(gw, "-o", "json", "acls", "plan", str(f))
    assert r.exit_code == 0, r.output
    plan = json.loads(r.stdout)
    assert plan["clusters"][0]["cluster_id"] == "offline-cluster" and gw.filters  # (asked this gateway)
    assert [(c["action"], c["resource_type"], c["resource_name"]) for c in plan["changes"]] == [
        ("DELETE", "GROUP", "app")]
    # the radius, from this gateway's topics and groups: READ on group app, and the DESCRIBE it implies
    assert [(x["principal"], x["change"], x["operation"], x["resource_type"], x["examples"])
            for x in plan["blast_radius"]] == [("User:alice", "loses", op, "GROUP", ["app"]) for op in
                                               ("READ", "DESCRIBE")]


@pytest.mark.parametrize("fmt, stdout", [("json", "[]\n"), ("yaml", "[]\n"), ("plain", ""),
                                         ("csv", "resource_type,resource_name,pattern_type,principal,host,operation,"
                                                 "permission\n"), ("table", "")])
def test_an_empty_listing_is_explicit_in_every_format(fmt, stdout):
    """Issue 29, item 5: csv printed nothing (no header) and a terminal an empty table frame."""
    r = invoke(Answers([]), "-o", fmt, "acls", "list", "--topic", "nope")
    assert (r.exit_code, r.stdout) == (0, stdout) and "0 ACL bindings" in r.stderr, r.output
