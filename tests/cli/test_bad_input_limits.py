"""Limits of the protocol and of the clients: strings longer than a protocol STRING, numbers of thousands of digits,
librdkafka's ranges, SCRAM iterations, files that are not UTF-8, bracketed addresses that are not IPv6, and broker
text with line breaks. Each is refused with exit 2 (7 for a missing file) and one line naming the value.

Every case points at a closed port: a command that sent anything would end in exit 4, not 2.
"""

from __future__ import annotations

import socket

import pytest

from tests.conftest import run

PASSWORD = "Rb7kWq2zNx5vTe"
SECRETS = [PASSWORD]  # known to the secrets sweep (tests/secrets_sweep.py)
LIMIT = 32767
LONG = "u" * (LIMIT + 1)
DIGITS = "9" * 5000  # past Python's 4300-digit limit for int()


@pytest.fixture(scope="module")
def closed() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{s.getsockname()[1]}"


def one_line_error(r, *named: str) -> None:
    assert r.stderr.startswith("error: ") and r.stderr.count("\n") == 1, r.stderr[:500]
    assert "Traceback" not in r.output and "unexpected" not in r.stderr, r.stderr[:500]
    assert len(r.stderr) < 400, r.stderr[:500]  # a long value is cut short
    for n in named:
        assert n in r.stderr, r.stderr[:500]


# ------------------------------------------------------------------------ strings longer than a protocol STRING

@pytest.mark.parametrize("argv, named", [
    (["configs", "describe", "--user", LONG], "--user 'uuuu"),
    (["configs", "describe", f"--user={LONG}"], "--user 'uuuu"),
    (["configs", "describe", "--client", LONG], "--client 'uuuu"),
    (["configs", "describe", "--group", LONG], "--group 'uuuu"),
    (["configs", "describe", "--entity-type", "users", "--entity-name", LONG], "--entity-name 'uuuu"),
    (["configs", "alter", "--user", LONG, "--add-config", "consumer_byte_rate=1"], "--user 'uuuu"),
    (["groups", "describe", LONG], "an argument 'uuuu"),
    (["acls", "list", "--principal", f"User:{LONG}"], "--principal 'User:uuuu"),
    (["acls", "list", "--transactional-id", LONG], "--transactional-id 'uuuu"),
    (["acls", "list", "--group", LONG], "--group 'uuuu"),
    (["acls", "create", "--allow-principal", "User:a", "--group", LONG, "--operation", "Read", "--yes"], "--group"),
    (["acls", "delete", "--principal", f"User:{LONG}", "--topic", "t", "--yes"], "--principal"),
    (["topics", "create", "t", "--config", f"cleanup.policy={LONG}"], "--config"),
    # bytes, not characters: 16,384 two-byte characters are 32,768 bytes
    (["configs", "describe", "--user", "é" * 16384], "--user 'éééé"),
    # an option's name does not count: the value of --user=... fits, the --client after it does not
    (["configs", "describe", f"--user={'u' * LIMIT}", "--client", LONG], "--client 'uuuu"),
])
def test_strings_longer_than_the_protocol_allows_are_refused(closed, argv, named):
    r = run("-b", closed, "--timeout", "2", *argv)
    assert r.exit_code == 2, r.output[:500]
    long = next(v for v in (a.partition("=")[2] if a.startswith("--") else a for a in argv) if len(v.encode()) > LIMIT)
    one_line_error(r, named, f"{len(long.encode())} bytes in UTF-8", f"({LIMIT} bytes)")


def test_a_long_config_value_is_not_repeated(closed):
    value = f"sasl.jaas.config={PASSWORD}" + "p" * LIMIT
    r = run("-b", closed, "configs", "alter", "--broker", "1", "--add-config", value)
    assert r.exit_code == 2, r.output[:500]
    one_line_error(r, "--add-config", "not repeated")
    assert PASSWORD[:6] not in r.output and "ppppp" not in r.output


def test_the_limit_itself_is_allowed(closed):
    """32,767 bytes fit: the command goes on to the (closed) cluster."""
    r = run("-b", closed, "--timeout", "2", "configs", "describe", "--user", "u" * LIMIT)
    assert r.exit_code == 4, r.output[:500]


def test_a_long_principal_in_a_state_file_is_refused(closed, tmp_path):
    state = tmp_path / "state.yaml"
    state.write_text("apiVersion: kafkactl/v1\nkind: AclState\nscope:\n  principalPrefixes: [\"User:a-\"]\nacls:\n"
                     f"  - principal: User:a-{LONG}\n    allow:\n      - topic: t\n        operations: [Read]\n")
    r = run("-b", closed, "--timeout", "2", "acls", "plan", str(state))
    assert r.exit_code == 2, r.output[:500]
    one_line_error(r, "state.yaml:6", "principal 'User:a-uuu", "32775 bytes")


