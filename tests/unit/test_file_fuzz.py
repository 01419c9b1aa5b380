"""File fuzzer: valid desired-state and --acls-file inputs, mutated (truncated, bytes flipped, a wrong type in any
field of any row kind, other encodings, deep nesting, huge fields, duplicate keys), then read by the real readers
and the real command tree. Every mutation either parses to exactly what it says, or fails with exit 2 and one line
naming the file; never exit 1, never a traceback, and never a scope wider than the file states.

The expected result comes from an independent strict reading of the mutated file (this module's own, written
from the docs, not from the loaders): a scope is exactly what its JSON/YAML says when every field is a list of
strings, or the load must fail.

Seeds: KAFKACTL_FUZZ_SEED (new each run unless given; every failure message names it and the case),
KAFKACTL_FUZZ_FILES cases per format (default 600), KAFKACTL_FUZZ_CASE to run a single case.
"""

from __future__ import annotations

import csv
import io
import json
import os
import random
import re
from pathlib import Path
from typing import Any

import pytest

from kafkactl.acl.authorizer import Authorizer
from kafkactl.acl.model import AclBinding, AclOperation, PatternType, Permission, ResourceType
from kafkactl.desired.aclset import load_acl_set
from kafkactl.desired.arrow_diff import read_flat
from kafkactl.desired.formats import read_state
from kafkactl.desired.formats.compact import to_yaml_doc
from kafkactl.desired.formats.flat import flat_row
from kafkactl.desired.state import FLAT_FIELDS, Scope, StateFileError
from tests.conftest import run

SEED = int(os.environ.get("KAFKACTL_FUZZ_SEED") or random.SystemRandom().randrange(2**32))
CASES = int(os.environ.get("KAFKACTL_FUZZ_FILES") or 600)
ONLY = os.environ.get("KAFKACTL_FUZZ_CASE")
FORMATS = ("yaml", "jsonl", "csv", "parquet", "json")

RESOURCE_KEYS = {"topic": "TOPIC", "group": "GROUP", "cluster": "CLUSTER", "transactional-id": "TRANSACTIONAL_ID",
                 "delegation-token": "DELEGATION_TOKEN", "user": "USER"}
SCOPE_KEYS = {"principals", "principalPrefixes", "resourcePrefixes"}
CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff\ufffd]")
OPS = {ResourceType.TOPIC: [AclOperation.READ, AclOperation.WRITE, AclOperation.DESCRIBE],
       ResourceType.GROUP: [AclOperation.READ, AclOperation.DESCRIBE],
       ResourceType.CLUSTER: [AclOperation.IDEMPOTENT_WRITE, AclOperation.DESCRIBE],
       ResourceType.TRANSACTIONAL_ID: [AclOperation.WRITE]}
PRINCIPALS = ["User:team-a-app", "User:team-a-ü", "User:CN=x,O=y", "Group:ops"]
NAMES = ["team-a.orders", "team-a.é", "team-a.", "team-a.{x}", "team-a.[y]"]
# values put in place of a field's own: each a wrong type or a bad value somewhere
BAD_VALUES: list[Any] = [5, 1.5, True, None, "", [], {}, ["a", 1], {"a": "b"}, "User:h-", ["User:"], "a\x00b",
                         "x\x85", "\ud800", "\ufffd", "  ", "DROP", "ANY", "*", "x" * 200_000]
PALETTE = [b"\x00", b"\xc2\x85", b'"', b"{", b"}", b"[", b"]", b",", b":", b"\n", b"\r", b"\\", b"\xff", b"\xe9",
           b" ", b"#", b"-", b"&a", b"*a", b"!!binary"]


# ------------------------------------------------------------------------------------------ valid files


def base_state(rng: random.Random) -> tuple[list[AclBinding], Scope]:
    bindings = []
    for _ in range(rng.randint(1, 6)):
        rtype = rng.choice(list(OPS))
        name = "kafka-cluster" if rtype is ResourceType.CLUSTER else rng.choice(NAMES)
        pattern = PatternType.LITERAL if rtype is ResourceType.CLUSTER else rng.choice(list(PatternType)[3:])
        bindings.append(AclBinding(rtype, name, pattern, rng.choice(PRINCIPALS), rng.choice(["*", "10.0.0.5"]),
                                   rng.choice(OPS[rtype]), rng.choice([Permission.ALLOW, Permission.DENY])))
    resource_prefixes = {}
    if rng.random() < 0.5:
        resource_prefixes = {t: ("kafka" if t is ResourceType.CLUSTER else "team-a",) for t in OPS}
    if rng.random() < 0.5:
        return bindings, Scope(principal_prefixes=("User:", "Group:"), resource_prefixes=resource_prefixes)
    return bindings, Scope(frozenset(PRINCIPALS), ("User:team-a-",), resource_prefixes)


