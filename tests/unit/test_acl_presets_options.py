"""Issue 17: the presets as acls create options and as desired-state roles: what each grants (the grants
themselves are proved needed by real clients in tests/integration/test_acl_presets.py), and every way of asking
for one wrongly."""

from __future__ import annotations

import pytest

from kafkactl.acl.model import AclOperation as Op, PatternType as PT, ResourceType as RT
from kafkactl.acl.options import AclOptions, bindings_for_create, filters_for_query
from kafkactl.desired.formats import read_state
from kafkactl.desired.state import StateFileError
from kafkactl.errors import UsageError


def grants(**kw) -> set[tuple]:
    kw.setdefault("allow_principals", ["User:app"])
    out = bindings_for_create(AclOptions(**kw))
    assert {(b.principal, b.host, b.permission.name) for b in out} == {("User:app", "*", "ALLOW")}
    return {(b.resource_type, b.resource_name, b.pattern_type, b.operation) for b in out}


def test_streams_grants_inputs_outputs_internal_topics_group_and_transactional_ids():
    assert grants(streams="wc", topics=["text"], output_topics=["counts"]) == {
        (RT.TOPIC, "text", PT.LITERAL, Op.READ), (RT.TOPIC, "counts", PT.LITERAL, Op.WRITE),
        *((RT.TOPIC, "wc-", PT.PREFIXED, op) for op in (Op.CREATE, Op.READ, Op.WRITE, Op.DELETE)),
        (RT.GROUP, "wc", PT.LITERAL, Op.READ), (RT.TRANSACTIONAL_ID, "wc-", PT.PREFIXED, Op.WRITE)}
    # a prefixed pattern applies to the topics given; the app's own names keep theirs
    got = grants(streams="wc", topics=["in."], pattern_type="prefixed")
    assert (RT.TOPIC, "in.", PT.PREFIXED, Op.READ) in got and (RT.GROUP, "wc", PT.LITERAL, Op.READ) in got


def test_an_at_least_once_streams_app_gets_no_transactional_ids():
    eos = grants(streams="wc", topics=["text"])
    alo = grants(streams="wc", topics=["text"], at_least_once=True)
    assert eos - alo == {(RT.TRANSACTIONAL_ID, "wc-", PT.PREFIXED, Op.WRITE)} and alo < eos


def test_connect_worker_and_connectors():
    assert grants(connect_worker="cw") == {(RT.GROUP, "cw", PT.LITERAL, Op.READ), *(
        (RT.TOPIC, f"cw-{t}", PT.LITERAL, op) for t in ("configs", "offsets", "status")
        for op in (Op.READ, Op.WRITE, Op.CREATE))}
    named = grants(connect_worker="cw", config_topic="cfg", offset_topic="off", status_topic="st")
    assert {n for _, n, _, _ in named} == {"cw", "cfg", "off", "st"}
    assert grants(connector="fs", source=True, topics=["t"]) == {(RT.TOPIC, "t", PT.LITERAL, Op.WRITE)}
    assert grants(connector="fs", sink=True, topics=["t"]) == {(RT.TOPIC, "t", PT.LITERAL, Op.READ),
                                                               (RT.GROUP, "connect-fs", PT.LITERAL, Op.READ)}


def test_share_consumer_and_two_phase_commit():
    assert grants(share_consumer=True, topics=["t"], groups=["sg"]) == {(RT.TOPIC, "t", PT.LITERAL, Op.READ),
                                                                       (RT.GROUP, "sg", PT.LITERAL, Op.READ)}
    assert grants(two_phase_commit=True, topics=["t"], transactional_ids=["tx"]) == {
        (RT.TOPIC, "t", PT.LITERAL, Op.WRITE), (RT.TRANSACTIONAL_ID, "tx", PT.LITERAL, Op.WRITE),
        (RT.TRANSACTIONAL_ID, "tx", PT.LITERAL, Op.TWO_PHASE_COMMIT)}


