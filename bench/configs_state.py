"""Desired-state configs at scale: `configs export` and `configs plan` of N topics' configs, and an apply that
changes every one of them (batched IncrementalAlterConfigs), against kafka-configs.sh describing the same topics
(`--describe --entity-type topics`, which asks for each topic's configs in a request of its own).

Each topic carries one explicit config. Interleaved rounds, process start to exit for every program. Needs a
running sandbox: for 20,000 topics one of 3 brokers (each broker holds an open file per partition, and this
machine's limit is 20,000 open files per process, which one broker holding them all exceeds).

    kafkactl local up --brokers 3 && .venv/bin/python bench/configs_state.py --topics 20000 --rounds 3
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PREFIX = "bench.cfg."


def timed(cmd: list[str], ok: tuple[int, ...] = (0, 2)) -> float:
    t = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if p.returncode not in ok:
        sys.exit(f"failed ({p.returncode}): {' '.join(cmd[:6])}: {p.stderr[-800:]}")
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--topics", type=int, default=20000)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()

    from kafkactl.gateway import Gateway
    from kafkactl.local.assembly import ensure_kafka, java_command
    from kafkactl.profiles import Selection, resolve

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from _common import running_sandbox

    sb, state, libs = running_sandbox()
    gw = Gateway(resolve(Selection(context="local-admin", timeout=300)))
    names = [f"{PREFIX}{i:05d}" for i in range(args.topics)]
    have = {t.name for t in gw.topics() if t.name.startswith(PREFIX)}
    missing = [n for n in names if n not in have]
    for start in range(0, len(missing), 1000):
        errors = gw.create_topics([(n, 1, 1, {"retention.ms": "86400000"}) for n in missing[start:start + 1000]])
        errors = [e for e in errors.values() if e and e.code != 36]  # 36: made by an earlier, interrupted run
        assert not errors, errors[:3]
    while missing:  # until the metadata every broker answers with holds them all
        time.sleep(1)
        have = {t.name for t in gw.topics() if t.name.startswith(PREFIX)}
        missing = [n for n in names if n not in have]
    time.sleep(5)
    total = len(gw.topics())
    kafkactl = str(Path(sys.executable).with_name("kafkactl"))
    work = Path(tempfile.mkdtemp(prefix="kafkactl-bench-"))
    state_file = work / "topics.yaml"
    export = [kafkactl, "--context", "local-admin", "--timeout", "300", "configs", "export", "--section", "topics",
              "--prefix", PREFIX, "--file", str(state_file)]
    plan = [kafkactl, "--context", "local-admin", "--timeout", "300", "-o", "json", "configs", "plan",
            str(state_file), "--detailed-exitcode"]
    # kafka-configs.sh runs kafka.admin.ConfigCommand, which lives in the broker's jar (kafka_2.13) up to 4.3
    # (4.4.0's has moved it out), so the 4.3.1 jars run it, against whichever broker the sandbox runs
    anchor = java_command(ensure_kafka("4.3.1"), "kafka.admin.ConfigCommand", "--bootstrap-server",
                          state.bootstrap, "--command-config", str(sb.client_properties("admin")),
                          "--describe", "--entity-type", "topics",
                          extra=(f"-Dlog4j2.configurationFile={sb.home / 'log4j2.properties'}",))
    res: dict[str, list[float]] = {"export": [], "plan": [], "kafka-configs.sh": []}
    for _ in range(args.rounds):
        res["export"].append(timed(export))
        res["plan"].append(timed(plan))
        res["kafka-configs.sh"].append(timed(anchor))
    # the apply: every topic's value changed (batched requests spread over the brokers), returning when the
    # controller has taken them (--no-wait); then changed back, waiting until every broker shows it (the brokers
    # apply the controller's records topic by topic: tens of seconds for 20,000 here)
    import yaml

    doc = yaml.safe_load(state_file.read_text())
    now = str(doc["topics"][0]["configs"]["retention.ms"])
    other = "43200000" if now != "43200000" else "86400000"
    for value, label, extra in ((other, "apply --no-wait (change every topic)", ["--no-wait"]),
                                (now, "apply (change back, until the brokers show it)", [])):
        for t in doc["topics"]:
            t["configs"] = {"retention.ms": value}
        state_file.write_text(yaml.safe_dump(doc))
        res[label] = [timed([kafkactl, "--context", "local-admin", "--timeout", "300", "configs", "apply",
                             str(state_file), "--yes", *extra], ok=(0,))]
        time.sleep(60)  # until the brokers have applied it: the next run starts from a settled cluster
    med = {k: statistics.median(v) for k, v in res.items()}
    print(f"### configs export / plan / apply over {args.topics:,} topics with one config each ({total:,} topics on "
          f"the cluster; {args.rounds} interleaved rounds, {time.strftime('%Y-%m-%d')})\n")
    print("| program | median | runs | kafka-configs.sh / it |\n|---|---|---|---|")
    for k, v in res.items():
        print(f"| {k} | {med[k]:.2f} s | {', '.join(f'{x:.2f}' for x in v)} | "
              f"{med['kafka-configs.sh'] / med[k]:.1f}x |")
    import shutil

    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
