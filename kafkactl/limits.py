"""Limits of the Kafka protocol and of the clients, checked before anything is sent."""

from __future__ import annotations

from typing import Any

from kafkactl.errors import UsageError

# A protocol STRING (and COMPACT_STRING) is at most Short.MAX_VALUE bytes of UTF-8; librdkafka crashes on a longer
# one rather than refusing it
MAX_STRING_BYTES = 32767


def utf8_length(text: str) -> int:
    """Bytes of `text` in UTF-8 (a lone surrogate, which has no UTF-8, counted as the 3 bytes it would take)."""
    return len(text.encode("utf-8", "surrogatepass"))


def too_long(text: str) -> bool:
    # a code point is at most 4 bytes: short text is not encoded to be measured
    return len(text) > MAX_STRING_BYTES // 4 and utf8_length(text) > MAX_STRING_BYTES


def shown(value: Any, limit: int = 60) -> str:
    """A value for a one-line message: repr (control characters escaped), cut short if long."""
    r = repr(value)
    return r if len(r) <= limit else f"{r[:limit - 4]}...{r[-1]}"


def check_string(text: str, what: str, *, secret: bool = False) -> str:
    """Refuse a value that cannot go in a protocol STRING; `secret` keeps its text out of the message."""
    if too_long(text):
        named = f"{what}: a value (not repeated) of" if secret else f"{what} {shown(text, 40)}:"
        raise UsageError(f"{named} {utf8_length(text)} bytes in UTF-8, more than Kafka's limit for a string "
                         f"({MAX_STRING_BYTES} bytes)")
    return text


def bounded_int(text: str, low: int, high: int) -> int | None:
    """The number ASCII digits `text` spell if it is from low to high, else None; never int() of more digits than
    `high` has (Python refuses 4300 and more)."""
    digits = text.lstrip("0") or "0"
    if not (text.isascii() and text.isdigit() and len(digits) <= len(str(high))):
        return None
    number = int(digits)
    return number if low <= number <= high else None


def delete_limit(max_deletes: str | None, in_scope: int, unit: str = "bindings") -> int | None:
    """--max-deletes N or P% (of `in_scope`) as a number of deletions; None without it; exit 2 for anything else."""
    if max_deletes is None:
        return None
    text = max_deletes.strip()
    number = text[:-1] if text.endswith("%") else text
    # digits only (no sign, exponent, nan or inf), at most 100 for a percentage
    if not (number.replace(".", "", 1).isdigit() and number.isascii() and len(number) <= 12) or \
            (text.endswith("%") and float(number) > 100):
        raise UsageError(f"--max-deletes {shown(max_deletes)}: expected a whole number of {unit} "
                         f"(e.g. 50) or a percentage from 0 to 100 (e.g. 5%)")
    if text.endswith("%"):
        return int(in_scope * float(number) / 100)
    if "." in number:
        raise UsageError(f"--max-deletes {shown(max_deletes)}: a number of {unit} is a whole number")
    return int(number)


def plural(n: int, noun: str, many: str | None = None) -> str:
    """ "1 change", "2 changes", "1,240 topics" (`many` for a noun whose plural is not noun + s)."""
    return f"{n:,} {noun if n == 1 else (many or noun + 's')}"
