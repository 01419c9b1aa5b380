"""Java's java.util.regex, as far as principal-mapping rules need it, on Python's re.

A Java pattern is translated into a Python pattern that matches the same strings the same way (backtracking
order included): `.` excludes every Java line terminator, `$` and `\\Z` allow Java's final terminators, `\\d \\s \\w`
are ASCII, `[]a]` starts a class with `]`, `\\Q...\\E` quotes, `(?<name>` names a group. What Java refuses is
refused with Java's own description (PatternSyntaxException); what Java accepts but this translation does not
cover (inline flags, Unicode properties, backreferences, class unions and intersections, `\\b`, `\\G`, lookbehind
of varying width, a quantifier on a quantifier) is refused as unsupported, never guessed at.

Matcher.replaceAll and replaceFirst are reproduced with Java's replacement syntax (`$n` taking as many digits as
name an existing group, `${name}`, `\\x` for a literal x) and Java's find loop (after an empty match the next
search starts one character on; Python's re.sub would try a longer match at the same place).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

TERMINATORS = "\n\r\u0085\u2028\u2029"
DOT = "[^\\n\\r\\x85\\u2028\\u2029]"
# Java's `$` (and \Z) without MULTILINE: at the end, or before a final line terminator (\r\n as one; not between)
DOLLAR = "(?=\\r\\n\\Z|(?<!\\r)\\n\\Z|[\\r\\x85\\u2028\\u2029]\\Z|\\Z)"
SPACE = " \t\n\x0b\f\r"
_CLASSES = {"d": "0-9", "s": "\\ \\t\\n\\x0b\\f\\r", "w": "a-zA-Z_0-9",
            "h": "\\ \\t\\xa0\\u1680\\u180e\\u2000-\\u200a\\u202f\\u205f\\u3000",
            "v": "\\n\\x0b\\f\\r\\x85\\u2028\\u2029"}
_SIMPLE_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "f": "\f", "a": "\x07", "e": "\x1b"}


class JavaPatternError(ValueError):
    """Java refuses the pattern: the description its PatternSyntaxException gives."""


class Unsupported(ValueError):
    """Java accepts the pattern, but it uses a construct this translation does not reproduce."""


@dataclass(frozen=True)
class JavaPattern:
    source: str
    regex: re.Pattern[str]
    groups: int
    names: dict[str, int]

    def matches(self, text: str) -> bool:
        return self.regex.fullmatch(text) is not None

    def replace(self, text: str, replacement: str, first_only: bool = False) -> str:
        """Matcher.replaceAll / replaceFirst."""
        out, last, pos = [], 0, 0
        while pos <= len(text):
            m = self.regex.search(text, pos)
            if m is None:
                break
            out.append(text[last:m.start()])
            out.append(expand(replacement, m, self))
            last = m.end()
            if first_only:
                break
            pos = m.end() + 1 if m.end() == m.start() else m.end()
        out.append(text[last:])
        return "".join(out)


def expand(replacement: str, m: re.Match[str], pattern: JavaPattern) -> str:
    """Java's Matcher.appendReplacement expansion of `replacement` for one match."""
    out, i, n = [], 0, len(replacement)
    while i < n:
        c = replacement[i]
        if c == "\\":
            i += 1
            if i == n:
                raise ValueError("character to be escaped is missing")
            out.append(replacement[i])
            i += 1
        elif c == "$":
            ref, i = _group_reference(replacement, i + 1, pattern)
            if ref > pattern.groups:
                raise IndexError(f"No group {ref}")
            value = m.group(ref)
            if value is not None:
                out.append(value)
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _group_reference(replacement: str, i: int, pattern: JavaPattern) -> tuple[int, int]:
    """After a `$` (at `i`): the group it refers to, ${name} or a number (its digits while they make a group),
    and where the replacement goes on."""
    n = len(replacement)
    if i == n:
        raise ValueError("Illegal group reference: group index is missing")
    if replacement[i] == "{":
        return _named_group(replacement, i + 1, pattern)
    if not "0" <= replacement[i] <= "9":
        raise ValueError("Illegal group reference")
    ref = int(replacement[i])
    i += 1
    while i < n and "0" <= replacement[i] <= "9" and ref * 10 + int(replacement[i]) <= pattern.groups:
        ref = ref * 10 + int(replacement[i])
        i += 1
    return ref, i


