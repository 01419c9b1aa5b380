"""The Kerberos login of every client kafkactl builds for a GSSAPI profile (profiles/kerberos.py).

With a keytab: one `kinit` per process, before any client, into a ticket cache of its own (a 0700 directory,
removed at exit): the user's own cache is never touched, and what the KDC refuses is one line now (a revoked or
expired principal, a keytab whose keys are stale, a clock skew, an unknown realm) rather than a failed SASL
handshake later. librdkafka renews the ticket in that cache with the same keytab; kafka-python's GSSAPI (the
`gssapi` package) reads it. With a ticket cache: the cache must hold a valid ticket (`klist -s`); nothing is
renewed. KRB5CCNAME and KRB5_CONFIG are set for this process, which the MIT library reads for every client.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import threading
from pathlib import Path
from typing import Any

from kafkactl.errors import AuthenticationError, ConfigError, KafkactlError, UnreachableError
from kafkactl.profiles.kerberos import KerberosSettings

_lock = threading.Lock()
# settings -> the principal logged in, or why not (per process: a login the KDC refused is not tried again by the
# next client, each waiting out --timeout for a KDC that does not answer)
_logins: dict[KerberosSettings, str | KafkactlError] = {}
_running: set[subprocess.Popen[str]] = set()  # kinit and klist running now: killed if kafkactl is
_armed: list[bool] = []

# what MIT kinit says (after "kinit: "), and what it means for the operator; {p} is the principal
_KINIT_ERRORS: tuple[tuple[str, type[KafkactlError], str], ...] = (
    ("credentials have been revoked", AuthenticationError,
     "the KDC refused {p}: its credentials are revoked (the principal is disabled or locked out in the realm)"),
    ("entry in database has expired", AuthenticationError,
     "the KDC refused {p}: the principal has expired in the realm"),
    ("password has expired", AuthenticationError,
     "the KDC refused {p}: its key (password) has expired; a new keytab is needed"),
    ("clock skew too great", AuthenticationError,
     "the KDC refused {p}: this machine's clock and the KDC's differ by more than the realm allows (clockskew, "
     "5 minutes by default); set the clock right (NTP)"),
    ("preauthentication failed", AuthenticationError,
     "the KDC refused {p}: the keytab's key is not the principal's current key (it was changed since the keytab "
     "was made: export a new keytab)"),
    ("password incorrect", AuthenticationError,
     "the KDC refused {p}: the keytab's key is not the principal's current key (it was changed since the keytab "
     "was made: export a new keytab)"),
    ("not found in kerberos database", AuthenticationError,
     "the KDC does not know {p}: check the principal's name and realm"),
    ("key table entry not found", ConfigError,
     "keytab {keytab} holds no key for {p}: check the principal and the keytab given"),
    ("keytab contains no suitable keys", ConfigError,
     "keytab {keytab} holds no key for {p}: check the principal and the keytab given"),
    ("cannot contact any kdc", UnreachableError,
     "no KDC of {realm} answered: is it running, and is the kdc address of the realm in {conf} right?"),
    ("cannot find kdc for realm", ConfigError,
     "the realm {realm} has no KDC in krb5.conf ({conf}): check [realms], or the principal's realm"),
    ("does not specify default realm", ConfigError,
     "krb5.conf ({conf}) names no default_realm and the principal {p} has none: add @REALM to it"),
)


def tool(name: str) -> str:
    found = shutil.which(name) or shutil.which(name, path="/usr/bin:/usr/local/bin:/usr/sbin")
    if not found:
        raise ConfigError(f"GSSAPI needs MIT Kerberos's {name} (Debian and Ubuntu: apt-get install krb5-user)")
    if "%{" in found or any(c < " " for c in found):  # (librdkafka would expand it in its kinit command)
        raise ConfigError(f"MIT Kerberos's {name} is found at a path kafkactl cannot hand to librdkafka: "
                          f"{found[:200]!r}; put a plain directory first on PATH")
    return found


def login(settings: KerberosSettings, timeout: float) -> str:
    """Log in once per process (a keytab's kinit, or a check of the ticket cache) and return the client's principal
    as the realm names it (alice@EXAMPLE.COM)."""
    with _lock:
        done = _logins.get(settings)
        if isinstance(done, KafkactlError):
            raise done
        if done is not None:
            return done
        try:
            principal = _kinit(settings, timeout) if settings.uses_keytab else _cached(settings, timeout)
        except KafkactlError as exc:
            _logins[settings] = exc
            raise
        _logins[settings] = principal
        return principal


def _run(argv: list[str], env: dict[str, str], timeout: float) -> subprocess.CompletedProcess[str]:
    """One MIT tool, its output kept; killed if it outlives `timeout` or kafkactl ends first (SIGTERM, SIGHUP,
    Ctrl-C: privatefile's cleanup), not left waiting on a silent KDC for its own timeout."""
    from kafkactl.privatefile import remove_also

    if not _armed:
        _armed.append(True)
        remove_also(_kill_running)
    proc = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    _running.add(proc)
    try:
        out, err = proc.communicate(timeout=max(1.0, timeout))
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise
    finally:
        _running.discard(proc)
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


def _kill_running() -> None:
    """kinit and klist of kafkactl's own, and librdkafka's renewal (its `sh -c` kinit, named by this module's
    environment variables, and what that shell started): none outlives kafkactl."""
    for proc in list(_running):
        proc.kill()
    import signal

    parents: dict[int, list[int]] = {}
    shells = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            if ppid == os.getpid() and b"KAFKACTL_KRB5_" in (entry / "cmdline").read_bytes():
                shells.append(int(entry.name))
        except (OSError, ValueError, IndexError):
            continue
        parents.setdefault(ppid, []).append(int(entry.name))
    for shell in shells:
        for pid in [*parents.get(shell, []), shell]:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass


def ticket_cache_bytes(settings: KerberosSettings, timeout: float) -> tuple[str, bytes]:
    """After logging in: the principal, and the bytes of the ticket cache this process's clients use (a FILE:
    cache; a Spark executor is given them, never the keytab)."""
    principal = login(settings, timeout)
    cache = os.environ.get("KRB5CCNAME", "")
    path = cache.removeprefix("FILE:")
    if not path or ":" in cache.removeprefix("FILE:") or not Path(path).is_file():
        raise ConfigError(f"the Kerberos ticket cache {cache or '(the default)'} is not a FILE: cache, which Spark "
                          "executors could be given: set KRB5CCNAME=FILE:<path> and kinit again, or give a keytab")
    return principal, Path(path).read_bytes()


def _env(settings: KerberosSettings) -> dict[str, str]:
    env = dict(os.environ)
    if settings.krb5_conf:
        env["KRB5_CONFIG"] = settings.krb5_conf
    return env


def _private_cache() -> str:
    """A ticket cache of this process's own (FILE:, in a 0700 directory removed at exit, as the CLI exits, and on
    SIGTERM and SIGHUP)."""
    from kafkactl.privatefile import private_tempdir

    return f"FILE:{private_tempdir('kafkactl-krb5-') / 'ccache'}"


def _kinit(settings: KerberosSettings, timeout: float) -> str:
    assert settings.keytab is not None and settings.principal is not None
    env = _env(settings)
    env["KRB5CCNAME"] = cache = _private_cache()
    try:
        # ('--': a principal is never read as an option, such as -c naming another cache)
        proc = _run([tool("kinit"), "-k", "-t", settings.keytab, "--", settings.principal], env, timeout)
    except subprocess.TimeoutExpired:
        raise UnreachableError(f"the KDC did not answer kinit for {settings.principal} within {timeout:g} s (is the "
                               f"kdc address of the realm in {_conf_named(settings)} right?)") from None
    if proc.returncode != 0:
        raise _kinit_error(proc.stderr, settings)
    _adopt(env, cache)
    return _qualified(settings.principal, settings)


def _cached(settings: KerberosSettings, timeout: float) -> str:
    """The ticket cache's principal, when it holds a valid ticket."""
    env = _env(settings)
    if settings.ticket_cache:
        env["KRB5CCNAME"] = settings.ticket_cache
    where = settings.ticket_cache or env.get("KRB5CCNAME") or "the default ticket cache"
    try:
        valid = _run([tool("klist"), "-s"], env, timeout).returncode == 0
        listed = _run([tool("klist")], env, timeout).stdout
    except subprocess.TimeoutExpired:
        raise UnreachableError(f"klist did not answer within {timeout:g} s") from None
    m = re.search(r"^Default principal: (\S+)", listed, re.M)
    if not valid or m is None:
        who = f" for {settings.principal}" if settings.principal else ""
        raise AuthenticationError(f"no valid Kerberos ticket in {where}{who}: run kinit (useTicketCache=true uses "
                                  "the ticket it leaves), or give a keytab")
    principal = m.group(1)
    if settings.principal and _qualified(settings.principal, settings) != principal:
        raise AuthenticationError(f"the ticket in {where} is {principal}'s, not {settings.principal}'s")
    named = re.search(r"^Ticket cache: (\S+)", listed, re.M)  # (the default cache, when KRB5CCNAME is unset)
    _adopt(env, named.group(1) if named else env.get("KRB5CCNAME"))
    return principal


def _adopt(env: dict[str, str], cache: str | None) -> None:
    """This process's clients use this cache and realm configuration (the MIT library reads them per context)."""
    if cache:
        os.environ["KRB5CCNAME"] = cache
    if "KRB5_CONFIG" in env:
        os.environ["KRB5_CONFIG"] = env["KRB5_CONFIG"]


def _qualified(principal: str, settings: KerberosSettings) -> str:
    if "@" in principal:
        return principal
    from kafkactl.profiles.kerberos import default_realm

    realm = default_realm(settings.krb5_conf)
    return f"{principal}@{realm}" if realm else principal


def _conf_named(settings: KerberosSettings) -> str:
    return settings.krb5_conf or os.environ.get("KRB5_CONFIG") or "/etc/krb5.conf"


def _kinit_error(stderr: str, settings: KerberosSettings) -> KafkactlError:
    said = " ".join(stderr.split())
    low = said.lower()
    principal = _qualified(settings.principal, settings) if settings.principal else "the principal"
    realm = principal.rpartition("@")[2] if "@" in principal else "the default realm"
    conf = _conf_named(settings)
    for needle, cls, message in _KINIT_ERRORS:
        if needle in low:
            return cls(message.format(p=principal, realm=realm, conf=conf, keytab=settings.keytab))
    first = said.removeprefix("kinit: ")[:200] or "no reason given"
    return AuthenticationError(f"kinit for {principal} with keytab {settings.keytab} failed: {first}")


def gssapi_failure(message: str, settings: KerberosSettings, principal: str | None, bootstrap: str) -> str:
    """What a failed GSSAPI handshake means, from librdkafka's (Cyrus SASL's, MIT's) words."""
    m = re.match(r"^(?:[A-Za-z_]+://)?(?P<address>[^\s/]+)/\S*: ", message)
    address = m["address"] if m else bootstrap
    who = principal or settings.describe()
    server = re.search(r"Server (\S+) not found in Kerberos database", message)
    if server:
        return (f"the KDC knows no service principal {server[1]} for {address}: check sasl.kerberos.service.name "
                f"({settings.service_name}), and that the address is the host name of the brokers' principals "
                f"({settings.service_name}/<host>@REALM), not an IP address or an alias")
    low = message.lower()
    if "clock skew too great" in low:
        return (f"the broker at {address} refused {who}'s ticket: this machine's clock and the broker's differ by "
                "more than Kerberos allows (5 minutes by default); set the clock right (NTP)")
    if "ticket expired" in low or "no kerberos credentials" in low or "no credentials cache" in low:
        return f"{who} has no valid Kerberos ticket for {address} (expired, or none): log in again (kinit)"
    if "invalid credentials" in low or "authentication failed" in low:
        return (f"the broker at {address} refused {who}'s Kerberos ticket: its keytab may hold another key for its "
                "service principal, or its sasl.kerberos.principal.to.local.rules refuse the name")
    said = re.sub(r"\s*\(after \d+ms in state [^)]*\)\s*$", "", message).split("generic failure: ")[-1]
    return f"the GSSAPI login of {who} to {address} failed: {said[:200]}"


def librdkafka_config(settings: KerberosSettings) -> dict[str, object]:
    """librdkafka's GSSAPI settings: the service name; with a keytab, the kinit its renewal runs into this process's
    cache; with a ticket cache, no renewal.

    librdkafka expands `%{property}` in its kinit command, then hands it to `sh -c`: neither the keytab's path nor the
    principal is written into it (a `%{…}` in one would be expanded after any quoting). The command names them by
    environment variables of this process, which the shell substitutes inside double quotes as they are."""
    import hashlib
    import shlex

    conf: dict[str, object] = {"sasl.mechanism": "GSSAPI", "sasl.kerberos.service.name": settings.service_name}
    if settings.uses_keytab:
        assert settings.keytab is not None and settings.principal is not None
        tag = hashlib.sha256(f"{settings.keytab}\0{settings.principal}".encode()).hexdigest()[:12].upper()
        keytab, principal = f"KAFKACTL_KRB5_KEYTAB_{tag}", f"KAFKACTL_KRB5_PRINCIPAL_{tag}"
        os.environ[keytab], os.environ[principal] = settings.keytab, settings.principal
        if not _armed:  # (its renewal's kinit is killed with kafkactl, as kafkactl's own are)
            from kafkactl.privatefile import remove_also

            _armed.append(True)
            remove_also(_kill_running)
        conf |= {"sasl.kerberos.principal": settings.principal, "sasl.kerberos.keytab": settings.keytab,
                 "sasl.kerberos.kinit.cmd": f'{shlex.quote(tool("kinit"))} -k -t "${keytab}" -- "${principal}" '
                                            ">/dev/null 2>&1"}
    else:
        conf["sasl.kerberos.min.time.before.relogin"] = 0
    return conf


_REMEDY = ("make gssapi (scripts/gssapi-client.sh) builds .venv-gssapi, which has both: run kafkactl there as "
           ".venv-gssapi/bin/python -m kafkactl (docs/connecting.md, \"GSSAPI (Kerberos)\")")
NO_GSSAPI_LIBRDKAFKA = ("this Python environment cannot speak GSSAPI: its confluent-kafka's librdkafka was built "
                        f"without it (the wheels on PyPI are); {_REMEDY}")
NO_GSSAPI_PYTHON = ("this Python environment cannot speak GSSAPI: it lacks the gssapi package kafka-python's GSSAPI "
                    f"needs; {_REMEDY}")
_checked: list[bool] = []


def check_environment() -> None:
    """Both clients of this environment speak GSSAPI (checked once per process, before any login): librdkafka has
    Cyrus SASL (the PyPI wheels do not), and the gssapi package is importable for kafka-python. Whichever lacks,
    the message is the same remedy."""
    if _checked:
        return
    from confluent_kafka import KafkaException
    from confluent_kafka.admin import AdminClient

    try:  # (a client that never connects: refused at once when librdkafka has no GSSAPI)
        probe: dict[str, Any] = {"bootstrap.servers": "localhost:1", "security.protocol": "SASL_PLAINTEXT",
                                 "sasl.mechanism": "GSSAPI", "sasl.kerberos.min.time.before.relogin": 0,
                                 "log_level": 0, "logger": _Silent()}
        AdminClient(probe)
    except KafkaException as exc:
        if "GSSAPI" in str(exc):
            raise ConfigError(NO_GSSAPI_LIBRDKAFKA) from None
        raise
    try:
        import gssapi  # noqa: F401
    except (ImportError, OSError):
        raise ConfigError(NO_GSSAPI_PYTHON) from None
    _checked.append(True)


class _Silent:
    def log(self, *args: object) -> None:
        pass
