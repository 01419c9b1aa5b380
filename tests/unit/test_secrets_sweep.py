"""The secrets sweep (tests/secrets_sweep.py) catches what it is meant to catch and nothing else.

The end-to-end cases run a pytest session of their own (pytester, in a subprocess) with the plugin and deliberately
leaking tests; the others call the plugin's functions on synthetic text and files.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from kafkactl.redact import Secret
from tests import secrets_sweep

ROOT = Path(__file__).resolve().parent.parent.parent

INNER = '''
import secrets
from pathlib import Path

from kafkactl.redact import Secret
from tests.secrets_sweep import register

SECRET = {secret!r}
SECRETS = [{listed!r}]


def test_prints_a_piece_of_a_registered_secret():
    register(SECRET, "the inner secret")
    print("oops:", SECRET[4:10])


def test_prints_only_five_characters_of_it():
    register(SECRET, "the inner secret")
    print("fine:", SECRET[4:9])


def test_writes_a_piece_into_a_log_in_its_tmp_path(tmp_path):
    register(SECRET, "the inner secret")
    (tmp_path / "app.log").write_text("INFO " + SECRET[2:13] + "\\n")  # a JVM's log: 10 characters make a piece
    (tmp_path / "client.properties").write_text("sasl.password=" + SECRET + "\\n")  # a secret store: skipped


def test_logs_a_piece_of_a_module_level_secret():
    import logging
    logging.getLogger("inner").warning("token %s", {listed!r}[3:12])


def test_prints_a_jaas_string_whose_password_is_unknown():
    print('org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="x1y2";')


def test_prints_a_masked_jaas_string_and_help_text():
    Secret("pw-from-stdin-9")
    print('sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required '
          'username="u" password="******";')
    print("--password-stdin  read the password from standard input")


def test_fails_on_its_own_and_leaks_in_the_failure(secret):
    register(SECRET, "the inner secret")
    assert SECRET == "something else"


def test_kafkactl_secret_printed():
    s = Secret({kafkactl!r})
    print(s.reveal()[:8])
'''


@pytest.fixture(scope="module")
def inner(tmp_path_factory):
    """One run of the inner session, shared by the assertions below."""
    pytester_dir = tmp_path_factory.mktemp("sweep-inner")
    values = {"secret": secrets_sweep.unmistakable(), "listed": secrets_sweep.unmistakable(),
              "kafkactl": secrets_sweep.unmistakable()}
    (pytester_dir / "test_inner.py").write_text(INNER.format(**values))
    import subprocess
    import sys

    env = {**os.environ, "PYTHONPATH": str(ROOT), "XDG_STATE_HOME": str(pytester_dir / "state"),
           "XDG_CONFIG_HOME": str(pytester_dir / "config")}
    p = subprocess.run([sys.executable, "-m", "pytest", "-p", "tests.secrets_sweep", "-p", "no:cacheprovider",
                        "-o", "addopts=", "-rA", "--basetemp", str(pytester_dir / "basetemp"),
                        "--rootdir", str(pytester_dir), str(pytester_dir / "test_inner.py")],
                       capture_output=True, text=True, cwd=pytester_dir, env=env, timeout=120)
    yield p.stdout + p.stderr, values, p.returncode
    shutil.rmtree(pytester_dir, ignore_errors=True)  # the planted log and the leaking sources


def _outcome(output: str, name: str) -> str:
    """The worst outcome -rA lists for the test (a teardown error comes after PASSED)."""
    words = {line.split()[0] for line in output.splitlines()
             if len(line.split()) > 1 and line.split()[1] == f"test_inner.py::{name}"}
    return next((w for w in ("ERROR", "FAILED", "PASSED") if w in words), "?")


@pytest.mark.parametrize("name, expected", [
    ("test_prints_a_piece_of_a_registered_secret", "FAILED"),
    ("test_prints_only_five_characters_of_it", "PASSED"),
    ("test_writes_a_piece_into_a_log_in_its_tmp_path", "ERROR"),  # found at teardown, when tmp_path is swept
    ("test_logs_a_piece_of_a_module_level_secret", "FAILED"),
    ("test_prints_a_jaas_string_whose_password_is_unknown", "FAILED"),
    ("test_prints_a_masked_jaas_string_and_help_text", "PASSED"),
    ("test_fails_on_its_own_and_leaks_in_the_failure", "FAILED"),
    ("test_kafkactl_secret_printed", "FAILED"),
])
def test_a_deliberate_leak_fails_its_test_and_legitimate_output_passes(inner, name, expected):
    output, _, code = inner
    assert _outcome(output, name) == expected, output[-3000:]
    assert code == 1


def test_no_piece_of_a_secret_reaches_the_inner_session_s_own_report(inner):
    """The failure reports mask what they found: the leak does not leak again through pytest's output."""
    output, values, _ = inner
    assert "secrets sweep: the call output (Captured stdout call, line 1) holds a piece of the inner secret" in output
    assert "this test's tmp_path: app.log line 1 holds a piece of the inner secret" in output
    assert "a JAAS string with its password" in output
    assert "AssertionError" in output and "******" in output  # the failure's own text is kept, masked
    for value in values.values():
        assert not [value[i:i + 6] for i in range(len(value) - 5) if value[i:i + 6] in output], output[-3000:]


