"""The completion look-up budget: 0.8 s unless KAFKACTL_COMPLETION_BUDGET gives a number from 0.1 to 10."""

from __future__ import annotations

import pytest

from kafkactl.cli.lookups import LOOKUP_BUDGET, lookup_budget


@pytest.mark.parametrize("value, budget", [(None, LOOKUP_BUDGET), ("2.5", 2.5), ("0.1", 0.1), ("10", 10.0),
                                           ("0.05", LOOKUP_BUDGET), ("11", LOOKUP_BUDGET), ("nan", LOOKUP_BUDGET),
                                           ("inf", LOOKUP_BUDGET), ("", LOOKUP_BUDGET), ("two", LOOKUP_BUDGET)])
def test_the_budget_comes_from_the_environment_only_when_in_range(monkeypatch, value, budget):
    if value is None:
        monkeypatch.delenv("KAFKACTL_COMPLETION_BUDGET", raising=False)
    else:
        monkeypatch.setenv("KAFKACTL_COMPLETION_BUDGET", value)
    assert lookup_budget() == budget
