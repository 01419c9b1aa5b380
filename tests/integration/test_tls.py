"""TLS and certificate identities (issue 15): the session sandbox runs with --tls, so every broker also has a
SASL_SSL listener (password over TLS) and an SSL listener that requires a client certificate (mTLS), with
`ssl.principal.mapping.rules` mapping a sandbox user's DN to its short name and leaving any other DN whole.

Everything here is asked of the broker as the principal concerned, over the listener concerned: local-tls-<user>
(SASL_SSL) and local-mtls-<identity> (a certificate). Java key stores in --command-config are made by keytool.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from kafkactl.local.tls import APP_PRINCIPAL
from tests.conftest import run, run_process
from tests.integration.acl_helpers import token
from tests.secrets_sweep import new_secret

pytestmark = pytest.mark.usefixtures("tls_sandbox")


def ok(r):
    assert r.exit_code == 0, r.output[-3000:]
    return r


def as_ctx(context: str, *args: str):
    return run("--context", context, *args)


def visible_topics(context: str) -> set[str]:
    r = ok(as_ctx(context, "-o", "json", "topics", "list"))
    return {t["name"] for t in json.loads(r.stdout or "[]")}


def cluster_ops(context: str) -> set[str]:
    """What the broker says this context's principal may do on the cluster (KIP-430)."""
    seen = json.loads(ok(as_ctx(context, "-o", "json", "auth", "whoami")).stdout)
    return set(seen["cluster"]["authorized_operations"]["operations"])


@pytest.fixture(scope="module")
def topic(sandbox):  # noqa: ARG001 (the fixture starts the broker)
    name = f"tls.{token()}"
    ok(as_ctx("local-mtls-admin", "topics", "create", name))
    yield name
    as_ctx("local-admin", "topics", "delete", name, "--yes")


def test_sandbox_has_both_tls_listeners_and_their_contexts(sandbox):
    status = json.loads(ok(run("-o", "json", "local", "status")).stdout)
    contexts = set(status["contexts"])
    assert {"local-tls-admin", "local-tls-carol", "local-mtls-admin", "local-mtls-alice", "local-mtls-app"} <= contexts
    listed = {c["name"]: c for c in json.loads(ok(run("-o", "json", "context", "list")).stdout)}
    assert listed["local-tls-alice"]["bootstrap_servers"] != listed["local-alice"]["bootstrap_servers"]
    assert listed["local-mtls-alice"]["bootstrap_servers"] not in (listed["local-tls-alice"]["bootstrap_servers"],
                                                                   listed["local-alice"]["bootstrap_servers"])
    # the certificate files hold keys: private to the operator
    tls_dir = sandbox.home / "tls"
    assert oct(tls_dir.stat().st_mode & 0o777) == "0o700"
    for f in tls_dir.iterdir():
        assert f.stat().st_mode & 0o077 == 0, f


@pytest.mark.parametrize("context", ["local-tls-admin", "local-mtls-admin"])
@pytest.mark.usefixtures("sandbox")
def test_the_super_user_is_recognised_over_each_tls_listener(context):
    # admin over mTLS is User:admin only through the mapping rule (its DN is CN=admin,OU=sandbox,O=kafkactl)
    assert {"DESCRIBE", "ALTER", "CLUSTER_ACTION", "IDEMPOTENT_WRITE"} <= cluster_ops(context)


@pytest.mark.parametrize("context", ["local-tls-carol", "local-mtls-carol", "local-mtls-app"])
@pytest.mark.usefixtures("sandbox")
def test_others_get_nothing_without_acls(context):
    assert cluster_ops(context) == set()


@pytest.mark.parametrize("admin, reader", [("local-tls-admin", "local-mtls-alice"),
                                           ("local-mtls-admin", "local-tls-alice")])
@pytest.mark.usefixtures("sandbox")
def test_acl_create_list_check_delete_over_tls(topic, admin, reader):
    """An ACL made over one TLS listener governs the principal over the other: alice by password and alice by
    certificate are the same User:alice."""
    assert topic not in visible_topics(reader)
    ok(as_ctx(admin, "acls", "create", "--allow-principal", "User:alice", "--operation", "Describe",
              "--topic", topic))
    listed = json.loads(ok(as_ctx(admin, "-o", "json", "acls", "list", "--topic", topic)).stdout)
    assert [(b["principal"], b["operation"]) for b in listed] == [("User:alice", "DESCRIBE")]
    assert json.loads(ok(as_ctx(admin, "-o", "json", "acls", "check", "--principal", "User:alice", "--operation",
                                "Describe", "--topic", topic)).stdout)["decision"] == "ALLOWED"
    assert topic in visible_topics(reader)
    ok(as_ctx(admin, "acls", "delete", "--allow-principal", "User:alice", "--operation", "Describe",
              "--topic", topic, "--yes"))
    assert topic not in visible_topics(reader)


