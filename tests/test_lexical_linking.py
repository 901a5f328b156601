"""The lexical judge, third edition (issue 26): numbers must come from where the claim's words are,
and decimals or thousands split by a tokeniser are read whole. Each phenomenon with a claim it must
reject and one it must keep."""

from __future__ import annotations

from pytest_sprout.judges.lexical import RULES_VERSION, LexicalJudge
from pytest_sprout.judges.lexical.text import rejoin_numbers

JUDGE = LexicalJudge()

def test_a_number_must_be_where_the_claims_words_are() -> None:
    article = ("Leeds beat Warrington 24-10 on Friday. The crowd of 15,000 was the largest this year. "
               "Joel Moon scored 3 tries in the first half. Leeds have now won 7 games in a row.")
    swapped = JUDGE.judge("Joel Moon scored 7 tries in the first half.", [article])
    assert (swapped.supported, swapped.rule) == (False, "number"), swapped.reason
    assert "evidence has '3'" in swapped.reason
    assert JUDGE.judge("Joel Moon scored 3 tries in the first half.", [article]).supported is True
    # A number of the sentence next to the evidence counts (the same story, told on).
    story = "Joel Moon joined Leeds from Salford. He has scored 12 tries for them."
    assert JUDGE.judge("Joel Moon joined Leeds from Salford and scored 12 tries.", [story]).supported is True


def test_an_amount_next_to_evidence_that_states_its_own_is_another_things() -> None:
    """The sentence holding the claim's words states how often; the next sentence's "every 10 weeks"
    (70 days) is someone else's schedule, not this one (a mutant Hypothesis drew)."""
    passage = ("Ardley usually cleans the large bridges near Fort Lisle every 7 days. "
               "Galloway usually inspects the old hives near Loch Ardan every 10 weeks.")
    swapped = JUDGE.judge("Ardley usually cleans the large bridges near Fort Lisle every 70 days.", [passage])
    assert (swapped.supported, swapped.rule) == (False, "number"), swapped.reason
    assert JUDGE.judge("Ardley usually cleans the large bridges near Fort Lisle every 7 days.", [passage]).supported
    # Without an amount of its own, the evidence still takes one from the sentence next to it.
    told_on = "Snake plants need little water. Water them every 3 weeks."
    assert JUDGE.judge("Snake plants need little water every 3 weeks.", [told_on]).supported is True


def test_split_decimals_and_thousands_are_read_whole() -> None:
    assert rejoin_numbers("Inflation rose 7. 8 per cent.") == "Inflation rose 7.8 per cent."
    assert rejoin_numbers("It cost $ 1. 7 million, with 1, 500 fans.") == "It cost $ 1.7 million, with 1,500 fans."
    # A date, a year that ends a sentence, and a list of numbers stay as they are.
    for text in ("on Dec. 29. 2022, with", "in 2019. 15 people died", "scores were 78, 100 and 92", "1, 2, 300"):
        assert rejoin_numbers(text) == text
    passage = "Prices jumped. Inflation rose 7. 8 per cent in May, the agency said."
    verdict = JUDGE.judge("Inflation rose 7.8 per cent in May.", [passage])
    assert verdict.supported is True, verdict.reason
    assert verdict.evidence == "Inflation rose 7.8 per cent in May, the agency said."
    wrong = JUDGE.judge("Inflation rose 8 per cent in May.", [passage])
    assert (wrong.supported, wrong.rule) == (False, "number"), wrong.reason


def test_a_decimal_without_its_whole_part_is_read_as_a_fraction() -> None:
    """"$.99" is 0.99 dollars, not 99: the digits after a bare point are a fraction."""
    assert rejoin_numbers("The app costs $.99 a month.") == "The app costs $0.99 a month."
    assert rejoin_numbers("Rates rose by .5 percent (from .25).") == "Rates rose by 0.5 percent (from 0.25)."
    # A point after a letter, a digit or another point is no decimal's own.
    for text in ("No.5 was sold", "version 2.0.5", "and so on...5 more", "the end.5 people"):
        assert rejoin_numbers(text) == text
    passage = "The app is free to download. A subscription costs $.99 a month."
    assert JUDGE.judge("A subscription costs $0.99 a month.", [passage]).supported is True
    wrong = JUDGE.judge("A subscription costs $99 a month.", [passage])
    assert (wrong.supported, wrong.rule) == (False, "number"), wrong.reason


def test_the_rules_version_names_the_third_edition() -> None:
    assert RULES_VERSION == 19 and LexicalJudge().settings()["rules_version"] == 19


def test_the_calibration_is_fitted_on_wice_dev_and_lfqa_only() -> None:
    """WiCE test and SummEdits are reported as held out: the shipped model must not have seen them
    (bench/fit_lexical.py names its fitting data in the version it writes)."""
    from pytest_sprout.judges.lexical import calibration

    # LFQA's 3,857 sentences less the 19 with no claim of their own ("Yes, there are.", "Based on
    # the given context,"), which are unscored and never fitted on
    assert calibration.VERSION.startswith("wicedev349+lfqa3838-")
    assert LexicalJudge().settings()["calibration"] == calibration.VERSION


def test_a_decimal_comma_before_a_percent_sign_is_a_decimal() -> None:
    assert rejoin_numbers("it stays at 99,9% for a long time") == "it stays at 99.9% for a long time"
    assert rejoin_numbers("rates of 5,25 % and 1,234% and 1,2,3%") == "rates of 5.25 % and 1,234% and 1,2,3%"
    passage = "If the buffer and the file are huge, then it stays at 99,9% for a long time."
    assert JUDGE.judge("If the buffer and the file are huge, it stays at 99.9% for a long time.", [passage]).supported
    wrong = JUDGE.judge("If the buffer and the file are huge, it stays at 9% for a long time.", [passage])
    assert (wrong.supported, wrong.rule) == (False, "number"), wrong.reason
