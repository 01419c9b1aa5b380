"""Shell completion through the real entry point (the protocol the generated scripts speak), no broker.

Cluster-backed values are tested against the sandbox in tests/integration/test_completion_live.py, and
TAB in a real bash in tests/e2e/test_interactive.py.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from kafkactl.acl.model import SUPPORTED_OPERATIONS, AclOperation, ResourceType
from tests.conftest import run

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("confluent_kafka", "kafka", "pyspark", "pyarrow")


def complete(line: str, word: str | None = None, env: dict[str, str] | None = None,
             importtime: bool = False) -> subprocess.CompletedProcess:
    """What the bash script sends: the line up to the cursor and bash's own last word."""
    if word is None:
        word = "" if line.endswith(" ") else line.split(" ")[-1]
    e = {**os.environ, "_KAFKACTL_COMPLETE": "bash_complete", "KAFKACTL_COMP_LINE": line,
         "KAFKACTL_COMP_WORD": word, **(env or {})}
    cmd = [sys.executable, *(["-X", "importtime"] if importtime else []), "-m", "kafkactl"]
    return subprocess.run(cmd, capture_output=True, text=True, env=e, timeout=10)


def values(line: str, **kw) -> list[str]:
    p = complete(line, **kw)
    assert p.returncode == 0, p.stderr
    return [ln.split(",", 1)[1] for ln in p.stdout.splitlines() if ln]


def test_subcommands_and_nested_subcommands():
    assert values("kafkactl ac") == ["acls"]
    assert set(values("kafkactl ")) >= {"acls", "configs", "topics", "groups", "cluster", "context", "local",
                                        "completion"}
    assert set(values("kafkactl acls ")) >= {"create", "list", "delete", "plan", "apply", "export"}
    assert set(values("kafkactl topics de")) == {"delete", "describe"}


def test_options_of_the_command_and_global_options_after_it():
    assert "--principal" in values("kafkactl acls list --pr")
    got = values("kafkactl topics describe --co")
    assert "--context" in got and "--command-config" in got


@pytest.mark.parametrize("line", ["kafkactl -o ", "kafkactl acls list -o ", "kafkactl acls list --output "])
def test_output_formats_wherever_the_option_stands(line):
    assert values(line) == ["table", "plain", "json", "yaml", "csv"]


@pytest.mark.parametrize("option,rtype", [("--topic", ResourceType.TOPIC), ("--group", ResourceType.GROUP),
                                          ("--cluster", ResourceType.CLUSTER),
                                          ("--transactional-id", ResourceType.TRANSACTIONAL_ID)])
def test_operations_are_those_the_resource_type_supports(option, rtype):
    line = f"kafkactl acls create {option} {'' if option == '--cluster' else 'x '}--operation "
    got = values(line)
    want = sorted(o.pascal for o in {*SUPPORTED_OPERATIONS[rtype], AclOperation.ALL})
    assert got == want


def test_kafka_facts_in_operation_completion():
    # facts from Kafka's resource/operation table: no Read on the cluster, no Write on a group
    assert "Read" not in values("kafkactl acls create --cluster --operation ")
    assert "Write" not in values("kafkactl acls create --group g --operation ")
    assert "IdempotentWrite" in values("kafkactl acls create --cluster --operation Id")
    assert values("kafkactl acls list --operation Idem") == ["IdempotentWrite"]


def test_pattern_and_entity_types():
    assert values("kafkactl acls list --resource-pattern-type ") == ["literal", "prefixed", "any", "match"]
    assert values("kafkactl configs describe --entity-type b") == ["brokers", "broker-loggers"]


def test_quota_keys_continue_after_a_comma_without_a_space():
    p = complete("kafkactl configs alter --user u --add-config producer_byte_rate=1,con",
                 word="1,con")  # bash splits the word at '='
    lines = p.stdout.splitlines()
    assert "nospace,1,consumer_byte_rate=" in lines and "nospace,1,controller_mutation_rate=" in lines


