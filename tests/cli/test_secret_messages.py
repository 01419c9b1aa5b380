"""No piece of a secret in any message, with or without --debug: SCRAM values, sensitive configs, JAAS strings.

Each command here fails on bad input before any request (the address is a closed port: exit 4 would mean it
tried); the assertions look for every 6-character piece of the secret in stdout and stderr.
"""

from __future__ import annotations

import socket

import pytest

from tests.conftest import run

SECRET = "Zq8vKp3wXy7Tn2"
SECRETS = [SECRET]  # known to the secrets sweep (tests/secrets_sweep.py)


@pytest.fixture(scope="module")
def closed() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{s.getsockname()[1]}"


def _pieces(secret: str) -> list[str]:
    return [secret[i:i + 6] for i in range(len(secret) - 5)]


def _leaked(text: str, secret: str = SECRET) -> list[str]:
    return [p for p in _pieces(secret) if p in text]


def _error_line(r, debug: list[str]) -> str:
    """The command's error: its stderr's first line, or with --debug its first `error:` line (the debug log comes
    first, and in this in-process run it may hold lines of an earlier test's client thread still running)."""
    if not debug:
        return r.stderr
    return next((line for line in r.stderr.splitlines() if line.startswith("error: ")), "")


def _id(value: object) -> str:
    """A test id without the secret (ids are printed by pytest, outside the sweep's reach)."""
    text = str(value)
    for piece in _pieces(SECRET):
        text = text.replace(piece, "S")
    return text[:60]


@pytest.mark.parametrize("value", [
    f"SCRAM-SHA-512=[password={SECRET[:7]},{SECRET[7:]}]=",  # a comma in the password, then garbage
    f"SCRAM-SHA-512=[{SECRET}]",  # no password= at all
    f"SCRAM-SHA-512=[iterations={SECRET},password=x]",
    f"SCRAM-SHA-512=[passwd={SECRET}]",
    f"SCRAM-SHA-256=[password={SECRET}",  # unbalanced
    f"SCRAM-SHA-256=[iterations=8192,password={SECRET}]]",
    f"ssl.keystore.password=[{SECRET}",
    f"retention.ms=5,SCRAM-SHA-512=[{SECRET},iterations=1]",
], ids=_id)
@pytest.mark.parametrize("debug", [[], ["--debug"]])
def test_bad_scram_and_sensitive_values_never_echo_the_secret(closed, value, debug):
    r = run("-b", closed, *debug, "configs", "alter", "--user", "u1", "--add-config", value)
    assert r.exit_code == 2, r.output
    assert _error_line(r, debug).startswith("error: ") and not _leaked(r.output), r.output


def test_a_comma_belongs_to_the_password_not_to_a_new_setting():
    """`password=` takes what follows, commas included, until an `iterations=N` setting."""
    from kafkactl.configs.values import parse_scram

    c = parse_scram("SCRAM-SHA-512", "password=abc,def")
    assert (c.password.reveal(), c.iterations) == ("abc,def", 4096)
    c = parse_scram("SCRAM-SHA-512", "password=a,b,iterations=8192")
    assert (c.password.reveal(), c.iterations) == ("a,b", 8192)


@pytest.mark.parametrize("value, named", [
    ("=5", "('=5'): the key before '=' is missing"),
    ("k=[1,2", "('k=[1,2'): an unbalanced '[' (without its ']')"),
    ("retention.ms=1]", "('retention.ms=1]'): an unbalanced ']' (without its '[')"),
    ("foo", "('foo') is not key=value"),
])
def test_malformed_pairs_name_the_bad_part(closed, value, named):
    r = run("-b", closed, "configs", "alter", "--topic", "t", "--add-config", value)
    assert r.exit_code == 2 and named in r.stderr, r.output


