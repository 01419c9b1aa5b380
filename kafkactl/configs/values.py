"""The --add-config syntax of kafka-configs.sh: 'k1=v1,k2=[a,b],SCRAM-SHA-256=[iterations=8192,password=...]'."""

from __future__ import annotations

from dataclasses import dataclass

from kafkactl.errors import UsageError
from kafkactl.redact import Secret

SCRAM_MECHANISMS = ("SCRAM-SHA-256", "SCRAM-SHA-512")
DEFAULT_ITERATIONS = 4096
MIN_ITERATIONS = 4096  # the broker's floor for both mechanisms
QUOTA_KEYS = {
    "user": ("consumer_byte_rate", "producer_byte_rate", "request_percentage", "controller_mutation_rate"),
    "client-id": ("consumer_byte_rate", "producer_byte_rate", "request_percentage", "controller_mutation_rate"),
    "ip": ("connection_creation_rate",),
}


@dataclass(frozen=True)
class ScramChange:
    mechanism: str
    iterations: int
    password: Secret


def split_top_level(text: str, option: str) -> list[str]:
    """Split on commas outside [...]."""
    parts, depth, current = [], 0, []
    for ch in text:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
            if depth < 0:
                raise UsageError(f"{option}: unbalanced ']'")
        if ch == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
    if depth:
        raise UsageError(f"{option}: unbalanced '['")
    parts.append("".join(current))
    return [p.strip() for p in parts if p.strip()]


def parse_pairs(text: str, option: str = "--add-config") -> list[tuple[str, str]]:
    out = []
    for part in split_top_level(text, option):
        key, sep, value = part.partition("=")
        key = key.strip()
        if not sep or not key:
            raise UsageError(f"{option}: {_shown(key, part)!r} is not key=value")
        value = value.strip()
        if value.startswith("[") and value.endswith("]"):
            value = value[1:-1]  # a list value: Kafka takes it comma-separated
        out.append((key, value))
    return out


def parse_file(path: str) -> list[tuple[str, str]]:
    from kafkactl.profiles import read_properties_file

    try:
        return list(read_properties_file(path).items())
    except Exception as exc:
        raise UsageError(f"--add-config-file {path}: {getattr(exc, 'message', exc)}") from None


def parse_keys(text: str, option: str = "--delete-config") -> list[str]:
    keys = [k.strip() for k in split_top_level(text, option)]
    if not keys:
        raise UsageError(f"{option}: no keys given")
    return keys


def parse_scram(key: str, value: str) -> ScramChange:
    """'iterations=8192,password=...' (brackets already stripped). Never quotes the password in errors."""
    iterations, password = DEFAULT_ITERATIONS, None
    for part in value.split(","):
        k, sep, v = part.partition("=")
        k = k.strip()
        if k == "iterations":
            try:
                iterations = int(v)
            except ValueError:
                raise UsageError(f"{key}: iterations {v.strip()!r} is not an integer") from None
        elif k == "password" and sep:
            password = v
        else:
            raise UsageError(f"{key}: expected [iterations=N,password=...], found {k!r}")
    if not password:
        raise UsageError(f"{key}: a password is required ({key}=[password=...])")
    if iterations < MIN_ITERATIONS:
        raise UsageError(f"{key}: iterations {iterations} is below the minimum of {MIN_ITERATIONS}")
    return ScramChange(key, iterations, Secret(password))


def _shown(key: str, part: str) -> str:
    # never echo what may be a password: show the key only
    return key or part.split("=", 1)[0][:40]
