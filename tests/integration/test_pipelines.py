"""kafkactl in real shell pipelines (bash, jq, cut, head) against the sandbox: data on stdout, untruncated."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.acl_helpers import token

BIN = Path(sys.executable).parent  # the venv's kafkactl


def sh(script: str, **env: str) -> subprocess.CompletedProcess:
    e = {**os.environ, "PATH": f"{BIN}:{os.environ['PATH']}", **env}
    return subprocess.run(["bash", "-o", "pipefail", "-c", script], capture_output=True, text=True, env=e, timeout=120)


@pytest.fixture(scope="module")
def wide(sandbox):  # noqa: ARG001 (the fixture starts the broker)
    """ACLs wider than any terminal: 120-character topic names and a DN principal full of commas."""
    t = token()
    principal = f"User:CN=svc-{t},OU=payments-platform-team,O=Example Corporation,L=Amsterdam,C=NL"
    topics = [f"pipe.{t}.{'x' * 100}.{i:02d}" for i in range(12)]
    r = sh("kafkactl --context local-admin acls create --allow-principal \"$P\" --operation Read --operation Write "
           + " ".join(f"--topic {n}" for n in topics), P=principal)
    assert r.returncode == 0, r.stderr
    return principal, topics


def test_json_through_jq(wide):
    principal, topics = wide
    r = sh('kafkactl --context local-admin acls list --principal "$P" -o json '
           "| jq -r '.[] | select(.operation == \"WRITE\") | .resource_name'", P=principal)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == sorted(topics)


def test_csv_parsed_by_the_csv_module(wide):
    principal, topics = wide
    r = sh('kafkactl --context local-admin acls list --principal "$P" -o csv', P=principal)
    assert r.returncode == 0, r.stderr
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    assert len(rows) == 2 * len(topics)
    assert {row["principal"] for row in rows} == {principal}  # the commas inside it survived quoting
    assert {row["resource_name"] for row in rows} == set(topics)
    assert {row["operation"] for row in rows} == {"READ", "WRITE"}


def test_plain_through_cut_is_never_truncated(wide):
    principal, topics = wide
    # a narrow "terminal" width must not leak into a pipe
    r = sh('kafkactl --context local-admin acls list --principal "$P" | cut -f2,4 | sort -u', P=principal,
           COLUMNS="40")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [f"{n}\t{principal}" for n in sorted(topics)]
    assert "\x1b[" not in r.stdout


@pytest.mark.usefixtures("sandbox")
def test_hints_go_to_stderr_only():
    r = sh("kafkactl --context local-carol topics list -o json")
    assert r.returncode == 0
    assert json.loads(r.stdout) == []
    assert "hint:" in r.stderr


def test_no_color_and_a_forced_table_have_no_escape_codes(wide):
    principal, _ = wide
    r = sh('kafkactl --context local-admin acls list --principal "$P" -o table', P=principal, NO_COLOR="1")
    assert r.returncode == 0 and "\x1b[" not in r.stdout


def test_broken_pipe_exits_quietly(sandbox):
    t = token()
    from kafkactl.acl.model import AclBinding, AclOperation, PatternType, Permission, ResourceType

    gw = sandbox.gateway("admin")
    bs = [AclBinding(ResourceType.TOPIC, f"bp.{t}.{i:05d}.{'y' * 60}", PatternType.LITERAL, f"User:bp-{t}", "*",
                     AclOperation.READ, Permission.ALLOW) for i in range(3000)]
    assert all(e is None for e in gw.create_acls(bs))
    try:
        # 3,000 lines (> 64 KiB, the pipe buffer) into `head -1`: kafkactl gets EPIPE mid-write
        r = sh(f"kafkactl --context local-admin acls list --principal User:bp-{t} -o plain | head -1; "
               "echo \"status=${PIPESTATUS[0]}\" >&2")
        lines = r.stdout.splitlines()
        assert len(lines) == 1 and lines[0].startswith("TOPIC\tbp.")
        assert "status=141" in r.stderr
        assert "Traceback" not in r.stderr and "Broken pipe" not in r.stderr and "error" not in r.stderr
    finally:
        from kafkactl.acl.model import AclFilter

        gw.delete_acls([AclFilter(principal=f"User:bp-{t}")])
