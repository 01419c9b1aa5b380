"""kafkactl's reading of a certificate's subject against Java's own (issue 15): the DN string a broker maps with
ssl.principal.mapping.rules is X500Principal.getName(), and `auth whoami` over mTLS must name the same one.

Random X.501 names (1-5 RDNs, multi-valued RDNs, the attribute types Java names and others it writes as OIDs,
UTF8, Printable, IA5, BMP and Visible strings, values with every character RFC 2253 escapes, spaces at either
end, NUL, CR, LF, non-ASCII and astral characters) go through a small javac-compiled harness running
javax.security.auth.x500.X500Principal, and through kafkactl.mapping.certdn; then real certificates with such subjects
through CertificateFactory. Seed in pytest's header; KAFKACTL_DIFF_SEED replays, KAFKACTL_DN_CASES sets the count.
"""

from __future__ import annotations

import datetime
import os
import random
import shutil
import subprocess

import pytest

from kafkactl.mapping.certdn import name_rfc2253, subject_rfc2253
from tests.markers import starts

SEED = int(os.environ["KAFKACTL_DIFF_SEED"])
CASES = int(os.environ.get("KAFKACTL_DN_CASES") or 2000)

HARNESS = r"""
import java.io.*;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.HexFormat;
import javax.security.auth.x500.X500Principal;

public class DnNames {
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), false, "UTF-8");
        CertificateFactory certs = CertificateFactory.getInstance("X.509");
        HexFormat hex = HexFormat.of();
        for (String line; (line = in.readLine()) != null; ) {
            String[] kindAndDer = line.split(" ", 2);
            byte[] der = hex.parseHex(kindAndDer[1]);
            try {
                X500Principal p = kindAndDer[0].equals("cert")
                    ? ((X509Certificate) certs.generateCertificate(new ByteArrayInputStream(der)))
                        .getSubjectX500Principal()
                    : new X500Principal(der);
                out.println("OK " + hex.formatHex(p.getName().getBytes("UTF-8")));
            } catch (Exception e) {
                out.println("ERR " + e.getClass().getName());
            }
        }
        out.flush();
    }
}
"""


@pytest.fixture(scope="module")
@starts("jvm")
def java_names(tmp_path_factory):
    if not shutil.which("javac"):
        pytest.fail("javac is required (Java 17 is part of the test set-up)")
    work = tmp_path_factory.mktemp("dn-harness")
    (work / "DnNames.java").write_text(HARNESS)
    subprocess.run(["javac", "-d", str(work), str(work / "DnNames.java")], check=True, capture_output=True)

    def ask(lines: list[str]) -> list[str]:
        proc = subprocess.run(["java", "-Xshare:auto", "-cp", str(work), "DnNames"], input="\n".join(lines) + "\n",
                              capture_output=True, text=True, encoding="utf-8", timeout=300, check=True)
        answers = []
        for line in proc.stdout.splitlines():
            kind, _, rest = line.partition(" ")
            answers.append(bytes.fromhex(rest).decode("utf-8") if kind == "OK" else f"<{rest}>")
        assert len(answers) == len(lines)
        return answers

    return ask


def _random_name(rng: random.Random):
    from cryptography import x509
    from cryptography.x509.name import _ASN1Type
    from cryptography.x509.oid import NameOID, ObjectIdentifier

    specials = list(',=+<>#;"\\') + [" ", "  ", "\0", "\r", "\n", "é", "Ü", "中", "😀", "\u00a0", "-", "'", "(", ")"]
    printable = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 '()+,-./:=?"
    oids = [NameOID.COMMON_NAME, NameOID.ORGANIZATION_NAME, NameOID.ORGANIZATIONAL_UNIT_NAME, NameOID.LOCALITY_NAME,
            NameOID.STATE_OR_PROVINCE_NAME, NameOID.STREET_ADDRESS, NameOID.DOMAIN_COMPONENT, NameOID.USER_ID,
            NameOID.EMAIL_ADDRESS, NameOID.SERIAL_NUMBER, NameOID.TITLE, NameOID.GIVEN_NAME, NameOID.SURNAME,
            ObjectIdentifier("1.3.6.1.4.1.99999.7"), ObjectIdentifier("2.999.1")]

    def value(kind) -> str:
        n = rng.randint(1, 12)
        if kind == _ASN1Type.PrintableString:
            return "".join(rng.choice(printable) for _ in range(n))
        pool = [chr(c) for c in range(0x20, 0x7f)] + specials
        text = "".join(rng.choice(pool) for _ in range(n))
        if kind in (_ASN1Type.IA5String, _ASN1Type.VisibleString):
            text = "".join(c for c in text if ord(c) < 128 and (kind == _ASN1Type.IA5String or 0x20 <= ord(c) < 0x7f))
        elif kind == _ASN1Type.BMPString:
            text = "".join(c for c in text if ord(c) < 0x10000)
        if rng.random() < 0.2:
            text = rng.choice([" ", "  ", "#", "\r"]) + text
        if rng.random() < 0.2:
            text += rng.choice([" ", "  ", "\r"])
        return text or "x"

    rdns = []
    for _ in range(rng.randint(1, 5)):
        attributes = []
        for _ in range(1 if rng.random() < 0.75 else rng.randint(2, 3)):
            oid = rng.choice(oids)
            kind = rng.choice([_ASN1Type.UTF8String, _ASN1Type.UTF8String, _ASN1Type.PrintableString,
                               _ASN1Type.IA5String, _ASN1Type.BMPString, _ASN1Type.VisibleString])
            if oid == NameOID.COUNTRY_NAME:
                continue
            attributes.append(x509.NameAttribute(oid, value(kind), _type=kind))
        rdns.append(x509.RelativeDistinguishedName(attributes))
    return x509.Name(rdns)


def test_subject_names_read_as_java_reads_them(java_names):
    rng = random.Random(SEED)
    names = [_random_name(rng) for _ in range(CASES)]
    ders = [n.public_bytes() for n in names]
    theirs = java_names([f"name {d.hex()}" for d in ders])
    disagreements = [(d.hex(), java, name_rfc2253(d)) for d, java in zip(ders, theirs) if name_rfc2253(d) != java]
    errors = sum(1 for t in theirs if t.startswith("<"))
    print(f"\n{CASES} names compared with Java's X500Principal (seed {SEED}), {errors} refused by Java, "
          f"{len(disagreements)} disagreements")
    assert errors < CASES // 10
    assert not disagreements, f"seed {SEED}: {len(disagreements)} of {CASES}; first: {disagreements[:3]}"


def test_certificate_subjects_read_as_java_reads_them(java_names):
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.serialization import Encoding

    rng = random.Random(SEED + 1)
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.UTC)
    ders = []
    for _ in range(50):
        subject = _random_name(rng)
        cert = (x509.CertificateBuilder().subject_name(subject).issuer_name(_random_name(rng))
                .public_key(key.public_key()).serial_number(rng.randrange(1, 2**64))
                .not_valid_before(now).not_valid_after(now + datetime.timedelta(days=1)).sign(key, hashes.SHA256()))
        ders.append(cert.public_bytes(Encoding.DER))
    theirs = java_names([f"cert {d.hex()}" for d in ders])
    assert [subject_rfc2253(d) for d in ders] == theirs
