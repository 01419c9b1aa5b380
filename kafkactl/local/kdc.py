"""The sandbox's Kerberos realm (`local up --kerberos`): an MIT KDC on localhost, its principals and keytabs.

Debian's krb5-kdc, driven directly: kdb5_util makes the database, kadmin.local the principals and keytabs, and
krb5kdc serves the realm in the foreground (the sandbox starts and stops it like its nodes). A self-contained-KDC
helper for tests (k5test) keeps its realm only while its Python object lives; the sandbox's outlives kafkactl.

Principals: kafka/localhost (the brokers' service principal, advertised on the Kerberos listeners as `localhost`,
the name every client builds its service principal from) and one per sandbox user, <user>@KAFKA.LOCAL, each with
a 0600 keytab. Nothing secret is on any command line: the database's master password goes on kdb5_util's stdin,
the principals get random keys.
"""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
from collections.abc import Iterable
from pathlib import Path

from kafkactl.errors import SandboxError
from kafkactl.local.process import HOST

REALM = "KAFKA.LOCAL"
SERVICE_NAME = "kafka"
SERVICE_HOST = "localhost"  # the brokers' Kerberos listeners advertise this name (their principal's host part)
SERVICE_PRINCIPAL = f"{SERVICE_NAME}/{SERVICE_HOST}@{REALM}"
# the brokers' sasl.kerberos.principal.to.local.rules: a user of the realm is its first component (User:alice)
MAPPING_RULES = r"RULE:[1:$1@$0](.*@KAFKA\.LOCAL)s/@.*//,DEFAULT"
TOOLS = ("krb5kdc", "kdb5_util", "kadmin.local", "kinit")
PACKAGES = "krb5-kdc krb5-admin-server krb5-user"
_SBIN = ("/usr/sbin", "/usr/local/sbin", "/sbin")


def tool(name: str) -> str:
    """The path of one MIT Kerberos program (the admin ones live in sbin, which a user's PATH may lack)."""
    found = shutil.which(name) or shutil.which(name, path=os.pathsep.join(_SBIN))
    if not found:
        raise SandboxError(f"local up --kerberos needs MIT Kerberos's {name}: install Debian's {PACKAGES} "
                           "(apt-get install " + PACKAGES + ")")
    return found


class KdcFiles:
    """Where the realm lives: <sandbox>/kerberos."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    @property
    def krb5_conf(self) -> Path:
        return self.directory / "krb5.conf"

    @property
    def kdc_conf(self) -> Path:
        return self.directory / "kdc.conf"

    @property
    def database(self) -> Path:
        return self.directory / "principal"

    @property
    def log(self) -> Path:
        return self.directory / "kdc.log"

    def keytab(self, name: str) -> Path:
        """A user's keytab, or the brokers' (name `kafka`)."""
        return self.directory / f"{name}.keytab"

    def env(self) -> dict[str, str]:
        return {**os.environ, "KRB5_CONFIG": str(self.krb5_conf), "KRB5_KDC_PROFILE": str(self.kdc_conf)}

    def complete(self, users: Iterable[str]) -> bool:
        return self.database.exists() and all(self.keytab(u).exists() for u in (SERVICE_NAME, *users))


def render_krb5_conf(port: int) -> str:
    """The clients' (and brokers') view of the realm: its KDC over TCP, no DNS, host names taken as written."""
    return "\n".join([
        "# written by kafkactl local up --kerberos: the sandbox's realm (KRB5_CONFIG, -Djava.security.krb5.conf)",
        "[libdefaults]",
        f" default_realm = {REALM}",
        " dns_lookup_kdc = false",
        " dns_lookup_realm = false",
        " rdns = false",
        " dns_canonicalize_hostname = false",
        " udp_preference_limit = 1",
        " ticket_lifetime = 24h",
        " forwardable = true",
        "[realms]",
        f" {REALM} = {{",
        f"  kdc = {HOST}:{port}",
        " }",
        "[domain_realm]",
        f" {SERVICE_HOST} = {REALM}",
        "",
    ])


def render_kdc_conf(files: KdcFiles, port: int) -> str:
    return "\n".join([
        "# written by kafkactl local up --kerberos",
        "[kdcdefaults]",
        f" kdc_listen = {HOST}:{port}",
        f" kdc_tcp_listen = {HOST}:{port}",
        "[realms]",
        f" {REALM} = {{",
        f"  database_name = {files.database}",
        f"  key_stash_file = {files.directory / 'stash'}",
        f"  acl_file = {files.directory / 'kadm5.acl'}",
        "  supported_enctypes = aes256-cts-hmac-sha1-96:normal aes128-cts-hmac-sha1-96:normal",
        "  max_life = 1d",
        "  max_renewable_life = 7d",
        " }",
        "[logging]",
        f" kdc = FILE:{files.log}",
        "",
    ])


def write_configs(files: KdcFiles, port: int) -> None:
    from kafkactl.privatefile import write_private

    files.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    write_private(files.krb5_conf, render_krb5_conf(port))
    write_private(files.kdc_conf, render_kdc_conf(files, port))


def kadmin(files: KdcFiles, query: str) -> str:
    """One kadmin.local query on the realm's database (no KDC needed); its error, said, on failure."""
    proc = subprocess.run([tool("kadmin.local"), "-r", REALM, "-q", query], env=files.env(), capture_output=True,
                          text=True, timeout=30, stdin=subprocess.DEVNULL)
    said = [ln for ln in (proc.stdout + proc.stderr).splitlines()
            if ln.strip() and not ln.startswith(("Authenticating as", "kadmin.local:"))]
    if proc.returncode != 0 or any("kadmin.local:" in ln or "error" in ln.lower() for ln in said):
        raise SandboxError(f"kadmin.local {query.split()[0]} failed: {'; '.join(said)[:300]}")
    return proc.stdout


def make_realm(files: KdcFiles, port: int, users: Iterable[str]) -> None:
    """A new database for the realm, the brokers' service principal and each user's, each with a keytab (any
    there are replaced)."""
    users = tuple(users)
    for stale in files.directory.glob("principal*"):
        stale.unlink()
    for name in (SERVICE_NAME, *users):
        files.keytab(name).unlink(missing_ok=True)
    write_configs(files, port)
    master = secrets.token_urlsafe(24)  # on stdin, twice (it asks again to verify); the stash file keeps it
    proc = subprocess.run([tool("kdb5_util"), "create", "-s", "-r", REALM], env=files.env(), capture_output=True,
                          text=True, input=f"{master}\n{master}\n", timeout=60)
    if proc.returncode != 0:
        raise SandboxError(f"kdb5_util create failed: {proc.stderr.strip()[-300:]}")
    for principal, name in ((SERVICE_PRINCIPAL, SERVICE_NAME), *((f"{u}@{REALM}", u) for u in users)):
        kadmin(files, f"addprinc -randkey +requires_preauth {principal}")
        kadmin(files, f"ktadd -k {files.keytab(name)} {principal}")
        os.chmod(files.keytab(name), 0o600)


def kdc_command() -> list[str]:
    """krb5kdc in the foreground, serving the realm of KRB5_KDC_PROFILE."""
    return [tool("krb5kdc"), "-n", "-r", REALM]


def jaas(keytab: Path, principal: str) -> str:
    """A Krb5LoginModule entry for a keytab."""
    return (f'com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true storeKey=true keyTab="{keytab}" '
            f'principal="{principal}";')
