"""A progress bar on stderr, only when stderr is a terminal and the job is big enough to need one."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any


@contextmanager
def progress_bar(app_ctx, total: int, label: str, threshold: int = 1) -> Iterator[Callable[[int], None]]:
    if total <= threshold or not app_ctx.stderr_is_tty():
        yield lambda n: None  # noqa: ARG005 (the bar's advance takes the count)
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                  console=app_ctx.err_console, transient=True) as progress:
        task = progress.add_task(label, total=total)
        yield lambda n: progress.advance(task, n)


class SparkProgress:
    """Spark's tasks as a bar on stderr (a terminal only), shown from Spark's first report until `close`."""

    def __init__(self, app_ctx) -> None:
        self._ctx = app_ctx
        self._progress: Any = None
        self._task: Any = None
        self._lock = threading.Lock()

    def _started(self) -> Any:
        if self._progress is None:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

            self._progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                      console=self._ctx.err_console, transient=True)
            self._progress.start()
            self._task = None
        return self._progress

    def __call__(self, what: str, done: int, total: int) -> None:
        with self._lock:
            progress = self._started()
            if self._task is None:
                self._task = progress.add_task(what, total=total)
            progress.update(self._task, description=f"{what} (tasks)", completed=done, total=total)

    def bindings(self, total: int, label: str) -> Callable[[int], None]:
        """kafkactl's own count (bindings applied) in the same display as Spark's tasks: rich shows one at a time."""
        with self._lock:
            task = self._started().add_task(label, total=total)

        def advance(n: int) -> None:
            with self._lock:
                if self._progress is not None:
                    self._progress.advance(task, n)
        return advance

    def close(self) -> None:
        with self._lock:
            if self._progress is not None:
                self._progress.stop()
                self._progress = None


@contextmanager
def spark_progress(app_ctx) -> Iterator[SparkProgress | None]:
    """A watcher for the Spark engine on a terminal, else None (nothing on stderr but the summary)."""
    if not app_ctx.stderr_is_tty():
        yield None
        return
    bar = SparkProgress(app_ctx)
    try:
        yield bar
    finally:
        bar.close()
