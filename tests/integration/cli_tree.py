"""The command tree as the fault matrix and the CLI fuzzer see it: every leaf command, read from the root group
itself, with the smallest arguments that make each one talk to the cluster.

A command that has no entry in MINIMAL_ARGS gets its required parameters filled in by type (`_generated`), so a
new command joins the matrix without an edit here; OFFLINE lists the commands that never talk to a cluster, and
the matrix checks that claim too (under a refused address they must not exit 4).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

PROBE = "fault-probe"

# the smallest valid arguments; "{state}" is a desired-state file scoped to User:fault-probe-
MINIMAL_ARGS: dict[str, list[str]] = {
    "acls create": ["--allow-principal", f"User:{PROBE}", "--operation", "Read", "--topic", PROBE],
    "acls list": [],
    "acls delete": ["--principal", f"User:{PROBE}", "--yes"],
    "acls check": ["--principal", f"User:{PROBE}", "--operation", "Read", "--topic", PROBE],
    "acls explain": ["--principal", f"User:{PROBE}", "--topic", PROBE],
    "acls who-can": ["--operation", "Read", "--topic", PROBE],
    "acls why": ["--principal", f"User:{PROBE}", "--role", "consumer", "--topic", PROBE, "--group", PROBE],
    "acls report": ["--principal", f"User:{PROBE}"],
    "acls lint": [],
    "acls export": ["--principal-prefix", f"User:{PROBE}-"],
    "acls plan": ["{state}"],
    "acls apply": ["{state}", "--yes"],
    "auth whoami": [],
    # without --rules the brokers' ssl.principal.mapping.rules are read: DescribeConfigs on a broker
    "auth principal": ["--ssl-dn", f"CN={PROBE},OU=x"],
    "cluster describe": [],
    "configs list": [],
    "configs describe": ["--topic", PROBE],
    "configs alter": ["--topic", PROBE, "--add-config", "retention.ms=3600000"],
    "configs delete": ["--topic", PROBE, "retention.ms"],
    "configs export": ["--section", "topics", "--prefix", PROBE],
    "configs plan": ["{config_state}"],
    "configs apply": ["{config_state}", "--yes"],
    "topics list": [],
    "topics describe": [PROBE],
    "topics create": [f"{PROBE}-new", "--dry-run"],
    "topics delete": [f"{PROBE}-gone", "--yes"],
    "groups list": [],
    "groups describe": [PROBE],
}
# further argument sets of the same commands that take another path through the gateway
VARIANTS: list[tuple[str, list[str]]] = [
    ("configs describe", ["--entity-type", "groups"]),
    ("configs list", ["--entity-type", "groups"]),
    ("topics describe", ["--authorized-ops"]),
    ("groups describe", ["--authorized-ops"]),
    ("cluster describe", ["--authorized-ops"]),
    ("configs describe", ["--user", PROBE]),
    ("configs describe", ["--broker", "1"]),
    ("acls report", ["--topic", PROBE]),
]
OFFLINE = {
    "acls decode-ops": "decodes a number",
    "context list": "reads the contexts file", "context current": "reads the contexts file",
    "context use": "writes the contexts file", "context add": "writes the contexts file",
    "context delete": "writes the contexts file",
    "local up": "starts a sandbox", "local down": "stops a sandbox", "local status": "reads the sandbox state",
    "local env": "prints exports",
    "local spark up": "starts a Spark cluster", "local spark down": "stops a Spark cluster",
    "local spark status": "reads the Spark cluster's state",
    "acls import": "reads other tools' files",
    "completion bash": "prints a script", "completion zsh": "prints a script", "completion fish": "prints a script",
}

STATE_YAML = f"""apiVersion: kafkactl/v1
kind: AclState
scope:
  principalPrefixes: ["User:{PROBE}-"]
acls:
  - principal: User:{PROBE}-app
    allow:
      - {{topic: {PROBE}, operations: [Read]}}
"""


CONFIG_STATE_YAML = f"""apiVersion: kafkactl/v1
kind: State
topics:
  - name: {PROBE}
    configs: {{retention.ms: 3600000}}
"""
# commands that name their clusters themselves (two --context of their own): the matrix's root options would be
# refused beside them (exit 2); test_fault_matrix.py runs them under each fault on their own
OWN_CLUSTERS = {"diff": ["--context", "local-admin", "--context", "local-alice"]}


def leaf_commands() -> Iterator[tuple[str, Any]]:
    """(path, click command) for every visible leaf of the root group."""
    import click

    from kafkactl.cli.root import app_group

    def walk(cmd: Any, path: list[str]) -> Iterator[tuple[str, Any]]:
        if isinstance(cmd, click.Group):
            for name in cmd.list_commands(None):
                sub = cmd.get_command(None, name)
                if sub is not None and not getattr(sub, "hidden", False):
                    yield from walk(sub, [*path, name])
        else:
            yield " ".join(path), cmd

    yield from walk(app_group(), [])


def _generated(cmd: Any) -> list[str]:
    """Values for a command's required parameters, by type: a new command gets a first try without an edit."""
    import click

    args: list[str] = []
    for p in cmd.params:
        if not p.required:
            continue
        value = "1" if isinstance(p.type, (click.types.IntParamType, click.types.FloatParamType)) else PROBE
        if isinstance(p, click.Option):
            args += [p.opts[0], value]
        else:
            args.append(value)
    return args


def cluster_commands(tmp: Path) -> list[tuple[str, list[str]]]:
    """(path, argv after the path) for every command that talks to a cluster, variants included."""
    state = tmp / "fault-state.yaml"
    state.write_text(STATE_YAML)
    config_state = tmp / "fault-config-state.yaml"
    config_state.write_text(CONFIG_STATE_YAML)
    out = []
    for path, cmd in leaf_commands():
        if path in OFFLINE or path in OWN_CLUSTERS:
            continue
        args = MINIMAL_ARGS.get(path)
        out.append((path, [a.replace("{state}", str(state)).replace("{config_state}", str(config_state))
                           for a in (args if args is not None else _generated(cmd))]))
    out += [(p, list(a)) for p, a in VARIANTS]
    return out