@pytest.mark.usefixtures("sandbox")
def test_a_certificate_dn_the_rule_leaves_whole_is_the_principal(topic):
    """The `app` certificate's DN (a comma inside a value, spaces, a non-ASCII letter) is not mapped: the broker
    authorizes the DN as Kafka writes it (RFC 2253), and kafkactl's name for it is the same string."""
    assert topic not in visible_topics("local-mtls-app")
    ok(as_ctx("local-mtls-admin", "acls", "create", "--allow-principal", APP_PRINCIPAL, "--operation", "Describe",
              "--topic", topic))
    try:
        assert topic in visible_topics("local-mtls-app")
        who = json.loads(ok(as_ctx("local-tls-admin", "-o", "json", "acls", "who-can", "--operation", "Describe",
                                   "--topic", topic)).stdout)
        assert APP_PRINCIPAL in {row["principal"] for row in who}
        assert json.loads(ok(as_ctx("local-tls-admin", "-o", "json", "acls", "check", "--principal", APP_PRINCIPAL,
                                    "--operation", "Describe", "--topic", topic)).stdout)["decision"] == "ALLOWED"
    finally:
        ok(as_ctx("local-mtls-admin", "acls", "delete", "--allow-principal", APP_PRINCIPAL, "--operation", "Describe",
                  "--topic", topic, "--yes"))
    assert topic not in visible_topics("local-mtls-app")


@pytest.mark.parametrize("writer, reader", [("local-mtls-admin", "local-tls-admin"),
                                            ("local-tls-admin", "local-mtls-admin")])
@pytest.mark.usefixtures("sandbox")
def test_configs_over_tls(topic, writer, reader):
    value = str(3_600_000 + len(writer))
    ok(as_ctx(writer, "configs", "alter", "--topic", topic, "--add-config", f"retention.ms={value}"))
    described = json.loads(ok(as_ctx(reader, "-o", "json", "configs", "describe", "--topic", topic)).stdout)
    rows = described if isinstance(described, list) else described.get("configs", [])
    assert any(r.get("name") == "retention.ms" and r.get("value") == value for r in rows), described


@pytest.mark.usefixtures("sandbox")
def test_desired_state_plan_apply_over_tls(topic, tmp_path):
    t = token()
    doc = tmp_path / "state.yaml"
    doc.write_text(
        "scope:\n"
        f"  principals: ['{APP_PRINCIPAL}', 'User:{t}-svc']\n"
        "acls:\n"
        f"  - principal: '{APP_PRINCIPAL}'\n"
        f"    allow:\n      - topic: '{topic}'\n        operations: [Describe, Read]\n"
        f"  - principal: 'User:{t}-svc'\n"
        f"    allow:\n      - topic: '{topic}'\n        operations: [Write]\n", encoding="utf-8")
    r = run("--context", "local-mtls-admin", "acls", "plan", str(doc), "--detailed-exitcode")
    assert r.exit_code == 2, r.output  # changes present
    ok(run("--context", "local-mtls-admin", "acls", "apply", str(doc), "--yes"))
    try:
        assert topic in visible_topics("local-mtls-app")
        r = run("--context", "local-tls-admin", "acls", "plan", str(doc), "--detailed-exitcode")
        assert r.exit_code == 0, r.output  # the other listener sees exactly the state applied
    finally:
        doc.write_text("scope:\n" f"  principals: ['{APP_PRINCIPAL}', 'User:{t}-svc']\n" "acls: []\n",
                       encoding="utf-8")
        ok(run("--context", "local-tls-admin", "acls", "apply", str(doc), "--yes"))
    assert topic not in visible_topics("local-mtls-app")


