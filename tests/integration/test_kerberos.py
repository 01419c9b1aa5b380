"""SASL/GSSAPI against the session sandbox's GSSAPI listeners (`local up --kerberos`): a real MIT KDC on localhost
(Debian's krb5kdc), the brokers logging in with their keytab (kafka/localhost@KAFKA.LOCAL) and mapping client
principals with sasl.kerberos.principal.to.local.rules, kafkactl logging in with each user's keytab.

kafkactl runs in a process of the environment scripts/gssapi-client.sh builds (gssapi_python): PyPI's
confluent-kafka has no GSSAPI. Principals a test breaks (revoked, expired, re-keyed) are its own, made in the
sandbox's realm with kadmin.local, so that nothing else sees them.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from kafkactl.exitcodes import ExitCode
from kafkactl.local.kdc import KdcFiles, kadmin
from tests.conftest import run, run_process
from tests.integration.acl_helpers import remove_exactly, snapshot, token

REALM = "KAFKA.LOCAL"
KRB5 = "com.sun.security.auth.module.Krb5LoginModule"


def _state(sandbox) -> dict:
    return json.loads((sandbox.home / "state.json").read_text())


def _files(sandbox) -> KdcFiles:
    return KdcFiles(sandbox.home / "kerberos")


def _bootstrap(sandbox, tls: bool = False) -> str:
    key = "krb_tls_port" if tls else "krb_port"
    return ",".join(f"localhost:{n[key]}" for n in _state(sandbox)["nodes"] if n.get(key))


def _properties(path: Path, keytab: Path, principal: str, krb5_conf: Path, service: str = "kafka",
                extra: str = "") -> Path:
    path.write_text("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=GSSAPI\n"
                    f"sasl.kerberos.service.name={service}\njava.security.krb5.conf={krb5_conf}\n"
                    f'sasl.jaas.config={KRB5} required useKeyTab=true storeKey=true keyTab="{keytab}" '
                    f'principal="{principal}";\n' + extra)
    path.chmod(0o600)
    return path


def _principal(sandbox, tmp_path: Path, name: str) -> Path:
    """A principal of the test's own in the sandbox realm, and its keytab."""
    files = _files(sandbox)
    kadmin(files, f"addprinc -randkey +requires_preauth {name}@{REALM}")
    keytab = tmp_path / f"{name}.keytab"
    kadmin(files, f"ktadd -k {keytab} {name}@{REALM}")
    from tests.secrets_sweep import register_keytabs

    register_keytabs(tmp_path)
    return keytab


def _one_error(r, code: int, said: str, what: str) -> None:
    errors = [line for line in r.stderr.splitlines() if line.startswith("error:")]
    assert r.exit_code == code, f"{what}: {r.exit_code} {r.stderr}"
    assert len(errors) == 1 and re.search(said, errors[0]), f"{what}: {r.stderr}"
    assert "Traceback" not in r.stderr and not r.stdout, f"{what}: {r.stdout} {r.stderr}"


@pytest.mark.usefixtures("sandbox")
def test_whoami_maps_the_kerberos_principal_through_the_brokers_rules(gssapi_python):
    """The super user's keytab is User:admin once the brokers' rules map admin@KAFKA.LOCAL (read from a broker);
    alice may not read the rules (no DescribeConfigs), so her Kerberos name is shown unmapped, and the broker
    answers her KIP-430 bitfield with nothing on the cluster. Both GSSAPI listeners, SASL_PLAINTEXT and SASL_SSL."""
    for context in ("local-kerberos-admin", "local-kerberos-tls-admin"):
        r = run_process("--context", context, "auth", "whoami", "-o", "json", python=gssapi_python)
        assert r.exit_code == 0, r.stderr
        doc = json.loads(r.stdout)
        assert (doc["principal"], doc["kerberos_name"]) == ("User:admin", f"admin@{REALM}")
    r = run_process("--context", "local-kerberos-alice", "auth", "whoami", "-o", "json", python=gssapi_python)
    doc = json.loads(r.stdout)
    assert (doc["principal"], doc["kerberos_name"]) == (None, f"alice@{REALM}")
    assert doc["cluster"]["authorized_operations"]["operations"] == []
    r = run_process("--context", "local-kerberos-admin", "auth", "principal", "--kerberos", f"alice@{REALM}",
                    "-o", "json", python=gssapi_python)
    assert json.loads(r.stdout)["principal"] == "User:alice", r.stderr


