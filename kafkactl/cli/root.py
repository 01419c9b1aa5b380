"""The root Typer app: global options, one sub-app per noun, and the one place errors become exit codes."""

from __future__ import annotations

import logging
import os
import sys
from typing import Annotated, Any

import typer
from typer.core import TyperGroup

from kafkactl import __version__
from kafkactl.cli import completers as complete
from kafkactl.cli.argv import check_argument_lengths, check_option_values, hoist_global_options, optional_values
from kafkactl.cli.context import AppContext, default_output
from kafkactl.cli.messages import abbreviated, error_line, one_line, stderr_line, traceback_lines
from kafkactl.errors import KafkactlError
from kafkactl.exitcodes import ExitCode
from kafkactl.formatters import OutputFormat
from kafkactl.profiles import Selection
from kafkactl.signals import ended_by, interrupted_code, interrupted_word

from kafkactl.cli.helpview import wrap_format_help  # isort: skip

wrap_format_help()  # --help at any width: names and choice lists whole (cli/helpview.py)

# noun -> module under kafkactl.commands holding its Typer `app`. Sub-apps are imported and turned into
# click commands only when invoked (or listed by --help): building the whole tree costs more than a command.
NOUNS = {
    "acls": "acls",
    "auth": "auth",
    "cluster": "cluster",
    "configs": "configs",
    "diff": "diff",
    "topics": "topics",
    "groups": "groups",
    "context": "context",
    "local": "local",
    "completion": "completion",
}


class _Suggesting:
    """A misspelt subcommand is answered with the nearest one (`acl` -> `acls`, `lst` -> `list`), as options are."""

    def resolve_command(self: Any, ctx: Any, args: list[str]) -> Any:
        name = args[0] if args else ""
        if name and not name.startswith("-") and not ctx.resilient_parsing and self.get_command(ctx, name) is None:
            import difflib

            visible = [n for n in self.list_commands(ctx) if not getattr(self.get_command(ctx, n), "hidden", False)]
            close = difflib.get_close_matches(name.lower(), visible, n=1, cutoff=0.6)
            if close:
                ctx.fail(f"No such command {name!r}; did you mean {close[0]!r}?")
        return TyperGroup.resolve_command(self, ctx, args)


class _LazyNoun(_Suggesting, TyperGroup):
    """A noun whose commands become click commands when named. Typer reads each function's signature to build
    one (about 4 ms each); an invocation needs one of them, --help and the docs list them all."""

    _pending: dict[str, Any]
    _typer: Any

    def list_commands(self, ctx: Any) -> list[str]:  # noqa: ARG002 (click's signature)
        return [*self._pending, *(n for n in self.commands if n not in self._pending)]

    def get_command(self, ctx: Any, cmd_name: str) -> Any:  # noqa: ARG002 (click's signature)
        info = self._pending.get(cmd_name)
        if info is not None and cmd_name not in self.commands:
            from typer.main import get_command_from_info

            cmd = get_command_from_info(info, pretty_exceptions_short=self._typer.pretty_exceptions_short,
                                        rich_markup_mode=self._typer.rich_markup_mode)
            cmd.epilog = cmd.epilog or getattr(self, "_global_help", None)
            self.commands[cmd_name] = cmd
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
        lazy: Any = group  # a _LazyNoun now
        lazy._typer = typer_app
        lazy._pending = {info.name or get_command_name(info.callback.__name__): info
                          for info in typer_app.registered_commands}
        return group
    return get_group(typer_app)  # a noun with its own group class is built whole


# the docs/ page of each noun, named in its commands' --help
GUIDES = {"acls": "acls.md", "auth": "authorizer.md", "cluster": "authorized-operations.md", "configs": "configs.md",
          "diff": "interop.md", "topics": "authorized-operations.md", "groups": "authorized-operations.md",
          "context": "connecting.md", "local": "sandbox.md", "completion": "output-formats.md"}


