"""auth principal and acls check --ssl-dn with --rules given (no broker needed): what the mapping makes of a DN,
a certificate and a Kerberos name, and the one-line errors for everything else. The agreement with Kafka's own
classes is the differential test's (tests/integration/test_mapping_differential.py); the cluster's rules are read
in tests/integration/test_tls.py."""

from __future__ import annotations

import json

import pytest

from kafkactl.exitcodes import ExitCode
from tests.conftest import run

# in the Java regex, `\\,` is a backslash then a comma, as RFC 2253 writes a comma inside a value
RULES = "RULE:^CN=([^,]+),OU=eng,O=Corp\\\\, Inc$/$1/L,DEFAULT"


def principal(*args: str) -> str:
    r = run("-o", "json", "auth", "principal", *args)
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)["principal"]


def test_a_dn_the_rule_matches_maps_to_the_short_name_and_others_stay_whole():
    assert principal("--ssl-dn", "CN=Alice,OU=eng,O=Corp\\, Inc", "--rules", RULES) == "User:alice"
    assert principal("--ssl-dn", "CN=Alice,OU=ops", "--rules", RULES) == "User:CN=Alice,OU=ops"
    # no rules at all is Kafka's default: the DN whole
    assert principal("--ssl-dn", "CN=Alice,OU=ops", "--rules", "DEFAULT") == "User:CN=Alice,OU=ops"
    # Kafka escapes a back-reference to a group the pattern lacks: $2 stays literal (no error at the broker)
    assert principal("--ssl-dn", "CN=a", "--rules", "RULE:^CN=(a)$/$2/") == "User:$2"


def test_a_certificate_file_is_read_for_its_subject(tmp_path):
    import datetime

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    # RFC 2253 writes the sequence last RDN first: CN=Bob,OU=eng,O=Corp\, Inc
    subject = x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Corp, Inc"),
                         x509.NameAttribute(NameOID.ORGANIZATIONAL_UNIT_NAME, "eng"),
                         x509.NameAttribute(NameOID.COMMON_NAME, "Bob")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(subject).issuer_name(subject).public_key(key.public_key())
            .serial_number(1).not_valid_before(now).not_valid_after(now + datetime.timedelta(days=1))
            .sign(key, hashes.SHA256()))
    pem = tmp_path / "bob.pem"
    pem.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    assert principal("--cert", str(pem), "--rules", RULES) == "User:bob"


def test_kerberos_names():
    rules = "RULE:[2:$1@$0](kafka@EXAMPLE\\.COM)s/.*/kafka/,RULE:[1:$1]/U,DEFAULT"
    assert principal("--kerberos", "kafka/broker1@EXAMPLE.COM", "--rules", rules) == "User:kafka"
    assert principal("--kerberos", "alice@EXAMPLE.COM", "--rules", rules) == "User:ALICE"
    assert principal("--kerberos", "svc/h@EXAMPLE.COM", "--rules", "DEFAULT", "--default-realm", "EXAMPLE.COM") \
        == "User:svc"


