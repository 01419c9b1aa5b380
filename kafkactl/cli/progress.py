"""A progress bar on stderr, only when stderr is a terminal and the job is big enough to need one."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Callable, Iterator


@contextmanager
def progress_bar(app_ctx, total: int, label: str, threshold: int = 1) -> Iterator[Callable[[int], None]]:
    if total <= threshold or not app_ctx.stderr_is_tty():
        yield lambda n: None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                  console=app_ctx.err_console, transient=True) as progress:
        task = progress.add_task(label, total=total)
        yield lambda n: progress.advance(task, n)
