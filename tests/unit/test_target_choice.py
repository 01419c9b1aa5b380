"""Which cluster a desired state goes to: two choices naming different clusters are refused (exit 2), never one
silently dropped. From the adversary pass: a file's `clusters:` list overrode -b, --command-config, the root
--context and KAFKACTL_CONTEXT, so a policy meant for staging went where the file said."""

from __future__ import annotations

import pytest

from kafkactl.desired.targets import check_choice
from kafkactl.errors import UsageError
from kafkactl.profiles import Selection

NONE: dict[str, str] = {}


@pytest.mark.parametrize("contexts, clusters, flags, env", [
    ([], [], Selection(), NONE),
    ([], ["prod"], Selection(), NONE),
    (["prod"], ["stage"], Selection(), NONE),                       # the command's --context beats the file
    (["prod"], [], Selection(), {"KAFKACTL_CONTEXT": "stage"}),     # and the environment's context
    (["prod"], [], Selection(context="prod"), NONE),                # the root --context agreeing
    ([], ["prod"], Selection(context="prod"), NONE),
    ([], ["prod"], Selection(), {"KAFKACTL_CONTEXT": "prod"}),
    ([], [], Selection(context="x", bootstrap_servers="h:1", command_config="c"), NONE),
])
def test_consistent_choices_pass(contexts, clusters, flags, env):
    check_choice(contexts, clusters, flags, env)


@pytest.mark.parametrize("contexts, clusters, flags, env, words", [
    ([], ["prod"], Selection(context="stage"), NONE, "--context stage"),
    ([], ["prod"], Selection(), {"KAFKACTL_CONTEXT": "stage"}, "KAFKACTL_CONTEXT=stage"),
    ([], ["prod"], Selection(bootstrap_servers="h:9092"), NONE, "-b h:9092"),
    ([], ["prod"], Selection(), {"KAFKACTL_BOOTSTRAP_SERVERS": "h:9092"}, "KAFKACTL_BOOTSTRAP_SERVERS=h:9092"),
    ([], ["prod"], Selection(command_config="/x.properties"), NONE, "--command-config /x.properties"),
    ([], ["prod"], Selection(), {"KAFKACTL_COMMAND_CONFIG": "/x"}, "KAFKACTL_COMMAND_CONFIG=/x"),
    ([], ["prod", "prod-us"], Selection(context="prod"), NONE, "--context prod"),  # one of two is not a choice
    (["prod"], [], Selection(context="stage"), NONE, "--context stage"),
    (["prod"], [], Selection(bootstrap_servers="h:9092"), NONE, "-b h:9092"),
    (["prod"], [], Selection(), {"KAFKACTL_BOOTSTRAP_SERVERS": "h:9092"}, "KAFKACTL_BOOTSTRAP_SERVERS"),
    (["prod"], [], Selection(command_config="/x.properties"), NONE, "--command-config"),
])
def test_conflicting_choices_are_refused_naming_both(contexts, clusters, flags, env, words):
    with pytest.raises(UsageError) as info:
        check_choice(contexts, clusters, flags, env)
    assert words in info.value.message and "prod" in info.value.message
