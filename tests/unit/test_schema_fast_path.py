"""The compiled schema check that large desired-state files go through first (yamldoc._fast_valid) never admits a
document that jsonschema, the reference, refuses: a differential over mutated documents of every section.

The fast check's "valid" is final; its "invalid" sends the document to jsonschema for the verdict and the
message, so the property that matters is fast-valid => jsonschema-valid. The two are also expected to agree
outright on these mutations (a stricter fast check would only cost speed, but would still be a difference).

KAFKACTL_FUZZ_SEED picks the mutations (new each run unless given; a failure names it).
"""

from __future__ import annotations

import copy
import os
import random
import re
from pathlib import Path
from typing import Any

import yaml

from kafkactl.desired.formats import yamldoc

SEED = int(os.environ.get("KAFKACTL_FUZZ_SEED") or random.SystemRandom().randrange(2**32))
ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
VALUES: list[Any] = [5, 1, -1, 0, 2**31, 1.5, 1.0, True, False, None, "", " ", "x" * 300, [], {}, ["a", 1], {"a": "b"},
                     "User:", "User:a", "*", "-1", "team-a.", "SCRAM-SHA-512", "SCRAM-SHA-1", "Read", "ALL",
                     {"env": "X"}, {"file": "/x"}, {"env": ""}, {"env": "X", "file": "y"}, ["user"], ["user", "user"],
                     ["client", "ip"], ["nobody"], 4096, 8192, 1e300, "0x10"]
KEYS = ["name", "configs", "partitions", "replicationFactor", "broker", "user", "client", "ip", "default", "values",
        "scram", "mechanism", "iterations", "password", "principal", "allow", "deny", "topic", "cluster", "extra"]


def documents() -> list[Any]:
    """Valid documents: the desired-state examples of the README and docs/ (every section of a State file, the
    compact ACL file), and a State file with ACLs."""
    blocks = [b for p in DOCS for b in re.findall(r"```yaml\n(.*?)```", p.read_text(), re.S)]
    docs = [yaml.safe_load(b) for b in blocks]
    docs = [d for d in docs if isinstance(d, dict) and d.get("apiVersion") == "kafkactl/v1"]
    docs.append({"apiVersion": "kafkactl/v1", "kind": "State", "scope": {"principals": ["User:a"]},
                 "acls": [{"principal": "User:a", "allow": [
                     {"cluster": True, "operations": ["Describe"]},
                     {"topic": "t", "pattern": "prefixed", "operations": ["Read"], "hosts": ["*"]}]}],
                 "topics": [{"name": "t", "partitions": 1}]})
    assert any(d.get("kind") == "State" for d in docs), "the State example of docs/desired-state.md is gone"
    for d in docs:
        assert not list(yamldoc._validators()[None].iter_errors(d)), d
    return docs


def nodes(doc: Any, path: tuple = ()) -> list[tuple]:
    out = [path]
    if isinstance(doc, dict):
        for k, v in doc.items():
            out += nodes(v, path + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            out += nodes(v, path + (i,))
    return out


def mutate(rng: random.Random, doc: Any) -> Any:
    doc = copy.deepcopy(doc)
    for _ in range(rng.choice((1, 1, 1, 2, 3))):
        path = rng.choice(nodes(doc)[1:])
        parent = doc
        for p in path[:-1]:
            parent = parent[p]
        last = path[-1]
        kind = rng.randrange(4)
        if kind == 0 or not isinstance(parent, dict):
            parent[last] = copy.deepcopy(rng.choice(VALUES))
        elif kind == 1:
            del parent[last]
        elif kind == 2:
            parent[rng.choice(KEYS)] = copy.deepcopy(rng.choice(VALUES + [parent[last]]))
        else:
            parent[last] = copy.deepcopy(rng.choice(VALUES)) if rng.random() < 0.5 else [parent[last]]
    return doc


def reference(doc: Any) -> bool:
    return not any(True for _ in yamldoc._validators()[None].iter_errors(doc))


def test_the_fast_check_is_used_only_above_its_bound_and_agrees_on_the_valid_examples(monkeypatch):
    doc = documents()[0]
    assert yamldoc._fast_valid(doc) is False  # small: jsonschema alone
    monkeypatch.setattr(yamldoc, "FAST_ABOVE", -1)
    for d in documents():
        assert yamldoc._fast_valid(d) is True
    acl = documents()[-1]
    for value in (1, 1.0, 0, "true"):  # Python's 1 == True must not make `cluster: 1` a cluster resource
        doc = copy.deepcopy(acl)
        doc["acls"][0]["allow"][0]["cluster"] = value
        assert (yamldoc._fast_valid(doc), reference(doc)) == (False, False), value


def test_it_never_admits_what_jsonschema_refuses(monkeypatch):
    monkeypatch.setattr(yamldoc, "FAST_ABOVE", -1)  # every document goes through it
    rng = random.Random(SEED)
    docs = documents()
    refused = admitted = 0
    disagreements = []
    for case in range(3000):
        doc = mutate(rng, rng.choice(docs))
        f, r = yamldoc._fast_valid(doc), reference(doc)
        refused += not r
        admitted += r
        if f != r:
            disagreements.append((case, f, r, doc))
    assert refused > 1000 and admitted > 100, (refused, admitted)  # the mutations reach both verdicts
    assert not disagreements, (f"KAFKACTL_FUZZ_SEED={SEED}: {len(disagreements)} disagreements, first (case, fast, "
                               f"jsonschema, document): {disagreements[0]}")
