"""acls export: the cluster's ACLs in the desired-state format, so that export -> plan shows no changes."""

from __future__ import annotations

from pathlib import Path
from typing import Sequence, TextIO

from kafkactl.acl.model import ResourceType, validate_principal
from kafkactl.bulk.plan import read_current
from kafkactl.bulk.state import Scope
from kafkactl.bulk.formats import FORMATS, write
from kafkactl.errors import UsageError

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
    write(bindings, scope, fmt, file, stdout)
    return len(bindings)
