"""SASL/OAUTHBEARER with OIDC client credentials, against the session sandbox's OAUTHBEARER listener: its brokers
validate tokens with Kafka's own OAuthBearerValidatorCallbackHandler against the sandbox identity provider's JWKS
(`local up --oauth`), and kafkactl fetches its tokens from the token endpoint, as the Java client does.

Tests that need tokens the sandbox's provider would not issue (short-lived, signed by another key, already
expired) run a token endpoint of their own in the test process (kafkactl.local.oidc.TokenServer), signing with the
sandbox's key and issuer when the brokers are to accept its tokens.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest

from kafkactl.local.nodes import OAUTH_AUDIENCE, OAUTH_LOGIN_HANDLER, OAUTH_LOGIN_MODULE
from kafkactl.local.oidc import TokenServer
from tests.conftest import run
from tests.integration.acl_helpers import remove_exactly, snapshot, token


def _state(sandbox) -> dict:
    return json.loads((sandbox.home / "state.json").read_text())


def _properties(path: Path, url: str, client: str, secret: str, extra: str = "") -> Path:
    path.write_text("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=OAUTHBEARER\n"
                    f"sasl.login.callback.handler.class={OAUTH_LOGIN_HANDLER}\n"
                    f"sasl.oauthbearer.token.endpoint.url={url}\n"
                    f'sasl.jaas.config={OAUTH_LOGIN_MODULE} required clientId="{client}" clientSecret="{secret}";\n'
                    + extra)
    path.chmod(0o600)
    return path


def _as(sandbox, props: Path, *args: str):
    bootstrap = ",".join(f"127.0.0.1:{n['oauth_port']}" for n in _state(sandbox)["nodes"] if n.get("oauth_port"))
    return run("-b", bootstrap, "--command-config", str(props), *args)


@pytest.fixture
def same_key_idp(sandbox):
    """A token endpoint of the test's own whose tokens the brokers accept (the sandbox's key and issuer), living 2 s."""
    state = _state(sandbox)
    with TokenServer(dict(state["passwords"]), ttl=2, audience=OAUTH_AUDIENCE,
                     issuer=f"http://127.0.0.1:{state['idp_port']}",
                     key_pem=(sandbox.home / "oidc-key.pem").read_bytes()) as idp:
        yield idp


@pytest.mark.usefixtures("sandbox")
def test_whoami_is_the_subject_of_the_token():
    """The principal the broker derived: User:<sub>, for the super user and for a principal with few ACLs."""
    for user in ("admin", "alice"):
        r = run("--context", f"local-oauth-{user}", "auth", "whoami", "-o", "json")
        assert r.exit_code == 0, r.stderr
        doc = json.loads(r.stdout)
        assert doc["principal"] == f"User:{user}"
    # what the broker answers alice (KIP-430): nothing on the cluster, as for her SCRAM login
    r = run("--context", "local-oauth-alice", "auth", "whoami", "-o", "json")
    assert json.loads(r.stdout)["cluster"]["authorized_operations"]["operations"] == []


def test_acls_topics_configs_and_desired_state_as_oauth_clients(sandbox, tmp_path):
    """Create, list and delete ACLs, a KIP-430 table, configs, and a desired-state plan and apply, each through the
    OAUTHBEARER listener; what the super user grants alice is what alice's token may then do."""
    t = token()
    topic = f"oauth.{t}"
    admin, alice = "local-oauth-admin", "local-oauth-alice"
    gw = sandbox.gateway("admin")
    try:
        assert run("--context", admin, "topics", "create", topic).exit_code == 0
        r = run("--context", alice, "topics", "describe", topic, "--authorized-ops")
        assert r.exit_code != 0  # alice may not describe it yet
        r = run("--context", admin, "acls", "create", "--allow-principal", "User:alice", "--operation", "Describe",
                "--operation", "DescribeConfigs", "--topic", topic)
        assert r.exit_code == 0, r.stderr
        r = run("--context", admin, "acls", "list", "--topic", topic, "-o", "json")
        assert sorted(b["operation"] for b in json.loads(r.stdout)) == ["DESCRIBE", "DESCRIBE_CONFIGS"]
        r = run("--context", alice, "topics", "describe", topic, "--authorized-ops", "-o", "json")
        assert r.exit_code == 0, r.stderr
        ops = json.loads(r.stdout)[0]["authorized_operations"]["operations"]
        assert sorted(ops) == ["DESCRIBE", "DESCRIBE_CONFIGS"]
        # configs: the admin alters, alice reads (DescribeConfigs), alice may not alter
        r = run("--context", admin, "configs", "alter", "--topic", topic, "--add-config", "retention.ms=3600000")
        assert r.exit_code == 0, r.stderr
        r = run("--context", alice, "configs", "describe", "--topic", topic, "-o", "json")
        assert r.exit_code == 0 and "3600000" in r.stdout, r.stderr
        r = run("--context", alice, "configs", "alter", "--topic", topic, "--add-config", "retention.ms=1")
        assert r.exit_code == 3, r.stderr
        # alice cannot create ACLs (exit 3, the broker's denial), the admin deletes them
        r = run("--context", alice, "acls", "create", "--allow-principal", "User:alice", "--operation", "All",
                "--topic", topic)
        assert r.exit_code == 3, r.stderr
        policy = tmp_path / "policy.yaml"
        policy.write_text(f"scope:\n  principalPrefixes: ['User:oa{t}-']\nacls:\n"
                          + "".join(f"  - principal: User:oa{t}-{i}\n    allow:\n      - topic: {topic}\n"
                                    "        operations: [Read]\n" for i in range(20)))
        r = run("--context", admin, "acls", "plan", str(policy), "--detailed-exitcode")
        assert r.exit_code == 2 and "+20 -0" in r.stderr, r.stderr
        assert run("--context", admin, "acls", "apply", str(policy), "--yes").exit_code == 0
        assert len(snapshot(gw, f"oa{t}-")) == 20
        assert run("--context", admin, "acls", "plan", str(policy), "--detailed-exitcode").exit_code == 0
        r = run("--context", admin, "acls", "delete", "--topic", topic, "--yes")
        assert r.exit_code == 0, r.stderr
        assert not snapshot(gw, topic)
    finally:
        remove_exactly(gw, snapshot(gw, topic))
        run("--context", "local-admin", "topics", "delete", topic, "--yes")


