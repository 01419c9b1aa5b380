"""What principal the broker builds for a certificate DN or a Kerberos name: the rules given, or the cluster's."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from kafkactl.errors import AuthenticationError, UsageError
from kafkactl.mapping.rules import (MappingFailure, NeedsDefaultRealm, RuleError, map_kerberos, map_ssl_dn, parse_kerberos_rules,
                                    parse_ssl_rules, split_kerberos_rules)

if TYPE_CHECKING:
    from kafkactl.gateway import Gateway

SSL_RULES = "ssl.principal.mapping.rules"
KERBEROS_RULES = "sasl.kerberos.principal.to.local.rules"


@dataclass(frozen=True)
class MappedPrincipal:
    principal: str
    name: str
    mapped_from: str
    kind: str
    rules: str
    rules_from: str


def cluster_rules(gw: Gateway, key: str) -> tuple[str | None, str]:
    """The broker's value of `key` (None: unset, Kafka's default applies) and which broker said it."""
    from kafkactl.cluster import describe_cluster
    from kafkactl.configs.model import BROKER

    brokers = sorted(b.id for b in describe_cluster(gw).brokers)
    if not brokers:
        raise UsageError(f"the cluster lists no broker to read {key} from (give --rules)")
    broker = str(brokers[0])
    answer = gw.describe_configs([(BROKER, broker)]).get((BROKER, broker))
    if isinstance(answer, Exception):
        raise gw.translate(answer, f"read {key} from broker {broker}", resource=f"broker {broker!r}",
                           needs="DescribeConfigs on the cluster (or give --rules)")
    for config in answer or []:
        if config.name == key:
            return config.value, f"broker {broker}"
    return None, f"broker {broker}"


def map_dn(dn: str, rules: str | None, rules_from: str) -> MappedPrincipal:
    try:
        parsed = parse_ssl_rules(rules)
    except RuleError as exc:
        raise UsageError(f"{SSL_RULES} ({rules_from}): {exc}") from None
    try:
        name = map_ssl_dn(dn, parsed)
    except MappingFailure as exc:
        raise AuthenticationError(f"the broker would refuse this certificate: {exc}") from None
    return MappedPrincipal(f"User:{name}", name, dn, "ssl", "DEFAULT" if rules is None else rules, rules_from)


def map_kerberos_name(name: str, rules: str | None, default_realm: str | None, rules_from: str) -> MappedPrincipal:
    listed = None if rules is None else split_kerberos_rules(rules)
    try:
        parsed = parse_kerberos_rules(listed, default_realm)
    except RuleError as exc:
        raise UsageError(f"{KERBEROS_RULES} ({rules_from}): {exc}") from None
    try:
        short = map_kerberos(name, parsed)
    except NeedsDefaultRealm as exc:
        raise UsageError(f"{name}: {exc}") from None
    except MappingFailure as exc:
        raise AuthenticationError(f"the broker would refuse this Kerberos name: {exc}") from None
    return MappedPrincipal(f"User:{short}", short, name, "kerberos", "DEFAULT" if rules is None else rules,
                           rules_from)
