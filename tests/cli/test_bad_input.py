"""Bad numbers, addresses and names: exit 2 naming the value, before any request.

Every case points at a closed port: a command that sent anything would end in exit 4, not 2.
"""

from __future__ import annotations

import socket

import pytest

from kafkactl.errors import ConfigError
from kafkactl.profiles import check_timeout, parse_bootstrap
from tests.conftest import run


@pytest.fixture(scope="module")
def closed() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{s.getsockname()[1]}"


@pytest.mark.parametrize("value, shown", [("nan", "nan"), ("inf", "a number too large"), ("-inf", "-inf"),
                                          ("0", "0"), ("-1", "-1"), ("1e9", "1e+09"), ("1e-28", "1e-28"),
                                          ("0.0009", "0.0009"), ("9" * 5000, "a number too large")])
def test_timeout_out_of_range(closed, value, shown):
    r = run("-b", closed, "--timeout", value, "topics", "list")
    assert r.exit_code == 2 and r.stderr == f"error: --timeout {shown}: seconds, from 0.001 to 86400\n", r.output


@pytest.mark.parametrize("value, named", [
    ("127.0.0.1:99999", "'99999'"), ("127.0.0.1:0", "'0'"), ("host:notaport", "'notaport'"), (",,,", "',,,'"),
    ("", "''"), ("a:1,,b:2", "'a:1,,b:2'"), (":9092", "':9092'"), ("host", "'host'"), ("ho st:9092", "'ho st:9092'"),
    ("::1:9092", "'::1'"), ("127.0.0.1:٩٠٩٢", "'٩٠٩٢'"), ("kaf\nka:9092", "'kaf\\nka'"),
])
def test_bad_bootstrap_addresses(value, named):
    r = run("-b", value, "topics", "list")
    assert r.exit_code == 2, r.output
    assert r.stderr.startswith("error: -b/--bootstrap-server ") and named in r.stderr, r.stderr
    assert r.stderr.count("\n") == 1


def test_bootstrap_from_the_environment_is_checked_and_named():
    r = run("topics", "list", env={"KAFKACTL_BOOTSTRAP_SERVERS": "kafka:70000"})
    assert r.exit_code == 2 and "KAFKACTL_BOOTSTRAP_SERVERS 'kafka:70000'" in r.stderr, r.output


def test_good_bootstrap_lists_are_normalised():
    assert parse_bootstrap(" kafka-1.example:9092 , [::1]:9093,10.0.0.1:09094") == \
        "kafka-1.example:9092,[::1]:9093,10.0.0.1:9094"
    with pytest.raises(ConfigError):
        parse_bootstrap("kafka:65536")
    assert check_timeout(0.5) == 0.5


@pytest.mark.parametrize("argv, named", [
    (["topics", "create", "t", "--partitions", "99999999999"], "--partitions 99999999999"),
    (["topics", "create", "t", "--partitions", "0"], "--partitions 0"),
    (["topics", "create", "t", "--replication-factor", "40000"], "--replication-factor 40000"),
    (["groups", "describe", ""], "group id ''"),
    (["groups", "describe", "g", " "], "group id ' '"),
    (["topics", "describe", ""], "topic name is empty"),
    (["acls", "list", "--topic", ""], "--topic ''"),
])
def test_out_of_range_numbers_and_empty_names(closed, argv, named):
    r = run("-b", closed, *argv)
    assert r.exit_code == 2 and named in r.stderr, r.output


@pytest.mark.parametrize("argv", [["acls", "plan", "/nonexistent/state.yaml", "--detailed-exitcode"],
                                  ["acls", "plan", "--detailed-exitcode", "--no-such-option"],
                                  ["--timeout", "nan", "acls", "plan", "x.yaml", "--detailed-exitcode"]])
def test_plan_detailed_exitcode_reports_every_error_as_1(closed, argv):
    """terraform's convention: with --detailed-exitcode, 2 means changes; an error must not read as that."""
    r = run("-b", closed, *argv)
    assert r.exit_code == 1 and r.stderr.startswith("error:"), r.output
    # without the flag the same errors keep their own codes
    plain = [a for a in argv if a != "--detailed-exitcode"]
    assert run("-b", closed, *plain).exit_code in (2, 7)


@pytest.mark.parametrize("argv", [["-b", "127.0.0.1:9092\x00", "topics", "list"],
                                  ["acls", "plan", "state.yaml", "--scope", "\x00"],
                                  ["topics", "describe", "t\x00"]])
def test_a_nul_in_any_argument_is_refused_up_front(closed, argv):
    """No real process receives a NUL (execve cannot pass one); in-process callers can, and paths then crashed."""
    r = run("-b", closed, *argv)
    assert r.exit_code == 2 and "may not contain a NUL character" in r.stderr and "\\x00" in r.stderr, r.output


@pytest.mark.parametrize("content", [b'{"clusters": [{"cluster": "x"}]}', b"\xff\xfe", b"[]", b"{", b'{"clusters": 5}'])
def test_a_damaged_saved_plan_is_exit_2_naming_it(tmp_path, closed, content):
    (tmp_path / "plan.json").write_bytes(content)
    r = run("-b", closed, "acls", "apply", "--plan", str(tmp_path), "--yes")
    assert r.exit_code == 2 and f"{tmp_path}: not a readable saved plan" in r.stderr, r.output


