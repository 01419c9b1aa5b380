"""The command line before Click reads it: global options moved to where Click expects them, and the checks every
argument gets (length, empty values, an option given twice). The global options are the root command's own."""

from __future__ import annotations

from typing import Any


def global_options(root: Any) -> tuple[set[str], set[str]]:
    """The root command's options that take a value, and its flags (--version and --help, which end the run
    wherever they stand, are neither)."""
    values: set[str] = set()
    flags: set[str] = set()
    for p in getattr(root, "params", []):
        if getattr(p, "is_eager", False):
            continue
        names = {*p.opts, *p.secondary_opts}
        (flags if getattr(p, "is_flag", False) or getattr(p, "count", False) else values).update(names)
    return values, flags


def hoist_global_options(root: Any, argv: list[str]) -> list[str]:
    """Let global options follow the subcommand (`kafkactl acls list -o json`), as operators type them.

    Only options the invoked command does not define itself are moved to the front.
    """
    value_options, flags = global_options(root)
    cmd, i, path_end = root, 0, None
    while i < len(argv):
        tok = argv[i]
        if tok == "--":
            break
        if tok.startswith("-"):
            i += 2 if (tok in value_options and path_end is None) else 1
            continue
        sub = _subcommand(cmd, tok) if path_end is None else None
        if sub is None:
            path_end = path_end or i
            i += 1
            continue
        cmd, i = sub, i + 1
    if cmd is root:
        return argv
    own = {o for p in getattr(cmd, "params", []) for o in (*p.opts, *p.secondary_opts)}
    front, rest, i = [], [], 0
    nouns = set(root.list_commands(None))
    first_sub = next((j for j, t in enumerate(argv) if t in nouns), len(argv))
    while i < len(argv):
        tok = argv[i]
        name = tok.split("=", 1)[0]
        if tok == "--":
            rest += argv[i:]
            break
        if i > first_sub and name not in own and name in value_options | flags:
            takes_value = name in value_options and "=" not in tok
            front += argv[i:i + 1 + takes_value]
            i += 1 + takes_value
            continue
        rest.append(tok)
        i += 1
    # after the options typed before the noun, so that a repeated option's last value wins, as typed
    k = 0
    while k < len(rest) and rest[k].startswith("-") and rest[k] != "--":
        k += 2 if rest[k] in value_options else 1
    return rest[:k] + front + rest[k:]


def _subcommand(group: Any, name: str) -> Any:
    get = getattr(group, "get_command", None)
    return get(None, name) if get is not None and hasattr(group, "commands") else None


# options whose value may be, or hold, a secret: never repeated when refused for its length
_SECRET_OPTION_WORDS = ("config", "password", "secret", "token", "jaas")


def check_argument_lengths(root: Any, argv: list[str]) -> None:
    """Refuse any argument longer than a protocol STRING, before a request: every name, id and config kafkactl
    sends is one (a longer one makes librdkafka crash or the broker drop the connection). No file path or
    address comes near the limit."""
    from kafkactl.limits import check_string, too_long

    for i in [i for i, a in enumerate(argv) if too_long(a)]:
        arg, option = argv[i], None
        if arg.startswith("--") and "=" in arg:
            option, arg = arg.split("=", 1)
        elif arg.startswith("-") and not arg.startswith("--"):
            option, arg = arg[:2], arg[2:]
        elif i and argv[i - 1].startswith("-") and "=" not in argv[i - 1] and argv[i - 1] not in _flags(root, argv):
            option = argv[i - 1]
        secret = "=" in arg or (option is not None and any(w in option for w in _SECRET_OPTION_WORDS))
        check_string(arg, option or "an argument", secret=secret)


# options whose value may be blank: AclCommand takes a transactional id as typed (Kafka allows ' ')
_BLANK_ALLOWED = {"--transactional-id"}
# global options whose values are checked (and named) where they are read
_CHECKED_LATER = {"-b", "--bootstrap-server", "--timeout", "-o", "--output"}


def _is_number(param: Any) -> bool:
    import click

    return isinstance(getattr(param, "type", None), (click.types.IntParamType, click.types.FloatParamType))