def test_the_summary_says_how_much_was_swept(inner):
    output, _, _ = inner
    summary = [line for line in output.splitlines() if "secrets known" in line]
    assert summary and " outputs and " in summary[0] and " files scanned, " in summary[0], output[-2000:]


def test_six_characters_are_a_piece_five_are_not():
    secret = secrets_sweep.unmistakable()
    secrets_sweep.register(secret, "the sweep's own test secret")
    assert secrets_sweep.find_leaks(f"error: bad value {secret[3:9]}!") == ["the sweep's own test secret"]
    assert secrets_sweep.find_leaks(f"error: bad value {secret[3:8]}!") == []
    assert secrets_sweep.mask(f"x {secret} y {secret[:6]}") == "x ****** y ******"


def test_short_secrets_are_counted_but_not_swept():
    secrets_sweep.register("abc12", "too short")
    assert "abc12" in secrets_sweep._short and secrets_sweep.find_leaks("abc12 abc12") == []


def test_pieces_of_kafkactl_s_own_text_of_words_and_of_hex_are_ordinary():
    Secret("pw-from-stdin-9")
    assert secrets_sweep.find_leaks("--password-stdin, read from stdin") == []
    assert secrets_sweep.find_leaks("stdin-9") != []
    secrets_sweep.register("zq-registered-77", "a password made of words")
    assert secrets_sweep.find_leaks("controller-registration-channel") == []
    assert secrets_sweep.find_leaks("red-77") != []
    secrets_sweep.register("Nobody-d8aed265", "a password built on a name's token")
    assert secrets_sweep.find_leaks("user nobodyd8aed265, topic lcr.d8aed265.t") == []
    assert secrets_sweep.find_leaks("Nobody-") != []


def test_kafka_s_own_ids_are_not_evidence_but_a_password_around_them_is():
    import base64

    password = secrets_sweep.new_secret("a password that shares a piece with a Kafka id")
    piece = password[3:9]
    uuid = base64.urlsafe_b64encode(os.urandom(16)).decode().rstrip("=")  # how Kafka writes a Uuid
    assert len(uuid) == 22 and uuid[-1] in "AQgw"
    uuid = uuid[:5] + piece + uuid[11:]  # one that holds the piece
    line = f"INFO [QuorumController id=1] Replayed AccessControlEntryRecord for {uuid} (topicId={uuid}) ok"
    assert secrets_sweep.find_leaks(line) == []
    assert secrets_sweep.find_leaks(f"{uuid}x") != []  # 23 characters: not a Uuid
    assert secrets_sweep.find_leaks(f"{uuid[:-1]}B") != []  # a last character Kafka never writes
    assert secrets_sweep.find_leaks(f"password={password}") != []
    assert secrets_sweep.find_leaks(f"password={password[:20]}") != []
    assert secrets_sweep.mask(f"{uuid} {password}") == f"{uuid} {secrets_sweep.MASK}"


