# terraform kafka provider resources written for kafkactl's tests
resource "kafka_acl" "tf_reader" {
  resource_name                = "tf-orders"
  resource_type                = "Topic"
  acl_principal                = "User:tf-reader"
  acl_host                     = "*"
  acl_operation                = "Read"
  acl_permission_type          = "Allow"
}

resource "kafka_acl" "tf_group" {
  resource_name                = "tf-"
  resource_type                = "Group"
  resource_pattern_type_filter = "Prefixed"
  acl_principal                = "User:tf-reader"
  acl_host                     = "*"
  acl_operation                = "Read"
  acl_permission_type          = "Allow"
}

resource "kafka_acl" "tf_txn" {
  resource_name       = "tf-tx"
  resource_type       = "TransactionalID"
  acl_principal       = "User:tf-writer"
  acl_host            = "*"
  acl_operation       = "Write"
  acl_permission_type = "Allow"
}

resource "kafka_quota" "tf_writer" {
  entity_name = "tf-writer"
  entity_type = "user"
  config = {
    "producer_byte_rate" = 4000000
  }
}
