"""The Spark engine's readers refuse what the in-process loader refuses, with the same kind of message (local Spark,
no broker): the scope is read on the driver through the same schema, rows are checked by Spark in one pass, and a
file Spark cannot parse is read by the Python loader to name the line."""

from __future__ import annotations

import json

import pytest

from kafkactl.bulk.state import StateFileError
from kafkactl.bulk.formats import read_state

ROW = {"principal": "User:a", "host": "*", "operation": "READ", "permission": "ALLOW", "resource_type": "TOPIC",
       "resource_name": "t", "pattern_type": "LITERAL"}
HEAD = json.dumps({"kind": "scope", "principalPrefixes": ["User:"]}) + "\n"


def desired(path):
    from kafkactl.bulk.spark import _desired_df, session

    return _desired_df(session(), read_state([str(path)], flat_rows=False))


@pytest.mark.parametrize("text,needle", [
    (HEAD + json.dumps({**ROW, "resource_name": "a\x07b"}) + "\n", r"resource_name 'a\\x07b': contains a control character"),
    (HEAD + json.dumps({**ROW, "host": "\x85"}) + "\n", r"host '\\x85': contains a control character"),
    (HEAD + json.dumps(ROW) + "\n" + json.dumps({**ROW, "kind": "acl"}) + "\n", r"kind: 'acl' is not valid"),
    (HEAD + json.dumps(ROW) + "\n{oops\n", r"x.jsonl:3: not valid JSON"),
    (HEAD + json.dumps({k: v for k, v in ROW.items() if k != "host"}) + "\n", r"host: None is not valid"),
    (json.dumps({"kind": "scope", "principalPrefixes": "User:"}) + "\n", r"x.jsonl:1: scope.principalPrefixes: 'User:' is"),
])
def test_spark_refuses_a_bad_file_naming_it(tmp_path, text, needle):
    f = tmp_path / "x.jsonl"
    f.write_text(text)
    with pytest.raises(StateFileError, match=needle):
        desired(f)


def test_spark_reads_the_spellings_the_python_loader_reads(tmp_path):
    from kafkactl.bulk.spark import BINDING
    from kafkactl.bulk.formats.flat import flat_row

    f = tmp_path / "x.jsonl"
    rows = [{**ROW, "resource_type": "transactional-id", "operation": "write", "pattern_type": "Pre-fixed"},
            {**ROW, "resource_type": "Topic", "pattern_type": "literal"}]
    f.write_text(HEAD + "".join(json.dumps(r) + "\n" for r in rows))
    want = {tuple(flat_row(b)[c] for c in BINDING) for b in read_state([str(f)]).bindings}
    assert {tuple(r) for r in desired(f).collect()} == want


@pytest.mark.parametrize("option, url, named", [
    ("--spark-remote", "sc://127.0.0.1:{port}", "Spark Connect server at 127.0.0.1:{port}"),
    ("--spark-master", "spark://127.0.0.1:{port}", "Spark master at 127.0.0.1:{port}"),
])
def test_an_unreachable_spark_is_exit_4_at_once(sandbox, tmp_path, option, url, named):
    """Adversary pass on issue 13: an unreachable Spark Connect server hung for minutes, an unreachable master gave a
    Py4J traceback. The desired-state file is fine; nothing reaches a cluster."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    f = tmp_path / "s.yaml"
    f.write_text("apiVersion: kafkactl/v1\nkind: AclState\nscope:\n  principalPrefixes: ['User:zz-']\nacls: []\n")
    from tests.conftest import run_process

    r = run_process("--context", "local-admin", "acls", "plan", str(f), option, url.format(port=port), timeout=60)
    assert r.exit_code == 4 and named.format(port=port) in r.stderr and "Traceback" not in r.stderr, r.output
    assert r.stderr.count("\n") == 1
