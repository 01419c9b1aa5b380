"""Generate completions/ and man/ from the command tree: `python -m kafkactl.cli.docs [--check]`.

Man pages walk the click commands Typer builds (click-man and sphinx-click reject Typer >= 0.26 apps), write
reStructuredText, and render it with docutils' manpage writer. Every page carries the same EXIT STATUS,
ENVIRONMENT and FILES sections; EXAMPLES come from the commands' own docstrings. Output is deterministic
(no dates), so a test can regenerate and compare byte for byte.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]

ENVIRONMENT = [
    ("KAFKACTL_CONTEXT", "Context to use when --context is not given."),
    ("KAFKACTL_BOOTSTRAP_SERVERS", "Bootstrap servers when -b is not given (overrides the context's)."),
    ("KAFKACTL_COMMAND_CONFIG", "Client properties file when --command-config is not given."),
    ("KAFKACTL_OUTPUT", "Default output format (table, plain, json, yaml, csv)."),
    ("KAFKACTL_DEBUG", "Set to 1 for --debug."),
    ("NO_COLOR", "Any value: no colours."),
    ("FORCE_COLOR", "Colours even when standard output is not a terminal."),
    ("TERM", "dumb: no colours, no cursor movement."),
    ("COLUMNS", "Width of tables on a terminal."),
    ("XDG_CONFIG_HOME", "Where the contexts file lives (default ~/.config)."),
    ("XDG_CACHE_HOME", "Where the completion cache and the assembled Kafka jars live (default ~/.cache)."),
    ("XDG_STATE_HOME", "Where the local sandbox keeps its data (default ~/.local/state)."),
]

FILES = [
    ("~/.config/kafkactl/config.yaml", "Contexts: bootstrap servers, credentials, super users (kept mode 0600)."),
    ("~/.cache/kafkactl/completion/", "Cluster values for shell completion (topics, groups, principals), kept 30 s."),
    ("~/.cache/kafkactl/kafka-VERSION/", "Apache Kafka assembled from Maven Central for `kafkactl local`."),
    ("~/.local/state/kafkactl/local/", "The local sandbox broker: data, logs, client properties (0600)."),
]


def walk(cmd: Any, path: tuple[str, ...] = ("kafkactl",)) -> Iterator[tuple[tuple[str, ...], Any]]:
    """Every command and group, parents first, in the order --help lists them."""
    import click

    yield path, cmd
    if isinstance(cmd, click.Group):
        for name in cmd.list_commands(click.Context(cmd)):
            sub = cmd.get_command(click.Context(cmd), name)
            if sub is not None and not sub.hidden:
                yield from walk(sub, (*path, name))


def _esc(text: str) -> str:
    return re.sub(r"([\\*`|_])", r"\\\1", text)


def _split_help(text: str) -> tuple[str, str, list[str]]:
    """(first line, the rest, example lines) of a docstring."""
    lines = [ln.rstrip() for ln in (text or "").strip().splitlines()]
    examples = [ln.split("Example:", 1)[1].strip() for ln in lines if ln.strip().startswith("Example:")]
    body = [ln for ln in lines if not ln.strip().startswith("Example:")]
    first = body[0] if body else ""
    rest = "\n".join(body[1:]).strip()
    return first, rest, examples


def _option_rows(cmd: Any, ctx: Any) -> list[tuple[str, str]]:
    import click

    rows = []
    for p in cmd.get_params(ctx):
        if not isinstance(p, click.Option) or p.hidden:
            continue
        names = ", ".join([*p.opts, *p.secondary_opts])
        if not p.is_flag:
            names += " " + (p.make_metavar(ctx) if p.metavar is None else p.metavar)
        help_ = p.help or ""
        if isinstance(p.type, click.Choice):
            help_ += f" One of: {', '.join(map(str, p.type.choices))}."
        if p.multiple and "repeatable" not in help_:
            help_ += " Repeatable."
        rows.append((names, help_))
    return rows


def _argument_rows(cmd: Any) -> list[tuple[str, str]]:
    import click

    return [(p.human_readable_name, getattr(p, "help", "") or "") for p in cmd.params if isinstance(p, click.Argument)]


def _group_examples(group: Any) -> list[str]:
    """A group's page shows the first example of each command under it."""
    import click

    return [e for _, cmd in walk(group) if not isinstance(cmd, click.Group) for e in _split_help(cmd.help or "")[2][:1]]


