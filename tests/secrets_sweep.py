"""The secrets sweep: a pytest plugin (registered by tests/conftest.py) that fails any test whose output, or a log
file it left, holds a known secret or any 6-character piece of one (10 in a JVM's log).

Known secrets:
- the passwords of every sandbox the tests see: the session sandbox (its fixture registers them, and any state.json
  under the session's XDG directories or a test's tmp_path is read), and sandboxes that tests start themselves;
- every value kafkactl wrapped as a Secret or registered with kafkactl.redact in this process;
- test passwords: `register(value, label)`, a module-level `SECRETS = [...]` in a test module, or the `secret`
  fixture (a fresh random password, registered).
Secrets shorter than 6 characters are not swept (too short to tell from ordinary text: choose longer test
passwords). A piece proves a leak only when ordinary text is unlikely to hold it, so these are ignored: a piece that
kafkactl's own source or documentation holds (`pw-from-stdin-9` must not flag the help text `--password-stdin`),
one of lowercase letters and `._-` only (`-regis` of a broker log's "registration") and one of lowercase hex only
(ids, hashes, the uuid tokens tests put in names and passwords alike). Kafka's own ids are not looked in: a
standalone 22-character URL-safe base64 token whose last character is A, Q, g or w (how Kafka's Uuid.toString
writes 16 bytes), and a Java UUID (8-4-4-4-12 hex digits: the member ids a group coordinator makes, a Streams
application's process id). The broker logs a Uuid for every ACL record it replays: a suite's broker.log holds half
a million of them, about 4.9 million distinct random 6-grams, and against some 3,200 pieces of known passwords
that gave a false leak in about one run in four. A random 24-character password keeps nearly all of its 19
pieces. A running broker's log is read a whole line at a time, so no id is ever seen cut in two.

In a JVM's log (a *.log file: a broker's, a controller's, a Spark master's or worker's) a piece is LOG_PIECE (10)
characters, and a secret shorter than that is looked for whole. Those logs are hundreds
of megabytes of ids a JVM made at random, and the sweep cannot know every kind: after Kafka's Uuids were
blanked, a fresh-clone run still failed on a 6-character piece in broker.log that no run since has reproduced.
Each character past six makes a chance match 64 times less likely: 16 million times at ten. Whatever reached
such a log through kafkactl (a name, a config value, a command line) would be a whole value, so a leak is still
caught. Tests that grep one job's logs (the Spark cluster's, the Connect server's) call find_leaks, which keeps 6.
Whatever is known, a JAAS login module string with an unmasked password is a leak, and so is an OAuth access token
(any JWT); an --oauth sandbox's signing key is known, line by line.

Looked at: each test phase's captured stdout, stderr and log records and its failure text; every command run
through tests.conftest.run / run_process; after each test, the files under its tmp_path and what was appended to the
files under the session's XDG_STATE_HOME and XDG_CONFIG_HOME (the session broker's broker.log); a sandbox's home
when kafkactl's in-process `Sandbox.down` is about to remove it; at the end, everything under pytest's base
temporary directory (Spark Connect logs included) and *.log files the session wrote into the current directory.
Files that hold secrets on purpose are skipped: SECRET_STORES by name, SKIP_SUFFIXES (properties files) and Kafka's
storage (SKIP_DIRS); so are binary files (a NUL byte in their first 8 KiB: native libraries, whose random bytes
match a piece by chance). A leak fails the test phase it was found in, with the output masked and the piece never
shown; one found outside any test fails the session. The terminal summary says how much was swept.
"""

from __future__ import annotations

import os
import re
import secrets as _random
import time
from pathlib import Path

import pytest

PIECE = 6
LOG_PIECE = 10  # in a JVM's *.log (see the module's docstring)
MASK = "******"
SECRET_STORES = {"config.yaml", "config.yaml.tmp", "state.json", "server.properties", "oidc.json", "oidc-key.pem"}
SKIP_SUFFIXES = (".properties", ".parquet", ".index", ".timeindex", ".snapshot", ".checkpoint", ".pyc", ".so", ".jar",
                 ".class")
