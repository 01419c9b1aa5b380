"""Rendering authorized operations and per-item errors, shared by cluster, topics, groups and auth."""

from __future__ import annotations

from typing import Any, Sequence

from kafkactl.formatters import OutputFormat


def render_ops(app_ctx: Any, data: Any, items: Sequence[tuple[str, Any]], title: str | None = None) -> None:
    """JSON/YAML: the full descriptions. Table: a detail view for one resource, a matrix for several
    (with a legend). Plain/CSV: one line per resource and operation."""
    from kafkactl.formatters import authz

    if app_ctx.output in (OutputFormat.json, OutputFormat.yaml):
        app_ctx.render(data)
    elif app_ctx.output is OutputFormat.table:
        if len(items) == 1:
            app_ctx.render(authz.detail(*items[0]))
        elif items:
            app_ctx.render(authz.matrix(items, title))
        if items:
            app_ctx.console.print(authz.LEGEND, style="dim", highlight=False)
    else:
        app_ctx.render(authz.long_rows(items))


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
