"""One view of what the calling principal may do: on the cluster, every topic and every group it can see."""

from __future__ import annotations

from dataclasses import dataclass

from kafkactl.acl.bitfield import AuthorizedOps, decode
from kafkactl.acl.model import ResourceType
from kafkactl.describe.cluster import describe_cluster
from kafkactl.describe.groups import describe_groups
from kafkactl.describe.topics import describe_topics
from kafkactl.gateway import Gateway


@dataclass(frozen=True)
class ResourceOps:
    resource_type: str
    name: str
    authorized_operations: AuthorizedOps


@dataclass(frozen=True)
class WhoAmI:
    principal: str | None
    cluster: ResourceOps
    topics: tuple[ResourceOps, ...]
    groups: tuple[ResourceOps, ...]
    certificate_dn: str | None = None  # a client authenticated by certificate: the subject the rules map
    kerberos_name: str | None = None  # a client authenticated by Kerberos: the principal the rules map


def principal_of(gw: Gateway) -> str | None:
    """The principal the brokers build for this client: the SASL user, the Kerberos principal mapped by the brokers'
    sasl.kerberos.principal.to.local.rules, or the certificate's subject mapped by their ssl.principal.mapping.rules
    (the rules read from a broker; None when they cannot be read)."""
    from kafkactl.describe.mapping import KERBEROS_RULES, SSL_RULES, cluster_rules, map_dn, map_kerberos_name
    from kafkactl.errors import KafkactlError

    if gw.profile.kerberos is not None:
        from kafkactl.profiles.kerberos import default_realm

        name = gw.kerberos_name or ""
        try:
            rules, source = cluster_rules(gw, KERBEROS_RULES)
            return map_kerberos_name(name, rules, default_realm(gw.profile.kerberos.krb5_conf), source).principal
        except KafkactlError:  # (no DescribeConfigs on the cluster) the Kerberos name is still shown
            return None
    if gw.principal or not gw.certificate_dn:
        return gw.principal
    try:
        rules, source = cluster_rules(gw, SSL_RULES)
        return map_dn(gw.certificate_dn, rules, source).principal
    except KafkactlError:  # (no DescribeConfigs on the cluster) the subject is still shown
        return None


def whoami(gw: Gateway) -> WhoAmI:
    cluster = describe_cluster(gw, authorized_operations=True)
    topics, _ = describe_topics(gw, None, authorized_operations=True)
    groups, _ = describe_groups(gw, None, authorized_operations=True)
    none = decode(None, ResourceType.TOPIC)  # asked for above: the broker supplies them (None: not supplied)
    return WhoAmI(
        principal=principal_of(gw),
        cluster=ResourceOps("CLUSTER", "kafka-cluster", cluster.authorized_operations or none),
        topics=tuple(ResourceOps("TOPIC", t.name, t.authorized_operations or none) for t in topics),
        groups=tuple(ResourceOps("GROUP", g.group, g.authorized_operations or none) for g in groups),
        certificate_dn=gw.certificate_dn,
        kerberos_name=gw.kerberos_name,
    )