class KafkactlGroup(_Suggesting, TyperGroup):
    """Runs the command tree and turns every failure into one stderr line and an exit code."""

    def list_commands(self, ctx: Any) -> list[str]:  # noqa: ARG002 (click's signature)
        return list(NOUNS)

    def get_command(self, ctx: Any, cmd_name: str) -> Any:  # noqa: ARG002 (click's signature)
        module = NOUNS.get(cmd_name)
        if module is None:
            return None
        cached: Any = self.commands.get(cmd_name)
        if cached is None:
            import importlib

            typer_app = importlib.import_module(f"kafkactl.commands.{module}").app
            if getattr(typer_app, "one_command", False):  # a verb of its own (`kafkactl diff`), not a noun
                from typer.main import get_command

                cached = get_command(typer_app)
            else:
                cached = _noun_group(typer_app)
            cached.name = cmd_name
            guide = f" Guide: docs/{GUIDES[cmd_name]} (README.md lists every page)." if cmd_name in GUIDES else ""
            cached._global_help = self.global_help() + guide
            if not hasattr(cached, "commands"):  # a one-command verb: not the root options it defines itself
                own = {o for p in cached.params for o in p.opts}
                cached.epilog = cached.epilog or self.global_help(leave_out=own) + guide
            todo = list(getattr(cached, "commands", {}).values())  # a noun built whole, its nested groups too
            while todo:
                cmd = todo.pop()
                cmd.epilog = cmd.epilog or cached._global_help
                todo += getattr(cmd, "commands", {}).values()
            self.commands[cmd_name] = cached
        return cached

    def global_help(self, leave_out: set[str] | frozenset[str] = frozenset()) -> str:
        """The epilog of every subcommand's --help: the root's options, which may follow the command too."""
        parts = []
        for p in self.params:
            if getattr(p, "is_eager", False) or getattr(p, "hidden", False) or set(p.opts) & leave_out:
                continue
            names = "/".join(p.opts)
            if not getattr(p, "is_flag", False):
                choices = getattr(p.type, "choices", None)
                names += (f" {'|'.join(str(getattr(c, 'value', c)) for c in choices)}" if choices
                          else f" {p.metavar or p.name.upper()}")
            parts.append(names)
        return "Global options, also accepted after the command: " + ", ".join(parts) + " (see kafkactl --help)."

    def _main_shell_completion(self, ctx_args: Any, prog_name: str, complete_var: str | None = None) -> None:
        instruction = os.environ.get(complete_var or "_KAFKACTL_COMPLETE")
        if not instruction:
            return
        from kafkactl.cli.shell import complete

        try:
            rv = complete(self, ctx_args, prog_name, instruction)
        except Exception:  # never a traceback in the middle of the operator's command line
            rv = 1
        sys.stdout.flush()
        if "kafkactl.privatefile" in sys.modules:
            from kafkactl.privatefile import remove_tempdirs

            remove_tempdirs()
        # a lookup abandoned at its time budget may still hold a client: skip interpreter teardown
        os._exit(rv)

    def main(self, args: Any = None, prog_name: Any = None, complete_var: Any = None,  # type: ignore[override]
             standalone_mode: bool = True, **extra: Any) -> Any:
        argv = list(sys.argv[1:] if args is None else args)
        # no process receives a NUL in its arguments (execve cannot pass one); an in-process caller can
        bad = next((a for a in argv if "\x00" in a), None)
        if bad is not None:
            error_line(f"{bad[:60]!r}: an argument may not contain a NUL character")
            return _exit(ExitCode.USAGE, standalone_mode)
        argv = hoist_global_options(self, argv)
        debug = "--debug" in argv or os.environ.get("KAFKACTL_DEBUG", "") not in ("", "0")
        # terraform's convention for a CI gate: 2 means changes, so every error (bad input too) is 1
        # any spelling (--detailed-exitcode=true is a usage error, which must not read as "changes" either)
        head = argv[:argv.index("--")] if "--" in argv else argv
        detailed = any(a.split("=", 1)[0] == "--detailed-exitcode" for a in head)
        code, ran = self._run(argv, prog_name, complete_var, debug, extra)
        # a command that ran: its own exit code (0 or 2) stands
        if detailed and not ran and code not in (ExitCode.OK, ExitCode.INTERRUPTED, ExitCode.BROKEN_PIPE):
            code = ExitCode.ERROR
        return _exit(code, standalone_mode)

    def _run(self, argv: list[str], prog_name: Any, complete_var: Any, debug: bool, extra: dict[str, Any]
             ) -> tuple[int, bool]:
        """The command run: its exit code, and whether it ran to its end (else every failure became one stderr
        line and its exit code)."""
        from click import exceptions as click_exc

        try:
            argv = optional_values(argv)
            check_argument_lengths(self, argv)
            check_option_values(self, argv)
            rv = super().main(args=argv, prog_name=prog_name or "kafkactl", complete_var=complete_var,
                              standalone_mode=False, **extra)
            code = rv if isinstance(rv, int) else 0
            if code == ExitCode.INTERRUPTED:  # typer makes a Ctrl-C in a command a silent Exit(130)
                error_line(interrupted_word())
            return code, True
        except click_exc.NoArgsIsHelpError as exc:
            exc.show()
            code = ExitCode.USAGE
        except click_exc.UsageError as exc:
            where = exc.ctx.command_path if exc.ctx is not None else "kafkactl"
            error_line(f"{where}: {abbreviated(exc.format_message(), argv)} (see {where} --help)")
            code = ExitCode.USAGE
        except click_exc.ClickException as exc:
            error_line(abbreviated(exc.format_message(), argv))
            code = exc.exit_code
        except typer.Abort:  # (a prompt makes Ctrl-C, SIGTERM and SIGHUP an Abort)
            error_line(interrupted_word() if ended_by() else "aborted")
            code = ExitCode.INTERRUPTED
        except KafkactlError as exc:
            code = _kafkactl_error(exc, debug)
        except KeyboardInterrupt:
            error_line(interrupted_word())
            code = ExitCode.INTERRUPTED
        except BrokenPipeError:
            code = _broken_pipe()
        except SystemExit as exc:
            # typer turns EPIPE into exit 1 even outside standalone mode; kafkactl documents 141
            if not isinstance(exc.__context__, BrokenPipeError):
                raise
            code = _broken_pipe()
        except OSError as exc:
            code = _os_error(exc, debug)
        except Exception as exc:  # a bug or an unexpected client failure: one line unless --debug
            spark = sys.modules.get("kafkactl.desired.spark")
            if spark is not None and spark.interrupted() and not debug:  # py4j made Ctrl-C an error of its own
                error_line(interrupted_word())
                code = ExitCode.INTERRUPTED
            else:
                code = _unexpected(exc, debug)
        return code, False


