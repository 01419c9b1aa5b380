"""Every file format of desired state and ACL sets, in one package: readers, writers, scope, header and column checks.

  text.py      bytes, UTF-8, JSON, JSONL, CSV and Parquet primitives; errors name the file and line, row or field
  yamldoc.py   YAML whose mappings know their lines; the JSON Schema (acl-state.schema.json) documents and scopes pass
  compact.py   the compact document (YAML or JSON, for people): read with lines, written by acls export
  flat.py      flat rows (JSONL, CSV, Parquet, for machines): records, the head, writers
  arrow.py     flat rows as Arrow tables, for the Arrow engine (falling back to flat.py's reader)
The model every format reads into (Scope, DesiredState, the binding checks) is kafkactl/desired/state.py. Users:
read_state (the in-process, Arrow and Spark engines), read_one (the --acls-file reader of acl/aclset.py),
flat.read_flat_head and flat.checked_rows (Spark and Arrow, which read rows themselves), write (acls export).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import TextIO

from kafkactl.acl.model import AclBinding
from kafkactl.desired.formats.compact import read_compact, write_compact
from kafkactl.desired.formats.flat import (
    JSONL_SUFFIXES,
    flat_records,
    flat_where,
    read_flat_head,
    write_csv,
    write_jsonl,
    write_parquet,
)
from kafkactl.desired.formats.text import check_regular
from kafkactl.desired.state import DesiredState, Scope, StateFileError, flat_binding
from kafkactl.errors import MissingFileError

FORMATS = ("yaml", "jsonl", "csv", "parquet")  # what acls export writes
COMPACT_SUFFIXES = (".yaml", ".yml", ".json")
FLAT_SUFFIXES = (*JSONL_SUFFIXES, ".csv", ".parquet")


def format_of(path: Path) -> str | None:
    """The format the readers take a file for, by its extension (None: not one of theirs)."""
    suffix = path.suffix.lower()
    if suffix in COMPACT_SUFFIXES:
        return "yaml"
    if suffix in JSONL_SUFFIXES:
        return "jsonl"
    return {".csv": "csv", ".parquet": "parquet"}.get(suffix)


def read_state(paths: Iterable[str], scope_file: str | None = None, flat_rows: bool = True) -> DesiredState:
    """Parse and validate. With flat_rows=False (the Spark engine) flat files contribute only their scope;
    Spark reads and validates their rows itself."""
    state = DesiredState()
    for p in [*paths, *([scope_file] if scope_file else [])]:
        check_regular(Path(p))
    for p in paths:
        path = Path(p)
        if not flat_rows and path.suffix.lower() in FLAT_SUFFIXES:
            read_flat_head(path, state)
        else:
            read_one(path, state)
        state.sources.append(str(p))
    if scope_file:
        extra = DesiredState()
        read_compact(Path(scope_file), extra, scope_only=True)
        state.scope = state.scope.merge(extra.scope, f"--scope {scope_file}")
    if not state.scope.declared():
        raise StateFileError(f"{', '.join(state.sources)}: no scope declared (scope: principals, principalPrefixes "
                             "or resourcePrefixes; or --scope FILE); deletions are only ever computed inside a scope")
    for b, where in state.bindings.items():
        if not state.scope.contains(b):
            raise StateFileError(f"{where}: {b.describe()} is outside the declared scope "
                                 f"{json.dumps(state.scope.to_json())}")
    return state


def read_one(path: Path, state: DesiredState) -> None:
    if not path.exists():
        raise MissingFileError(f"{path}: no such file")
    check_regular(path)
    suffix = path.suffix.lower()
    if suffix in COMPACT_SUFFIXES:
        read_compact(path, state)
    elif suffix in FLAT_SUFFIXES:
        where = flat_where(path)
        for n, row in flat_records(path, state):
            state.add(flat_binding(where(n), row), where(n))
    else:
        raise StateFileError(f"{path}: unknown format {suffix or '(no suffix)'} (yaml, json, jsonl, csv, parquet)")


def write(bindings: Iterable[AclBinding], scope: Scope, fmt: str, file: str | None, stdout: TextIO) -> None:
    """Bindings and their scope in one of FORMATS, to `file` or to stdout (Parquet needs a file)."""
    if file:
        from kafkactl.privatefile import check_not_read

        check_not_read(file, "--file")
    if fmt == "parquet":
        assert file is not None
        write_parquet(bindings, scope, file)
        return
    out = open(file, "w", encoding="utf-8") if file else stdout
    try:
        if fmt == "yaml":
            write_compact(bindings, scope, out)
        elif fmt == "jsonl":
            write_jsonl(bindings, scope, out)
        else:
            write_csv(bindings, out)
    finally:
        if file:
            out.close()
