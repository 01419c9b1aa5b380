"""The exit codes kafkactl uses everywhere (documented in docs/exit-codes.md and the man pages)."""

from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0
    ERROR = 1  # a broker or internal error not covered below
    USAGE = 2  # bad input: nothing was sent to the cluster
    NOT_AUTHORIZED = 3  # the broker refused: missing ACL
    UNREACHABLE = 4  # no broker answered within --timeout
    PARTIAL = 5  # some items of a batch failed, others succeeded
    AUTHENTICATION = 6  # wrong credentials / SASL handshake refused
    NOT_FOUND = 7  # the named topic, group or context does not exist
    DENIED = 8  # `acls check`: the modelled decision is DENIED
    FINDINGS = 9  # `acls lint`: findings at or above --fail-on
    HANGUP = 129  # SIGHUP (the terminal closed): stopped as on Ctrl-C
    INTERRUPTED = 130  # Ctrl-C
    BROKEN_PIPE = 141  # the reader of stdout went away (`| head -1`)
    TERMINATED = 143  # SIGTERM (timeout(1), a cancelled CI job, a pod stopping): stopped as on Ctrl-C


DESCRIPTIONS: dict[ExitCode, str] = {
    ExitCode.OK: "success",
    ExitCode.ERROR: "error reported by the broker, an unexpected failure, or no at a confirmation prompt",
    ExitCode.USAGE: "bad input (option, value, file); nothing was sent to the cluster",
    ExitCode.NOT_AUTHORIZED: "the broker denied the request (missing ACL)",
    ExitCode.UNREACHABLE: "no broker reachable, or the request timed out (--timeout)",
    ExitCode.PARTIAL: "partial failure: some items succeeded, others failed or were not sent (when every item failed "
                      "for one reason, that reason's code)",
    ExitCode.AUTHENTICATION: "authentication failed (wrong user or password, SASL mechanism refused, TLS certificate "
                             "refused or not trusted)",
    ExitCode.NOT_FOUND: "the named topic, group, context or file does not exist",
    ExitCode.DENIED: "acls check: the operation would be denied; acls why: a check is missing",
    ExitCode.FINDINGS: "acls lint: findings at or above --fail-on",
    ExitCode.HANGUP: "hung up (SIGHUP): stopped as on Ctrl-C, what it did written out",
    ExitCode.INTERRUPTED: "interrupted (Ctrl-C)",
    ExitCode.BROKEN_PIPE: "the reader of standard output closed the pipe",
    ExitCode.TERMINATED: "terminated (SIGTERM): stopped as on Ctrl-C, what it did written out (the report, the "
                         "per-change result on stdout)",
}
