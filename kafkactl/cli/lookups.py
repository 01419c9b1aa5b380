"""Values for shell completion that only the cluster knows: topic and group names, principals, config keys.

A shell waits for these while the operator waits for the shell, so every lookup runs under a hard budget
(LOOKUP_BUDGET, or KAFKACTL_COMPLETION_BUDGET seconds for a cluster at the far end of a slow link): a slow or
down cluster yields nothing rather than a hung prompt. Answers are cached per
cluster for CACHE_TTL seconds in the user's cache directory, so repeated TABs cost a file read.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from kafkactl.profiles import Selection

CACHE_TTL = 30.0
LOOKUP_BUDGET = 0.8  # seconds, connection included
MAX_VALUES = 5000


def lookup_budget() -> float:
    """KAFKACTL_COMPLETION_BUDGET (0.1-10 s) when set to a number in range, else LOOKUP_BUDGET: completion never
    reports an error, so a bad value is ignored rather than refused."""
    try:
        value = float(os.environ.get("KAFKACTL_COMPLETION_BUDGET", ""))
    except ValueError:
        return LOOKUP_BUDGET
    return value if 0.1 <= value <= 10 else LOOKUP_BUDGET


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "kafkactl" / "completion"


def cluster_key(selection: Selection) -> str:
    """The cache key of the cluster a command line points at (context or bootstrap servers, never secrets)."""
    from kafkactl.profiles import selection_from_env

    sel = selection_from_env(selection)
    if sel.bootstrap_servers:
        return "bootstrap:" + sel.bootstrap_servers
    if sel.context:
        return "context:" + sel.context
    return "current:" + _current_context_name()


def _current_context_name() -> str:
    from kafkactl.profiles import ContextStore

    try:
        return ContextStore.load().current or ""
    except Exception:
        return ""


def cached(kind: str, selection: Selection, fetch: Callable[[Selection], list[str]],
           ttl: float = CACHE_TTL, budget: float | None = None) -> list[str]:
    """`fetch` under the budget, through the cache; any failure (down, refused, not authorized) is []."""
    budget = lookup_budget() if budget is None else budget
    key = f"{cluster_key(selection)}|{kind}"
    path = cache_dir() / (hashlib.sha256(key.encode()).hexdigest()[:24] + ".json")
    try:
        if time.time() - path.stat().st_mtime < ttl:
            return json.loads(path.read_text(encoding="utf-8"))["values"]
    except (OSError, ValueError, KeyError):
        pass
    values = within(budget, lambda: fetch(replace(selection, timeout=budget)))
    if values is None:
        return []
    values = sorted(set(values))[:MAX_VALUES]
    _write_private(path, json.dumps({"key": key, "values": values}))
    return values


def within(budget: float, fn: Callable[[], list[str]]) -> list[str] | None:
    """fn() on a daemon thread; None when it fails or outlives the budget (the thread is abandoned)."""
    box: list = []

    def run() -> None:
        try:
            box.append(fn())
        except BaseException:  # completion must never print a traceback into the shell
            box.append(None)

    t = threading.Thread(target=run, name="kafkactl-complete", daemon=True)
    t.start()
    t.join(budget)
    return box[0] if box else None


def _write_private(path: Path, text: str) -> None:
    from kafkactl.privatefile import write_private

    try:
        write_private(path, text)
    except OSError:
        pass  # a read-only home still completes, just without a cache


# ------------------------------------------------------------------------------------------ lookups


def _gateway(selection: Selection):
    from kafkactl.gateway import Gateway
    from kafkactl.profiles import resolve

    return Gateway(resolve(selection))


def topic_names(selection: Selection) -> list[str]:
    return [t.name for t in _gateway(selection).topics()]


def group_names(selection: Selection) -> list[str]:
    return [g.group_id for g in _gateway(selection).list_groups()]


def principals(selection: Selection) -> list[str]:
    """Principals seen in ACLs (needs Describe on the cluster; without it, nothing)."""
    return _gateway(selection).acl_principals()


def config_keys(selection: Selection, resource_type: int, name: str) -> list[str]:
    """The keys the broker reports for one entity (every key it knows, set or default)."""
    out = _gateway(selection).describe_configs([(resource_type, name)])
    entries = out.get((resource_type, name))
    return [] if isinstance(entries, Exception) or entries is None else [e.name for e in entries]


def context_names() -> list[str]:
    from kafkactl.profiles import ContextStore

    try:
        return sorted(ContextStore.load().contexts)
    except Exception:
        return []


def matching(values: list[str], incomplete: str) -> list[str]:
    return [v for v in values if v.startswith(incomplete)]
