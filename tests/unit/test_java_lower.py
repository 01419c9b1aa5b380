"""kafkactl's String.toLowerCase(Locale.ENGLISH), used by the /L of principal mapping rules: Java and Python differ on
the final sigma (Java's word is its BreakIterator's, letters and digits together). Each expected value below is
what Java 17's toLowerCase(Locale.ENGLISH) printed for the input on this machine; the SSL mapping differential
(tests/integration/test_mapping_differential.py, seed 2142969645) found the first one."""

from __future__ import annotations

import pytest

from kafkactl.mapping.javaregex import java_lower

JAVA_SAYS = [
    ("aliceΣΑΣ0é", "aliceσασ0é"), ("ΣΑΣ", "σας"), ("ΣΑΣ 0", "σας 0"), ("ΑΣ-β", "ασ-β"), ("ΑΣ_", "ας_"),
    ("ΑΣ中文", "ας中文"), ("ΑΣ.β", "ασ.β"), ("ΑΣ'β", "ασ'β"), ("ΑΣ,β", "ας,β"), ("Σ", "σ"), ("aΣ", "aς"),
    ("ΑΣ\\β", "ας\\β"), ('ΑΣ"β', 'ασ"β'), ("1Σ", "1σ"), ("ΑΣ1", "ας1"), ("ΑΣ1,2β", "ασ1,2β"), ("ΑΣ$1", "ας$1"),
    ("ΑΣ‧β", "ασ‧β"), ("ΑΣ-", "ας-"), ("ΑΣ.", "ας."), ("x.ΣΑ", "x.σα"), ("İx", "i\u0307x"), ("ΑΣ-1", "ας-1"),
    ("ΑΣ.1", "ας.1"), ("1.Σ", "1.σ"), ("ΑΣ12.5β", "ασ12.5β"), ("ΑΣ\u0301", "ας\u0301"), ("ΑΣ\u0301β", "ασ\u0301β"),
]


@pytest.mark.parametrize("text,java", JAVA_SAYS)
def test_lower_case_as_java_does(text, java):
    assert java_lower(text) == java
