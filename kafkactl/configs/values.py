"""The --add-config syntax of kafka-configs.sh: 'k1=v1,k2=[a,b],SCRAM-SHA-256=[iterations=8192,password=...]'."""

from __future__ import annotations

import re
from dataclasses import dataclass

from kafkactl.errors import UsageError
from kafkactl.redact import Secret, may_be_secret, register

SCRAM_MECHANISMS = ("SCRAM-SHA-256", "SCRAM-SHA-512")
DEFAULT_ITERATIONS = 4096
MIN_ITERATIONS = 4096  # the broker's bounds for both mechanisms (ScramMechanism.minIterations/maxIterations)
MAX_ITERATIONS = 16384
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
    return [part for _, part in _settings(text, option)]


def _settings(text: str, option: str) -> list[tuple[str | None, str]]:
    """(the setting before, setting) for each comma-separated setting outside [...]. A bracket error names the
    setting it is in, as `_label` allows."""
    out: list[tuple[str | None, str]] = []
    depth, start = 0, 0

    def before() -> str | None:
        return out[-1][1] if out else None

    def bad(end: int, what: str) -> UsageError:
        return UsageError(f"{option}: {_label(len(out) + 1, text[start:end], before())}: an unbalanced {what}")

    for i, ch in enumerate([*text, ","]):  # a comma closes the last setting
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
            if depth < 0:
                raise bad(i + 1, "']' (without its '[')")
        elif ch == "," and depth == 0:
            if text[start:i].strip():
                out.append((before(), text[start:i].strip()))
            start = i + 1
    if depth:
        raise bad(len(text), "'[' (without its ']')")
    return out


def parse_pairs(text: str, option: str = "--add-config") -> list[tuple[str, str]]:
    out = []
    for number, (before, part) in enumerate(_settings(text, option), 1):
        key, sep, value = part.partition("=")
        key = key.strip()
        if not sep:
            raise UsageError(f"{option}: {_label(number, part, before)} is not key=value")
        if not key:
            raise UsageError(f"{option}: {_label(number, part, before)}: the key before '=' is missing")
        if before and may_be_secret(before) and not _config_name(key):
            raise UsageError(f"{option}: {_label(number, part, before)} does not start with a config name")
        value = value.strip()
        if value.startswith("[") and value.endswith("]"):
            value = value[1:-1]  # a list value: Kafka takes it comma-separated
        out.append((key, _registered(key, value)))
    return out


def parse_file(path: str) -> list[tuple[str, str]]:
    from kafkactl.profiles import read_properties_file

    try:
        pairs = read_properties_file(path).items()
    except Exception as exc:
        from kafkactl.errors import MissingFileError

        message = str(getattr(exc, "message", exc)).removeprefix(f"--command-config {path}: ")
        raise (MissingFileError if isinstance(exc, MissingFileError) else UsageError)(
            f"--add-config-file {path}: {message}") from None
    from kafkactl.limits import check_string

    # a name or value goes in a protocol STRING (a SCRAM password does not: only its salted hash is sent)
    for key, value in pairs:
        check_string(key, f"--add-config-file {path}: a key", secret=True)
        if key not in SCRAM_MECHANISMS:
            check_string(value, f"--add-config-file {path}: the value of {key[:80]!r}", secret=may_be_secret(key))
    # a SCRAM mechanism's settings as --add-config writes them ([iterations=N,password=...]) read the same: its value
    # must start with a setting's name, so brackets around it are never part of it
    return [(key, _registered(key, value[1:-1] if key in SCRAM_MECHANISMS and value.startswith("[")
                              and value.endswith("]") else value)) for key, value in pairs]


def parse_keys(text: str, option: str = "--delete-config") -> list[str]:
    keys = split_top_level(text, option)
    if not keys:
        raise UsageError(f"{option}: no keys given")
    for number, key in enumerate(keys, 1):
        if "=" in key or "[" in key:  # a value given by mistake: it is neither sent nor repeated
            name = key.partition("=")[0].partition("[")[0].strip()
            raise UsageError(f"{option} takes config names only: setting {number} ({name!r}) has a value, "
                             "which is not repeated")
    return keys