def test_java_uuids_are_not_evidence_either():
    import uuid

    piece = "3f9-a1"  # a piece a member id can hold, in a password made for the test
    password = "Xy" + piece + "Qz" + secrets_sweep.unmistakable()
    secrets_sweep.register(password, "a password that shares a piece with a member id")
    member = str(uuid.uuid4())
    dash = member.index("-", 9)  # the second dash: put the piece across it
    member = member[:dash - 3] + piece + member[dash + 3:]
    assert len(member) == 36 and uuid.UUID(member) and member[dash] == "-"
    line = f"Dynamic member with unknown member id joins group g. Created a new member id rdkafka-{member} for this"
    assert secrets_sweep.find_leaks(line) == []
    assert secrets_sweep.find_leaks(f"{member}0") != []  # 13 digits at the end: not a UUID
    assert secrets_sweep.find_leaks(f"password={password}") != []


def test_a_secret_shaped_like_an_id_is_still_found():
    import base64
    import uuid

    for shaped in (str(uuid.uuid4()), base64.urlsafe_b64encode(os.urandom(16)).decode().rstrip("=")):
        secrets_sweep.register(shaped, "a secret shaped like an id")
        # (in: the session's other secrets may share a piece with "password=" and the id's first characters)
        assert "a secret shaped like an id" in secrets_sweep.find_leaks(f"password={shaped} ok")


def test_a_log_line_cut_in_the_middle_of_an_id_is_read_whole(tmp_path):
    import base64

    password = secrets_sweep.new_secret("a password one id's remainder would show")
    uuid = base64.urlsafe_b64encode(os.urandom(16)).decode().rstrip("=")
    uuid = uuid[:9] + password[3:9] + uuid[15:]  # what follows the cut holds a piece of it
    log = tmp_path / "kafka.out"  # not *.log: 6 characters make a piece
    log.write_text(f"[INFO] Replayed AccessControlEntryRecord for {uuid[:8]}")  # the broker is mid-line
    assert secrets_sweep.sweep_tree(tmp_path, "a log", report=False, live=True) == []
    with log.open("a") as fh:
        fh.write(f"{uuid[8:]}, setting StandardAcl\n")
    assert secrets_sweep.sweep_tree(tmp_path, "a log", report=False, live=True) == []
    with log.open("a") as fh:  # a line without its newline: not while the file is live, at the end of the session
        fh.write(f"[INFO] {password}")
    assert secrets_sweep.sweep_tree(tmp_path, "a log", report=False, live=True) == []
    assert secrets_sweep.sweep_tree(tmp_path, "a log", report=False) == [
        "a log: kafka.out line 2 holds a piece of a password one id's remainder would show"]
    log.unlink()


def test_log_files_are_swept_and_secret_stores_are_not(tmp_path):
    secret = secrets_sweep.new_secret("another test secret")
    (tmp_path / "broker.log").write_text(f"[INFO] something {secret[:11]}\n")
    (tmp_path / "client-alice.properties").write_text(f"sasl.password={secret}\n")
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "00000.log").write_text(secret)
    # a binary file (RocksDB's native library, unpacked by Kafka Streams): its random bytes are no output
    (tmp_path / "librocksdbjni1.so").write_bytes(b"\x7fELF\0\0" + secret.encode() + b"\0")
    (tmp_path / "blob.bin").write_bytes(b"\0\1" + secret.encode())
    found = secrets_sweep.sweep_tree(tmp_path, "a synthetic tree", report=False)
    assert found == ["a synthetic tree: broker.log line 1 holds a piece of another test secret"]
    for planted in ("broker.log", "librocksdbjni1.so", "blob.bin"):  # this test's own teardown sweep must not find it
        (tmp_path / planted).unlink()


