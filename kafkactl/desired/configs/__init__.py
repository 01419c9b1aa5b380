"""Desired state beyond ACLs: topics, their configs, broker, group and client-metrics configs, client quotas and SCRAM
users, read from a `kind: State` document (the same file may hold acls:), planned against the cluster and applied."""