def test_mirror_maker_source_and_target_sides():
    src = grants(mirror_maker="us", target_alias="eu", side="source", topics=["orders"], groups=["billing"])
    assert src == {(RT.TOPIC, "orders", PT.LITERAL, Op.READ), (RT.TOPIC, "orders", PT.LITERAL, Op.DESCRIBE_CONFIGS),
                   *((RT.TOPIC, "mm2-offset-syncs.eu.internal", PT.LITERAL, op) for op in (Op.CREATE, Op.WRITE,
                                                                                           Op.READ)),
                   (RT.GROUP, "billing", PT.LITERAL, Op.DESCRIBE)}
    dst = grants(mirror_maker="us", target_alias="eu", side="target", topics=["orders."], pattern_type="prefixed")
    assert {(RT.TOPIC, "us.orders.", PT.PREFIXED, op) for op in (Op.CREATE, Op.WRITE, Op.ALTER_CONFIGS)} <= dst
    assert (RT.GROUP, "us-mm2", PT.LITERAL, Op.READ) in dst and len(dst) == 18
    # a restarted MirrorMaker reads back its checkpoints; heartbeats it only writes
    assert (RT.TOPIC, "us.checkpoints.internal", PT.LITERAL, Op.READ) in dst
    assert (RT.TOPIC, "heartbeats", PT.LITERAL, Op.READ) not in dst
    assert {n for _, n, _, _ in dst} == {"us.orders.", "mm2-configs.us.internal", "mm2-offsets.us.internal",
                                         "mm2-status.us.internal", "us-mm2", "heartbeats", "us.checkpoints.internal"}
    # every topic: '*' on the source, every SOURCE.-prefixed topic on the target (a literal 'us.*' matches none)
    every = grants(mirror_maker="us", target_alias="eu", side="target", topics=["*", "orders"])
    assert {(RT.TOPIC, "us.", PT.PREFIXED, op) for op in (Op.CREATE, Op.WRITE, Op.ALTER_CONFIGS)} <= every
    assert (RT.TOPIC, "us.orders", PT.LITERAL, Op.WRITE) in every and not [x for x in every if x[1] == "us.*"]
    assert (RT.TOPIC, "*", PT.LITERAL, Op.READ) in grants(mirror_maker="us", target_alias="eu", side="source",
                                                          topics=["*"])
    # no Alter on the cluster: ACL sync is left off (Alter on the cluster lets its holder create any ACL)
    assert not [x for x in src | dst if x[0] is RT.CLUSTER]


def test_hosts_and_several_principals_cross_the_preset():
    out = bindings_for_create(AclOptions(share_consumer=True, topics=["t"], groups=["g"],
                                         allow_principals=["User:a", "User:b"], allow_hosts=["10.0.0.1"]))
    assert len(out) == 4 and {b.host for b in out} == {"10.0.0.1"}


@pytest.mark.parametrize("kw,needle", [
    (dict(streams="a", connect_worker="b"), "--streams and --connect-worker: give one preset"),
    (dict(streams="a", topics=["t"], operations=["Read"]), "--operation cannot be combined"),
    (dict(streams="a", topics=["t"], consumer=True), "--consumer cannot be combined"),
    (dict(streams="a", topics=["t"], deny_principals=["User:x"]), "--deny-principal cannot be combined"),
    (dict(streams="a", topics=["t"], cluster=True), "--cluster cannot be combined"),
    (dict(streams="a", topics=["t"], groups=["g"]), "--group does not apply to --streams"),
    (dict(streams="a"), "--streams needs the topics"),
    (dict(output_topics=["t"], topics=["t"]), "--output-topic belongs to a preset"),
    (dict(connect_worker="cw", output_topics=["t"]), "--output-topic does not apply to --connect-worker"),
    (dict(connect_worker="cw", topics=["t"]), "--topic does not apply to --connect-worker"),
    (dict(connect_worker="cw", pattern_type="prefixed"), "--resource-pattern-type does not apply"),
    (dict(connect_worker="cw", config_topic=" "), "--config-topic ' ': the name is empty"),
    (dict(connector="c", topics=["t"]), "one of --source or --sink"),
    (dict(connector="c", topics=["t"], source=True, sink=True), "one of --source or --sink"),
    (dict(connector="c", source=True), "needs the topics it writes"),
    (dict(share_consumer=True, topics=["t"]), "--share-consumer needs a --topic and a --group"),
    (dict(two_phase_commit=True, topics=["t"]), "--two-phase-commit needs"),
    (dict(two_phase_commit=True, topics=["t"], transactional_ids=[""]), "the name is empty"),
    (dict(streams="a", topics=["t"], allow_principals=[]), "give --allow-principal"),
    (dict(streams="a", topics=["t"], allow_principals=["alice"]), "alice"),
    (dict(streams="a\x00", topics=["t"]), "--streams"),
    # adversary pass: '*' as a literal group is every group; a derived name over Kafka's limit
    (dict(streams="*", topics=["t"]), "--streams '\\*': a preset is for one client"),
    (dict(connect_worker="*"), "--connect-worker '\\*'"),
    (dict(connector="*", sink=True, topics=["t"]), "--connector '\\*'"),
    (dict(streams="a" * 32767, topics=["t"]), "--streams 'aaa.*more than Kafka's limit"),
    (dict(connect_worker="a" * 32760), "--connect-worker 'aaa.*more than Kafka's limit"),
    (dict(at_least_once=True, topics=["t"]), "--at-least-once belongs to a preset"),
    (dict(mirror_maker="us", topics=["t"]), "needs --target-alias and --side"),
    (dict(mirror_maker="us", target_alias="eu", side="both", topics=["t"]), "--side 'both': one of source, target"),
    (dict(mirror_maker="us", target_alias="eu", side="target", topics=["t"], groups=["g"]),
     "--group .* applies to --side source"),
    (dict(mirror_maker="us", target_alias="eu", side="source"), "needs the source topics"),
    (dict(mirror_maker="*", target_alias="eu", side="source", topics=["t"]), "--mirror-maker '\\*'"),
    (dict(mirror_maker="us", target_alias="*", side="source", topics=["t"]), "--target-alias '\\*'"),
    (dict(target_alias="eu", topics=["t"]), "--target-alias belongs to a preset"),
    (dict(connect_worker="w", at_least_once=True), "--at-least-once does not apply to --connect-worker"),
])
def test_a_preset_asked_for_wrongly_is_refused_naming_the_option(kw, needle):
    kw.setdefault("allow_principals", ["User:app"])
    with pytest.raises(UsageError, match=needle.replace("(", r"\(")):
        bindings_for_create(AclOptions(**kw))


