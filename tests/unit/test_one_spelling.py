"""Issue 14: one spelling for one thing. Operations are shown as ACL output (and kafka-acls.sh's output) spells
them, IDEMPOTENT_WRITE; the PascalCase IdempotentWrite is what kafka-acls.sh takes as input, and stays accepted."""

from __future__ import annotations

from kafkactl.acl.bitfield import decode
from kafkactl.acl.lint import lint
from kafkactl.acl.model import AclBinding, AclOperation, PatternType, Permission, ResourceType
from kafkactl.formatters.authz import detail, long_rows, matrix
from kafkactl.formatters.model import cell, table_of

CLUSTER_OPS = decode(1 << int(AclOperation.IDEMPOTENT_WRITE) | 1 << int(AclOperation.DESCRIBE_CONFIGS),
                     ResourceType.CLUSTER)
BINDING = AclBinding(ResourceType.CLUSTER, "kafka-cluster", PatternType.LITERAL, "User:a", "*",
                     AclOperation.IDEMPOTENT_WRITE, Permission.ALLOW)


def _acl_output_spelling() -> str:
    row = table_of([BINDING]).rows[0]
    return row[BINDING.COLUMNS.index("operation")]


def test_the_acl_list_spelling_is_the_enum_name():
    assert _acl_output_spelling() == "IDEMPOTENT_WRITE" == BINDING.to_json()["operation"]


def test_authorized_ops_views_spell_operations_as_acl_output():
    spelled = _acl_output_spelling()
    assert spelled in matrix([("kafka-cluster", CLUSTER_OPS)]).columns
    assert spelled in [r[0] for r in detail("kafka-cluster", CLUSTER_OPS).rows]
    assert spelled in [r[2] for r in long_rows([("kafka-cluster", CLUSTER_OPS)]).rows]
    assert cell(CLUSTER_OPS) == "DESCRIBE_CONFIGS,IDEMPOTENT_WRITE"
    assert CLUSTER_OPS.to_json()["operations"] == ["DESCRIBE_CONFIGS", "IDEMPOTENT_WRITE"]


def test_not_supplied_reads_the_same_in_a_cell_as_in_the_views():
    assert cell(decode(None, ResourceType.TOPIC)) == "not supplied by the broker"


def test_lint_names_operations_as_its_subject_does():
    wrong_type = AclBinding(ResourceType.TOPIC, "orders", PatternType.LITERAL, "User:a", "*",
                            AclOperation.IDEMPOTENT_WRITE, Permission.ALLOW)
    [finding] = [f for f in lint([wrong_type]) if f.check == "unsupported-operation"]
    assert "TOPIC has no IDEMPOTENT_WRITE operation" in finding.message and "IdempotentWrite" not in finding.message
