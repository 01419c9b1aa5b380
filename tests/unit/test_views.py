"""Views: what each output format shows of a result whose look differs by format (kafkactl/formatters/views.py)."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest

from kafkactl.acl.bitfield import decode
from kafkactl.acl.model import ResourceType
from kafkactl.formatters import OutputFormat, render
from kafkactl.formatters.views import AuthorizedOpsView, DecodedOpsView, Name, ShellExports

ROOT = Path(__file__).resolve().parents[2]
OPS = decode(3576, ResourceType.TOPIC)  # Read, Write, Create, Delete, Alter, Describe, DescribeConfigs, AlterConfigs


def shown(data, fmt: OutputFormat) -> str:
    from kafkactl.cli.context import _make_console

    buf = io.StringIO()
    render(data, fmt, buf, _make_console(buf, no_color=True) if fmt is OutputFormat.table else None)
    return buf.getvalue()


def test_decoded_ops_plain_is_one_allowed_name_a_line_as_acl_output_spells_them():
    assert shown(DecodedOpsView(3576, OPS), OutputFormat.plain).split() == [
        "READ", "WRITE", "CREATE", "DELETE", "ALTER", "DESCRIBE", "DESCRIBE_CONFIGS", "ALTER_CONFIGS"]


def test_one_resource_gets_a_detail_table_with_a_legend_and_names_as_acl_output_spells_them():
    text = shown(AuthorizedOpsView(OPS, [("orders", OPS)]), OutputFormat.table)
    assert "TOPIC:orders" in text and "DESCRIBE_CONFIGS" in text and "✓ allowed" in text
    assert "DescribeConfigs" not in text


def test_several_resources_are_one_line_per_resource_and_operation_in_csv():
    rows = list(csv.reader(io.StringIO(shown(AuthorizedOpsView([], [("a", OPS), ("b", OPS)]), OutputFormat.csv))))
    assert rows[0] == ["resource_type", "resource", "operation", "allowed"]
    assert ["TOPIC", "b", "READ", "true"] in rows and len(rows) == 1 + 2 * len(rows[1:]) // 2


def test_json_shows_the_full_result_not_the_view():
    assert json.loads(shown(AuthorizedOpsView({"name": "orders"}, [("orders", OPS)]), OutputFormat.json)) == {
        "name": "orders"}


@pytest.mark.parametrize("fmt, expected", [(OutputFormat.plain, "local-admin\n"), (OutputFormat.table, "local-admin\n"),
                                           (OutputFormat.json, '{\n  "name": "local-admin"\n}\n'),
                                           (OutputFormat.yaml, "name: local-admin\n"),
                                           (OutputFormat.csv, "name\nlocal-admin\n")])
def test_a_name_is_bare_where_a_shell_reads_it_and_a_document_elsewhere(fmt, expected):
    assert shown(Name("local-admin"), fmt) == expected


def test_shell_exports_are_lines_to_eval_or_a_document():
    env = ShellExports(["export A=1", "# for kafka-*.sh: --x y"], (("A", "1"),), ("--x", "y"))
    assert shown(env, OutputFormat.plain) == "export A=1\n# for kafka-*.sh: --x y\n"
    assert json.loads(shown(env, OutputFormat.json)) == {"variables": {"A": "1"}, "kafka_sh_arguments": ["--x", "y"]}


def test_no_command_chooses_its_view_by_output_format_or_writes_stdout_itself():
    """Issue 14: commands call one render; the completion noun alone prints (a shell script, not a result)."""
    offenders = []
    for path in sorted((ROOT / "kafkactl" / "commands").rglob("*.py")):
        if path.name == "completion.py":
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if re.search(r"OutputFormat\.|\.output\b|typer\.echo|sys\.stdout|print\(", line):
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert offenders == []
