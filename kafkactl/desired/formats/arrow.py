"""Flat files (JSONL, CSV, Parquet) read as Arrow tables of strings, for the Arrow engine (bulk/arrow_diff.py): Arrow's
own readers where they read the file as the Python loader would, the Python loader (flat.checked_rows, which names
the line and field of a fault) where they refuse it or would read it otherwise, so both engines see the same rows."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

from kafkactl.desired.formats.flat import checked_rows, read_flat_head
from kafkactl.desired.formats.text import parquet_file, parquet_read
from kafkactl.desired.state import FLAT_FIELDS, DesiredState

BINDING = list(FLAT_FIELDS)


def _pa() -> tuple[ModuleType, ModuleType]:
    import pyarrow as pa
    import pyarrow.compute as pc

    return pa, pc


def read_arrow(p: Path) -> Any:
    """The binding columns as read, strings, no row dropped but JSONL's scope and clusters lines; the head (scope,
    CSV header, Parquet schema) checked first."""
    pa, _ = _pa()
    read_flat_head(p, DesiredState())
    try:
        return _read_raw(p)
    except (pa.ArrowException, ValueError, OSError):  # ValueError: UnicodeDecodeError too
        return _python_table(p)


def _read_raw(p: Path) -> Any:
    """The binding columns as read, strings, no row dropped but JSONL's scope and clusters lines."""
    pa, pc = _pa()
    suffix = p.suffix.lower()
    if suffix == ".parquet":
        # ParquetFile, not read_table: that imports pyarrow.dataset, and pandas with it (0.2 s)
        return parquet_read(p, parquet_file(p), BINDING)
    if suffix == ".csv":
        import csv

        import pyarrow.csv as pcsv

        table = pcsv.read_csv(p, convert_options=pcsv.ConvertOptions(
            column_types={c: pa.string() for c in BINDING}, include_columns=BINDING, strings_can_be_null=True))
        if any((pc.max(pc.utf8_length(table.column(c))).as_py() or 0) > csv.field_size_limit() for c in BINDING):
            raise ValueError("a field is longer than the csv module's limit")  # as the Python reader refuses it
        if _lines(p) is None:
            raise ValueError("not UTF-8")  # in a column Arrow did not convert
        return table
    import pyarrow.json as pjson

    schema = pa.schema([(c, pa.string()) for c in BINDING] + [("kind", pa.string())])
    table = pjson.read_json(p, parse_options=pjson.ParseOptions(explicit_schema=schema,
                                                                 unexpected_field_behavior="ignore"))
    kinds = table.column("kind")
    head = pc.sum(pc.is_valid(kinds)).as_py() or 0  # read by read_flat_head, if they all lead
    if not pc.all(pc.is_valid(kinds.slice(0, head))).as_py():
        raise ValueError("a scope or clusters line after a binding line")
    if len(table) != _lines(p):
        # Arrow reads an object across lines, or two on one, and bytes that are not UTF-8 in a field it skips;
        # the Python reader does not. Blank lines differ too, harmlessly: the Python reader decides (only then,
        # it reads every line)
        return _python_table(p)
    return table.filter(pc.is_null(kinds)).select(BINDING)


def _python_table(p: Path) -> Any:
    pa, _ = _pa()
    columns: dict[str, list[Any]] = {c: [] for c in BINDING}  # the field values as the rows hold them
    for row in checked_rows(p):
        for c in BINDING:
            columns[c].append(row[c])
    return pa.table({c: pa.array(v, pa.string()) for c, v in columns.items()})


def _lines(p: Path) -> int | None:
    """Lines, counted in chunks (the file may be larger than memory would like); None if it is not UTF-8."""
    import codecs

    n, last, utf8 = 0, b"\n", codecs.getincrementaldecoder("utf-8")()
    try:
        with p.open("rb") as fh:
            while chunk := fh.read(1 << 24):
                utf8.decode(chunk)
                n, last = n + chunk.count(b"\n"), chunk[-1:]
        utf8.decode(b"", final=True)
    except UnicodeDecodeError:
        return None
    return n + (last != b"\n")
