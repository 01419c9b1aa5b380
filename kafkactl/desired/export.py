"""acls export: the cluster's ACLs in the desired-state format, so that export -> plan shows no changes."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from kafkactl.acl.model import ResourceType, validate_principal
from kafkactl.desired.formats import FORMATS, format_of, write
from kafkactl.desired.plan import read_current
from kafkactl.desired.state import Scope
from kafkactl.errors import UsageError

if TYPE_CHECKING:
    from kafkactl.gateway import Gateway


def export(gw: Gateway, fmt: str | None, principals: Sequence[str], principal_prefixes: Sequence[str],
           prefixes: Sequence[str], file: str | None, stdout: TextIO, cluster: str = "my-cluster",
           notes: list[str] | None = None) -> int:
    from kafkactl.desired.interop.convert import TARGETS

    foreign = fmt is not None and fmt.lower() in TARGETS
    fmt = fmt.lower() if foreign and fmt else file_format(fmt, file)
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
    if foreign:
        from kafkactl.desired.interop.convert import export_foreign

        quotas = {}
        scram_users: set[str] = set()
        if fmt == "strimzi":  # a KafkaUser holds its user's quota too, and its credential's kind
            quotas = {ent[0][1]: values for ent, values in gw.describe_quotas([("user", 2, None)], strict=True)
                      if len(ent) == 1 and ent[0][1] is not None}
            for user, creds in gw.describe_scram(None).items():
                if isinstance(creds, Exception):
                    raise gw.translate(creds, "describe SCRAM credentials", needs="Describe on the Cluster")
                if any(mech == "SCRAM-SHA-512" for mech, _ in creds):  # Strimzi's only SCRAM (adversary pass)
                    scram_users.add(str(user))
        if file:
            from kafkactl.privatefile import check_not_read

            check_not_read(file, "--file")
        out = open(file, "w", encoding="utf-8") if file else stdout
        try:
            found = export_foreign(fmt, bindings, quotas, cluster, out, scram_users)
        finally:
            if file:
                out.close()
        if notes is not None:
            notes += found
        return len(bindings)
    write(bindings, scope, fmt, file, stdout)
    return len(bindings)


def file_format(fmt: str | None, file: str | None) -> str:
    """The format to write: --format, else the one --file's extension names (as plan reads it), else YAML. A
    --format the extension contradicts is refused: plan would read the file by its extension and fail."""
    by_suffix = format_of(Path(file)) if file else None
    if fmt is None:
        return by_suffix or "yaml"
    fmt = fmt.lower()
    if fmt not in FORMATS:
        raise UsageError(f"--format {fmt!r} is not one of {', '.join(FORMATS)}")
    if by_suffix is not None and by_suffix != fmt:
        raise UsageError(f"--format {fmt} with --file {file}: plan reads a {Path(file or '').suffix} file as "
                         f"{by_suffix}; name the file for its format, or leave --format out")
    return fmt
