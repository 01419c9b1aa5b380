"""Issue 28: nothing kafkactl produces grants more than the operator wrote.

The defects found by hand each have a case here; then property tests over every producer of bindings (acls
create's options and presets, the five imports, topic maps) feed generated names (`*`, empty, `User:`-prefixed,
DNs with commas and escapes, look-alikes, very long ones) and check the invariant with the authorizer model: a
principal the input does not name, on resources the input does not name, is granted nothing, unless the input
wrote the wildcard itself in a field that names principals or resources.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
import yaml
from hypothesis import HealthCheck, given, settings, strategies as st

from kafkactl.acl.authorizer import Authorizer
from kafkactl.acl.breadth import TooWide, Written
from kafkactl.acl.model import AclBinding, AclOperation, PatternType, Permission, ResourceType
from kafkactl.acl.options import AclOptions, bindings_for_create
from kafkactl.errors import UsageError

RT, PT = ResourceType, PatternType
# no generated name holds '~': a name starting with it is one no input names, unless by '*' or an empty prefix
STRANGER = "~stranger"
STRANGER_PRINCIPAL = "User:~stranger"
ODD = st.sampled_from(["*", "", " ", "User:x", "User:*", "Group:*", "CN=a,OU=b", "CN=a\\,b", "a,b", "orders*",
                       "ORDERS", "ordеrs", "app-", "-", ".", "x" * 250, "x" * 300, "User:User:x", "*.*", "**"])
PLAIN = st.text(alphabet="abcz019._-", min_size=1, max_size=8)
# mostly names a client could have, so that most examples get past the checks to the invariant
NAMES = st.one_of(PLAIN, PLAIN, st.just("*"), ODD,
                  st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x17F, blacklist_characters="~"),
                          max_size=12))
PRINCIPALS = st.one_of(PLAIN.map(lambda n: f"User:{n}"), PLAIN.map(lambda n: f"User:{n}"),
                       st.sampled_from(["User:*", "Group:*", "User:CN=a,OU=b", "User:User:x", "User:CN=a\\,b"]),
                       NAMES)


def stranger_access(bindings: list[AclBinding]) -> tuple[bool, set[ResourceType]]:
    """(whether a principal no input names may do anything, the resource types on which anyone may do anything
    to a resource no input names)."""
    az = Authorizer(bindings)
    who = {b.principal for b in bindings}
    rtypes = (RT.TOPIC, RT.GROUP, RT.TRANSACTIONAL_ID)
    ops = [op for op in AclOperation if op not in (AclOperation.UNKNOWN, AclOperation.ANY)]
    stranger = any(az.authorize(STRANGER_PRINCIPAL, "10.0.0.1", op, rt, name).allowed
                   for rt in rtypes for op in ops
                   for name in {b.resource_name for b in bindings if b.resource_type is rt} | {STRANGER})
    wide = {rt for rt in rtypes for p in who for op in ops
            if az.authorize(p, "10.0.0.1", op, rt, STRANGER).allowed}
    return stranger, wide


# ------------------------------------------------------------------------------------------ the defects


def test_connect_worker_topics_are_one_topic_each():
    for option in ("config_topic", "offset_topic", "status_topic"):
        o = AclOptions(connect_worker="w", allow_principals=["User:w"], **{option: "*"})
        with pytest.raises(UsageError, match=r"'\*'"):
            bindings_for_create(o)


def test_connect_worker_in_a_state_file_is_one_topic_each(tmp_path):
    from kafkactl.desired.formats.compact import read_compact
    from kafkactl.desired.state import DesiredState

    f = tmp_path / "state.yaml"
    f.write_text(yaml.safe_dump({"apiVersion": "kafkactl/v1", "kind": "AclState", "scope": {"principals": ["User:w"]},
                                 "acls": [{"principal": "User:w", "roles": [
                                     {"connectWorker": {"group": "w", "offsetTopic": "*"}}]}]}))
    with pytest.raises(UsageError, match=r"roles.connectWorker: offsetTopic '\*'"):
        read_compact(f, DesiredState())


@pytest.mark.parametrize("name", ["*", "User:x", "a,b", "CN=x", "Upper"])
def test_a_strimzi_user_name_is_never_another_principal(tmp_path, name):
    from kafkactl.desired.interop.convert import import_files

    f = tmp_path / "user.yaml"
    f.write_text(yaml.safe_dump({"apiVersion": "kafka.strimzi.io/v1beta2", "kind": "KafkaUser",
                                 "metadata": {"name": name}, "spec": {"authentication": {"type": "tls"},
                                 "authorization": {"type": "simple", "acls": [
                                     {"resource": {"type": "topic", "name": "orders"}, "operations": ["Read"]}]}}}))
    with pytest.raises(UsageError, match="metadata.name"):
        import_files("strimzi", [str(f)])


def test_a_topic_map_leaves_the_wildcard_topic_and_never_makes_an_empty_prefix():
    from kafkactl.desired.diff import TopicMap

    every = AclBinding(RT.TOPIC, "*", PT.LITERAL, "User:a", "*", AclOperation.READ, Permission.ALLOW)
    assert TopicMap.parse(["=src."]).binding(every) == every
    prefixed = AclBinding(RT.TOPIC, "eu.", PT.PREFIXED, "User:a", "*", AclOperation.READ, Permission.ALLOW)
    assert TopicMap.parse(["eu.=us."]).binding(prefixed).resource_name == "us."
    with pytest.raises(UsageError, match="empty name"):
        TopicMap.parse(["eu.="]).binding(prefixed)


def test_the_check_refuses_what_was_not_written_and_names_it():
    b = AclBinding(RT.TOPIC, "*", PT.LITERAL, "User:a", "*", AclOperation.READ, Permission.ALLOW)
    with pytest.raises(TooWide, match=r"f\.yaml:3: '\*' \(literal\) would be every topic"):
        Written("f.yaml:3", {"User:a"}).check(b)
    Written("f.yaml:3", {"User:a"}, {(RT.TOPIC, "*", PT.LITERAL)}).check(b)
    anyone = AclBinding(RT.TOPIC, "t", PT.LITERAL, "User:*", "*", AclOperation.READ, Permission.ALLOW)
    with pytest.raises(TooWide, match="every principal"):
        Written("x").check(anyone)
    with pytest.raises(TooWide, match="one name is needed"):
        Written("x").derived_prefix(RT.TOPIC, "*", "-", "--streams")


@dataclass
class _Profile:  # the fields of a resolved profile the lock-out check reads
    username: str | None
    sasl_mechanism: str | None
    super_users: tuple[str, ...] = field(default_factory=tuple)


def test_lockouts_name_the_callers_credential_and_super_users_only():
    from kafkactl.desired.configs.plan import Change, ConfigPlan, check_lockout, lockouts

    plan = ConfigPlan([Change("users", "ops", "delete-scram", "SCRAM-SHA-512", "iterations=4096", None, "f"),
                       Change("users", "ops", "delete-scram", "SCRAM-SHA-256", "iterations=4096", None, "f"),
                       Change("users", "root", "delete-scram", "SCRAM-SHA-256", "iterations=4096", None, "f"),
                       Change("users", "app", "delete-scram", "SCRAM-SHA-512", "iterations=4096", None, "f")], "x", [])
    found = lockouts(plan, _Profile("ops", "SCRAM-SHA-512", ("User:root",)))
    assert len(found) == 2 and "SCRAM-SHA-512 credential of ops" in found[0] and "root" in found[1]
    assert lockouts(plan, _Profile("ops", "PLAIN")) == []  # PLAIN users have no SCRAM credential to lose
    with pytest.raises(UsageError, match="--allow-lockout"):
        check_lockout(plan, _Profile("ops", "SCRAM-SHA-512"), allow=False)
    check_lockout(plan, _Profile("ops", "SCRAM-SHA-512"), allow=True)


# ------------------------------------------------------------------------------------------ every producer

PRESET_OPTIONS = st.one_of(
    st.builds(lambda app, ins, outs, pt: AclOptions(streams=app, topics=ins, output_topics=outs, pattern_type=pt),
              NAMES, st.lists(NAMES, max_size=2), st.lists(NAMES, max_size=2), st.sampled_from([None, "prefixed"])),
    st.builds(lambda g, c, o, s: AclOptions(connect_worker=g, config_topic=c, offset_topic=o, status_topic=s),
              NAMES, st.none() | NAMES, st.none() | NAMES, st.none() | NAMES),
    st.builds(lambda n, ts, src, pt: AclOptions(connector=n, topics=ts, source=src, sink=not src, pattern_type=pt),
              NAMES, st.lists(NAMES, max_size=2), st.booleans(), st.sampled_from([None, "prefixed"])),
    st.builds(lambda ts, gs, pt: AclOptions(share_consumer=True, topics=ts, groups=gs, pattern_type=pt),
              st.lists(NAMES, max_size=2), st.lists(NAMES, max_size=2), st.sampled_from([None, "prefixed"])),
    st.builds(lambda ids, ts, pt: AclOptions(two_phase_commit=True, transactional_ids=ids, topics=ts, pattern_type=pt),
              st.lists(NAMES, max_size=2), st.lists(NAMES, max_size=2), st.sampled_from([None, "prefixed"])),
    st.builds(lambda s, t, side, ts, gs, pt: AclOptions(mirror_maker=s, target_alias=t, side=side, topics=ts,
                                                         groups=gs if side == "source" else [], pattern_type=pt),
              NAMES, NAMES, st.sampled_from(["source", "target"]), st.lists(NAMES, max_size=2),
              st.lists(NAMES, max_size=2), st.sampled_from([None, "prefixed"])),
    st.builds(lambda ts, gs, ids, pt, prod, cons: AclOptions(topics=ts, groups=gs, transactional_ids=ids,
                                                             pattern_type=pt, producer=prod, consumer=cons),
              st.lists(NAMES, max_size=2), st.lists(NAMES, max_size=2), st.lists(NAMES, max_size=1),
              st.sampled_from([None, "prefixed", "literal"]), st.booleans(), st.booleans()),
)


def _written_wildcards(o: AclOptions) -> set[ResourceType]:
    """The resource types whose '*' the options write in a field that lists resources (literal pattern)."""
    if o.pattern_type == "prefixed":
        return set()
    out = set()
    if "*" in o.topics or "*" in o.output_topics:
        out.add(RT.TOPIC)
    if "*" in o.groups:
        out.add(RT.GROUP)
    if "*" in o.transactional_ids:
        out.add(RT.TRANSACTIONAL_ID)
    if o.mirror_maker is not None and o.side == "target":
        out.discard(RT.TOPIC)  # '*' arrives as the prefix SOURCE.: never every topic
    return out


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(PRESET_OPTIONS, st.lists(PRINCIPALS, min_size=1, max_size=2))
def test_no_preset_or_option_grants_beyond_what_it_names(o, principals):
    o.allow_principals = principals
    try:
        out = bindings_for_create(o)
    except UsageError:
        return  # refused (exit 2): nothing produced
    stranger, wide = stranger_access(out)
    assert not stranger or any(p.partition(":")[2] == "*" for p in principals), out
    assert wide <= _written_wildcards(o), (wide, out)


JULIE_CONSUMER = st.builds(lambda p, g: {"principal": p, **({"group": g} if g is not None else {})},
                           NAMES.map(lambda n: f"User:{n}"), st.none() | NAMES)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                     HealthCheck.function_scoped_fixture])
@given(st.sampled_from(["strimzi", "julie-ops", "kafka-gitops", "ksm", "terraform"]), NAMES, NAMES, NAMES)
def test_no_import_grants_beyond_what_the_file_names(tmp_path, fmt, who, topic, other):
    from kafkactl.desired.interop import Imported
    from kafkactl.desired.interop.convert import _reader

    f = tmp_path / f"in-{fmt}.{'csv' if fmt == 'ksm' else 'tf' if fmt == 'terraform' else 'yaml'}"
    q = yaml.safe_dump
    docs = {
        "strimzi": q({"apiVersion": "kafka.strimzi.io/v1beta2", "kind": "KafkaUser", "metadata": {"name": who},
                      "spec": {"authorization": {"type": "simple", "acls": [
                          {"resource": {"type": "topic", "name": topic, "patternType": "literal"},
                           "operations": ["Read"]}]}}}),
        "julie-ops": q({"context": "c", "projects": [{"name": "p", "consumers": [{"principal": f"User:{who}",
                                                                                    "group": other}],
                                                     "topics": [{"name": topic}],
                                                     "connectors": [{"principal": f"User:{who}",
                                                                     "status_topic": other}]}],
                        "special_topics": [{"name": other, "consumers": [{"principal": f"User:{who}",
                                                                           "group": "g"}]}]}),
        "kafka-gitops": q({"topics": {}, "users": {who: {"principal": f"User:{who}"}},
                           "customUserAcls": {who: {"r": {"name": topic, "type": "TOPIC", "pattern": "LITERAL",
                                                          "host": "*", "operation": "READ",
                                                          "permission": "ALLOW"}}}}),
        "ksm": "KafkaPrincipal,ResourceType,PatternType,ResourceName,Operation,PermissionType,Host\n"
               f'"User:{who}",Topic,LITERAL,"{topic}",Read,Allow,*\n',
        "terraform": f'resource "kafka_acl" "a" {{\n  acl_principal = "User:{who}"\n  acl_host = "*"\n'
                     f'  acl_operation = "Read"\n  acl_permission_type = "Allow"\n  resource_type = "Topic"\n'
                     f'  resource_name = "{topic}"\n  resource_pattern_type_filter = "Literal"\n}}\n',
    }
    f.write_text(docs[fmt])
    imported = Imported()
    try:
        _reader(fmt)(f, imported)
    except (UsageError, ValueError):
        return
    out = list(imported.bindings)
    stranger, wide = stranger_access(out)
    principal_written = fmt != "strimzi" and who == "*"
    assert not stranger or principal_written, out
    # julie-ops: the consumer's group as written; its topics and the worker's topics are one name each
    written = {RT.TOPIC} if topic == "*" and fmt not in ("julie-ops",) else set()
    if fmt == "julie-ops" and other == "*":
        written.add(RT.GROUP)
    assert wide <= written, (wide, out)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(NAMES, NAMES), max_size=3), NAMES, st.sampled_from([PT.LITERAL, PT.PREFIXED]))
def test_a_topic_map_never_makes_a_topic_acl_wider(pairs, name, pattern):
    """What --topic-map makes of the first cluster's topic ACL covers no topic the original's image does not: the
    literal '*' stays itself, and nothing else becomes '*' or an empty prefix (both would be every topic)."""
    from kafkactl.desired.diff import TopicMap

    try:
        tmap = TopicMap.parse([f"{a}={b}" for a, b in pairs if "=" not in a])
    except UsageError:
        return
    b = AclBinding(RT.TOPIC, name, pattern, "User:a", "*", AclOperation.READ, Permission.ALLOW)
    try:
        mapped = tmap.binding(b)
    except UsageError:
        return
    assert mapped.pattern_type is b.pattern_type
    if pattern is PT.LITERAL:
        assert (mapped.resource_name == "*") == (name == "*")
        assert name == "*" or mapped.resource_name == tmap(name)
    else:
        assert mapped.resource_name and mapped.resource_name == tmap(name)  # a prefix, never the empty one


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(PRINCIPALS, min_size=1, max_size=3), NAMES)
def test_an_imports_scope_is_the_principals_it_wrote(tmp_path, principals, topic):
    """acls import scopes the State it writes to the principals the file names (its apply manages exactly their
    ACLs): never a prefix, never a principal the file does not write."""
    from kafkactl.desired.interop.convert import import_files

    f = tmp_path / "acls.csv"
    f.write_text("KafkaPrincipal,ResourceType,PatternType,ResourceName,Operation,PermissionType,Host\n"
                 + "".join(f'"{p}",Topic,LITERAL,"{topic}",Read,Allow,*\n' for p in principals))
    try:
        doc, _ = import_files("ksm", [str(f)])
    except UsageError:
        return
    scope = doc.get("scope") or {}
    assert set(scope) <= {"principals"} and set(scope.get("principals", ())) <= set(principals)


@pytest.mark.parametrize("doc,message", [
    ({"services": {"*": {"type": "application", "principal": "User:s", "consumes": ["t"]}}}, r"'\*' \(literal\)"),
    ({"services": {"w": {"type": "kafka-connect", "principal": "User:w", "storage-topics": {"config": "*"}}}},
     r"'\*' \(literal\) would be every topic"),
    ({"services": {"*": {"type": "kafka-streams", "principal": "User:s"}}}, r"'\*'"),
])
def test_kafka_gitops_services_name_one_group_and_one_topic_each(tmp_path, doc, message):
    """Adversary pass: a service named '*' read every group; a worker's storage topic '*' every topic."""
    from kafkactl.desired.interop.convert import import_files

    f = tmp_path / "state.yaml"
    f.write_text(yaml.safe_dump(doc))
    with pytest.raises(UsageError, match=message):
        import_files("kafka-gitops", [str(f)])


