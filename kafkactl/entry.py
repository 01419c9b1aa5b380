"""The console script's entry point: a Ctrl-C while kafkactl is still importing ends as any other interrupt does
(exit 130, one line), not with a traceback from the middle of an import."""

from __future__ import annotations

import sys


def main() -> None:
    try:
        from kafkactl.cli.root import main as run
    except KeyboardInterrupt:
        sys.stderr.write("error: interrupted\n")
        raise SystemExit(130) from None
    run()
