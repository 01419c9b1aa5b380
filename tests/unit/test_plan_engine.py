"""The desired-state core API without a broker: which engine a request gets, what it refuses before any request,
the one --max-deletes guard, and how a failed or unconfirmed phase stops an apply (both engines share it)."""

from __future__ import annotations

import os

import pytest

from kafkactl.acl.model import AclBinding, AclOperation, PatternType, Permission, ResourceType
from kafkactl.desired.arrow_diff import ARROW_BYTES, bindings_table, diff_tables
from kafkactl.desired.engine import (
    AUTO_MEMORY_SHARE,
    IN_PROCESS_BYTES_PER_BINDING,
    PlanRequest,
    available_memory,
    choose_engine,
    engine_choice,
    make,
    memory_budget,
)
from kafkactl.desired.plan import Guards, diff_cluster
from kafkactl.desired.state import Scope
from kafkactl.errors import UsageError
from kafkactl.exitcodes import ExitCode

GB = 1 << 30
PAIR = IN_PROCESS_BYTES_PER_BINDING
FITS = int(GB * AUTO_MEMORY_SHARE) // PAIR  # the most bindings auto keeps in-process with 1 GB available


@pytest.mark.parametrize("request_kw,size,flat_bytes,engine", [
    ({}, 0, 0, "in-process"),  # auto is the default
    ({}, FITS, 0, "in-process"),
    ({}, FITS, ARROW_BYTES + 1, "arrow"),
    ({}, FITS + 1, 0, "spark"),  # more than half the memory available: Spark
    ({}, FITS + 1, ARROW_BYTES + 1, "spark"),
    ({"spark": "off"}, FITS * 100, 0, "in-process"),  # --no-spark forces, whatever the size
    ({"spark": "off"}, 0, ARROW_BYTES + 1, "arrow"),
    ({"spark": "on"}, 0, 0, "spark"),
    ({"spark": "on"}, 0, ARROW_BYTES + 1, "spark"),
    ({"spark_master": "local[2]"}, 0, 0, "spark"),  # a Spark URL means Spark whatever the mode
    ({"spark_remote": "sc://h:15002"}, 0, 0, "spark"),
    ({"spark": "auto", "spark_master": "local[2]"}, 0, 0, "spark"),
])
def test_one_place_chooses_the_engine(request_kw, size, flat_bytes, engine):
    assert choose_engine(PlanRequest(**request_kw), size, flat_bytes, available=GB) == engine


def test_auto_says_why_and_stays_in_process_when_spark_is_missing(monkeypatch):
    """The reason names the size and the memory; without Java auto keeps in-process and says what is missing."""
    engine, why = engine_choice(PlanRequest(), 10_000, 0, available=24 * GB)
    assert engine == "in-process" \
        and why == "10,000 desired bindings need about 5.9 MiB in-process, 24 GiB available", why
    engine, why = engine_choice(PlanRequest(), 3 * FITS, 0, available=GB)
    assert engine == "spark" and "more than half of the 1.0 GiB available" in why, why
    real_path = os.environ["PATH"]
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.delenv("JAVA_HOME", raising=False)
    engine, why = engine_choice(PlanRequest(), 3 * FITS, 0, available=GB)
    assert engine == "in-process" and why.endswith("Spark needs Java, and none was found (no JAVA_HOME, no java on "
                                                   "PATH)"), why
    # pyspark runs $JAVA_HOME/bin/java when JAVA_HOME is set: java on PATH does not make up for a wrong one
    monkeypatch.setenv("PATH", real_path)
    monkeypatch.setenv("JAVA_HOME", "/nonexistent")
    engine, why = engine_choice(PlanRequest(), 3 * FITS, 0, available=GB)
    assert engine == "in-process" and why.endswith("JAVA_HOME='/nonexistent' has no bin/java"), why
    assert engine_choice(PlanRequest(), 5, 0, available=None)[1] != ""


def test_the_memory_available_is_read_from_this_machine():
    have = available_memory()
    meminfo = dict(line.split(":", 1) for line in open("/proc/meminfo"))
    assert have is not None and 0 < have <= int(meminfo["MemAvailable"].split()[0]) * 1024


