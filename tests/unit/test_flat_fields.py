"""Flat desired-state files refuse a field they do not know (issue 29, item 6), whichever engine reads them: a
column named `comment` or `permision` was read as if absent."""

from __future__ import annotations

import pytest

from kafkactl.desired.state import FLAT_FIELDS, StateFileError

ROW = {"principal": "User:a", "host": "*", "operation": "Read", "permission": "Allow", "resource_type": "Topic",
       "resource_name": "t", "pattern_type": "Literal"}


def _csv(tmp_path, extra: str | None):
    cols = [*FLAT_FIELDS, *([extra] if extra else [])]
    p = tmp_path / "s.csv"
    p.write_text(",".join(cols) + "\n" + ",".join([ROW[c] for c in FLAT_FIELDS] + (["x"] if extra else [])) + "\n")
    return p


def _parquet(tmp_path, extra: str | None):
    import pyarrow as pa
    import pyarrow.parquet as pq

    cols = {c: [ROW[c]] for c in FLAT_FIELDS} | ({extra: ["x"]} if extra else {})
    p = tmp_path / "s.parquet"
    pq.write_table(pa.table(cols), p)
    return p


@pytest.mark.parametrize("make", [_csv, _parquet])
def test_a_column_that_is_not_a_field_is_refused_by_every_reader(tmp_path, make):
    from kafkactl.desired.arrow_diff import read_flat
    from kafkactl.desired.formats import read_state
    from kafkactl.desired.state import Scope

    scope = Scope(principals=frozenset({"User:a"}))
    ok = make(tmp_path, None)
    assert len(read_flat(str(ok), scope)) == 1  # the arrow engine's reader
    bad = make(tmp_path, "comment")
    with pytest.raises(StateFileError, match="'comment'.* not a field"):
        read_flat(str(bad), scope)
    scope_file = tmp_path / "scope.yaml"
    scope_file.write_text("scope: {principals: ['User:a']}\nacls: []\n")
    with pytest.raises(StateFileError, match="'comment'.* not a field"):
        read_state([str(bad)], str(scope_file), flat_rows=True)  # the in-process reader
