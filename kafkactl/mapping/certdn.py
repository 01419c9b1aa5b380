"""A certificate's subject DN exactly as a Kafka broker sees it: Java's X500Principal.getName() (RFC 2253 form).

The broker's principal builder hands that string to ssl.principal.mapping.rules, so a rule, an ACL and
`auth whoami` must all use this spelling. It is not Python's (cryptography's rfc4514_string differs): Java
escapes `,=+<>#;"\\` wherever they occur and leading or trailing spaces, writes NUL as `\\00` and keeps other
characters as they are, reading a value's bytes as UTF-8 whatever its string type (a BMPString's too); attribute
types outside CN, C, L, ST, O, OU, STREET, DC and UID appear as dotted OIDs with the value's DER encoding in hex
(`1.2.840.113549.1.9.1=#16...`), as do values that are not strings. The subject is read from the certificate's
own DER bytes (no re-encoding), the last RDN first. tests/integration/test_dn_differential.py compares this
with Java's X500Principal.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from kafkactl.errors import UsageError

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.serialization import Encoding

# the attribute types Java names in RFC 2253 output (sun.security.x509.AVAKeyword, rfc2253Compliant)
KEYWORDS = {
    "2.5.4.3": "CN", "2.5.4.6": "C", "2.5.4.7": "L", "2.5.4.8": "ST", "2.5.4.10": "O", "2.5.4.11": "OU",
    "2.5.4.9": "STREET", "0.9.2342.19200300.100.1.25": "DC", "0.9.2342.19200300.100.1.1": "UID",
}
# DER string types Java writes as text (UTF8, Printable, T61, IA5, General, BMP); any other type as #hex. Java
# decodes the content bytes of each as UTF-8, a BMPString's too (its 0x00 high bytes come out as \00).
_TEXT_TAGS = frozenset({12, 19, 20, 22, 27, 30})
_ESCAPED = ',=+<>#;"\\'
_PRINTABLE = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 '()+,-./:=?")


class _Der:
    """Just enough of a DER reader for a certificate's TBS and a Name."""

    def __init__(self, data: bytes, start: int = 0, end: int | None = None) -> None:
        self.data, self.pos, self.end = data, start, len(data) if end is None else end

    def next(self) -> tuple[int, int, int, int]:
        """(tag, start of the whole element, start of its content, end)."""
        d, begin = self.data, self.pos
        if begin + 2 > self.end:
            raise ValueError("truncated")
        tag, length, at = d[begin], d[begin + 1], begin + 2
        if length & 0x80:
            count = length & 0x7F
            if not 1 <= count <= 4 or at + count > self.end:
                raise ValueError("bad length")
            length, at = int.from_bytes(d[at:at + count], "big"), at + count
        if at + length > self.end:
            raise ValueError("truncated")
        self.pos = at + length
        return tag, begin, at, at + length

    def more(self) -> bool:
        return self.pos < self.end


def _oid(data: bytes) -> str:
    parts, value = [], 0
    for byte in data:
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            parts.append(value)
            value = 0
    first = parts[0]
    head = [min(first // 40, 2), first - 40 * min(first // 40, 2)]
    return ".".join(str(p) for p in head + parts[1:])


def _value(oid: str, tag: int, element: bytes, content: bytes) -> str:
    keyword = KEYWORDS.get(oid)
    if keyword is None or tag not in _TEXT_TAGS:
        return f"{keyword or oid}=#{element.hex()}"
    text = content.decode("utf-8", errors="replace")
    out = []
    for c in text:
        if c in _ESCAPED:
            out.append("\\" + c)
        elif c == "\0":
            out.append("\\00")
        else:
            out.append(c)
    joined = "".join(out)
    # spaces (and CRs) at either end are escaped, each one
    lead = len(joined) - len(joined.lstrip(" \r"))
    trail = len(joined) - len(joined.rstrip(" \r"))
    chars = list(joined)
    for i in range(len(chars)):
        if i < lead or i >= len(chars) - trail:
            chars[i] = "\\" + chars[i]
    return f"{keyword}={''.join(chars)}"


def _inside(data: bytes, start: int, end: int, tag: int, what: str) -> Iterator[tuple[int, int, int]]:
    """Each element inside data[start:end], which must all carry `tag`: (start of element, of content, end)."""
    reader = _Der(data, start, end)
    while reader.more():
        found, begin, content, stop = reader.next()
        if found != tag:
            raise ValueError(f"not {what}")
        yield begin, content, stop


def name_rfc2253(name_der: bytes) -> str:
    """An X.501 Name's DER as Java's X500Principal.getName() writes it."""
    rdns = []
    for _, name, name_end in _inside(name_der, 0, len(name_der), 0x30, "a Name"):
        for _, rdn, rdn_end in _inside(name_der, name, name_end, 0x31, "an RDN"):
            avas = []
            for _, ava, ava_end in _inside(name_der, rdn, rdn_end, 0x30, "an attribute"):
                pair = _Der(name_der, ava, ava_end)
                o_tag, _, o_start, o_end = pair.next()
                if o_tag != 0x06:
                    raise ValueError("not an OID")
                v_tag, v_begin, v_start, v_end = pair.next()
                avas.append(_value(_oid(name_der[o_start:o_end]), v_tag, name_der[v_begin:v_end],
                                   name_der[v_start:v_end]))
            rdns.append("+".join(avas))
    return ",".join(reversed(rdns))


def subject_rfc2253(cert_der: bytes) -> str:
    """The subject of a DER certificate, read from its TBSCertificate."""
    _, cert, cert_end = next(_inside(cert_der, 0, len(cert_der), 0x30, "a certificate"))
    tbs = _Der(cert_der, *next(_inside(cert_der, cert, cert_end, 0x30, "a TBSCertificate"))[1:])
    if tbs.next()[0] == 0xA0:  # [0] version, then the serial
        tbs.next()
    for _ in range(3):  # signature algorithm, issuer, validity
        tbs.next()
    _, begin, _, end = tbs.next()
    return name_rfc2253(cert_der[begin:end])


def pem_subject(pem: bytes, where: str) -> str:
    """The first certificate in a PEM file: its subject DN (a usage error naming `where` if there is none)."""
    from cryptography import x509

    try:
        cert = x509.load_pem_x509_certificate(pem)
        return subject_rfc2253(cert.public_bytes(_der()))
    except ValueError:
        raise UsageError(f"{where}: holds no readable PEM certificate") from None


def _der() -> Encoding:
    from cryptography.hazmat.primitives.serialization import Encoding

    return Encoding.DER
