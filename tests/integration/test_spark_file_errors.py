"""The Spark engine's readers refuse what the in-process loader refuses, with the same message (local Spark, no
broker): CSV and JSONL are read on the driver as the in-process engines read them (Arrow, else the Python loader,
which names the line) and handed to Spark; Parquet is read by Spark, checked in one pass, and a file Spark cannot
parse is read by the Python loader to name the line."""

from __future__ import annotations

import json

import pytest

from kafkactl.desired.formats import read_state
from kafkactl.desired.state import StateFileError

pytestmark = pytest.mark.usefixtures("spark")  # each test runs a local Spark (one the test of an unreachable master)

ROW = {"principal": "User:a", "host": "*", "operation": "READ", "permission": "ALLOW", "resource_type": "TOPIC",
       "resource_name": "t", "pattern_type": "LITERAL"}
HEAD = json.dumps({"kind": "scope", "principalPrefixes": ["User:"]}) + "\n"


def desired(path):
    from kafkactl.desired.spark import _desired_df, session

    return _desired_df(session(), read_state([str(path)], flat_rows=False))


@pytest.mark.parametrize("text,needle", [
    (HEAD + json.dumps({**ROW, "resource_name": "a\x07b"}) + "\n",
     r"resource_name 'a\\x07b': contains a control character"),
    (HEAD + json.dumps({**ROW, "host": "\x85"}) + "\n", r"host '\\x85': contains a control character"),
    (HEAD + json.dumps(ROW) + "\n" + json.dumps({**ROW, "kind": "acl"}) + "\n",
     r"x.jsonl:3: kind: 'acl' is not scope or clusters"),
    (HEAD + json.dumps(ROW) + "\n{oops\n", r"x.jsonl:3: not valid JSON"),
    (HEAD + json.dumps({k: v for k, v in ROW.items() if k != "host"}) + "\n", r"x.jsonl:2: host: missing"),
    (json.dumps({"kind": "scope", "principalPrefixes": "User:"}) + "\n",
     r"x.jsonl:1: scope.principalPrefixes: 'User:' is"),
])
def test_spark_refuses_a_bad_file_naming_it(tmp_path, text, needle):
    f = tmp_path / "x.jsonl"
    f.write_text(text)
    with pytest.raises(StateFileError, match=needle):
        desired(f)


def test_spark_reads_the_spellings_the_python_loader_reads(tmp_path):
    from kafkactl.desired.formats.flat import flat_row
    from kafkactl.desired.spark import BINDING

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
@pytest.mark.usefixtures("sandbox")
def test_an_unreachable_spark_is_exit_4_at_once(tmp_path, option, url, named):
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


def _python_rows(path, scope_file=None) -> set[tuple]:
    from kafkactl.desired.formats.flat import flat_row
    from kafkactl.desired.spark import BINDING

    return {tuple(flat_row(b)[c] for c in BINDING) for b in read_state([str(path)], scope_file).bindings}


def test_spark_reads_csv_columns_by_header_name_and_rfc4180_quotes(tmp_path):
    """Issue 16 adversary pass: Spark's CSV reader took the columns by position (a header in another order made a
    READ on topic '*' for host 'orders', and deleted the declared ACL) and read "" inside quotes as two quotes
    (kafkactl's own CSV export, planned on Spark, deleted the ACL on a name holding a quote)."""
    from kafkactl.desired.spark import _desired_df, session

    f, scope = tmp_path / "x.csv", tmp_path / "scope.yaml"
    scope.write_text("scope:\n  principalPrefixes: ['User:']\n")
    f.write_text('principal,resource_name,operation,permission,resource_type,host,pattern_type\n'
                 'User:a,orders,Read,ALLOW,TOPIC,*,LITERAL\n'
                 'User:a,"o.""q""",Read,ALLOW,TOPIC,*,LITERAL\n'
                 'User:a,"back\\slash""q",Read,ALLOW,TOPIC,*,LITERAL\n')
    got = {tuple(r) for r in _desired_df(session(), read_state([str(f)], str(scope), flat_rows=False)).collect()}
    assert got == _python_rows(f, str(scope))
    assert {r[5] for r in got} == {"orders", 'o."q"', 'back\\slash"q'}


@pytest.mark.parametrize("row,needle", [
    ({**ROW, "resource_name": 123}, "resource_name"),
    ({**ROW, "host": True}, "host"),
    ({**ROW, "resource_name": {"a": 1}}, "resource_name"),
])
def test_spark_refuses_json_values_that_are_not_strings(tmp_path, row, needle):
    """Issue 16 adversary pass: Spark's JSON reader made 123 the topic '123' where the Python loader refuses it."""
    f = tmp_path / "x.jsonl"
    f.write_text(HEAD + json.dumps(row) + "\n")
    with pytest.raises(StateFileError, match=needle):
        desired(f)


def test_a_scope_line_after_the_bindings_is_refused_on_spark_too(tmp_path):
    f = tmp_path / "x.jsonl"
    f.write_text(HEAD + json.dumps(ROW) + "\n" + json.dumps({"kind": "clusters", "clusters": ["x"]}) + "\n")
    with pytest.raises(StateFileError):
        desired(f)


def test_spark_strips_what_python_strips_around_a_principal_and_host(tmp_path):
    """Issue 16 adversary pass: Spark's trim takes spaces only, so 'User:b\\u00a0' was another principal than the
    Python loader's 'User:b': the plan created and deleted the same ACL, and got past --protect. Parquet is the
    format Spark still reads itself."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = [{**ROW, "principal": "User:b\u00a0", "host": "\u3000*"}, {**ROW, "principal": "\u2003User:c"}]
    f = tmp_path / "x.parquet"
    table = pa.Table.from_pylist(rows)
    pq.write_table(table.replace_schema_metadata({b"kafkactl.scope": json.dumps(
        {"principalPrefixes": ["User:"]}).encode()}), f)
    want = _python_rows(f)
    assert {tuple(r) for r in desired(f).collect()} == want
    assert {r[0] for r in want} == {"User:b", "User:c"}