def test_long_values_in_an_add_config_file_are_refused(closed, tmp_path):
    props = tmp_path / "add.properties"
    props.write_text(f"retention.ms=1\ncleanup.policy={LONG}\n")
    r = run("-b", closed, "configs", "alter", "--topic", "t", "--add-config-file", str(props))
    assert r.exit_code == 2, r.output[:500]
    one_line_error(r, "add.properties", "'cleanup.policy'", "32768 bytes")


def test_a_long_client_id_in_the_command_config_is_refused(closed, tmp_path):
    """client.id goes in every request's header, a protocol STRING."""
    props = tmp_path / "client.properties"
    props.write_text(f"client.id={LONG}\n")
    r = run("-b", closed, "--timeout", "2", "--command-config", str(props), "topics", "list")
    assert r.exit_code == 2, r.output[:500]
    one_line_error(r, f"{props}: client.id 'uuuu", "32768 bytes")


# ------------------------------------------------------------------------ numbers of thousands of digits

@pytest.mark.parametrize("argv, named", [
    (["-b", f"127.0.0.1:{DIGITS}", "topics", "list"], "port '9999"),
    (["configs", "alter", "--user", "u1", "--add-config", f"SCRAM-SHA-256=[iterations={DIGITS},password={PASSWORD}]"],
     "(5000 digits)"),
    (["topics", "create", "t", "--partitions", DIGITS], "--partitions"),
    (["topics", "create", "t", "--replication-factor", DIGITS], "--replication-factor"),
    (["topics", "create", "t", "--partitions", "9" * 4000], "--partitions 9999"),  # int() reads it: still cut short
    (["configs", "describe", "--broker", DIGITS], "must be a broker id"),
    (["configs", "alter", "--user", "u1", "--add-config", f"consumer_byte_rate={DIGITS}"], "consumer_byte_rate='9999"),
    (["configs", "alter", "--user", "u1", "--add-config", "consumer_byte_rate=nan"], "consumer_byte_rate='nan'"),
    (["acls", "plan", "x.yaml", "--limit", DIGITS], "--limit"),
])
def test_numbers_of_thousands_of_digits_are_refused(closed, argv, named):
    r = run(*(["-b", closed] if argv[0] != "-b" else []), "--timeout", "2", *argv)
    assert r.exit_code == 2, r.output[:500]
    one_line_error(r, named)
    assert PASSWORD[:6] not in r.output


def test_local_up_refuses_an_endless_wait_before_starting_anything(monkeypatch):
    from kafkactl.local.sandbox import Sandbox

    def up(*a, **kw):  # noqa: ARG001 (in Sandbox.up's place, whatever it is given)
        raise AssertionError("the sandbox was started")

    monkeypatch.setattr(Sandbox, "up", up)
    r = run("local", "up", "--wait", f"{DIGITS}")
    assert r.exit_code == 2, r.output[:500]
    one_line_error(r, "--wait a number too large")


# ------------------------------------------------------------------------ librdkafka's ranges for a new topic

@pytest.mark.parametrize("argv, named", [
    (["--partitions", "100001"], "--partitions 100001: must be from 1 to 100000"),
    (["--replication-factor", "10001"], "--replication-factor 10001: must be from 1 to 10000"),
    (["--partitions", "2147483647"], "--partitions 2147483647"),
    (["--replication-factor", "32767"], "--replication-factor 32767"),
])
def test_topic_create_ranges_are_librdkafkas(closed, argv, named):
    r = run("-b", closed, "topics", "create", "t", *argv)
    assert r.exit_code == 2, r.output[:500]
    one_line_error(r, named)


@pytest.mark.parametrize("argv", [["--partitions", "100000"], ["--replication-factor", "10000"]])
def test_topic_create_range_ends_are_sent(closed, argv):
    r = run("-b", closed, "--timeout", "2", "topics", "create", "t", *argv)
    assert r.exit_code == 4, r.output[:500]


# ------------------------------------------------------------------------ SCRAM iterations

@pytest.mark.parametrize("iterations, named", [
    ("16385", "iterations 16385 is above the maximum of 16384"),
    ("100000", "iterations 100000 is above the maximum of 16384"),
])
@pytest.mark.parametrize("order", ["iterations first", "password first"])
def test_scram_iterations_outside_the_brokers_bounds(closed, iterations, named, order):
    inside = (f"iterations={iterations},password={PASSWORD}" if order == "iterations first"
              else f"password={PASSWORD},iterations={iterations}")
    r = run("-b", closed, "configs", "alter", "--user", "u1", "--add-config", f"SCRAM-SHA-512=[{inside}]")
    assert r.exit_code == 2, r.output[:500]
    one_line_error(r, named)
    assert PASSWORD[:6] not in r.output