SKIP_DIRS = {"data", "libs", "__pycache__", ".hypothesis"}
MAX_FILE = 64 * 1024 * 1024
_ROOT = Path(__file__).resolve().parent.parent
_JAAS = re.compile(r"LoginModule\s+(?:required|requisite|sufficient|optional)\b[^;\n]*?\bpassword\s*=\s*"
                   r"(\"[^\"\n]*\"?|'[^'\n]*'?|[^\s;]*)")

# an OAuth access token (a JWS in compact form: base64url of '{"' starts its header and its claims): whoever holds
# it is its principal until it expires, so any one in any output is a leak, known or not
_JWT = re.compile(r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}")
# a Kerberos key as MIT's klist -K prints it (the sweep skips hex pieces, ids and hashes, so its hex is caught by
# shape; its base64 is registered per sandbox keytab)
_KRB_KEY = re.compile(r"\(0x[0-9a-f]{32,}\)")
_WORDLIKE = re.compile(r"[a-z._-]+|[0-9a-f]+")
_KAFKA_UUID = re.compile(r"(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{21}[AQgw](?![A-Za-z0-9_-])"
                         r"|(?<![0-9A-Fa-f])[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}(?![0-9A-Fa-f])")
_known: dict[str, str] = {}  # secret -> where it comes from (only the label is ever printed)
_short: set[str] = set()
_stats = {"texts": 0, "files": 0, "bytes": 0, "leaks": 0}
_pending: list[str] = []  # leaks found while a test runs: they fail its current phase
_session_leaks: list[str] = []  # found outside any test: they fail the session
_workers: list[dict] = []  # what each pytest-xdist worker swept (on the controller)
_state = {"in_test": False, "started": time.time()}
# file -> (inode, bytes read, its unfinished last line (up to 4 KiB), lines read; -1: a binary file)
_offsets: dict[str, tuple[int, int, bytes, int]] = {}
_vocabulary: list[str] = []
_in_vocabulary: dict[str, bool] = {}
# (secrets, piece length) -> _owner's answer
_index: dict[tuple, tuple[dict[str, str], dict[str, str], object, bool]] = {}


def register(secret: str | None, label: str = "a test secret") -> None:
    """Make `secret` known to the sweep (a password a test uses, or one of a sandbox it started)."""
    if not secret:
        return
    if len(secret) < PIECE:
        _short.add(secret)
    else:
        _known.setdefault(secret, label)


def new_secret(label: str = "a test secret") -> str:
    """A fresh random password, registered; none of its pieces could pass for a word or hex (which the sweep
    ignores), so every piece of it counts."""
    value = unmistakable()
    register(value, label)
    return value


def unmistakable() -> str:
    """A random password with no 6-character piece made of lowercase letters and '._-' only, or of hex only."""
    while True:
        value = _random.token_urlsafe(18)
        if not any(_WORDLIKE.fullmatch(value[i:i + PIECE]) for i in range(len(value) - PIECE + 1)):
            return value


def _secrets() -> dict[str, str]:
    from kafkactl import redact

    with redact._lock:
        values = list(redact._known)
    _short.update(v for v in values if len(v) < PIECE)
    # an OAuth token kafkactl holds: its header and claims are base64 of public JSON ("kafka" in its audience
    # encodes as it does in any certificate naming kafka), so only its signature is looked for in pieces; a whole
    # token anywhere is a leak by _JWT
    values = [v.rsplit(".", 1)[1] if _JWT.fullmatch(v) else v for v in values]
    return {**{v: "a kafkactl Secret" for v in values if len(v) >= PIECE}, **_known}


def _in_kafkactl_text(piece: str) -> bool:
    """Whether kafkactl's own source or documentation holds the piece (then it is not evidence of a leak)."""
    if piece not in _in_vocabulary:
        if not _vocabulary:
            files = [*(_ROOT / "kafkactl").rglob("*.py"), *(_ROOT / "kafkactl").rglob("*.json"), _ROOT / "README.md",
                     *(_ROOT / "docs").glob("*.md"), *(_ROOT / "man").glob("*"), *(_ROOT / "completions").glob("*")]
            _vocabulary.append("\n".join(p.read_text(errors="replace") for p in files if p.is_file()))
        _in_vocabulary[piece] = piece in _vocabulary[0]
    return _in_vocabulary[piece]


