"""No piece of a password in any error about an --add-config value, wherever the password sits and whatever
malformed text surrounds it (a property over generated values: kafkactl/configs/values.py, and JAAS strings in
kafkactl/profiles.py).

The password is drawn from characters that the surrounding text never uses (besides `,=[]` and spaces, the
characters of the syntax itself), so any 6-character piece of it with a letter or digit in a message came from it.
It stands as a setting of its own, between commas, with broken settings around it.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from kafkactl.configs.values import parse_pairs, parse_scram
from kafkactl.errors import ConfigError, UsageError
from kafkactl.profiles import parse_jaas

SECRET_CHARS = "BDEFGJKLNPQTUVWXYZ6789"
passwords = st.text(alphabet=SECRET_CHARS + ",=[] ", min_size=6, max_size=24).filter(
    lambda p: sum(c in SECRET_CHARS for c in p) >= 6)
# settings and broken pieces of settings; before the password only those that leave no bracket open (an open one
# would make the password part of that setting's value, which the message may show)
closed = ["retention.ms=1", "k=[a,b]", "]", "=", "x=", "=y", "word", "iterations=99", "a.b=c]", " ", "=[a]"]
before_noise = st.lists(st.sampled_from(closed), max_size=4).map(",".join)
after_noise = st.lists(st.sampled_from([*closed, "k=[a,b", "[", "cleanup.policy=[compact",
                                        "SCRAM-SHA-256=[iterations=8192"]), max_size=4).map(",".join)


@pytest.fixture(scope="module", autouse=True)
def forget_generated_secrets():
    """The parsers register every generated password with kafkactl.redact; left there, thousands of fragments of
    syntax would count as secrets for every later test's sweep."""
    from kafkactl import redact

    with redact._lock:
        before = set(redact._known)
    yield
    with redact._lock:
        redact._known.intersection_update(before)


def _pieces(password: str) -> set[str]:
    return {password[i:i + 6] for i in range(len(password) - 5) if any(c in SECRET_CHARS for c in password[i:i + 6])}


def _message(text: str) -> str:
    try:
        for key, value in parse_pairs(text, "--add-config"):
            if key.startswith("SCRAM-"):
                parse_scram(key, value)
    except UsageError as exc:
        return exc.message
    return ""


PLACES = [
    "SCRAM-SHA-512=[password={pw}]",
    "SCRAM-SHA-512=[iterations=8192,password={pw}]",
    "SCRAM-SHA-512=[password={pw},iterations=8192]",
    "SCRAM-SHA-256=[{pw}]",
    "SCRAM-SHA-256={pw}",
    "SCRAM-SHA-512=[password={pw}",
    "ssl.keystore.password={pw}",
    "listener.name.x.sasl.jaas.config=[{pw}",
    "={pw}",
    "=[{pw}]",
    "{pw}",
]


@pytest.mark.parametrize("place", PLACES)
@settings(max_examples=150, deadline=None)
@given(password=passwords, before=before_noise, after=after_noise)
def test_no_error_about_a_value_repeats_a_piece_of_its_password(place, password, before, after):
    text = ",".join(t for t in (before, place.format(pw=password), after) if t)
    message = _message(text)
    assert not [p for p in _pieces(password) if p in message], (text, message)


JAAS_PLACES = [
    'org.apache.kafka.common.security.scram.ScramLoginModule required username="u" password="{pw}";',
    'org.apache.kafka.common.security.scram.ScramLoginModule required username="u" password="{pw}',
    "org.apache.kafka.common.security.scram.ScramLoginModule required username=u password={pw};",
    "org.apache.kafka.common.security.scram.ScramLoginModule required password={pw} username=u",
    "org.apache.kafka.common.security.scram.ScramLoginModule required username=u password={pw}; extra=1;",
    "{pw} required username=u password=x;",
]
jaas_passwords = st.text(alphabet=SECRET_CHARS + " =;'\"\\", min_size=6, max_size=24).filter(
    lambda p: sum(c in SECRET_CHARS for c in p) >= 6)


@pytest.mark.parametrize("place", JAAS_PLACES)
@settings(max_examples=150, deadline=None)
@given(password=jaas_passwords)
def test_no_jaas_error_repeats_a_piece_of_its_password(place, password):
    from kafkactl.profiles import settings_from_properties

    try:
        settings_from_properties({"sasl.jaas.config": place.format(pw=password)}, "--command-config c.properties")
    except ConfigError as exc:
        assert not [p for p in _pieces(password) if p in exc.message], (place, exc.message)
        assert exc.message.startswith("--command-config c.properties: ")


def test_a_jaas_string_without_its_semicolon_is_refused():
    with pytest.raises(ConfigError, match="not terminated by ';'"):
        parse_jaas("a.B required x=y")
