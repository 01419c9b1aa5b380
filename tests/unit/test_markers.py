"""Markers of what a test starts (tests/markers.py): set from fixtures, selected by -m, and a test that starts a
broker, a JVM or Spark without its marker fails. The cases run in a pytest session of their own (a subprocess,
with only that plugin), whose tests pretend to start things: `true kafka.Kafka` is a broker's command line to the
plugin and nothing to the machine."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests import markers

ROOT = Path(__file__).resolve().parent.parent.parent

INNER = '''
import subprocess
import sys
import threading

import pytest

from tests.markers import starts


@pytest.fixture
@starts("broker")
def fake_broker():
    return "b"


@pytest.fixture
def through_another(fake_broker):
    return fake_broker


@pytest.fixture(scope="module")
@starts("spark")
def fake_spark():
    return "s"


def test_marked_through_a_fixture_may_start_a_broker(through_another, request):
    assert request.node.get_closest_marker("broker")
    subprocess.run(["true", "kafka.Kafka", "server.properties"], check=True)


def test_unmarked_starts_a_broker():
    subprocess.run(["true", "kafka.Kafka", "server.properties"])


def test_unmarked_runs_local_up_in_a_process():
    subprocess.run([sys.executable, "-m", "kafkactl", "local", "up"])


def test_a_broker_fixture_is_not_several_brokers(fake_broker, tmp_path):
    from kafkactl.local.sandbox import Sandbox

    Sandbox(home=tmp_path / "sb").up(brokers=3, timeout=1)


def test_a_broker_fixture_is_not_another_kafka_version(fake_broker):
    subprocess.run([sys.executable, "-m", "kafkactl", "local", "up", "--kafka-version", "3.9.1"])


def test_unmarked_compiles_java():
    subprocess.run(["true", "javac", "-d", "out"])
    subprocess.run(["javac", "-d", "out", "Clients.java"])


def test_unmarked_runs_java_through_a_shell():
    subprocess.run(["sh", "-c", "FOO=1 exec java -cp x Main"])


def test_unmarked_runs_java_through_env_and_timeout():
    subprocess.run(["env", "A=1", "timeout", "5", "/usr/bin/java", "-cp", "x", "Main"])


def test_unmarked_runs_java_behind_wrapper_options_and_in_a_shell_list():
    subprocess.run(["nice", "-n", "10", "timeout", "-s", "KILL", "10", "env", "-u", "X", "java", "-cp", "x", "M"])
    subprocess.run(["bash", "-c", "cd /tmp && java -cp x Main; true"])


def test_a_version_check_behind_env_starts_nothing():
    subprocess.run(["env", "java", "-version"], capture_output=True)


def test_unmarked_runs_a_shell_string_of_bytes():
    subprocess.run(b"FOO=1 java -cp x Main", shell=True)


def test_a_path_as_the_command_is_read_too():
    from pathlib import Path

    subprocess.run(Path("/bin/true"), check=True)


def test_a_broker_fixture_may_run_local_up_with_one_broker(fake_broker):
    subprocess.run(["true", "-m", "kafkactl", "local", "up", "--brokers", "1"], check=True)


def test_unmarked_starts_spark_in_a_thread():
    t = threading.Thread(target=lambda: subprocess.run(["true", "spark-submit"]))
    t.start()
    t.join()


def test_spark_fixture_may_start_spark_and_a_jvm(fake_spark):
    subprocess.run(["true", "spark-submit"], check=True)
    subprocess.run(["true", "-cp", "x", "org.apache.spark.deploy.master.Master"], check=True)


def test_starts_nothing_but_ordinary_processes():
    subprocess.run(["true", "--version"], check=True)
    subprocess.run(["java", "-version"], capture_output=True)
'''

EXPECTED = {
    "test_marked_through_a_fixture_may_start_a_broker": "PASSED",
    "test_unmarked_starts_a_broker": "FAILED",
    "test_unmarked_runs_local_up_in_a_process": "FAILED",
    "test_a_broker_fixture_is_not_several_brokers": "FAILED",
    "test_a_broker_fixture_is_not_another_kafka_version": "FAILED",
    "test_unmarked_compiles_java": "FAILED",
    "test_unmarked_runs_java_through_a_shell": "FAILED",
    "test_unmarked_runs_java_through_env_and_timeout": "FAILED",
    "test_unmarked_runs_a_shell_string_of_bytes": "FAILED",
    "test_unmarked_runs_java_behind_wrapper_options_and_in_a_shell_list": "FAILED",
    "test_a_version_check_behind_env_starts_nothing": "PASSED",
    "test_a_path_as_the_command_is_read_too": "PASSED",
    "test_a_broker_fixture_may_run_local_up_with_one_broker": "PASSED",
    "test_unmarked_starts_spark_in_a_thread": "FAILED",
    "test_spark_fixture_may_start_spark_and_a_jvm": "PASSED",
    "test_starts_nothing_but_ordinary_processes": "PASSED",
}


def _inner(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    (tmp_path / "test_inner.py").write_text(INNER)
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "tests.markers", "-p", "no:cacheprovider", "-rA",
                           "-o", "addopts=", "--rootdir", str(tmp_path), str(tmp_path / "test_inner.py"), *args],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)


@pytest.fixture(scope="module")
def inner(tmp_path_factory) -> subprocess.CompletedProcess:
    return _inner(tmp_path_factory.mktemp("markers"))


@pytest.mark.parametrize("name,expected", sorted(EXPECTED.items()))
def test_a_test_that_starts_what_it_is_not_marked_for_fails(inner, name, expected):
    assert re.search(rf"^{expected} \S*::{name}\b", inner.stdout, re.M), inner.stdout[-3000:]


def test_the_failure_names_the_kind_and_the_decorator(inner):
    out = inner.stdout
    assert "test_unmarked_starts_a_broker starts `true kafka.Kafka server.properties` but is not marked broker" in out
    assert "is not marked multi_broker" in out and "is not marked versions" in out
    assert "is not marked jvm" in out and "is not marked spark" in out
    assert "@starts('broker', 'multi_broker')" in out and "@pytest.mark.broker on the test" in out
    failures = out.split("short test summary info")[0]  # (the summary repeats it, in full where CI is set)
    assert failures.count("test_unmarked_starts_a_broker starts `true kafka.Kafka server.properties`") == 1


def test_minus_m_selects_by_what_the_fixtures_start(tmp_path):
    r = _inner(tmp_path, "--collect-only", "-q", "-m", markers.STARTS_NOTHING)
    collected = {line.split("::")[1] for line in r.stdout.splitlines() if "::" in line}
    assert collected == {n for n in EXPECTED if n not in ("test_marked_through_a_fixture_may_start_a_broker",
                                                          "test_a_broker_fixture_is_not_several_brokers",
                                                          "test_a_broker_fixture_is_not_another_kafka_version",
                                                          "test_spark_fixture_may_start_spark_and_a_jvm",
                                                          "test_a_broker_fixture_may_run_local_up_with_one_broker")
                         }, r.stdout
    r = _inner(tmp_path, "--collect-only", "-q", "-m", "spark")
    assert [line.split("::")[1] for line in r.stdout.splitlines() if "::" in line] == [
        "test_spark_fixture_may_start_spark_and_a_jvm"], r.stdout


def test_make_check_leaves_out_every_kind():
    """The Makefile's selection is the plugin's: a new kind is left out of `make check` too."""
    line = next(x for x in (ROOT / "Makefile").read_text().splitlines() if x.startswith("STARTS_NOTHING"))
    assert line.split(":=", 1)[1].strip() == markers.STARTS_NOTHING


def test_the_suite_s_fixtures_that_start_things_say_so():
    """The session's sandbox and the modules' own clusters carry their kinds (collected from the real suite)."""
    r = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "-m",
                        "multi_broker", "tests/integration/test_multi_broker.py", "tests/integration/test_acls.py"],
                       capture_output=True, text=True, cwd=ROOT, timeout=120)
    modules = {line.split("::")[0] for line in r.stdout.splitlines() if "::" in line}
    assert modules == {"tests/integration/test_multi_broker.py"}, r.stdout[-2000:]
    r = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "-m",
                        markers.STARTS_NOTHING, "tests/integration/test_acls.py", "tests/integration/test_tls.py"],
                       capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert "::" not in r.stdout, r.stdout[-2000:]


def test_starts_above_the_fixture_decorator_is_refused():
    """Above @pytest.fixture it would mark nothing (the attribute on pytest's wrapper is not read): an error."""
    with pytest.raises(TypeError, match="under @pytest.fixture"):
        @markers.starts("broker")
        @pytest.fixture
        def misplaced():
            return None
