"""Config resources on the wire (kafka-semantics §1): the resource type codes of DescribeConfigs and
IncrementalAlterConfigs (not the ACL ResourceType enum), config sources, alter operations and SCRAM mechanisms."""

from __future__ import annotations

TOPIC, BROKER, BROKER_LOGGER, CLIENT_METRICS, GROUP = 2, 4, 8, 16, 32
CONFIG_TYPE_NAMES = {TOPIC: "TOPIC", BROKER: "BROKER", BROKER_LOGGER: "BROKER_LOGGER",
                     CLIENT_METRICS: "CLIENT_METRICS", GROUP: "GROUP"}
SOURCES = {0: "UNKNOWN", 1: "DYNAMIC_TOPIC_CONFIG", 2: "DYNAMIC_BROKER_CONFIG", 3: "DYNAMIC_DEFAULT_BROKER_CONFIG",
           4: "STATIC_BROKER_CONFIG", 5: "DEFAULT_CONFIG", 6: "DYNAMIC_BROKER_LOGGER_CONFIG",
           7: "CLIENT_METRICS_CONFIG", 8: "GROUP_CONFIG"}
# the values set on the entity itself (kafka-configs.sh's describe without --all): only these are a desired state's
_EXPLICIT = {TOPIC: {"DYNAMIC_TOPIC_CONFIG"}, BROKER: {"DYNAMIC_BROKER_CONFIG"}, GROUP: {"GROUP_CONFIG"},
             CLIENT_METRICS: {"CLIENT_METRICS_CONFIG"}, BROKER_LOGGER: None}


def explicit_sources(ctype: int, name: str) -> set[str] | None:
    """The config sources of values set on this resource itself (None: every value is, as for loggers)."""
    return {"DYNAMIC_DEFAULT_BROKER_CONFIG"} if (ctype == BROKER and name == "") else _EXPLICIT[ctype]


OPS = {"SET": 0, "DELETE": 1, "APPEND": 2, "SUBTRACT": 3}
SCRAM_MECHANISMS = {"SCRAM-SHA-256": 1, "SCRAM-SHA-512": 2}


class ListConfigResourcesError(Exception):
    def __init__(self, code: int, version: int, broker_max: int, client_max: int) -> None:
        super().__init__(code)
        self.code, self.version, self.broker_max, self.client_max = code, version, broker_max, client_max
