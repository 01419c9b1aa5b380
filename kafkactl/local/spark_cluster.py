"""A Spark standalone cluster on this machine, for trying `--spark-master` on something real: one master and N
workers, each its own JVM, started from the installed pyspark's own classes (`spark-class` with
org.apache.spark.deploy.master.Master and ...worker.Worker). Each worker has its own work, temporary and HOME
and XDG directories, so its executors see no contexts file, key store or kafkactl state of this user's: they
connect only with what the driver delivers for the job (kafkactl/desired/delivery.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kafkactl.errors import KafkactlError, UsageError
from kafkactl.local.process import HOST, free_port, pid_alive, stop
from kafkactl.local.sandbox import state_home

MAX_WORKERS = 8
DAEMON_HEAP = "256m"  # the master's and the workers' own JVMs; executors get --worker-memory


@dataclass(frozen=True)
class WorkerStatus:
    COLUMNS = ("worker", "running", "pid", "work_dir")
    worker: int
    running: bool
    pid: int | None
    work_dir: str

    def cell(self) -> str:
        return f"worker {self.worker} ({'running' if self.running else 'stopped'})"


@dataclass(frozen=True)
class SparkClusterStatus:
    running: bool
    master_url: str | None
    ui_url: str | None
    state_dir: str
    workers: tuple[WorkerStatus, ...] = field(default_factory=tuple)


def spark_home() -> Path:
    """The installed pyspark's directory: its bin/spark-class and jars are a complete Spark (found without
    importing pyspark, which --help and completion never do)."""
    import importlib.util

    spec = importlib.util.find_spec("pyspark")
    if spec is None or not spec.origin:
        raise KafkactlError("pyspark is not installed: pip install 'kafkactl[spark]'")
    return Path(spec.origin).parent


def check_workers(workers: int, cores: int, memory: str) -> None:
    import re

    if not 1 <= workers <= MAX_WORKERS:
        raise UsageError(f"--workers {workers}: give 1 to {MAX_WORKERS}")
    if not 1 <= cores <= 64:
        raise UsageError(f"--worker-cores {cores}: give 1 to 64")
    if not re.fullmatch(r"[1-9][0-9]{0,5}[mg]", memory):
        raise UsageError(f"--worker-memory {memory!r}: give megabytes or gigabytes, as 512m or 1g")


class SparkCluster:
    def __init__(self, home: Path | None = None) -> None:
        self.home = Path(home) if home else state_home().parent / "spark"
        self.state_file = self.home / "state.json"

    # ------------------------------------------------------------------ state

    def _load(self) -> dict[str, Any] | None:
        try:
            data = json.loads(self.state_file.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError, UnicodeDecodeError):
            raise KafkactlError(f"{self.state_file}: damaged; stop its processes by hand or remove "
                                f"{self.home}") from None
        if not isinstance(data, dict) or not isinstance(data.get("workers"), list):
            raise KafkactlError(f"{self.state_file}: damaged; remove {self.home}")
        return data

    def _ours(self, pid: int | None) -> bool:
        """A pid from the state file that still runs this cluster's JVM (not a recycled pid)."""
        if not pid or not pid_alive(pid):
            return False
        try:
            return f"-Dkafkactl.spark.cluster={self.home}".encode() in Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            return False

    def status(self) -> SparkClusterStatus:
        data = self._load()
        if data is None:
            return SparkClusterStatus(False, None, None, str(self.home))
        workers = tuple(WorkerStatus(i + 1, self._ours(w.get("pid")), w.get("pid"), w.get("work_dir", ""))
                        for i, w in enumerate(data["workers"]))
        running = self._ours(data.get("master_pid"))
        return SparkClusterStatus(running, f"spark://{HOST}:{data['master_port']}",
                                  f"http://{HOST}:{data['ui_port']}", str(self.home), workers)

    # ------------------------------------------------------------------ up / down

    def up(self, workers: int = 2, cores: int = 1, memory: str = "1g", timeout: float = 120.0) -> SparkClusterStatus:
        check_workers(workers, cores, memory)
        current = self.status()
        if current.running:
            if len(current.workers) != workers:
                raise UsageError(f"a Spark cluster with {len(current.workers)} workers runs at {current.master_url}: "
                                 "kafkactl local spark down first")
            self._restart_workers(cores, memory)
            self._wait(workers, timeout)
            return self.status()
        if current.master_url:
            self.down()
        self.home.mkdir(parents=True, exist_ok=True, mode=0o700)
        taken: set[int] = set()
        master_port = free_port(taken)
        taken.add(master_port)
        ui_port = free_port(taken)
        taken.add(ui_port)
        data: dict[str, Any] = {"master_port": master_port, "ui_port": ui_port, "workers": [],
                                "cores": cores, "memory": memory}
        data["master_pid"] = self._spawn("master", ["org.apache.spark.deploy.master.Master", "--host", HOST,
                                                    "--port", str(master_port), "--webui-port", str(ui_port)])
        for i in range(1, workers + 1):
            port = free_port(taken)
            taken.add(port)
            data["workers"].append({"pid": None, "ui_port": port, "work_dir": str(self.home / f"worker-{i}" / "work")})
        self._write(data)
        self._restart_workers(cores, memory)
        self._wait(workers, timeout)
        return self.status()

    def _restart_workers(self, cores: int, memory: str) -> None:
        data = self._load() or {}
        url = f"spark://{HOST}:{data['master_port']}"
        for i, w in enumerate(data["workers"], start=1):
            if self._ours(w.get("pid")):
                continue
            root = self.home / f"worker-{i}"
            for sub in ("work", "tmp", "home", "local"):
                (root / sub).mkdir(parents=True, exist_ok=True, mode=0o700)
            home = root / "home"
            # its own HOME and XDG directories: no contexts file, no ~/.m2, nothing of the operator's
            env = {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), "XDG_STATE_HOME": str(home / ".state"),
                   "XDG_CACHE_HOME": str(home / ".cache"), "XDG_DATA_HOME": str(home / ".data"),
                   "TMPDIR": str(root / "tmp"), "SPARK_LOCAL_DIRS": str(root / "local"),
                   "SPARK_WORKER_DIR": w["work_dir"],
                   # Java ignores TMPDIR: the worker's executors (JVMs it starts, with its environment) would put
                   # their scratch (lz4's native library) in /tmp, left there when an executor is killed
                   "JAVA_TOOL_OPTIONS": f"-Djava.io.tmpdir={root / 'tmp'}"}
            w["pid"] = self._spawn(f"worker-{i}", ["org.apache.spark.deploy.worker.Worker", url, "--host", HOST,
                                                   "--cores", str(cores), "--memory", memory,
                                                   "--work-dir", w["work_dir"], "--webui-port", str(w["ui_port"])],
                                   env)
        self._write(data)

    def _spawn(self, name: str, args: list[str], extra_env: dict[str, str] | None = None) -> int:
        home = spark_home()
        logs = self.home / "logs"
        logs.mkdir(parents=True, exist_ok=True, mode=0o700)
        (self.home / "tmp").mkdir(exist_ok=True, mode=0o700)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("KAFKACTL_", "PYSPARK_SUBMIT", "SPARK_"))}
        env.update({"SPARK_HOME": str(home), "SPARK_LOCAL_IP": HOST, "PYSPARK_PYTHON": sys.executable,
                    "SPARK_DAEMON_MEMORY": DAEMON_HEAP, "SPARK_LOG_DIR": str(logs),
                    # the marker that tells this cluster's JVMs from a recycled pid
                    "SPARK_DAEMON_JAVA_OPTS": f"-Dkafkactl.spark.cluster={self.home} "
                                              f"-Djava.io.tmpdir={self.home / 'tmp'}"})
        env.update(extra_env or {})
        with open(logs / f"{name}.log", "ab") as log:
            proc = subprocess.Popen([str(home / "bin" / "spark-class"), *args], stdin=subprocess.DEVNULL, stdout=log,
                                    stderr=subprocess.STDOUT, env=env, start_new_session=True)
        return proc.pid

    def _write(self, data: dict[str, Any]) -> None:
        from kafkactl.privatefile import write_private

        write_private(self.state_file, json.dumps(data, indent=1))

    def _wait(self, workers: int, timeout: float) -> None:
        """Until the master lists every worker ALIVE (its JSON page), or a JVM died, or `timeout`."""
        import urllib.request

        data = self._load() or {}
        deadline = time.monotonic() + timeout
        alive = 0
        while time.monotonic() < deadline:
            if not pid_alive(data.get("master_pid") or 0):  # (spark-class runs its launcher before the JVM)
                raise KafkactlError(f"the Spark master stopped; see {self.home / 'logs' / 'master.log'}")
            try:
                with urllib.request.urlopen(f"http://{HOST}:{data['ui_port']}/json/", timeout=2) as r:
                    alive = int(json.loads(r.read()).get("aliveworkers", 0))
            except (OSError, ValueError):
                alive = 0
            if alive >= workers:
                return
            time.sleep(0.5)
        raise KafkactlError(f"{alive} of {workers} Spark workers registered within {timeout:g} s; see "
                            f"{self.home / 'logs'}")

    def down(self, purge: bool = False) -> SparkClusterStatus:
        data = self._load()
        if data is not None:
            pids = [p for p in [data.get("master_pid"), *[w.get("pid") for w in data["workers"]]] if self._ours(p)]
            stop(pids, timeout=15)
            self.state_file.unlink(missing_ok=True)
        if purge:
            import shutil

            shutil.rmtree(self.home, ignore_errors=True)
        return SparkClusterStatus(False, None, None, str(self.home))
