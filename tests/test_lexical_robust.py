"""The lexical judge judges any text and never crashes (issue 11, point 14)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_sprout.judges.lexical import LexicalJudge

JUDGE = LexicalJudge()


def test_tokenizer_split_contraction_is_judged_not_an_index_error() -> None:
    verdict = JUDGE.judge("He went home.", ["He did n't go."])
    assert verdict.supported is False
    assert verdict.reason


def test_apostrophe_only_tokens_are_judged() -> None:
    for claim, source in [("n't", "n't"), ("' ' '", "'"), ("He did n't.", "He did n't go home.")]:
        assert JUDGE.judge(claim, [source]).supported in (True, False)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=80), st.lists(st.text(max_size=120), min_size=1, max_size=3))
def test_the_judge_returns_a_verdict_for_arbitrary_unicode_text(claim: str, sources: list[str]) -> None:
    verdict = JUDGE.judge(claim, sources)
    assert verdict.supported in (True, False, None)
    assert isinstance(verdict.reason, str)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(["n't", "'s", "'", "did", "not", "3", "%", "-", "home", "every", "week", "."]), max_size=12))
def test_the_judge_returns_a_verdict_for_token_soup(words: list[str]) -> None:
    text = " ".join(words)
    verdict = JUDGE.judge(text, [text[::-1], text])
    assert verdict.supported in (True, False, None)


def test_superscript_digits_are_not_read_as_numbers() -> None:
    # "0¹" passes str.isdigit but is no number float() can read: found by the unicode property above.
    from pytest_sprout.judges.lexical import LexicalJudge, words_of

    assert words_of("0¹ and 2²") == ["0", "¹", "and", "2", "²"]
    verdict = LexicalJudge().judge("0¹", ["The value is 0¹."])
    assert verdict.supported is True, verdict.reason
    # Nor as the day or year of a date beside a month name.
    for claim in ("It opened March ² 2011.", "It opened on ³ March.", "Due ¹¹ March.", "Rates rose in May ²."):
        verdict = LexicalJudge().judge(claim, ["It opened on 3 March 2011."])
        assert isinstance(verdict.supported, bool), (claim, verdict)