def page_rst(path: tuple[str, ...], cmd: Any, root: Any, version: str) -> str:
    import click

    from kafkactl.exitcodes import DESCRIPTIONS

    name = "-".join(path)
    ctx = click.Context(cmd, info_name=" ".join(path))
    first, rest, examples = _split_help(cmd.help or "")
    out = _page_head(path, cmd, ctx, version, first, rest)
    if isinstance(cmd, click.Group):
        out += _definitions("COMMANDS", _command_rows(cmd, ctx, name))
    args = [(f"**{_esc(a)}**", _esc(h) or "-") for a, h in _argument_rows(cmd)]
    if args:
        out += _definitions("ARGUMENTS", args)
    opts = [(f"**{_esc(o)}**", _esc(h) or "-") for o, h in _option_rows(cmd, ctx)]
    if opts:
        out += _definitions("OPTIONS", opts)
    if cmd is not root:
        out += _definitions("GLOBAL OPTIONS", [(f"**{_esc(o)}**", _esc(h) or "-")
                                               for o, h in _option_rows(root, click.Context(root))],
                            "These may come before or after the subcommand. See **kafkactl**\\(1).")
    out += _definitions("EXIT STATUS", [(f"**{int(code)}**", _esc(text)) for code, text in DESCRIPTIONS.items()])
    out += _definitions("ENVIRONMENT", [(f"**{var}**", _esc(text)) for var, text in ENVIRONMENT])
    out += _definitions("FILES", [(f"*{_esc(f)}*", _esc(text)) for f, text in FILES])
    if isinstance(cmd, click.Group) and not examples:
        examples = _group_examples(cmd)
    if examples:
        out += ["EXAMPLES", "========", ""]
        for e in examples:
            out += ["::", "", f"    {e}", ""]
    see = ["kafkactl"] + ["-".join(path[:i]) for i in range(2, len(path))]
    see = [s for s in see if s != name]
    out += ["SEE ALSO", "========", "",
            ", ".join(f"**{s}**\\(1)" for s in see) or "kafka-acls.sh, kafka-configs.sh", ""]
    return "\n".join(out)


def _page_head(path: tuple[str, ...], cmd: Any, ctx: Any, version: str, first: str, rest: str) -> list[str]:
    """The title (the page's NAME line), SYNOPSIS and DESCRIPTION."""
    title = "-".join(path)
    subtitle = _esc(first) or "kafkactl"
    # over- and underlined: the title and subtitle become the page's NAME line
    out = ["=" * len(title), title, "=" * len(title), "-" * len(subtitle), subtitle, "-" * len(subtitle), "",
           ":Manual section: 1", ":Manual group: kafkactl manual", f":Version: kafkactl {version}", ""]
    out += ["SYNOPSIS", "========", "", f"**{' '.join(path)}** {_esc(' '.join(cmd.collect_usage_pieces(ctx)))}", ""]
    out += ["DESCRIPTION", "===========", "", _esc(first)]
    if rest:
        out += ["", _esc(rest)]
    out.append("")
    return out


def _command_rows(group: Any, ctx: Any, name: str) -> list[tuple[str, str]]:
    """A group's listed commands, each with its short help and its own page."""
    rows = []
    for sub_name in group.list_commands(ctx):
        sub = group.get_command(ctx, sub_name)
        if sub is None or sub.hidden:
            continue
        rows.append((f"**{sub_name}**", f"{_esc(sub.get_short_help_str(limit=200))} See **{name}-{sub_name}**\\(1)."))
    return rows


def _definitions(title: str, rows: list[tuple[str, str]], intro: str | None = None) -> list[str]:
    """A section of terms (marked up already), each with its definition indented below it."""
    out = [title, "=" * len(title), ""] + ([intro, ""] if intro else [])
    for term, text in rows:
        out += [term, f"    {text}", ""]
    return out


def render_man(rst: str) -> str:
    from docutils.core import publish_string
    from docutils.writers import manpage

    raw = publish_string(rst, writer=manpage.Writer(),
                         settings_overrides={"report_level": 2, "halt_level": 2, "input_encoding": "utf-8",
                                             "output_encoding": "utf-8", "datestamp": None})
    # docutils writes "Name"; man pages say NAME
    return raw.decode("utf-8").replace("\n.SH Name\n", "\n.SH NAME\n", 1)


def generate() -> dict[Path, str]:
    """Every generated file, by path under the repository."""
    from kafkactl import __version__
    from kafkactl.cli.root import app_group
    from kafkactl.cli.shell import FILES as COMPLETION_FILES, script

    out: dict[Path, str] = {}
    root = app_group()
    for shell, fname in COMPLETION_FILES.items():
        out[Path("completions") / fname] = script(shell)
    for path, cmd in walk(root):
        out[Path("man") / f"{'-'.join(path)}.1"] = render_man(page_rst(path, cmd, root, __version__))
    return out


def main(argv: list[str]) -> int:
    check = "--check" in argv
    files = generate()
    stale = []
    for rel, text in files.items():
        target = ROOT / rel
        if check:
            if not target.exists() or target.read_text(encoding="utf-8") != text:
                stale.append(str(rel))
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
    extra = [str(p.relative_to(ROOT)) for d in ("man", "completions") for p in (ROOT / d).glob("*")
             if p.relative_to(ROOT) not in files and p.name != "README.md"]
    if check and (stale or extra):
        print("out of date (run `make docs`): " + ", ".join(stale + extra), file=sys.stderr)
        return 1
    if not check:
        for e in extra:
            (ROOT / e).unlink()
        print(f"wrote {len(files)} files", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