def test_acls_topics_configs_and_desired_state_as_kerberos_principals(sandbox, gssapi_python, tmp_path):
    """Create, list and delete ACLs, a KIP-430 table, configs, and a desired-state plan and apply, each through a
    GSSAPI listener; what the super user grants User:alice is what alice's keytab may then do."""
    t = token()
    topic = f"krb.{t}"
    admin, alice, alice_tls = "local-kerberos-admin", "local-kerberos-alice", "local-kerberos-tls-alice"
    gw = sandbox.gateway("admin")

    def as_(context: str, *args: str):
        return run_process("--context", context, *args, python=gssapi_python)

    try:
        assert as_(admin, "topics", "create", topic).exit_code == 0
        assert as_(alice, "topics", "describe", topic, "--authorized-ops").exit_code != 0
        r = as_(admin, "acls", "create", "--allow-principal", "User:alice", "--operation", "Describe",
                "--operation", "DescribeConfigs", "--topic", topic)
        assert r.exit_code == 0, r.stderr
        r = as_(admin, "acls", "list", "--topic", topic, "-o", "json")
        assert sorted(b["operation"] for b in json.loads(r.stdout)) == ["DESCRIBE", "DESCRIBE_CONFIGS"]
        for context in (alice, alice_tls):
            r = as_(context, "topics", "describe", topic, "--authorized-ops", "-o", "json")
            assert r.exit_code == 0, r.stderr
            assert sorted(json.loads(r.stdout)[0]["authorized_operations"]["operations"]) == [
                "DESCRIBE", "DESCRIBE_CONFIGS"]
        r = as_(admin, "configs", "alter", "--topic", topic, "--add-config", "retention.ms=3600000")
        assert r.exit_code == 0, r.stderr
        r = as_(alice, "configs", "describe", "--topic", topic, "-o", "json")
        assert r.exit_code == 0 and "3600000" in r.stdout, r.stderr
        r = as_(alice, "configs", "alter", "--topic", topic, "--add-config", "retention.ms=1")
        assert r.exit_code == ExitCode.NOT_AUTHORIZED, r.stderr
        r = as_(alice, "acls", "create", "--allow-principal", "User:alice", "--operation", "All", "--topic", topic)
        assert r.exit_code == ExitCode.NOT_AUTHORIZED and "Kerberos principal alice@KAFKA.LOCAL" in r.stderr
        policy = tmp_path / "policy.yaml"
        policy.write_text(f"scope:\n  principalPrefixes: ['User:kb{t}-']\nacls:\n"
                          + "".join(f"  - principal: User:kb{t}-{i}\n    allow:\n      - topic: {topic}\n"
                                    "        operations: [Read]\n" for i in range(20)))
        r = as_(admin, "acls", "plan", str(policy), "--detailed-exitcode")
        assert r.exit_code == 2 and "+20 -0" in r.stderr, r.stderr
        assert as_(admin, "acls", "apply", str(policy), "--yes").exit_code == 0
        assert len(snapshot(gw, f"kb{t}-")) == 20
        assert as_(admin, "acls", "plan", str(policy), "--detailed-exitcode").exit_code == 0
        r = as_(admin, "acls", "delete", "--topic", topic, "--yes")
        assert r.exit_code == 0, r.stderr
        assert not snapshot(gw, topic)
    finally:
        remove_exactly(gw, snapshot(gw, topic) | snapshot(gw, f"kb{t}-"))
        run("--context", "local-admin", "topics", "delete", topic, "--yes")