def check_option_values(root: Any, argv: list[str]) -> None:
    """An option given an empty value, or a blank one, is refused rather than taken as absent; a single-value
    option of the command given twice is refused rather than one value silently dropped (global options, which
    may also be set before the noun, keep the last one: hoist_global_options puts it last)."""
    from kafkactl.errors import UsageError
    from kafkactl.limits import shown

    global_values = global_options(root)[0]
    path = [root]
    for tok in argv:
        if tok == "--":
            break
        sub = None if tok.startswith("-") else _subcommand(path[-1], tok)
        if sub is not None:
            path.append(sub)
    params = {o: p for cmd in path for p in getattr(cmd, "params", []) for o in (*p.opts, *p.secondary_opts)}
    takes_value = {o for o, p in params.items() if not (getattr(p, "is_flag", False) or getattr(p, "count", False))}
    seen: dict[Any, list[str]] = {}
    flags_seen: dict[Any, set[str]] = {}
    i = 0
    while i < len(argv):
        tok = argv[i]
        if tok == "--":
            break
        option, value = tok, None
        if tok.startswith("--") and "=" in tok:
            option, value = tok.split("=", 1)
        elif tok in takes_value and i + 1 < len(argv):
            value = argv[i + 1]
            i += 1
        i += 1
        pair = params.get(option)
        if value is None and pair is not None and getattr(pair, "secondary_opts", None) and option not in global_values:
            flags_seen.setdefault(pair, set()).add(option)
            if len(flags_seen[pair]) > 1:  # --spark and --no-spark: Click would keep the last one silently
                raise UsageError(f"{' and '.join(sorted(flags_seen[pair]))}: give one or the other")
        if value is not None and option in takes_value and _is_number(params[option]) and not value.isascii():
            # int() and float() read "３" and "٣" as 3: not a number anyone typed as one
            raise UsageError(f"{option} {shown(value)}: not a number (write it with the digits 0-9)")
        if option not in takes_value or value is None or option in _CHECKED_LATER:
            continue
        if value == "" or (not value.strip() and option not in _BLANK_ALLOWED):
            raise UsageError(f"{option} {value!r} is empty: give a value, or leave the option out")
        p = params[option]
        if not getattr(p, "multiple", False) and option not in global_values:
            seen.setdefault(p, []).append(value)
            if len(seen[p]) > 1:
                raise UsageError(f"{option} given twice ({shown(seen[p][0])}, {shown(value)}): it takes one value")


def _flags(root: Any, argv: list[str]) -> set[str]:
    """The options of the invoked command (and the groups above it) that take no value."""
    path = [root]
    for tok in argv:
        sub = None if tok.startswith("-") else _subcommand(path[-1], tok)
        if sub is not None:
            path.append(sub)
    return {"--", "-h", "--help"} | {o for cmd in path for p in getattr(cmd, "params", [])
                                     if getattr(p, "is_flag", False) or getattr(p, "count", False)
                                     for o in (*p.opts, *p.secondary_opts)}


# options whose value is optional: `--spark` alone, or `--spark auto` / `--spark=auto` (Click has no such
# option; the value becomes a hidden flag of its own). A file named like the value keeps its meaning as a file.
OPTIONAL_VALUES = {"--spark": {"auto": "--spark-auto"}}


def optional_values(argv: list[str]) -> list[str]:
    from pathlib import Path

    out: list[str] = []
    i = 0
    while i < len(argv):
        tok = argv[i]
        if tok == "--":
            return out + argv[i:]
        name, eq, value = tok.partition("=")
        flags = OPTIONAL_VALUES.get(name)
        if flags and eq and value not in flags:
            from kafkactl.errors import UsageError
            from kafkactl.limits import shown

            raise UsageError(f"{name} {shown(value)}: {name} takes no value, or one of {', '.join(sorted(flags))}")
        if flags and eq:
            out.append(flags[value])
        elif flags and not eq and i + 1 < len(argv) and argv[i + 1] in flags and not Path(argv[i + 1]).exists():
            out.append(flags[argv[i + 1]])
            i += 1
        else:
            out.append(tok)
        i += 1
    return out
