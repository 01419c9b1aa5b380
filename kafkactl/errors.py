"""The error hierarchy of kafkactl's core; each class carries its exit code."""

from __future__ import annotations

from kafkactl.exitcodes import ExitCode


class KafkactlError(Exception):
    """Base class: a message for one line on stderr and an exit code."""

    exit_code: ExitCode = ExitCode.ERROR
    # the per-item result envelope, printed on stdout with the error (cli.root), when a change stopped part way
    result: object = None

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    @classmethod
    def like(cls, other: KafkactlError, message: str) -> KafkactlError:
        """A new error of the same class (and so exit code) as `other`."""
        return type(other)(message)


class UsageError(KafkactlError):
    exit_code = ExitCode.USAGE


class StateFileError(UsageError):
    """A malformed desired-state or ACL-set file: the message names file, line/row and field."""


class ConfigError(UsageError):
    """A broken contexts file, properties file or unsupported client setting."""


class NotFoundError(KafkactlError):
    exit_code = ExitCode.NOT_FOUND


class MissingFileError(NotFoundError):
    """A file or directory named on the command line does not exist: exit 7 wherever it is named."""


class NotAuthorizedError(KafkactlError):
    exit_code = ExitCode.NOT_AUTHORIZED


class UnreachableError(KafkactlError):
    exit_code = ExitCode.UNREACHABLE


class PartialAnswer(UnreachableError):
    """Some brokers did not answer a request each broker answers for its own part of (ListGroups: the groups it
    coordinates). What the others said is in `partial`: never a result by itself, so a caller that needs the whole
    answer fails with the error; one that may show part of it says so (PartialFailure)."""

    def __init__(self, message: str, partial: list[object]) -> None:
        super().__init__(message)
        self.partial = partial


class AuthenticationError(KafkactlError):
    exit_code = ExitCode.AUTHENTICATION


class PartialFailure(KafkactlError):
    """Some items failed. `result` (the full per-item envelope) is still printed on stdout."""

    exit_code = ExitCode.PARTIAL

    def __init__(self, message: str, *, result: object = None, hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.result = result


class BrokerError(KafkactlError):
    exit_code = ExitCode.ERROR


class Aborted(KafkactlError):
    """The operator answered no at a confirmation prompt."""


class SandboxError(KafkactlError):
    """The local sandbox broker could not be assembled, started or stopped."""


class Terminated(KeyboardInterrupt):
    """SIGTERM (timeout(1), a cancelled CI job, a pod stopping) or SIGHUP (a closed terminal), raised in the main
    thread as Ctrl-C's KeyboardInterrupt is: a command stops the same way (its report and per-change result
    written) and exits 143 or 129 (kafkactl/signals.py)."""
