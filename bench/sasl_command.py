"""One command as an OAuth client or a Kerberos principal against the same command as a SCRAM user (issue 30):
`acls list` and `topics list` through the sandbox's OAUTHBEARER (or GSSAPI) and SASL_PLAINTEXT listeners, as
separate processes of this interpreter, interleaved rounds. The anchor is SCRAM on the same broker.

OAuth adds a token request, and, through confluent-kafka's token callback, the fixed second its constructor sleeps
waiting for the first token (kafkactl lets librdkafka fetch its own tokens instead); `--callback` measures that
callback path too, in this process, for the record. Kerberos adds a kinit (a KDC round trip) and librdkafka's own
at client start, and a service ticket per broker connection; run it with the GSSAPI environment's interpreter.

    kafkactl local up --oauth && .venv/bin/python bench/sasl_command.py --rounds 5
    kafkactl local up --kerberos && .venv-gssapi/bin/python bench/sasl_command.py --mechanism kerberos
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
    ap.add_argument("--mechanism", choices=("oauth", "kerberos"), default="oauth")
    a = ap.parse_args()
    other, name = ("local-oauth-admin", "OAuth") if a.mechanism == "oauth" else ("local-kerberos-admin", "Kerberos")
    results: dict[tuple[str, str], list[float]] = {}
    for _ in range(a.rounds):
        for command in (("acls", "list"), ("topics", "list")):
            for context in ("local-admin", other):
                results.setdefault((" ".join(command), context), []).append(timed("--context", context, *command))
    print(f"| command | SCRAM (anchor) | {name} | ratio ({name} / SCRAM) |\n|---|---|---|---|")
    for command in ("acls list", "topics list"):
        scram = statistics.median(results[(command, "local-admin")])
        theirs = statistics.median(results[(command, other)])
        print(f"| {command} | {scram:.3f} s | {theirs:.3f} s | {theirs / scram:.2f}x |")
    if a.callback:
        print(f"\nconfluent-kafka AdminClient() with a token callback: {callback_constructor():.3f} s")


if __name__ == "__main__":
    main()
