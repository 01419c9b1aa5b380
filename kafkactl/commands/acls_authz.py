"""kafkactl acls check | explain: StandardAuthorizer's decision, modelled from the ACLs (registered on acls)."""

from __future__ import annotations

from typing import Annotated, Any, Optional

import typer

from kafkactl.commands import _complete as complete
from kafkactl.commands._options import Cluster, DelegationTokens, Groups, Topics, TransactionalIds, UserPrincipals
from kafkactl.commands.acls import app

PrincipalOpt = Annotated[str, typer.Option("--principal", help="The principal asking, Type:name.", autocompletion=complete.principals)]
HostOpt = Annotated[str, typer.Option("--host", help="The client's IP as the broker sees it (default *: only ACLs for every host apply).")]
AclsFile = Annotated[Optional[str], typer.Option("--acls-file", help="Read the ACLs from a desired-state file or `acls list -o json` output instead of the cluster (works offline).", show_default=False)]
SuperUsers = Annotated[Optional[list[str]], typer.Option("--super-user", help="A super user (repeatable; default: the context's super users).", show_default=False)]
AllowEveryone = Annotated[bool, typer.Option("--allow-everyone-if-no-acl", help="The broker sets allow.everyone.if.no.acl.found=true.")]
Cidr = Annotated[bool, typer.Option("--cidr-hosts", help="Hosts may be CIDR ranges (Kafka 4.4 and later).")]


def _resource(topic, group, cluster, transactional_id, delegation_token, user_principal) -> tuple[Any, str]:
    from kafkactl.acl.options import AclOptions, single_resource

    return single_resource(AclOptions(topics=topic or [], groups=group or [], cluster=cluster,
                                      transactional_ids=transactional_id or [],
                                      delegation_tokens=delegation_token or [], user_principals=user_principal or []))


def _authorizer(app_ctx, acls_file: str | None, super_user: list[str] | None, allow_everyone: bool, cidr: bool):
    from kafkactl.acl.authorizer import Authorizer

    if acls_file:
        from kafkactl.bulk.state import load_bindings

        bindings = load_bindings(acls_file)
        supers = list(super_user or [])
    else:
        from kafkactl.acl.model import AclFilter

        gw = app_ctx.gateway()
        bindings = gw.describe_acls(AclFilter(), bulk=True)
        supers = list(super_user) if super_user else list(app_ctx.profile().super_users)
    return Authorizer(bindings, super_users=supers, allow_everyone_if_no_acl=allow_everyone, cidr_hosts=cidr)


@app.command("check")
def acls_check(
    ctx: typer.Context,
    principal: PrincipalOpt,
    operation: Annotated[str, typer.Option("--operation", help="The operation asked, e.g. Read.", autocompletion=complete.operations)],
    topic: Topics = None, group: Groups = None, cluster: Cluster = False, transactional_id: TransactionalIds = None,
    delegation_token: DelegationTokens = None, user_principal: UserPrincipals = None,
    host: HostOpt = "*", acls_file: AclsFile = None, super_user: SuperUsers = None,
    allow_everyone_if_no_acl: AllowEveryone = False, cidr_hosts: Cidr = False,
) -> None:
    """Decide one request as StandardAuthorizer would: ALLOWED (exit 0) or DENIED (exit 8), and why.

    Example:  kafkactl acls check --principal User:alice --operation Read --topic orders.eu
    """
    from kafkactl.acl.authorizer import Check
    from kafkactl.acl.model import check_operation_supported, parse_operation, validate_principal
    from kafkactl.exitcodes import ExitCode

    rtype, name = _resource(topic, group, cluster, transactional_id, delegation_token, user_principal)
    validate_principal(principal, "--principal")
    op = parse_operation(operation, "--operation")
    check_operation_supported(rtype, op, "--operation")
    az = _authorizer(ctx.obj, acls_file, super_user, allow_everyone_if_no_acl, cidr_hosts)
    d = az.authorize(principal, host, op, rtype, name)
    ctx.obj.render(Check.of(principal, host, op, rtype, name, d))
    if not d.allowed:  # a result, not an error: no message, only the documented exit code
        raise typer.Exit(int(ExitCode.DENIED))


@app.command("explain")
def acls_explain(
    ctx: typer.Context,
    principal: PrincipalOpt,
    topic: Topics = None, group: Groups = None, cluster: Cluster = False, transactional_id: TransactionalIds = None,
    delegation_token: DelegationTokens = None, user_principal: UserPrincipals = None,
    host: HostOpt = "*", acls_file: AclsFile = None, super_user: SuperUsers = None,
    allow_everyone_if_no_acl: AllowEveryone = False, cidr_hosts: Cidr = False,
) -> None:
    """Every operation of the resource for one principal, each with the reason of its decision.

    Example:  kafkactl acls explain --principal User:alice --topic orders.eu
    """
    from kafkactl.acl.authorizer import Check
    from kafkactl.acl.model import validate_principal

    rtype, name = _resource(topic, group, cluster, transactional_id, delegation_token, user_principal)
    validate_principal(principal, "--principal")
    az = _authorizer(ctx.obj, acls_file, super_user, allow_everyone_if_no_acl, cidr_hosts)
    ctx.obj.render([Check.of(principal, host, op, rtype, name, d)
                    for op, d in az.matrix(principal, host, rtype, name).items()])
