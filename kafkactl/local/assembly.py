"""Assemble an Apache Kafka broker from Maven Central jars with `mvn` (no tarball, no Docker)."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

from kafkactl.errors import SandboxError

# The one place the sandbox's Kafka version is pinned. 4.4.0 is listed on Maven Central
# but incomplete there (kafka-tools-api 4.4.0 is missing), so 4.3.1 is the newest that assembles.
KAFKA_VERSION = "4.3.1"
SCALA_BINARY = "2.13"
# Kafka 4.x logs through slf4j 1.7 + log4j2; without this binding the broker prints nothing.
LOG4J_VERSION = "2.24.3"

_POM = """<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>dev.kafkactl</groupId>
  <artifactId>kafkactl-sandbox</artifactId>
  <version>{kafka}</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>org.apache.kafka</groupId>
      <artifactId>kafka_{scala}</artifactId>
      <version>{kafka}</version>
    </dependency>
    <dependency>
      <groupId>org.apache.kafka</groupId>
      <artifactId>kafka-tools</artifactId>
      <version>{kafka}</version>
    </dependency>
    <dependency>
      <groupId>org.apache.logging.log4j</groupId>
      <artifactId>log4j-slf4j-impl</artifactId>
      <version>{log4j}</version>
    </dependency>
  </dependencies>
</project>
"""


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


def kafka_home(version: str = KAFKA_VERSION) -> Path:
    return cache_home() / f"kafka-{version}"


def ensure_kafka(version: str = KAFKA_VERSION) -> Path:
    """Return the directory of the assembled jars, running mvn only when they are not there yet."""
    home = kafka_home(version)
    libs = home / "libs"
    stamp = home / ".complete"
    pom = _POM.format(kafka=version, scala=SCALA_BINARY, log4j=LOG4J_VERSION)
    fingerprint = hashlib.sha256(pom.encode()).hexdigest()[:16]
    if stamp.exists() and libs.is_dir() and stamp.read_text().split()[-1:] == [fingerprint]:
        return libs
    mvn = shutil.which("mvn")
    if mvn is None:
        raise SandboxError("mvn is not on PATH: the sandbox assembles Kafka from Maven Central with Maven")
    if shutil.which("java") is None:
        raise SandboxError("java is not on PATH: Kafka needs Java 17 or newer")
    home.mkdir(parents=True, exist_ok=True)
    (home / "pom.xml").write_text(pom)
    tmp = home / "libs.partial"
    shutil.rmtree(tmp, ignore_errors=True)
    cmd = [mvn, "-q", "-B", "-f", str(home / "pom.xml"), "dependency:copy-dependencies",
           f"-DoutputDirectory={tmp}", "-DincludeScope=runtime"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
    if proc.returncode != 0:
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-8:])
        raise SandboxError(f"mvn could not assemble Kafka {version}:\n{tail}")
    shutil.rmtree(libs, ignore_errors=True)
    tmp.rename(libs)
    stamp.write_text(f"{version} {fingerprint}\n")
    return libs
