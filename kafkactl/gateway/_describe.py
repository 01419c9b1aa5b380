"""Describe/list RPCs with KIP-430 authorized operations, for the Gateway.

Cluster and topics go through kafka-python's Metadata and DescribeCluster request classes: they carry
the raw bitfield (librdkafka turns an empty set into None, which is indistinguishable from "not
supplied") and offline replicas (librdkafka's TopicPartitionInfo has none). Groups go through
librdkafka, which describes classic and KIP-848 consumer groups alike (ConsumerGroupDescribe; the
classic DescribeGroups answers GROUP_ID_NOT_FOUND for a consumer-protocol group). A described group
always includes Describe, so librdkafka's None there can only mean "not supplied".
"""

from __future__ import annotations

from typing import Any, Sequence


# COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR: the coordinator is not ready yet
COORDINATOR_NOT_READY = frozenset({14, 15, 16})

class DescribeRpcs:
    """Mixed into Gateway."""

    def describe_cluster_raw(self: Any, include_authorized_operations: bool) -> Any:
        from kafka.protocol.admin import DescribeClusterRequest

        resp = self._kp_send(DescribeClusterRequest(
            include_cluster_authorized_operations=include_authorized_operations), "describe the cluster")
        if resp.error_code:
            raise self.code_error(resp.error_code, resp.error_message, "describe the cluster")
        return resp

    def topic_metadata(self: Any, names: Sequence[str] | None, include_authorized_operations: bool) -> Any:
        """Metadata for these topics (None: every topic the caller may Describe); no auto-creation."""
        from kafka.protocol.metadata import MetadataRequest

        topics = None if names is None else [MetadataRequest.MetadataRequestTopic(name=n) for n in names]
        return self._kp_send(MetadataRequest(topics=topics, allow_auto_topic_creation=False,
                                             include_topic_authorized_operations=include_authorized_operations),
                             "describe topics")

    def list_groups_raw(self: Any) -> list[Any]:
        """ListGroups on every broker (each answers for the groups it coordinates). KIP-231: never an
        authorization error, only the groups the caller may describe."""
        from kafka.protocol.admin import ListGroupsRequest

        kp = self.kafka_python
        groups = []
        try:
            brokers = [b.node_id for b in kp._manager.cluster.brokers()]
            for node in brokers:
                resp = kp._manager.run(kp._manager.send, ListGroupsRequest(), node)
                if resp.error_code:
                    raise self.code_error(resp.error_code, None, "list groups")
                groups.extend(resp.groups)
        except Exception as exc:
            if hasattr(exc, "exit_code"):
                raise
            raise self._translate_kp(exc, "list groups") from None
        return groups

    def describe_groups(self: Any, group_ids: Sequence[str], include_authorized_operations: bool) -> dict[str, Any]:
        """librdkafka's ConsumerGroupDescription (or the exception) per group id. A coordinator that is still
        loading (the first group lookup of a new cluster creates __consumer_offsets) or has moved is asked again,
        within --timeout."""
        import time

        from kafkactl.gateway._base import error_info

        deadline = time.monotonic() + self.profile.timeout
        out: dict[str, Any] = {}
        pending, delay = list(group_ids), 0.1
        while pending:
            futures = self.admin.describe_consumer_groups(
                pending, include_authorized_operations=include_authorized_operations,
                request_timeout=self.profile.timeout)
            self.wait(futures, "describe groups")
            retry = []
            for gid, fut in futures.items():
                try:
                    out[gid] = fut.result()
                except Exception as exc:  # per group: GROUP_AUTHORIZATION_FAILED, not found, ...
                    out[gid] = exc
                    if error_info(exc).code in COORDINATOR_NOT_READY and time.monotonic() + delay < deadline:
                        retry.append(gid)
            if retry:
                time.sleep(delay)
                delay = min(delay * 2, 1.0)
            pending = retry
        return out