def _owner(length: int = PIECE) -> tuple[dict[str, str], dict[str, str], object, bool]:
    """Every `length`-character piece of every known secret that could not be part of a lowercase word or of
    lowercase hex (ids, hashes, the uuid tokens tests give names) -> the label of its secret, the secrets
    too short for such a piece but not shorter than PIECE (looked for whole), and an Aho-Corasick automaton of
    the pieces (None when there are none), and whether a piece or such a secret holds a space; rebuilt when a
    secret is added."""
    known = _secrets()
    key = (len(known), frozenset(known), length)
    if key not in _index:
        owner = {s[i:i + length]: label for s, label in known.items() for i in range(len(s) - length + 1)
                 if not _WORDLIKE.fullmatch(s[i:i + length])}
        automaton = None
        if owner:
            # one pass over the text finds every piece at every offset, overlapping ones included (a Python loop
            # over each character's piece cost about a minute of a whole suite's run)
            import ahocorasick

            automaton = ahocorasick.Automaton()
            for piece in owner:
                automaton.add_word(piece, piece)
            automaton.make_automaton()
        whole = {s: label for s, label in known.items() if len(s) < length and not _WORDLIKE.fullmatch(s)}
        _index[key] = (owner, whole, automaton, any(" " in p for p in (*owner, *whole)))
        for old in [k for k in _index if k != key and k[2] == length]:
            del _index[old]
    return _index[key]


def _without_kafka_ids(text: str, keep: dict | set = frozenset()) -> str:
    """text with each Kafka Uuid (a topic's, an ACL record's, a directory's) and each Java UUID (the member ids
    a group coordinator makes, a Streams process id) blanked, keeping every offset; an id that is itself one of
    `keep` (a secret of that shape) stays."""
    if len(text) < 22:
        return text
    return _KAFKA_UUID.sub(lambda m: m.group() if m.group() in keep else " " * len(m.group()), text)


def _spans(text: str, length: int = PIECE) -> list[tuple[int, int, str]]:
    owner, whole, automaton, spaced = _owner(length)
    # blanking the ids costs more than the search: it is done only for a text where something could be found (a
    # blank can make a match only of a piece that holds a space)
    maybe = bool(text) and (spaced
                            or (automaton is not None and next(automaton.iter(text), None) is not None)  # type: ignore[attr-defined]
                            or any(secret in text for secret in whole))
    plain = _without_kafka_ids(text, _secrets()) if maybe else ""
    spans = [(end - length + 1, end + 1, owner[piece]) for end, piece in automaton.iter(plain)  # type: ignore[attr-defined]
             if not _in_kafkactl_text(piece)] if automaton is not None and plain else []
    for secret, label in whole.items():  # (only when length > PIECE: a secret shorter than a piece, found whole)
        at = plain.find(secret)
        while at >= 0:
            if not _in_kafkactl_text(secret):
                spans.append((at, at + len(secret), label))
            at = plain.find(secret, at + 1)
    spans += [(*m.span(1), "a JAAS string with its password") for m in _JAAS.finditer(text)
              if m.group(1).strip("\"'") not in ("", MASK)]
    spans += [(*m.span(), "an OAuth token (a JWT)") for m in _JWT.finditer(text)] if "eyJ" in text else []
    spans += [(*m.span(), "a Kerberos key") for m in _KRB_KEY.finditer(text)] if "(0x" in text else []
    return spans