def _exit(code: int, standalone_mode: bool) -> int:
    if standalone_mode:
        sys.exit(int(code))
    return int(code)


def _kafkactl_error(exc: KafkactlError, debug: bool) -> int:
    """kafkactl's own error: what the command did before it (a partial result), the line, a hint."""
    result = getattr(exc, "result", None)
    if result is not None:
        _render_partial(result)
    error_line(exc.message)
    if exc.hint:
        stderr_line(f"hint: {one_line(exc.hint)}")
    if debug:
        traceback_lines()
    return exc.exit_code


def _os_error(exc: OSError, debug: bool) -> int:
    import errno

    if exc.filename is None and exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO):
        error_line(f"cannot write: {exc.strerror}")  # (stdout, a report, an output file: the disk said no)
        if debug:
            traceback_lines()
        return ExitCode.ERROR
    if exc.filename is None:  # not about a file the operator named: a bug or a client failure
        return _unexpected(exc, debug)
    # a path given on the command line that cannot be read or written
    error_line(f"{exc.filename}: {exc.strerror or type(exc).__name__}")
    if debug:
        traceback_lines()
    return ExitCode.NOT_FOUND if isinstance(exc, FileNotFoundError) else ExitCode.USAGE


def _unexpected(exc: BaseException, debug: bool) -> ExitCode:
    error_line(f"unexpected {type(exc).__name__}: {exc}" + ("" if debug else " (run with --debug for the traceback)"))
    if debug:
        traceback_lines()
    return ExitCode.ERROR


