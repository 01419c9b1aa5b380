"""acls export/plan/apply options through the real command tree, before any request (a closed port: a command
that sent anything would end in exit 4)."""

from __future__ import annotations

import socket

import pytest

from kafkactl.exitcodes import ExitCode
from tests.conftest import run


@pytest.fixture(scope="module")
def closed() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{s.getsockname()[1]}"


@pytest.mark.parametrize("args", [["acls", "export", "-o", "csv"], ["-o", "csv", "acls", "export"],
                                  ["acls", "export", "--output=csv", "--principal-prefix", "User:a"]])
def test_export_o_csv_is_refused_rather_than_silently_writing_yaml(closed, args):
    """`export -o csv` once chose the file format; -o is now the global output format, which export ignores."""
    r = run("-b", closed, "--timeout", "1", *args)
    assert r.exit_code == ExitCode.USAGE and r.stdout == "", r.output
    assert r.stderr == ("error: acls export -o csv: -o is the output format of kafkactl's results, not the file's: "
                        "give --format csv\n")


@pytest.mark.parametrize("args", [["-o", "csv", "--format", "csv"], ["-o", "csv", "-f", "yaml"], ["-o", "yaml"],
                                  ["-o", "json"], []])
def test_export_with_format_or_a_harmless_o_goes_on_to_the_cluster(closed, args):
    r = run("-b", closed, "--timeout", "1", "acls", "export", *args)
    assert r.exit_code == ExitCode.UNREACHABLE, r.output


def test_export_without_o_is_not_refused_whatever_kafkactl_output_says(closed):
    r = run("-b", closed, "--timeout", "1", "acls", "export", env={"KAFKACTL_OUTPUT": "csv"})
    assert r.exit_code == ExitCode.UNREACHABLE, r.output


@pytest.mark.parametrize("spelling", [["{f}", "--spark", "auto"], ["--spark=auto", "{f}"], ["--spark", "auto", "{f}"]])
@pytest.mark.parametrize("verb", ["plan", "apply"])
def test_spark_auto_is_never_taken_for_a_file(closed, tmp_path, spelling, verb):
    missing = tmp_path / "missing.yaml"
    r = run("-b", closed, "acls", verb, *[a.format(f=missing) for a in spelling])
    assert r.exit_code == ExitCode.NOT_FOUND, r.output
    assert r.stderr == f"error: {missing}: no such file\n"


@pytest.mark.parametrize("verb", ["plan", "apply"])
def test_a_file_naming_clusters_and_a_b_choosing_another_is_refused_before_any_request(closed, tmp_path, verb):
    state = tmp_path / "s.yaml"
    state.write_text("apiVersion: kafkactl/v1\nkind: AclState\nclusters: [prod-eu]\n"
                     "scope: {principals: ['User:a']}\nacls: []\n")
    r = run("-b", closed, "--timeout", "1", "acls", verb, str(state), *(["--yes"] if verb == "apply" else []))
    assert r.exit_code == ExitCode.USAGE, r.output
    assert r.stderr == (f"error: the file names clusters prod-eu and -b {closed} chooses another: say which with the "
                        "command's --context (repeatable)\n")
    r = run("--timeout", "1", "acls", verb, str(state), "--context", "prod-eu", *(["--yes"] if verb == "apply" else []),
            env={"KAFKACTL_BOOTSTRAP_SERVERS": closed})
    assert r.exit_code == ExitCode.USAGE and "both choose the cluster" in r.stderr, r.output
