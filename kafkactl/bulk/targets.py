"""Which clusters a desired state goes to: --context (repeatable), else the file's clusters:, else the current one."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Sequence

from kafkactl.profiles import Profile, Selection, resolve


@dataclass(frozen=True)
class Target:
    name: str
    profile: Profile

    def gateway(self, debug: bool = False):
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
