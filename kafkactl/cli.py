"""The root Typer app: global options, one sub-app per noun, and the one place errors become exit codes."""

from __future__ import annotations

import logging
import os
import sys
from typing import Annotated, Any, Optional

import typer
from typer.core import TyperGroup

from kafkactl import __version__
from kafkactl.commands import _complete as complete
from kafkactl.commands._app import AppContext, default_output
from kafkactl.errors import KafkactlError
from kafkactl.exitcodes import ExitCode
from kafkactl.formatters import OutputFormat
from kafkactl.profiles import Selection


# noun -> module under kafkactl.commands holding its Typer `app`. Sub-apps are imported and turned into
# click commands only when invoked (or listed by --help): building the whole tree costs more than a command.
NOUNS = {
    "acls": "acls",
    "auth": "auth",
    "cluster": "cluster",
    "configs": "configs",
    "topics": "topics",
    "groups": "groups",
    "context": "context",
    "local": "local",
    "completion": "completion",
}


class _LazyNoun(TyperGroup):
    """A noun whose commands become click commands when named. Typer reads each function's signature to build
    one (about 4 ms each); an invocation needs one of them, --help and the docs list them all."""

    _pending: dict[str, Any]
    _typer: Any

    def list_commands(self, ctx: Any) -> list[str]:
        return [*self._pending, *(n for n in self.commands if n not in self._pending)]

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        info = self._pending.get(cmd_name)
        if info is not None and cmd_name not in self.commands:
            from typer.main import get_command_from_info

            self.commands[cmd_name] = get_command_from_info(
                info, pretty_exceptions_short=self._typer.pretty_exceptions_short,
                rich_markup_mode=self._typer.rich_markup_mode)
        return self.commands.get(cmd_name)


def _noun_group(typer_app: Any) -> Any:
    """The noun's group as typer.main.get_group builds it (not get_command: a one-command app stays a group,
    `cluster describe`), its commands left to _LazyNoun."""
    import copy

    from typer.main import get_command_name, get_group

    shell = copy.copy(typer_app)
    shell.registered_commands = []
    group = get_group(shell)
    if type(group) is TyperGroup:
        group.__class__ = _LazyNoun
        group._typer = typer_app
        group._pending = {info.name or get_command_name(info.callback.__name__): info
                          for info in typer_app.registered_commands}
        return group
    return get_group(typer_app)  # a noun with its own group class is built whole


