"""Bytes to values for desired-state and --acls-file inputs, trusting nothing in them.

Every failure is a StateFileError whose one-line message names the file, the line, row or item where there is
one, and what is wrong: bytes that are not UTF-8, broken or too deeply nested JSON, a key given twice, an
oversized CSV field, a Parquet file that is not one. Python's own errors (UnicodeDecodeError, RecursionError,
csv.Error, ArrowInvalid) never escape to become "unexpected" failures. YAML and the JSON Schema: yamldoc.py.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Generator, Iterable, Iterator
from pathlib import Path
from typing import Any

from kafkactl.acl.model import shown
from kafkactl.errors import MissingFileError, StateFileError

# desired states nest six levels deep; deeper is refused (YAML), or reported as such (JSON), with its place
MAX_DEPTH = 64


def first_line(exc: BaseException | str) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]


# ------------------------------------------------------------------------------------------ text


def check_regular(path: Path) -> None:
    """A FIFO, a device (/dev/zero) or a directory is refused before any reader opens it: one would block, one
    never ends, one is no file (a symbolic link to a regular file is fine)."""
    from kafkactl.privatefile import note_read

    try:
        if path.exists() and not path.is_file():
            raise StateFileError(f"{path}: not a regular file")
        note_read(path)
    except OSError as exc:  # a name too long for the file system, a loop of links
        raise StateFileError(f"{path}: cannot be read ({exc.strerror or first_line(exc)})") from None


def read_bytes(path: Path) -> bytes:
    check_regular(path)
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise MissingFileError(f"{path}: no such file") from None
    except OSError as exc:
        raise StateFileError(f"{path}: cannot be read ({exc.strerror or first_line(exc)})") from None


def not_utf8(where: Any, data: bytes, exc: UnicodeDecodeError, lines: bool = True) -> StateFileError:
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return StateFileError(f"{where}: not UTF-8 (it starts with a UTF-16 byte-order mark); save it as UTF-8")
    line = data.count(b"\n", 0, exc.start) + 1
    return StateFileError(f"{where}{f':{line}' if lines else ''}: not UTF-8 (byte 0x{data[exc.start]:02x} at "
                          f"offset {exc.start})")


def decode(data: bytes, where: Any, lines: bool = True) -> str:
    """UTF-8, a leading byte-order mark dropped."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise not_utf8(where, data, exc, lines) from None


def text_lines(path: Path, newline: str) -> Iterator[str]:
    """The file's lines, decoded as they are read; bytes that are not UTF-8 are reported with their line.
    newline="\n": JSON lines end at LF only (a lone CR is JSON whitespace, as Arrow reads it); "" for csv."""
    try:
        with path.open(encoding="utf-8-sig", newline=newline) as fh:
            yield from fh
    except FileNotFoundError:
        raise MissingFileError(f"{path}: no such file") from None
    except UnicodeDecodeError:
        data = read_bytes(path)  # the error's offset is within a buffer: find the line from the start
        decode(data, path)
        raise StateFileError(f"{path}: not UTF-8") from None
    except OSError as exc:
        raise StateFileError(f"{path}: cannot be read ({exc.strerror or first_line(exc)})") from None


# ------------------------------------------------------------------------------------------ JSON


class DuplicateKey(ValueError):
    pass


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """object_pairs_hook: refuses a key given twice in one object (json keeps the last, silently)."""
    d = dict(pairs)
    if len(d) != len(pairs):
        seen: set[str] = set()
        for k, _ in pairs:
            if k in seen:
                raise DuplicateKey(k)
            seen.add(k)
    return d


def _number(text: str) -> int | float:
    """Python refuses integers of more than 4,300 digits; valid JSON all the same (and Arrow reads it)."""
    return int(text) if len(text) < 4000 else float(text)


# one decoder: json.loads(..., hook) builds one per call
_DECODER = json.JSONDecoder(object_pairs_hook=_unique, parse_int=_number)
_WHITESPACE = re.compile(r"[ \t\n\r]*")


def json_loads(text: str, where: str | Callable[[], str], lines: bool = False) -> Any:
    """Strict enough for a scope: no key twice in an object, bounded nesting. `where` names the place (a
    function of nothing, if naming it costs): with lines (a whole document), a syntax error adds its line and
    column (a JSON list is often one line)."""
    try:
        return _DECODER.decode(text)
    except json.JSONDecodeError as exc:
        problem, line = exc.msg, f":{exc.lineno}:{exc.colno}" if lines else ""
    except DuplicateKey as exc:
        problem, line = f"duplicate key {shown(exc.args[0])}", _item_number(text) if lines else ""
    except RecursionError:
        problem, line = f"nested deeper than {MAX_DEPTH} levels", _too_deep(text) if lines else ""
    except ValueError as exc:  # e.g. an integer of more than 4,300 digits
        problem, line = first_line(exc), ""
    place = where() if callable(where) else where
    if problem.startswith("duplicate key"):
        raise StateFileError(f"{place}{line}: {problem}")
    raise StateFileError(f"{place}{line}: not valid JSON ({problem})")


def _too_deep(text: str) -> str:
    """Where nesting first passes MAX_DEPTH, as :line:column (the error path: one pass over the text)."""
    depth, in_string, escaped = 0, False, False
    for i, ch in enumerate(text):
        if in_string:
            in_string, escaped = (escaped or ch != '"'), (not escaped and ch == "\\")
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                line, column = text.count("\n", 0, i) + 1, i - text.rfind("\n", 0, i)
                return f":{line}:{column}"
        elif ch in "]}":
            depth -= 1
    return ""