def test_context_names_from_the_contexts_file(tmp_path):
    cfg = tmp_path / "kafkactl"
    cfg.mkdir()
    (cfg / "config.yaml").write_text("apiVersion: kafkactl/v1\ncurrent-context: prod-eu\ncontexts:\n"
                                     "  prod-eu: {bootstrap-servers: 'h:1'}\n  prod-us: {bootstrap-servers: 'h:2'}\n"
                                     "  staging: {bootstrap-servers: 'h:3'}\n")
    env = {"XDG_CONFIG_HOME": str(tmp_path)}
    assert values("kafkactl --context prod", env=env) == ["prod-eu", "prod-us"]
    assert values("kafkactl context use ", env=env) == ["prod-eu", "prod-us", "staging"]
    assert values("kafkactl topics list --context st", env=env) == ["staging"]


def test_bash_word_breaks_at_colons_are_trimmed(tmp_path):
    # bash replaces only the text after the last ':'; kafkactl answers with what follows it
    cfg = tmp_path / "kafkactl"
    cfg.mkdir()
    (cfg / "config.yaml").write_text("apiVersion: kafkactl/v1\ncontexts:\n  a:b-1: {bootstrap-servers: 'h:1'}\n")
    got = values("kafkactl --context a:b", word="b", env={"XDG_CONFIG_HOME": str(tmp_path)})
    assert got == ["b-1"]


def test_static_completion_imports_no_client_or_spark():
    p = complete("kafkactl acls create --topic x --operation ", importtime=True)
    assert p.returncode == 0
    mods = {m.group(1) for m in re.finditer(r"import time:\s+\d+ \|\s+\d+ \|\s+(\S+)", p.stderr)}
    assert "kafkactl.cli.completers" in mods  # the probe ran the completion path
    assert sorted(m for m in mods if m.split(".")[0] in HEAVY) == []


def test_a_down_cluster_completes_nothing_and_does_not_hang(tmp_path):
    # nothing listens on port 1; the subprocess timeout (10 s) fails the test if the shell would hang
    p = complete("kafkactl -b 127.0.0.1:1 topics describe ", env={"XDG_CACHE_HOME": str(tmp_path)})
    assert p.returncode == 0 and p.stdout == "" and "Traceback" not in p.stderr


@pytest.mark.parametrize("shell,name", [("bash", "kafkactl.bash"), ("zsh", "_kafkactl"), ("fish", "kafkactl.fish")])
def test_completion_command_prints_the_committed_script(shell, name):
    r = run("completion", shell)
    assert r.exit_code == 0
    assert r.stdout == (ROOT / "completions" / name).read_text()


@pytest.mark.parametrize("line, expected", [
    ("kafkactl acls create --operation idem", ["IdempotentWrite"]),
    ("kafkactl acls create --topic t --operation des", ["Describe", "DescribeConfigs"]),
    ("kafkactl acls list --resource-pattern-type PRE", ["prefixed"]),
])
def test_lowercase_and_uppercase_prefixes_complete_as_parsing_accepts_any_case(line, expected):
    """Issue 14: Typer kept only values starting with the prefix as typed."""
    assert values(line) == expected


@pytest.mark.parametrize("command, expected", [("create", ["literal", "prefixed"]), ("add", ["literal", "prefixed"]),
                                               ("delete", ["literal", "prefixed", "any", "match"]),
                                               ("list", ["literal", "prefixed", "any", "match"])])
def test_pattern_types_offered_are_the_ones_the_command_accepts(command, expected):
    assert values(f"kafkactl acls {command} --resource-pattern-type ") == expected


def test_the_bash_script_sends_the_word_readline_replaces():
    """Issue 14: after `User:` bash's COMP_WORDS names ':' while readline replaces what follows it, so each
    principal was inserted with its colon again (`User::alice`); the script now computes readline's word."""
    script = (ROOT / "completions" / "kafkactl.bash").read_text()
    assert 'KAFKACTL_COMP_WORD="$word"' in script and "COMP_WORDS[COMP_CWORD]" not in script
    line = "kafkactl acls list --principal User:"
    word = subprocess.run(["bash", "-c", 'line="$1"; echo -n "${line##*[$COMP_WORDBREAKS]}"', "-", line],
                          capture_output=True, text=True, env={**os.environ, "COMP_WORDBREAKS": " \t\n\"'><=;|&(:"}
                          ).stdout
    assert word == ""