def test_in_a_jvm_s_log_a_piece_is_ten_characters_and_a_shorter_secret_counts_whole(tmp_path):
    secret = secrets_sweep.new_secret("a secret in a JVM's log")
    short = "Zx7-" + secrets_sweep.unmistakable()[:4]  # 8 characters: shorter than a log's piece
    secrets_sweep.register(short, "a short secret")
    (tmp_path / "node.log").write_text(f"[INFO] random id {secret[2:11]}\n")  # 9 characters: chance, not a leak
    (tmp_path / "stderr").write_text(f"an executor printed {secret[:6]}\n")  # kafkactl's code runs there: 6 count
    (tmp_path / "report.txt").write_text(f"kafkactl wrote {secret[:6]}\n")
    found = secrets_sweep.sweep_tree(tmp_path, "a tree", report=False)
    assert found == ["a tree: report.txt line 1 holds a piece of a secret in a JVM's log",
                     "a tree: stderr line 1 holds a piece of a secret in a JVM's log"], found
    (tmp_path / "node.log").write_text(f"[INFO] {secret[2:12]} and {short}\n")
    found = secrets_sweep.sweep_tree(tmp_path, "a tree", report=False, whole=True)
    assert "a tree: node.log line 1 holds a piece of a secret in a JVM's log, a short secret" in found, found
    for name in ("node.log", "stderr", "report.txt"):
        (tmp_path / name).unlink()


def test_appended_log_lines_are_swept_once_and_pieces_across_reads_are_caught(tmp_path):
    secret = secrets_sweep.new_secret("a log secret")
    log = tmp_path / "app.out"  # 6 characters make a piece
    log.write_text("[INFO] started\n")
    assert secrets_sweep.sweep_tree(tmp_path, "a log", report=False) == []
    with log.open("a") as fh:
        fh.write(f"[INFO] user {secret[:3]}")
    assert secrets_sweep.sweep_tree(tmp_path, "a log", report=False) == []  # read to its end: 3 characters
    with log.open("a") as fh:
        fh.write(f"{secret[3:6]} logged in\n")  # the piece spans the two reads: the unfinished line is read again
    found = secrets_sweep.sweep_tree(tmp_path, "a log", report=False)
    assert found == ["a log: app.out line 2 holds a piece of a log secret"]  # the file's line
    with log.open("a") as fh:
        fh.write(f"[INFO] x\n[INFO] {secret[10:16]}")  # a piece that ends a read
    assert secrets_sweep.sweep_tree(tmp_path, "a log", report=False) == [
        "a log: app.out line 4 holds a piece of a log secret"]
    with log.open("a") as fh:
        fh.write(" and more\n[INFO] nothing\n")
    assert secrets_sweep.sweep_tree(tmp_path, "a log", report=False) == []  # never reported twice
    log.unlink()


def test_a_short_secret_at_the_end_of_a_log_is_reported_once(tmp_path):
    short = "Zx7-" + secrets_sweep.unmistakable()[:4]
    secrets_sweep.register(short, "a short secret in a log")
    log = tmp_path / "node.log"
    log.write_text(f"[INFO] {short}")
    assert secrets_sweep.sweep_tree(tmp_path, "a log", report=False) == [
        "a log: node.log line 1 holds a piece of a short secret in a log"]
    with log.open("a") as fh:
        fh.write(" went by\n")
    assert secrets_sweep.sweep_tree(tmp_path, "a log", report=False) == []
    log.unlink()


def test_a_binary_file_stays_unread_as_it_grows(tmp_path):
    secret = secrets_sweep.new_secret("a secret in a binary file")
    blob = tmp_path / "librocksdbjni.so.part"
    blob.write_bytes(b"\x7fELF\0\0random")
    assert secrets_sweep.sweep_tree(tmp_path, "a tree", report=False) == []
    with blob.open("ab") as fh:
        fh.write(secret.encode())
    assert secrets_sweep.sweep_tree(tmp_path, "a tree", report=False) == []
    blob.unlink()