def _named_group(replacement: str, i: int, pattern: JavaPattern) -> tuple[int, int]:
    """After `${` (at `i`): the named group's number, and where the replacement goes on after the `}`."""
    n = len(replacement)
    start = i
    while i < n and replacement[i].isascii() and replacement[i].isalnum():
        i += 1
    name = replacement[start:i]
    if not name:
        raise ValueError("named capturing group has 0 length name")
    if i == n or replacement[i] != "}":
        raise ValueError("named capturing group is missing trailing '}'")
    if name[0].isdigit():
        raise ValueError(f"capturing group name {{{name}}} starts with digit character")
    if name not in pattern.names:
        raise ValueError(f"No group with name {{{name}}}")
    return pattern.names[name], i + 1


def compile_java(source: str) -> JavaPattern:
    translated, groups, names = _Translator(source).run()
    try:
        regex = re.compile(translated)
    except re.error as exc:
        raise Unsupported(f"not reproduced by kafkactl's preview ({exc.msg})") from None
    except OverflowError:  # a bound Java takes (up to 2^31-1) over Python's own limit
        raise Unsupported("not reproduced by kafkactl's preview (a repetition bound over Python's limit)") from None
    return JavaPattern(source, regex, groups, names)


class _Translator:
    def __init__(self, source: str) -> None:
        self.s, self.i = source, 0
        self.out: list[str] = []
        self.names: dict[str, int] = {}
        self.groups, self.depth = 0, 0
        self.can_repeat = False  # an atom precedes (a quantifier may follow)
        self.repeated = False  # the atom just read already has a quantifier

    def peek(self, k: int = 0) -> str:
        j = self.i + k
        return self.s[j] if j < len(self.s) else ""

    def run(self) -> tuple[str, int, dict[str, int]]:
        while self.i < len(self.s):
            self.token()
        if self.depth:
            raise JavaPatternError("Unclosed group")
        return "".join(self.out), self.groups, self.names

    def atom(self, text: str) -> None:
        self.out.append(text)
        self.can_repeat, self.repeated = True, False

    def token(self) -> None:
        c = self.s[self.i]
        if c == "\\":
            self.escape()
        elif c == "[":
            self.atom(self.char_class())
        elif c == "(":
            self.open_group()
        elif c == ")":
            if not self.depth:
                raise JavaPatternError("Unmatched closing ')'")
            self.depth -= 1
            self.i += 1
            self.atom(")")
        elif c == "|":
            self.i += 1
            self.out.append("|")
            self.can_repeat = False
        elif c in "*+?{":
            self.quantifier()
        elif c == ".":
            self.i += 1
            self.atom(DOT)
        elif c == "^":
            self.i += 1
            self.atom("^")
        elif c == "$":
            self.i += 1
            self.atom(DOLLAR)
        else:
            self.i += 1
            self.atom(re.escape(c))

    def quantifier(self) -> None:
        c = self.s[self.i]
        if not self.can_repeat:
            if c == "{":
                raise JavaPatternError("Illegal repetition")
            raise JavaPatternError(f"Dangling meta character '{c}'")
        if self.repeated and c != "{":
            raise JavaPatternError(f"Dangling meta character '{c}'")
        if self.repeated:
            raise Unsupported("not reproduced by kafkactl's preview (a quantifier on a quantifier)")
        if c == "{":
            m = re.compile(r"\{([0-9]+)(,([0-9]*))?").match(self.s, self.i)
            if m is None:
                raise JavaPatternError("Illegal repetition")
            self.i = m.end()
            if self.peek() != "}":
                raise JavaPatternError("Unclosed counted closure")
            self.i += 1
            low, high = int(m.group(1)), m.group(3)
            # Java reads each bound as an int: past 2^31-1 the pattern is refused (Python would overflow later)
            if (high and low > int(high)) or max(low, int(high or 0)) > 2**31 - 1:
                raise JavaPatternError("Illegal repetition range")
            text = m.group(0) + "}"
        else:
            self.i += 1
            text = c
        if self.peek() in ("?", "+"):
            text += self.peek()
            self.i += 1
        self.out.append(text)
        self.repeated = True

    def open_group(self) -> None:
        self.i += 1
        self.depth += 1
        if self.peek() != "?":
            self.groups += 1
            self.out.append("(")
        else:
            rest = self.s[self.i + 1:]
            for opener in (":", "=", "!", "<=", "<!", ">"):
                if rest.startswith(opener):
                    self.i += 1 + len(opener)
                    self.out.append("(?" + opener)
                    break
            else:
                m = re.compile(r"<([a-zA-Z][a-zA-Z0-9]*)>").match(rest)
                if m:
                    self.groups += 1
                    if m.group(1) in self.names:
                        raise JavaPatternError(f"Named capturing group <{m.group(1)}> is already defined")
                    self.names[m.group(1)] = self.groups
                    self.i += 1 + m.end()
                    self.out.append(f"(?P<{m.group(1)}>")
                elif rest[:1] in ("$", "@"):
                    raise JavaPatternError("Unknown group type")
                elif rest[:1] and (rest[0] in "idmsuxU-)"):
                    raise Unsupported("not reproduced by kafkactl's preview (inline flags)")
                elif rest.startswith("<"):
                    raise JavaPatternError("capturing group name does not start with a Latin letter")
                else:
                    raise JavaPatternError("Unknown inline modifier")
        self.can_repeat = False

    def escape(self) -> None:
        self.i += 1
        c = self.peek()
        if c == "":
            raise JavaPatternError("Unexpected internal error")
        if c == "Q":
            end = self.s.find("\\E", self.i + 1)
            quoted = self.s[self.i + 1:] if end < 0 else self.s[self.i + 1:end]
            self.i = len(self.s) if end < 0 else end + 2
            if quoted:
                for ch in quoted:  # each character an atom of its own, as Java reads it
                    self.atom(re.escape(ch))
            return
        literal = self.escaped_char()
        if literal is not None:
            self.atom(re.escape(literal))
            return
        self.i += 1
        if c in _CLASSES:
            self.atom(f"[{_CLASSES[c]}]")
        elif c in ("D", "S", "W", "H", "V"):
            self.atom(f"[^{_CLASSES[c.lower()]}]")
        elif c == "R":
            self.atom("(?>\\r\\n|[\\n\\x0b\\f\\r\\x85\\u2028\\u2029])")
        elif c == "A":
            self.atom("\\A")
        elif c == "z":
            self.atom("\\Z")
        elif c == "Z":
            self.atom(DOLLAR)
        elif c in "bBGXNpPk" or c.isdigit():
            raise Unsupported(f"not reproduced by kafkactl's preview (\\{c})")
        else:
            raise JavaPatternError("Illegal/unsupported escape sequence")

    def escaped_char(self) -> str | None:
        """After a backslash: the literal character it escapes, or None for a class or an anchor (not consumed)."""
        c = self.peek()
        if not c.isalnum() or not c.isascii():
            self.i += 1
            return c
        if c in _SIMPLE_ESCAPES:
            self.i += 1
            return _SIMPLE_ESCAPES[c]
        if c == "0":
            m = re.compile(r"0([0-3][0-7]{2}|[0-7]{1,2})").match(self.s, self.i)
            if m is None:
                raise JavaPatternError("Illegal octal escape sequence")
            self.i = m.end()
            return chr(int(m.group(1), 8))
        if c == "x":
            m = re.compile(r"x([0-9a-fA-F]{2})").match(self.s, self.i)
            if m:
                self.i = m.end()
                return chr(int(m.group(1), 16))
            m = re.compile(r"x\{([0-9a-fA-F]+)\}").match(self.s, self.i)
            if m is None:
                raise JavaPatternError("Illegal hexadecimal escape sequence")
            if int(m.group(1), 16) > 0x10FFFF:
                raise JavaPatternError("Hexadecimal codepoint is too big")
            self.i = m.end()
            return chr(int(m.group(1), 16))
        if c == "u":
            m = re.compile(r"u([0-9a-fA-F]{4})").match(self.s, self.i)
            if m is None:
                raise JavaPatternError("Illegal Unicode escape sequence")
            code = int(m.group(1), 16)
            if 0xD800 <= code <= 0xDFFF:
                raise Unsupported("not reproduced by kafkactl's preview (a surrogate escape)")
            self.i = m.end()
            return chr(code)
        if c == "c":
            if self.i + 1 >= len(self.s):
                raise JavaPatternError("Illegal control escape sequence")
            self.i += 2
            return chr(ord(self.s[self.i - 1]) ^ 64)
        return None

    def char_class(self) -> str:
        """A class from `[` to its `]`, as a Python class. Java takes a `]` right after `[` or `[^` literally."""
        self.i += 1
        parts, negate = [], False
        if self.peek() == "^":
            negate, self.i = True, self.i + 1
        first = True
        members: list[tuple[str, str | None]] = []  # (literal character, or None for a shorthand class)
        while True:
            c = self.peek()
            if c == "":
                raise JavaPatternError("Unclosed character class")
            if c == "]" and not first:
                self.i += 1
                break
            first = False
            if c == "[" or (c == "&" and self.peek(1) == "&"):
                raise Unsupported("not reproduced by kafkactl's preview (class union or intersection)")
            if c == "\\":
                self.i += 1
                char, shorthand = self.class_escape()
                if shorthand is not None:
                    members.append(("", shorthand))
                    continue
            else:
                self.i += 1
                char = c
            # a range: char - char (a `-` before `]` is literal)
            if self.peek() == "-" and self.peek(1) not in ("]", ""):
                self.i += 1
                high = self.range_end(char)
                members.append((char, f"{_class_char(char)}-{_class_char(high)}"))
                continue
            members.append((char, None))
        for char, spec in members:
            parts.append(spec if spec is not None else _class_char(char))
        body = "".join(parts)
        return f"[{'^' if negate else ''}{body}]" if body else ("[^\\s\\S]" if not negate else "[\\s\\S]")

    def class_escape(self) -> tuple[str, str | None]:
        """After a backslash in a class: (the literal character it escapes, None), or ("", a shorthand class)."""
        if self.peek() == "Q":
            raise Unsupported("not reproduced by kafkactl's preview (\\Q inside a class)")
        literal = self.escaped_char()
        if literal is not None:
            return literal, None
        k = self.peek()
        self.i += 1
        if k in ("d", "s", "w", "h", "v"):
            return "", _CLASSES[k]
        if k in ("D", "S", "W", "H", "V", "p", "P", "R", "X", "N", "b", "B", "G", "Q", "k"):
            raise Unsupported(f"not reproduced by kafkactl's preview (\\{k} inside a class)")
        raise JavaPatternError("Illegal/unsupported escape sequence")

    def range_end(self, low: str) -> str:
        """After a range's `-` in a class: its last character, which may not come before `low`."""
        if self.peek() == "[":
            raise Unsupported("not reproduced by kafkactl's preview (class union)")
        if self.peek() == "\\":
            self.i += 1
            high = self.escaped_char()
            if high is None:
                raise JavaPatternError("Illegal character range")
        else:
            high = self.peek()
            self.i += 1
        if ord(high) < ord(low):
            raise JavaPatternError("Illegal character range")
        return high


