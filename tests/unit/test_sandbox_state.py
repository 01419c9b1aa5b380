"""A sandbox's state.json edited by hand or damaged: every field is checked on load, so a version never becomes a
path, a port out of range never reaches a socket, and a sandbox of no nodes never rewrites the contexts."""

from __future__ import annotations

import json

import pytest

from kafkactl.errors import SandboxError
from kafkactl.local.sandbox import Sandbox

GOOD = {"cluster_id": "abc", "passwords": {"admin": "pw-admin-1234"}, "kafka_version": "4.4.0", "tls": False,
        "nodes": [{"node_id": 1, "roles": "broker,controller", "port": 9092, "controller_port": 9093, "pid": 1234}]}


def _with(path: str, value):
    data = json.loads(json.dumps(GOOD))
    target = data
    keys = path.split(".")
    for k in keys[:-1]:
        target = target[int(k)] if k.isdigit() else target[k]
    target[keys[-1]] = value
    return data


@pytest.mark.parametrize("data, why", [
    (_with("kafka_version", "../../../../etc"), "bad kafka_version"),
    (_with("kafka_version", "9.9.9"), "bad kafka_version"),
    (_with("nodes.0.pid", "1234"), "bad pid"),
    (_with("nodes.0.pid", -1), "bad pid"),
    (_with("nodes.0.port", "abc"), "bad port"),
    (_with("nodes.0.port", 70000), "bad port"),
    (_with("nodes.0.port", None), "bad port"),
    (_with("nodes.0.port", True), "bad port"),
    (_with("nodes", []), "bad nodes"),
    (_with("nodes.0.roles", "broker"), "bad nodes"),  # no controller left
    (_with("nodes.0.roles", "root"), "bad nodes"),  # neither broker nor controller
    (_with("tls", "no"), "bad cluster_id or tls"),
    (_with("tls", True), "bad tls_port"),  # a TLS sandbox's brokers have TLS ports
    (_with("passwords", {"admin": 5}), "bad passwords"),
    (_with("passwords", []), "bad passwords"),
    (_with("cluster_id", ""), "bad cluster_id or tls"),
    ({**GOOD, "nodes": [GOOD["nodes"][0], GOOD["nodes"][0]]}, "bad node_id"),
    ({**GOOD, "unknown": 1}, "TypeError"),
    ([], "KeyError"),
])
def test_a_damaged_state_file_is_one_line_naming_the_bad_field(tmp_path, data, why):
    sb = Sandbox(tmp_path)
    sb.state_file.parent.mkdir(parents=True, exist_ok=True)
    sb.state_file.write_text(json.dumps(data))
    with pytest.raises(SandboxError, match=rf"state\.json is damaged \({why}\); run kafkactl local down --purge"):
        sb.load_state()


def test_a_good_state_file_loads(tmp_path):
    sb = Sandbox(tmp_path)
    sb.state_file.parent.mkdir(parents=True, exist_ok=True)
    sb.state_file.write_text(json.dumps(GOOD))
    state = sb.load_state()
    assert state is not None and state.bootstrap == "127.0.0.1:9092"


def test_state_bytes_that_are_not_utf8(tmp_path):
    sb = Sandbox(tmp_path)
    sb.state_file.parent.mkdir(parents=True, exist_ok=True)
    sb.state_file.write_bytes(b'{"cluster_id": "\xff"}')
    with pytest.raises(SandboxError, match="is damaged"):
        sb.load_state()


def test_the_holder_of_a_port_is_found_while_its_threads_open_and_close_sockets():
    """local up names the process holding a port of the kept sandbox. A descriptor the holder closes between /proc
    listing it and kafkactl reading it (client threads reconnecting, in a test worker) once hid the whole process:
    CI saw "another process" where the holder was the test itself. 300 sockets below the holder's descriptor, then
    threads opening and closing 200 at a time."""
    import socket
    import threading
    import time

    from kafkactl.local.process import port_holder

    filler = [socket.socket() for _ in range(300)]
    holder = socket.socket()
    holder.bind(("127.0.0.1", 0))
    holder.listen()
    for s in filler:
        s.close()
    stop = threading.Event()

    def churn() -> None:
        while not stop.is_set():
            opened = [socket.socket() for _ in range(200)]
            time.sleep(0.0005)
            for s in opened:
                s.close()
            time.sleep(0.0005)

    threads = [threading.Thread(target=churn, daemon=True) for _ in range(2)]
    for t in threads:
        t.start()
    try:
        found = [port_holder(holder.getsockname()[1]) for _ in range(40)]
    finally:
        stop.set()
        for t in threads:
            t.join()
        holder.close()
    import os

    assert all(f and f.startswith(f"process {os.getpid()} (") for f in found), found
