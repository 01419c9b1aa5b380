"""Desired-state ACLs: files, export, plan and apply (in-process, or on Spark with --spark)."""
