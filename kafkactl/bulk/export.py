"""acls export: the cluster's ACLs in the desired-state format, so that export -> plan shows no changes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Sequence, TextIO

from kafkactl.acl.model import ResourceType, validate_principal
from kafkactl.bulk.plan import read_current
from kafkactl.bulk.state import Scope, flat_row, to_yaml_doc
from kafkactl.errors import UsageError

FORMATS = ("yaml", "jsonl", "csv", "parquet")


def export(gw, fmt: str, principals: Sequence[str], principal_prefixes: Sequence[str], prefixes: Sequence[str],
           file: str | None, stdout: TextIO) -> int:
    fmt = fmt.lower()
    if fmt not in FORMATS:
        raise UsageError(f"--format {fmt!r} is not one of {', '.join(FORMATS)}")
    if fmt == "parquet" and not file:
        raise UsageError("--format parquet needs --file PATH")
    principals = [validate_principal(p, "--principal") for p in principals]
    for option, values in (("--principal-prefix", principal_prefixes), ("--prefix", prefixes)):
        for v in values:
            if not v:
                raise UsageError(f"{option} '': an empty prefix matches everything; leave the option out instead")
    if file and Path(file).is_dir():
        raise UsageError(f"--file {file}: is a directory")
    types = [t for t in ResourceType if t not in (ResourceType.ANY, ResourceType.UNKNOWN)]
    scope = Scope(frozenset(principals), tuple(principal_prefixes),
                  {t: tuple(prefixes) for t in types} if prefixes else {})
    if not scope.declared():
        scope = Scope(principal_prefixes=("",))  # everything: every principal starts with ""
    bindings = sorted(b for b in read_current(gw) if scope.contains(b))
    if fmt == "parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        table = pa.Table.from_pylist([flat_row(b) for b in bindings],
                                     schema=pa.schema([(f, pa.string()) for f in flat_row(bindings[0]).keys()])
                                     if bindings else None)
        table = table.replace_schema_metadata({"kafkactl.scope": json.dumps(scope.to_json())})
        pq.write_table(table, file)
        return len(bindings)
    out = open(file, "w", encoding="utf-8") if file else stdout
    try:
        if fmt == "yaml":
            import yaml

            yaml.safe_dump(to_yaml_doc(bindings, scope), out, sort_keys=False, default_flow_style=False, width=120)
        elif fmt == "jsonl":
            out.write(json.dumps({"kind": "scope", **scope.to_json()}) + "\n")
            for b in bindings:
                out.write(json.dumps(flat_row(b)) + "\n")
        else:
            import csv

            w = csv.writer(out, lineterminator="\n")
            w.writerow(list(flat_row(bindings[0]).keys()) if bindings else
                       ["principal", "host", "operation", "permission", "resource_type", "resource_name", "pattern_type"])
            for b in bindings:
                w.writerow(flat_row(b).values())
    finally:
        if file:
            out.close()
    return len(bindings)
