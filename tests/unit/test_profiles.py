"""Client properties, JAAS parsing, contexts and the flags > env > context precedence."""

from __future__ import annotations

import os
import stat

import pytest

from kafkactl.errors import ConfigError, NotFoundError
from kafkactl.profiles import (
    Context,
    ContextStore,
    Selection,
    parse_jaas,
    parse_properties_text,
    resolve,
    settings_from_properties,
)
from kafkactl.redact import Secret


def test_jaas_plain_module_with_double_quotes():
    j = parse_jaas('org.apache.kafka.common.security.plain.PlainLoginModule required '
                   'username="alice" password="s3cr;et";')
    assert j.module.endswith("PlainLoginModule")
    assert j.flag == "required"
    assert j.options == {"username": "alice", "password": "s3cr;et"}


def test_jaas_scram_single_quotes_escapes_and_bare_words():
    j = parse_jaas("org.apache.kafka.common.security.scram.ScramLoginModule REQUIRED username=bob "
                   "password='a\\'b' tokenauth=false ;")
    assert j.options == {"username": "bob", "password": "a'b", "tokenauth": "false"}
    assert j.flag == "required"


@pytest.mark.parametrize("bad", [
    "",
    "org.example.Module",  # no control flag
    "org.example.Module required username",  # option without =value
    'org.example.Module required password="unterminated;',
])
def test_jaas_errors_are_config_errors_without_the_text(bad):
    with pytest.raises(ConfigError) as e:
        parse_jaas(bad)
    assert "unterminated" not in str(e.value) or "password" in str(e.value)
    assert "unterminated;" not in str(e.value)


PROPS = r"""
# kafka-*.sh style, with a continuation line as people write them
security.protocol = SASL_SSL
sasl.mechanism: SCRAM-SHA-256
sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required \
    username="svc-orders" \
    password="p@ss word=1";
ssl.truststore.type=PEM
ssl.truststore.location=/etc/kafka/ca.pem
"""


def test_properties_with_continuations_parse_to_profile_settings(tmp_path):
    ca = tmp_path / "ca.pem"
    ca.write_text("-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n")
    s = settings_from_properties(parse_properties_text(PROPS.replace("/etc/kafka/ca.pem", str(ca))))
    assert s["security_protocol"] == "SASL_SSL"
    assert s["sasl_mechanism"] == "SCRAM-SHA-256"
    assert s["username"] == "svc-orders"
    assert isinstance(s["password"], Secret) and s["password"].reveal() == "p@ss word=1"
    assert s["ssl_cafile"] == str(ca)


def test_plain_module_with_scram_mechanism_is_rejected():
    props = {"sasl.mechanism": "SCRAM-SHA-512",
             "sasl.jaas.config": 'org.apache.kafka.common.security.plain.PlainLoginModule required '
                                 'username="a" password="b";'}
    with pytest.raises(ConfigError, match="does not match"):
        settings_from_properties(props)


def test_unsupported_login_module_and_mechanism():
    with pytest.raises(ConfigError, match="sasl.mechanism AWS_MSK_IAM is not supported .Amazon MSK's IAM"):
        settings_from_properties({"sasl.mechanism": "AWS_MSK_IAM"})
    with pytest.raises(ConfigError, match="login module com.example.Login is not supported .*Krb5LoginModule"):
        settings_from_properties({"sasl.jaas.config": "com.example.Login required a=b;"})


# ---------------------------------------------------------------- contexts and precedence


@pytest.fixture
def store(tmp_path):
    s = ContextStore(path=tmp_path / "kafkactl" / "config.yaml")
    s.put(Context(name="prod", bootstrap_servers="prod:9092",
                  properties={"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN",
                              "sasl.username": "ops", "sasl.password": "prod-pw-123"}))
    s.put(Context(name="dev", bootstrap_servers="dev:9092"))
    s.current = "dev"
    s.save()
    return ContextStore.load(s.path)


def test_store_is_written_0600_and_round_trips(store):
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600
    assert store.warnings == []
    assert store.current == "dev"
    assert store.contexts["prod"].properties["sasl.username"] == "ops"


def test_store_warns_when_readable_by_others(store):
    os.chmod(store.path, 0o644)
    again = ContextStore.load(store.path)
    assert any("readable by other users" in w and "chmod 600" in w for w in again.warnings)


def test_current_context_is_used_without_flags_or_env(store):
    p = resolve(Selection(), env={}, store=store)
    assert (p.context, p.bootstrap_servers) == ("dev", "dev:9092")


def test_env_context_beats_current_context(store):
    p = resolve(Selection(), env={"KAFKACTL_CONTEXT": "prod"}, store=store)
    assert (p.context, p.username) == ("prod", "ops")


def test_flag_context_beats_env(store):
    p = resolve(Selection(context="dev"), env={"KAFKACTL_CONTEXT": "prod"}, store=store)
    assert p.context == "dev"


def test_bootstrap_flag_beats_env_beats_context(store):
    env = {"KAFKACTL_CONTEXT": "prod", "KAFKACTL_BOOTSTRAP_SERVERS": "env:1"}
    assert resolve(Selection(), env=env, store=store).bootstrap_servers == "env:1"
    p = resolve(Selection(bootstrap_servers="flag:2"), env=env, store=store)
    assert p.bootstrap_servers == "flag:2"
    assert p.username == "ops"  # the context's credentials stay (kubectl's --server behaves the same)


def test_command_config_replaces_context_security_as_a_whole(store, tmp_path):
    f = tmp_path / "c.properties"
    f.write_text("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-512\n"
                 'sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required '
                 'username="x" password="yy";\n')
    p = resolve(Selection(context="prod", command_config=str(f)), env={}, store=store)
    assert (p.username, p.sasl_mechanism, p.password.reveal()) == ("x", "SCRAM-SHA-512", "yy")


def test_unknown_context_is_not_found(store):
    with pytest.raises(NotFoundError, match="'nope' does not exist"):
        resolve(Selection(context="nope"), env={}, store=store)


def test_no_cluster_at_all_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="no cluster selected"):
        resolve(Selection(), env={}, store=ContextStore(path=tmp_path / "none.yaml"))


def test_a_context_without_an_address_is_named(tmp_path):
    s = ContextStore(path=tmp_path / "config.yaml")
    s.put(Context(name="half"))
    with pytest.raises(ConfigError, match="context half has no bootstrap servers: give -b"):
        resolve(Selection(context="half"), env={}, store=s)
    assert resolve(Selection(context="half", bootstrap_servers="h:1"), env={}, store=s).bootstrap_servers == "h:1"


def test_missing_command_config_file_is_not_found(tmp_path):
    with pytest.raises(NotFoundError, match="no such file"):
        resolve(Selection(bootstrap_servers="h:1", command_config=str(tmp_path / "missing.properties")), env={},
                store=ContextStore(path=tmp_path / "none.yaml"))


def test_broken_yaml_names_file_and_line(tmp_path):
    p = tmp_path / "config.yaml"
    p.write_text("contexts:\n  a: {bootstrap-servers: [unclosed\n")
    os.chmod(p, 0o600)
    with pytest.raises(ConfigError, match=r"config.yaml line \d+: not valid YAML"):
        ContextStore.load(p)


def test_profile_repr_never_shows_the_password(store):
    p = resolve(Selection(context="prod"), env={}, store=store)
    assert "prod-pw-123" not in repr(p) and "prod-pw-123" not in str(p) and "prod-pw-123" not in p.describe()
