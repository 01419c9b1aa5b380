"""Shared options, defined once."""

from __future__ import annotations

from typing import Annotated

import typer

from kafkactl.cli import completers as complete

Yes = Annotated[bool, typer.Option("--yes", "--force", "-y",
                                   help="Do not ask for confirmation (required when not on a terminal).")]
DryRun = Annotated[bool, typer.Option("--dry-run", help="Show or validate what would be done; change nothing.")]

_R = "Resources"
_E = "Entries"
_F = "Filters"
Topics = Annotated[list[str] | None, typer.Option("--topic", help="Topic name (repeatable; * = every topic).",
                                                  autocompletion=complete.topics, rich_help_panel=_R,
                                                  show_default=False)]
Groups = Annotated[list[str] | None, typer.Option("--group", help="Consumer group (repeatable; * = every group).",
                                                  autocompletion=complete.groups, rich_help_panel=_R,
                                                  show_default=False)]
Cluster = Annotated[bool, typer.Option("--cluster", help="The cluster resource (kafka-cluster).", rich_help_panel=_R)]
TransactionalIds = Annotated[list[str] | None, typer.Option("--transactional-id", help="Transactional id (repeatable).",
                                                            rich_help_panel=_R, show_default=False)]
DelegationTokens = Annotated[list[str] | None, typer.Option("--delegation-token",
                                                            help="Delegation token id (repeatable).",
                                                            rich_help_panel=_R, show_default=False)]
UserPrincipals = Annotated[list[str] | None, typer.Option("--user-principal",
                                                          help="A user principal as the resource, e.g. "
                                                               "User:bob (repeatable).",
                                                          autocompletion=complete.principals, rich_help_panel=_R,
                                                          show_default=False)]
PatternTypeOpt = Annotated[str | None, typer.Option("--resource-pattern-type", metavar="literal|prefixed|any|match",
                                                    help="literal|prefixed (create); any|match|literal|prefixed (list, "
                                                         "delete). Default: literal.",
                                                    autocompletion=complete.pattern_types, rich_help_panel=_R,
                                                    show_default=False)]
AllowPrincipals = Annotated[list[str] | None, typer.Option("--allow-principal",
                                                           help="Principal Type:name to allow (repeatable).",
                                                           autocompletion=complete.principals, rich_help_panel=_E,
                                                           show_default=False)]
DenyPrincipals = Annotated[list[str] | None, typer.Option("--deny-principal",
                                                          help="Principal Type:name to deny (repeatable).",
                                                          autocompletion=complete.principals, rich_help_panel=_E,
                                                          show_default=False)]
AllowHosts = Annotated[list[str] | None, typer.Option("--allow-host",
                                                      help="Host (IP) for --allow-principal (repeatable; default *).",
                                                      rich_help_panel=_E, show_default=False)]
DenyHosts = Annotated[list[str] | None, typer.Option("--deny-host",
                                                     help="Host (IP) for --deny-principal (repeatable; default *).",
                                                     rich_help_panel=_E, show_default=False)]
Operations = Annotated[list[str] | None, typer.Option("--operation",
                                                      help="Operation, e.g. Read, IdempotentWrite (repeatable; "
                                                           "create default: All).",
                                                      autocompletion=complete.operations, rich_help_panel=_E,
                                                      show_default=False)]
Principals = Annotated[list[str] | None, typer.Option("--principal", help="Only ACLs of this principal (repeatable).",
                                                      autocompletion=complete.principals, rich_help_panel=_F,
                                                      show_default=False)]
Hosts = Annotated[list[str] | None, typer.Option("--host", help="Only ACLs for this host (repeatable).",
                                                 rich_help_panel=_F, show_default=False)]
PermissionOpt = Annotated[str | None, typer.Option("--permission", metavar="allow|deny",
                                                   help="Only allow or deny ACLs.", rich_help_panel=_F,
                                                   show_default=False)]
AuthorizedOpsFlag = Annotated[bool, typer.Option("--authorized-ops", "--include-authorized-operations",
                                                 help="Show the operations the caller is authorized for (KIP-430).")]
