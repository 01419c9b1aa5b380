"""acls lint, the incomplete-preset check (issue 17): a principal that holds most of a preset (kafkactl.acl.presets)
but not all of it, whose client will fail on the rest. Pure.

A preset is recognised from what its ACLs name, never guessed from topic names alone:
- a Kafka Streams app: Read on a literal group G and an ACL on the topics or transactional ids prefixed `G-`;
- a Connect worker: Read on a literal group G and an ACL on one of G-configs, G-offsets, G-status (the default
  names; a worker with other topic names is not recognised).
Of such a preset, the grants it knows the names of (the app's internal topics, group and transactional ids; the
worker's group and topics, not the topics its connectors use) are decided by the authorizer model for the principal
(its own ACLs, User:* and DENYs included). "Most of": at least half granted, at least one not.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable, Sequence

from kafkactl.acl import presets
from kafkactl.acl.authorizer import Authorizer
from kafkactl.acl.lint import Finding
from kafkactl.acl.model import WILDCARD, AclBinding, AclOperation, PatternType, Permission, ResourceType

RT = ResourceType


def incomplete(bindings: Sequence[AclBinding], super_users: Iterable[str] = (),
               allow_everyone_if_no_acl: bool = False) -> list[Finding]:
    supers = frozenset(super_users)
    az = Authorizer(bindings, supers, allow_everyone_if_no_acl)
    groups: dict[str, set[str]] = {}  # principal -> literal groups it may Read
    prefixes: dict[str, set[tuple[RT, str]]] = {}  # principal -> (type, prefix) of its PREFIXED ALLOWs
    topics: dict[str, set[str]] = {}
    for b in bindings:
        if b.permission is not Permission.ALLOW or b.principal in supers or b.principal.endswith(":" + WILDCARD):
            continue
        if b.resource_type is RT.GROUP and b.pattern_type is PatternType.LITERAL and b.resource_name != WILDCARD \
                and b.operation in (AclOperation.READ, AclOperation.ALL):
            groups.setdefault(b.principal, set()).add(b.resource_name)
        elif b.pattern_type is PatternType.PREFIXED:
            prefixes.setdefault(b.principal, set()).add((b.resource_type, b.resource_name))
        elif b.resource_type is RT.TOPIC and b.pattern_type is PatternType.LITERAL:
            topics.setdefault(b.principal, set()).add(b.resource_name)
    findings = []
    for principal, names in sorted(groups.items()):
        for group in sorted(names):
            found = []
            if {(RT.TOPIC, f"{group}-"), (RT.TRANSACTIONAL_ID, f"{group}-")} & prefixes.get(principal, set()):
                found.append(presets.streams_own(group))
            if set(presets.worker_topics(group)) & topics.get(principal, set()):
                found.append(presets.connect_worker(group))
            for preset in found:
                finding = _judge(az, principal, preset)
                if finding is not None:
                    findings.append(finding)
    return findings


def _judge(az: Authorizer, principal: str, preset: presets.Preset) -> Finding | None:
    missing = [g for g in preset.grants if not _allowed(az, principal, g)]
    if not missing or len(missing) * 2 > len(preset.grants):
        return None
    said = ", ".join(f"{g.operation.pascal} on {g.resource_type.name}:{g.name}"
                     f"{' (prefixed)' if g.pattern is PatternType.PREFIXED else ''}" for g in missing)
    option = {"streams": "--streams", "connect-worker": "--connect-worker"}[preset.kind]
    anchor = preset.label.rsplit(" ", 1)[1]
    command = (f"kafkactl acls create --allow-principal {shlex.quote(principal)} {option} {shlex.quote(anchor)}"
               + (" --topic INPUT --output-topic OUTPUT" if preset.kind == "streams" else ""))
    return Finding("warning", "incomplete-preset", principal,
                   f"holds {len(preset.grants) - len(missing)} of the {len(preset.grants)} ACLs of the {preset.kind} "
                   f"preset for {preset.label}; its client fails without {said} (grant them all: {command})",
                   tuple(AclBinding(g.resource_type, g.name, g.pattern, principal, WILDCARD, g.operation,
                                    Permission.ALLOW) for g in missing))


def _allowed(az: Authorizer, principal: str, g: presets.Grant) -> bool:
    return az.authorize(principal, WILDCARD, g.operation, g.resource_type, g.asked_name()).allowed
