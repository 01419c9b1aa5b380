"""Assemble an Apache Kafka broker from Maven Central jars with `mvn` (no tarball, no Docker)."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

from kafkactl.errors import SandboxError

# The versions `local up --kafka-version` assembles, each tested in CI (tests/integration/test_versions.py), and
# the default, the newest. Only the broker's jars are assembled for a sandbox (kafka_2.13: the broker and
# StorageTool); the kafka-*.sh tools (AclCommand, MetadataQuorumCommand: the kafka-tools artifact) come from
# TOOLS_VERSION, since Maven Central lacks kafka-tools 4.4.0 (and connect-api 4.0.1, which 4.0.1's needs).
KAFKA_VERSIONS = ("3.9.1", "4.0.1", "4.3.1", "4.4.0")
KAFKA_VERSION = "4.4.0"
TOOLS_VERSION = "4.3.1"
SCALA_BINARY = "2.13"
# Kafka logs through slf4j; without this binding the broker prints nothing.
LOG4J_VERSION = "2.24.3"

_POM = """<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>dev.kafkactl</groupId>
  <artifactId>kafkactl-sandbox</artifactId>
  <version>{kafka}</version>
  <packaging>pom</packaging>
  <dependencies>
{dependencies}    <dependency>
      <groupId>org.apache.logging.log4j</groupId>
      <artifactId>log4j-slf4j-impl</artifactId>
      <version>{log4j}</version>
    </dependency>
  </dependencies>
</project>
"""


def check_version(version: str) -> str:
    """One of KAFKA_VERSIONS, or the error that lists them (exit 2)."""
    if version not in KAFKA_VERSIONS:
        from kafkactl.errors import UsageError

        raise UsageError(f"--kafka-version {version}: the sandbox runs {', '.join(KAFKA_VERSIONS)}")
    return version


def java_command(libs: Path, main: str, *args: str, heap: str = "256m", extra: tuple[str, ...] = ()) -> list[str]:
    """A java command line over the assembled jars (broker, StorageTool, AclCommand, ...)."""
    java = shutil.which("java")
    if java is None:
        raise SandboxError("java is not on PATH: Kafka needs Java 17 or newer")
    return [java, f"-Xmx{heap}", "-XX:+UseG1GC", "-Djava.net.preferIPv4Stack=true", "-Djava.awt.headless=true",
            *extra, "-cp", f"{libs}/*", main, *args]


def cache_home() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "kafkactl"


def kafka_home(version: str = KAFKA_VERSION, tools: bool = False) -> Path:
    return cache_home() / (f"kafka-tools-{version}" if tools else f"kafka-{version}")


def ensure_kafka(version: str = KAFKA_VERSION) -> Path:
    """The directory of a broker's jars (kafka_2.13, with StorageTool), running mvn only when they are not there."""
    return _assemble(version, f"kafka_{SCALA_BINARY}", kafka_home(version))


def ensure_tools(version: str = TOOLS_VERSION) -> Path:
    """The directory of the kafka-*.sh tools' jars (kafka-tools: AclCommand, MetadataQuorumCommand, ...)."""
    return _assemble(version, "kafka-tools", kafka_home(version, tools=True))


def ensure_jars(name: str, version: str, artifacts: tuple[str, ...]) -> Path:
    """The jars of several org.apache.kafka artifacts of one version and their dependencies (the real Java clients
    some tests run: kafka-streams, connect-runtime, connect-file), in the cache under `name`."""
    return _assemble(version, artifacts, cache_home() / name)


def _assemble(version: str, artifact: str | tuple[str, ...], home: Path) -> Path:
    libs = home / "libs"
    stamp = home / ".complete"
    artifacts = (artifact,) if isinstance(artifact, str) else artifact
    dependencies = "".join("    <dependency>\n      <groupId>org.apache.kafka</groupId>\n"
                           f"      <artifactId>{a}</artifactId>\n"
                           f"      <version>{version}</version>\n    </dependency>\n" for a in artifacts)
    pom = _POM.format(kafka=version, dependencies=dependencies, log4j=LOG4J_VERSION)
    fingerprint = hashlib.sha256(pom.encode()).hexdigest()[:16]
    if stamp.exists() and libs.is_dir() and stamp.read_text().split()[-1:] == [fingerprint]:
        return libs
    mvn = shutil.which("mvn")
    if mvn is None:
        raise SandboxError("mvn is not on PATH: the sandbox assembles Kafka from Maven Central with Maven")
    if shutil.which("java") is None:
        raise SandboxError("java is not on PATH: Kafka needs Java 17 or newer")
    home.mkdir(parents=True, exist_ok=True)
    import fcntl

    # one assembly at a time per directory (threads and processes alike); the others wait, then find it done
    with open(home / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if stamp.exists() and libs.is_dir() and stamp.read_text().split()[-1:] == [fingerprint]:
            return libs
        return _run_mvn(mvn, version, ", ".join(artifacts), home, pom, fingerprint)


def _run_mvn(mvn: str, version: str, artifact: str, home: Path, pom: str, fingerprint: str) -> Path:
    libs, stamp = home / "libs", home / ".complete"
    (home / "pom.xml").write_text(pom)
    tmp = home / "libs.partial"
    shutil.rmtree(tmp, ignore_errors=True)
    cmd = [mvn, "-q", "-B", "-f", str(home / "pom.xml"), "dependency:copy-dependencies",
           f"-DoutputDirectory={tmp}", "-DincludeScope=runtime"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
    if proc.returncode != 0:
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-8:])
        raise SandboxError(f"mvn could not assemble {artifact} {version}:\n{tail}")
    shutil.rmtree(libs, ignore_errors=True)
    tmp.rename(libs)
    stamp.write_text(f"{version} {fingerprint}\n")
    return libs
