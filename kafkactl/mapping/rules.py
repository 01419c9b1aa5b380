"""The broker's principal mapping: ssl.principal.mapping.rules (a certificate's DN) and
sasl.kerberos.principal.to.local.rules (a Kerberos name), as Kafka's SslPrincipalMapper and KerberosShortNamer
parse and apply them, messages included. Rule patterns are Java regular expressions (javaregex.py).

tests/integration/test_mapping_differential.py runs Kafka's own classes against this on random names and rules.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kafkactl.mapping.javaregex import (
    DOLLAR,
    DOT,
    SPACE,
    JavaPattern,
    JavaPatternError,
    Unsupported,
    compile_java,
    java_lower,
    java_upper,
)

_WS = f"[{re.escape(SPACE)}]"
# SslPrincipalMapper's grammar, in Python with Java's `.`, `\s` and `$`
_RULE = (f"(DEFAULT)|RULE:((\\\\{DOT}|[^\\\\/])*)/((\\\\{DOT}|[^\\\\/])*)/([LU]?){DOT}*?|({DOT}*?)")
_SPLITTER = re.compile(f"{_WS}*({_RULE}){_WS}*(,{_WS}*|{DOLLAR})")
_PARSER = re.compile(_RULE)
_BACK_REFERENCE = re.compile("\\$([0-9]+)")
# as in kafka-clients 3.9 to 4.4 (read from the jars: the /L or /U flag belongs to RULE only)
_KERBEROS_RULE = re.compile(
    "((DEFAULT)|((RULE:\\[([0-9]*):([^\\]]*)](\\(([^)]*)\\))?(s/([^/]*)/([^/]*)/(g)?)?/?(L|U)?)))")
_KERBEROS_NAME = re.compile("([^/@]*)(/([^/@]*))?@([^/@]*)")
_PARAMETER = re.compile("([^$]*)(\\$([0-9]*))?")
_LIST_SPLIT = re.compile(f"{_WS}*,{_WS}*")
INT_MAX = 2**31 - 1


class RuleError(ValueError):
    """The broker refuses the rules (its IllegalArgumentException), or kafkactl cannot reproduce a pattern.
    `java`: the exception's own message (a PatternSyntaxException's description); `unsupported`: Java accepts
    the pattern but kafkactl does not reproduce it."""

    def __init__(self, message: str, java: str | None = None, unsupported: bool = False) -> None:
        super().__init__(message)
        self.java = message if java is None else java
        self.unsupported = unsupported


class MappingFailure(ValueError):
    """The broker would refuse the name: no rule applies, or applying one fails (the broker's message)."""


class NeedsDefaultRealm(ValueError):
    """The DEFAULT Kerberos rule was reached, and only the brokers' krb5.conf knows the realm it accepts."""


def _java_trim(text: str) -> str:
    """String.trim(): strips every character up to U+0020 from both ends."""
    start, end = 0, len(text)
    while start < end and text[start] <= " ":
        start += 1
    while end > start and text[end - 1] <= " ":
        end -= 1
    return text[start:end]


def _pattern(source: str, rule: str) -> JavaPattern:
    try:
        return compile_java(source)
    except JavaPatternError as exc:
        raise RuleError(f"{exc} in the pattern {source!r} of rule {rule}", java=str(exc)) from None
    except Unsupported as exc:
        raise RuleError(f"the pattern {source!r} of rule {rule}: {exc}", unsupported=True) from None


# ------------------------------------------------------------------------------------------------ SSL


@dataclass(frozen=True)
class SslRule:
    default: bool
    pattern: JavaPattern | None = None
    replacement: str = ""
    lower: bool = False
    upper: bool = False

    def __str__(self) -> str:
        if self.default:
            return "DEFAULT"
        assert self.pattern is not None
        flag = "/L" if self.lower else "/U" if self.upper else ""
        return f"RULE:{self.pattern.source}/{self.replacement}{flag}"

    def apply(self, dn: str) -> str | None:
        if self.default:
            return dn
        assert self.pattern is not None
        if not self.pattern.matches(dn):
            return None
        try:
            result = self.pattern.replace(dn, _escape_literal_back_references(self.replacement, self.pattern.groups))
        except (ValueError, IndexError) as exc:  # Java's IllegalArgumentException, IndexOutOfBoundsException
            raise MappingFailure(str(exc)) from None
        if self.lower:
            return java_lower(result)
        return java_upper(result) if self.upper else result


def _escape_literal_back_references(value: str, groups: int) -> str:
    """Kafka's pre-pass: a `$n` naming no group becomes a literal `\\$n` (positions from the original string, as
    Kafka's loop has them)."""
    if groups == 0:
        return value
    original = value
    for m in _BACK_REFERENCE.finditer(original):
        digits = m.group(1)
        if digits.startswith("0"):
            continue
        if len(digits) > 10 or int(digits) > INT_MAX:
            raise MappingFailure(f'For input string: "{digits}"')
        index = int(digits)
        while index > groups and index >= 10:
            index //= 10
        if index > groups:
            at = m.start(1) - 1
            value = value[:at] + "\\" + value[at:]
    return value


def parse_ssl_rules(rules: str | None) -> list[SslRule]:
    """SslPrincipalMapper's constructor: None means DEFAULT; refused rules raise RuleError with Kafka's message."""
    text = "DEFAULT" if rules is None else rules
    found = [m.group(1) for m in _SPLITTER.finditer(_java_trim(text))]
    parsed = []
    for rule in found:
        m = _PARSER.match(rule)
        if m is None:
            raise RuleError(f"Invalid rule: {rule}")
        if m.end() != len(rule):
            raise RuleError(f"Invalid rule: `{rule}`, unmatched substring: `{rule[m.end():]}`")
        if m.group(1) is not None:
            parsed.append(SslRule(True))
        elif m.group(2) is not None:
            parsed.append(SslRule(False, _pattern(m.group(2), rule), m.group(4), m.group(6) == "L",
                                  m.group(6) == "U"))
    return parsed


def map_ssl_dn(dn: str, rules: list[SslRule]) -> str:
    """The principal name for a DN (without `User:`); MappingFailure when the broker would refuse it."""
    for rule in rules:
        name = rule.apply(dn)
        if name is not None:
            return name
    raise MappingFailure(f"No rules apply to {dn}, rules [{', '.join(str(r) for r in rules)}]")


# ------------------------------------------------------------------------------------------- Kerberos


@dataclass(frozen=True)
class KerberosName:
    service: str
    host: str | None
    realm: str | None

    def __str__(self) -> str:
        return self.service + (f"/{self.host}" if self.host is not None else "") + (
            f"@{self.realm}" if self.realm is not None else "")


def parse_kerberos_name(name: str) -> KerberosName:
    m = _KERBEROS_NAME.fullmatch(name)
    if m is None:
        if "@" in name:
            raise MappingFailure(f"Malformed Kerberos name: {name}")
        return KerberosName(name, None, None)
    return KerberosName(m.group(1), m.group(3), m.group(4))


@dataclass(frozen=True)
class KerberosRule:
    default_realm: str | None
    default: bool
    components: int = 0
    format: str = ""
    match: JavaPattern | None = None
    source: JavaPattern | None = None
    to: str | None = None
    repeat: bool = False
    lower: bool = False
    upper: bool = False

    def __str__(self) -> str:
        if self.default:
            return "DEFAULT"
        text = f"RULE:[{self.components}:{self.format}]"
        if self.match is not None:
            text += f"({self.match.source})"
        if self.source is not None:
            text += f"s/{self.source.source}/{self.to}/" + ("g" if self.repeat else "")
        return text + ("/L" if self.lower else "") + ("/U" if self.upper else "")

    def apply(self, params: list[str | None]) -> str | None:
        result = None
        if self.default:
            if self.default_realm is None:
                raise NeedsDefaultRealm("the DEFAULT rule maps a name only in the brokers' default realm: give it "
                                        "with --default-realm")
            if self.default_realm == params[0]:
                result = params[1]
        elif len(params) - 1 == self.components:
            base = _replace_parameters(self.format, params)
            if self.match is None or self.match.matches(base):
                if self.source is None:
                    result = base
                else:
                    try:
                        result = self.source.replace(base, self.to or "", first_only=not self.repeat)
                    except (ValueError, IndexError) as exc:
                        raise MappingFailure(str(exc)) from None
        if result is not None and ("/" in result or "@" in result):
            raise MappingFailure(f"Non-simple name {result} after auth_to_local rule {self}")
        if self.lower and result is not None:
            return java_lower(result)
        return java_upper(result) if self.upper and result is not None else result


def _replace_parameters(fmt: str, params: list[str | None]) -> str:
    out, start = [], 0
    while start < len(fmt):
        m = _PARAMETER.search(fmt, start)
        if m is None:
            break
        out.append(m.group(1))
        digits = m.group(3)
        if digits is not None:
            if not digits or len(digits) > 10 or int(digits) > INT_MAX:
                raise MappingFailure(f"bad format in username mapping in {digits}")
            num = int(digits)
            if num >= len(params):
                raise MappingFailure(f"index {num} from {fmt} is outside of the valid range 0 to {len(params) - 1}")
            out.append(str(params[num]))
        start = m.end()
    return "".join(out)


def split_kerberos_rules(value: str) -> list[str]:
    """The broker config's list value, as Kafka's ConfigDef splits a LIST."""
    trimmed = _java_trim(value)
    return [] if not trimmed else _LIST_SPLIT.split(trimmed)


def parse_kerberos_rules(rules: list[str] | None, default_realm: str | None) -> list[KerberosRule]:
    parsed = []
    for rule in ["DEFAULT"] if rules is None else rules:
        m = _KERBEROS_RULE.match(rule)
        if m is None:
            raise RuleError(f"Invalid rule: {rule}")
        if m.end() != len(rule):
            raise RuleError(f"Invalid rule: `{rule}`, unmatched substring: `{rule[m.end():]}`")
        if m.group(2) is not None:
            parsed.append(KerberosRule(default_realm, True))
            continue
        digits = m.group(5)
        if not digits or len(digits) > 10 or int(digits) > INT_MAX:
            raise RuleError(f'For input string: "{digits}"')
        parsed.append(KerberosRule(
            default_realm, False, int(digits), m.group(6),
            _pattern(m.group(8), rule) if m.group(8) is not None else None,
            _pattern(m.group(10), rule) if m.group(10) is not None else None,
            m.group(11), m.group(12) == "g", m.group(13) == "L", m.group(13) == "U"))
    return parsed


def map_kerberos(name: str, rules: list[KerberosRule]) -> str:
    """KerberosShortNamer.shortName for a full name; MappingFailure when the broker would refuse it."""
    parsed = parse_kerberos_name(name)
    if parsed.host is None:
        if parsed.realm is None:
            return parsed.service
        params: list[str | None] = [parsed.realm, parsed.service]
    else:
        params = [parsed.realm, parsed.service, parsed.host]
    for rule in rules:
        result = rule.apply(params)
        if result is not None:
            return result
    raise MappingFailure(f"No rules apply to {parsed}, rules [{', '.join(str(r) for r in rules)}]")
