"""The protocol's and the clients' limits, checked before a request: string lengths, digits, ranges, encodings."""

from __future__ import annotations

import pytest

from kafkactl.errors import ConfigError, UsageError
from kafkactl.limits import MAX_STRING_BYTES, bounded_int, check_string, too_long

LONG = "x" * (MAX_STRING_BYTES + 1)


def test_string_limit_counts_utf8_bytes():
    assert MAX_STRING_BYTES == 32767
    assert check_string("x" * MAX_STRING_BYTES, "--user") == "x" * MAX_STRING_BYTES
    assert not too_long("€" * (MAX_STRING_BYTES // 3))  # 32,766 bytes
    assert too_long("€" * (MAX_STRING_BYTES // 3 + 1))  # 32,769 bytes, 10,923 characters
    assert too_long("\ud800" * 11000)  # a lone surrogate counts the 3 bytes it would take
    with pytest.raises(UsageError, match=r"^--user 'xxx.*\.\.\.': 32768 bytes in UTF-8, more than Kafka's limit "
                                         r"for a string \(32767 bytes\)$"):
        check_string(LONG, "--user")


def test_a_secret_string_is_not_repeated():
    with pytest.raises(UsageError) as exc:
        check_string("pw" + LONG, "--add-config", secret=True)
    assert "xxxxxx" not in exc.value.message and "not repeated" in exc.value.message


@pytest.mark.parametrize("text, number", [("1", 1), ("65535", 65535), ("065535", 65535), ("65536", None), ("0", None),
                                          ("9" * 5000, None), ("0" * 5000 + "1", 1), ("٩", None), ("", None),
                                          ("-1", None), ("1_0", None), (" 1", None)])
def test_bounded_int_never_converts_thousands_of_digits(text, number):
    assert bounded_int(text, 1, 65535) == number


def test_validate_text_refuses_a_string_longer_than_the_protocol_allows():
    from kafkactl.acl.model import validate_principal, validate_text

    assert validate_text("h" * MAX_STRING_BYTES, "--host") == "h" * MAX_STRING_BYTES
    with pytest.raises(UsageError, match=r"^--host 'hhh.*32768 bytes in UTF-8"):
        validate_text("h" * (MAX_STRING_BYTES + 1), "--host")
    with pytest.raises(UsageError, match=r"^--principal 'User:.*32773 bytes"):
        validate_principal("User:" + LONG)
    # a control character is still what is named first
    with pytest.raises(UsageError, match="control character"):
        validate_text("\n" + LONG, "--host")


def test_a_state_file_with_a_long_principal_is_refused(tmp_path):
    from kafkactl.desired.formats import read_state
    from kafkactl.desired.state import StateFileError

    p = tmp_path / "x.yaml"
    p.write_text("apiVersion: kafkactl/v1\nkind: AclState\nscope:\n  principalPrefixes: [\"User:a\"]\nacls:\n"
                 f"  - principal: User:a{LONG}\n    allow:\n      - topic: t\n        operations: [Read]\n")
    with pytest.raises(StateFileError, match=r"x\.yaml:6: principal 'User:axxx.*32774 bytes"):
        read_state([str(p)])


def test_gateway_refuses_an_acl_request_with_a_long_string():
    """The last line before the clients, whatever reader the binding came from."""
    from kafkactl.acl.model import AclBinding, AclOperation, PatternType, Permission, ResourceType
    from kafkactl.gateway._acls import check_lengths

    ok = AclBinding(ResourceType.TOPIC, "t" * MAX_STRING_BYTES, PatternType.LITERAL, "User:a", "*",
                    AclOperation.READ, Permission.ALLOW)
    check_lengths([ok])
    for field in ("resource_name", "principal", "host"):
        bad = AclBinding(**{**{f: getattr(ok, f) for f in AclBinding.COLUMNS}, field: "User:" + LONG})
        with pytest.raises(UsageError, match="32773 bytes"):
            check_lengths([ok, bad])


# ----------------------------------------------------------------------------------------- addresses

@pytest.mark.parametrize("value", ["[:]:9092", "[1.2.3.4.5]:9092", "[zz]:9092", "[]:9092", "[::1::2]:9092",
                                   "[1.2.3.4]:9092", "[::g]:9092", "[fe80::1%]:9092"])
def test_a_bracketed_host_must_be_an_ipv6_address(value):
    from kafkactl.profiles import parse_bootstrap

    with pytest.raises(ConfigError, match="is not an IPv6 address in brackets"):
        parse_bootstrap(value)


@pytest.mark.parametrize("value", ["[::1]:9092", "[fe80::1%eth0]:9092", "[::ffff:10.0.0.1]:9092",
                                   "[2001:DB8::1]:9092", "[1:2:3:4:5:6:7:8]:1"])
def test_real_ipv6_addresses_pass(value):
    from kafkactl.profiles import parse_bootstrap

    assert parse_bootstrap(value) == value


def test_a_port_of_thousands_of_digits_is_refused_and_cut_short():
    from kafkactl.profiles import parse_bootstrap

    with pytest.raises(ConfigError) as exc:
        parse_bootstrap("k:" + "9" * 5000)
    assert "is not a number from 1 to 65535" in exc.value.message and len(exc.value.message) < 300
    assert parse_bootstrap("k:" + "0" * 5000 + "9092") == "k:9092"


# ----------------------------------------------------------------------------------------- SCRAM iterations

@pytest.mark.parametrize("iterations", ["4096", "8192", "16384", "016384"])
def test_scram_iterations_within_the_brokers_bounds(iterations):
    from kafkactl.configs.values import parse_scram

    assert parse_scram("SCRAM-SHA-256", f"iterations={iterations},password=pw-9Hq2").iterations == int(iterations)


@pytest.mark.parametrize("iterations, message", [
    ("16385", "iterations 16385 is above the maximum of 16384"),
    ("9" * 5000, r"iterations 99999999\.\.\. \(5000 digits\) is above the maximum of 16384"),
    ("0" * 4999 + "1", "iterations 1 is below the minimum of 4096"),
])
def test_scram_iterations_outside_the_brokers_bounds(iterations, message):
    from kafkactl.configs.values import parse_scram

    with pytest.raises(UsageError, match=f"^SCRAM-SHA-512: {message}$"):
        parse_scram("SCRAM-SHA-512", f"password=pw-9Hq2,iterations={iterations}")


# ----------------------------------------------------------------------------------------- files

def test_a_properties_file_that_is_not_utf8(tmp_path):
    from kafkactl.profiles import read_properties_file

    p = tmp_path / "c.properties"
    p.write_bytes(b"a=b\nsasl.password=\xff\n")
    with pytest.raises(ConfigError, match=r"c\.properties: not UTF-8 text \(an invalid byte at offset 18\)"):
        read_properties_file(p)


def test_a_contexts_file_that_is_not_utf8(tmp_path):
    from kafkactl.profiles import ContextStore

    p = tmp_path / "config.yaml"
    p.write_bytes(b"contexts: {}\n# caf\xe9\n")
    p.chmod(0o600)
    with pytest.raises(ConfigError, match=r"config\.yaml: not UTF-8 text"):
        ContextStore.load(p)


# ----------------------------------------------------------------------------------------- one line

@pytest.mark.parametrize("text, shown", [
    ("a\nb", "a\\nb"), ("a\r\nb", "a\\r\\nb"), ("\x1b[31mred", "\\x1b[31mred"),
    ("a\u2028b\u2029c", "a\\u2028b\\u2029c"),
    ("a\x85b\x0bc\x0cd\x1ce", "a\\x85b\\x0bc\\x0cd\\x1ce"), ("tab\there", "tab\\there"), ("é ü", "é ü"),
])
def test_error_lines_escape_control_characters(text, shown):
    from kafkactl.cli.messages import one_line

    assert one_line(text) == shown
    assert len(one_line(text).splitlines()) == 1


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_a_command_config_that_is_no_regular_file_is_refused(tmp_path, kind):
    import os

    from kafkactl.profiles import read_properties_file

    p = tmp_path / "c.properties"
    if kind == "fifo":
        os.mkfifo(p)
    else:
        p.symlink_to("/dev/zero")
    with pytest.raises(ConfigError, match=r"c\.properties: not a regular file"):
        read_properties_file(p)


def test_a_command_config_over_a_mebibyte_is_refused_unread(tmp_path):
    from kafkactl.profiles import read_properties_file

    p = tmp_path / "c.properties"
    p.write_bytes(b"# padding\n" * 200_000)
    with pytest.raises(ConfigError, match=r"c\.properties: over 1 MiB"):
        read_properties_file(p)