def build(rng: random.Random, fmt: str) -> tuple[Any, Any]:
    """(document, scope document) as plain data, before serialisation: mutated structurally, then written."""
    bindings, scope = base_state(rng)
    if fmt == "yaml":
        return to_yaml_doc(bindings, scope), None
    rows = [flat_row(b) for b in bindings]
    if fmt == "json":
        rows = [b.to_json() for b in bindings]
        for r in rows:
            if r["host"] == "*" and rng.random() < 0.5:
                del r["host"]  # `acls list -o json` rows: the host defaults to *
        return rows, None
    if fmt == "jsonl":
        lines = [{"kind": "scope", **scope.to_json()}]
        if rng.random() < 0.3:
            lines.append({"kind": "clusters", "clusters": ["prod-eu"]})
        return lines + rows, None
    if fmt == "csv":
        return rows, {"apiVersion": "kafkactl/v1", "kind": "AclState", "scope": scope.to_json(), "acls": []}
    return rows, scope.to_json()  # parquet: rows, and the scope kept in the schema metadata


# ------------------------------------------------------------------------------------------ mutations


def objects(doc: Any) -> list:
    """Every mapping in the document (each row kind, the scope, its nested maps), for a field to be broken."""
    found, todo = [], [doc]
    while todo:
        x = todo.pop()
        if isinstance(x, dict):
            found.append(x)
            todo.extend(x.values())
        elif isinstance(x, list):
            todo.extend(x)
    return found


def mutate_structure(rng: random.Random, doc: Any, scope_doc: Any) -> str:
    targets = objects(doc) + objects(scope_doc)
    if not targets:
        return "nothing to break"
    obj = rng.choice(targets)
    kind = rng.random()
    key = rng.choice(sorted(obj) + ["principalPrefix", "kind", "resourcePrefixes"])
    if kind < 0.6:
        value = rng.choice(BAD_VALUES + ["__DEEP__"])
        obj[key] = value
        return f"{key} = {value!r:.40}"
    if kind < 0.8 and obj:
        k = rng.choice(sorted(obj))
        obj["__DUP__" + k] = rng.choice([obj[k], [""], "User:", 1])
        return f"duplicate key {k}"
    if obj:
        k = rng.choice(sorted(obj))
        del obj[k]
        return f"without {k}"
    return "nothing to break"


def deep(depth: int) -> str:
    return "[" * depth + "]" * depth


def serialise(rng: random.Random, fmt: str, doc: Any, path: Path) -> None:
    depth = rng.choice([10, 63, 65, 1000, 100_000])
    if fmt == "parquet":
        write_parquet(rng, doc, path)
        return
    if fmt == "yaml":
        import yaml

        text = yaml.safe_dump(doc, sort_keys=False, allow_unicode=rng.random() < 0.5, width=10_000)
        text = text.replace("__DUP__", "").replace("__DEEP__", deep(depth))
    elif fmt == "json":
        text = json.dumps(doc, ensure_ascii=rng.random() < 0.5, indent=rng.choice([None, 2]))
    elif fmt == "jsonl":
        text = "".join(json.dumps(x, ensure_ascii=rng.random() < 0.5) + "\n" for x in doc)
    else:
        text = csv_text(doc)
    if fmt != "yaml":
        text = text.replace('"__DUP__', '"').replace('"__DEEP__"', deep(depth))
    path.write_bytes(text.encode("utf-8", "surrogatepass"))


def csv_text(rows: list) -> str:
    out = io.StringIO()
    header = list(rows[0]) if rows and isinstance(rows[0], dict) else list(FLAT_FIELDS)
    header = [h.replace("__DUP__", "") for h in header]
    w = csv.writer(out, lineterminator="\n")
    w.writerow(header)
    for r in rows:
        w.writerow([str(v) for v in (r.values() if isinstance(r, dict) else [r])])
    return out.getvalue()


