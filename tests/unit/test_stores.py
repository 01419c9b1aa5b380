"""Java key stores read in memory and handed to the clients as private PEM files (profiles/stores.py).

Stores here are made with the `cryptography` library (PKCS12) or written byte by byte (damaged ones); stores
made by keytool, and their use against the broker, are in tests/integration/test_tls.py.
"""

from __future__ import annotations

import datetime
import os
import stat

import pytest

from kafkactl.errors import ConfigError, MissingFileError
from kafkactl.profiles.properties import settings_from_properties


def _material():
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "unit")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(1).not_valid_before(now).not_valid_after(now + datetime.timedelta(days=1))
            .sign(key, hashes.SHA256()))
    return key, cert


@pytest.fixture
def p12(tmp_path):
    from cryptography.hazmat.primitives.serialization import BestAvailableEncryption, pkcs12

    key, cert = _material()
    path = tmp_path / "client.p12"
    path.write_bytes(pkcs12.serialize_key_and_certificates(b"me", key, cert, None, BestAvailableEncryption(b"storepw")))
    return path, key, cert


def test_a_pkcs12_keystore_becomes_a_private_pem_file_with_its_key_encrypted_again(p12):
    from cryptography.hazmat.primitives.serialization import load_pem_private_key

    path, key, cert = p12
    out = settings_from_properties({"security.protocol": "SSL", "ssl.keystore.location": str(path),
                                    "ssl.keystore.type": "PKCS12", "ssl.keystore.password": "storepw"})
    pem = out["ssl_certfile"]
    assert out["ssl_keyfile"] == pem and pem != str(path)
    assert stat.S_IMODE(os.stat(pem).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(os.path.dirname(pem)).st_mode) == 0o700
    data = open(pem, "rb").read()
    assert b"ENCRYPTED PRIVATE KEY" in data and b"BEGIN CERTIFICATE" in data
    with pytest.raises((TypeError, ValueError)):
        load_pem_private_key(data, None)  # unusable without the password that lives in memory only
    again = load_pem_private_key(data, out["ssl_key_password"].reveal().encode())
    assert again.private_numbers() == key.private_numbers()
    assert "storepw" not in repr(out)


def test_a_pkcs12_store_under_the_jks_type_is_read_as_java_does(p12):
    path, _, _ = p12  # Java 9+ reads a PKCS12 file whose type says JKS (Kafka's default type)
    out = settings_from_properties({"ssl.keystore.location": str(path), "ssl.keystore.password": "storepw"})
    assert out["ssl_certfile"].endswith(".pem")


def test_a_pkcs12_truststore_becomes_a_ca_bundle(tmp_path):
    from cryptography.hazmat.primitives.serialization import BestAvailableEncryption, pkcs12

    _, cert = _material()
    path = tmp_path / "trust.p12"
    path.write_bytes(pkcs12.serialize_key_and_certificates(None, None, None, [cert], BestAvailableEncryption(b"tpw")))
    out = settings_from_properties({"ssl.truststore.location": str(path), "ssl.truststore.type": "PKCS12",
                                    "ssl.truststore.password": "tpw"})
    assert open(out["ssl_cafile"], "rb").read().count(b"BEGIN CERTIFICATE") == 1


@pytest.mark.parametrize("content, props, error, words", [
    (None, {}, MissingFileError, "no such file"),
    (b"", {}, ConfigError, "the file is empty"),
    (b"\x00\x01garbage", {}, ConfigError, "neither a JKS, JCEKS, PKCS12 nor PEM store"),
    (b"\xfe\xed\xfe\xed\x00\x00\x00\x02\x00\x00\x00\x05", {}, ConfigError, "a damaged JKS store"),
    (b"\xfe\xed\xfe\xed\x00\x00\x00\x07", {}, ConfigError, "a damaged JKS store"),
    (b"0\x82garbage", {"ssl.keystore.password": "x"}, ConfigError,
     "cannot be read with the given ssl.keystore.password"),
    (b"-----BEGIN CERTIFICATE-----\n", {"ssl.keystore.type": "JKS"}, ConfigError,
     "a PEM file, but ssl.keystore.type is JKS"),
    (b"\xfe\xed\xfe\xed", {"ssl.keystore.type": "PKCS12"}, ConfigError, "a JKS store, but ssl.keystore.type is PKCS12"),
    (b"xx", {"ssl.keystore.type": "BKS"}, ConfigError, "ssl.keystore.type BKS: not a store type"),
    (b"x" * ((1 << 20) + 1), {}, ConfigError, "not a key store"),
])
def test_bad_stores_are_one_line_errors_naming_key_and_file(tmp_path, content, props, error, words):
    path = tmp_path / "store"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(error) as e:
        settings_from_properties({"ssl.keystore.location": str(path), **props})
    assert words in str(e.value) and "\n" not in str(e.value)


def test_wrong_pkcs12_password_never_shows_a_password(p12):
    path, _, _ = p12
    with pytest.raises(ConfigError) as e:
        settings_from_properties({"ssl.keystore.location": str(path), "ssl.keystore.password": "Wr0ngPassw0rd"})
    assert "Wr0ngPassw0rd" not in str(e.value) and "storepw" not in str(e.value)


def test_a_device_is_refused_without_reading_it():
    with pytest.raises(ConfigError, match="not a regular file"):
        settings_from_properties({"ssl.truststore.location": "/dev/zero"})


def test_a_loop_of_links_is_named_as_such_not_as_missing(tmp_path):
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    with pytest.raises(ConfigError, match="cannot be read \\(Too many levels of symbolic links\\)"):
        settings_from_properties({"ssl.keystore.location": str(tmp_path / "a"), "ssl.keystore.password": "x"})


def test_the_private_directory_is_removed(p12):
    from kafkactl.privatefile import remove_tempdirs

    path, _, _ = p12
    out = settings_from_properties({"ssl.keystore.location": str(path), "ssl.keystore.password": "storepw"})
    directory = os.path.dirname(out["ssl_certfile"])
    remove_tempdirs()
    assert not os.path.exists(directory)
