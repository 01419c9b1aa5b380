"""Codes from a newer broker decode to UNKNOWN (kept visible), never an exception."""

import json

import pytest

from kafkactl.acl.model import AclBinding, AclFilter, AclOperation, PatternType, Permission, ResourceType
from kafkactl.errors import BrokerError
from kafkactl.gateway import Gateway
from kafkactl.gateway._acls import _binding, confluent_can_express
from kafkactl.profiles import Profile


def test_unknown_operation_and_type_are_listed_as_unknown_with_their_codes():
    b = _binding(9, "x", 3, "User:a", "*", 16, 3)
    assert (b.resource_type, b.operation, b.permission) == (ResourceType.UNKNOWN, AclOperation.UNKNOWN,
                                                            Permission.ALLOW)
    assert b.unknown == "resource_type=9,operation=16"
    assert json.dumps(b.to_json())  # renders
    assert not b.is_concrete()


def test_known_codes_have_no_unknown_marker():
    assert _binding(7, "User:b", 3, "User:a", "*", 13, 3).unknown is None


def test_security_disabled_is_a_clear_error():
    gw = Gateway(Profile(bootstrap_servers="127.0.0.1:1"))
    with pytest.raises(BrokerError, match="no authorizer"):
        gw._raise_acl_error(54, None, "list ACLs", "Describe on the Cluster")


def test_routing_to_librdkafka_only_when_nothing_can_be_lost():
    t = AclBinding(ResourceType.TOPIC, "t", PatternType.LITERAL, "User:a", "*", AclOperation.READ, Permission.ALLOW)
    assert confluent_can_express([t])
    assert not confluent_can_express([AclBinding(ResourceType.USER, "User:b", PatternType.LITERAL, "User:a", "*",
                                                 AclOperation.CREATE_TOKENS, Permission.ALLOW)])
    assert not confluent_can_express([AclFilter(principal="User:a")])  # may match a USER or 2PC ACL
    assert confluent_can_express([t.to_filter()])
