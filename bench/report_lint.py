"""acls report and the exposure lint checks over 100,000 ACLs and 10,000 topics (issue 17): wall time of whole
kafkactl processes against the cluster, start-up included, in interleaved rounds with kafkactl's own floor:
reading the same ACLs (`acls list`) and the same topics (`topics list`), which every one of these commands does
before it decides anything.

The ACLs are bench/authz.py's role-shaped set; the topics are 10,000 of the names they use (literal and under
their prefixes), one partition each, created once in the sandbox (kept for later runs).

    kafkactl local up && .venv/bin/python bench/report_lint.py --rounds 5
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench._common import running_sandbox, wall  # noqa: E402
from bench.authz import N, corpus, load_into_cluster  # noqa: E402

BIN = Path(sys.executable).parent
TOPICS = 10_000


def topic_names(rows: list[dict], n: int, seed: int = 17) -> list[str]:
    rng = random.Random(seed)
    names = {r["resource_name"] for r in rows if r["resource_type"] == "TOPIC" and r["pattern_type"] == "LITERAL"}
    prefixes = sorted({r["resource_name"] for r in rows if r["resource_type"] == "TOPIC"
                       and r["pattern_type"] == "PREFIXED"})
    out = sorted(names)[: n // 2]
    while len(out) < n:
        out.append(f"{rng.choice(prefixes)}{rng.randrange(1_000_000)}")
        out = sorted(set(out))
    return out[:n]


def create_topics(names: list[str]) -> None:
    from kafkactl.gateway import Gateway
    from kafkactl.profiles import Selection, resolve

    gw = Gateway(resolve(Selection(context="local-admin")))
    have = {t.name for t in gw.topics()}
    todo = [t for t in names if t not in have]
    for i in range(0, len(todo), 500):
        gw.create_topics([(t, 1, 1, {}) for t in todo[i:i + 500]])
    while len(set(names) - {t.name for t in gw.topics()}) > 0:
        time.sleep(1)
    gw.close()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    running_sandbox()
    rows = corpus(N)
    topics = topic_names(rows, TOPICS)
    load_into_cluster(rows)
    create_topics(topics)
    principal = max({r["principal"] for r in rows if r["pattern_type"] == "PREFIXED"})
    topic = next(t for t in topics if any(r["resource_name"] == t for r in rows))
    k, ctx = [str(BIN / "kafkactl")], ["--context", "local-admin", "-o", "plain"]
    cases = {
        "floor: kafkactl acls list": [*k, *ctx, "acls", "list"],
        "floor: kafkactl topics list": [*k, *ctx, "topics", "list"],
        "acls report --principal P": [*k, *ctx, "acls", "report", "--principal", principal],
        "acls report --topic T": [*k, *ctx, "acls", "report", "--topic", topic],
        "acls lint (all checks)": [*k, *ctx, "acls", "lint", "--fail-on", "never"],
    }
    times: dict[str, list[float]] = {c: [] for c in cases}
    for _ in range(args.rounds):
        for name, cmd in cases.items():
            times[name].append(wall(cmd)[0])
    floor = (statistics.median(times["floor: kafkactl acls list"])
             + statistics.median(times["floor: kafkactl topics list"]))
    print(f"### acls report and lint over {len(rows):,} ACLs and {len(topics):,} topics "
          f"({time.strftime('%Y-%m-%d')}, {args.rounds} interleaved rounds)\n")
    print("| command | median | to the floor (acls list + topics list) | runs (min-max) |\n|---|---|---|---|")
    for name, ts in times.items():
        m = statistics.median(ts)
        print(f"| {name} | {m:.2f} s | {m / floor:.2f}x | {min(ts):.2f}-{max(ts):.2f} s |")


if __name__ == "__main__":
    os.environ.setdefault("KAFKACTL_OUTPUT", "plain")
    main()