def test_scram_iterations_at_the_maximum_are_sent(closed):
    r = run("-b", closed, "--timeout", "2", "configs", "alter", "--user", "u1", "--add-config",
            f"SCRAM-SHA-256=[iterations=16384,password={PASSWORD}]")
    assert r.exit_code == 4, r.output[:500]


# ------------------------------------------------------------------------ files that are not UTF-8

def test_command_config_that_is_not_utf8(closed, tmp_path):
    props = tmp_path / "client.properties"
    props.write_bytes(b"security.protocol=PLAINTEXT\nsasl.password=\xff\xfe" + PASSWORD.encode() + b"\n")
    r = run("-b", closed, "--command-config", str(props), "topics", "list")
    assert r.exit_code == 2, r.output[:500]
    one_line_error(r, f"--command-config {props}", "not UTF-8")
    assert PASSWORD[:6] not in r.output


def test_command_config_from_the_environment_that_is_not_utf8(closed, tmp_path):
    props = tmp_path / "client.properties"
    props.write_bytes(b"client.id=\xe9t\xe9\n")  # Latin-1
    r = run("-b", closed, "topics", "list", env={"KAFKACTL_COMMAND_CONFIG": str(props)})
    assert r.exit_code == 2, r.output[:500]
    one_line_error(r, str(props), "not UTF-8")


def test_add_config_file_that_is_not_utf8_names_its_own_option(closed, tmp_path):
    props = tmp_path / "add.properties"
    props.write_bytes(b"retention.ms=\xff\n")
    r = run("-b", closed, "configs", "alter", "--topic", "t", "--add-config-file", str(props))
    assert r.exit_code == 2, r.output[:500]
    one_line_error(r, f"--add-config-file {props}: not UTF-8")
    assert "--command-config" not in r.stderr


def test_contexts_file_that_is_not_utf8(tmp_path):
    home = tmp_path / "config"
    (home / "kafkactl").mkdir(parents=True)
    path = home / "kafkactl" / "config.yaml"
    path.write_bytes(b"contexts:\n  a:\n    bootstrap-servers: \"k\xe9:9092\"\ncurrent-context: a\n")
    path.chmod(0o600)
    r = run("context", "list", env={"XDG_CONFIG_HOME": str(home)})
    assert r.exit_code == 2, r.output[:500]
    one_line_error(r, str(path), "not UTF-8")


# ------------------------------------------------------------------------ bracketed hosts that are not IPv6

@pytest.mark.parametrize("value, named", [
    ("[:]:9092", "'[:]'"), ("[1.2.3.4.5]:9092", "'[1.2.3.4.5]'"), ("[zz]:9092", "'[zz]'"), ("[]:9092", "'[]'"),
    ("[::1::2]:9092", "'[::1::2]'"), ("[12345::1]:9092", "'[12345::1]'"), ("k:1,[1.2.3]:9092", "'[1.2.3]'"),
])
def test_bracketed_hosts_must_be_ipv6(value, named):
    r = run("-b", value, "topics", "list")
    assert r.exit_code == 2, r.output
    one_line_error(r, "-b/--bootstrap-server", named, "not an IPv6 address")


# ------------------------------------------------------------------------ one line, whatever the message holds

def test_a_path_with_a_line_break_stays_on_one_line(closed):
    r = run("-b", closed, "--command-config", "/nonexistent/a\nb\x1b[31mc.properties", "topics", "list")
    assert r.exit_code == 7, r.output
    one_line_error(r, "/nonexistent/a\\nb\\x1b[31mc.properties")
    assert "\x1b" not in r.stderr


def test_broker_text_with_line_breaks_is_one_line(closed, monkeypatch):
    """A broker's error message is repeated in kafkactl's: its line breaks and escapes must not reach stderr."""
    from kafkactl.cli.context import AppContext
    from kafkactl.errors import BrokerError

    def gateway(self):  # noqa: ARG001 (in AppContext.gateway's place)
        raise BrokerError("create topic t: INVALID_CONFIG: line one\nline two\r\n\x1b[2Jcleared\u2028end\x85")

    monkeypatch.setattr(AppContext, "gateway", gateway)
    r = run("-b", closed, "topics", "list")
    assert r.exit_code == 1, r.output
    one_line_error(r, "line one\\nline two\\r\\n\\x1b[2Jcleared\\u2028end\\x85")


@pytest.mark.parametrize("argv", [
    ["local", "up", "--brokers", "３"],  # fullwidth
    ["topics", "create", "t", "--partitions", "٣", "--dry-run"],  # Arabic-Indic
    ["--timeout", "３", "topics", "list"],
    ["topics", "list", "--timeout=１０"],
    ["local", "spark", "up", "--workers", "２"],
])
def test_numbers_in_other_scripts_digits_are_refused(closed, argv):
    """Python's int() and float() read any script's decimal digits: a number is written with 0-9."""
    r = run("-b", closed, *argv)
    assert r.exit_code == 2 and "not a number (write it with the digits 0-9)" in r.stderr, r.output
