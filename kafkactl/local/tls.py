"""The sandbox's TLS material: a CA, one certificate for every broker, and a client certificate per identity.

Made with the `cryptography` library (no openssl shell-outs), ECDSA P-256 keys (fast to make, and both the
JVM and librdkafka take them). The brokers get a PKCS12 keystore and the CA as a PEM truststore; clients get
PEM files. Every file holding a key is 0600 in a 0700 directory.

Identities: each sandbox user has a certificate whose DN the brokers' `ssl.principal.mapping.rules` map to the
short name (`CN=alice,OU=sandbox,O=kafkactl` -> `User:alice`), so one set of ACLs serves SASL and mTLS; one more
certificate, `app`, has a DN the rule does not match, so its principal is the whole DN as Kafka writes it.
"""

from __future__ import annotations

import datetime
import ipaddress
from dataclasses import dataclass
from pathlib import Path

SANDBOX_OU = "sandbox"
SANDBOX_O = "kafkactl"
# first match wins; a sandbox user's DN maps to its CN, any other DN stays whole (DEFAULT)
MAPPING_RULES = f"RULE:^CN=([^,]+),OU={SANDBOX_OU},O={SANDBOX_O}$/$1/,DEFAULT"
# the DN of the certificate the rule leaves alone: a comma inside a value, spaces, and a non-ASCII letter
APP_DN_ATTRIBUTES = (("CN", "app one"), ("OU", "éng"), ("O", "Corp, Inc"))
APP_PRINCIPAL = "User:CN=app one,OU=éng,O=Corp\\, Inc"
DAYS = 3650


@dataclass(frozen=True)
class TlsFiles:
    """Where one sandbox's TLS material lives (all under `<sandbox>/tls`)."""

    directory: Path

    @property
    def ca_cert(self) -> Path:
        return self.directory / "ca.pem"

    @property
    def ca_key(self) -> Path:
        return self.directory / "ca-key.pem"

    @property
    def broker_keystore(self) -> Path:
        return self.directory / "broker.p12"

    def client_pem(self, identity: str) -> Path:
        """The identity's private key, then its certificate and the CA's: what librdkafka, Python's ssl and a
        Java client's PEM keystore (`ssl.keystore.type=PEM`) all read."""
        return self.directory / f"{identity}.pem"

    def complete(self, identities: tuple[str, ...]) -> bool:
        paths = [self.ca_cert, self.ca_key, self.broker_keystore, *(self.client_pem(i) for i in identities)]
        return all(p.exists() for p in paths)


def identity_dn(identity: str) -> tuple[tuple[str, str], ...]:
    if identity == "app":
        return APP_DN_ATTRIBUTES
    return (("CN", identity), ("OU", SANDBOX_OU), ("O", SANDBOX_O))


def identity_principal(identity: str) -> str:
    """The principal the brokers map this identity's certificate to."""
    return APP_PRINCIPAL if identity == "app" else f"User:{identity}"


def make_material(files: TlsFiles, identities: tuple[str, ...], keystore_password: str, host: str) -> None:
    """Write the CA, the brokers' keystore and every identity's certificate and key (replacing any there)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.serialization import pkcs12
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    from kafkactl.privatefile import write_private

    oids = {"CN": NameOID.COMMON_NAME, "OU": NameOID.ORGANIZATIONAL_UNIT_NAME, "O": NameOID.ORGANIZATION_NAME}

    def name(attributes: tuple[tuple[str, str], ...]) -> x509.Name:
        # RFC 4514 writes the last RDN first: build it reversed so the DN reads as given
        return x509.Name([x509.NameAttribute(oids[k], v) for k, v in reversed(attributes)])

    now = datetime.datetime.now(datetime.UTC) - datetime.timedelta(minutes=5)
    until = now + datetime.timedelta(days=DAYS)

    def certificate(subject: x509.Name, key: ec.EllipticCurvePrivateKey, issuer: x509.Name,
                    issuer_key: ec.EllipticCurvePrivateKey,
                    *extensions: tuple[x509.ExtensionType, bool]) -> x509.Certificate:
        builder = (x509.CertificateBuilder().subject_name(subject).issuer_name(issuer).public_key(key.public_key())
                   .serial_number(x509.random_serial_number()).not_valid_before(now).not_valid_after(until))
        for ext, critical in extensions:
            builder = builder.add_extension(ext, critical=critical)
        return builder.sign(issuer_key, hashes.SHA256())

    def pem_key(key: ec.EllipticCurvePrivateKey) -> str:
        return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                 serialization.NoEncryption()).decode()

    def pem_cert(cert: x509.Certificate) -> str:
        return cert.public_bytes(serialization.Encoding.PEM).decode()

    files.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = name((("CN", "kafkactl sandbox CA"), ("O", SANDBOX_O)))
    ca = certificate(ca_name, ca_key, ca_name, ca_key, (x509.BasicConstraints(ca=True, path_length=0), True),
                     (x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True, content_commitment=False,
                                    key_encipherment=False, data_encipherment=False, key_agreement=False,
                                    encipher_only=False, decipher_only=False), True))
    write_private(files.ca_key, pem_key(ca_key))
    write_private(files.ca_cert, pem_cert(ca))

    broker_key = ec.generate_private_key(ec.SECP256R1())
    san = x509.SubjectAlternativeName([x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address(host))])
    broker = certificate(name((("CN", "broker"), ("OU", SANDBOX_OU), ("O", SANDBOX_O))), broker_key, ca_name, ca_key,
                         (san, False), (x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH,
                                                               ExtendedKeyUsageOID.CLIENT_AUTH]), False))
    store = pkcs12.serialize_key_and_certificates(
        b"broker", broker_key, broker, [ca], serialization.BestAvailableEncryption(keystore_password.encode()))
    write_private_bytes(files.broker_keystore, store)

    for identity in identities:
        key = ec.generate_private_key(ec.SECP256R1())
        cert = certificate(name(identity_dn(identity)), key, ca_name, ca_key,
                           (x509.ExtendedKeyUsage([ExtendedKeyUsageOID.CLIENT_AUTH]), False))
        write_private(files.client_pem(identity), pem_key(key) + pem_cert(cert) + pem_cert(ca))


def write_private_bytes(path: Path, data: bytes) -> None:
    import os

    path.unlink(missing_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
