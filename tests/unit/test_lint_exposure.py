"""The lint checks of issue 17 that look at exposure and cost: public, hot-prefix, dangling, unsecured."""

from __future__ import annotations

from kafkactl.acl.lint_exposure import exposure
from kafkactl.acl.model import AclBinding, AclOperation, PatternType, Permission, ResourceType

T, G = ResourceType.TOPIC, ResourceType.GROUP
L, P = PatternType.LITERAL, PatternType.PREFIXED


def acl(name, principal="User:a", rtype=T, pattern=L, permission=Permission.ALLOW, op=AclOperation.READ):
    return AclBinding(rtype, name, pattern, principal, "*", op, permission)


def checks(findings):
    return sorted((f.check, f.subject.split(" on ")[-1]) for f in findings)


def test_public_is_an_allow_to_every_principal_or_to_anonymous_clients_not_a_deny():
    got = exposure([acl("t", "User:*"), acl("u", "User:ANONYMOUS"), acl("v", "User:*", permission=Permission.DENY),
                    acl("w", "User:ANONYMOUSx")], None, False)
    assert checks(got) == [("public", "TOPIC:t (LITERAL)"), ("public", "TOPIC:u (LITERAL)")]


def test_dangling_is_a_literal_acl_on_a_topic_or_group_that_does_not_exist():
    bindings = [acl("here"), acl("gone"), acl("gone.", pattern=P), acl("*"), acl("g-gone", rtype=G)]
    got = exposure(bindings, {T: ["here"], G: []}, False)
    assert checks(got) == [("dangling", "GROUP:g-gone (LITERAL)"), ("dangling", "TOPIC:gone (LITERAL)")]
    assert exposure(bindings, None, False) == []  # offline: no way to know


def test_unsecured_only_when_everyone_is_allowed_without_acls():
    existing = {T: ["covered.1", "open"], G: ["g"]}
    bindings = [acl("covered.", pattern=P), acl("g", rtype=G)]
    assert exposure(bindings, existing, False) == []
    assert checks(exposure(bindings, existing, True)) == [("unsecured", "TOPIC:open")]


def test_hot_prefix_counts_acls_on_one_pattern_and_the_resources_it_covers():
    many = [acl("orders.", f"User:u{i}", pattern=P) for i in range(5)]
    existing = {T: ["orders.a", "orders.b", "ordersx", "other"]}
    (f,) = exposure(many, existing, False, hot_threshold=5)
    assert f.check == "hot-prefix" and f.subject == "TOPIC:orders. (PREFIXED)"
    assert "5 ACLs on this pattern" in f.message and "each of the 2 topics" in f.message \
        and "10 ACL checks" in f.message
    assert exposure(many, existing, False, hot_threshold=6) == []
    assert exposure(many, {T: ["other"]}, False, hot_threshold=5) == []  # covers nothing that exists: no cost