def _findings(text: str, first_line: int = 1, length: int = PIECE, seen: int = 0,
              size: int | None = None) -> tuple[list[str], str]:
    """The labels of the secrets a piece (of `length` characters) of which is in text, and the line of the first
    (never the piece); text's first line is line `first_line`, and what ends within its first `seen` characters
    was looked at before (a file's unfinished line, read again with its continuation). `size`: text's bytes."""
    _stats["bytes"] += len(text.encode("utf-8", "replace")) if size is None else size
    spans = [sp for sp in _spans(text, length) if sp[1] > seen] if text else []
    where = f" line {text.count(chr(10), 0, min(spans)[0]) + first_line}" if spans else ""
    return sorted({label for _, _, label in spans}), where


def find_leaks(text: str) -> list[str]:
    """The labels of the secrets a piece of which is in text (never the pieces themselves)."""
    _stats["texts"] += 1
    return _findings(text or "")[0]


def fail_on_leaks(text: str, what: str = "a command's output") -> None:
    """Fail the running test at once when text holds a piece of a known secret."""
    labels = find_leaks(text)
    if labels:
        _stats["leaks"] += 1
        pytest.fail(f"secrets sweep: {what} holds a piece of {', '.join(labels)} (the piece is not shown)",
                    pytrace=False)


def mask(text: str) -> str:
    """text with every piece of a known secret (and a JAAS string's password) replaced by MASK."""
    out, pos = [], 0
    for start, end, _ in sorted(_spans(text)):
        if start > pos or not out:
            out.append(text[pos:start] + MASK)
        pos = max(pos, end)  # overlapping pieces of one secret give one mask
    return "".join(out) + text[pos:]


def _record(lines: list[str]) -> None:
    (_pending if _state["in_test"] else _session_leaks).extend(lines)


def _candidates(root: Path):
    for base, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS]
        for name in files:
            path = Path(base, name)
            # a FIFO a test made would block the sweep; only regular files hold what a run wrote
            if name in SECRET_STORES or path.suffix in SKIP_SUFFIXES or path.is_symlink() or not path.is_file():
                if name == "state.json":
                    register_sandbox(path)
                continue
            yield path


def register_sandbox(state_file: Path) -> None:
    import json

    try:
        state = json.loads(state_file.read_text())
        passwords = state.get("passwords") or {}
    except (OSError, ValueError, AttributeError):
        return
    if not isinstance(passwords, dict):  # a test's deliberately damaged state file
        return
    for user, password in passwords.items():
        if isinstance(password, str):
            register(password, f"the password of {user} in {state_file.parent}")
    # a --tls sandbox's: its stores' and its client keys' password (kafkactl wraps it as a Secret when it reads a
    # TLS context, which alone would label it "a kafkactl Secret": this says which one)
    if isinstance(state.get("keystore_password"), str):
        register(state["keystore_password"], f"the keystore password in {state_file.parent}")
    # an --oauth sandbox's identity provider signs tokens with this key: each line of its body is a secret
    key = state_file.parent / "oidc-key.pem"
    if key.is_file():
        for line in key.read_text().splitlines():
            if len(line) >= 40 and not line.startswith("-----"):
                register(line, f"the identity provider's signing key in {state_file.parent}")
    register_keytabs(state_file.parent / "kerberos")


def register_keytabs(directory: Path) -> None:
    """A --kerberos sandbox's keytabs: each key in base64 and in upper-case hex (lower-case hex is caught by shape,
    _KRB_KEY)."""
    import base64
    import re
    import shutil
    import subprocess

    klist = shutil.which("klist")
    if klist is None or not directory.is_dir():
        return
    for keytab in sorted(directory.glob("*.keytab")):
        listed = subprocess.run([klist, "-k", "-K", str(keytab)], capture_output=True, text=True, timeout=30).stdout
        for key in re.findall(r"\(0x([0-9a-f]{32,})\)", listed):
            register(key.upper(), f"a key of {keytab}")
            register(base64.b64encode(bytes.fromhex(key)).decode(), f"a key of {keytab} (base64)")


def _piece(path: Path) -> int:
    """How long a piece proves a leak in this file: LOG_PIECE in a JVM's log (*.log: a broker's, a controller's,
    a Spark master's or worker's), PIECE in everything else (a Spark executor's stdout and stderr too: kafkactl's
    own code runs there)."""
    return LOG_PIECE if path.suffix == ".log" else PIECE


