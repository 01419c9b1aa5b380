"""The first principal TAB with many ACLs (issue 14): the principals-only read against the full read it replaced.

Loads N ACLs over 100 principals into the running sandbox (`kafkactl local up`), then interleaves, per round, the
two reads as the completion look-up makes them (a fresh client each, nothing cached): the anchor, the full
DescribeAcls through librdkafka that the look-up used before (`describe_acls(AclFilter())`), and the principals-only
read through kafka-python (`acl_principals()`). Median wall time of each and the ratio; the look-up's budget is
0.8 s. The ACLs are deleted at the end.

    kafkactl local up && .venv/bin/python bench/completion_principals.py --acls 100000 --rounds 7
"""

from __future__ import annotations

import argparse
import statistics
import time
import uuid


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--acls", type=int, default=100_000)
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args()

    from kafkactl.acl.model import AclBinding, AclFilter, AclOperation, PatternType, Permission, ResourceType
    from kafkactl.cli.lookups import LOOKUP_BUDGET
    from kafkactl.gateway import Gateway
    from kafkactl.profiles import Selection, resolve

    def gateway() -> Gateway:
        return Gateway(resolve(Selection(context="local-admin", timeout=60)))

    tag = uuid.uuid4().hex[:8]
    principals = [f"User:bench-{tag}-{i:03d}" for i in range(100)]
    admin = gateway()
    bindings = [AclBinding(ResourceType.TOPIC, f"bench-{tag}.{i}", PatternType.LITERAL, principals[i % 100], "*",
                           AclOperation.READ, Permission.ALLOW) for i in range(args.acls)]
    for k in range(0, len(bindings), 5_000):
        assert not any(admin.create_acls(bindings[k:k + 5_000]))
    times: dict[str, list[float]] = {"anchor: full read (librdkafka)": [], "principals only (kafka-python)": []}
    try:
        for _ in range(args.rounds):
            for name in times:
                gw = gateway()
                started = time.perf_counter()
                if name.startswith("anchor"):
                    found = {b.principal for b in gw.describe_acls(AclFilter())}
                else:
                    found = set(gw.acl_principals())
                times[name].append(time.perf_counter() - started)
                gw.close()
                assert set(principals) <= found
    finally:
        for k in range(0, len(principals), 10):
            admin.delete_acls([AclFilter(principal=p) for p in principals[k:k + 10]])
        admin.close()
    anchor = statistics.median(times["anchor: full read (librdkafka)"])
    print(f"\n{args.acls:,} ACLs, 100 principals, {args.rounds} interleaved rounds, budget {LOOKUP_BUDGET} s\n")
    print("| read | median | runs (min-max) | anchor / this |")
    print("|---|---|---|---|")
    for name, ts in times.items():
        m = statistics.median(ts)
        print(f"| {name} | {m:.2f} s | {min(ts):.2f}-{max(ts):.2f} s | {anchor / m:.1f}x |")


if __name__ == "__main__":
    main()
