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
    # A token the passage holds is found; punctuation alone is no claim to check.
    assert JUDGE.judge("n't", ["n't"]).supported is True
    empty = JUDGE.judge("' ' '", ["'"])
    assert (empty.supported, empty.rule, empty.reason) == (None, "no-claim", "no claim: it has no words")
    assert JUDGE.judge("He did n't.", ["He did n't go home."]).supported is True


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
    # The superscript is set aside; the month and year are judged as words and the date as usual.
    for claim, supported, rule in [("It opened March ² 2011.", True, None), ("It opened on ³ March.", True, None),
                                   ("Due ¹¹ March.", False, "calibrated"), ("Rates rose in May ².", False, "coverage")]:
        verdict = LexicalJudge().judge(claim, ["It opened on 3 March 2011."])
        assert (verdict.supported, verdict.rule) == (supported, rule), (claim, verdict)


def test_a_number_too_large_for_a_float_gets_a_verdict_not_an_overflow() -> None:
    """Issue 23, defect 17: a sentence that is a 309-digit number (a serial, an account number)
    raised OverflowError in the judge (the number's key formatted float infinity as an int).
    Regression: repro 17 (17-lexical-judge-overflow-long-number)."""
    judge = LexicalJudge()
    for claim in ("9" * 309 + ".", "9" * 400 + ".", "$" + "9" * 320):
        verdict = judge.judge(claim, ["Snake plants tolerate low light."])
        assert (verdict.supported, verdict.rule) == (False, "number"), (claim[:20], verdict.reason)
    # Such a number has no value to compare: it matches the same digits, and only them.
    code = "The code is " + "9" * 309 + "."
    assert judge.judge("9" * 309 + ".", [code]).supported is True
    other = judge.judge("The code is " + "9" * 309 + ".", ["The code is " + "9" * 310 + "."])
    assert (other.supported, other.rule) == (False, "number"), other.reason
    assert judge.judge("The code is " + "9" * 308 + ".", [code]).rule == "number"


def test_the_number_operator_leaves_a_number_too_large_for_a_float_alone() -> None:
    from pytest_sprout.checks.operators import mutate_text

    text = "It costs " + "9" * 309 + " dollars for 3 days."
    assert mutate_text("number", text, [text]) == "It costs " + "9" * 309 + " dollars for 30 days."
    assert mutate_text("number", "9" * 309 + ".", ["x"]) is None