def _check_file(path: Path, text: str, what: str, root: Path, first_line: int = 1, seen: int = 0,
                size: int | None = None) -> list[str]:
    _stats["files"] += 1
    labels, where = _findings(text, first_line, _piece(path), seen, size)
    return [f"{what}: {path.relative_to(root)}{where} holds a piece of {', '.join(labels)}"] if labels else []


def sweep_tree(root: Path, what: str, report: bool = True, whole: bool = False, live: bool = False) -> list[str]:
    """Scan the log-like files under root, each from where the last scan of it stopped (a broker's log is read as
    it grows, never twice) to its end, or `whole` (a test's own tmp_path: pytest reuses its paths, and a new file
    can get a deleted one's inode and size). `live`: the files are being written (a running broker's log between
    two tests): read up to their last whole line, the rest with its line next time, so that an id is never seen
    cut in two. A file's unfinished last line is read again with its continuation (what was found in it before
    is not reported twice). Leaks fail the running test (or the session), unless report=False: then they are
    only returned."""
    found: list[str] = []
    root = Path(root)
    for path in sorted(_candidates(root)) if root.is_dir() else ():
        try:
            with open(path, "rb") as fh:
                st = os.fstat(fh.fileno())
                start = (st.st_ino, 0, b"", 0)
                inode, offset, carry, lines = start if whole else _offsets.get(str(path), start)
                if inode != st.st_ino or st.st_size < offset:  # replaced or truncated: read it afresh
                    offset, carry, lines = 0, b"", 0
                elif lines < 0:  # a binary file, as it was: not read again
                    continue
                while True:
                    fh.seek(offset)
                    new = fh.read(MAX_FILE)
                    if not new:
                        break
                    if offset == 0 and b"\0" in new[:8192]:
                        # a binary file (a native library Kafka Streams unpacks, RocksDB's): no one reads it as
                        # text, and its megabytes of random bytes matched a password's piece by chance (kafkactl
                        # writes no binary file but Parquet, skipped above)
                        offset, carry, lines = st.st_size, b"", -1
                        break
                    more = len(new) == MAX_FILE
                    if (live or more) and b"\n" in new:  # (a chunk of a large file ends on a line too)
                        new = new[:new.rfind(b"\n") + 1]
                    elif live:
                        break  # a line still being written: read with its end next time
                    seen = carry.decode("utf-8", "replace")
                    found += _check_file(path, seen + new.decode("utf-8", "replace"), what, root, lines + 1,
                                         len(seen), len(new))
                    offset, lines = offset + len(new), lines + new.count(b"\n")
                    # the unfinished last line (its last 4 KiB), read again with its continuation
                    last = (carry + new)[(carry + new).rfind(b"\n") + 1:]
                    carry = last[-4096:]
                    if not more:
                        break
        except OSError:
            continue
        _offsets[str(path)] = (st.st_ino, offset, carry, lines)
    if report:
        _record(found)
    return found


def _watched() -> list[tuple[Path, str]]:
    return [(Path(os.environ[v]), f"the session's {v}") for v in ("XDG_STATE_HOME", "XDG_CONFIG_HOME")
            if os.environ.get(v)]


# ----------------------------------------------------------------------------------------------- pytest hooks


@pytest.fixture
def secret() -> str:
    """A fresh random password, known to the sweep."""
    return new_secret("the `secret` fixture's password")


def pytest_configure(config) -> None:  # noqa: ARG001 (pytest's hook signature)
    _state["started"] = time.time()
    # kafkactl's in-process `local down --purge` removes the sandbox home, broker.log with it: sweep it first
    from kafkactl.local import sandbox

    down = sandbox.Sandbox.down
    if getattr(down, "swept_first", False):
        return

    def swept_down(self, purge: bool = False, timeout: float = 30.0):
        if purge:
            register_sandbox(self.state_file)
            sweep_tree(self.home, f"the sandbox in {self.home}, before local down --purge removed it")
            for swept in [p for p in _offsets if Path(p).is_relative_to(self.home)]:  # a new sandbox may reuse them
                del _offsets[swept]
        return down(self, purge=purge, timeout=timeout)

    swept_down.swept_first = True
    sandbox.Sandbox.down = swept_down