class KafkactlGroup(TyperGroup):
    """Runs the command tree and turns every failure into one stderr line and an exit code."""

    def list_commands(self, ctx: Any) -> list[str]:
        return list(NOUNS)

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        module = NOUNS.get(cmd_name)
        if module is None:
            return None
        cached = self.commands.get(cmd_name)
        if cached is None:
            import importlib

            cached = _noun_group(importlib.import_module(f"kafkactl.commands.{module}").app)
            cached.name = cmd_name
            self.commands[cmd_name] = cached
        return cached

    def _main_shell_completion(self, ctx_args: Any, prog_name: str, complete_var: str | None = None) -> None:
        instruction = os.environ.get(complete_var or "_KAFKACTL_COMPLETE")
        if not instruction:
            return
        from kafkactl.commands.completion import complete

        try:
            rv = complete(self, ctx_args, prog_name, instruction)
        except Exception:  # never a traceback in the middle of the operator's command line
            rv = 1
        sys.stdout.flush()
        # a lookup abandoned at its time budget may still hold a client: skip interpreter teardown
        os._exit(rv)

    def main(self, args: Any = None, prog_name: Any = None, complete_var: Any = None,
             standalone_mode: bool = True, **extra: Any) -> Any:
        from click import exceptions as click_exc

        argv = list(sys.argv[1:] if args is None else args)
        # no process receives a NUL in its arguments (execve cannot pass one); an in-process caller can
        bad = next((a for a in argv if "\x00" in a), None)
        if bad is not None:
            _error(f"{bad[:60]!r}: an argument may not contain a NUL character")
            if standalone_mode:
                sys.exit(int(ExitCode.USAGE))
            return int(ExitCode.USAGE)
        argv = hoist_global_options(self, argv)
        debug = "--debug" in argv or os.environ.get("KAFKACTL_DEBUG", "") not in ("", "0")
        # terraform's convention for a CI gate: 2 means changes, so every error (bad input too) is 1
        # any spelling (--detailed-exitcode=true is a usage error, which must not read as "changes" either)
        head = argv[:argv.index("--")] if "--" in argv else argv
        detailed = any(a.split("=", 1)[0] == "--detailed-exitcode" for a in head)
        try:
            check_argument_lengths(self, argv)
            check_option_values(self, argv)
            rv = super().main(args=argv, prog_name=prog_name or "kafkactl", complete_var=complete_var,
                              standalone_mode=False, **extra)
            code = rv if isinstance(rv, int) else 0
            detailed = False  # the command's own exit code (0 or 2) stands
        except click_exc.NoArgsIsHelpError as exc:
            exc.show()
            code = ExitCode.USAGE
        except click_exc.UsageError as exc:
            where = exc.ctx.command_path if exc.ctx is not None else "kafkactl"
            _error(f"{where}: {_abbreviated(exc.format_message(), argv)} (see {where} --help)")
            code = ExitCode.USAGE
        except click_exc.ClickException as exc:
            _error(_abbreviated(exc.format_message(), argv))
            code = exc.exit_code
        except typer.Abort:
            _error("aborted")
            code = ExitCode.INTERRUPTED
        except KafkactlError as exc:
            result = getattr(exc, "result", None)
            if result is not None:
                _render_partial(result)
            _error(exc.message)
            if exc.hint:
                _stderr(f"hint: {one_line(exc.hint)}")
            if debug:
                _traceback()
            code = exc.exit_code
        except KeyboardInterrupt:
            _error("interrupted")
            code = ExitCode.INTERRUPTED
        except BrokenPipeError:
            code = _broken_pipe()
        except SystemExit as exc:
            # typer turns EPIPE into exit 1 even outside standalone mode; kafkactl documents 141
            if not isinstance(exc.__context__, BrokenPipeError):
                raise
            code = _broken_pipe()
        except OSError as exc:
            if exc.filename is None:  # not about a file the operator named: a bug or a client failure
                code = _unexpected(exc, debug)
            else:  # a path given on the command line that cannot be read or written
                _error(f"{exc.filename}: {exc.strerror or type(exc).__name__}")
                if debug:
                    _traceback()
                code = ExitCode.NOT_FOUND if isinstance(exc, FileNotFoundError) else ExitCode.USAGE
        except Exception as exc:  # a bug or an unexpected client failure: one line unless --debug
            code = _unexpected(exc, debug)
        if detailed and code not in (ExitCode.OK, ExitCode.INTERRUPTED, ExitCode.BROKEN_PIPE):
            code = ExitCode.ERROR
        if standalone_mode:
            sys.exit(int(code))
        return int(code)


def _unexpected(exc: BaseException, debug: bool) -> ExitCode:
    _error(f"unexpected {type(exc).__name__}: {exc}" + ("" if debug else " (run with --debug for the traceback)"))
    if debug:
        _traceback()
    return ExitCode.ERROR


