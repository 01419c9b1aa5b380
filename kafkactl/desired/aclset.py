"""An ACL set from a file, for the authorizer's questions (acls check, explain, who-can, lint). Works offline.

Accepted: a desired state in any format, or a JSON list as `acls list -o json` writes it. Nothing is diffed, so
no scope is required; and an operation its resource type lacks is kept, because the broker stores such ACLs
(lint reports them). Flat files run to hundreds of thousands of rows: each distinct raw value (an operation
spelling, a principal) is parsed once and then looked up, and a row the lookup can't vouch for goes through
the desired-state loader, which names file, row and field when it is wrong.
"""

from __future__ import annotations

import contextlib
import gc
import json
import re
from collections.abc import Callable, Iterable, Iterator
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kafkactl.acl.model import (
    CLUSTER_NAME,
    AclBinding,
    AclFilter,
    AclOperation,
    PatternType,
    Permission,
    ResourceType,
    find_refused,
    validate_principal,
)
from kafkactl.desired.formats import FLAT_SUFFIXES, read_one
from kafkactl.desired.formats.flat import flat_records, flat_where
from kafkactl.desired.formats.text import decode, json_loads, read_bytes
from kafkactl.desired.state import DesiredState, flat_binding
from kafkactl.errors import KafkactlError, MissingFileError, StateFileError
from kafkactl.limits import too_long

if TYPE_CHECKING:
    from kafkactl.gateway import Gateway


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Building 100,000 bindings allocates containers fast enough that the cyclic collector re-scans the heap
    many times over (about a third of the time); none of them form cycles."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def read_acl_set(acls_file: str | None, gateway: Callable[[], Gateway],
                 resource: tuple[ResourceType, str] | None = None) -> list[AclBinding]:
    """The ACLs the authorizer's questions work on: from the file, or from the cluster (`gateway` is called only
    then, so a file never needs one). With a resource, only those that can concern it: the file's rows whose
    name can cover it, or the broker's MATCH filter, so one check reads a handful of ACLs however many exist."""
    if acls_file:
        return load_acl_set(acls_file, None if resource is None else resource[1])
    f = AclFilter() if resource is None else AclFilter(resource[0], resource[1], PatternType.MATCH)
    with gc_paused():
        return gateway().describe_acls(f, bulk=resource is None)


def load_acl_set(path: str, resource_name: str | None = None) -> list[AclBinding]:
    """The file's ACLs; with a resource name, a superset of those that can concern that resource (see _scan)."""
    p = Path(path)
    if not p.exists():
        raise MissingFileError(f"{path}: no such file")
    suffix = p.suffix.lower()
    with gc_paused():
        if resource_name is not None and suffix in (".json", ".jsonl", ".ndjson"):
            found = _scan(p, resource_name)
            if found is not None:
                return found
        if suffix in FLAT_SUFFIXES:
            return _Rows(flat_where(p)).bindings(flat_records(p, DesiredState()))
        if suffix == ".json":
            text = decode(read_bytes(p), p)
            if text.lstrip().startswith("["):  # `acls list -o json`; an object is a desired state (below)
                data = json_loads(text, path, lines=True)
                return _Rows(lambda n: f"{path} item {n}", default_host="*").bindings(enumerate(data, 1))
        state = DesiredState()
        read_one(p, state)
        return list(state.bindings)