@pytest.mark.parametrize("argv, named", [
    (["acls", "delete", "--topic", "t", "--permission", "deny", "--permission", "allow", "--yes"],
     "--permission given twice ('deny', 'allow')"),
    (["acls", "delete", "--principal", "User:a", "--resource-pattern-type", "", "--resource-pattern-type", "any",
      "--yes"], "--resource-pattern-type '' is empty"),
    (["--context", "", "acls", "list"], "--context '' is empty"),
    (["--command-config", " ", "acls", "list"], "--command-config ' ' is empty"),
    (["acls", "apply", "--plan", "", "--yes"], "--plan '' is empty"),
    (["acls", "plan", "x.yaml", "--out", ""], "--out '' is empty"),
    (["acls", "apply", "x.yaml", "--report=", "--yes"], "--report '' is empty"),
    (["acls", "plan", "x.yaml", "--protect", "bob"], "--protect 'bob'"),
    (["acls", "plan", "x.yaml", "--protect", " User:bob"], "--protect ' User:bob'"),
    (["acls", "plan", "x.yaml", "--protect", "User:"], "--protect 'User:'"),
    (["acls", "apply", "x.yaml", "--report", "/nonexistent-kafkactl/r.jsonl", "--yes"],
     "its directory does not exist"),  # checked before the plan and the prompt, not after the operator's yes
    # adversary pass on the stopped apply: these failed only after the cluster had been changed
    (["configs", "apply", "x.yaml", "--report", "/proc/kafkactl-r.jsonl", "--yes"], "cannot be written"),
    (["configs", "apply", "x.yaml", "--report", "/tmp/" + "r" * 250, "--yes"], "cannot be written"),
    (["acls", "apply", "x.yaml", "--report", "/proc/kafkactl-r.jsonl", "--yes"], "cannot be written"),
    (["configs", "export", "-o", "csv"], "give --format json"),  # issue 18 new-user pass: was YAML, silently
    (["configs", "export", "-o", "json"], "give --format json"),
    (["configs", "export", "--format", "csv"], "--format 'csv' is not one of yaml, json"),
])
def test_empty_repeated_and_malformed_option_values_are_refused(closed, argv, named):
    """Adversary pass on issue 13: an empty value was taken as no option (so --context '' ran as the current
    context), and a single-value option given twice silently kept the last (--permission deny was dropped)."""
    r = run("-b", closed, *argv)
    assert r.exit_code == 2 and named in r.stderr, r.output
    assert r.stderr.count("\n") == 1


def test_a_blank_transactional_id_stays_allowed_as_in_acl_command(closed):
    r = run("-b", closed, "acls", "create", "--transactional-id", " ", "--allow-principal", "User:a", "--dry-run")
    assert r.exit_code == 4 and "cannot reach" in r.stderr, r.output  # past the checks: the dry run reads the cluster


@pytest.mark.parametrize("argv, named", [
    (["--command-config", "{m}/c.properties", "topics", "list"], "--command-config {m}/c.properties: no such file"),
    (["acls", "plan", "{m}/s.yaml"], "{m}/s.yaml: no such file"),
    (["acls", "apply", "{m}/s.jsonl", "--yes"], "{m}/s.jsonl: no such file"),
    (["acls", "apply", "--plan", "{m}/plan", "--yes"], "--plan {m}/plan: no such directory"),
    (["acls", "check", "--acls-file", "{m}/a.json", "--principal", "User:a", "--operation", "Read", "--topic", "t"],
     "{m}/a.json: no such file"),
    (["acls", "lint", "--acls-file", "{m}/a.csv"], "{m}/a.csv: no such file"),
    (["configs", "alter", "--topic", "t", "--add-config-file", "{m}/c"], "--add-config-file {m}/c: no such file"),
])
def test_a_missing_file_is_exit_7_everywhere(closed, tmp_path, argv, named):
    """Issue 14: some paths gave 2 for a missing file, --command-config 7; the exit-code table says 7."""
    m = str(tmp_path / "missing")
    r = run("-b", closed, "--timeout", "2", *[a.format(m=m) for a in argv])
    assert r.exit_code == 7 and r.stderr == f"error: {named.format(m=m)}\n", r.output


def test_a_report_is_not_written_over_the_file_the_command_reads(closed, tmp_path):
    """Adversary pass: `configs apply s.yaml --report s.yaml` replaced the State file with the report."""
    f = tmp_path / "s.yaml"
    f.write_text("apiVersion: kafkactl/v1\nkind: State\ntopics: []\n")
    for noun in ("configs", "acls"):
        r = run("-b", closed, noun, "apply", str(f), "--report", str(f), "--yes")
        assert r.exit_code == 2 and "--report" in r.stderr and "the command reads that file" in r.stderr, r.output
    assert f.read_text().startswith("apiVersion: kafkactl/v1")
    saved = tmp_path / "saved.json"  # review: with --plan, no file was compared
    saved.write_text("{}")
    r = run("-b", closed, "configs", "apply", "--plan", str(saved), "--report", str(saved), "--yes")
    assert r.exit_code == 2 and "the command reads that file" in r.stderr and saved.read_text() == "{}", r.output
    scope = tmp_path / "scope.yaml"
    scope.write_text("principals: []\n")
    r = run("-b", closed, "acls", "apply", str(f), "--scope", str(scope), "--report", str(scope), "--yes")
    assert r.exit_code == 2 and "the command reads that file" in r.stderr, r.output
    link = tmp_path / "gone.jsonl"
    link.symlink_to(tmp_path / "nowhere" / "r.jsonl")
    r = run("-b", closed, "configs", "apply", str(f), "--report", str(link), "--yes")
    assert r.exit_code == 2 and "a symbolic link to nothing" in r.stderr, r.output