def _broken_pipe() -> ExitCode:
    """The reader went away (`| head -1`): stop quietly, with nothing left to flush into the closed pipe."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return ExitCode.BROKEN_PIPE


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
    epilog=("Examples:  kafkactl local up;  kafkactl --context local-admin acls list -o json;  "
            "kafkactl acls check --principal User:alice --operation Read --topic orders;  "
            "kafkactl acls plan team-a.yaml --detailed-exitcode;  "
            "kafkactl configs describe --topic orders;  kafkactl completion bash > ~/.kafkactl.bash.  "
            "Guides: README.md and docs/ (one page per topic); man kafkactl-COMMAND."),
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
    context: Annotated[str | None, typer.Option("--context", metavar="NAME",
                                                help="Context to use (default: KAFKACTL_CONTEXT, "
                                                     "then current-context).",
                                                autocompletion=complete.contexts, show_default=False)] = None,
    bootstrap_server: Annotated[str | None, typer.Option("-b", "--bootstrap-server", metavar="HOST:PORT[,...]",
                                                         help="Overrides the context's address, keeping its "
                                                              "credentials (env KAFKACTL_BOOTSTRAP_SERVERS).",
                                                         show_default=False)] = None,
    command_config: Annotated[str | None, typer.Option("--command-config", metavar="FILE",
                                                       help="Client properties file, as kafka-*.sh take it.",
                                                       show_default=False)] = None,
    output: Annotated[OutputFormat | None, typer.Option("-o", "--output",
                                                        help="Output format; table on a terminal, plain in a pipe "
                                                             "(env KAFKACTL_OUTPUT).",
                                                        show_default=False)] = None,
    timeout: Annotated[float, typer.Option("--timeout", help="Seconds to wait for the cluster.",
                                           metavar="SECONDS")] = 10.0,
    no_color: Annotated[bool, typer.Option("--no-color", help="No colours (also NO_COLOR).")] = False,
    debug: Annotated[bool, typer.Option("--debug",
                                        help="Log client activity and show tracebacks (secrets stay masked).")] = False,
    version: Annotated[bool, typer.Option("--version", callback=_version,  # noqa: ARG001 (the callback acts on it)
                                          is_eager=True, help="Print the version and exit.")] = False,
) -> None:
    global _current
    from kafkactl.privatefile import forget_reads
    from kafkactl.profiles import check_timeout, parse_bootstrap

    forget_reads()  # (the files read are this command's: a process running several, as tests do, starts afresh)
    from kafkactl.privatefile import note_read
    from kafkactl.profiles.store import contexts_path

    note_read(contexts_path())  # (read by every command that reaches a cluster, whenever it first needs it)
    if command_config:
        note_read(command_config)

    check_timeout(timeout)
    if bootstrap_server is not None:
        parse_bootstrap(bootstrap_server)  # exit 2 before anything else; resolve() normalises it later
    from kafkactl.cli.context import Injected

    injected = ctx.obj if isinstance(ctx.obj, Injected) else None
    app_ctx = AppContext(
        selection=Selection(context=context, bootstrap_servers=bootstrap_server, command_config=command_config,
                            timeout=timeout),
        output=output or default_output(),
        no_color=no_color or bool(os.environ.get("NO_COLOR")),
        debug=debug,
        gateway_factory=injected.gateway_factory if injected else None,
    )
    if debug:
        _enable_debug_logging()
    ctx.obj = _current = app_ctx


_RAW = (bytes, bytearray, memoryview)


class _Withheld:
    def __init__(self, size: int) -> None:
        self.size = size

    def __repr__(self) -> str:
        return f"<{self.size} bytes, not shown>"

    __str__ = __repr__


def _enable_debug_logging() -> None:
    from kafkactl.redact import scrub

    class ScrubbingFormatter(logging.Formatter):
        def format(self, record: logging.LogRecord) -> str:
            if isinstance(record.args, tuple) and any(isinstance(a, _RAW) for a in record.args):
                # a raw frame (kafka-python's Send:/Recv: lines) may hold a SASL exchange in any encoding:
                # its length is shown, never its bytes (the decoded request is logged beside it)
                record = logging.makeLogRecord({**record.__dict__, "args": tuple(
                    _Withheld(len(a)) if isinstance(a, _RAW) else a for a in record.args)})
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


def _buffered_stdout() -> None:
    """Under PYTHONUNBUFFERED (python -u; many CI and container images set it) standard output writes straight to
    the file descriptor, and a short write is not retried: into a pipe whose reader went away (`| head -c 100`) a
    large answer is cut at 64 KiB with no error, so the command exits 0 as if it was read. A buffered writer
    retries short writes and raises EPIPE (exit 141); it is flushed at exit, and on a terminal each line still
    shows as it is written."""
    import io

    raw = getattr(sys.stdout, "buffer", None)
    if isinstance(raw, io.FileIO):
        sys.stdout = io.TextIOWrapper(io.BufferedWriter(raw), encoding=sys.stdout.encoding, errors=sys.stdout.errors,
                                      line_buffering=raw.isatty())


def main() -> None:
    # Bulk commands hold hundreds of thousands of live objects (a state file's nodes, 1.3 million decoded config
    # entries of 20,000 topics): with the default threshold of 700 allocations, collections that find next to
    # nothing to free cost a 20,000-topic plan 2-3 s. kafkactl makes few reference cycles and lives for one
    # command, so a collection every 100,000 allocations
    import gc

    gc.set_threshold(100_000, 10, 10)
    if sys.stderr is None:  # (started with stderr closed: its lines go nowhere, as they would have)
        sys.stderr = open(os.devnull, "w")  # (for the process's whole life)
    if sys.stdout is None:  # started with stdout closed (`>&-`): nothing could be written, so nothing is done
        error_line("standard output is closed: redirect it (to /dev/null to discard what the command writes)")
        os._exit(ExitCode.USAGE)
    from kafkactl import signals

    try:  # (a Ctrl-C from here on is one line and 130, however early it comes)
        _buffered_stdout()
        signals.arm()  # (here, on the main thread: the files a command makes may be made on another)
        app(prog_name="kafkactl")
        code: Any = 0
    except SystemExit as exc:
        code = exc.code
    except KeyboardInterrupt:  # before the command's own handling began (while the command tree is built)
        error_line(interrupted_word())
        code = int(ExitCode.INTERRUPTED)
    if "kafkactl.desired.spark" in sys.modules:  # the driver JVM ends with the command, its own files removed
        from kafkactl.desired.spark import stop_sessions

        try:
            stop_sessions()
        except KeyboardInterrupt:
            code = code or int(ExitCode.INTERRUPTED)
    signals.disarm()  # (a SIGTERM from here on, in the teardown, ends the process at once)
    if isinstance(code, int):
        code = interrupted_code(code)  # SIGTERM or SIGHUP ended it as Ctrl-C would: 143, 129
    if "pyspark" in sys.modules or not isinstance(code, (int, type(None))):
        sys.exit(code)  # a Spark session (or a message as the code) gets the interpreter's own shutdown
    # Nothing kafkactl runs needs the interpreter's teardown: client handles hold no unsent data (kafkactl never
    # produces), and the one cleanup registered (private temp files) is done here. Skipping it (librdkafka's
    # destroy, module finalisation) saves about 20 ms a command.
    code = code or 0
    if "kafkactl.privatefile" in sys.modules:  # (the only cleanup kafkactl registers: its private temp files)
        from kafkactl.privatefile import remove_tempdirs

        remove_tempdirs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError) as exc:  # (what the command could not write stays buffered: said once)
            if stream is sys.stdout and code == 0:
                if isinstance(exc, BrokenPipeError):
                    code = int(ExitCode.BROKEN_PIPE)
                else:
                    error_line(f"cannot write: {getattr(exc, 'strerror', None) or exc}")
                    code = int(ExitCode.ERROR)
    os._exit(code)