def _broken_pipe() -> ExitCode:
    """The reader went away (`| head -1`): stop quietly, with nothing left to flush into the closed pipe."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return ExitCode.BROKEN_PIPE


GLOBAL_VALUE_OPTIONS = {"--context", "-b", "--bootstrap-server", "--command-config", "-o", "--output", "--timeout"}
GLOBAL_FLAGS = {"--no-color", "--debug"}


def hoist_global_options(root: Any, argv: list[str]) -> list[str]:
    """Let global options follow the subcommand (`kafkactl acls list -o json`), as operators type them.

    Only options the invoked command does not define itself are moved to the front.
    """
    cmd, i, path_end = root, 0, None
    while i < len(argv):
        tok = argv[i]
        if tok == "--":
            break
        if tok.startswith("-"):
            i += 2 if (tok in GLOBAL_VALUE_OPTIONS and path_end is None) else 1
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
    first_sub = next((j for j, t in enumerate(argv) if t in NOUNS), len(argv))
    while i < len(argv):
        tok = argv[i]
        name = tok.split("=", 1)[0]
        if tok == "--":
            rest += argv[i:]
            break
        if i > first_sub and name not in own and name in GLOBAL_VALUE_OPTIONS | GLOBAL_FLAGS:
            takes_value = name in GLOBAL_VALUE_OPTIONS and "=" not in tok
            front += argv[i:i + 1 + takes_value]
            i += 1 + takes_value
            continue
        rest.append(tok)
        i += 1
    # after the options typed before the noun, so that a repeated option's last value wins, as typed
    k = 0
    while k < len(rest) and rest[k].startswith("-") and rest[k] != "--":
        k += 2 if rest[k] in GLOBAL_VALUE_OPTIONS else 1
    return rest[:k] + front + rest[k:]


def _subcommand(group: Any, name: str) -> Any:
    get = getattr(group, "get_command", None)
    return get(None, name) if get is not None and hasattr(group, "commands") else None


def _stderr(text: str) -> None:
    from kafkactl.redact import scrub

    try:
        sys.stderr.write(scrub(text) + "\n")
        sys.stderr.flush()
    except (BrokenPipeError, ValueError):
        pass


def _error(text: str) -> None:
    from kafkactl.redact import scrub

    # scrubbed first: a secret is masked as registered, before its line breaks are escaped
    _stderr(f"error: {one_line(scrub(text))}")


# C0 and C1 controls, DEL and the Unicode line and paragraph separators, as Python spells them in a string
_ESCAPES = {c: chr(c).encode("unicode_escape").decode("ascii")
            for c in (*range(0x20), *range(0x7F, 0xA0), 0x2028, 0x2029)}


def one_line(text: str) -> str:
    """`text` with every control character and line break escaped: a broker's message may hold them, and an error
    is one line on stderr."""
    return text.translate(_ESCAPES)


def _abbreviated(message: str, argv: list[str]) -> str:
    """click repeats a bad value whole: a 5000-digit --partitions is cut short."""
    from kafkactl.limits import shown

    for arg in {a for a in argv if len(a) > 80}:
        for form in (repr(arg), arg):
            if form in message:
                message = message.replace(form, shown(arg, 40))
                break
    return message


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


def check_option_values(root: Any, argv: list[str]) -> None:
    """An option given an empty value, or a blank one, is refused rather than taken as absent; a single-value
    option of the command given twice is refused rather than one value silently dropped (global options, which
    may also be set before the noun, keep the last one: hoist_global_options puts it last)."""
    from kafkactl.errors import UsageError
    from kafkactl.limits import shown

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
        if option not in takes_value or value is None or option in _CHECKED_LATER:
            continue
        if value == "" or (not value.strip() and option not in _BLANK_ALLOWED):
            raise UsageError(f"{option} {value!r} is empty: give a value, or leave the option out")
        p = params[option]
        if not getattr(p, "multiple", False) and option not in GLOBAL_VALUE_OPTIONS:
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


def _traceback() -> None:
    import traceback

    _stderr("".join(traceback.format_exc()).rstrip())


_current: AppContext | None = None


def close_clients() -> None:
    """For callers that run commands in-process: close the last command's clients."""
    if _current is not None:
        _current.close()


def _render_partial(result: Any) -> None:
    app_ctx = _current or AppContext(output=default_output())
    try:
        app_ctx.render(result)
    except BrokenPipeError:
        pass


