"""Connection settings for Spark executors, delivered by the driver for the duration of a job.

Executors on a real Spark cluster run on machines without the operator's contexts file, key stores or PEM files,
so the driver resolves each cluster once (contexts, -b, --command-config, JKS/PKCS12 stores) and hands the
executors a `Delivery`: the resolved settings with the certificate material inlined. It travels only inside the
job's tasks (Spark's own task channel, held in memory: protect that channel on a shared cluster with
spark.authenticate and spark.network.crypto.enabled), never in Spark's configuration, environment or files, so
nothing of it reaches the Spark UI, the event log, worker logs or work directories. On the executor, the PEM
material goes to 0600 files in a 0700 directory for as long as the task's clients live, then is removed.

Kerberos: the keytab never leaves the driver. The driver logs in (gateway/kerberos.py) and delivers its ticket
cache, whose tickets expire (a day in most realms), and the realm's krb5.conf; executors use that cache as a
`useTicketCache=true` login would.

`Secret` refuses to be pickled by accident; a Delivery is the one deliberate exception and says so.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kafkactl.profiles import Profile
from kafkactl.redact import MASK, Secret

if TYPE_CHECKING:
    from kafkactl.gateway import Gateway

_SECRETS = ("password", "ssl_key_password")
_FILES = ("ssl_cafile", "ssl_certfile", "ssl_keyfile")


@dataclass(frozen=True)
class Delivery:
    """One cluster's resolved connection, made portable: secrets revealed, file paths replaced by their bytes."""

    values: tuple[tuple[str, Any], ...]
    material: tuple[tuple[str, bytes], ...]
    driver: int = 0  # the driver's pid: its task directories are named for it, and removed by it when it ends

    def __repr__(self) -> str:  # a failing task's message must never show what it carries
        return f"Delivery({MASK})"

    __str__ = __repr__

    def __reduce__(self) -> Any:
        """Pickled (into a Spark task) with its contents masked by a keystream from a random pad carried beside
        them: a log that dumps the task's bytes (Spark Connect's server logs plans it sends on) shows no password
        or key in clear. Whoever reads the whole task can still unmask it: Spark's RPC must be protected on a
        shared cluster (spark.authenticate, spark.network.crypto.enabled)."""
        import pickle
        import secrets

        pad = secrets.token_bytes(32)
        return _unmasked, (_xor(pickle.dumps((self.values, self.material)), pad), pad, self.driver)


def _xor(data: bytes, pad: bytes) -> bytes:
    import hashlib

    stream = hashlib.shake_256(pad).digest(len(data))
    return bytes(a ^ b for a, b in zip(data, stream))


def _unmasked(blob: bytes, pad: bytes, driver: int) -> Delivery:
    import pickle

    values, material = pickle.loads(_xor(blob, pad))  # noqa: S301 (kafkactl's own bytes, made just above)
    return Delivery(values, material, driver)


def deliver(profile: Profile) -> Delivery:
    """On the driver: everything an executor needs to connect as this profile does."""
    values: list[tuple[str, Any]] = []
    material: list[tuple[str, bytes]] = []
    for f in fields(Profile):
        value = getattr(profile, f.name)
        if f.name == "selection":
            continue
        if f.name == "kerberos" and value is not None:
            values.append(("kerberos", _kerberos_delivery(profile, material)))
            continue
        if f.name == "oauth" and value is not None:  # its client secret revealed, its CA bundle inlined
            values.append(("oauth", {**{o.name: getattr(value, o.name) for o in fields(value)},
                                     "client_secret": value.client_secret.reveal(), "cafile": None}))
            if value.cafile:
                material.append(("oauth_cafile", Path(value.cafile).read_bytes()))
            continue
        if f.name in _SECRETS and value is not None:
            value = value.reveal()
        if f.name in _FILES and value:
            material.append((f.name, Path(value).read_bytes()))
            continue
        values.append((f.name, value))
    return Delivery(tuple(values), tuple(material), os.getpid())


def _kerberos_delivery(profile: Profile, material: list[tuple[str, bytes]]) -> dict[str, Any]:
    """The driver's Kerberos login as executors take it: its ticket cache and the realm's krb5.conf, inlined."""
    from kafkactl.gateway.kerberos import ticket_cache_bytes

    k = profile.kerberos
    assert k is not None
    principal, cache = ticket_cache_bytes(k, profile.timeout)
    material.append(("krb5_ccache", cache))
    if k.krb5_conf:  # (a list, as KRB5_CONFIG: the files that exist, in order, which MIT merges the same way)
        from kafkactl.profiles.kerberos import conf_files

        material.append(("krb5_conf", b"\n".join(p.read_bytes() for p in conf_files(k.krb5_conf))))
    return {"service_name": k.service_name, "principal": principal}