class _Rows:
    """Flat rows to bindings, each distinct enum spelling and principal validated once."""

    def __init__(self, where: Callable[[int], str], default_host: str | None = None) -> None:
        self.where = where
        self.default_host = default_host
        # raw (type, operation, permission, pattern) -> parsed
        self.enums: dict[tuple[Any, Any, Any, Any], tuple[ResourceType, AclOperation, Permission, PatternType]] = {}
        self.principals: dict[str, str] = {}  # raw -> validated

    def bindings(self, rows: Iterable[tuple[int, Any]]) -> list[AclBinding]:
        return list(dict.fromkeys(self.binding(n, row) for n, row in rows))

    def binding(self, n: int, row: Any) -> AclBinding:
        try:
            key = (row["resource_type"], row["operation"], row["permission"], row["pattern_type"])
            enums = self.enums.get(key)
            principal = self.principals.get(row["principal"])
            name = row["resource_name"]
            host = row.get("host")
            host = self.default_host if host is None or host == "" else host  # [] or 0 is no host: refused
        except (KeyError, TypeError, AttributeError):  # missing field, unhashable value, not an object
            return self._checked(n, row)
        if principal is None and enums is not None and isinstance(row["principal"], str):
            principal = self._principal(row["principal"])
        if (enums is None or principal is None or not isinstance(name, str) or not name or find_refused(name)
                or not isinstance(host, str) or not host or host != host.strip() or find_refused(host)
                or too_long(name) or too_long(host)
                or (enums[0] is ResourceType.CLUSTER
                    and (name != CLUSTER_NAME or enums[3] is not PatternType.LITERAL))):
            return self._checked(n, row)
        return AclBinding(enums[0], name, enums[3], principal, host, enums[1], enums[2])

    def _principal(self, raw: str) -> str | None:
        """Principals are mostly distinct: validated alone, not through the whole row."""
        try:
            self.principals[raw] = validate_principal(raw, "principal")
        except KafkactlError:
            return None  # the row's own check names it
        return self.principals[raw]

    def _checked(self, n: int, row: Any) -> AclBinding:
        if not isinstance(row, dict):
            raise StateFileError(f"{self.where(n)}: expected an object")
        if self.default_host and row.get("host") in (None, ""):
            row = {**row, "host": self.default_host}
        b = flat_binding(self.where(n), row, supported_only=False)
        with contextlib.suppress(TypeError):  # an unhashable raw value is simply not remembered
            self.enums[(row["resource_type"], row["operation"], row["permission"], row["pattern_type"])] = (
                b.resource_type, b.operation, b.permission, b.pattern_type)
            self.principals[row["principal"]] = b.principal
        return b


BOM = b"\xef\xbb\xbf"


def _utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _row(nl: bytes) -> bytes:
    """One row as the scan reads it: an object with no braces inside, its strings paired quote by quote (no
    backslash reaches here), and exactly one "resource_name" key, spelled as `acls list -o json` writes it, with a
    string value. `nl` is what may not appear in it (a newline, in JSONL). An unpaired quote would put a "}, {"
    inside a string; a row without the key, or with it twice, would let a mistyped key be passed over."""
    between = rb'[^"{}' + nl + rb']*+'
    other = rb'"(?!resource_name")[^"{}' + nl + rb']*+"'  # any other string, key or value
    pairs = between + rb"(?:" + other + between + rb")*+"
    return rb"\{" + pairs + rb'"resource_name": ?"[^"{}' + nl + rb']*+"' + pairs + rb"\}"  # possessive: one pass


_WS = rb"[ \t\n\r]*"  # JSON's whitespace (a regular expression's \s takes \f and \v too)
_JSON_ROWS = re.compile(_WS + rb"\[" + _WS + _row(b"") + _WS + rb"(?:," + _WS + _row(b"") + _WS + rb")*\]" + _WS)
_KEY = b'"resource_name"'


def _one_name_a_line(data: bytes, start: int) -> bool:
    """JSONL from `start`: as many resource_name keys spelled as the scan's pattern reads them as lines, and as
    many objects (a line the pattern finds is decoded whole, so only a line it cannot find could be passed
    over: one without the key, or with it spelled otherwise or cut by a newline, which a line holding the key
    in nested objects could otherwise balance). Counts, no per-line loop: 100,000 lines in a few milliseconds.
    Left: a line holding the key twice at its top level beside a line without it (two faults in one file; the
    whole read of lint and plan reports both)."""
    lines = data.count(b"\n", start) + (not data.endswith(b"\n"))
    exact = data.count(_KEY + b': "', start)
    if exact != lines:
        exact += data.count(_KEY + b':"', start)
    return 0 < lines == exact == data.count(b"{", start)


_NESTED = 64  # bytes of the name matched as nested prefixes; past that (a group may be long) a value is checked


