"""Turning result dataclasses into rows and into JSON-able data (no terminal code here)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any


@dataclass(frozen=True)
class Tabular:
    columns: tuple[str, ...]
    rows: list[tuple[Any, ...]]
    header: tuple[tuple[str, Any], ...] = ()
    title: str | None = None
    # leading columns whose repeated values the table view blanks, drawing a line between groups
    group_by: int = 0
    # booleans as ✓ / ✗ (None as -) in the table view
    checkmarks: bool = False


def jsonable(value: Any) -> Any:
    if hasattr(value, "to_json") and callable(value.to_json):
        return value.to_json()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)
                if not f.name.startswith("_") and f.metadata.get("json", True)}
    if isinstance(value, Enum):
        return value.name
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        items = [jsonable(v) for v in value]
        return sorted(items, key=str) if isinstance(value, (set, frozenset)) else items
    return value


def cell(value: Any) -> Any:
    """A value as one table/plain/csv cell: enums by name, collections joined by commas."""
    if hasattr(value, "cell") and callable(value.cell):
        return value.cell()
    if isinstance(value, Enum):
        return value.name
    if isinstance(value, (list, tuple, set, frozenset)):
        items = [str(cell(v)) for v in value]
        return ",".join(sorted(items) if isinstance(value, (set, frozenset)) else items)
    return value


class Rows(list):
    """A list of rows that knows their type when it is empty: csv still prints its header, a table its columns."""

    def __init__(self, items: Any, row_type: type) -> None:
        super().__init__(items)
        self.row_type = row_type


def table_of(data: Any, vertical: bool = False) -> Tabular:
    """Rows and columns of a result: a sequence of row dataclasses, or a document dataclass.

    With `vertical`, a single object without rows becomes field/value pairs (for table and plain).
    """
    if isinstance(data, Tabular):
        return data
    if isinstance(data, Rows) and not data:
        return Tabular(columns=_columns(data.row_type), rows=[])
    if isinstance(data, Sequence) and not isinstance(data, (str, bytes)):
        items = list(data)
        cols = _columns(items[0]) if items else ()
        return Tabular(columns=cols, rows=[tuple(cell(getattr(i, c)) for c in cols) for i in items],
                       group_by=getattr(items[0], "GROUP_BY", 0) if items else 0)
    rows_field = getattr(data, "ROWS", None)
    if rows_field:
        inner = table_of(list(getattr(data, rows_field)))
        columns = inner.columns or tuple(getattr(data, "ROW_COLUMNS", ()))
        header = tuple((h, cell(getattr(data, h))) for h in getattr(data, "HEADER", ()))
        return Tabular(columns=columns, rows=inner.rows, header=header, title=getattr(data, "TITLE", None))
    cols = _columns(data)
    if vertical:
        return Tabular(columns=("field", "value"), rows=[(c, cell(getattr(data, c))) for c in cols])
    return Tabular(columns=cols, rows=[tuple(cell(getattr(data, c)) for c in cols)])


def _columns(item: Any) -> tuple[str, ...]:
    cols = getattr(item, "COLUMNS", None)
    if cols:
        return tuple(cols)
    return tuple(f.name for f in dataclasses.fields(item) if not f.name.startswith("_"))