TASK_DIR_PREFIX = "kafkactl-task-ssl-"


def remove_task_dirs(driver: int) -> None:
    """The task directories a run's executors made in this machine's temporary directory (local[*]: the same one as
    the driver's) and could not remove themselves: a task cancelled by Ctrl-C, or killed."""
    for d in Path(tempfile.gettempdir()).glob(f"{TASK_DIR_PREFIX}{driver}-*"):
        shutil.rmtree(d, ignore_errors=True)


def _at_rest(material: dict[str, bytes], key_password: str | None) -> tuple[dict[str, bytes], str | None]:
    """The private key encrypted under a passphrase that lives only in this task's memory, and the certificate file
    without the key a combined PEM carries: a task killed before it removes its files leaves nothing usable."""
    import secrets

    from cryptography.hazmat.primitives import serialization

    key = material.get("ssl_keyfile")
    if not key:
        return material, key_password
    loaded = serialization.load_pem_private_key(key, key_password.encode() if key_password else None)
    passphrase = secrets.token_urlsafe(32)
    out = dict(material)
    out["ssl_keyfile"] = loaded.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                              serialization.BestAvailableEncryption(passphrase.encode()))
    cert = material.get("ssl_certfile")
    if cert and b"PRIVATE KEY-----" in cert:
        out["ssl_certfile"] = re.sub(rb"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?-----END [A-Z ]*PRIVATE KEY-----\s*", b"",
                                     cert, flags=re.S)
    return out, passphrase


class ExecutorClients:
    """On an executor: one client per cluster for one task, built from the driver's deliveries; `close` stops the
    clients and removes the certificate files they read."""

    def __init__(self, deliveries: dict[str, Delivery], timeout: float = 60.0, debug: bool = False) -> None:
        self._deliveries = deliveries
        self._timeout = timeout
        self._debug = debug
        self._gateways: dict[str, Gateway] = {}
        self._dirs: list[Path] = []

    def __getitem__(self, cluster: str) -> Gateway:
        if cluster not in self._gateways:
            from kafkactl.gateway import Gateway

            self._gateways[cluster] = Gateway(self._profile(self._deliveries[cluster]), debug=self._debug)
        return self._gateways[cluster]

    def _profile(self, d: Delivery) -> Profile:
        from kafkactl.profiles.kerberos import KerberosSettings
        from kafkactl.profiles.oauth import OAuthSettings

        kw = dict(d.values)
        for name in _SECRETS:
            if kw.get(name) is not None:
                kw[name] = Secret(kw[name])  # registered, so this executor's messages mask it too
        if kw.get("oauth") is not None:
            kw["oauth"] = OAuthSettings(**{**kw["oauth"], "client_secret": Secret(kw["oauth"]["client_secret"])})
        if d.material:
            material, password = _at_rest(dict(d.material), dict(d.values).get("ssl_key_password"))
            if password is not None:
                kw["ssl_key_password"] = Secret(password)
            where = Path(tempfile.mkdtemp(prefix=f"{TASK_DIR_PREFIX}{d.driver}-"))  # 0700
            self._dirs.append(where)
            for name, data in material.items():
                path = where / name
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
                with os.fdopen(fd, "wb") as fh:
                    fh.write(data)
                if name == "oauth_cafile":
                    kw["oauth"] = replace(kw["oauth"], cafile=str(path))
                elif name == "krb5_ccache":
                    kw["kerberos"] = {**kw["kerberos"], "ticket_cache": f"FILE:{path}"}
                elif name == "krb5_conf":
                    kw["kerberos"] = {**kw["kerberos"], "krb5_conf": str(path)}
                else:
                    kw[name] = str(path)
        if kw.get("kerberos") is not None:
            kw["kerberos"] = KerberosSettings(**kw["kerberos"])
        return replace(Profile(**kw), timeout=self._timeout)

    def close(self) -> None:
        try:
            for gw in self._gateways.values():
                gw.close()
        finally:
            self._gateways.clear()
            while self._dirs:
                shutil.rmtree(self._dirs.pop(), ignore_errors=True)

    def __enter__(self) -> ExecutorClients:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