def test_list_and_delete_refuse_presets():
    for kw in (dict(streams="a"), dict(share_consumer=True), dict(connect_worker="w")):
        with pytest.raises(UsageError, match="only applies to create"):
            filters_for_query(AclOptions(**kw), for_delete=True)


SCOPE = 'scope: {principals: ["User:wc"]}\nacls:\n  - principal: User:wc\n'


def _state(tmp_path, body: str):
    path = tmp_path / "s.yaml"
    path.write_text(SCOPE + body)
    return read_state([path])


def test_a_streams_role_may_be_at_least_once(tmp_path):
    state = _state(tmp_path, "    roles: [{streams: {applicationId: wc, inputs: [a], exactlyOnce: false}}]\n")
    assert not [b for b in state.bindings if b.resource_type is RT.TRANSACTIONAL_ID]


def test_roles_in_a_desired_state_file_grant_as_the_options_do(tmp_path):
    state = _state(tmp_path, "    hosts: ['10.0.0.1']\n    roles:\n"
                             "      - streams: {applicationId: wc, inputs: [text], outputs: [counts]}\n"
                             "      - connector: {name: fs, type: sink, topics: [counts]}\n"
                             "      - producer: {topics: [counts], transactionalIds: [tx], idempotent: true}\n"
                             "    allow:\n      - topic: counts\n        operations: [Write]\n")
    got = {(b.resource_type, b.resource_name, b.operation) for b in state.bindings}
    cli = {(b.resource_type, b.resource_name, b.operation) for b in bindings_for_create(AclOptions(
        streams="wc", topics=["text"], output_topics=["counts"], allow_principals=["User:wc"]))}
    assert cli <= got
    assert (RT.GROUP, "connect-fs", Op.READ) in got and (RT.CLUSTER, "kafka-cluster", Op.IDEMPOTENT_WRITE) in got
    assert {b.host for b in state.bindings} == {"10.0.0.1"}


