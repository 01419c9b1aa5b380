"""kafka-security-manager's CSV: KafkaPrincipal,ResourceType,PatternType,ResourceName,Operation,PermissionType,Host
(a header line, then one ACL per row; a principal holding commas, a certificate DN, is quoted as CSV quotes)."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from pathlib import Path
from typing import TextIO

from kafkactl.acl.model import AclBinding, parse_operation, parse_pattern_type, parse_permission, parse_resource_type
from kafkactl.desired.formats.text import decode, read_bytes
from kafkactl.desired.interop import Imported
from kafkactl.desired.state import checked_binding, checked_principal
from kafkactl.errors import KafkactlError, StateFileError

HEADER = ("KafkaPrincipal", "ResourceType", "PatternType", "ResourceName", "Operation", "PermissionType", "Host")


def read_ksm(path: Path, out: Imported) -> None:
    """Columns by their header names (any order; PatternType may be left out: LITERAL). The delimiter is what
    follows KafkaPrincipal in the header, since kafka-security-manager lets it be set (`?` keeps DNs whole)."""
    text = decode(read_bytes(path), path)
    first = text.split("\n", 1)[0]
    at = first.find("KafkaPrincipal")
    delimiter = first[at + len("KafkaPrincipal")] if at >= 0 and len(first) > at + len("KafkaPrincipal") else ","
    rows = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    try:
        header = [h.strip() for h in next(rows, None) or []]
        missing = [h for h in HEADER if h not in header and h != "PatternType"]
        if missing or len(set(header)) != len(header):
            raise StateFileError(f"{path}:1: not a kafka-security-manager CSV header: "
                                 f"{'missing ' + ', '.join(missing) if missing else 'a column is named twice'} "
                                 f"(expected {','.join(HEADER)})")
        index = {h: header.index(h) for h in HEADER if h in header}
        for row in rows:
            where = f"{path}:{rows.line_num}"
            if not any(c.strip() for c in row):
                continue
            if len(row) != len(header):
                raise StateFileError(f"{where}: {len(row)} fields, {len(header)} expected ({delimiter.join(header)})")
            values = [row[index[h]] if h in index else "LITERAL" for h in HEADER]
            out.add(_binding(where, values), where)
    except csv.Error as exc:
        raise StateFileError(f"{path}:{rows.line_num}: not valid CSV ({exc})") from None


def _binding(where: str, row: list[str]) -> AclBinding:
    principal, rtype, pattern, name, op, perm, host = (c.strip() for c in row)
    principal = checked_principal(where, principal, "KafkaPrincipal")
    try:
        rt = parse_resource_type(rtype, "ResourceType")
        permission = parse_permission(perm, "PermissionType")
        parse_operation(op, "Operation")
        parse_pattern_type(pattern, for_create=True, option="PatternType")
    except KafkactlError as exc:
        raise StateFileError(f"{where}: {exc.message}") from None
    return checked_binding(where, principal, host or "*", op, permission, rt, name, pattern, name_field="ResourceName")


def write_ksm(bindings: Iterable[AclBinding], out: TextIO) -> None:
    w = csv.writer(out, lineterminator="\n")
    w.writerow(HEADER)
    for b in sorted(bindings):
        w.writerow((b.principal, b.resource_type.pascal, b.pattern_type.name, b.resource_name,
                    b.operation.pascal, b.permission.pascal, b.host))