@pytest.mark.parametrize("identity", ["tls-admin", "mtls-admin"])
def test_the_sandbox_properties_files_work_with_the_java_tools(sandbox, identity):
    """kafka-acls.sh itself (AclCommand from the Maven jars) with the client properties `local up --tls` wrote:
    a PEM truststore, and for mTLS a PEM keystore holding an unencrypted key and its chain."""
    from kafkactl.local.sandbox import Sandbox

    state = Sandbox().load_state()
    bootstrap = state.tls_bootstrap if identity.startswith("tls") else state.mtls_bootstrap
    p = subprocess.run(_acl_command(sandbox, bootstrap, sandbox.home / f"client-{identity}.properties", "--list"),
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    assert "tests.bystander" in p.stdout


def _acl_command(sandbox, bootstrap: str, properties: Path, *args: str) -> list[str]:
    from kafkactl.local.assembly import ensure_tools, java_command

    return java_command(ensure_tools(), "org.apache.kafka.tools.AclCommand", "--bootstrap-server", bootstrap,
                        "--command-config", str(properties), *args,
                        extra=(f"-Dlog4j2.configurationFile={sandbox.home / 'log4j2.properties'}",
                               "-XX:TieredStopAtLevel=1"))


# ------------------------------------------------------------------------------------------ Java key stores


@pytest.fixture(scope="module")
def keystores(sandbox, tmp_path_factory):
    """alice's certificate and the CA in stores made by keytool: JKS (key password differs from the store's) and
    PKCS12, and JKS and PKCS12 truststores."""
    from cryptography import x509
    from cryptography.hazmat.primitives.serialization import BestAvailableEncryption, load_pem_private_key, pkcs12

    keytool = shutil.which("keytool") or str(Path(os.environ.get("JAVA_HOME", "/usr")) / "bin" / "keytool")
    d = tmp_path_factory.mktemp("stores")
    # no piece of them may pass for text: "store-" plus hex matched Hadoop's "...-store-class" keys in an event log
    pw = {k: new_secret(f"the {k} password of a test key store") for k in ("src", "store", "key", "trust")}
    tls = sandbox.home / "tls"
    pem = (tls / "alice.pem").read_bytes()
    certs = x509.load_pem_x509_certificates(pem)
    key = load_pem_private_key(pem, None)
    (d / "src.p12").write_bytes(pkcs12.serialize_key_and_certificates(
        b"alice", key, certs[0], certs[1:], BestAvailableEncryption(pw["src"].encode())))

    def keytool_run(*args: str) -> None:
        p = subprocess.run([keytool, *args, "-noprompt"], capture_output=True, text=True, timeout=60)
        assert p.returncode == 0, p.stdout + p.stderr

    common = ("-importkeystore", "-srckeystore", str(d / "src.p12"), "-srcstoretype", "PKCS12", "-srcstorepass",
              pw["src"])
    keytool_run(*common, "-destkeystore", str(d / "alice.jks"), "-deststoretype", "JKS", "-deststorepass", pw["store"],
                "-destkeypass", pw["key"])
    keytool_run(*common, "-destkeystore", str(d / "alice.p12"), "-deststoretype", "PKCS12",
                "-deststorepass", pw["store"])
    # a second, self-signed key beside alice's (its alias sorts first): Java picks per handshake, kafkactl cannot
    shutil.copy(d / "alice.jks", d / "two-keys.jks")
    keytool_run("-genkeypair", "-alias", "aaa", "-keyalg", "EC", "-dname", "CN=aaa", "-keystore",
                str(d / "two-keys.jks"),
                "-storetype", "JKS", "-storepass", pw["store"], "-keypass", pw["key"])
    for kind in ("JKS", "PKCS12"):
        keytool_run("-importcert", "-file", str(tls / "ca.pem"), "-alias", "sandbox-ca", "-keystore",
                    str(d / f"trust.{kind.lower()}"), "-storetype", kind, "-storepass", pw["trust"])
    return d, pw


def _properties(d: Path, name: str, **props: str) -> Path:
    path = d / f"{name}.properties"
    path.write_text("".join(f"{k}={v}\n" for k, v in props.items()), encoding="utf-8")
    path.chmod(0o600)  # (it holds store passwords: a 0644 one is warned of, issue 29)
    return path


@pytest.mark.parametrize("keystore, truststore", [("JKS", "JKS"), ("PKCS12", "PKCS12"), ("JKS", "PKCS12"),
                                                  ("PKCS12", "JKS")])
@pytest.mark.usefixtures("sandbox")
def test_java_key_stores_work_unchanged_with_command_config(topic, keystores, keystore, truststore, tmp_path):
    """A kafka-*.sh client.properties with JKS/PKCS12 stores: alice by certificate, proved by what the broker
    lets her see; the PEM material kafkactl made from the stores is gone when the process ends."""
    d, pw = keystores
    from kafkactl.local.sandbox import Sandbox

    state = Sandbox().load_state()
    props = {"security.protocol": "SSL",
             "ssl.truststore.location": str(d / f"trust.{truststore.lower()}"), "ssl.truststore.type": truststore,
             "ssl.truststore.password": pw["trust"],
             "ssl.keystore.location": str(d / f"alice.{'jks' if keystore == 'JKS' else 'p12'}"),
             "ssl.keystore.type": keystore, "ssl.keystore.password": pw["store"]}
    if keystore == "JKS":
        props["ssl.key.password"] = pw["key"]
    config = _properties(tmp_path, "client", **props)
    ok(as_ctx("local-admin", "acls", "create", "--allow-principal", "User:alice", "--operation", "Describe",
              "--topic", topic))
    try:
        scratch = tmp_path / "tmp"
        scratch.mkdir()
        r = run_process("-b", state.mtls_bootstrap, "--command-config", str(config), "-o", "json", "topics", "list",
                        env={"TMPDIR": str(scratch)})
        assert r.exit_code == 0, r.output
        assert topic in {t["name"] for t in json.loads(r.stdout)}
        assert list(scratch.iterdir()) == []  # the private PEM files went with the process
    finally:
        ok(as_ctx("local-admin", "acls", "delete", "--allow-principal", "User:alice", "--operation", "Describe",
                  "--topic", topic, "--yes"))


@pytest.mark.usefixtures("sandbox")
def test_wrong_store_passwords_and_bad_stores_are_one_line_errors(keystores, tmp_path):
    d, pw = keystores
    from kafkactl.local.sandbox import Sandbox

    b = Sandbox().load_state().mtls_bootstrap
    base = {"security.protocol": "SSL", "ssl.truststore.location": str(d / "trust.jks"),
            "ssl.truststore.password": pw["trust"]}
    cases = {
        "wrong-store-pw": ({**base, "ssl.keystore.location": str(d / "alice.jks"), "ssl.keystore.password": "nope-nope",
                            "ssl.key.password": pw["key"]}, 2, "ssl.keystore.password is wrong"),
        "wrong-key-pw": ({**base, "ssl.keystore.location": str(d / "alice.jks"), "ssl.keystore.password": pw["store"],
                          "ssl.key.password": "nope-nope"}, 2, "ssl.key.password does not decrypt"),
        "wrong-p12-pw": ({**base, "ssl.keystore.location": str(d / "alice.p12"), "ssl.keystore.type": "PKCS12",
                          "ssl.keystore.password": "nope-nope"}, 2,
                         "cannot be read with the given ssl.keystore.password"),
        "wrong-trust-pw": ({**base, "ssl.truststore.password": "nope-nope"}, 2, "ssl.truststore.password is wrong"),
        "missing": ({**base, "ssl.keystore.location": str(d / "absent.jks"), "ssl.keystore.password": "x"}, 7,
                    "no such file"),
        "garbage": ({**base, "ssl.keystore.location": str(_garbage(tmp_path)), "ssl.keystore.password": "x"}, 2,
                    "neither a JKS, JCEKS, PKCS12 nor PEM store"),
        "device": ({**base, "ssl.truststore.location": "/dev/zero"}, 2, "not a regular file"),
        "trust-is-keystore-type-pem": ({**base, "ssl.truststore.type": "PEM"}, 2, "holds no PEM block"),
        "two-keys": ({**base, "ssl.keystore.location": str(d / "two-keys.jks"), "ssl.keystore.password": pw["store"],
                      "ssl.key.password": pw["key"]}, 2, "the JKS store holds 2 private keys (aaa, alice)"),
    }
    for name, (props, code, words) in cases.items():
        config = _properties(tmp_path, name, **props)
        r = run("-b", b, "--command-config", str(config), "--timeout", "5", "topics", "list")
        assert r.exit_code == code, (name, r.output)
        assert words in r.stderr and len(r.stderr.strip().splitlines()) == 1, (name, r.stderr)
        for secret in pw.values():
            assert secret not in r.output


def _garbage(tmp_path: Path) -> Path:
    path = tmp_path / "garbage.jks"
    path.write_bytes(bytes(range(7, 250)) * 5)
    return path


@pytest.mark.parametrize("props, words", [
    ({"security.protocol": "SSL", "ssl.ca.location": "{ca}"}, "refused the client certificate"),
    ({"security.protocol": "SSL"}, "certificate is not trusted"),
])
def test_tls_handshake_failures_are_authentication_errors_at_once(sandbox, tmp_path, props, words):
    from kafkactl.local.sandbox import Sandbox

    b = Sandbox().load_state().mtls_bootstrap
    config = _properties(tmp_path, "c", **{k: v.format(ca=sandbox.home / "tls" / "ca.pem") for k, v in props.items()})
    r = run("-b", b, "--command-config", str(config), "--timeout", "30", "topics", "list")
    assert r.exit_code == 6, r.output
    assert words in r.stderr and "TLS handshake" in r.stderr


def test_sasl_ssl_wrong_password_is_an_authentication_error(sandbox, tmp_path):
    from kafkactl.local.sandbox import Sandbox

    b = Sandbox().load_state().tls_bootstrap
    config = _properties(tmp_path, "c", **{"security.protocol": "SASL_SSL", "sasl.mechanism": "SCRAM-SHA-512",
                                           "sasl.username": "alice", "sasl.password": "wrong-password-here",
                                           "ssl.ca.location": str(sandbox.home / "tls" / "ca.pem")})
    r = run("-b", b, "--command-config", str(config), "topics", "list")
    assert r.exit_code == 6 and "authentication failed for User:alice" in r.stderr, r.output


@pytest.mark.parametrize("identity", ["alice", "admin", "app"])
def test_auth_principal_maps_a_certificate_as_the_brokers_do(sandbox, identity):
    """The rules come from the cluster (a broker's ssl.principal.mapping.rules); the answer is the principal the
    broker gave the same certificate over mTLS, which whoami's super-user operations and the ACL below show."""
    from kafkactl.local.tls import identity_principal

    pem = sandbox.home / "tls" / f"{identity}.pem"
    r = ok(as_ctx("local-admin", "-o", "json", "auth", "principal", "--cert", str(pem)))
    got = json.loads(r.stdout)
    assert got["principal"] == identity_principal(identity)
    assert got["rules"].startswith("RULE:^CN=") and got["rules_from"].startswith("broker ")
    assert "ssl.principal.mapping.rules from broker" in r.stderr
    # the same certificate over mTLS: the broker's own answer
    mapped = json.loads(ok(as_ctx(f"local-mtls-{identity}", "-o", "json", "auth", "whoami")).stdout)
    assert ("ALTER" in mapped["cluster"]["authorized_operations"]["operations"]) == (identity == "admin")


@pytest.mark.usefixtures("sandbox")
def test_auth_principal_without_describe_configs_says_what_is_needed():
    r = as_ctx("local-alice", "auth", "principal", "--ssl-dn", "CN=alice,OU=sandbox,O=kafkactl")
    assert r.exit_code == 3, r.output
    assert "DescribeConfigs on the cluster (or give --rules)" in r.stderr and "Traceback" not in r.output
    r = ok(as_ctx("local-alice", "auth", "principal", "--ssl-dn", "CN=alice,OU=sandbox,O=kafkactl",
                  "--rules", "RULE:^CN=([^,]+),.*$/$1/L"))
    assert r.stdout.splitlines()[0].split("\t") == ["principal", "User:alice"]


@pytest.mark.usefixtures("sandbox")
def test_acls_check_with_an_ssl_dn_asks_for_the_principal_the_broker_builds(topic):
    """An ACL for User:carol lets the certificate CN=carol,OU=sandbox,O=kafkactl in: check --ssl-dn says so before
    the client connects, and the client really sees the topic over the mTLS listener."""
    dn = "CN=carol,OU=sandbox,O=kafkactl"

    def decision() -> str:
        r = as_ctx("local-admin", "-o", "json", "acls", "check", "--ssl-dn", dn, "--operation", "Describe",
                   "--topic", topic)
        assert r.exit_code in (0, 8) and "--ssl-dn maps to User:carol" in r.stderr, r.output
        return json.loads(r.stdout)["decision"]

    assert decision() == "DENIED" and topic not in visible_topics("local-mtls-carol")
    ok(as_ctx("local-admin", "acls", "create", "--allow-principal", "User:carol", "--operation", "Describe",
              "--topic", topic))
    try:
        assert decision() == "ALLOWED" and topic in visible_topics("local-mtls-carol")
        r = ok(as_ctx("local-admin", "-o", "json", "acls", "explain", "--ssl-dn", dn, "--topic", topic))
        rows = json.loads(r.stdout)
        assert {row["operation"] for row in rows if row["decision"] == "ALLOWED"} == {"DESCRIBE"}, rows
        assert {row["principal"] for row in rows} == {"User:carol"}
        # a DN the rule leaves whole is asked as the whole DN, and nothing matches it
        r = as_ctx("local-admin", "-o", "json", "acls", "check", "--ssl-dn", "CN=carol,OU=elsewhere",
                   "--operation", "Describe", "--topic", topic)
        assert r.exit_code == 8 and json.loads(r.stdout)["decision"] == "DENIED"
        assert "maps to User:CN=carol,OU=elsewhere" in r.stderr
    finally:
        ok(as_ctx("local-admin", "acls", "delete", "--allow-principal", "User:carol", "--operation", "Describe",
                  "--topic", topic, "--yes"))


@pytest.mark.parametrize("args, code, words", [
    (["--ssl-dn", "CN=x", "--rules", "RULE:^CN=(.*$/$1/"], 2, "Unclosed group"),
    (["--ssl-dn", "CN=x", "--rules", "NOPE"], 2, "NOPE"),
    (["--ssl-dn", "CN=x", "--rules", "RULE:^CN=y$/$1/"], 6, "CN=x"),
    (["--kerberos", "a/b@R", "--rules", "RULE:[2:$1@$0](.*)s/x/y/"], 6, "Non-simple name a@R"),
    (["--kerberos", "a/b@R", "--rules", "RULE:[9:$1]"], 6, "No rules apply to a/b@R"),
    (["--kerberos", "a/b@R", "--rules", "RULE:[2:$1"], 2, "Invalid rule: RULE:[2:$1"),
    (["--kerberos", "a/b@R", "--rules", "DEFAULT"], 2, "--default-realm"),
    (["--kerberos", "a/b@R", "--rules", "DEFAULT", "--default-realm", "R"], 0, ""),
    (["--kerberos", "a/b@S", "--rules", "DEFAULT", "--default-realm", "R"], 6, "No rules apply to a/b@S"),
])
@pytest.mark.usefixtures("sandbox")
def test_auth_principal_bad_rules_and_refused_names(args, code, words):
    r = as_ctx("local-alice", "auth", "principal", *args)
    assert r.exit_code == code, r.output
    assert words in r.stderr and "Traceback" not in r.output


@pytest.mark.usefixtures("sandbox")
def test_whoami_over_mtls_names_the_principal_the_mapping_rules_make():
    """The super user may read the brokers' ssl.principal.mapping.rules, so its certificate is mapped as the broker
    maps it; a principal without DescribeConfigs still sees its certificate's subject, never ANONYMOUS."""
    me = json.loads(ok(as_ctx("local-mtls-admin", "-o", "json", "auth", "whoami")).stdout)
    assert me["principal"] == "User:admin" and me["certificate_dn"] == "CN=admin,OU=sandbox,O=kafkactl"
    r = ok(as_ctx("local-mtls-app", "auth", "whoami", "-o", "json"))
    me = json.loads(r.stdout)
    assert me["principal"] is None and me["certificate_dn"] == APP_PRINCIPAL.split(":", 1)[1]
    r = ok(as_ctx("local-mtls-app", "-o", "table", "auth", "whoami"))
    assert "ANONYMOUS" not in r.stdout and "certificate: CN=app one" in r.stdout
    # context list names an mTLS context's user, its certificate, by subject (issue 29)
    rows = {c["name"]: c for c in json.loads(ok(run("-o", "json", "context", "list")).stdout)}
    assert rows["local-mtls-admin"]["certificate"] == "CN=admin,OU=sandbox,O=kafkactl"
    assert rows["local-mtls-app"]["certificate"] == APP_PRINCIPAL.split(":", 1)[1]
    assert rows["local-admin"]["certificate"] is None and rows["local-admin"]["user"] == "admin"


@pytest.mark.parametrize("args, what", [
    (["acls", "list"], "list ACLs"),
    (["configs", "describe", "--broker", "1"], "describe configs"),
])
@pytest.mark.usefixtures("sandbox")
def test_a_refusal_over_mtls_names_the_certificate_not_anonymous(args, what):
    r = as_ctx("local-mtls-carol", *args)
    assert r.exit_code == 3, r.output[-2000:]
    assert "the principal of certificate CN=carol,OU=sandbox,O=kafkactl is not authorized to " + what in r.stderr
    assert "anonymous" not in r.stderr


def _client_pem(path: Path, sandbox, days: tuple[int, int], own_ca: bool = False) -> Path:
    """A client certificate and key in one PEM file, valid from now+days[0] to now+days[1], signed by the sandbox CA
    (or by a CA of its own)."""
    import datetime

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    if own_ca:
        ca_key = ec.generate_private_key(ec.SECP256R1())
        issuer = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "rogue ca")])
    else:
        ca_key = serialization.load_pem_private_key((sandbox.home / "tls" / "ca-key.pem").read_bytes(), None)
        issuer = x509.load_pem_x509_certificate((sandbox.home / "tls" / "ca.pem").read_bytes()).subject
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "dated")]))
            .issuer_name(issuer).public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now + datetime.timedelta(days=days[0]))
            .not_valid_after(now + datetime.timedelta(days=days[1])).sign(ca_key, hashes.SHA256()))
    path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                       serialization.NoEncryption()) + cert.public_bytes(serialization.Encoding.PEM))
    path.chmod(0o600)
    return path