@pytest.mark.parametrize("body,needle", [
    ("    roles: [{streams: {applicationId: wc}}]\n", r"s.yaml:4: roles.streams: applicationId needs the topics .*"
                                                     r"\(inputs\) or writes \(outputs\)"),
    ("    roles: [{stream: {applicationId: wc}}]\n", r"'stream' was unexpected"),
    ("    roles: [{streams: {applicationId: wc, inputs: [a]}, consumer: {topics: [a], groups: [b]}}]\n",
     "too many properties"),
    ("    roles: [{connector: {name: x, type: both, topics: [a]}}]\n", r"connector.type: 'both' is not one of"),
    ("    roles: []\n", "should be non-empty"),
    ("    roles: [{consumer: {topics: a, groups: [b]}}]\n", r"consumer.topics: 'a' is not of type 'array'"),
    ("    roles: [{consumer: {topics: [a]}}]\n", r"'groups' is a required property"),
    ("    roles: [{shareConsumer: {topics: [' '], groups: [g]}}]\n",
     r"roles.shareConsumer: topics ' ': the name is empty"),
    ("    roles: [{connectWorker: {group: cw, configTopic: 7}}]\n", r"configTopic: 7 is not of type 'string'"),
    ("    roles: [{streams: {applicationId: wc, inputs: [a], idempotent: true}}]\n", r"'idempotent' was unexpected"),
    ("    roles: [{streams: {applicationId: '*', inputs: [a]}}]\n", r"roles.streams: applicationId '\*'"),
    ("    roles: [{mirrorMaker: {source: us, target: eu, side: target, topics: [t], groups: [g]}}]\n",
     r"roles.mirrorMaker: groups .* applies to side source"),
    ("    roles: [{mirrorMaker: {source: us, target: eu, side: both, topics: [t]}}]\n", r"side: 'both' is not one of"),
    ("    hosts: ['', 1.2.3.4]\n    roles: [{streams: {applicationId: wc, inputs: [a]}}]\n",
     r"roles.streams: hosts is empty"),
])
def test_a_broken_role_is_one_error_naming_the_file_line_and_field(tmp_path, body, needle):
    with pytest.raises(StateFileError, match=needle):
        _state(tmp_path, body)


def _lint(bindings, supers=()):
    from kafkactl.acl.lint_presets import incomplete

    return incomplete(sorted(set(bindings)), supers)


def _preset_acls(principal: str, **kw):
    return bindings_for_create(AclOptions(allow_principals=[principal], **kw))


def test_lint_reports_a_preset_held_but_for_one_acl_and_names_it():
    from kafkactl.acl.model import AclBinding, Permission

    full = _preset_acls("User:app", streams="wc", topics=["in"], output_topics=["out"])
    assert _lint(full) == []
    without_delete = [b for b in full if b.operation is not Op.DELETE]
    (f,) = _lint(without_delete)
    assert (f.check, f.severity, f.subject) == ("incomplete-preset", "warning", "User:app")
    assert "Delete on TOPIC:wc- (prefixed)" in f.message and "--streams wc" in f.message
    assert [(b.operation, b.resource_name, b.pattern_type) for b in f.acls] == [(Op.DELETE, "wc-", PT.PREFIXED)]
    # the missing one granted another way (User:*, or ALL on the prefix) is not missing
    star = AclBinding(RT.TOPIC, "wc", PT.PREFIXED, "User:*", "*", Op.DELETE, Permission.ALLOW)
    assert _lint([*without_delete, star]) == []
    # a DENY takes one away
    deny = AclBinding(RT.TRANSACTIONAL_ID, "wc-", PT.PREFIXED, "User:app", "*", Op.WRITE, Permission.DENY)
    assert "Write on TRANSACTIONAL_ID:wc-" in _lint([*full, deny])[0].message
    # a super user needs no ACL
    assert _lint(without_delete, supers=("User:app",)) == []


def test_lint_does_not_guess_a_preset_from_too_little():
    # a plain consumer (Read on a group, literal topics): no preset is recognised
    assert _lint(_preset_acls("User:c", consumer=True, topics=["t"], groups=["g"])) == []
    # less than half of one: not "most of" it
    full = _preset_acls("User:app", streams="wc", topics=["in"])
    few = [b for b in full if b.resource_type is RT.GROUP or b.operation is Op.CREATE]
    assert _lint(few) == []


def test_lint_recognises_a_connect_worker_by_its_default_topic_names():
    full = _preset_acls("User:w", connect_worker="cw")
    assert _lint(full) == []
    (f,) = _lint([b for b in full if not (b.resource_name == "cw-status" and b.operation is Op.CREATE)])
    assert "Create on TOPIC:cw-status" in f.message and "--connect-worker cw" in f.message
    # other topic names: not recognised (no guessing)
    assert _lint(_preset_acls("User:w", connect_worker="cw", config_topic="a", offset_topic="b",
                              status_topic="c")[:-1]) == []
