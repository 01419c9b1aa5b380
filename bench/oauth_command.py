"""One command as an OAuth client against the same command as a SCRAM user (issue 30): `acls list` and
`topics list` through the sandbox's OAUTHBEARER and SASL_PLAINTEXT listeners, as separate processes, interleaved
rounds. The anchor is SCRAM on the same broker: what OAuth adds is a token request, and, through confluent-kafka's
token callback, the fixed second its constructor sleeps waiting for the first token (kafkactl lets librdkafka fetch
its own tokens instead). `--callback` measures that callback path too, in this process, for the record.

    kafkactl local up --oauth && .venv/bin/python bench/oauth_command.py --rounds 5
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def timed(*args: str) -> float:
    started = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "kafkactl", *args, "-o", "plain"], capture_output=True, text=True,
                       cwd=ROOT, env=os.environ)
    took = time.perf_counter() - started
    if p.returncode != 0:
        raise SystemExit(f"kafkactl {' '.join(args)} failed: {p.stderr.strip()[:300]}")
    return took


def callback_constructor() -> float:
    """confluent-kafka's AdminClient with a token callback (the token already fetched): the constructor alone."""
    sys.path.insert(0, str(ROOT))
    from confluent_kafka.admin import AdminClient

    from kafkactl.gateway import Gateway
    from kafkactl.profiles import Selection, resolve

    gw = Gateway(resolve(Selection(context="local-oauth-admin")))
    t = gw.tokens.token()
    conf = {k: v for k, v in gw.confluent_config().items() if not k.startswith(("sasl.oauthbearer.", "https."))}
    conf["oauth_cb"] = lambda _: (t.value.reveal(), t.expires_at, t.principal, {})
    started = time.perf_counter()
    AdminClient(conf)
    return time.perf_counter() - started


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--callback", action="store_true")
    a = ap.parse_args()
    results: dict[tuple[str, str], list[float]] = {}
    for _ in range(a.rounds):
        for command in (("acls", "list"), ("topics", "list")):
            for context in ("local-admin", "local-oauth-admin"):
                results.setdefault((" ".join(command), context), []).append(timed("--context", context, *command))
    print("| command | SCRAM (anchor) | OAuth | ratio (OAuth / SCRAM) |\n|---|---|---|---|")
    for command in ("acls list", "topics list"):
        scram = statistics.median(results[(command, "local-admin")])
        oauth = statistics.median(results[(command, "local-oauth-admin")])
        print(f"| {command} | {scram:.3f} s | {oauth:.3f} s | {oauth / scram:.2f}x |")
    if a.callback:
        print(f"\nconfluent-kafka AdminClient() with a token callback: {callback_constructor():.3f} s")


if __name__ == "__main__":
    main()
