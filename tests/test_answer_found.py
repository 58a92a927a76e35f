"""Answer-bearing recall: is the gold answer's figure or span in the delivered text?"""

from __future__ import annotations

import pytest

from finchunk.evaluate.answers import answer_found


@pytest.mark.parametrize(
    ("answer", "text", "found"),
    [
        ("5,363", "| Revenue | 5,363 | 4,980 |", True),
        ("$5.4 billion", "Net sales were $5,363 million.", True),
        ("$5.4 billion", "Net sales were $5,163 million.", False),
        ("(370)", "| Free cash flow | -370 | 410 |", True),
        ("-370", "| Free cash flow | (370) | 410 |", True),
        ("19.779 personas", "empleaba a 19.779 personas", True),
        ("23,3 %", "se situó en el 23,3 %", True),
        ("23,3 %", "se situó en el 23,4 %", False),
        ("612", "income of 6120", False),
        ("Spain", "most of them in\nspain.", True),
        ("", "anything", False),
    ],
)
def test_answer_found(answer: str, text: str, found: bool) -> None:
    assert answer_found(answer, text) is found
