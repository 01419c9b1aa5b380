"""Foreign files in, kafkactl's State document out (acls import); the cluster's ACLs out in a foreign format
(acls export --format terraform|strimzi|ksm)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from kafkactl.desired.interop import Imported
from kafkactl.errors import UsageError

if TYPE_CHECKING:
    from kafkactl.acl.model import AclBinding

SOURCES = ("ksm", "julie-ops", "kafka-gitops", "terraform", "strimzi")
TARGETS = ("terraform", "strimzi", "ksm")


def _reader(fmt: str) -> Callable[[Path, Imported], None]:
    if fmt == "ksm":
        from kafkactl.desired.interop.ksm import read_ksm
        return read_ksm
    if fmt == "julie-ops":
        from kafkactl.desired.interop.julie import read_julie
        return read_julie
    if fmt == "kafka-gitops":
        from kafkactl.desired.interop.gitops import read_gitops
        return read_gitops
    if fmt == "terraform":
        from kafkactl.desired.interop.terraform import read_terraform
        return read_terraform
    if fmt == "strimzi":
        from kafkactl.desired.interop.strimzi import read_strimzi
        return read_strimzi
    raise UsageError(f"--from {fmt!r} is not one of {', '.join(SOURCES)}")


def import_files(fmt: str, paths: list[str]) -> tuple[dict[str, Any], list[str]]:
    """A State document (AclState when the files hold only ACLs) and the notes on what was left out. Its scope is
    the principals the files name: applying it manages exactly their ACLs, as the tool it came from did."""
    from kafkactl.desired.formats.compact import to_yaml_doc
    from kafkactl.desired.state import Scope
    from kafkactl.errors import MissingFileError

    read = _reader(fmt)
    out = Imported()
    for p in paths:
        path = Path(p)
        if not path.exists():
            raise MissingFileError(f"{p}: no such file")
        read(path, out)
    principals = frozenset(b.principal for b in out.bindings)
    doc: dict[str, Any] = to_yaml_doc(out.bindings, Scope(principals=principals)) if principals else {}
    if out.topics or out.quotas or out.users or not principals:
        doc = {"apiVersion": "kafkactl/v1", "kind": "State", **{k: v for k, v in doc.items() if k not in
                                                                  ("apiVersion", "kind")}}
        for key, items in (("topics", out.topics), ("quotas", out.quotas), ("users", out.users)):
            if items:
                doc[key] = items
    _check(doc, list(paths))
    return doc, out.notes


def _check(doc: dict[str, Any], paths: list[str]) -> None:
    """What was made is a State file plan reads: checked here, so that an error names the files it came from (each
    reader checks what it reads; this catches whatever passed them)."""
    from kafkactl.desired.configs.desired import DesiredConfigs, read_document
    from kafkactl.desired.formats.yamldoc import check_schema

    where = f"{', '.join(paths)} (as imported)"
    check_schema(where, doc)
    if doc.get("kind") == "State":
        read_document(Path(where), doc, DesiredConfigs())


def export_foreign(fmt: str, bindings: list[AclBinding], quotas: dict[str, dict[str, float]], cluster: str, out: TextIO,
                   scram_users: frozenset[str] | set[str] = frozenset()) -> list[str]:
    notes: list[str] = []
    if fmt == "terraform":
        from kafkactl.desired.interop.terraform import write_terraform
        write_terraform(bindings, out, notes)
    elif fmt == "strimzi":
        from kafkactl.desired.interop.strimzi import write_strimzi
        write_strimzi(bindings, quotas, cluster, out, notes, scram_users)
    else:
        from kafkactl.desired.interop.ksm import write_ksm
        write_ksm(bindings, out)
    return notes
