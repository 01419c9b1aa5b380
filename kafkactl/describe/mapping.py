"""What principal the broker builds for a certificate DN or a Kerberos name: the rules given, or the cluster's."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar, cast

from kafkactl.errors import AuthenticationError, UsageError
from kafkactl.mapping.rules import (
    MappingFailure,
    NeedsDefaultRealm,
    RuleError,
    map_kerberos,
    map_ssl_dn,
    parse_kerberos_rules,
    parse_ssl_rules,
    split_kerberos_rules,
)

if TYPE_CHECKING:
    from kafkactl.gateway import Gateway

T = TypeVar("T")
SSL_RULES = "ssl.principal.mapping.rules"
KERBEROS_RULES = "sasl.kerberos.principal.to.local.rules"


@dataclass(frozen=True)
class MappedPrincipal:
    principal: str
    name: str
    mapped_from: str
    kind: str
    rules: str
    rules_from: str


MATCH_BUDGET_S = 10.0


def bounded(fn: Callable[..., T], *args: Any) -> T:
    """fn(*args) in a forked child, given MATCH_BUDGET_S: a rule's pattern can backtrack for ever on a crafted name
    (the broker's java.util.regex would too, on every connection), and Python's re can be interrupted neither by
    a timer nor by Ctrl-C. The child's answer, or its exception, comes back through a pipe."""
    import os
    import pickle
    import select
    import signal
    import time

    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: compute, answer, leave without any of the parent's clean-up
        os.close(read)
        try:
            answer: tuple[str, Any] = ("ok", fn(*args))
        except BaseException as exc:  # noqa: BLE001 - every outcome goes back to the parent
            answer = ("error", exc)
        try:
            data = pickle.dumps(answer)
        except Exception:
            data = pickle.dumps(("error", RuleError(str(answer[1]))))
        with os.fdopen(write, "wb") as fh:
            fh.write(data)
        os._exit(0)
    os.close(write)
    chunks: list[bytes] = []
    end = time.monotonic() + MATCH_BUDGET_S
    try:
        while True:
            left = end - time.monotonic()
            if left <= 0 or not select.select([read], [], [], left)[0]:
                raise UsageError(f"the mapping rules' patterns took over {MATCH_BUDGET_S:g} s on this name "
                                 "(catastrophic backtracking: the broker's matcher would take as long on every "
                                 "connection); simplify the pattern")
            chunk = os.read(read, 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(read)
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.waitpid(pid, 0)
    kind, value = pickle.loads(b"".join(chunks))
    if kind == "error":
        raise value
    return cast(T, value)  # fn's answer, unpickled


def cluster_rules(gw: Gateway, key: str) -> tuple[str | None, str]:
    """The broker's value of `key` (None: unset, Kafka's default applies) and which broker said it."""
    from kafkactl.describe.cluster import describe_cluster
    from kafkactl.gateway.configtypes import BROKER

    brokers = sorted(b.id for b in describe_cluster(gw).brokers)
    if not brokers:
        raise UsageError(f"the cluster lists no broker to read {key} from (give --rules)")
    broker = str(brokers[0])
    answer = gw.describe_configs([(BROKER, broker)]).get((BROKER, broker))
    if isinstance(answer, Exception):
        raise gw.translate(answer, f"read {key} from broker {broker}", resource=f"broker {broker!r}",
                           needs="DescribeConfigs on the cluster (or give --rules)")
    for config in answer or []:
        if config.name == key:
            return config.value, f"broker {broker}"
    return None, f"broker {broker}"


def map_dn(dn: str, rules: str | None, rules_from: str) -> MappedPrincipal:
    try:
        parsed = parse_ssl_rules(rules)
    except RuleError as exc:
        raise UsageError(f"{SSL_RULES} ({rules_from}): {exc}") from None
    try:
        name = bounded(map_ssl_dn, dn, parsed)
    except MappingFailure as exc:
        raise AuthenticationError(f"the broker would refuse this certificate: {exc}") from None
    return MappedPrincipal(f"User:{name}", name, dn, "ssl", "DEFAULT" if rules is None else rules, rules_from)


def map_kerberos_name(name: str, rules: str | None, default_realm: str | None, rules_from: str) -> MappedPrincipal:
    listed = None if rules is None else split_kerberos_rules(rules)
    try:
        parsed = parse_kerberos_rules(listed, default_realm)
    except RuleError as exc:
        raise UsageError(f"{KERBEROS_RULES} ({rules_from}): {exc}") from None
    try:
        short = bounded(map_kerberos, name, parsed)
    except NeedsDefaultRealm as exc:
        raise UsageError(f"{name}: {exc}") from None
    except MappingFailure as exc:
        raise AuthenticationError(f"the broker would refuse this Kerberos name: {exc}") from None
    return MappedPrincipal(f"User:{short}", short, name, "kerberos", "DEFAULT" if rules is None else rules,
                           rules_from)