@pytest.mark.usefixtures("spark")
def test_a_spark_apply_as_an_oauth_client(sandbox, tmp_path):
    """The executors fetch their own tokens, from the client credentials the driver delivers in memory."""
    t = token()
    gw = sandbox.gateway("admin")
    policy = tmp_path / "policy.yaml"
    policy.write_text(f"scope:\n  principalPrefixes: ['User:os{t}-']\nacls:\n"
                      + "".join(f"  - principal: User:os{t}-{i % 5}\n    allow:\n      - topic: os{t}.t{i}\n"
                                "        operations: [Read]\n" for i in range(40)))
    try:
        r = run("--context", "local-oauth-admin", "acls", "apply", str(policy), "--spark", "--yes")
        assert r.exit_code == 0, r.stderr[-2000:]
        assert len(snapshot(gw, f"os{t}-")) == 40
    finally:
        remove_exactly(gw, snapshot(gw, f"os{t}-"))


def test_a_token_that_expires_during_a_long_apply_is_refreshed(sandbox, same_key_idp, tmp_path):
    """Tokens of 2 s, an apply of several times that: the brokers make every connection re-authenticate when its token
    expires (KIP-368), so the apply completes only if kafkactl fetched new tokens on the way."""
    t = token()
    gw = sandbox.gateway("admin")
    props = _properties(tmp_path / "short.properties", same_key_idp.token_url, "admin",
                        _state(sandbox)["passwords"]["admin"])
    n = 20_000
    policy = tmp_path / "policy.yaml"
    policy.write_text(f"scope:\n  principalPrefixes: ['User:or{t}-']\nacls:\n"
                      + "".join(f"  - principal: User:or{t}-{i % 100}\n    allow:\n      - topic: or{t}.t{i}\n"
                                "        operations: [Read]\n" for i in range(n)))
    try:
        started = time.monotonic()
        r = _as(sandbox, props, "acls", "apply", str(policy), "--yes")
        took = time.monotonic() - started
        assert r.exit_code == 0, r.stderr[-2000:]
        r = _as(sandbox, props, "acls", "plan", str(policy), "--detailed-exitcode")
        assert r.exit_code == 0, r.stderr[-2000:]
        tokens = len(same_key_idp.issued)
        print(f"\n{n:,} ACLs applied and planned in {time.monotonic() - started:.1f} s (the apply {took:.1f} s) with "
              f"tokens of 2 s: {tokens} tokens fetched")
        assert took > 4, f"the apply took {took:.1f} s: its first token did not expire during it (raise n)"
        assert tokens >= 3, f"{tokens} tokens in an apply of {took:.1f} s with tokens of 2 s"
    finally:
        gone = sorted(snapshot(gw, f"or{t}-"), key=str)
        for k in range(0, len(gone), 5_000):
            remove_exactly(gw, gone[k:k + 5_000])


