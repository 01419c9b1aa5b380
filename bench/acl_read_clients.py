"""Which client reads a large ACL set fastest? (issue 3: measure, then use the winner)

Creates N literal TOPIC ACLs under a prefix (if not there yet), then times, interleaved:
  - confluent-kafka describe_acls(ANY filter)
  - kafka-python DescribeAcls through its protocol classes (what kafkactl's gateway uses)
Usage: python bench/acl_read_clients.py --context local-admin -n 100000 [--rounds 3]
"""

from __future__ import annotations

import argparse
import statistics
import time


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--context", default="local-admin")
    ap.add_argument("-n", type=int, default=100_000)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()

    from kafkactl.gateway import Gateway
    from kafkactl.profiles import Selection, resolve

    gw = Gateway(resolve(Selection(context=args.context, timeout=120)))
    from kafka.protocol.admin import CreateAclsRequest, DescribeAclsRequest

    kp = gw.kafka_python
    C = CreateAclsRequest.AclCreation
    have = _kp_count(kp, DescribeAclsRequest)
    if have < args.n:
        t = time.perf_counter()
        for start in range(have, args.n, 5000):
            creations = [C(resource_type=2, resource_name=f"bench.acl.{i:07d}", resource_pattern_type=3,
                           principal=f"User:bench{i % 97}", host="*", operation=3, permission_type=3)
                         for i in range(start, min(args.n, start + 5000))]
            resp = kp._manager.run(kp._manager.send, CreateAclsRequest(creations=creations))
            assert all(r.error_code == 0 for r in resp.results)
        print(f"created {args.n - have} ACLs in {time.perf_counter() - t:.1f} s")

    from confluent_kafka.admin import (
        AclBindingFilter,
        AclOperation,
        AclPermissionType,
        ResourcePatternType,
        ResourceType,
    )

    anyf = AclBindingFilter(ResourceType.ANY, None, ResourcePatternType.ANY, None, None, AclOperation.ANY,
                            AclPermissionType.ANY)
    times: dict[str, list[float]] = {"confluent-kafka": [], "kafka-python": []}
    counts: dict[str, int] = {}
    for _ in range(args.rounds):
        t = time.perf_counter()
        n = len(gw.result(gw.admin.describe_acls(anyf, request_timeout=120), "describe ACLs"))
        times["confluent-kafka"].append(time.perf_counter() - t)
        counts["confluent-kafka"] = n
        t = time.perf_counter()
        counts["kafka-python"] = _kp_count(kp, DescribeAclsRequest)
        times["kafka-python"].append(time.perf_counter() - t)
    for name, ts in times.items():
        print(f"{name:16s} median {statistics.median(ts):6.2f} s  "
              f"runs {[round(x, 2) for x in ts]}  ACLs {counts[name]}")
    ratio = statistics.median(times["confluent-kafka"]) / statistics.median(times["kafka-python"])
    print(f"confluent-kafka / kafka-python = {ratio:.2f}")


def _kp_count(kp, DescribeAclsRequest) -> int:
    req = DescribeAclsRequest(resource_type_filter=1, resource_name_filter=None, pattern_type_filter=1,
                              principal_filter=None, host_filter=None, operation=1, permission_type=1)
    resp = kp._manager.run(kp._manager.send, req)
    return sum(len(r.acls) for r in resp.resources)


if __name__ == "__main__":
    main()
