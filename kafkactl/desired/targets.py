"""Which clusters a desired state goes to: --context (repeatable), else the file's clusters:, else the current one.
Two of those naming different clusters is an error, never a silent choice."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from kafkactl.errors import UsageError
from kafkactl.profiles import Profile, Selection, resolve

if TYPE_CHECKING:
    from kafkactl.gateway import Gateway


@dataclass(frozen=True)
class Target:
    name: str
    profile: Profile

    def gateway(self, debug: bool = False, connect: Callable[[Profile], Gateway] | None = None) -> Gateway:
        """The target's client, made by `connect` (the app context's factory) when given."""
        if connect is not None:
            return connect(self.profile)
        from kafkactl.gateway import Gateway

        return Gateway(self.profile, debug=debug)


def resolve_targets(contexts: Sequence[str], file_clusters: Sequence[str], selection: Selection) -> list[Target]:
    names = list(dict.fromkeys(contexts or file_clusters))
    if not names:
        p = resolve(selection)
        # named by -b when one was given (the context then only lends its credentials), else by its context
        return [Target(p.bootstrap_servers if selection.bootstrap_servers else (p.context or p.bootstrap_servers), p)]
    return [Target(n, resolve(replace(selection, context=n, bootstrap_servers=None, command_config=None)))
            for n in names]


def check_choice(contexts: Sequence[str], file_clusters: Sequence[str], flags: Selection,
                 env: Mapping[str, str] | None = None) -> None:
    """Refuse a cluster choice that another would silently override (exit 2, before any request).

    The plan's own --context is the explicit choice: it beats a KAFKACTL_CONTEXT in the environment, but -b or
    --command-config (or their variables), which it would ignore, and a root --context naming another cluster
    are refused with it. Without it, a file's clusters: list and any other choice (root --context, -b,
    --command-config or their variables) are refused together: the file says one place, the command line or
    the shell another, and guessing wrong applies a policy to the wrong cluster."""
    env = os.environ if env is None else env
    given = _given(flags, env)
    if contexts:
        named = set(contexts)
        clash = [g for key, g, _ in given if key != "context" or (flags.context and flags.context not in named)]
        if clash:
            raise UsageError(f"--context {', '.join(dict.fromkeys(contexts))} (the command's) and "
                             f"{' and '.join(clash)} both choose the cluster: leave one out")
    elif file_clusters and given:
        only = [g for key, g, value in given if not (key == "context" and set(file_clusters) == {value})]
        if only:
            raise UsageError(f"the file names clusters {', '.join(dict.fromkeys(file_clusters))} and "
                             f"{' and '.join(only)} chooses another: say which with the command's --context "
                             "(repeatable)")


def _given(flags: Selection, env: Mapping[str, str]) -> list[tuple[str, str, str]]:
    """What chose a cluster: (field, as the user wrote it, value). Addresses hold no credentials (parse_bootstrap
    refuses user:password@ before this runs) and --command-config names a file, not its contents."""
    out = []
    for key, option, variable in (("context", "--context", "KAFKACTL_CONTEXT"),
                                  ("bootstrap_servers", "-b", "KAFKACTL_BOOTSTRAP_SERVERS"),
                                  ("command_config", "--command-config", "KAFKACTL_COMMAND_CONFIG")):
        flag = getattr(flags, key)
        if flag:
            out.append((key, f"{option} {flag}", flag))
        elif env.get(variable):
            out.append((key, f"{variable}={env[variable]}", env[variable]))
    return out
