"""Generate a desired state for a few teams (JSONL, one binding per line, scope line first).

    python scripts/gen_desired.py --teams 4 --apps 25 --topics 250 > teams.jsonl    # 50,000 bindings
"""

from __future__ import annotations

import argparse
import json
import sys


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--teams", type=int, default=4)
    ap.add_argument("--apps", type=int, default=25, help="principals per team")
    ap.add_argument("--topics", type=int, default=250, help="topics per team")
    ap.add_argument("--prefix", default="team")
    args = ap.parse_args()
    teams = [f"{args.prefix}{chr(ord('a') + i)}" for i in range(args.teams)]
    out = sys.stdout
    out.write(json.dumps({"kind": "scope", "principalPrefixes": [f"User:{t}-" for t in teams]}) + "\n")

    def row(principal, op, perm, rtype, name, pattern="LITERAL"):
        out.write(json.dumps({"principal": principal, "host": "*", "operation": op, "permission": perm,
                              "resource_type": rtype, "resource_name": name, "pattern_type": pattern}) + "\n")

    for t in teams:
        for a in range(args.apps):
            p = f"User:{t}-app-{a}"
            for j in range(args.topics):
                row(p, "READ" if a % 2 else "WRITE", "ALLOW", "TOPIC", f"{t}.t{j:04d}")
            row(p, "DESCRIBE", "ALLOW", "TOPIC", f"{t}.", "PREFIXED")
            row(p, "READ", "ALLOW", "GROUP", f"{t}.app-{a}")
            row(p, "READ", "DENY", "TOPIC", f"{t}.secrets")
            row(p, "IDEMPOTENT_WRITE", "ALLOW", "CLUSTER", "kafka-cluster")


if __name__ == "__main__":
    main()