@pytest.mark.parametrize("request_kw,needle", [
    ({}, "give the desired-state FILE(s)"),
    ({"files": ("a.yaml",), "plan_dir": "p"}, "either FILE... or --plan PLANDIR"),
    ({"plan_dir": "p", "contexts": ("prod",)}, "--context with --plan"),
    ({"plan_dir": "p", "scope_file": "s.yaml"}, "--scope with --plan"),
    # guard values are checked before any file is read (a.yaml does not exist)
    ({"files": ("a.yaml",), "max_deletes": "lots"}, "--max-deletes 'lots'"),
    ({"files": ("a.yaml",), "protect": ("alice",)}, "--protect 'alice'"),
])
def test_bad_requests_are_refused_before_anything_is_read(request_kw, needle):
    with pytest.raises(UsageError) as e:
        make(PlanRequest(**request_kw))
    assert needle in e.value.message and e.value.exit_code == ExitCode.USAGE


def _b(i: int, principal: str = "User:team-1") -> AclBinding:
    return AclBinding(ResourceType.TOPIC, f"t{i}", PatternType.LITERAL, principal, "*", AclOperation.READ,
                      Permission.ALLOW)


@pytest.mark.parametrize("max_deletes,refused", [("2", False), ("1", True), ("50%", False), ("49%", True),
                                                 ("0", True), ("100%", False)])
def test_the_in_process_and_arrow_engines_share_one_max_deletes_guard(max_deletes, refused):
    """Two of four in-scope ACLs go: the same limit, the same words, from either engine."""
    scope = Scope(principal_prefixes=("User:team-",))
    current = [_b(i) for i in range(4)] + [_b(9, "User:other")]
    desired = current[:2]
    guards = Guards(max_deletes=max_deletes)
    errors = []
    for diff in (lambda: diff_cluster("c", current, desired, scope, guards, ()),
                 lambda: diff_tables("c", bindings_table(desired), bindings_table(current), scope, guards, ())):
        try:
            plan = diff()
            errors.append(None)
            assert sum(plan.counts().values()) == 2
        except UsageError as e:
            errors.append(e.message)
    assert errors[0] == errors[1]
    assert (errors[0] is not None) == refused
    if refused:
        assert errors[0].startswith("c: the plan deletes 2 ACL bindings, more than --max-deletes ")


def _gateway():
    from kafkactl.gateway import Gateway
    from kafkactl.profiles import Profile

    return Gateway(Profile(bootstrap_servers="unused:1", username="planner"))  # no connection is made


def test_a_phase_that_failed_for_one_reason_and_changed_nothing_stops_with_that_reason():
    from kafkactl.desired.apply import ApplyResult, phase_failure

    result = ApplyResult()
    err = phase_failure(_gateway(), result, "prod", 2, 3, 3, False, {(31, "denied")})  # CLUSTER_AUTHORIZATION_FAILED
    assert err.exit_code == ExitCode.NOT_AUTHORIZED and err.result is result
    assert result.stopped_at == "prod phase 2 (create ALLOW)"


@pytest.mark.parametrize("failed,total,changed_before,causes", [
    (1, 3, False, {(31, "denied")}),  # some succeeded
    (3, 3, True, {(31, "denied")}),  # an earlier phase changed something
    (3, 3, False, {(31, "denied"), (29, "other")}),  # two reasons
    (3, 3, False, {(None, "unknown")}),  # no Kafka error code
])
def test_any_other_failed_phase_is_a_partial_failure(failed, total, changed_before, causes):
    from kafkactl.desired.apply import ApplyResult, phase_failure

    result = ApplyResult()
    err = phase_failure(_gateway(), result, "prod", 3, failed, total, changed_before, causes)
    assert err.exit_code == ExitCode.PARTIAL and err.result is result
    noun = "binding" if failed == 1 else "bindings"  # (singular and plural: issue 29)
    assert err.message.startswith(f"{failed} {noun} failed in prod phase 3 (delete ALLOW); later phases")


def test_an_unconfirmed_phase_stops_the_apply():
    from kafkactl.desired.apply import ApplyResult, unconfirmed

    result = ApplyResult()
    err = unconfirmed(result, "prod", 4, " within 60 s")
    assert result.stopped_at == "prod phase 4 (delete DENY)" and err.exit_code == ExitCode.ERROR
    assert err.message == ("prod phase 4 (delete DENY): the broker did not confirm the changes within 60 s; later "
                           "phases were not started (re-run apply to converge)")