@pytest.mark.parametrize("jaas, says", [
    (f'org.apache.kafka.common.security.scram.ScramLoginModule required username="u" password="{SECRET}',
     "unterminated quote in option 'password'"),
    (f"org.apache.kafka.common.security.scram.ScramLoginModule required username=u password={SECRET[:6]} {SECRET[6:]};",
     "malformed after option 'password'"),
    (f"org.apache.kafka.common.security.scram.ScramLoginModule username=u password={SECRET};", "control flag"),
    (f"org.apache.kafka.common.security.scram.ScramLoginModule required username=u pw={SECRET};",
     "needs both username and password"),
], ids=_id)
@pytest.mark.parametrize("debug", [[], ["--debug"]])
def test_jaas_errors_name_the_file_and_the_fault_without_the_secret(tmp_path, closed, jaas, says, debug):
    props = tmp_path / "client.properties"
    props.write_text("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-512\n"
                     f"sasl.jaas.config={jaas}\n")
    r = run("-b", closed, "--command-config", str(props), *debug, "topics", "list")
    assert r.exit_code == 2, r.output
    assert str(props) in r.stderr and says in r.stderr, r.stderr
    assert not _leaked(r.output), r.output


# A value that may be a password, placed where today's messages quote the part they stumble on.
@pytest.mark.parametrize("value", [
    f"k=[1,2,SCRAM-SHA-512=[password=ab,{SECRET}]",  # an open bracket before a SCRAM value swallows it
    f"retention.ms=1],SCRAM-SHA-512=[password=ab,{SECRET}]",  # a stray ']' before a SCRAM value
    f"=[password=ab,{SECRET}]",  # the key lost: "$MECH=[password=$PW]" with MECH unset
    f"={SECRET}",  # "$KEY=$PW" with KEY unset
    SECRET,  # no key at all
    f"ssl.keystore.password=abc,{SECRET}",  # a comma inside a sensitive value splits it
    f"sasl.jaas.config=x,{SECRET}",
    f"ssl.keystore.key=[{SECRET}",  # a PEM private key
    f"ssl.keystore.password=abc,{SECRET}]",
    f"ssl.keystore.password=abc,{SECRET}=",  # base64 padding reads as '='
], ids=_id)
@pytest.mark.parametrize("option", ["--add-config", "--append-config"])
@pytest.mark.parametrize("debug", [[], ["--debug"]], ids=["plain", "debug"])
def test_a_malformed_value_never_quotes_what_may_be_a_password(closed, value, option, debug):
    r = run("-b", closed, *debug, "configs", "alter", "--broker", "1", option, value)
    assert r.exit_code == 2 and _error_line(r, debug).startswith(f"error: {option}: "), r.output
    assert not _leaked(r.output), r.output


@pytest.mark.parametrize("value", [f"SCRAM-SHA-512=[{SECRET}]", f"ssl.key.password={SECRET}"],
                         ids=["scram", "sensitive"])
def test_delete_config_takes_names_only_and_never_quotes_a_value(closed, value):
    r = run("-b", closed, "configs", "alter", "--user", "u1", "--delete-config", value)
    assert r.exit_code == 2 and "--delete-config" in r.stderr and value.split("=")[0] in r.stderr, r.output
    assert not _leaked(r.output), r.output


@pytest.mark.parametrize("value, named", [
    ("=5", "setting 1 ('=5'): the key before '=' is missing"),
    (f"retention.ms=5,={SECRET}", "setting 2 (its value is not repeated: without a key it may be a secret): the key"),
    ("retention.ms=5,foo", "setting 2 ('foo') is not key=value"),
    ("ssl.key.password=abc,defgh", "setting 2 (after 'ssl.key.password'; not repeated"),
    (f"ssl.key.password=abc,{SECRET}==", "setting 2 (after 'ssl.key.password'; not repeated"),
    ("k=[1,2", "setting 1 ('k=[1,2'): an unbalanced '['"),
    (f"k=[1,2,SCRAM-SHA-512=[password={SECRET}]", "setting 1 ('k', its value is not repeated): an unbalanced '['"),
], ids=_id)
def test_malformed_settings_are_named_by_position_and_key(closed, value, named):
    r = run("-b", closed, "configs", "alter", "--topic", "t", "--add-config", value)
    assert r.exit_code == 2 and named in r.stderr, r.output


def test_values_of_sensitive_keys_are_registered_as_secrets():
    """A broker error that repeats a sensitive value is masked on the way out (kafkactl.redact)."""
    from kafkactl.configs.values import parse_pairs
    from kafkactl.redact import MASK, scrub

    parse_pairs(f"listener.name.x.ssl.key.password={SECRET}x1,retention.ms=12345678")
    assert scrub(f"broker: bad value {SECRET}x1") == f"broker: bad value {MASK}"
    assert scrub("12345678") == "12345678"


JAAS_SCRAM = "org.apache.kafka.common.security.scram.ScramLoginModule"