def parse_scram(key: str, value: str) -> ScramChange:
    """'iterations=8192,password=...' (brackets already stripped), in either order. A password may hold commas:
    whatever follows `password=` up to the next `iterations=N` belongs to it. Nothing from inside the brackets is
    ever repeated in an error, not even a setting's name (it may be a piece of the password)."""
    iterations, password, in_password = DEFAULT_ITERATIONS, None, False
    for part in value.split(","):
        if not part.strip() and not in_password:
            continue
        k, sep, v = part.partition("=")
        k = k.strip()
        if sep and k == "iterations" and v.strip().isdigit() and v.strip().isascii():
            iterations, in_password = _iterations(key, v.strip()), False
        elif sep and k == "password" and password is None:
            password, in_password = v, True
        elif in_password:
            password = f"{password},{part}"
        elif sep and k == "iterations":
            raise UsageError(f"{key}: iterations is not a whole number")
        else:
            raise UsageError(f"{key}: the brackets take only the settings 'iterations' and 'password' (the value "
                             "is not repeated: it may hold the password)")
    if not password:
        raise UsageError(f"{key}: a password is required in the brackets")
    if iterations < MIN_ITERATIONS:
        raise UsageError(f"{key}: iterations {iterations} is below the minimum of {MIN_ITERATIONS}")
    return ScramChange(key, iterations, Secret(password))


def _iterations(key: str, digits: str) -> int:
    """A count of digits, refused above the broker's maximum before int() (which refuses 4300 digits and more)."""
    from kafkactl.limits import bounded_int

    number = bounded_int(digits, 0, MAX_ITERATIONS)
    if number is None:
        named = digits if len(digits) <= 12 else f"{digits[:8]}... ({len(digits)} digits)"
        raise UsageError(f"{key}: iterations {named} is above the maximum of {MAX_ITERATIONS}")
    return number


# A value under a key holding one of these is never repeated in a message (ssl.keystore.key is a PEM private key)
PIECE = 6  # no run this long of a value that may be secret is ever repeated (tests/secrets_sweep.py looks for them)
_CONFIG_NAME = re.compile(r"[a-z][a-z0-9-]*(?:[._][a-z0-9-]+)+")
# what may be shown as a key: lowercase names, Java logger names (broker-loggers), SCRAM mechanisms
_KEY = re.compile(r"[a-z][a-z0-9_.-]*|(?:[a-z][a-z0-9_]*\.)+[A-Za-z_$][\w$]*|SCRAM-SHA-(?:256|512)")


def _registered(key: str, value: str) -> str:
    if may_be_secret(key) and key not in SCRAM_MECHANISMS:  # (a SCRAM password becomes a Secret in parse_scram)
        register(value)  # a broker error that repeats it is masked on the way out
    return value


def _label(number: int, part: str, before: str | None) -> str:
    """Name a malformed setting: its number, and its text only where no piece of it can be a secret."""
    before_key = (before or "").partition("=")[0].strip()
    if before is not None and (may_be_secret(before) or "=" not in before or not before_key):
        # 'ssl.key.password=a,b': 'b' is most likely the rest of the password (so too after a setting without a key)
        after = repr(before_key) if "=" in before and _config_name(before_key) else f"setting {number - 1}"
        return f"setting {number} (after {after}; not repeated, as a comma inside a value splits it)"
    key, sep, value = part.partition("=")
    key = key.strip()
    if sep and key:
        if not _KEY.fullmatch(key):  # not a config name: a password with a '=' in it, maybe
            return f"setting {number} (not repeated: its key is not a config name)"
        # a bracket left open swallows the settings after it: show none of them
        if may_be_secret(part) or (value.lstrip().startswith("[") and "=" in value):
            return f"setting {number} ({key!r}, its value is not repeated)"
        return f"setting {number} ({part[:80]!r})"
    # no key: nothing says what the text is, so only what is too short to hold a piece of a secret is shown,
    # or, for a lone word, what reads as a config name
    part = part.strip()
    if may_be_secret(part) or not (len(part) < PIECE or (not sep and _CONFIG_NAME.fullmatch(part))):
        return f"setting {number} (its value is not repeated: without a key it may be a secret)"
    return f"setting {number} ({part!r})"


def _config_name(key: str) -> bool:
    return bool(_CONFIG_NAME.fullmatch(key)) or key in SCRAM_MECHANISMS
