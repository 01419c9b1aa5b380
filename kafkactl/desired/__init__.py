"""The desired-state core: ACLs (this package's top level), and topics, configs, quotas and SCRAM users
(`desired.configs`), read from files, planned against the clusters, guarded (scope, max-deletes, protected and
super users, breadth and blast radius), applied in-process or on Spark, saved and reported; with the foreign
formats (`desired.interop`) and the comparison of two clusters (`desired.diff`)."""
