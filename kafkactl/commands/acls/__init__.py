"""`kafkactl acls`: every command of the noun, registered here in the order --help lists them.

crud: create, list, delete (kafka-acls.sh), decode-ops; authz: check, explain, who-can, why, report, lint (the
authorizer model); state: export, import, plan, apply (desired state)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import typer

from kafkactl.commands.acls import authz, crud, state

app = typer.Typer(help="Create, list and delete ACLs (kafka-acls.sh).", no_args_is_help=True)

_fn: Callable[..., Any]
for _name, _fn, _alias in (("create", crud.acls_create, "add"), ("list", crud.acls_list, "describe"),
                           ("delete", crud.acls_delete, "remove")):
    app.command(_name)(_fn)
    app.command(_alias, hidden=True, help=f"Alias of `kafkactl acls {_name}`.")(_fn)
for _name, _fn in (("decode-ops", crud.acls_decode_ops), ("check", authz.acls_check),
                   ("explain", authz.acls_explain), ("who-can", authz.acls_who_can), ("why", authz.acls_why),
                   ("report", authz.acls_report), ("lint", authz.acls_lint),
                   ("export", state.acls_export), ("import", state.acls_import), ("plan", state.acls_plan),
                           ("apply", state.acls_apply)):
    app.command(_name)(_fn)
