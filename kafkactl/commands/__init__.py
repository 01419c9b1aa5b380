"""Thin Typer adapters, one module per noun: parse, call one core function, render."""

from __future__ import annotations


def typed_output(ctx) -> str | None:
    """The global -o as typed on the command line (None when it was not: KAFKACTL_OUTPUT and the default do not
    count). Export commands write a file to stdout and use no output format; one that once took -o as the file's
    format refuses the -o that would now silently write another format."""
    typed = ctx.find_root().params.get("output")
    return None if typed is None else str(getattr(typed, "value", typed))