def _class_char(c: str) -> str:
    return "\\" + c if c in "\\]^-[" else c


def java_lower(text: str) -> str:
    """String.toLowerCase(Locale.ENGLISH). Python and Java differ on one letter: a capital sigma is final (ς) in
    Java when a cased letter precedes it and none follows it within its word, a word as Java's word BreakIterator
    finds it (letters and digits run together: `ΣΑΣ0é` is one word, so its last Σ is σ, where Python says ς)."""
    if "\u03a3" not in text:
        return text.lower()
    return "".join(("\u03c2" if _final_sigma(text, i) else "\u03c3") if c == "\u03a3" else c.lower()
                   for i, c in enumerate(text))


# Java's legacy word-break rules (JDK 17, BreakIteratorRules): letters (L, Mc; not CJK ideographs or kana) and
# digits (N) join; these join two letters, or two digits; Mn, Me and Cf belong to what precedes them
_MID_WORD = frozenset("\u00ad\u2027\"'.")
_MID_NUM = frozenset("\"',\u066b.")


def _kind(c: str) -> str:
    import unicodedata

    cat = unicodedata.category(c)
    if cat in ("Mn", "Me", "Cf"):
        return "ignore"
    if cat[0] == "N":
        return "dgt"
    if (cat[0] == "L" or cat == "Mc") and not _cjk(c):
        return "let"
    if cat == "Pd" or c in _MID_WORD or c in _MID_NUM:
        return "mid"
    return "other"