def test_a_child_that_floods_stderr_while_the_driver_starts_is_read_as_it_writes(capfd):
    """The driver JVM's stderr goes through a pipe while it starts. The pipe's reader used to start only after
    the start returned: a JVM writing more than a pipe holds (64 KiB) blocked, and pyspark waited for it for ever.
    Here a child writes 1 MiB and the caller waits for it, as pyspark waits for the JVM."""
    import subprocess
    import sys

    from kafkactl.desired.spark import _jvm_stderr

    flood = "import sys\nfor i in range(16384): sys.stderr.write(f'spark: line {i:05d} ' + 'x' * 48 + '\\n')\n" \
            "sys.stderr.write('WARNING: Using incubator modules: jdk.incubator.vector\\n')"
    import threading

    before = set(threading.enumerate())
    with _jvm_stderr(debug=False):
        subprocess.run([sys.executable, "-c", flood], timeout=30, check=True)
    # the reader ends at the pipe's end (no writer is left once stderr is restored): wait for that, not for a time
    # (10 s were too few on a loaded machine: 16,345 of the 16,384 lines had been passed on)
    for reader in set(threading.enumerate()) - before:
        if reader.name == "kafkactl-spark-stderr":
            reader.join(120)
    err = capfd.readouterr().err
    assert err.count("spark: line ") == 16384 and "incubator" not in err  # all of Spark's, none of the noise



@pytest.mark.parametrize("value,size", [("4g", 4 << 30), ("4G", 4 << 30), ("512m", 512 << 20), ("1.5GiB", 3 << 29),
                                        ("1073741824", 1 << 30), (" 4gb ", 4 << 30), ("2k", 2048), ("100b", 100)])
def test_kafkactl_memory_takes_the_sizes_operators_write(monkeypatch, value, size):
    monkeypatch.setenv("KAFKACTL_MEMORY", value)
    assert memory_budget() == size


@pytest.mark.parametrize("value", ["", "lots", "-1g", "0", "1e9", "４g", "0x10", "99999999999999t", "4 g b", "1.g"])
def test_kafkactl_memory_refuses_anything_else_naming_it(monkeypatch, value):
    monkeypatch.setenv("KAFKACTL_MEMORY", value)
    with pytest.raises(UsageError) as e:
        memory_budget()
    assert e.value.message.startswith(f"KAFKACTL_MEMORY={value!r}: expected a size") and e.value.exit_code == 2


def test_a_plan_kept_on_disk_shows_its_first_rows_in_the_in_process_order(tmp_path):
    """Issue 16 new-user pass: the table of a Spark plan showed the first rows in the files (clusters by name),
    in-process the clusters in the order given. Both now show the smallest rows in the in-process order: the
    clusters as planned, then phase, then binding."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from kafkactl.desired.plan import ClusterPlan, Plan

    def write(cluster: str, phase: int, names: list[str]) -> None:
        d = tmp_path / "rows" / f"cluster={cluster}" / f"phase={phase}"
        d.mkdir(parents=True)
        pq.write_table(pa.table({
            "action": ["CREATE"] * len(names), "principal": ["User:a"] * len(names), "host": ["*"] * len(names),
            "operation": ["READ"] * len(names), "permission": ["ALLOW"] * len(names),
            "resource_type": ["TOPIC"] * len(names), "resource_name": names, "pattern_type": ["LITERAL"] * len(names)}),
            d / "part-0.parquet")

    write("alpha", 2, ["t9", "t1"])
    write("zeta", 3, ["z2"])
    write("zeta", 2, ["z5", "z3"])
    plan = Plan([ClusterPlan("zeta"), ClusterPlan("alpha")], Scope(principal_prefixes=("User:",)),
                location=str(tmp_path))
    shown = [(r.cluster, r.phase, r.binding.resource_name) for r in plan.rows(3)]
    assert shown == [("zeta", 2, "z3"), ("zeta", 2, "z5"), ("zeta", 3, "z2")]
    assert [(r.cluster, r.binding.resource_name) for r in plan.rows()][3:] == [("alpha", "t1"), ("alpha", "t9")]


@pytest.mark.parametrize("applying, said", [(True, "; nothing was changed"), (False, "")])
def test_a_refused_max_deletes_says_nothing_was_changed_only_for_an_apply(applying, said):
    """Issue 29, item 7: a plan only shown changes nothing either way; saying so read as if it might have."""
    from kafkactl.desired.plan import Guards
    from kafkactl.errors import UsageError

    with pytest.raises(UsageError) as refused:
        Guards(max_deletes="1", applying=applying).check_deletes("c", 2, 10)
    assert refused.value.message == f"c: the plan deletes 2 ACL bindings, more than --max-deletes 1 allows (1){said}"
