"""Java key and trust stores (JKS, JCEKS, PKCS12) from a kafka-*.sh client.properties, handed to the clients as PEM.

librdkafka and kafka-python read PEM files only. A store is read in memory (pyjks for JKS and JCEKS, the
`cryptography` library for PKCS12) and its material written to files in a private directory (0700, files 0600),
removed when the process exits:
- a truststore becomes a bundle of its certificates;
- a keystore becomes one file holding its certificate chain and its private key, the key encrypted again under a
  random password that lives only in this process's memory (so the file on disk never holds a usable key).

As the Java clients do, the store's type comes from `ssl.<kind>.type` (Kafka's default is JKS), and a JKS
store may in fact be PKCS12 (Java reads either under JKS since 9); the content decides. The key's password is
`ssl.key.password`, else the store's. A wrong password, a store that is neither, or one without the entry needed
is a one-line error naming the key and the file, never a password.
"""

from __future__ import annotations

import os
import secrets
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kafkactl.errors import ConfigError, MissingFileError
from kafkactl.redact import Secret

STORE_TYPES = ("JKS", "JCEKS", "PKCS12", "PEM")
MAX_STORE_BYTES = 1 << 20  # a store of a few certificates is a few KiB; refuse a device or a wrong file early
_JKS_MAGIC = b"\xfe\xed\xfe\xed"
_JCEKS_MAGIC = b"\xce\xce\xce\xce"


@dataclass(frozen=True)
class PemMaterial:
    """What a store became: a CA bundle, or a certificate chain and its key (one file) with the key's password."""

    cafile: str | None = None
    certfile: str | None = None
    key_password: Secret | None = None


def store_type(props: Mapping[str, str], kind: str, data: bytes) -> str:
    """The store's format: PEM by content or declared type; else what its first bytes say."""
    declared = props.get(f"ssl.{kind}.type", "").strip().upper()
    location = props[f"ssl.{kind}.location"]
    if declared and declared not in STORE_TYPES:
        raise ConfigError(f"ssl.{kind}.type {declared}: not a store type kafkactl reads ({', '.join(STORE_TYPES)})")
    if data.lstrip().startswith(b"-----BEGIN"):
        if declared and declared != "PEM":
            raise ConfigError(f"ssl.{kind}.location {location}: a PEM file, but ssl.{kind}.type is {declared}")
        return "PEM"
    if declared == "PEM":
        raise ConfigError(f"ssl.{kind}.location {location}: ssl.{kind}.type is PEM, but the file holds no PEM block")
    if data[:4] == _JKS_MAGIC:
        found = "JKS"
    elif data[:4] == _JCEKS_MAGIC:
        found = "JCEKS"
    elif data[:1] == b"\x30":  # a DER SEQUENCE: PKCS12's PFX
        found = "PKCS12"
    else:
        raise ConfigError(f"ssl.{kind}.location {location}: neither a JKS, JCEKS, PKCS12 nor PEM store")
    if declared == "PKCS12" and found != "PKCS12":
        raise ConfigError(f"ssl.{kind}.location {location}: a {found} store, but ssl.{kind}.type is PKCS12")
    return found


def read_store_file(props: Mapping[str, str], kind: str) -> bytes:
    location = props[f"ssl.{kind}.location"]
    path = Path(location).expanduser()
    try:
        try:
            mode = path.stat().st_mode  # (a loop of links is ELOOP here, where exists() said "no such file")
        except FileNotFoundError:
            raise MissingFileError(f"ssl.{kind}.location {location}: no such file") from None
        if not stat.S_ISREG(mode):
            raise ConfigError(f"ssl.{kind}.location {location}: not a regular file")
        with open(path, "rb") as fh:
            data = fh.read(MAX_STORE_BYTES + 1)
    except PermissionError:
        raise ConfigError(f"ssl.{kind}.location {location}: not readable (permission denied)") from None
    except OSError as exc:
        raise ConfigError(f"ssl.{kind}.location {location}: cannot be read ({exc.strerror})") from None
    if len(data) > MAX_STORE_BYTES:
        raise ConfigError(f"ssl.{kind}.location {location}: over {MAX_STORE_BYTES >> 10} KiB, not a key store")
    if not data:
        raise ConfigError(f"ssl.{kind}.location {location}: the file is empty")
    return data


def pem_from_store(props: Mapping[str, str], kind: str) -> PemMaterial | None:
    """The store at ssl.<kind>.location as PEM files; None when it is PEM already (the clients read it as it is)."""
    data = read_store_file(props, kind)
    found = store_type(props, kind, data)
    if found == "PEM":
        return None
    location = props[f"ssl.{kind}.location"]
    password = props.get(f"ssl.{kind}.password")
    key_password = props.get("ssl.key.password") if kind == "keystore" else None
    certs, key = (_read_pkcs12 if found == "PKCS12" else _read_jks)(data, found, kind, location, password, key_password)
    if kind == "truststore":
        if not certs:
            raise ConfigError(f"ssl.truststore.location {location}: the {found} store holds no certificate")
        path = _private_dir() / f"truststore-{secrets.token_hex(4)}.pem"
        _write(path, b"".join(_pem_cert(c) for c in certs))
        return PemMaterial(cafile=str(path))
    if key is None:
        raise ConfigError(f"ssl.keystore.location {location}: the {found} store holds no private key entry")
    from cryptography.hazmat.primitives import serialization

    fresh = secrets.token_urlsafe(24)
    pem_key = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.BestAvailableEncryption(fresh.encode()))
    path = _private_dir() / f"keystore-{secrets.token_hex(4)}.pem"
    _write(path, b"".join(_pem_cert(c) for c in certs) + pem_key)
    return PemMaterial(certfile=str(path), key_password=Secret(fresh))