@pytest.mark.parametrize("args, code, words", [
    ([], ExitCode.USAGE, "give one of --ssl-dn, --cert and --kerberos"),
    (["--ssl-dn", "CN=a", "--kerberos", "a@R"], ExitCode.USAGE, "not --ssl-dn and --kerberos"),
    (["--ssl-dn", "CN=a", "--default-realm", "R", "--rules", "DEFAULT"], ExitCode.USAGE, "--default-realm is for"),
    (["--ssl-dn", "CN=a", "--rules", "RULE:^CN=(a$/$1/"], ExitCode.USAGE, "Unclosed group"),
    # a construct Python's re cannot match as Java does is declined, never guessed
    (["--ssl-dn", "CN=a", "--rules", "RULE:(?i)cn=(a)/$1/"], ExitCode.USAGE, "(?i)cn=(a)"),
    (["--ssl-dn", "CN=a", "--rules", "RULE:^CN=b$/x/"], ExitCode.AUTHENTICATION, "No rules apply to CN=a"),
    # Kerberos names of three components: the broker's KerberosName refuses them
    (["--kerberos", "a/b/c@R", "--rules", "DEFAULT"], ExitCode.AUTHENTICATION, "Malformed Kerberos name: a/b/c@R"),
    # the rule grammar has no escaped slash in s/// (Kafka's own pattern): the whole rule is invalid
    (["--kerberos", "a@R", "--rules", "RULE:[1:$1](a)s/a/b\\/c/"], ExitCode.USAGE, "Invalid rule"),
    (["--kerberos", "a@R", "--rules", "RULE:[1:$1@$0]"], ExitCode.AUTHENTICATION, "Non-simple name a@R"),
    (["--cert", "/nonexistent/x.pem", "--rules", "DEFAULT"], ExitCode.NOT_FOUND, "/nonexistent/x.pem"),
    (["--cert", "/dev/zero", "--rules", "DEFAULT"], ExitCode.USAGE, "/dev/zero"),
    (["--cert", "/", "--rules", "DEFAULT"], ExitCode.USAGE, "not a regular file"),
    # Java reads a repetition bound as an int: past 2^31-1 it refuses the pattern (Python overflowed: exit 1)
    (["--ssl-dn", "x", "--rules", "RULE:x{99999999999}/y/"], ExitCode.USAGE, "Illegal repetition range"),
    (["--ssl-dn", "x", "--rules", "RULE:x{2147483648}/y/"], ExitCode.USAGE, "Illegal repetition range"),
    (["--ssl-dn", "x", "--rules", "RULE:x{1,4294967296}/y/"], ExitCode.USAGE, "Illegal repetition range"),
    # bytes that were not UTF-8 reach Python as lone surrogates: refused, not written into JSON
    (["--ssl-dn", "CN=\udcff\udcfe", "--rules", "DEFAULT"], ExitCode.USAGE, "--ssl-dn: not UTF-8 text"),
])
def test_bad_input_is_one_line_with_its_exit_code(args, code, words):
    r = run("auth", "principal", *args)
    assert r.exit_code == code, r.output
    assert words in r.stderr and r.stderr.count("\n") == 1 and "Traceback" not in r.output and r.stdout == ""


def test_a_file_that_is_not_a_certificate(tmp_path):
    for name, data in [("empty.pem", b""), ("garbage.pem", b"\x00\xff" * 500),
                       ("key.pem", b"-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"),
                       ("bad.pem", b"-----BEGIN CERTIFICATE-----\n!!!!\n-----END CERTIFICATE-----\n")]:
        f = tmp_path / name
        f.write_bytes(data)
        r = run("auth", "principal", "--cert", str(f), "--rules", "DEFAULT")
        assert r.exit_code == ExitCode.USAGE, (name, r.output)
        assert str(f) in r.stderr and r.stderr.count("\n") == 1 and "Traceback" not in r.output


def test_acls_check_with_ssl_dn_offline(tmp_path):
    acls = tmp_path / "acls.json"
    acls.write_text(json.dumps([{"resource_type": "TOPIC", "resource_name": "t", "pattern_type": "LITERAL",
                                 "principal": "User:alice", "host": "*", "operation": "READ",
                                 "permission": "ALLOW"}]))
    r = run("-o", "json", "acls", "check", "--ssl-dn", "CN=Alice,OU=eng,O=Corp\\, Inc", "--rules", RULES,
            "--operation", "Read", "--topic", "t", "--acls-file", str(acls))
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["principal"] == "User:alice" and "--ssl-dn maps to User:alice" in r.stderr
    for args, words in [(["--principal", "User:alice", "--ssl-dn", "CN=a"], "give one of --principal and --ssl-dn"),
                        ([], "give one of --principal and --ssl-dn"),
                        (["--principal", "User:alice", "--rules", "DEFAULT"], "--rules is for --ssl-dn"),
                        (["--ssl-dn", "CN=a", "--rules", "RULE:x"], "ssl.principal.mapping.rules")]:
        r = run("acls", "check", *args, "--operation", "Read", "--topic", "t", "--acls-file", str(acls))
        assert r.exit_code == ExitCode.USAGE and words in r.stderr, (args, r.output)


def test_a_pattern_that_backtracks_for_ever_is_cut_off_at_the_budget(monkeypatch):
    """^(a+)+$ against forty a's and a '!' backtracks for hours (Java's matcher as well as Python's); Python's re
    cannot be interrupted, so the match runs in a child process that is killed at the budget."""
    import time

    import kafkactl.describe.mapping as preview

    monkeypatch.setattr(preview, "MATCH_BUDGET_S", 0.5)
    started = time.monotonic()
    r = run("auth", "principal", "--ssl-dn", "a" * 40 + "!", "--rules", "RULE:^(a+)+$/x/,DEFAULT")
    assert r.exit_code == ExitCode.USAGE and "took over 0.5 s on this name" in r.stderr, r.output
    assert time.monotonic() - started < 5