def pytest_collection_modifyitems(items) -> None:
    for module in {item.module for item in items if getattr(item, "module", None) is not None}:
        for value in getattr(module, "SECRETS", ()):
            register(value, f"a test secret of {module.__name__}")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item, nextitem):  # noqa: ARG001 (pytest's hook signature)
    _state["in_test"] = True
    try:
        return (yield)
    finally:
        _state["in_test"] = False


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if call.when == "teardown":
        tmp = (getattr(item, "funcargs", None) or {}).get("tmp_path")
        if tmp is not None:
            sweep_tree(Path(tmp), "this test's tmp_path", whole=True)
        for root, what in _watched():
            sweep_tree(root, what, live=True)
    texts = [(title, content) for title, content in report.sections if title.endswith(f" {call.when}")]
    if report.longrepr is not None:
        texts.append(("the failure report", str(report.longrepr)))
    _stats["texts"] += len(texts)
    lines = [f"the {call.when} output ({title},{where}) holds a piece of {', '.join(labels)}"
             for title, text in texts for labels, where in [_findings(text)] if labels]
    lines += _pending
    _pending.clear()
    if lines:
        _stats["leaks"] += len(lines)
        before = mask(str(report.longrepr)) + "\n\n" if report.failed and report.longrepr is not None else ""
        report.outcome = "failed"
        report.longrepr = before + "\n".join(f"secrets sweep: {line} (the piece is not shown)" for line in lines)
    if any(_spans(content) for _, content in report.sections):
        report.sections = [(title, mask(content)) for title, content in report.sections]
    return report


def pytest_sessionfinish(session, exitstatus) -> None:  # noqa: ARG001 (pytest's hook signature)
    factory = getattr(session.config, "_tmp_path_factory", None)
    base = factory.getbasetemp() if getattr(factory, "_basetemp", None) is not None else None
    if base is not None:
        sweep_tree(Path(base), "pytest's temporary directory")
    for root, what in _watched():
        sweep_tree(root, what)
    cwd = Path.cwd()
    for path in cwd.glob("*.log"):  # Spark's derby.log and the like
        if path.is_file() and path.stat().st_mtime >= _state["started"] and path.stat().st_size <= MAX_FILE:
            _record(_check_file(path, path.read_text(errors="replace"), "the current directory", cwd))
    if _session_leaks or any(w["session_leaks"] for w in _workers):  # (the controller of an xdist run: its workers')
        _stats["leaks"] += len(_session_leaks)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:  # a pytest-xdist worker: the controller adds up and reports every worker's sweep
        workeroutput["secrets_sweep"] = {**_stats, "known": len(_secrets()), "short": len(_short),
                                         "session_leaks": list(_session_leaks)}


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error) -> None:  # noqa: ARG001 (pytest-xdist's hook, on the controller)
    swept = getattr(node, "workeroutput", {}).get("secrets_sweep")
    if swept is not None:
        _workers.append(swept)


def pytest_terminal_summary(terminalreporter) -> None:
    known, short, stats, leaks = len(_secrets()), len(_short), dict(_stats), list(_session_leaks)
    for w in _workers:
        known, short = known + w["known"], short + w["short"]
        stats = {k: stats[k] + w[k] for k in stats}
        leaks += w["session_leaks"]
    terminalreporter.write_sep("-", "secrets sweep")
    terminalreporter.write_line(
        f"{known} secrets known ({short} shorter than {PIECE} characters not swept)"
        + (f" in {len(_workers)} workers" if _workers else "") + "; "
        f"{stats['texts']:,} outputs and {stats['files']:,} files scanned, {stats['bytes']:,} bytes; "
        f"leaks: {stats['leaks']}")
    for line in leaks:
        terminalreporter.write_line(f"LEAK {line} (the piece is not shown)", red=True)
