import pickle

import pytest

from kafkactl.redact import MASK, Secret, scrub


def test_secret_never_renders_itself():
    s = Secret("hunter2-very-secret")
    for rendered in (str(s), repr(s), f"{s}", f"{s!r}", "%s" % s,  # noqa: UP031 (%-formatting is one of the renderings)
                     str([s]), str({"k": s})):
        assert "hunter2" not in rendered
    assert s.reveal() == "hunter2-very-secret"


def test_secret_refuses_pickling():
    with pytest.raises(TypeError):
        pickle.dumps(Secret("abcd1234"))


def test_scrub_removes_registered_values_anywhere():
    Secret("zq-registered-77")
    assert scrub("boom: user x with zq-registered-77 failed") == f"boom: user x with {MASK} failed"


@pytest.mark.parametrize("text", [
    'sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="u" '
    'password="never-seen-1";',
    'failed: org.apache.kafka.common.security.scram.ScramLoginModule required username="u" password="never-seen-1";',
    "sasl.password=never-seen-1",
    "ssl.key.password: never-seen-1",
    'password = "never-seen-1"',
])
def test_scrub_masks_jaas_and_password_assignments_never_registered(text):
    out = scrub(text)
    assert "never-seen-1" not in out and MASK in out


def test_scrub_leaves_ordinary_text_alone():
    assert scrub("topic orders.eu has 6 partitions") == "topic orders.eu has 6 partitions"


def test_a_sasl_exchange_in_a_debug_log_is_masked():
    """Issue 16 new-user pass: --debug logged kafka-python's SaslAuthenticate requests and responses whole: SCRAM's
    salt, iterations and client proof allow an offline dictionary attack on the password."""
    from kafkactl.redact import scrub

    lines = ["Sending request 4 SaslAuthenticateRequest(version=2, auth_bytes=b'c=biws,r=9f99d9,p=zYNugx/pBcq=')",
             "Received response 3 SaslAuthenticateResponse(version=2, error_code=0, error_message='', "
             "auth_bytes=b'r=9f99d9e8,s=c2FsdA==,i=4096')",
             'SaslAuthenticateRequest(auth_bytes=b"\\x00admin\\x00pa\\"ss")']
    for line in lines:
        out = scrub(line)
        assert "auth_bytes=****" in out and "p=" not in out and "s=c2F" not in out and "pa" not in out, out


def test_a_raw_frame_in_a_debug_log_is_withheld_and_scram_messages_are_masked_anywhere():
    """Issue 18 new-user pass: kafka-python's `Send:`/`Recv:` lines dumped each raw frame, the SCRAM exchange
    inside them in clear (the decoded lines beside them were masked). A frame shows its length only; and any
    SCRAM message, in whatever text, is masked."""
    import logging

    from kafkactl.cli import root
    from kafkactl.redact import scrub

    frames = [bytearray(b"\x00\x00\x00B\x00$\x00.n,,n=admin,r=35dbb30cde2d4e3f\x00"),
              b"\x00\x00\x00{jr=35dbb30cde2d4e3fod43nojoe,s=MTZ4MDU5czEwa3Zk,i=4096",
              b"\x00\x00c=biws,r=35dbb30cde2d4e3fod43nojoe,p=zYNugx/pBcqAAAAAAA=\x00"]
    saved = {name: (logging.getLogger(name).level, logging.getLogger(name).propagate) for name in ("kafkactl", "kafka")}
    root._enable_debug_logging()
    handler = next(h for h in logging.getLogger("kafka").handlers if h.get_name() == "kafkactl-debug")
    try:
        for frame in frames:
            record = logging.LogRecord("kafka.protocol.parser", logging.DEBUG, __file__, 1, "%s Send: %r",
                                       ("node=1", frame), None)
            out = handler.format(record)
            assert out.endswith(f"Send: <{len(frame)} bytes, not shown>"), out
            text = scrub(repr(bytes(frame)))
            assert not any(piece in text for piece in ("r=35db", "s=MTZ", "p=zYN", "i=4096")), text
    finally:  # (left at DEBUG, the client loggers wrote kafka-python's configuration, password included, into
        for name in ("kafkactl", "kafka"):  # the log capture of every later test of the session)
            logging.getLogger(name).removeHandler(handler)
            logging.getLogger(name).setLevel(saved[name][0])
            logging.getLogger(name).propagate = saved[name][1]
    assert scrub("retention.ms=100,segment.bytes=5,cleanup.policy=compact") == \
        "retention.ms=100,segment.bytes=5,cleanup.policy=compact"
