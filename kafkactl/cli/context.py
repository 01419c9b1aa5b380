"""The application object every command receives as ctx.obj."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kafkactl.errors import UsageError
from kafkactl.formatters import OutputFormat, render
from kafkactl.profiles import Selection


def default_output() -> OutputFormat:
    env = os.environ.get("KAFKACTL_OUTPUT")
    if env:
        try:
            return OutputFormat(env.strip().lower())
        except ValueError:
            raise UsageError(f"KAFKACTL_OUTPUT={env}: not one of {', '.join(f.value for f in OutputFormat)}") from None
    return OutputFormat.table if sys.stdout.isatty() else OutputFormat.plain


@dataclass(frozen=True)
class Injected:
    """What an embedding caller (a test) hands the root command as Click's `obj`: a gateway factory, so commands'
    rendering, notes and exit codes run without a broker. Broker behaviour is tested against the broker."""

    gateway_factory: Callable[..., Any]


@dataclass
class AppContext:
    selection: Selection = field(default_factory=Selection)
    output: OutputFormat = OutputFormat.plain
    no_color: bool = False
    debug: bool = False
    # what builds the client for a resolved profile: the Gateway; a test may hand in another (see Injected)
    gateway_factory: Callable[..., Any] | None = None
    _gateway: Any = None
    _adopted: list = field(default_factory=list)
    _console: Any = None
    _err_console: Any = None

    # ---------------------------------------------------------------- terminals
    @property
    def console(self) -> Any:
        if self._console is None:
            self._console = _make_console(sys.stdout, self.no_color)
        return self._console

    @property
    def err_console(self) -> Any:
        if self._err_console is None:
            self._err_console = _make_console(sys.stderr, self.no_color)
        return self._err_console

    def stderr_is_tty(self) -> bool:
        return sys.stderr.isatty()

    def interactive(self) -> bool:
        return sys.stdin.isatty() and sys.stdout.isatty()

    @property
    def out(self) -> Any:
        """Standard output, for what streams as it is read (acls export writes its file there)."""
        return sys.stdout

    def render(self, data: Any, of: type | None = None, empty: str | None = None) -> None:
        """`of`: the row type of a list (an empty one still prints its csv header); `empty`: what a terminal is told
        on stderr instead of an empty table (json prints [], yaml [], csv the header)."""
        if of is not None and isinstance(data, list) and not data:
            from kafkactl.formatters.model import Rows

            data = Rows(data, of)
        if empty is not None and self.output is OutputFormat.table and isinstance(data, list) and not data:
            if empty:  # ("": the command's own summary says it)
                self.note(empty)
            return
        render(data, self.output, sys.stdout, self.console if self.output is OutputFormat.table else None)

    def render_to_stderr(self, data: Any) -> None:
        """A preview (e.g. what a delete will remove) on stderr, so stdout keeps only the result."""
        from kafkactl.formatters.table import render_table

        render_table(data, self.err_console)

    def message(self, text: str, color: str | None = None) -> None:
        # plain writes: importing rich for one stderr line would cost more than the command itself
        if color and not self.no_color and sys.stderr.isatty() and os.environ.get("TERM") != "dumb":
            text = f"\033[{color}m{text}\033[0m"
        sys.stderr.write(text + "\n")
        sys.stderr.flush()

    def warn(self, text: str) -> None:
        self.message(f"warning: {text}", "33")

    def hint(self, text: str | None) -> None:
        """A hint on stderr; None (the core found none fits the caller) says nothing."""
        if text:
            self.message(f"hint: {text}", "2")

    def note(self, text: str) -> None:
        self.message(text)

    # ---------------------------------------------------------------- cluster access
    def profile(self) -> Any:
        from kafkactl.profiles import ContextStore, resolve

        store = ContextStore.load()
        try:
            return resolve(self.selection, store=store)
        finally:  # (the contexts file's, and a --command-config's read while resolving)
            for w in store.warnings:
                self.warn(w)

    def gateway(self) -> Any:
        if self._gateway is None:
            self._gateway = self.connect(self.profile())
        return self._gateway

    def connect(self, profile: Any) -> Any:
        """A client for `profile` (another cluster than the selected one: a plan's targets, diff's two), made by the
        same factory as gateway(): what the engines take, so that a test can hand in its own."""
        factory = self.gateway_factory
        if factory is None:
            from kafkactl.gateway import Gateway

            factory = Gateway
        return factory(profile, debug=self.debug)

    def adopt(self, owner: Any) -> None:
        """Close `owner` (something holding clients the core made, e.g. a plan's) with this context's own."""
        self._adopted.append(owner)

    def close(self) -> None:
        """Close the clients. The kafkactl process skips this (its exit ends them faster); an embedding caller,
        such as a test running many commands in one interpreter, must not leave their threads behind."""
        if self._gateway is not None:
            self._gateway.close()
            self._gateway = None
        while self._adopted:
            self._adopted.pop().close()

    def confirm(self, question: str, assume_yes: bool, what: str) -> None:
        """Ask on a TTY; elsewhere refuse unless --yes was given (nothing is changed then)."""
        from kafkactl.errors import Aborted

        if assume_yes:
            return
        if not self.interactive():
            raise UsageError(f"refusing to {what} without confirmation: stdin/stdout is not a terminal; pass --yes")
        import typer

        if not typer.confirm(question, default=False, err=True):
            raise Aborted("aborted: nothing was changed")


def _make_console(stream: Any, no_color: bool) -> Any:
    from rich.console import Console

    tty = stream.isatty()
    # In a pipe rich would wrap and truncate at 80 columns; data must never be cut for a script.
    width = None if tty else 100_000
    # --no-color (or NO_COLOR) is no escape sequence at all: no bold, no underline either (rich keeps those)
    plain = no_color or bool(os.environ.get("NO_COLOR"))
    console = Console(file=stream, no_color=plain or None, highlight=False, width=width, force_terminal=None,
                      soft_wrap=not tty, color_system=None if plain else "auto")

    def on_broken_pipe() -> None:
        # rich would exit 1 here; the root group owns exit codes (141, quietly)
        console.quiet = True
        raise BrokenPipeError

    console.on_broken_pipe = on_broken_pipe  # type: ignore[method-assign]  # rich's hook, replaced on purpose
    return console
