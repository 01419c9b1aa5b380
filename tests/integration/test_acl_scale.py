"""100,000 ACLs created, listed as JSON and deleted through kafkactl (chunked under the broker's limits)."""

from __future__ import annotations

import json
import time

from tests.integration.acl_helpers import snapshot, token

PRINCIPALS = 100
TOPICS = 1000


def test_one_hundred_thousand_acls(sandbox):
    t = token()
    principals = [a for i in range(PRINCIPALS) for a in ("--allow-principal", f"User:sc{t}u{i}")]
    topics = [a for j in range(TOPICS) for a in ("--topic", f"sc{t}.topic.{j:04d}")]
    t0 = time.monotonic()
    r = sandbox.as_user("admin", "-o", "json", "--timeout", "60", "acls", "create", *principals, *topics,
                        "--operation", "Read")
    created_s = time.monotonic() - t0
    assert r.exit_code == 0, r.stderr[-2000:]
    assert json.loads(r.stdout)["summary"] == {"created": PRINCIPALS * TOPICS}
    try:
        t0 = time.monotonic()
        r = sandbox.as_user("admin", "-o", "json", "--timeout", "60", "acls", "list")
        listed_s = time.monotonic() - t0
        assert r.exit_code == 0, r.stderr[-2000:]
        mine = [d for d in json.loads(r.stdout) if d["principal"].startswith(f"User:sc{t}")]
        assert len(mine) == PRINCIPALS * TOPICS
        assert {d["operation"] for d in mine} == {"READ"}
    finally:
        t0 = time.monotonic()
        filters = [a for i in range(PRINCIPALS) for a in ("--principal", f"User:sc{t}u{i}")]
        r = sandbox.as_user("admin", "-o", "json", "--timeout", "60", "acls", "delete", *filters, "--yes")
        deleted_s = time.monotonic() - t0
    assert r.exit_code == 0, r.stderr[-2000:]
    assert json.loads(r.stdout)["summary"] == {"deleted": PRINCIPALS * TOPICS}
    assert not snapshot(sandbox.gateway("admin"), f"sc{t}")
    print(f"\n100k ACLs: create {created_s:.1f} s, list {listed_s:.1f} s, delete {deleted_s:.1f} s")
