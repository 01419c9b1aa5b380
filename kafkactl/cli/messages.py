"""What kafkactl writes on stderr when something fails: one line, control characters escaped, secrets masked."""

from __future__ import annotations

import sys


def stderr_line(text: str) -> None:
    from kafkactl.redact import scrub

    try:
        sys.stderr.write(scrub(text) + "\n")
        sys.stderr.flush()
    except (BrokenPipeError, ValueError):
        pass


def error_line(text: str) -> None:
    from kafkactl.redact import scrub

    # scrubbed first: a secret is masked as registered, before its line breaks are escaped
    stderr_line(f"error: {one_line(scrub(text))}")


# C0 and C1 controls, DEL and the Unicode line and paragraph separators, as Python spells them in a string
_ESCAPES = {c: chr(c).encode("unicode_escape").decode("ascii")
            for c in (*range(0x20), *range(0x7F, 0xA0), 0x2028, 0x2029)}


def one_line(text: str) -> str:
    """`text` with every control character and line break escaped: a broker's message may hold them, and an error
    is one line on stderr."""
    return text.translate(_ESCAPES)


def abbreviated(message: str, argv: list[str]) -> str:
    """click repeats a bad value whole: a 5000-digit --partitions is cut short."""
    from kafkactl.limits import shown

    for arg in {a for a in argv if len(a) > 80}:
        for form in (repr(arg), arg):
            if form in message:
                message = message.replace(form, shown(arg, 40))
                break
    return message


def traceback_lines() -> None:
    import traceback

    stderr_line("".join(traceback.format_exc()).rstrip())