def _read_pkcs12(data: bytes, found: str,  # noqa: ARG001 (called alike with _read_jks)
                 kind: str, location: str, password: str | None, key_password: str | None) -> tuple[list[Any], Any]:
    from cryptography.hazmat.primitives.serialization import pkcs12

    tried: list[str | None] = [p for p in dict.fromkeys((password, key_password)) if p is not None] or [None]
    store = None
    for candidate in tried if kind == "keystore" else [password]:
        try:
            store = pkcs12.load_pkcs12(data, candidate.encode() if candidate is not None else None)
            break
        except ValueError:
            continue
    if store is None:
        if password is None and kind == "truststore":
            raise ConfigError(f"ssl.truststore.location {location}: the PKCS12 store cannot be read without "
                              "ssl.truststore.password")
        raise ConfigError(f"ssl.{kind}.location {location}: the PKCS12 store cannot be read with the given "
                          f"ssl.{kind}.password (wrong password, or not a PKCS12 store)")
    certs = (([store.cert.certificate] if store.cert is not None else [])
             + [c.certificate for c in store.additional_certs])
    return certs, store.key


def _read_jks(data: bytes, found: str, kind: str, location: str, password: str | None,
              key_password: str | None) -> tuple[list[Any], Any]:
    import jks  # type: ignore[import-untyped]  # pyjks ships no type hints
    from cryptography import x509
    from cryptography.hazmat.primitives.serialization import load_der_private_key

    try:
        store = jks.KeyStore.loads(data, password, try_decrypt_keys=False)
    except jks.util.KeystoreSignatureException:
        raise ConfigError(f"ssl.{kind}.location {location}: ssl.{kind}.password is wrong (the {found} store's "
                          "integrity check failed)") from None
    except (jks.util.BadKeystoreFormatException, jks.util.UnsupportedKeystoreVersionException,
            jks.util.DuplicateAliasException, ValueError, UnicodeDecodeError) as exc:
        raise ConfigError(f"ssl.{kind}.location {location}: a damaged {found} store "
                          f"({exc.__class__.__name__})") from None

    def cert(der: bytes) -> Any:
        try:
            return x509.load_der_x509_certificate(der)
        except ValueError:
            raise ConfigError(f"ssl.{kind}.location {location}: a certificate in the "
                              f"{found} store is damaged") from None

    if kind == "truststore":
        # Java's TrustManager trusts every certificate entry (and the chains' certificates of key entries)
        return [cert(entry.cert) for _, entry in sorted(store.certs.items())], None
    entries = sorted(store.private_keys.items())
    if not entries:
        return [], None
    if len(entries) > 1:
        # Java's key manager picks, per handshake, the key whose issuer the broker asks for; librdkafka and Python's
        # ssl take one key, and the first alias may be the wrong one (a refused handshake): say so instead
        raise ConfigError(f"ssl.keystore.location {location}: the {found} store holds {len(entries)} private keys "
                          f"({', '.join(a for a, _ in entries)}); kafkactl's clients use one: keep only the key for "
                          "this cluster (keytool -delete -alias NAME)")
    alias, entry = entries[0]
    secret = key_password if key_password is not None else password
    if secret is None:
        raise ConfigError(f"ssl.keystore.location {location}: the key {alias!r} needs ssl.key.password or "
                          "ssl.keystore.password")
    try:
        entry.decrypt(secret)
    except (jks.util.DecryptionFailureException, ValueError):
        which = "ssl.key.password" if key_password is not None else "ssl.keystore.password"
        raise ConfigError(f"ssl.keystore.location {location}: {which} does not decrypt the key {alias!r}") from None
    try:
        key = load_der_private_key(entry.pkey_pkcs8, password=None)
    except (ValueError, TypeError):
        raise ConfigError(f"ssl.keystore.location {location}: the key {alias!r} is not a "
                          "key kafkactl can use") from None
    return [cert(der) for _, der in entry.cert_chain], key


def _pem_cert(certificate: Any) -> bytes:
    from cryptography.hazmat.primitives import serialization

    return bytes(certificate.public_bytes(serialization.Encoding.PEM))


_DIR: Path | None = None


def _private_dir() -> Path:
    """One 0700 directory per process for the PEM files, removed at exit."""
    global _DIR
    if _DIR is None or not _DIR.exists():
        from kafkactl.privatefile import private_tempdir

        _DIR = private_tempdir("kafkactl-ssl-")
    return _DIR


def _write(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