@pytest.mark.usefixtures("spark")
def test_a_spark_apply_as_a_kerberos_principal(sandbox, gssapi_python, tmp_path):
    """The executors connect with the driver's tickets (its ticket cache, delivered in memory), not its keytab."""
    t = token()
    gw = sandbox.gateway("admin")
    policy = tmp_path / "policy.yaml"
    policy.write_text(f"scope:\n  principalPrefixes: ['User:ks{t}-']\nacls:\n"
                      + "".join(f"  - principal: User:ks{t}-{i % 5}\n    allow:\n      - topic: ks{t}.t{i}\n"
                                "        operations: [Read]\n" for i in range(40)))
    try:
        # (the executors' Python is the driver's unless PYSPARK_PYTHON says otherwise: an in-process Spark run of an
        # earlier test set it to this test process's, which has no GSSAPI)
        r = run_process("--context", "local-kerberos-admin", "acls", "apply", str(policy), "--spark", "--yes",
                        python=gssapi_python, timeout=300, env={"PYSPARK_PYTHON": gssapi_python})
        assert r.exit_code == 0, r.stderr[-2000:]
        assert len(snapshot(gw, f"ks{t}-")) == 40
    finally:
        remove_exactly(gw, snapshot(gw, f"ks{t}-"))


def test_a_ticket_cache_from_kinit_is_used_as_the_java_client_uses_it(sandbox, gssapi_python, tmp_path):
    """useTicketCache=true: the ticket an earlier kinit left (KRB5CCNAME); without one, one line says to kinit."""
    files = _files(sandbox)
    cache = f"FILE:{tmp_path / 'ccache'}"
    env = {"KRB5_CONFIG": str(files.krb5_conf), "KRB5CCNAME": cache}
    props = tmp_path / "cache.properties"
    props.write_text("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=GSSAPI\nsasl.kerberos.service.name=kafka\n"
                     f"sasl.jaas.config={KRB5} required useTicketCache=true;\n")
    r = run_process("-b", _bootstrap(sandbox), "--command-config", str(props), "topics", "list", env=env,
                    python=gssapi_python)
    _one_error(r, ExitCode.AUTHENTICATION, r"no valid Kerberos ticket in FILE:.*ccache: run kinit", "no ticket")
    subprocess.run(["kinit", "-k", "-t", str(files.keytab("bob")), f"bob@{REALM}"], env={**os.environ, **env},
                   check=True, capture_output=True, timeout=30)
    r = run_process("-b", _bootstrap(sandbox), "--command-config", str(props), "auth", "whoami", "-o", "json",
                    env=env, python=gssapi_python)
    assert r.exit_code == 0, r.stderr
    assert json.loads(r.stdout)["kerberos_name"] == f"bob@{REALM}"


