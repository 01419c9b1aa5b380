"""The contexts file: named clusters with their connection settings, and which one is current."""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kafkactl.errors import ConfigError, NotFoundError
from kafkactl.profiles.properties import not_utf8, settings_from_properties
from kafkactl.results import API_VERSION

_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@-]*$")


def config_home() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "kafkactl"


def contexts_path() -> Path:
    return config_home() / "config.yaml"


@dataclass
class Context:
    name: str
    bootstrap_servers: str | None = None
    command_config: str | None = None
    properties: dict[str, str] = field(default_factory=dict)
    super_users: list[str] = field(default_factory=list)
    allow_everyone_if_no_acl_found: bool = False
    managed_by: str | None = None  # "local" for contexts written by `kafkactl local up`

    def to_yaml(self) -> dict[str, Any]:
        d: dict[str, Any] = {}
        if self.bootstrap_servers:
            d["bootstrap-servers"] = self.bootstrap_servers
        if self.command_config:
            d["command-config"] = self.command_config
        if self.properties:
            d["properties"] = dict(self.properties)
        if self.super_users:
            d["super-users"] = list(self.super_users)
        if self.allow_everyone_if_no_acl_found:
            d["allow-everyone-if-no-acl-found"] = True
        if self.managed_by:
            d["managed-by"] = self.managed_by
        return d

    @classmethod
    def from_yaml(cls, name: str, d: Any, path: Path) -> Context:
        if not isinstance(d, dict):
            raise ConfigError(f"{path}: context {name!r} must be a mapping")
        known = {"bootstrap-servers", "command-config", "properties", "super-users",
                 "allow-everyone-if-no-acl-found", "managed-by"}
        unknown = sorted(set(d) - known)
        if unknown:
            raise ConfigError(f"{path}: context {name!r} has unknown key {unknown[0]!r}")
        props = d.get("properties") or {}
        if not isinstance(props, dict):
            raise ConfigError(f"{path}: context {name!r}: properties must be a mapping")
        return cls(
            name=name,
            bootstrap_servers=d.get("bootstrap-servers"),
            command_config=d.get("command-config"),
            properties={str(k): str(v) for k, v in props.items()},
            super_users=[str(u) for u in d.get("super-users") or []],
            allow_everyone_if_no_acl_found=bool(d.get("allow-everyone-if-no-acl-found", False)),
            managed_by=d.get("managed-by"),
        )


@dataclass
class ContextStore:
    path: Path
    contexts: dict[str, Context] = field(default_factory=dict)
    current: str | None = None
    warnings: list[str] = field(default_factory=list)

    @classmethod
    def load(cls, path: Path | None = None) -> ContextStore:
        path = path or contexts_path()
        store = cls(path=path)
        if not path.exists():
            return store
        from kafkactl.privatefile import note_read

        note_read(path)  # (every command reads it: no --file, --out or --report may be written over it)
        mode = stat.S_IMODE(path.stat().st_mode)
        if mode & 0o077:
            store.warnings.append(
                f"{path} is readable by other users (mode {mode:o}); it may hold passwords: chmod 600 {path}")
        import yaml

        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        try:
            data = yaml.load(path.read_text(encoding="utf-8"), Loader=loader) or {}
        except UnicodeDecodeError as exc:
            raise ConfigError(f"{path}: {not_utf8(exc)}") from None
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f" line {mark.line + 1}" if mark else ""
            raise ConfigError(f"{path}{where}: not valid YAML") from None
        if not isinstance(data, dict):
            raise ConfigError(f"{path}: expected a mapping at the top level")
        raw = data.get("contexts") or {}
        if not isinstance(raw, dict):
            raise ConfigError(f"{path}: 'contexts' must be a mapping of name to settings")
        store.contexts = {str(k): Context.from_yaml(str(k), v, path) for k, v in raw.items()}
        store.current = data.get("current-context")
        return store

    def save(self) -> None:
        import yaml

        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        data = {
            "apiVersion": API_VERSION,
            "current-context": self.current,
            "contexts": {name: c.to_yaml() for name, c in sorted(self.contexts.items())},
        }
        from kafkactl.privatefile import write_private

        # 0600 from the first byte: the file may hold passwords
        write_private(self.path, yaml.safe_dump(data, sort_keys=False, default_flow_style=False))

    def get(self, name: str) -> Context:
        try:
            return self.contexts[name]
        except KeyError:
            import difflib

            known = ", ".join(sorted(self.contexts)) or "none defined"
            near = difflib.get_close_matches(name, sorted(self.contexts), n=1, cutoff=0.6) if len(name) < 100 else []
            mean = f"did you mean {near[0]}? " if near else ""
            raise NotFoundError(f"context {name!r} does not exist ({mean}known: {known})") from None

    def put(self, ctx: Context) -> None:
        validate_context_name(ctx.name)
        self.contexts[ctx.name] = ctx

    def delete(self, name: str) -> None:
        self.get(name)
        del self.contexts[name]
        if self.current == name:
            self.current = None

    def use(self, name: str) -> None:
        self.get(name)
        self.current = name


def validate_context_name(name: str) -> None:
    if not _NAME_RE.match(name):
        raise ConfigError(f"context name {name!r} may only hold letters, digits, '.', '_', '@' and '-'")


# --------------------------------------------------------------------------- resolution


@dataclass(frozen=True)
class ContextRow:
    COLUMNS = ("name", "current", "bootstrap_servers", "user", "mechanism", "certificate", "managed_by")
    name: str
    current: bool
    bootstrap_servers: str | None
    user: str | None
    mechanism: str | None
    managed_by: str | None
    certificate: str | None = None  # the client certificate's PEM file (mTLS without SASL): the brokers' principal


def context_rows(store: ContextStore) -> list[ContextRow]:
    rows = []
    for name, c in sorted(store.contexts.items()):
        try:
            s = settings_from_properties(c.properties, f"context {name}")
        except ConfigError:
            s = {}
        mtls = not s.get("username") and str(s.get("security_protocol", "")).upper() == "SSL"
        rows.append(ContextRow(name=name, current=name == store.current, bootstrap_servers=c.bootstrap_servers,
                               # (an OAuth context's user is its client id)
                               user=s.get("username") or (s["oauth"].client_id if s.get("oauth") else None)
                               or (s["kerberos"].principal if s.get("kerberos") else None),
                               mechanism=s.get("sasl_mechanism"), managed_by=c.managed_by,
                               certificate=s.get("ssl_certfile") if mtls else None))
    return rows