def _scan(p: Path, name: str) -> list[AclBinding] | None:
    """Only the rows whose resource_name could cover `name` (`*`, the name, or a prefix of it), found by one
    regular-expression pass over the bytes instead of decoding every row: a check over 100,000 rows decodes a
    handful. Safe only when the file is UTF-8, every JSON string is spelled literally (no backslash anywhere),
    and every row is an object holding one resource_name whose value is a string (so no row that could concern
    the resource is passed over; see _row): in JSONL each line but the scope line, in a JSON list each item.
    Otherwise None, and the file is read whole. Rows that can't concern the resource are not validated here
    (lint and plan read every row)."""
    data = read_bytes(p)
    if b"\\" in data or data.startswith(BOM) or not _utf8(data):
        return None
    jsonl = p.suffix.lower() != ".json"
    body = 0
    first = data[:data.find(b"\n") + 1]
    if jsonl and b'"kind"' in first:
        # the scope line (`acls export --prefix` nests its prefixes): decoded, so that a row holding "kind" as
        # a value is not taken for it; the whole read checks the rest of it
        try:
            head = json.loads(first)
        except (ValueError, RecursionError):  # (a line nested a thousand deep: the whole read names the line)
            return None
        if not isinstance(head, dict) or head.get("kind", "scope") != "scope":
            return None  # a clusters line, or a mistake: the whole read says which
        body = len(first) if "kind" in head else 0
    # every row an object with one literal resource_name, or a row that could concern the resource might be passed
    # over: a blank line, a clusters line, a mistyped key, a name that is not a string, a brace inside a string,
    # a moved line that pairs braces anew, ... are all left to the whole read
    if not (_one_name_a_line(data, body) if jsonl else _KEY in data and _JSON_ROWS.fullmatch(data)):
        return None  # and a file of no rows may be no file at all ("[[[[", UTF-16): read whole
    raw = name.encode("utf-8")
    head = raw[:_NESTED]
    prefixes = re.escape(head[-1:])  # "abc" -> a(?:b(?:c)?)?: the name or any prefix of it
    for i in range(len(head) - 2, -1, -1):
        prefixes = re.escape(head[i:i + 1]) + b"(?:" + prefixes + b")?"
    if len(raw) > len(head):  # nested 500 deep, the pattern would not compile: longer values are checked below
        prefixes += b"|" + re.escape(head) + b'[^"]*'
    # the one spelling _row lets through: whitespace that may hold a newline would join two JSONL lines
    pattern = re.compile(rb'"resource_name": ?"(\*|' + prefixes + rb')"')
    # rows are known by their byte offset; the line (or item) number is counted only for an error message
    newline, brace = b"\n", b"{"
    if jsonl:
        rows = _Rows(lambda at: f"{p}:{data.count(newline, 0, at) + 1}")
    else:
        rows = _Rows(lambda at: f"{p} item {data.count(brace, 0, at) + 1}", default_host="*")
    out = []
    for m in pattern.finditer(data):
        if m.group(1) != b"*" and not raw.startswith(m.group(1)):
            continue
        if jsonl:
            start, end = data.rfind(b"\n", 0, m.start()) + 1, data.find(b"\n", m.end())
        else:
            start, end = data.rfind(b"{", 0, m.start()), data.find(b"}", m.end()) + 1
        row = json_loads(data[start:end if end > 0 else len(data)].decode("utf-8"), partial(rows.where, start))
        if isinstance(row, dict) and row.get("kind") is not None:
            return None  # a scope or clusters line, or a mistake: the whole read says which
        out.append(rows.binding(start, row))
    return list(dict.fromkeys(out))


def existing_resources(gw: Gateway, transactional: bool = True, short: list[str] | None = None
                       ) -> dict[ResourceType, list[str]]:
    """The topics, groups (and transactional ids) that exist, as the caller may see them: what acls report and the
    dangling and unsecured lint checks expand ACLs against. `short`, when given, takes the groups of the brokers
    that answered when some did not (and why, appended to it): good enough for an estimate (a plan's blast
    radius), never for a finding (a dangling ACL)."""
    from concurrent.futures import ThreadPoolExecutor

    from kafkactl.errors import PartialAnswer

    asks: dict[ResourceType, Callable[[], list[str]]] = {
        ResourceType.TOPIC: lambda: [t.name for t in gw.topics() if t.error is None],
        ResourceType.GROUP: lambda: [g.group_id for g in gw.list_groups()]}
    if transactional:
        asks[ResourceType.TRANSACTIONAL_ID] = gw.list_transactional_ids
    with ThreadPoolExecutor(len(asks), thread_name_prefix="kafkactl-existing") as pool:  # side by side: a broker
        asked = {kind: pool.submit(ask) for kind, ask in asks.items()}  # that does not answer costs its wait once
    out: dict[ResourceType, list[str]] = {}
    for kind, future in asked.items():
        try:
            out[kind] = future.result()
        except PartialAnswer as exc:
            if short is None:
                raise
            out[kind] = [str(getattr(x, "group_id", x)) for x in exc.partial]
            short.append(exc.message)
    return out