def test_a_large_file_s_chunks_end_on_a_line(tmp_path, monkeypatch):
    import base64

    password = secrets_sweep.new_secret("a password a cut id would show")
    uuid = base64.urlsafe_b64encode(os.urandom(16)).decode().rstrip("=")
    uuid = uuid[:9] + password[3:9] + uuid[15:]
    line = f"[INFO] Replayed AccessControlEntryRecord for {uuid}, setting StandardAcl\n"
    (tmp_path / "kafka.out").write_text(line * 5)
    for size in range(100, 180, 7):  # chunks (longer than a line) that end inside the id, as 64 MiB ones can
        monkeypatch.setattr(secrets_sweep, "MAX_FILE", size)
        assert secrets_sweep.sweep_tree(tmp_path, "a tree", report=False, whole=True) == [], size
    (tmp_path / "kafka.out").unlink()


def test_a_sandbox_state_file_makes_its_passwords_known(tmp_path):
    import json

    password = secrets_sweep.unmistakable()
    (tmp_path / "state.json").write_text(json.dumps({"passwords": {"alice": password}}))
    secrets_sweep.sweep_tree(tmp_path, "a sandbox home", report=False)
    assert secrets_sweep.find_leaks(f"{password[5:11]}") == [f"the password of alice in {tmp_path}"]


def test_the_secret_fixture_is_fresh_and_known(secret):
    assert len(secret) >= 20 and secrets_sweep.find_leaks(secret[-6:]) == ["the `secret` fixture's password"]


def test_the_one_pass_matcher_finds_what_a_look_at_every_offset_finds():
    """The automaton against the definition: at every offset of the text with Kafka's ids blanked, a piece of a
    known secret is a finding. Random texts hold whole secrets, overlapping pieces, pieces inside id-shaped tokens
    and a secret with a run of spaces (which a blanked id can complete)."""
    import random
    import string

    rng = random.Random(20261128)
    secrets = [secrets_sweep.new_secret("a matcher secret") for _ in range(6)] + ["Zk#   Zq"]
    for value in secrets[-1:]:
        secrets_sweep.register(value, "a secret with a run of spaces")
    alphabet = string.ascii_letters + string.digits + " _-:#\n"
    try:
        _compare(rng, secrets, alphabet)
    finally:  # later tests' output must not be read against them
        for value in secrets:
            secrets_sweep._known.pop(value, None)


def _compare(rng, secrets: list[str], alphabet: str) -> None:
    import string

    for length in (secrets_sweep.PIECE, secrets_sweep.LOG_PIECE):
        owner, whole, _, _ = secrets_sweep._owner(length)
        found_any = 0
        for _ in range(300):
            parts = []
            for _ in range(rng.randint(1, 8)):
                roll = rng.random()
                if roll < 0.4:
                    s = rng.choice(secrets)
                    a = rng.randrange(len(s))
                    parts.append(s[a:a + rng.randint(3, len(s))])
                elif roll < 0.55:  # a Kafka Uuid-shaped token around part of a secret
                    s = rng.choice(secrets[:-1])
                    parts.append(" " + (s[:10] + "".join(rng.choices(string.ascii_letters, k=11)))[:21] + "A ")
                elif roll < 0.6:  # a token whose blanks complete the spaced secret's piece
                    parts.append("Zk#" + "".join(rng.choices(string.ascii_letters, k=21)) + "A ")
                else:
                    parts.append("".join(rng.choices(alphabet, k=rng.randint(0, 30))))
            text = "".join(parts)
            plain = secrets_sweep._without_kafka_ids(text, secrets_sweep._secrets())
            expected = [(i, i + length, owner[plain[i:i + length]]) for i in range(len(plain) - length + 1)
                        if plain[i:i + length] in owner and not secrets_sweep._in_kafkactl_text(plain[i:i + length])]
            expected += [(i, i + len(s), label) for s, label in whole.items()
                         for i in range(len(plain)) if plain.startswith(s, i)]
            got = [sp for sp in secrets_sweep._spans(text, length) if sp[2] != "a JAAS string with its password"]
            assert sorted(got) == sorted(expected), repr(text)
            found_any += bool(expected)
        assert found_any > 50  # the texts did hold pieces
