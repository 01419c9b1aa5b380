"""Saved plans, one format for every kind of change (`acls plan --out DIR`, `configs plan --out DIR`).

A saved plan is a directory, owner-only, holding plan.json and the plan's changes (changes-CLUSTER.jsonl, or rows/ as
Parquet for a plan made on Spark), every file 0600. plan.json is written last, so a directory without it is an
incomplete plan, never a mix of two. It names its api_version and kind (AclPlan, ConfigPlan) and, per cluster, the
cluster's id and the fingerprint of the state the plan was made from: applied, a plan goes only to the cluster it was
made on and only while that state holds. Reading one notes every file in it as read by the command, so no output of
the command is written over the plan it applies.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from kafkactl.errors import StateFileError, UsageError
from kafkactl.limits import shown
from kafkactl.results import API_VERSION

PLAN_FILE = "plan.json"
MADE_BY = {"AclPlan": "acls plan --out", "ConfigPlan": "configs plan --out"}
APPLIED_BY = {"AclPlan": "acls apply --plan", "ConfigPlan": "configs apply --plan"}


def plan_files(d: Path, ours: frozenset[str] = frozenset()) -> list[Path] | None:
    """What a directory holds of a saved plan, or None unless it is one: a plan.json file naming a kind kafkactl saves
    (or nothing at all), and beside it only what a plan holds (changes-*.jsonl files, a rows/ directory, plan.json's
    temporary files). Only a plan may be replaced by a plan: anything else there is never removed. `ours`: names
    this command has just written there (Spark's rows/)."""
    entries = list(d.iterdir())
    meta = d / PLAN_FILE
    if any(p.name not in ours for p in entries) and not _is_plan(meta):
        return None
    found = []
    for p in entries:
        if p.is_symlink():
            return None
        if p.name in ours or p.name == PLAN_FILE or (p.name == "rows" and p.is_dir()) \
                or (p.is_file() and ((p.name.startswith("changes-") and p.name.endswith(".jsonl"))
                                     or (p.name.startswith(f".{PLAN_FILE}.") and p.name.endswith(".tmp")))):
            found.append(p)
        else:
            return None
    return found


def _is_plan(meta: Path) -> bool:
    if meta.is_symlink() or not meta.is_file():
        return False
    try:
        with meta.open("rb") as fh:
            doc = json.loads(fh.read(1 << 20))
    except (OSError, ValueError, RecursionError):
        return False
    return isinstance(doc, dict) and doc.get("kind") in MADE_BY


def _each_file(paths: Iterable[Path]) -> Iterable[Path]:
    for p in paths:
        yield from (p.rglob("*") if p.is_dir() else (p,))


def check_out_dir(plandir: str, option: str = "--out", ours: frozenset[str] = frozenset()) -> None:
    """--out names a new directory, an empty one, or one holding a saved plan (replaced whole), and no file in it is
    one the command reads: refused before any work otherwise."""
    from kafkactl.privatefile import check_not_read

    d = Path(plandir).expanduser()
    if d.is_symlink() or (d.exists() and not d.is_dir()):
        raise UsageError(f"{option} {shown(plandir)}: not a directory ({option} takes a directory to save the plan "
                         "in)")
    if d.is_dir():
        found = plan_files(d, ours)
        if found is None:
            raise UsageError(f"{option} {shown(plandir)}: the directory holds other files than a saved plan; give a "
                             "new or empty directory, or one a plan was saved in (it is replaced)")
        for f in _each_file(found):
            check_not_read(f, option)


def begin(plandir: str, keep_rows: bool = False) -> Path:
    """The directory, checked, made owner-only, emptied of the plan saved there before (`keep_rows`: but for the
    rows Spark has just written there)."""
    ours = frozenset({"rows"} if keep_rows else ())
    check_out_dir(plandir, ours=ours)
    d = Path(plandir).expanduser()
    d.mkdir(parents=True, exist_ok=True, mode=0o700)
    d.chmod(0o700)
    for p in sorted(plan_files(d, ours) or (), key=lambda p: p.name != PLAN_FILE):  # plan.json first: incomplete
        if keep_rows and p.name == "rows":
            continue
        shutil.rmtree(p) if p.is_dir() else p.unlink()
    return d


def write_lines(d: Path, name: str, lines: Iterable[str]) -> None:
    from kafkactl.privatefile import write_private

    write_private(d / name, "".join(line + "\n" for line in lines))


def finish(d: Path, meta: dict[str, Any]) -> None:
    """plan.json, written last (atomically): the plan is complete."""
    from kafkactl.privatefile import write_private

    for p in d.rglob("*"):
        p.chmod(0o700 if p.is_dir() else 0o600)  # (Spark's Parquet files are made with its own umask)
    write_private(d / PLAN_FILE, json.dumps({"api_version": API_VERSION, **meta}, indent=2) + "\n")


def read_meta(plandir: str, kind: str, option: str = "--plan") -> tuple[Path, dict[str, Any]]:
    """(the directory, plan.json) of a saved plan of `kind`; exit 7 when there is none, exit 2 naming the directory
    when it is not one kafkactl saved or was saved for the other command."""
    from kafkactl.errors import MissingFileError
    from kafkactl.privatefile import note_read

    d = Path(plandir).expanduser()
    if not d.exists():
        raise MissingFileError(f"{option} {d}: no such directory")
    if not d.is_dir():
        raise StateFileError(f"{option} {shown(plandir)}: not a directory (a saved plan is the directory "
                             f"{MADE_BY[kind]} wrote)")
    for p in d.rglob("*"):
        note_read(p)
    unreadable = f"{d}: not a readable saved plan"
    try:
        meta = json.loads((d / PLAN_FILE).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise StateFileError(f"{d}: not a saved plan (no {PLAN_FILE}); create one with kafkactl {MADE_BY[kind]} "
                             f"{d}") from None
    except (OSError, ValueError, RecursionError) as exc:
        raise StateFileError(f"{unreadable} ({PLAN_FILE}: {type(exc).__name__})") from None
    if not isinstance(meta, dict):
        raise StateFileError(f"{unreadable} ({PLAN_FILE} is no JSON object)")
    other = meta.get("kind")
    if other != kind and other in APPLIED_BY:
        raise StateFileError(f"{d}: a plan saved by kafkactl {MADE_BY[other]}, not by {MADE_BY[kind]}: apply it "
                             f"with kafkactl {APPLIED_BY[other]}")
    if other != kind:
        raise StateFileError(f"{unreadable} (kind {shown(other)}: kafkactl {MADE_BY[kind]} saves {kind})")
    if meta.get("api_version") != API_VERSION:
        raise StateFileError(f"{unreadable} (saved as {shown(meta.get('api_version'))}, this kafkactl reads "
                             f"{API_VERSION}): make the plan again")
    clusters = meta.get("clusters")
    if not isinstance(clusters, list) or not clusters or not all(isinstance(c, dict) for c in clusters):
        raise StateFileError(f"{unreadable} ({PLAN_FILE} names no clusters)")
    for c in clusters:
        cid = c.get("cluster_id", ...)
        if cid is ... or not (cid is None or isinstance(cid, str)):  # (saved before plans named their cluster)
            raise StateFileError(f"{unreadable} ({PLAN_FILE} names no cluster id for its clusters): make a new plan")
        if "fingerprint" not in c:
            raise StateFileError(f"{unreadable} ({PLAN_FILE} holds no fingerprint for cluster "
                                 f"{shown(c.get('cluster'))}): make a new plan")
    return d, meta