def test_kafka_gitops_names_a_workers_status_topic_as_kafka_gitops_does(tmp_path):
    from kafkactl.desired.interop import Imported
    from kafkactl.desired.interop.gitops import read_gitops

    f = tmp_path / "state.yaml"
    f.write_text(yaml.safe_dump({"services": {"w": {"type": "kafka-connect", "principal": "User:w"}}}))
    out = Imported()
    read_gitops(f, out)
    assert {b.resource_name for b in out.bindings if b.resource_type is RT.TOPIC} == {
        "connect-configs-w", "connect-offsets-w", "connect-status-w"}


@pytest.mark.parametrize("fmt,doc", [
    ("julie-ops", {"context": "c", "projects": 5}),
    ("julie-ops", {"context": "c", "projects": [{"name": "p", "consumers": 5}]}),
    ("julie-ops", {"context": "c", "projects": [{"name": "p", "topics": 5}]}),
    ("julie-ops", {"context": "c", "projects": [{"name": "p", "topics": [{"name": "t", "dataType": {"a": 1}}]}]}),
    ("strimzi", {"apiVersion": "kafka.strimzi.io/v1beta2", "kind": "KafkaUser", "metadata": {"name": "u"},
                 "spec": {"authorization": {"type": "simple", "acls": 5}}}),
])
def test_a_malformed_import_is_refused_naming_the_field(tmp_path, fmt, doc):
    """Adversary pass: a number where a list belongs crashed the reader (exit 1, "unexpected TypeError"); a mapping
    as julie-ops' dataType became part of a topic's name."""
    from kafkactl.desired.interop.convert import import_files

    f = tmp_path / "in.yaml"
    f.write_text(yaml.safe_dump(doc))
    with pytest.raises(UsageError):
        import_files(fmt, [str(f)])