def test_wrong_secret_unreachable_endpoint_and_refused_tokens_are_one_line_each(sandbox, tmp_path):
    """Each failure: one error line naming what is wrong, the documented exit code, no traceback, and nothing of the
    secret or a token in the output (every run's output is swept)."""
    state = _state(sandbox)
    url = f"http://127.0.0.1:{state['idp_port']}/token"
    cases = [("wrong secret", _properties(tmp_path / "wrong.properties", url, "alice", "not-the-secret-x9"), 6,
              r"token endpoint http://127\.0\.0\.1:\d+/token refused client alice: HTTP 401 \(invalid_client\)"),
             ("unreachable endpoint", _properties(tmp_path / "down.properties", "http://127.0.0.1:9/token", "alice",
                                                  state["passwords"]["alice"]), 4,
              r"cannot reach the token endpoint http://127\.0\.0\.1:9/token .*connection refused")]
    with TokenServer(dict(state["passwords"]), audience=OAUTH_AUDIENCE) as stranger:  # another key: not trusted
        cases.append(("a key the brokers do not trust",
                      _properties(tmp_path / "stranger.properties", stranger.token_url, "alice",
                                  state["passwords"]["alice"]), 6, r"refused the OAuth token of client alice"))
        with TokenServer(dict(state["passwords"]), ttl=-120, audience=OAUTH_AUDIENCE,
                         key_pem=(sandbox.home / "oidc-key.pem").read_bytes()) as stale:
            cases.append(("an expired token", _properties(tmp_path / "stale.properties", stale.token_url, "alice",
                                                          state["passwords"]["alice"]), 6,
                          r"a token that expired \d+ s ago \(is this machine's clock right\?\)"))
            for what, props, code, said in cases:
                r = _as(sandbox, props, "topics", "list")
                errors = [line for line in r.stderr.splitlines() if line.startswith("error:")]
                assert r.exit_code == code, f"{what}: {r.exit_code} {r.stderr}"
                assert len(errors) == 1 and re.search(said, errors[0]), f"{what}: {r.stderr}"
                assert "Traceback" not in r.stderr and not r.stdout, what


def test_properties_the_java_client_takes_work_unchanged(sandbox, tmp_path):
    """The older package of the login callback handler, Kafka 4.1's sasl.oauthbearer.client.credentials.* (which
    win over the JAAS options), and librdkafka's spelling."""
    state = _state(sandbox)
    url = f"http://127.0.0.1:{state['idp_port']}/token"
    pw = state["passwords"]["bob"]
    older = _properties(tmp_path / "older.properties", url, "bob", pw).read_text().replace(
        OAUTH_LOGIN_HANDLER, "org.apache.kafka.common.security.oauthbearer.secured.OAuthBearerLoginCallbackHandler")
    variants = {
        "older handler package": older,
        "KIP-1139 properties win": _properties(tmp_path / "x.properties", url, "bob", "a-wrong-jaas-secret-7")
        .read_text() + "sasl.oauthbearer.client.credentials.client.id=bob\n"
        f"sasl.oauthbearer.client.credentials.client.secret={pw}\n",
        "librdkafka spelling": ("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=OAUTHBEARER\n"
                                f"sasl.oauthbearer.method=oidc\nsasl.oauthbearer.token.endpoint.url={url}\n"
                                f"sasl.oauthbearer.client.id=bob\nsasl.oauthbearer.client.secret={pw}\n"),
    }
    for what, text in variants.items():
        props = tmp_path / "v.properties"
        props.write_text(text)
        props.chmod(0o600)
        r = _as(sandbox, props, "auth", "whoami", "-o", "plain")
        assert r.exit_code == 0 and r.stdout.strip() == "User:bob", f"{what}: {r.stderr}"


def test_a_context_added_with_the_oauth_options_connects(sandbox, tmp_path):
    """context add --sasl-mechanism OAUTHBEARER --oauth-*: the client secret from standard input, into the 0600
    contexts file only."""
    from tests.conftest import own_xdg

    state = _state(sandbox)
    bootstrap = ",".join(f"127.0.0.1:{n['oauth_port']}" for n in state["nodes"] if n.get("oauth_port"))
    mp = own_xdg(tmp_path)
    try:
        r = run("context", "add", "mine", "-b", bootstrap, "--security-protocol", "SASL_PLAINTEXT",
                "--sasl-mechanism", "OAUTHBEARER", "--oauth-token-endpoint",
                f"http://127.0.0.1:{state['idp_port']}/token", "--oauth-client-id", "carol",
                "--oauth-client-secret-stdin", input=state["passwords"]["carol"] + "\n")
        assert r.exit_code == 0, r.stderr
        r = run("--context", "mine", "auth", "whoami", "-o", "plain")
        assert r.exit_code == 0 and r.stdout.strip() == "User:carol", r.stderr
        r = run("context", "list", "-o", "json")
        assert [c["user"] for c in json.loads(r.stdout) if c["name"] == "mine"] == ["carol"]
    finally:
        mp.undo()


@pytest.mark.usefixtures("sandbox")
def test_local_env_follows_the_oauth_context():
    """(new-user pass) the exports for the context given: its listener, its properties file, and the JVM flag a
    Kafka 4 kafka-*.sh needs to fetch tokens from the sandbox's endpoint."""
    r = run("--context", "local-oauth-alice", "local", "env", "-o", "json")
    assert r.exit_code == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["variables"]["KAFKACTL_CONTEXT"] == "local-oauth-alice"
    assert "allowed.urls=http://127.0.0.1:" in doc["variables"]["KAFKA_OPTS"]
    assert doc["kafka_sh_arguments"][-1].endswith("client-oauth-alice.properties")
