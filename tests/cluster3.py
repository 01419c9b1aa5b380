"""What the tests and benchmarks on a sandbox of several brokers share: an admin's gateway, a broker frozen
(SIGSTOP) and thawed, the wait until it answers again, the quorum's leader, and the admin's client properties for
addresses kafkactl has no context for (the fault proxy's)."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from typing import Any


def gateway(state: Any, user: str = "admin", password: str | None = None, timeout: float = 10) -> Any:
    """A gateway of `user` (SCRAM-SHA-512 on the sandbox's SASL listener), its own view of the brokers."""
    from kafkactl.gateway import Gateway
    from kafkactl.profiles import Profile
    from kafkactl.redact import Secret

    return Gateway(Profile(bootstrap_servers=state.bootstrap, security_protocol="SASL_PLAINTEXT",
                           sasl_mechanism="SCRAM-SHA-512", username=user,
                           password=Secret(state.passwords[user] if password is None else password), timeout=timeout))


def freeze(sb: Any, node_id: int, frozen: bool) -> None:
    """Stop (SIGSTOP) or continue a node's whole process group: a long GC pause, a stopped VM."""
    os.killpg(sb.node(node_id).pid, signal.SIGSTOP if frozen else signal.SIGCONT)


def answering_again(state: Any, node_id: int, within: float = 120) -> None:
    """Until a thawed (or restarted) broker answers by its id and the cluster lists it (unfenced, when it had
    been fenced)."""
    from kafkactl.acl.model import AclFilter

    deadline = time.monotonic() + within
    while True:
        admin = gateway(state)  # (a fresh one each time: its own view of the brokers)
        try:
            admin.describe_acls(AclFilter(principal="User:nobody"), node=node_id)
            if node_id in {n.id for n in admin.live_brokers()}:
                return
        except Exception:
            if time.monotonic() > deadline:
                raise
        finally:
            admin.close()
        time.sleep(0.2)


def quorum_leader(state: Any) -> int | None:
    """The active controller, as DescribeQuorum gives it (None: no leader right now)."""
    gw = gateway(state)
    try:
        return gw.describe_quorum().leader_id
    except Exception:  # noqa: BLE001 - an election under way
        return None
    finally:
        gw.close()


def admin_properties(state: Any, path: Path) -> Path:
    """The admin's client properties (SCRAM-SHA-512 over SASL_PLAINTEXT), 0600, for `--command-config`."""
    path.write_text("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-512\n"
                    "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required "
                    f'username="admin" password="{state.passwords["admin"]}";\n')
    path.chmod(0o600)
    return path
