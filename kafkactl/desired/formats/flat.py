"""Flat files (JSONL, CSV, Parquet, for machines): one binding per line or row, every field a string. Read by the
in-process engine row by row; the Spark and Arrow engines read the rows themselves and take only the head from
here (the scope, the CSV header, the Parquet schema). Written by acls export and saved plans."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, TextIO

from kafkactl.acl.model import AclBinding, find_refused, shown
from kafkactl.desired.formats.compact import parse_scope
from kafkactl.desired.formats.text import (
    csv_records,
    jsonl_objects,
    parquet_columns,
    parquet_file,
    parquet_metadata,
    parquet_records,
)
from kafkactl.desired.formats.yamldoc import check_schema
from kafkactl.desired.state import FLAT_FIELDS, DesiredState, Scope, StateFileError, checked_text, flat_binding
from kafkactl.errors import MissingFileError

JSONL_SUFFIXES = (".jsonl", ".ndjson")


def flat_where(path: Path) -> Callable[[int], str]:
    """How a flat file's rows are named: by line in JSONL, by row (the header is row 1) in CSV and Parquet."""
    if path.suffix.lower() in (".jsonl", ".ndjson"):
        return lambda n: f"{path}:{n}"
    return lambda n: f"{path} row {n}"


def binding_where(path: Path, i: int) -> str:
    """Where the i-th binding record (from 0) of a flat file is; JSONL lines are counted (an error path)."""
    where = flat_where(path)
    suffix = path.suffix.lower()
    if suffix != ".jsonl" and suffix != ".ndjson":
        return where(i + (2 if suffix == ".csv" else 1))
    for k, (n, _) in enumerate(_jsonl_records(path, DesiredState())):
        if k == i:
            return where(n)
    return f"{path}: binding line {i + 1}"


def flat_records(path: Path, state: DesiredState) -> Iterator[tuple[int, dict[str, Any]]]:
    """The binding records of a JSONL, CSV or Parquet file, by position (see flat_where). The file's scope (a
    JSONL scope line, Parquet metadata) and JSONL clusters lines go to `state`."""
    suffix = path.suffix.lower()
    if suffix == ".csv":
        return csv_records(path, FLAT_FIELDS, only=True)
    if suffix == ".parquet":
        pf = parquet_file(path)
        parquet_columns(path, pf, list(FLAT_FIELDS), only=True)  # (a column it does not know is refused)
        _parquet_scope(path, pf, state)
        return parquet_records(path, pf, list(FLAT_FIELDS))
    return _jsonl_records(path, state)


def _jsonl_records(path: Path, state: DesiredState, head_only: bool = False
                   ) -> Iterator[tuple[int, dict[str, Any]]]:
    """A JSONL file's binding lines. Its head, the scope line first and then any clusters lines, goes to `state`
    (all of it before any binding line: engines that read the rows themselves read only the head here)."""
    first, head = True, True
    for n, row in jsonl_objects(path):
        kind = row.get("kind")
        if kind is None:
            if head_only:
                return
            head = False
            if len(row) > len(FLAT_FIELDS):
                _check_other_fields(f"{path}:{n}", row)
            yield n, row
        elif kind == "scope" and first:
            state.scope = state.scope.merge(parse_scope(f"{path}:{n}", {k: v for k, v in row.items() if k != "kind"}),
                                            f"{path}:{n}")
        elif kind == "scope":
            raise StateFileError(f"{path}:{n}: a scope line must be the first line of the file (one per file)")
        elif kind == "clusters" and head:
            extra = sorted(set(row) - {"kind", "clusters"})
            if extra:
                raise StateFileError(f"{path}:{n}: a clusters line has only kind and clusters (not {shown(extra[0])})")
            check_schema(f"{path}:{n}", row.get("clusters"), "clusters", prefix="clusters")
            state.clusters += row["clusters"]
        elif kind == "clusters":
            raise StateFileError(f"{path}:{n}: clusters lines come before the first binding line")
        else:
            raise StateFileError(f"{path}:{n}: kind: {shown(kind)} is not scope or clusters (a binding line has none)")
        first = False


