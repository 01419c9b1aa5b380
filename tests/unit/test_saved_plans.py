"""Saved plans (desired/saved.py): --out replaces a plan kafkactl saved, and nothing else (issue 28 adversary pass:
a directory holding rows/, changes-*.jsonl or a plan.json of another tool was emptied)."""

from __future__ import annotations

import json

import pytest

from kafkactl.desired import saved
from kafkactl.errors import UsageError

PLAN = json.dumps({"api_version": "kafkactl/v1", "kind": "AclPlan", "clusters": []})


def _make(d, files: dict[str, str]) -> None:
    for name, text in files.items():
        p = d / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)


@pytest.mark.parametrize("files", [
    {"rows/sub/data.csv": "precious"},  # a rows/ of someone else's, no plan.json
    {"changes-audit-2026.jsonl": '{"x": 1}'},  # a plan's file name, no plan.json
    {"plan.json/deep/file.txt": "precious"},  # plan.json a directory
    {".plan.json.1.tmp/x": "x"},  # a temporary file's name, a directory
    {"plan.json": '{"format_version": "1.2", "terraform_version": "1.9.0"}'},  # another tool's plan.json
    {"plan.json": "not json"},
    {"plan.json": PLAN, "notes.txt": "mine"},  # a plan, and something else beside it
])
def test_out_refuses_a_directory_that_is_not_a_saved_plan_and_removes_nothing(tmp_path, files):
    _make(tmp_path, files)
    before = sorted(str(p) for p in tmp_path.rglob("*"))
    with pytest.raises(UsageError, match="holds other files than a saved plan"):
        saved.begin(str(tmp_path))
    assert sorted(str(p) for p in tmp_path.rglob("*")) == before


def test_out_replaces_a_saved_plan_whole(tmp_path):
    _make(tmp_path, {"plan.json": PLAN, "changes-a.jsonl": "{}\n", "rows/part-0.parquet": "x",
                     ".plan.json.99.tmp": ""})
    d = saved.begin(str(tmp_path))
    assert list(d.iterdir()) == [] and oct(d.stat().st_mode & 0o777) == "0o700"


def test_a_spark_plan_keeps_the_rows_it_has_just_written(tmp_path):
    _make(tmp_path, {"rows/part-0.parquet": "x"})  # written by this command's Spark plan, before plan.json
    saved.begin(str(tmp_path), keep_rows=True)
    assert (tmp_path / "rows" / "part-0.parquet").exists()
    with pytest.raises(UsageError):  # without them being this command's, they are someone else's
        saved.begin(str(tmp_path))


def test_a_symbolic_link_in_the_directory_is_refused(tmp_path):
    (tmp_path / "plan.json").write_text(PLAN)
    (tmp_path / "changes-a.jsonl").symlink_to(tmp_path / "plan.json")
    with pytest.raises(UsageError, match="holds other files than a saved plan"):
        saved.check_out_dir(str(tmp_path))
