"""kafkactl acls check | explain | who-can | lint: StandardAuthorizer's rules, modelled from the ACLs (registered on
acls)."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from kafkactl.cli import completers as complete
from kafkactl.cli.options import Cluster, DelegationTokens, Groups, Topics, TransactionalIds, UserPrincipals

PrincipalOpt = Annotated[str | None, typer.Option("--principal", help="The principal asking, Type:name (or --ssl-dn).",
                                                  autocompletion=complete.principals, show_default=False)]
SslDn = Annotated[str | None, typer.Option("--ssl-dn", metavar="DN", show_default=False,
                                           help="Instead of --principal: a client certificate's subject DN, mapped to "
                                                "its principal by the cluster's "
                                                "ssl.principal.mapping.rules (or --rules).")]
SslRules = Annotated[str | None, typer.Option("--rules", show_default=False,
                                              help="With --ssl-dn: these ssl.principal.mapping.rules "
                                                   "instead of the cluster's.")]
HostOpt = Annotated[str, typer.Option("--host",
                                      help="The client's IP as the broker sees it (default *: only ACLs "
                                           "for every host apply).")]
AclsFile = Annotated[str | None, typer.Option("--acls-file",
                                              help="Read the ACLs from a desired-state file or `acls list -o json` "
                                                   "output instead of the cluster (works offline).",
                                              show_default=False)]
SuperUsers = Annotated[list[str] | None, typer.Option("--super-user",
                                                      help="A super user (repeatable; default: the "
                                                           "context's super users).",
                                                      show_default=False)]
AllowEveryone = Annotated[bool, typer.Option("--allow-everyone-if-no-acl",
                                             help="The broker sets allow.everyone.if.no.acl.found=true (default: "
                                                  "the context's setting).")]
Cidr = Annotated[bool, typer.Option("--cidr-hosts", help="Hosts may be CIDR ranges (Kafka 4.4 and later).")]


def _resource(topic, group, cluster, transactional_id, delegation_token, user_principal) -> tuple[Any, str]:
    from kafkactl.acl.options import AclOptions, single_resource

    return single_resource(AclOptions(topics=topic or [], groups=group or [], cluster=cluster,
                                      transactional_ids=transactional_id or [],
                                      delegation_tokens=delegation_token or [], user_principals=user_principal or []))


def _acl_set(app_ctx, acls_file: str | None, resource: tuple[Any, str] | None = None):
    from kafkactl.desired.aclset import read_acl_set

    return read_acl_set(acls_file, app_ctx.gateway, resource)


def _super_users(app_ctx, acls_file: str | None, super_user: list[str] | None) -> list[str]:
    """--super-user, else the context's, with --acls-file too (the same answer offline as online); an ACL file
    read with no context at all has none."""
    if super_user:
        return list(super_user)
    profile = _profile_if_any(app_ctx, acls_file)
    return list(profile.super_users) if profile is not None else []


def _profile_if_any(app_ctx, acls_file: str | None):
    """The context's profile; with --acls-file, None when no context (nor bootstrap) is set, since the file needs
    none."""
    from kafkactl.errors import KafkactlError

    if not acls_file:
        return app_ctx.profile()
    try:
        return app_ctx.profile()
    except KafkactlError:
        return None


def _authorizer(app_ctx, acls_file: str | None, super_user: list[str] | None, allow_everyone: bool, cidr: bool,
                resource: tuple[Any, str] | None = None):
    from kafkactl.acl.authorizer import Authorizer

    bindings = _acl_set(app_ctx, acls_file, resource)
    return Authorizer(bindings, super_users=_super_users(app_ctx, acls_file, super_user),
                      allow_everyone_if_no_acl=_allow_everyone(app_ctx, acls_file, allow_everyone), cidr_hosts=cidr)


def _asking(app_ctx, principal: str | None, ssl_dn: str | None, ssl_rules: str | None) -> str:
    """The principal of --principal, or the one the broker builds for --ssl-dn (said on stderr)."""
    from kafkactl.acl.model import validate_principal
    from kafkactl.errors import UsageError

    if (principal is None) == (ssl_dn is None):
        raise UsageError("give one of --principal and --ssl-dn")
    if ssl_rules is not None and ssl_dn is None:
        raise UsageError("--rules is for --ssl-dn")
    if principal is not None:
        validate_principal(principal, "--principal")
        return principal
    from kafkactl.describe.mapping import SSL_RULES, cluster_rules, map_dn

    rules: str | None
    if ssl_rules is not None:
        rules, source = ssl_rules, "--rules"
    else:
        rules, source = cluster_rules(app_ctx.gateway(), SSL_RULES)
    mapped = map_dn(ssl_dn or "", rules, source)
    app_ctx.note(f"--ssl-dn maps to {mapped.principal} ({SSL_RULES} from {source})")
    validate_principal(mapped.principal, "--ssl-dn")
    return mapped.principal


def _allow_everyone(app_ctx, acls_file: str | None, flag: bool) -> bool:
    if flag:
        return True
    profile = _profile_if_any(app_ctx, acls_file)
    return bool(profile is not None and profile.allow_everyone_if_no_acl_found)


def acls_check(
    ctx: typer.Context,
    operation: Annotated[str, typer.Option("--operation", help="The operation asked, e.g. Read.",
                                           autocompletion=complete.operations)],
    principal: PrincipalOpt = None,
    topic: Topics = None, group: Groups = None, cluster: Cluster = False, transactional_id: TransactionalIds = None,
    delegation_token: DelegationTokens = None, user_principal: UserPrincipals = None,
    host: HostOpt = "*", acls_file: AclsFile = None, super_user: SuperUsers = None,
    allow_everyone_if_no_acl: AllowEveryone = False, cidr_hosts: Cidr = False,
    ssl_dn: SslDn = None, ssl_rules: SslRules = None,
) -> None:
    """Decide one request as StandardAuthorizer would: ALLOWED (exit 0) or DENIED (exit 8), and why.

    Example:  kafkactl acls check --principal User:alice --operation Read --topic orders.eu
    """
    from kafkactl.acl.authorizer import Check
    from kafkactl.acl.model import check_operation_supported, parse_operation
    from kafkactl.exitcodes import ExitCode

    rtype, name = _resource(topic, group, cluster, transactional_id, delegation_token, user_principal)
    op = parse_operation(operation, "--operation")
    check_operation_supported(rtype, op, "--operation")
    principal = _asking(ctx.obj, principal, ssl_dn, ssl_rules)
    az = _authorizer(ctx.obj, acls_file, super_user, allow_everyone_if_no_acl, cidr_hosts, (rtype, name))
    d = az.authorize(principal, host, op, rtype, name)
    ctx.obj.render(Check.of(principal, host, op, rtype, name, d))
    if not d.allowed:  # a result, not an error: no message, only the documented exit code
        raise typer.Exit(int(ExitCode.DENIED))


def acls_explain(
    ctx: typer.Context,
    principal: PrincipalOpt = None,
    topic: Topics = None, group: Groups = None, cluster: Cluster = False, transactional_id: TransactionalIds = None,
    delegation_token: DelegationTokens = None, user_principal: UserPrincipals = None,
    host: HostOpt = "*", acls_file: AclsFile = None, super_user: SuperUsers = None,
    allow_everyone_if_no_acl: AllowEveryone = False, cidr_hosts: Cidr = False,
    ssl_dn: SslDn = None, ssl_rules: SslRules = None,
) -> None:
    """Every operation of the resource for one principal, each with the reason of its decision.

    Example:  kafkactl acls explain --principal User:alice --topic orders.eu
    """
    from kafkactl.acl.authorizer import Check

    rtype, name = _resource(topic, group, cluster, transactional_id, delegation_token, user_principal)
    principal = _asking(ctx.obj, principal, ssl_dn, ssl_rules)
    az = _authorizer(ctx.obj, acls_file, super_user, allow_everyone_if_no_acl, cidr_hosts, (rtype, name))
    ctx.obj.render([Check.of(principal, host, op, rtype, name, d)
                    for op, d in az.matrix(principal, host, rtype, name).items()])


def acls_who_can(
    ctx: typer.Context,
    operation: Annotated[str, typer.Option("--operation", help="The operation asked, e.g. Write.",
                                           autocompletion=complete.operations)],
    topic: Topics = None, group: Groups = None, cluster: Cluster = False, transactional_id: TransactionalIds = None,
    delegation_token: DelegationTokens = None, user_principal: UserPrincipals = None,
    host: Annotated[str | None, typer.Option("--host",
                                             help="Only clients at this IP (default: every host, named hosts "
                                                  "shown where they differ).",
                                             show_default=False)] = None,
    acls_file: AclsFile = None, super_user: SuperUsers = None,
    allow_everyone_if_no_acl: AllowEveryone = False, cidr_hosts: Cidr = False,
) -> None:
    """List the principals that may do an operation on a resource, and the DENYs that block others.

    User:* in the answer stands for every principal not listed by name.

    Example:  kafkactl acls who-can --operation Write --topic payments.eu
    """
    from kafkactl.acl.model import check_operation_supported, parse_operation

    rtype, name = _resource(topic, group, cluster, transactional_id, delegation_token, user_principal)
    op = parse_operation(operation, "--operation")
    check_operation_supported(rtype, op, "--operation")
    az = _authorizer(ctx.obj, acls_file, super_user, allow_everyone_if_no_acl, cidr_hosts, (rtype, name))
    rows = az.who_can(op, rtype, name, host)
    ctx.obj.render(rows)
    if not any(r.decision == "ALLOWED" for r in rows):
        ctx.obj.note(f"nobody may {op.pascal} {rtype.name}:{name}")


def acls_lint(
    ctx: typer.Context,
    acls_file: AclsFile = None, super_user: SuperUsers = None,
    allow_everyone_if_no_acl: AllowEveryone = False, cidr_hosts: Cidr = False,
    severity: Annotated[str, typer.Option("--severity", metavar="error|warning|info",
                                          help="Show findings of this severity and worse: error, warning, info.",
                                          autocompletion=lambda: ["error", "warning", "info"])] = "info",
    fail_on: Annotated[str, typer.Option("--fail-on", metavar="error|warning|info|never",
                                         help="Exit 9 if a finding shown (--severity) is this severe or "
                                              "worse: error, warning, info, never.",
                                         autocompletion=lambda: ["error", "warning", "info", "never"])] = "warning",
    hot_threshold: Annotated[int, typer.Option("--hot-threshold", metavar="N",
                                               help="hot-prefix: ACLs on one resource pattern from which every request "
                                                    "on the resources it covers is costly.")] = 1000,
) -> None:
    """Find ACLs that are redundant, shadowed, idle, public, costly, dangling or too wide, and presets held in part (exit 9 on findings).

    Example:  kafkactl acls lint --severity warning -o json
    """  # noqa: E501 (help text: the man page takes its first line whole)
    from kafkactl.acl.lint import SEVERITIES, at_least, lint
    from kafkactl.desired.aclset import gc_paused
    from kafkactl.errors import UsageError
    from kafkactl.exitcodes import ExitCode

    for opt, value, allowed in (("--severity", severity, SEVERITIES), ("--fail-on", fail_on, (*SEVERITIES, "never"))):
        if value.lower() not in allowed:
            raise UsageError(f"{opt} {value!r} is not one of {', '.join(allowed)}")
    from kafkactl.acl.lint_exposure import exposure
    from kafkactl.acl.lint_presets import incomplete

    if hot_threshold < 1:
        raise UsageError(f"--hot-threshold {hot_threshold}: expected 1 or more ACLs")
    with gc_paused():
        bindings = _acl_set(ctx.obj, acls_file)
        everyone = _allow_everyone(ctx.obj, acls_file, allow_everyone_if_no_acl)
        supers = _super_users(ctx.obj, acls_file, super_user)
        findings = lint(bindings, supers, everyone, cidr_hosts)
        existing = None if acls_file else _existing(ctx.obj, transactional=False)
        findings += exposure(bindings, existing, everyone, hot_threshold)
        findings += incomplete(bindings, supers, everyone)
        findings.sort(key=lambda f: (f.rank(), f.check, f.subject))
    if existing is None:
        ctx.obj.note("dangling and unsecured need the cluster's topics and groups: left out with --acls-file")
    shown = at_least(findings, severity.lower())
    from kafkactl.acl.lint import Finding

    ctx.obj.render(shown, of=Finding)
    counts = {s: sum(1 for f in findings if f.severity == s) for s in SEVERITIES}
    from kafkactl.limits import plural

    ctx.obj.note(", ".join(plural(n, s, "info" if s == "info" else None) for s, n in counts.items())
                 if findings else "no findings")
    # exit 9 for what is shown: a finding --severity hides does not fail the run it does not appear in
    if fail_on.lower() != "never" and at_least(shown, fail_on.lower()):
        raise typer.Exit(int(ExitCode.FINDINGS))


def acls_why(
    ctx: typer.Context,
    principal: PrincipalOpt = None,
    api: Annotated[list[str] | None, typer.Option("--api", metavar="NAME",
                                                  help="A request the client sends, as Kafka names it (Produce, Fetch, "
                                                       "JoinGroup, InitProducerId, DescribeConfigs...; repeatable).",
                                                  autocompletion=complete.api_names, show_default=False)] = None,
    role: Annotated[str | None, typer.Option("--role", metavar="NAME",
                                             help="A kind of client: producer, transactional-producer, consumer, "
                                                  "consumer-protocol, share-consumer, admin-read; streams and "
                                                  "connect-worker (their presets' grants; --group: the application.id "
                                                  "or the worker's group.id).",
                                             autocompletion=complete.role_names, show_default=False)] = None,
    error: Annotated[str | None, typer.Option("--error", metavar="NAME",
                                              help="The error the client got: TOPIC_AUTHORIZATION_FAILED, "
                                                   "GROUP_AUTHORIZATION_FAILED, TRANSACTIONAL_ID_AUTHORIZATION_FAILED "
                                                   "or CLUSTER_AUTHORIZATION_FAILED.",
                                              autocompletion=complete.auth_errors, show_default=False)] = None,
    topic: Topics = None, group: Groups = None, cluster: Cluster = False, transactional_id: TransactionalIds = None,
    host: HostOpt = "*", acls_file: AclsFile = None, super_user: SuperUsers = None,
    allow_everyone_if_no_acl: AllowEveryone = False, cidr_hosts: Cidr = False,
    ssl_dn: SslDn = None, ssl_rules: SslRules = None,
) -> None:
    """Say what a client is missing: every check the broker makes for its requests, and the ACL each needs.

    Give the requests (--api), a kind of client (--role) or the error it got (--error), and the resources it
    uses. Exit 0 when every check passes, 8 when one is missing (each with the command that grants it).

    Example:  kafkactl acls why --principal User:app --role consumer --topic orders --group billing
    """
    from kafkactl.acl.apis import (
        Ask,
        checks_for_apis,
        checks_for_error,
        checks_for_role,
        find_api,
        find_error,
        find_role,
    )
    from kafkactl.acl.model import validate_text
    from kafkactl.acl.why import decide
    from kafkactl.errors import UsageError
    from kafkactl.exitcodes import ExitCode

    if sum(x is not None and x != [] for x in (api, role, error)) != 1:
        raise UsageError("give one of --api, --role and --error")
    ask = Ask(topics=tuple(validate_text(t, "--topic") for t in topic or ()),
              groups=tuple(validate_text(g, "--group") for g in group or ()),
              transactional_ids=tuple(validate_text(x, "--transactional-id") for x in transactional_id or ()),
              cluster=cluster)
    if api:
        checks = checks_for_apis([find_api(a) for a in api], ask)
    elif role is not None:
        checks = checks_for_role(find_role(role), ask)
    else:
        checks = checks_for_error(find_error(error or ""), ask)
    if not checks:
        raise UsageError("no check applies to the resources given: name the --topic, --group, --transactional-id "
                         "or --cluster the client uses")
    asking = _asking(ctx.obj, principal, ssl_dn, ssl_rules)
    az = _authorizer(ctx.obj, acls_file, super_user, allow_everyone_if_no_acl, cidr_hosts)
    rows = decide(az, asking, host, checks, together=error is None)
    ctx.obj.render(rows)
    missing = [r for r in rows if r.decision != "ALLOWED"]
    if not missing:
        ctx.obj.note(f"{asking} passes all {len(rows)} check{'s' if len(rows) != 1 else ''}")
        return
    ctx.obj.note(f"{asking} is missing {len(missing)} of {len(rows)} check{'s' if len(rows) != 1 else ''}"
                 + (": run the grant commands shown (-o json has them as 'grant')" if error is None else
                    f"; each missing one answers {find_error(error)}"))
    raise typer.Exit(int(ExitCode.DENIED))


def _existing(app_ctx, transactional: bool = True) -> dict[Any, list[str]]:
    from kafkactl.desired.aclset import existing_resources

    return existing_resources(app_ctx.gateway(), transactional)


def acls_report(
    ctx: typer.Context,
    principal: PrincipalOpt = None,
    topic: Topics = None, group: Groups = None, cluster: Cluster = False, transactional_id: TransactionalIds = None,
    host: Annotated[str | None, typer.Option("--host",
                                             help="The client's IP (default *: only ACLs for every host apply; with a "
                                                  "resource, every host, named hosts where they differ).",
                                             show_default=False)] = None,
    acls_file: AclsFile = None, super_user: SuperUsers = None,
    allow_everyone_if_no_acl: AllowEveryone = False, cidr_hosts: Cidr = False,
    ssl_dn: SslDn = None, ssl_rules: SslRules = None,
) -> None:
    """Report what a principal can reach on the cluster, or who can reach one resource, with reasons.

    With --principal: every existing topic, group and transactional id (and the cluster) it may use, by
    operation; prefixed and * ACLs are expanded against what exists. With a resource: every principal that may
    do each operation on it, and those a DENY blocks.

    Example:  kafkactl acls report --principal User:alice
    """
    from kafkactl.acl.model import ResourceType
    from kafkactl.acl.report import principal_reach, resource_holders
    from kafkactl.desired.aclset import gc_paused
    from kafkactl.errors import UsageError
    from kafkactl.formatters.views import ReachView

    resource_given = bool(topic or group or cluster or transactional_id)
    if resource_given == (principal is not None or ssl_dn is not None):
        raise UsageError("give --principal (what it can reach) or one resource (who can reach it)"
                         + (", not both" if resource_given else ": no target was given, e.g. --principal User:alice "
                                                                  "or --topic orders"))
    if resource_given:
        rtype, name = _resource(topic, group, cluster, transactional_id, None, None)
        az = _authorizer(ctx.obj, acls_file, super_user, allow_everyone_if_no_acl, cidr_hosts, (rtype, name))
        rows = resource_holders(az, rtype, name, host)
        ctx.obj.render(rows)
        if not any(r.decision == "ALLOWED" for r in rows):
            ctx.obj.note(f"nobody may do anything to {rtype.name}:{name}")
        return
    asking = _asking(ctx.obj, principal, ssl_dn, ssl_rules)
    with gc_paused():
        az = _authorizer(ctx.obj, acls_file, super_user, allow_everyone_if_no_acl, cidr_hosts)
        existing = _existing(ctx.obj)
        reach = principal_reach(az, asking, host or "*", existing)
    ctx.obj.render(ReachView(reach))
    counted = {t: len({(r.resource_name) for r in reach if r.resource_type == t.name}) for t in ResourceType
               if t.name in {r.resource_type for r in reach}}
    ctx.obj.note(f"{asking} can reach " + (", ".join(f"{n:,} {t.name.lower().replace('_', ' ')}"
                                                       f"{'s' if n != 1 else ''}" for t, n in counted.items())
                                           or "nothing")
                 + f" (of {sum(len(v) for v in existing.values()):,} topics, groups and transactional ids)")