def write_parquet(rng: random.Random, doc: Any, path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows, scope_value = doc
    rows = [r for r in rows if isinstance(r, dict)] if isinstance(rows, list) else []
    keys = list(dict.fromkeys(k for r in rows for k in r))
    columns = {k.replace("__DUP__", ""): [None if r.get(k) == "__DEEP__" else r.get(k) for r in rows] for k in keys}
    arrays, names = [], []
    for k, values in columns.items():
        try:
            arrays.append(pa.array(values))
        except Exception:  # mixed types: a column holds one, so the odd values make the whole column theirs
            odd = [v for v in values if not isinstance(v, str) and v is not None]
            try:
                arrays.append(pa.array([v if not isinstance(v, str) else None for v in values])
                              if odd and rng.random() < 0.5
                              else pa.array([None if v is None else str(v) for v in values], pa.string()))
            except Exception:
                arrays.append(pa.array([None if v is None else repr(v) for v in values], pa.string()))
        names.append(k)
    table = pa.Table.from_arrays(arrays, names=names) if arrays else pa.table({"principal": pa.array([], pa.string())})
    if scope_value is not None:
        meta = scope_value if isinstance(scope_value, str) else json.dumps(scope_value)
        raw = meta.replace('"__DUP__', '"').encode("utf-8", "surrogatepass")
        table = table.replace_schema_metadata({"kafkactl.scope": rng.choice([raw, raw, raw[: len(raw) // 2],
                                                                             b"\xff" + raw, b"[1]", b"nope"])})
    try:
        pq.write_table(table, path)
    except pa.ArrowException:  # a type Parquet cannot hold (a struct without fields): strings then
        table = pa.Table.from_arrays([pa.array([None if v is None else repr(v) for v in c.to_pylist()], pa.string())
                                      for c in table.columns], names=table.column_names)
        pq.write_table(table.replace_schema_metadata(table.schema.metadata), path)


def mutate_bytes(rng: random.Random, data: bytes) -> tuple[bytes, str]:
    op = rng.randrange(9)
    at = rng.randrange(len(data) + 1)
    if op == 0:
        return data[:at], f"truncated at {at}"
    if op == 1 and data:
        at = min(at, len(data) - 1)
        return data[:at] + bytes([rng.randrange(256)]) + data[at + 1:], f"byte {at} replaced"
    if op == 2:
        ins = rng.choice(PALETTE) * rng.choice([1, 1, 2, 100])
        return data[:at] + ins + data[at:], f"{ins[:8]!r} inserted at {at}"
    if op == 3:
        end = min(len(data), at + rng.randint(1, 40))
        return data[:at] + data[end:], f"bytes {at}-{end} deleted"
    lines = data.split(b"\n")
    if op == 4 and lines:
        i = rng.randrange(len(lines))
        return b"\n".join(lines[:i] + [lines[i]] + lines[i:]), f"line {i + 1} repeated"
    if op == 5 and len(lines) > 2:
        i, j = rng.sample(range(len(lines) - 1), 2)
        lines[i], lines[j] = lines[j], lines[i]
        return b"\n".join(lines), f"lines {i + 1} and {j + 1} swapped"
    if op == 6:
        text = data.decode("utf-8", "replace")
        enc = rng.choice(["latin-1", "utf-16", "utf-8-sig", "cp1252"])
        return text.encode(enc, "replace"), f"re-encoded as {enc}"
    if op == 7:
        return data.replace(b"\n", b"\r\n"), "CRLF line ends"
    return data, "unchanged"


# ------------------------------------------------------------------------------------------ strict reading


def strict_json(text: str) -> Any:
    def pairs(p):
        d = dict(p)
        assert len(d) == len(p), "duplicate key"
        return d
    return json.loads(text, object_pairs_hook=pairs)


def strict_scope(obj: Any) -> dict | None:
    """The scope an object states, read strictly; None unless every field is a list of strings (principals
    Type:name, no control characters) and no key is unknown."""
    def strings(v, principal=False, empty=False):
        ok = isinstance(v, list) and (empty or v) and all(isinstance(x, str) and not CONTROL.search(x) for x in v)
        return ok and (not principal or all(re.fullmatch(r"[^:]+:.+", x) and x.strip().partition(":")[2] for x in v))
    if not isinstance(obj, dict) or set(obj) - SCOPE_KEYS:
        return None
    out = {}
    for k in ("principals", "principalPrefixes"):
        if k in obj:
            if not strings(obj[k], principal=k == "principals"):
                return None
            out[k] = {x.strip() if k == "principals" else x for x in obj[k]}
    if "resourcePrefixes" in obj:
        rp = obj["resourcePrefixes"]
        if not isinstance(rp, dict) or not rp or set(rp) - set(RESOURCE_KEYS) \
                or not all(strings(v, empty=True) for v in rp.values()):
            return None
        out["resourcePrefixes"] = {RESOURCE_KEYS[k]: set(v) for k, v in rp.items()}
    return out


def read_text(data: bytes) -> str | None:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None


def reference_loader(yaml):
    """libyaml's safe loader where PyYAML has it, as kafkactl's reader: the pure-Python one refuses what YAML allows
    (a tab after `key:`, which libyaml reads as the spec says), so the two would disagree on valid files."""
    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def stated_scope(fmt: str, path: Path, scope_file: Path | None) -> dict | None:
    """What the mutated file says its scope is (the --scope file for CSV); None if it says none exactly."""
    import yaml

    try:
        if fmt in ("yaml", "csv"):
            text = read_text((scope_file or path).read_bytes())
            doc = yaml.load(text, Loader=reference_loader(yaml)) if text is not None else None
            return strict_scope(doc.get("scope")) if isinstance(doc, dict) else None
        if fmt == "jsonl":
            text = read_text(path.read_bytes())
            lines = [x for x in (text or "").split("\n") if x.strip(" \t\r\n")]
            first = strict_json(lines[0]) if lines else None
            if not isinstance(first, dict) or first.get("kind") != "scope":
                return None
            return strict_scope({k: v for k, v in first.items() if k != "kind"})
        import pyarrow.parquet as pq

        meta = pq.read_schema(path).metadata or {}
        return strict_scope(strict_json(meta[b"kafkactl.scope"].decode("utf-8"))) if b"kafkactl.scope" in meta else None
    except Exception:  # whatever the strict reading cannot read, the loader must refuse
        return None


def norm(v: str) -> str:
    return re.sub("[-_ ]", "", v.strip().upper())


def key(principal, host, op, perm, rtype, name, pattern) -> tuple:
    return (principal.strip(), host.strip(), norm(op), norm(perm), norm(rtype), name, norm(pattern))


def binding_key(b: AclBinding) -> tuple:
    r = flat_row(b)
    return key(*[r[f] for f in FLAT_FIELDS])


def stated_bindings(fmt: str, path: Path) -> set | None:
    """The bindings the file states, read independently (spellings normalised as the docs allow)."""
    import yaml

    data = path.read_bytes()
    if fmt == "parquet":
        import pyarrow.parquet as pq

        rows = pq.read_table(path, columns=list(FLAT_FIELDS)).to_pylist()
    elif fmt == "yaml":
        return yaml_bindings(yaml.load(read_text(data), Loader=reference_loader(yaml)))
    elif fmt == "csv":
        rows = list(csv.DictReader(io.StringIO(read_text(data), newline="")))
    elif fmt == "json":
        rows = [{**r, "host": "*"} if r.get("host") in (None, "") else r for r in strict_json(read_text(data))]
    else:
        lines = [x for x in read_text(data).split("\n") if x.strip(" \t\r\n")]
        rows = [r for r in map(strict_json, lines) if r.get("kind") is None]
    return {key(*[r[f] for f in FLAT_FIELDS]) for r in rows}


def yaml_bindings(doc: dict) -> set:
    out = set()
    for entry in doc.get("acls") or []:
        for perm in ("allow", "deny"):
            for res in entry.get(perm) or []:
                (rkey,) = [k for k in res if k in RESOURCE_KEYS]
                name = "kafka-cluster" if res[rkey] is True else res[rkey]
                for op in res.get("operations") or ["All"]:
                    for host in res.get("hosts") or entry.get("hosts") or ["*"]:
                        out.add(key(entry["principal"], host, op, perm, RESOURCE_KEYS[rkey], name,
                                    res.get("pattern", "literal")))
    return out


# ------------------------------------------------------------------------------------------ the cases


def make_case(tmp: Path, fmt: str, i: int) -> tuple[Path, Path | None, str]:
    rng = random.Random(f"{SEED}:{fmt}:{i}")
    doc, scope_doc = build(rng, fmt)
    what = []
    if rng.random() < 0.45:
        what.append(mutate_structure(rng, doc, scope_doc))
    path = tmp / f"case{i}.{fmt}"
    serialise(rng, fmt, (doc, scope_doc) if fmt == "parquet" else doc, path)
    scope_file = None
    if fmt == "csv":
        import yaml

        scope_file = tmp / f"case{i}-scope.yaml"
        text = yaml.safe_dump(scope_doc, sort_keys=False, width=10_000).replace("__DUP__", "")
        scope_file.write_bytes(text.replace("__DEEP__", deep(rng.choice([10, 100_000])))
                               .encode("utf-8", "surrogatepass"))
    if rng.random() < 0.55 or not what:
        target = scope_file if scope_file is not None and rng.random() < 0.3 else path
        data, how = mutate_bytes(rng, target.read_bytes())
        target.write_bytes(data)
        what.append(f"{target.name}: {how}")
    return path, scope_file, "; ".join(what)


def one_line_naming(message: str, *paths: Path) -> bool:
    return "\n" not in message and any(str(p) in message for p in paths if p is not None)


def check_desired_state(fmt: str, path: Path, scope_file: Path | None, ctx: str) -> None:
    """kafkactl.desired.state.load, the in-process engine; and for flat files the head read the Spark and Arrow
    engines start from, and the Arrow reader, which must agree with it."""
    args = ([str(path)], str(scope_file) if scope_file else None)
    python_failure = None
    try:
        state = read_state(*args)
    except StateFileError as exc:
        assert one_line_naming(exc.message, path, scope_file), f"{ctx}: {exc.message!r}"
        state, python_failure = None, exc.message
    if state is not None:
        expected = stated_scope(fmt, path, scope_file)
        assert expected is not None, f"{ctx}: loaded, but the file states no exact scope: {state.scope.to_json()}"
        assert strict_scope(state.scope.to_json()) == expected, f"{ctx}: scope {state.scope.to_json()} != {expected}"
        assert {binding_key(b) for b in state.bindings} == stated_bindings(fmt, path), ctx
        for b in state.bindings:
            assert not any(CONTROL.search(x) for x in (b.principal, b.host, b.resource_name)), f"{ctx}: {b}"
    if fmt in ("yaml", "json"):
        return
    try:
        head = read_state(*args, flat_rows=False)
        if state is not None:
            assert head.scope == state.scope, ctx
        table = read_flat(str(path), head.scope)
    except StateFileError as exc:
        assert one_line_naming(exc.message, path, scope_file), f"{ctx}: {exc.message!r}"
        assert state is None, f"{ctx}: the Arrow reader refused what the Python loader read: {exc.message}"
        return
    if state is None and python_failure and "nested deeper than" in python_failure:
        return  # known: a field no engine reads, nested past Python's recursion limit; Arrow skips it unparsed
    assert state is not None, f"{ctx}: the Arrow reader read what the Python loader refused: {python_failure}"
    rows = {key(*[r[f] for f in FLAT_FIELDS]) for r in table.to_pylist()}
    assert rows == {binding_key(b) for b in state.bindings}, ctx


def check_acls_file(fmt: str, path: Path, i: int, ctx: str) -> None:
    """--acls-file through the real command tree: lint reads every row, check only the rows that can concern
    its resource (the byte scan); both exit 0 / 8 or exit 2 with one line naming the file, never 1."""
    try:
        whole = load_acl_set(str(path))
        failure = None
    except StateFileError as exc:
        assert one_line_naming(exc.message, path), f"{ctx}: {exc.message!r}"
        whole, failure = None, exc.message
    if whole is not None:
        assert {binding_key(b) for b in whole} == stated_bindings(fmt, path), ctx
        for b in whole:
            assert not any(CONTROL.search(x) for x in (b.principal, b.host, b.resource_name)), f"{ctx}: {b}"
    if fmt == "parquet" or i % 2:
        r = run("acls", "lint", "--acls-file", str(path), "--fail-on", "never", "-o", "json")
        assert r.exit_code == (2 if failure else 0), f"{ctx}: exit {r.exit_code}: {r.stderr[-500:]}"
        if failure:  # the same fault; JSON nested near Python's recursion limit may be named differently
            assert r.stderr.startswith("error: ") and r.stderr.count("\n") == 1 and str(path) in r.stderr, \
                f"{ctx}: {r.stderr[-500:]!r}"
        return
    name = "team-a.orders"
    r = run("acls", "check", "--principal", "User:team-a-app", "--operation", "Read", "--topic", name,
            "--acls-file", str(path), "-o", "json")
    assert r.exit_code in (0, 2, 8) and "Traceback" not in r.output, f"{ctx}: exit {r.exit_code}: {r.output[-500:]}"
    if r.exit_code == 2:
        assert r.stderr.startswith("error: ") and r.stderr.count("\n") == 1 and str(path) in r.stderr, \
            f"{ctx}: {r.stderr[-500:]!r}"
        return
    decision = json.loads(r.stdout)["decision"]
    if whole is not None:
        d = Authorizer(whole).authorize("User:team-a-app", "*", AclOperation.READ, ResourceType.TOPIC, name)
        assert decision == ("ALLOWED" if d.allowed else "DENIED"), ctx
        return
    # the file is broken, yet check answered: only the byte scan may, and only past a row that cannot concern
    # the resource (rows whose name is not *, the name or a prefix of it are not read)
    assert fmt in ("json", "jsonl"), f"{ctx}: check answered {decision} from a file lint refuses: {failure}"
    names = broken_row_names(fmt, path, failure)
    assert names is not None, f"{ctx}: check answered {decision}; the whole read fails without a row: {failure}"
    assert not [n for n in names if n and (n == b"*" or name.encode().startswith(n))], \
        f"{ctx}: check answered {decision}, passing over a broken row named {names} ({failure})"


def broken_row_names(fmt: str, path: Path, failure: str) -> list | None:
    """The resource names (as bytes) in the row the whole read's error is in, nested ones too; [] if the error
    lies between rows; None if it names no place."""
    data = path.read_bytes()
    at = re.escape(str(path))
    if fmt == "jsonl":
        m = re.match(at + r":(\d+): ", failure)
        return names_in(data.split(b"\n")[int(m.group(1)) - 1]) if m else None
    text = data.decode("utf-8-sig")
    m = re.match(at + r" item (\d+): ", failure)
    if m:
        try:  # every item, whatever it is, its pairs all kept
            items = [json.dumps(x).encode() for x in json.loads(text, object_pairs_hook=lambda p: p)]
        except ValueError:  # broken further on: the objects alone
            items = [text[a:b + 1].encode() for a, b in item_spans(text)]
        return names_in(items[int(m.group(1)) - 1]) if int(m.group(1)) <= len(items) else None
    m = re.match(at + r":(\d+):(\d+): ", failure)
    if not m:
        return None
    offset = sum(len(x) + 1 for x in text.split("\n")[:int(m.group(1)) - 1]) + int(m.group(2)) - 1
    spans = [(a, b) for a, b in item_spans(text) if a < offset <= b]  # at its "{": the fault lies before it
    return names_in(text[spans[0][0]:spans[0][1] + 1].encode()) if spans else []


def names_in(row: bytes) -> list:
    """Every resource name in a row, as "resource_name": "x" or, pairs dumped as lists, ["resource_name", "x"]."""
    return re.findall(rb'"resource_name"\s*[:,]\s*"([^"]*)"', row)


def item_spans(text: str) -> list:
    """(start, end) of each object at depth 1 of a JSON list, by braces alone (the scan answers only when no
    string holds a brace; a broken string must not hide a row); an unclosed one runs to the end."""
    spans, depth, start = [], 0, -1
    for i, ch in enumerate(text):
        if ch == "{":
            depth += 1
            if depth == 1:
                start = i
        elif ch == "}" and depth:
            depth -= 1
            if depth == 0:
                spans.append((start, i))
                start = -1
    return spans + ([(start, len(text))] if start >= 0 else [])


@pytest.mark.parametrize("fmt", FORMATS)
def test_mutated_files_parse_exactly_or_exit_2_naming_the_file(tmp_path, fmt):
    cases = [int(ONLY)] if ONLY else range(CASES)
    for i in cases:
        path, scope_file, what = make_case(tmp_path, fmt, i)
        ctx = f"replay with KAFKACTL_FUZZ_SEED={SEED} KAFKACTL_FUZZ_CASE={i}, format {fmt}: {what}"
        try:
            if fmt != "json":
                check_desired_state(fmt, path, scope_file, ctx)
            check_acls_file(fmt, path, i, ctx)
        except AssertionError:
            raise
        except Exception as exc:  # anything but StateFileError escaping a reader is the bug this looks for
            raise AssertionError(f"{ctx}: {type(exc).__name__}: {exc}") from exc
        for f in (path, scope_file):
            if f is not None:
                f.unlink()