def test_what_the_kdc_or_the_broker_refuses_is_one_line_each_and_nothing_is_changed(sandbox, gssapi_python,
                                                                                     tmp_path):
    """A revoked principal, an expired one, a keytab whose key was changed since, a clock skew past the realm's
    limit, a wrong service name, an unreachable KDC and a file that is not a keytab: each one error line naming what
    is wrong, the documented exit code, no traceback, and the ACL the command would have created not created."""
    t = token()
    files = _files(sandbox)
    conf = files.krb5_conf
    gw = sandbox.gateway("admin")
    revoked = _principal(sandbox, tmp_path, f"revoked{t}")
    kadmin(files, f"modprinc -allow_tix revoked{t}@{REALM}")
    expired = _principal(sandbox, tmp_path, f"expired{t}")
    kadmin(files, f"modprinc -expire 2020-01-01 expired{t}@{REALM}")
    stale = _principal(sandbox, tmp_path, f"rekeyed{t}")
    kadmin(files, f"ktadd -k {tmp_path / 'new.keytab'} rekeyed{t}@{REALM}")  # a new key: the first keytab's is stale
    skewed = _principal(sandbox, tmp_path, f"skewed{t}")
    # MIT clients correct a skew with the KDC by themselves (kdc_timesync); a site that turns that off, as Java
    # clients behave, meets the KDC's limit
    no_sync = tmp_path / "no-sync.conf"
    no_sync.write_text(conf.read_text().replace("[libdefaults]", "[libdefaults]\n kdc_timesync = 0"))
    closed = tmp_path / "closed.conf"
    closed.write_text(re.sub(r"kdc = 127\.0\.0\.1:\d+", "kdc = 127.0.0.1:9", conf.read_text()))
    garbage = tmp_path / "garbage.keytab"
    garbage.write_bytes(os.urandom(200))
    faketime = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"
    assert Path(faketime).exists(), "Debian's libfaketime (scripts/gssapi-client.sh installs it)"
    bob = files.keytab("bob")
    cases = [
        ("revoked", _properties(tmp_path / "a.properties", revoked, f"revoked{t}", conf), {},
         ExitCode.AUTHENTICATION, r"the KDC refused revoked\w+@KAFKA\.LOCAL: its credentials are revoked"),
        ("expired", _properties(tmp_path / "b.properties", expired, f"expired{t}@{REALM}", conf), {},
         ExitCode.AUTHENTICATION, r"the principal has expired in the realm"),
        ("re-keyed", _properties(tmp_path / "c.properties", stale, f"rekeyed{t}@{REALM}", conf), {},
         ExitCode.AUTHENTICATION, r"the keytab's key is not the principal's current key"),
        ("clock skew", _properties(tmp_path / "d.properties", skewed, f"skewed{t}@{REALM}", no_sync),
         {"LD_PRELOAD": faketime, "FAKETIME": "+15m"}, ExitCode.AUTHENTICATION,
         r"this machine's clock and the KDC's differ by more than the realm allows"),
        ("wrong service name", _properties(tmp_path / "e.properties", bob, f"bob@{REALM}", conf, service="kafka2"),
         {}, ExitCode.AUTHENTICATION,
         r"the KDC knows no service principal kafka2/localhost@KAFKA\.LOCAL for localhost:\d+: check "
         r"sasl\.kerberos\.service\.name \(kafka2\)"),
        ("KDC unreachable", _properties(tmp_path / "f.properties", bob, f"bob@{REALM}", closed), {},
         ExitCode.UNREACHABLE, r"no KDC of KAFKA\.LOCAL answered"),
        ("not a keytab", _properties(tmp_path / "g.properties", garbage, f"bob@{REALM}", conf), {}, ExitCode.USAGE,
         r"keytab .*garbage\.keytab: not a Kerberos keytab"),
    ]
    try:
        for what, props, env, code, said in cases:
            r = run_process("-b", _bootstrap(sandbox), "--command-config", str(props), "acls", "create",
                            "--allow-principal", f"User:kf{t}", "--operation", "Read", "--topic", f"kf{t}", env=env,
                            python=gssapi_python)
            _one_error(r, code, said, what)
        assert not snapshot(gw, f"kf{t}")
    finally:
        for name in ("revoked", "expired", "rekeyed", "skewed"):
            kadmin(files, f"delprinc -force {name}{t}@{REALM}")


def test_the_sandbox_properties_work_for_kafka_acls_sh_and_local_env_points_at_the_realm(sandbox):
    """client-kerberos-admin.properties is what kafka-acls.sh takes (with KAFKA_OPTS naming the realm, as local
    env --context local-kerberos-admin prints it)."""
    r = run("local", "env", "--context", "local-kerberos-alice")
    assert r.exit_code == 0, r.stderr
    conf = str(_files(sandbox).krb5_conf)
    assert f"export KRB5_CONFIG={conf}" in r.stdout
    assert f"export KAFKA_OPTS=-Djava.security.krb5.conf={conf}" in r.stdout
    assert "client-kerberos-alice.properties" in r.stdout and "localhost:" in r.stdout
    from kafkactl.local.assembly import ensure_tools, java_command

    cmd = java_command(ensure_tools(), "org.apache.kafka.tools.AclCommand", "--bootstrap-server", _bootstrap(sandbox),
                       "--command-config", str(sandbox.home / "client-kerberos-admin.properties"), "--list",
                       "--topic", "tests.bystander",
                       extra=(f"-Dlog4j2.configurationFile={sandbox.home / 'log4j2.properties'}",
                              f"-Djava.security.krb5.conf={conf}", "-XX:TieredStopAtLevel=1"))
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0 and "User:bystander" in p.stdout, p.stderr[-2000:]
