"""Pure renderers for kafkactl's result dataclasses: table, plain, json, yaml, csv.

A result is either a sequence of row dataclasses or one dataclass. Row dataclasses declare
`COLUMNS` (field names, in order) once, so table, plain and csv always agree. A document
dataclass may also declare `HEADER` (fields shown above the table) and `ROWS` (the name of
the field that holds its rows).
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import Any, TextIO

from kafkactl.formatters.model import jsonable, table_of


class OutputFormat(StrEnum):
    table = "table"
    plain = "plain"
    json = "json"
    yaml = "yaml"
    csv = "csv"


def _render_table(data: Any, out: TextIO, console: Any) -> None:  # noqa: ARG001 (the renderers' signature)
    from kafkactl.formatters.table import render_table

    render_table(data, console)


def _render_plain(data: Any, out: TextIO, console: Any) -> None:  # noqa: ARG001 (the renderers' signature)
    from kafkactl.formatters.text import render_plain

    render_plain(table_of(data, vertical=True), out)


def _render_csv(data: Any, out: TextIO, console: Any) -> None:  # noqa: ARG001 (the renderers' signature)
    from kafkactl.formatters.text import render_csv

    render_csv(table_of(data), out)


def _render_json(data: Any, out: TextIO, console: Any) -> None:  # noqa: ARG001 (the renderers' signature)
    import orjson

    doc = jsonable(data)
    try:  # the same text as json.dumps(indent=2, ensure_ascii=False), bar the spelling of tiny floats
        text = orjson.dumps(doc, option=orjson.OPT_INDENT_2).decode("utf-8")
    except TypeError:  # an integer beyond 64 bits
        import json

        text = json.dumps(doc, indent=2, ensure_ascii=False)
    out.write(text + "\n")


def _render_yaml(data: Any, out: TextIO, console: Any) -> None:  # noqa: ARG001 (the renderers' signature)
    import yaml

    yaml.safe_dump(jsonable(data), out, sort_keys=False, default_flow_style=False, allow_unicode=True)


RENDERERS: dict[OutputFormat, Callable[[Any, TextIO, Any], None]] = {
    OutputFormat.table: _render_table,
    OutputFormat.plain: _render_plain,
    OutputFormat.csv: _render_csv,
    OutputFormat.json: _render_json,
    OutputFormat.yaml: _render_yaml,
}


# result types whose look differs by format -> their renderer (kafkactl.formatters.views registers them)
VIEWS: dict[type, Callable[[Any, OutputFormat, TextIO, Any], None]] = {}


def render(data: Any, fmt: OutputFormat, out: TextIO, console: Any = None) -> None:
    view = VIEWS.get(type(data))
    if view is not None:
        view(data, fmt, out, console)
    else:
        RENDERERS[fmt](data, out, console)
    out.flush()
