"""kafka-configs.sh's entity model: --entity-type/--entity-name/--entity-default and the shortcuts."""

from __future__ import annotations

from dataclasses import dataclass

from kafkactl.errors import UsageError
from kafkactl.gateway.configtypes import BROKER, BROKER_LOGGER, CLIENT_METRICS, GROUP, TOPIC
from kafkactl.limits import bounded_int

ENTITY_TYPES = ("topics", "brokers", "broker-loggers", "groups", "client-metrics", "users", "clients", "ips")
CONFIG_TYPES = {"topics": TOPIC, "brokers": BROKER, "broker-loggers": BROKER_LOGGER, "groups": GROUP,
                "client-metrics": CLIENT_METRICS}
QUOTA_TYPES = {"users": "user", "clients": "client-id", "ips": "ip"}
# entity types that have a default entity (--entity-default)
DEFAULTABLE = {"brokers", "users", "clients", "ips"}


@dataclass(frozen=True)
class Entity:
    type: str
    name: str | None  # None: every entity of the type; "" with default=True: the default entity
    default: bool = False

    def label(self) -> str:
        if self.default:
            return "<default>"
        return self.name if self.name is not None else "*"


@dataclass
class EntityOptions:
    entity_types: list[str]
    entity_names: list[str]
    entity_default: bool = False
    topic: str | None = None
    broker: str | None = None
    broker_defaults: bool = False
    broker_logger: str | None = None
    group: str | None = None
    client_metrics: str | None = None
    user: str | None = None
    user_defaults: bool = False
    client: str | None = None
    client_defaults: bool = False
    ip: str | None = None
    ip_defaults: bool = False


def parse_entities(o: EntityOptions, need_name: bool) -> list[Entity]:
    """The entities an invocation names; for alter/delete a name (or --entity-default) is required."""
    out = _long_form(o) + _shortcuts(o)
    if not out:
        raise UsageError("name the entity: --entity-type TYPE [--entity-name NAME | --entity-default], "
                         "or a shortcut such as --topic NAME or --broker-defaults")
    for e in out:
        _check_entity(e)
    types = {e.type for e in out}
    if len(out) > 1 and not (types <= {"users", "clients"} and len(out) == 2 and len(types) == 2):
        raise UsageError("only one entity at a time, except a user together with a client (a user+client quota)")
    if need_name:
        for e in out:
            if e.name is None:
                raise UsageError(f"name the {e.type} entity to change (--entity-name NAME"
                                 + (" or --entity-default)" if e.type in DEFAULTABLE else ")"))
    return out


def _long_form(o: EntityOptions) -> list[Entity]:
    """The entities of --entity-type, each with its --entity-name (in order), the default or every one."""
    out: list[Entity] = []
    for t in o.entity_types:
        if t not in ENTITY_TYPES:
            raise UsageError(f"--entity-type {t!r} is not one of {', '.join(ENTITY_TYPES)}")
    if len(o.entity_names) > len(o.entity_types):
        raise UsageError("more --entity-name than --entity-type options")
    names = list(o.entity_names)
    for i, t in enumerate(o.entity_types):
        if i < len(names):
            out.append(Entity(t, names[i]))
        elif o.entity_default:
            out.append(Entity(t, "", default=True))
        else:
            out.append(Entity(t, None))
    return out


def _shortcuts(o: EntityOptions) -> list[Entity]:
    """The entities of --topic, --broker, --broker-defaults and the other shortcuts."""
    out: list[Entity] = []
    shortcuts = [("topics", o.topic, False), ("brokers", o.broker, False), ("brokers", None, o.broker_defaults),
                 ("broker-loggers", o.broker_logger, False), ("groups", o.group, False),
                 ("client-metrics", o.client_metrics, False), ("users", o.user, False),
                 ("users", None, o.user_defaults),
                 ("clients", o.client, False), ("clients", None, o.client_defaults), ("ips", o.ip, False),
                 ("ips", None, o.ip_defaults)]
    for t, name, is_default in shortcuts:
        if is_default:
            out.append(Entity(t, "", default=True))
        elif name is not None:
            out.append(Entity(t, name))
    return out


def _check_entity(e: Entity) -> None:
    if e.default and e.type not in DEFAULTABLE:
        raise UsageError(f"--entity-default is not supported for {e.type} (only {', '.join(sorted(DEFAULTABLE))})")
    if e.name is not None and not e.default and e.name == "":
        raise UsageError(f"the {e.type} entity name is empty")
    if e.type in ("brokers", "broker-loggers") and e.name and bounded_int(e.name, 0, 2**31 - 1) is None:
        raise UsageError(f"{e.type} entity name {e.name[:40]!r} must be a broker id (an integer)")
    if e.type == "topics" and e.name:
        from kafkactl.describe.topics import validate_topic_name

        validate_topic_name(e.name)
