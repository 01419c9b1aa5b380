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
# create takes a pattern; list and delete a pattern filter (any, match too): each offers what it accepts
PatternTypeOpt = Annotated[str | None, typer.Option("--resource-pattern-type", metavar="literal|prefixed",
                                                    help="How the resource names match: literal (the default) or "
                                                         "prefixed.",
                                                    autocompletion=complete.pattern_types, rich_help_panel=_R,
                                                    show_default=False)]
PatternFilterOpt = Annotated[str | None, typer.Option("--resource-pattern-type", metavar="literal|prefixed|any|match",
                                                      help="Which patterns: literal (the default), prefixed, any, or "
                                                           "match (every pattern that matches the name).",
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
                                                           "default: All).",
                                                      autocompletion=complete.operations, rich_help_panel=_E,
                                                      show_default=False)]
# a filter's: list, and delete's --principal form match any operation without it; delete's --allow-principal form
# names entries, as kafka-acls.sh --remove does: without --operation, only those of operation All
FilterOperations = Annotated[list[str] | None, typer.Option("--operation",
                                                            help="Operation, e.g. Read, or Any (repeatable). "
                                                                 "Without it: any operation; with --allow-principal "
                                                                 "or --deny-principal (delete), only ACLs of "
                                                                 "operation All, as kafka-acls.sh --remove.",
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
