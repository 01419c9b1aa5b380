"""acls check / who-can / lint over 100,000 ACLs: wall time of whole kafkactl processes, start-up included.

The ACL set is role-shaped, as clusters hold them: service principals with kafka-acls.sh's --producer and
--consumer sets on literal and prefixed topics, their groups, IdempotentWrite for some, a few DENYs and
transactional ids, some User:* reads. It is written as JSONL (offline, --acls-file) and loaded into the sandbox
(the cluster path), then each command runs in interleaved rounds with its anchors:
- the floor, `python -c pass`, and kafkactl's own start-up, `kafkactl --version`;
- for the cluster path, the Java kafka-acls.sh listing the same resource's ACLs (--resource-pattern-type match).

    kafkactl local up && .venv/bin/python bench/authz.py --rounds 7
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench._common import running_sandbox, wall  # noqa: E402

BIN = Path(sys.executable).parent
N = 100_000


def corpus(n: int, seed: int = 8) -> list[dict]:
    rng = random.Random(seed)
    rows: dict[tuple, dict] = {}

    def add(rtype, name, principal, op, perm="ALLOW", pattern="LITERAL", host="*"):
        row = {"principal": principal, "host": host, "operation": op, "permission": perm, "resource_type": rtype,
               "resource_name": name, "pattern_type": pattern}
        rows[tuple(row.values())] = row

    i = 0
    while len(rows) < n:
        i += 1
        team, svc = f"team{rng.randrange(300)}", f"User:svc-{i:05d}"
        pattern = "PREFIXED" if rng.random() < 0.2 else "LITERAL"
        topics = ([f"{team}.{rng.choice(['orders', 'payments', 'events', 'audit'])}."] if pattern == "PREFIXED"
                  else [f"{team}.{rng.choice(['orders', 'payments', 'events', 'audit'])}.{rng.randrange(40)}"
                        for _ in range(rng.randint(1, 3))])
        if rng.random() < 0.45:  # --producer
            for t in topics:
                for op in ("WRITE", "DESCRIBE", "CREATE"):
                    add("TOPIC", t, svc, op, pattern=pattern)
            if rng.random() < 0.5:
                add("CLUSTER", "kafka-cluster", svc, "IDEMPOTENT_WRITE")
            if rng.random() < 0.1:
                add("TRANSACTIONAL_ID", f"{svc[5:]}-tx", svc, "WRITE")
                add("TRANSACTIONAL_ID", f"{svc[5:]}-tx", svc, "DESCRIBE")
        else:  # --consumer
            for t in topics:
                for op in ("READ", "DESCRIBE"):
                    add("TOPIC", t, svc, op, pattern=pattern)
            add("GROUP", f"{svc[5:]}-group", svc, "READ")
        if rng.random() < 0.04:
            add("TOPIC", topics[0], svc, "WRITE", perm="DENY", pattern=pattern, host=f"10.0.{rng.randrange(9)}.1")
        if rng.random() < 0.01:
            add("TOPIC", f"{team}.public.", "User:*", "READ", pattern="PREFIXED")
    return list(rows.values())[:n]


def load_into_cluster(bindings: list[dict]) -> None:
    from kafkactl.acl.model import AclFilter
    from kafkactl.desired.aclset import load_acl_set
    from kafkactl.gateway import Gateway
    from kafkactl.profiles import Selection, resolve

    gw = Gateway(resolve(Selection(context="local-admin")))
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as fh:
        fh.writelines(json.dumps(r) + "\n" for r in bindings)
    wanted = set(load_acl_set(fh.name))
    have = set(gw.describe_acls(AclFilter(), bulk=True))
    todo = sorted(wanted - have)
    for i in range(0, len(todo), 5000):
        assert all(e is None for e in gw.create_acls(todo[i:i + 5000]))
    while not wanted <= set(gw.describe_acls(AclFilter(), bulk=True)):
        time.sleep(0.5)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--no-cluster", action="store_true", help="only the --acls-file path")
    args = ap.parse_args()
    rows = corpus(N)
    work = Path(tempfile.mkdtemp(prefix="kafkactl-bench-authz-"))
    jsonl = work / "acls.jsonl"
    jsonl.write_text("".join(json.dumps(r) + "\n" for r in rows))
    topic = next(r["resource_name"] for r in rows if r["resource_type"] == "TOPIC" and r["operation"] == "WRITE"
                 and r["pattern_type"] == "LITERAL")
    writer = next(r["principal"] for r in rows if r["resource_name"] == topic and r["operation"] == "WRITE")
    k = [str(BIN / "kafkactl")]
    f = ["--acls-file", str(jsonl)]
    check = ["acls", "check", "--principal", writer, "--operation", "Write", "--topic", topic]
    cases = {
        "floor: python -c pass": [sys.executable, "-c", "pass"],
        "kafkactl --version": [*k, "--version"],
        "check, --acls-file": [*k, *check, *f],
        "who-can, --acls-file": [*k, "acls", "who-can", "--operation", "Write", "--topic", topic, *f],
        "lint, --acls-file (plain)": [*k, "acls", "lint", *f, "-o", "plain"],
        "lint, --acls-file (json)": [*k, "acls", "lint", *f, "-o", "json"],
    }
    if not args.no_cluster:
        sb, state, libs = running_sandbox()
        load_into_cluster(rows)
        from kafkactl.local.assembly import java_command

        ctx = ["--context", "local-admin"]
        cases.update({
            "check, cluster (MATCH filter)": [*k, *ctx, *check],
            "who-can, cluster (MATCH filter)": [*k, *ctx, "acls", "who-can", "--operation", "Write", "--topic", topic],
            "lint, cluster (plain)": [*k, *ctx, "acls", "lint", "-o", "plain"],
            "anchor: kafka-acls.sh --list --topic T --resource-pattern-type match": java_command(
                libs, "org.apache.kafka.tools.AclCommand", "--bootstrap-server", f"127.0.0.1:{state.broker_port}",
                "--command-config", str(sb.home / "client-admin.properties"), "--list", "--topic", topic,
                "--resource-pattern-type", "match"),
        })
    times: dict[str, list[float]] = {c: [] for c in cases}
    for _ in range(args.rounds):
        for name, cmd in cases.items():
            times[name].append(wall(cmd)[0])
    floor = statistics.median(times["floor: python -c pass"])
    print(f"### acls check / who-can / lint over {len(rows):,} ACLs ({time.strftime('%Y-%m-%d')}, "
          f"{args.rounds} interleaved rounds)\n")
    print("| command | median | ratio to the floor | runs (min-max) |\n|---|---|---|---|")
    for name, ts in times.items():
        m = statistics.median(ts)
        print(f"| {name} | {m * 1000:.0f} ms | {m / floor:.1f}x | {min(ts) * 1000:.0f}-{max(ts) * 1000:.0f} ms |")
    lint = subprocess.run([*k, "acls", "lint", *f], capture_output=True, text=True)
    print(f"\nlint's summary on this set: {lint.stderr.strip().splitlines()[-1]}")


if __name__ == "__main__":
    os.environ.setdefault("KAFKACTL_OUTPUT", "plain")
    main()
