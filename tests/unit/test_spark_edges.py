"""Issue 16 adversary pass: what the Spark engine shows of a URL, of an executor's error, and leaves of a key."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from kafkactl.errors import AuthenticationError, NotAuthorizedError, UnreachableError, UsageError


@pytest.mark.parametrize("url,secret", [("sc://bad_host!/;token=SuperSecretTok1", "SuperSecretTok1"),
                                        ("spark://admin:SuperSecretPw1@127.0.0.1:7077x", "SuperSecretPw1"),
                                        ("sc://127.0.0.1:99999/;token=tok-abcdef", "tok-abcdef"),
                                        ("spark://u:pw-123456@127.0.0.1:99999", "pw-123456")])
def test_a_spark_url_is_refused_without_its_token_or_password(url, secret):
    from kafkactl.desired.engine import check_spark_urls

    option = "--spark-remote" if url.startswith("sc") else "--spark-master"
    with pytest.raises(UsageError) as e:
        check_spark_urls(url if option == "--spark-master" else None, url if option == "--spark-remote" else None)
    assert e.value.message.startswith(option) and secret not in e.value.message and "****" in e.value.message


@pytest.mark.parametrize("cls", [AuthenticationError, NotAuthorizedError, UnreachableError])
def test_a_kafkactl_error_raised_in_a_task_is_raised_as_itself(cls):
    from kafkactl.desired.spark import executor_errors

    class PythonException(Exception):  # the shape of pyspark's: the task's traceback in the message
        pass

    task = ("\n  An exception was thrown from the Python worker. Please see the stack trace below.\nTraceback (most "
            "recent call last):\n  File \"/x/kafkactl/desired/spark.py\", line 551, in _read_shards_arrow\n"
            f"kafkactl.errors.{cls.__name__}: the broker said no for User:alice\n")
    with pytest.raises(cls) as e:
        with executor_errors():
            raise PythonException(task)
    assert e.value.message == "the broker said no for User:alice" and e.value.exit_code == cls.exit_code
    with pytest.raises(ValueError):  # anything else stays what it was
        with executor_errors():
            raise ValueError("kafkactl.errors.NoSuchError: x")


def test_an_executors_key_is_encrypted_at_rest_and_the_certificate_file_holds_no_key():
    """A task killed before it removes its files (Ctrl-C, SIGTERM, an executor's death) left the private key in
    the clear, in the certificate file too (a combined PEM). Now the key file is encrypted under a passphrase only
    the task's memory holds, and the certificate file carries the certificate alone."""
    import datetime

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    from kafkactl.desired.delivery import _at_rest

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "t")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(1).not_valid_before(now).not_valid_after(now + datetime.timedelta(days=1))
            .sign(key, hashes.SHA256()))
    key_pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
    cert_pem = cert.public_bytes(serialization.Encoding.PEM)
    out, passphrase = _at_rest({"ssl_keyfile": key_pem, "ssl_certfile": cert_pem + key_pem}, None)
    assert passphrase and b"ENCRYPTED PRIVATE KEY" in out["ssl_keyfile"] and key_pem not in out["ssl_keyfile"]
    assert out["ssl_certfile"].strip() == cert_pem.strip()
    back = serialization.load_pem_private_key(out["ssl_keyfile"], passphrase.encode())
    assert back.private_numbers() == key.private_numbers()
    with pytest.raises((TypeError, ValueError)):
        serialization.load_pem_private_key(out["ssl_keyfile"], None)


def test_a_delivery_pickled_into_a_task_holds_no_secret_in_clear():
    """The fresh-clone run found the sandbox's admin password in the Spark Connect server's log: it logs the plans
    it runs, and a task's bytes held the delivery's password in clear. The pickled delivery is masked now."""
    import pickle

    from pyspark import cloudpickle  # (Spark's own copy: what pickles the tasks)

    from kafkactl.desired.delivery import Delivery

    password, key = "pw-Zq8rT5vLm2Xk9", b"-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n"
    d = Delivery((("password", password), ("username", "alice")), (("ssl_keyfile", key),), 42)
    for dump in (pickle.dumps(d), cloudpickle.dumps(d), cloudpickle.dumps(lambda: d)):
        assert password.encode() not in dump and b"PRIVATE KEY" not in dump and b"MIIEvQ" not in dump
        assert b"Zq8rT5" not in dump
    back = pickle.loads(pickle.dumps(d))
    assert back == d and back.driver == 42


def test_py4j_logs_nothing_on_stderr_once_spark_logs_are_quiet():
    """The fresh-clone run's Ctrl-C test saw 'ERROR:py4j.clientserver:...' tracebacks: py4j's module-level
    logging.exception had installed a root handler, and records from the py4j.* loggers reach it past any filter
    on the root logger. Here a real py4j module logs both ways, in a process of its own."""
    code = textwrap.dedent("""
        import logging
        from kafkactl.desired.spark import quiet_spark_logs
        quiet_spark_logs()
        import py4j.java_gateway as jg, py4j.clientserver as cs
        try:
            raise BrokenPipeError(32, "Broken pipe")
        except BrokenPipeError:
            logging.exception("from the root logger")   # as py4j's java_gateway does
            cs.logger.exception("from py4j.clientserver")
            jg.logger.error("from py4j.java_gateway")
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "Broken pipe" not in proc.stderr and "py4j" not in proc.stderr and "root" not in proc.stderr, proc.stderr
