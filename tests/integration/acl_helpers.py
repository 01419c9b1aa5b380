"""Helpers for ACL tests: snapshots of the broker's ACLs and exact clean-up."""

from __future__ import annotations

import uuid

from kafkactl.acl import ops
from kafkactl.acl.model import AclBinding, AclFilter


def token() -> str:
    return uuid.uuid4().hex[:8]


def snapshot(gw, needle: str | None = None) -> set[AclBinding]:
    """Every ACL on the broker (read as admin), optionally only those whose name or principal holds `needle`."""
    everything = set(gw.describe_acls(AclFilter()))
    if needle is None:
        return everything
    return {b for b in everything if needle in b.resource_name or needle in b.principal}


def remove_exactly(gw, bindings) -> None:
    bindings = set(bindings)
    if not bindings:
        return
    universe = snapshot(gw)
    result = ops.delete_acls(gw, ops.DeletePreview.exactly(sorted(bindings & universe), sorted(universe)))
    assert not result.failed


def scram_user(sandbox, directory, name: str):
    """A new SCRAM-SHA-512 user `name` on the sandbox (created by the admin, with a fresh registered password) and
    a gateway logged in as it; close the gateway when done."""
    from kafkactl.gateway import Gateway
    from kafkactl.profiles import Selection, resolve
    from tests.conftest import run
    from tests.secrets_sweep import new_secret

    password = new_secret(f"the password of test user {name}")
    r = run("--context", "local-admin", "configs", "alter", "--user", name, "--add-config",
            f"SCRAM-SHA-512=[password={password}]")
    assert r.exit_code == 0, r.stderr
    props = directory / f"{name}.properties"
    props.write_text("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-512\nsasl.jaas.config="
                     "org.apache.kafka.common.security.scram.ScramLoginModule required "
                     f'username="{name}" password="{password}";\n')
    props.chmod(0o600)
    return Gateway(resolve(Selection(bootstrap_servers=sandbox.bootstrap, command_config=str(props))))