app = typer.Typer(
    cls=KafkactlGroup,
    name="kafkactl",
    help="Admin toolkit for Apache Kafka: ACLs, configs, topics, groups and the local sandbox.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"kafkactl {__version__}")
        raise typer.Exit(0)


@app.callback()
def root(
    ctx: typer.Context,
    context: Annotated[Optional[str], typer.Option("--context", help="Context to use (default: KAFKACTL_CONTEXT, then current-context).", autocompletion=complete.contexts, show_default=False)] = None,
    bootstrap_server: Annotated[Optional[str], typer.Option("-b", "--bootstrap-server", help="host:port[,host:port]; overrides the context (env KAFKACTL_BOOTSTRAP_SERVERS).", show_default=False)] = None,
    command_config: Annotated[Optional[str], typer.Option("--command-config", help="Client properties file, as kafka-*.sh take it.", show_default=False)] = None,
    output: Annotated[Optional[OutputFormat], typer.Option("-o", "--output", help="Output format; table on a terminal, plain in a pipe (env KAFKACTL_OUTPUT).", show_default=False)] = None,
    timeout: Annotated[float, typer.Option("--timeout", help="Seconds to wait for the cluster.", metavar="SECONDS")] = 10.0,
    no_color: Annotated[bool, typer.Option("--no-color", help="No colours (also NO_COLOR).")] = False,
    debug: Annotated[bool, typer.Option("--debug", help="Log client activity and show tracebacks (secrets stay masked).")] = False,
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")] = False,
) -> None:
    global _current
    from kafkactl.profiles import check_timeout, parse_bootstrap

    check_timeout(timeout)
    if bootstrap_server is not None:
        parse_bootstrap(bootstrap_server)  # exit 2 before anything else; resolve() normalises it later
    app_ctx = AppContext(
        selection=Selection(context=context, bootstrap_servers=bootstrap_server, command_config=command_config,
                            timeout=timeout),
        output=output or default_output(),
        no_color=no_color or bool(os.environ.get("NO_COLOR")),
        debug=debug,
    )
    if debug:
        _enable_debug_logging()
    ctx.obj = _current = app_ctx


def _enable_debug_logging() -> None:
    from kafkactl.redact import scrub

    class ScrubbingFormatter(logging.Formatter):
        def format(self, record: logging.LogRecord) -> str:
            return scrub(super().format(record))

    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(ScrubbingFormatter("debug: %(name)s: %(message)s"))
    handler.set_name("kafkactl-debug")
    for name in ("kafkactl", "kafka"):
        lg = logging.getLogger(name)
        # once per process however often a command runs in it, and not again through the root logger's handlers
        for old in [h for h in lg.handlers if h.get_name() == "kafkactl-debug"]:
            lg.removeHandler(old)
        lg.addHandler(handler)
        lg.setLevel(logging.DEBUG)
        lg.propagate = False




def app_group() -> Any:
    """The root click group (for completion scripts and man pages)."""
    from typer.main import get_group

    return get_group(app)


def main() -> None:
    try:
        app(prog_name="kafkactl")
        code: Any = 0
    except SystemExit as exc:
        code = exc.code
    except KeyboardInterrupt:  # before the command's own handling began (while the command tree is built)
        _error("interrupted")
        code = int(ExitCode.INTERRUPTED)
    if "pyspark" in sys.modules or not isinstance(code, (int, type(None))):
        sys.exit(code)  # a Spark session (or a message as the code) gets the interpreter's own shutdown
    # Nothing kafkactl runs needs the interpreter's teardown: client handles hold no unsent data (kafkactl never
    # produces), and no atexit work is registered. Skipping it (librdkafka's destroy, module finalisation) saves
    # about 20 ms a command.
    code = code or 0
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (BrokenPipeError, ValueError):
            if stream is sys.stdout and code == 0:
                code = int(ExitCode.BROKEN_PIPE)
    os._exit(code)