def _skip_space(text: str, at: int) -> int:
    match = _WHITESPACE.match(text, at)
    return match.end() if match else at


def _item_number(text: str) -> str:
    """Which item of a JSON list holds the duplicate key, as " item N" (the error path: items decoded in turn)."""
    at, n = text.find("[") + 1, 0
    while 0 < at < len(text):
        at = _skip_space(text, at)
        n += 1
        try:
            at = _DECODER.raw_decode(text, at)[1]
        except DuplicateKey:
            return f" item {n}"
        except (ValueError, RecursionError):
            break
        at = _skip_space(text, at)
        at = at + 1 if text[at:at + 1] == "," else -1
    return ""


def jsonl_objects(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for each non-blank line of a JSON-lines file."""
    for n, line in enumerate(text_lines(path, "\n"), 1):
        if not line.strip(" \t\r\n"):
            continue
        row = json_loads(line, f"{path}:{n}")
        if not isinstance(row, dict):
            raise StateFileError(f"{path}:{n}: expected an object, not {type(row).__name__}")
        yield n, row


# ------------------------------------------------------------------------------------------ CSV


def csv_records(path: Path, fields: Iterable[str], only: bool = False
                ) -> Generator[tuple[int, dict[str, str]], None, None]:
    """(row number, record): the header is row 1, blank lines are not counted (as Arrow counts). The header
    names every field, once (`only`: and nothing else); every record has as many fields as the header."""
    fields = tuple(fields)
    import csv

    reader = csv.reader(text_lines(path, newline=""))
    n = 1
    try:
        header = next(reader, [])
        missing = [f for f in fields if f not in header]
        if missing:
            raise StateFileError(f"{path}: header row lacks {', '.join(missing)}")
        twice = sorted({h for h in header if header.count(h) > 1})
        if twice:
            raise StateFileError(f"{path}: header row names {', '.join(map(shown, twice))} more than once")
        extra = [h for h in header if h not in fields] if only else []
        if extra:
            raise StateFileError(f"{path}: header row names {shown(extra[0])}, which is not a field (fields: "
                                 f"{', '.join(fields)})")
        for values in reader:
            if not values:
                continue
            n += 1
            if len(values) != len(header):
                raise StateFileError(f"{path} row {n}: {len(values)} fields, the header has {len(header)}")
            yield n, dict(zip(header, values))
    except csv.Error as exc:
        raise StateFileError(f"{path} row {n + 1}: not valid CSV ({first_line(exc)})") from None


# ------------------------------------------------------------------------------------------ Parquet

STRING_TYPES = ("string", "large_string", "string_view", "null")


def parquet_file(path: Path) -> Any:
    import pyarrow as pa
    import pyarrow.parquet as pq

    if not path.exists():
        raise MissingFileError(f"{path}: no such file")
    try:
        return pq.ParquetFile(path)
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise StateFileError(f"{path}: not a readable Parquet file ({first_line(exc)})") from None


def parquet_columns(path: Path, pf: Any, columns: list[str], only: bool = False) -> None:
    """Every column present (`only`: and no other), and of strings (or dictionary-encoded strings, or all null)."""
    schema = pf.schema_arrow
    missing = [c for c in columns if c not in schema.names]
    if missing:
        raise StateFileError(f"{path}: columns missing: {', '.join(missing)}")
    extra = [c for c in schema.names if c not in columns] if only else []
    if extra:
        raise StateFileError(f"{path}: column {shown(extra[0])} is not a field (fields: {', '.join(columns)})")
    for c in columns:
        t = schema.field(c).type
        if str(getattr(t, "value_type", t)) not in STRING_TYPES:
            raise StateFileError(f"{path}: column {c}: {t}, not strings")


def parquet_read(path: Path, pf: Any, columns: list[str]) -> Any:
    """The columns as one Arrow table of plain strings, all of them UTF-8 (Parquet does not check that)."""
    import pyarrow as pa

    parquet_columns(path, pf, columns)
    try:
        table = pf.read(columns=columns)
        table = pa.table({c: table.column(c).cast(pa.string()) for c in columns})
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise StateFileError(f"{path}: not a readable Parquet file ({first_line(exc)})") from None
    for c in columns:
        try:
            table.column(c).validate(full=True)
        except pa.ArrowInvalid:
            _not_utf8(path, c, table.column(c))
    return table


def _not_utf8(path: Path, name: str, column: Any) -> None:
    import pyarrow as pa

    for i, v in enumerate(column.cast(pa.binary()).to_pylist()):
        if v is not None:
            decode(v, f"{path} row {i + 1}: {name}", lines=False)
    raise StateFileError(f"{path}: column {name}: not UTF-8")


def parquet_records(path: Path, pf: Any, columns: list[str]) -> Iterator[tuple[int, dict[str, Any]]]:
    """(row number, record), batch by batch."""
    n = 0
    for batch in parquet_read(path, pf, columns).to_batches(max_chunksize=65536):
        for row in batch.to_pylist():
            n += 1
            yield n, row


def parquet_metadata(path: Path, pf: Any, key: bytes) -> Any:
    """A JSON value kept in the file's schema metadata (None when absent)."""
    raw = (pf.schema_arrow.metadata or {}).get(key)
    if raw is None:
        return None
    where = f"{path} metadata {key.decode()}"
    return json_loads(decode(raw, where, lines=False), where)