@pytest.mark.parametrize("days, own_ca, words", [
    ((-30, -1), False, "the client certificate CN=dated expired on "),
    ((2, 30), False, "the client certificate CN=dated is not valid before "),
    ((-1, 30), True, "the client certificate CN=dated is issued by CN=rogue ca, a CA the broker's ssl.truststore "
                     "does not hold"),
])
def test_a_refused_client_certificate_says_what_is_wrong_with_it(sandbox, tmp_path, days, own_ca, words):
    """Not "set ssl.keystore.location" (it is set): its dates, or its issuer."""
    from kafkactl.local.sandbox import Sandbox

    pem = _client_pem(tmp_path / "client.pem", sandbox, days, own_ca)
    config = _properties(tmp_path, "c", **{"security.protocol": "SSL",
                                           "ssl.ca.location": str(sandbox.home / "tls" / "ca.pem"),
                                           "ssl.certificate.location": str(pem), "ssl.key.location": str(pem)})
    r = run("-b", Sandbox().load_state().mtls_bootstrap, "--command-config", str(config), "--timeout", "30",
            "topics", "list")
    assert r.exit_code == 6, r.output
    assert "refused the client certificate" in r.stderr and words in r.stderr, r.stderr


@pytest.mark.usefixtures("sandbox")
def test_a_listener_of_another_protocol_is_said_to_hang_up_not_to_be_silent():
    """Issue 29, item 6: a SASL_PLAINTEXT client at the SASL_SSL port was told "no answer within N s", and a SASL_SSL
    client at the plaintext port the same, while the broker answered each connection by closing it."""
    import time

    from kafkactl.local.sandbox import Sandbox

    state = Sandbox().load_state()
    # (issue 31, item 5: each gives up once every address has hung up for a second, not at --timeout)
    for context, address in (("local-admin", state.tls_bootstrap), ("local-tls-admin", state.bootstrap),
                             ("local-mtls-admin", state.bootstrap), ("local-admin", state.mtls_bootstrap),
                             ("local-mtls-admin", state.tls_bootstrap)):
        started = time.monotonic()
        r = run("--context", context, "-b", address, "--timeout", "30", "topics", "list")
        took = time.monotonic() - started
        print(f"{context} at the listener {address}: exit {r.exit_code} in {took:.2f} s")
        assert r.exit_code == 4 and f"{address} closed every connection while trying to list topics" in r.stderr, \
            r.stderr
        assert "no answer" not in r.stderr and "hint: a listener of another security protocol" in r.stderr
        assert took < 15, f"{context} at {address}: waited {took:.1f} s of --timeout 30 for a listener that hangs up"
