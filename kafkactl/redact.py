"""Keeping secrets out of everything kafkactl prints.

Every password kafkactl reads is wrapped in `Secret` and registered here, so the
one place that prints errors (and --debug tracebacks and logs) can scrub any
copy that slipped into a message from a client library.
"""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Mapping
from typing import Any

MASK = "******"

_known: set[str] = set()
_lock = threading.Lock()

# a whole JAAS line, then single assignments like  password="..."  or  sasl.password=...
_JAAS_LINE = re.compile(r"(?i)(sasl\.jaas\.config\s*[=:]\s*)[^\n]*")
_JAAS_MODULE = re.compile(r"(?i)\b[\w.]+LoginModule\s+(required|requisite|sufficient|optional)\b[^;\n]*;?")
_ASSIGNMENT = re.compile(r"""(?i)\b((?:sasl\.|ssl\.key\.|ssl\.keystore\.|ssl\.truststore\.)?password)"""
                         r"""(['"]?\s*[=:]\s*)("[^"]*"|'[^']*'|[^\s;,]+)""")


class Secret:
    """A string that never shows itself in str(), repr() or f-strings."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value
        register(value)

    def reveal(self) -> str:
        return self._value

    def __str__(self) -> str:
        return MASK

    __repr__ = __str__

    def __format__(self, spec: str) -> str:
        return MASK

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)

    def __bool__(self) -> bool:
        return bool(self._value)

    def __reduce__(self) -> Any:  # never pickle a password into a file or a Spark task by accident
        raise TypeError("Secret values cannot be pickled")


_AUTH_BYTES = re.compile(r"""(auth_?bytes=)b?(?:'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")""", re.IGNORECASE)
# SCRAM's messages (RFC 5802) wherever they appear: client-first (user and nonce), server-first (salt and iteration
# count), client-final (proof), server-final (signature)
_SCRAM = re.compile(r"n,,n=[^,\s'\"]*,r=[^,\s'\"]+|c=[A-Za-z0-9+/=]+,r=[^,\s'\"]+,p=[A-Za-z0-9+/=]+"
                    r"|r=[^,\s'\"]+,s=[A-Za-z0-9+/=]+,i=\d+|\bv=[A-Za-z0-9+/]{20,}=*")


def register(value: str) -> None:
    # very short values would blank out ordinary words; they are still masked in JAAS strings
    if value and len(value) >= 4:
        with _lock:
            _known.add(value)


def scrub(text: str) -> str:
    """Remove every registered secret and every JAAS/password assignment from text."""
    if not text:
        return text
    text = _JAAS_LINE.sub(lambda m: m.group(1) + MASK, text)
    text = _JAAS_MODULE.sub(MASK, text)
    text = _ASSIGNMENT.sub(lambda m: f"{m.group(1)}{m.group(2)}{MASK}", text)
    # a SASL exchange as --debug logs it: SCRAM's salt, iteration count and client proof are enough for an offline
    # dictionary attack on the password, PLAIN's message holds it
    text = _AUTH_BYTES.sub(lambda m: m.group(1) + MASK, text)
    text = _SCRAM.sub(MASK, text)
    with _lock:
        known = list(_known)
    # each secret as typed and as a repr, a bytes repr or JSON spell it (--debug logs show requests that way)
    for s in sorted({form for k in known for form in _spellings(k)}, key=len, reverse=True):
        if s in text:
            text = text.replace(s, MASK)
    return text


@functools.lru_cache(maxsize=4096)
def _spellings(secret: str) -> tuple[str, ...]:
    """`secret` and the escaped forms a log line may hold it in: a Python str or bytes repr (with either quote
    escaped or not, as the enclosing repr chose), JSON, unicode_escape."""
    import json

    def escaped(chars: list[str]) -> set[str]:
        body = "".join(chars)
        return {body, body.replace("'", "\\'"), body.replace('"', '\\"')}

    as_str = [c if c.isprintable() and c != "\\" else repr(c)[1:-1] for c in secret]
    as_bytes = [chr(b) if 32 <= b < 127 and b != 92 else repr(bytes([b]))[2:-1]
                for b in secret.encode("utf-8", "replace")]
    forms = {secret, *escaped(as_str), *escaped(as_bytes), json.dumps(secret)[1:-1],
             json.dumps(secret, ensure_ascii=False)[1:-1], secret.encode("unicode_escape").decode("ascii")}
    return tuple(forms)


_SECRET_WORDS = ("password", "secret", "jaas", "credential", "token", "scram", "keystore.key", "private")


def option_named(key: str, before: Mapping[str, str]) -> str:
    """A login option's name for a message: 'option X', or 'an option after Y' once a secret option Y was read (an
    unquoted secret holding a space reads as a value and then more options, whose names are pieces of it)."""
    secret = next((k for k in before if may_be_secret(k)), None)
    if secret is None or key in ("username", "password"):
        return f"option {key!r}"
    return f"an option after {secret!r}"


def may_be_secret(key: str) -> bool:
    """Whether the value of config (or login option) `key` may be a password or a private key."""
    return any(word in key.lower() for word in _SECRET_WORDS)
