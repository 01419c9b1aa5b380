"""Apply throughput on the sandbox: kafkactl acls apply (25k creates, then 25k deletes) vs a Java
AdminClient batch loop (bench/java/AclBatchLoop.java, javac against the Maven kafka-clients jar),
interleaved on the same broker. Bindings per second of the create and delete parts.

    kafkactl local up && .venv/bin/python bench/apply_throughput.py --rounds 2
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--principals", type=int, default=50)
    ap.add_argument("--topics", type=int, default=500)
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    n = args.principals * args.topics


    from _common import compile_java, running_sandbox

    sb, state, libs = running_sandbox()
    out = compile_java(libs, "AclBatchLoop.java")
    kafkactl = [str(Path(sys.executable).with_name("kafkactl")), "--context", "local-admin", "--timeout", "120"]
    work = Path(tempfile.mkdtemp(prefix="kafkactl-bench-"))
    res: dict[str, list[float]] = {k: [] for k in ("kafkactl create", "kafkactl delete", "java create", "java delete",
                                                   "kafkactl create e2e", "kafkactl delete e2e")}
    for _ in range(args.rounds):
        prefix = f"tp{uuid.uuid4().hex[:6]}-"
        full, empty = work / f"{prefix}full.jsonl", work / f"{prefix}empty.jsonl"
        scope = json.dumps({"kind": "scope", "principalPrefixes": [f"User:{prefix}"]}) + "\n"
        with full.open("w") as fh:
            fh.write(scope)
            for i in range(args.principals):
                for j in range(args.topics):
                    fh.write(json.dumps({"principal": f"User:{prefix}{i}", "host": "*", "operation": "READ",
                                         "permission": "ALLOW", "resource_type": "TOPIC",
                                         "resource_name": f"{prefix}t{j}", "pattern_type": "LITERAL"}) + "\n")
        empty.write_text(scope)
        for label, path in (("kafkactl create", full), ("kafkactl delete", empty)):
            out_text = subprocess.run([sys.executable, str(HERE / "_apply_timed.py"), str(path)], check=True,
                                      capture_output=True, text=True).stdout
            res[label].append(float(next(x for x in out_text.splitlines() if x.startswith("RESULT")).split()[1]))
        # the same through the CLI, end to end (process start, file, sharded read, plan, apply): a second prefix
        prefix2 = "e2e" + prefix
        full2, empty2 = work / f"{prefix2}full.jsonl", work / f"{prefix2}empty.jsonl"
        full2.write_text(full.read_text().replace(prefix, prefix2))
        empty2.write_text(empty.read_text().replace(prefix, prefix2))
        for label, path in (("kafkactl create e2e", full2), ("kafkactl delete e2e", empty2)):
            t = time.perf_counter()
            subprocess.run(kafkactl + ["acls", "apply", str(path), "--yes"], check=True, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
            res[label].append(time.perf_counter() - t)
        java = subprocess.run([shutil.which("java"), "-Xmx512M", "-cp", f"{out}:{libs}/*",
                               f"-Dlog4j2.configurationFile={sb.home / 'log4j2.properties'}", "AclBatchLoop",
                               f"127.0.0.1:{state.broker_port}", str(sb.client_properties("admin")),
                               f"jv{prefix}", str(args.principals), str(args.topics)],
                              check=True, capture_output=True, text=True).stdout
        result = next(line for line in java.splitlines() if line.startswith("RESULT")).split()
        res["java create"].append(float(result[2]))
        res["java delete"].append(float(result[4]))
    print(f"### acls apply throughput, {n} bindings ({args.rounds} interleaved rounds, {time.strftime('%Y-%m-%d')})\n")
    print("| part | kafkactl apply step bindings/s | Java batch loop bindings/s | ratio (kafkactl / Java) | "
          "kafkactl CLI end to end bindings/s |\n|---|---|---|---|---|")
    for part in ("create", "delete"):
        k = n / statistics.median(res[f"kafkactl {part}"])
        j = n / statistics.median(res[f"java {part}"])
        e = n / statistics.median(res[f"kafkactl {part} e2e"])
        print(f"| {part} | {k:,.0f} | {j:,.0f} | {k / j:.2f} | {e:,.0f} |")
    print("\nThe apply step includes the confirmed barrier after each phase; the Java loop times only its create "
          "and delete calls; the end-to-end figure adds process start, loading the file, the sharded read of the "
          "current ACLs and the plan.")


if __name__ == "__main__":
    main()