def _check_other_fields(where: str, row: dict[str, Any]) -> None:
    """Fields other than a binding's are ignored, but an unpaired surrogate escape ("\\ud800") in one makes the
    line invalid JSON to Arrow's reader (large files): the Python reader refuses it too."""
    todo = [(k, v) for k, v in row.items() if k not in FLAT_FIELDS]
    while todo:
        k, v = todo.pop()
        if isinstance(v, str) and find_refused(v) and any("\ud800" <= c <= "\udfff" for c in v):
            checked_text(where, v, k)
        elif isinstance(v, dict):
            todo += [(k, x) for x in v.values()] + [(k, x) for x in v]
        elif isinstance(v, list):
            todo += [(k, x) for x in v]


def _parquet_scope(path: Path, pf: Any, state: DesiredState) -> None:
    value = parquet_metadata(path, pf, b"kafkactl.scope")
    if value is not None:
        state.scope = state.scope.merge(parse_scope(f"{path} metadata kafkactl.scope", value),
                                        f"{path} metadata kafkactl.scope")


def read_flat_head(path: Path, state: DesiredState) -> None:
    """For engines that read a flat file's rows themselves (Spark, Arrow): the scope, into `state`, and what can
    be checked cheaply before they start (the JSONL scope line, the CSV header, the Parquet schema)."""
    if not path.exists():
        raise MissingFileError(f"{path}: no such file")
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".ndjson"):
        for _ in _jsonl_records(path, state, head_only=True):
            pass
    elif suffix == ".parquet":
        pf = parquet_file(path)
        parquet_columns(path, pf, list(FLAT_FIELDS), only=True)
        _parquet_scope(path, pf, state)
    elif suffix == ".csv":
        records = csv_records(path, FLAT_FIELDS, only=True)
        next(records, None)
        records.close()


def checked_rows(path: Path) -> Iterator[dict[str, Any]]:
    """A flat file's binding rows as read, each checked by the in-process loader: for an engine whose own
    reader failed, this raises the error the loader names (file, line or row, field), or reads the file."""
    where = flat_where(path)
    for n, row in flat_records(path, DesiredState()):
        flat_binding(where(n), row)
        yield row


# ------------------------------------------------------------------------------------------ writing


def flat_row(b: AclBinding) -> dict[str, str]:
    return {"principal": b.principal, "host": b.host, "operation": b.operation.name, "permission": b.permission.name,
            "resource_type": b.resource_type.name, "resource_name": b.resource_name,
            "pattern_type": b.pattern_type.name}


def write_jsonl(bindings: Iterable[AclBinding], scope: Scope, out: TextIO) -> None:
    """The scope line first, then one binding per line."""
    out.write(json.dumps({"kind": "scope", **scope.to_json()}) + "\n")
    for b in bindings:
        out.write(json.dumps(flat_row(b)) + "\n")


def write_csv(bindings: Iterable[AclBinding], out: TextIO) -> None:
    """A header of FLAT_FIELDS, then one binding per row (CSV has no place for a scope: give it with --scope)."""
    import csv

    w = csv.writer(out, lineterminator="\n")
    w.writerow(FLAT_FIELDS)
    for b in bindings:
        w.writerow(flat_row(b).values())


def write_parquet(bindings: Iterable[AclBinding], scope: Scope, path: str) -> None:
    """Every column a string; the scope in the file's metadata (kafkactl.scope)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pylist([flat_row(b) for b in bindings],
                                 schema=pa.schema([(f, pa.string()) for f in FLAT_FIELDS]))
    pq.write_table(table.replace_schema_metadata({"kafkactl.scope": json.dumps(scope.to_json())}), path)