@pytest.mark.parametrize("jaas, says", [
    (f'{JAAS_SCRAM} required username="u" password="{SECRET}"', "is not terminated by ';'"),
    (f'{JAAS_SCRAM} required username="u" password="{SECRET}"; {SECRET}', "has text after its ';'"),
    (f'{JAAS_SCRAM} required username="u" password="x"; {JAAS_SCRAM} required password="{SECRET}";',
     "has text after its ';'"),
    (f'{SECRET} required username="u" password="x";', "the login module is not a Java class name"),
    ('org.example.NopeLoginModule required username="u" password="x";', "login module org.example.NopeLoginModule"),
    (f'{JAAS_SCRAM} required username="u" password="{SECRET}";x', "has text after its ';'"),
    (f'{JAAS_SCRAM} required username="u" password=;', "no value for option 'password'"),
], ids=_id)
def test_more_jaas_faults_are_named_without_the_secret(tmp_path, closed, jaas, says):
    props = tmp_path / "client.properties"
    props.write_text(f"security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-512\nsasl.jaas.config={jaas}\n")
    r = run("-b", closed, "--command-config", str(props), "topics", "list")
    assert r.exit_code == 2, r.output
    assert f"--command-config {props}" in r.stderr and says in r.stderr, r.stderr
    assert not _leaked(r.output), r.output


def test_a_context_s_jaas_fault_names_the_context(tmp_path, closed, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    (tmp_path / "kafkactl").mkdir()
    cfg = tmp_path / "kafkactl" / "config.yaml"
    cfg.write_text("contexts:\n  broken:\n    bootstrap-servers: " + closed + "\n    properties:\n"
                   "      security.protocol: SASL_PLAINTEXT\n      sasl.mechanism: SCRAM-SHA-512\n"
                   f"      sasl.jaas.config: '{JAAS_SCRAM} required username=u password=\"{SECRET}\"'\n")
    cfg.chmod(0o600)
    r = run("--context", "broken", "topics", "list")
    assert r.exit_code == 2 and "context broken" in r.stderr and "is not terminated by ';'" in r.stderr, r.output
    assert not _leaked(r.output), r.output


def test_a_property_written_with_a_space_for_the_equals_sign_is_refused_without_its_value(tmp_path):
    r = run("context", "add", "c", "-b", "127.0.0.1:9092", "--property", f"sasl.password {SECRET}",
            env={"XDG_CONFIG_HOME": str(tmp_path)})
    assert r.exit_code == 2 and not _leaked(r.output), r.output
    assert r.stderr == "error: --property 'sasl.password' (the rest not shown) is not key=value\n"


def test_credentials_in_a_bootstrap_address_are_refused_without_them(closed):
    for value in (f"u:{SECRET}@{closed}", f"SASL_SSL://u:{SECRET}@{closed},{closed}"):
        r = run("-b", value, "--timeout", "1", "topics", "list")
        assert r.exit_code == 2 and not _leaked(r.output), r.output
        assert "an address holds no credentials" in r.stderr
        r = run("--timeout", "1", "topics", "list", env={"KAFKACTL_BOOTSTRAP_SERVERS": value})
        assert r.exit_code == 2 and not _leaked(r.output) and "KAFKACTL_BOOTSTRAP_SERVERS" in r.stderr, r.output


@pytest.mark.parametrize("data, words", [
    (SECRET.encode() + b"\xff\n", "is not UTF-8 text"),
    (b"\n", "held no password"),
    (b"", "held no password"),
    (SECRET.encode() + b"\x00x\n", "NUL"),
], ids=["latin-1", "empty-line", "no-input", "nul"])
def test_password_stdin_that_is_no_password_is_refused_and_nothing_saved(tmp_path, data, words):
    """From the adversary pass: a non-UTF-8 password was saved, and the contexts file could not be read again."""
    env = {"XDG_CONFIG_HOME": str(tmp_path)}
    r = run("context", "add", "c", "-b", "127.0.0.1:9092", "--sasl-mechanism", "PLAIN", "--username", "u",
            "--password-stdin", input=data, env=env)  # type: ignore[arg-type]
    assert r.exit_code == 2 and words in r.stderr and not _leaked(r.output), r.output
    listed = run("context", "list", env=env)
    assert listed.exit_code == 0 and "c" not in listed.stdout.split(), listed.output
