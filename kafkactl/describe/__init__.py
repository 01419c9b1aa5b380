"""What kafkactl reads of a cluster to describe and compare it: topics, groups, the cluster and its nodes, the
caller's own access and the principal a certificate maps to."""
