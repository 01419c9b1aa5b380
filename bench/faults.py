"""How long kafkactl takes to give up on a fault, against kafka-acls.sh (AclCommand, same jars) and against
--timeout, interleaved in one run (issue 13).

Faults: every bootstrap address refuses; the host name does not resolve; a wrong password. Both tools get the
same time budget (kafkactl --timeout T; AclCommand default.api.timeout.ms = request.timeout.ms = T s), so the
ratio shows what failing fast buys. Needs a running sandbox (`kafkactl local up`).

    .venv/bin/python bench/faults.py --rounds 3 --timeout 10
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import running_sandbox, wall  # noqa: E402

# kafka-run-class.sh's defaults, so the JVM runs as kafka-acls.sh would run it
KAFKA_RUN_CLASS_OPTS = ["-Xmx256M", "-server", "-XX:+UseG1GC", "-Djava.awt.headless=true"]


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=10.0)
    args = ap.parse_args()

    sb, state, jars = running_sandbox()
    good = f"127.0.0.1:{state.broker_port}"
    tmp = Path(tempfile.mkdtemp(prefix="kafkactl-bench-faults-"))
    ms = int(args.timeout * 1000)
    budget = f"default.api.timeout.ms={ms}\nrequest.timeout.ms={ms}\n"
    admin_props = sb.client_properties("admin").read_text()
    plain = tmp / "plain.properties"
    plain.write_text(budget)
    right = tmp / "admin.properties"
    right.write_text(admin_props + budget)
    wrong = tmp / "wrong.properties"  # the admin's file with another password: the JAAS line rewritten
    wrong.write_text("\n".join(
        "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required "
        'username="admin" password="not-the-password";' if line.startswith("sasl.jaas.config") else line
        for line in admin_props.splitlines()) + "\n" + budget)
    for p in (plain, right, wrong):
        p.chmod(0o600)

    java = [shutil.which("java"), *KAFKA_RUN_CLASS_OPTS, f"-Dlog4j2.configurationFile={sb.home / 'log4j2.properties'}",
            "-cp", f"{jars}/*", "org.apache.kafka.tools.AclCommand"]
    kafkactl = [str(Path(sys.executable).with_name("kafkactl")), "--timeout", f"{args.timeout:g}"]
    faults = {
        "connection refused": lambda: (f"127.0.0.1:{closed_port()}", plain),
        "host does not resolve": lambda: ("no-such-host.invalid:9092", plain),
        "wrong password": lambda: (good, wrong),
    }
    env = {**os.environ, "KAFKACTL_CONTEXT": ""}
    results: dict[tuple[str, str], list[float]] = {}
    for _ in range(args.rounds):
        for fault, make in faults.items():
            bootstrap, props = make()
            t, _ = wall(kafkactl + ["-b", bootstrap, "--command-config", str(props), "acls", "list"], env=env)
            results.setdefault((fault, "kafkactl"), []).append(t)
            t, _ = wall(java + ["--bootstrap-server", bootstrap, "--command-config", str(props), "--list"])
            results.setdefault((fault, "kafka-acls.sh"), []).append(t)
    shutil.rmtree(tmp)
    print(f"### Giving up on a fault ({args.rounds} interleaved rounds, budget {args.timeout:g} s, "
          f"{os.cpu_count()} cores, Kafka {state.kafka_version}, {time.strftime('%Y-%m-%d')})\n")
    print("| fault | kafkactl median | kafka-acls.sh median | ratio (kafka-acls.sh / kafkactl) | kafkactl / budget |")
    print("|---|---|---|---|---|")
    for fault in faults:
        ours = statistics.median(results[(fault, "kafkactl")])
        theirs = statistics.median(results[(fault, "kafka-acls.sh")])
        print(f"| {fault} | {ours:.2f} s | {theirs:.2f} s | {theirs / ours:.1f}x | {ours / args.timeout:.2f} |")


if __name__ == "__main__":
    main()