def _cjk(c: str) -> bool:
    o = ord(c)
    return 0x3040 <= o <= 0x30FF or 0x3400 <= o <= 0x4DBF or 0x4E00 <= o <= 0x9FFF or 0xF900 <= o <= 0xFAFF \
        or 0x20000 <= o <= 0x2FA1F


def _joins(mid: str, before: str, after: str) -> bool:
    import unicodedata

    as_word = (unicodedata.category(mid) == "Pd" or mid in _MID_WORD) and before == after == "let"
    return as_word or (mid in _MID_NUM and before == after == "dgt")


def _word_chars(text: str, i: int, step: int) -> list[str]:
    """The characters of the word holding text[i], from it outwards in one direction (step 1 or -1)."""
    out, j, last = [], i + step, _kind(text[i])
    while 0 <= j < len(text):
        kind = _kind(text[j])
        if kind == "mid":
            nxt = j + step
            while 0 <= nxt < len(text) and _kind(text[nxt]) == "ignore":
                nxt += step
            if not (0 <= nxt < len(text) and _joins(text[j], last, _kind(text[nxt]))):
                break
        elif kind == "other":
            break
        elif kind != "ignore":
            last = kind
        out.append(text[j])
        j += step
    return out


def _final_sigma(text: str, i: int) -> bool:
    import unicodedata

    def cased(c: str) -> bool:
        return unicodedata.category(c) in ("Lu", "Ll", "Lt")

    return any(cased(c) for c in _word_chars(text, i, -1)) and not any(cased(c) for c in _word_chars(text, i, 1))


def java_upper(text: str) -> str:
    """String.toUpperCase(Locale.ENGLISH)."""
    return text.upper()
