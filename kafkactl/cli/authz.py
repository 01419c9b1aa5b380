"""Per-item errors of describe commands (topics, groups, configs): each reason on stderr, one exit code."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def report_errors(app_ctx: Any, errors: Sequence[Any], found: int) -> None:
    """Per-item errors on stderr; the exit code is the error's own when nothing was found, else partial."""
    from kafkactl.errors import KafkactlError, PartialFailure

    if not errors:
        return
    if found == 0 and len(errors) == 1:
        raise errors[0].error
    # each item's reason on its own line, and one `error:` line for the command (scripts read the last line)
    for e in errors:
        app_ctx.message(f"failed: {e.error.message}", "31")
    if found == 0:
        first = errors[0].error
        raise KafkactlError.like(first, f"none of the {len(errors)} could be described (each one's reason above)")
    raise PartialFailure(f"{len(errors)} of {len(errors) + found} could not be described")
