"""The lexical judge reads dates by value: day, month and year, whatever form they are written in."""

from __future__ import annotations

import pytest

from pytest_sprout.judges.lexical import LexicalJudge, Sentence
from pytest_sprout.judges.lexical.dates import Date, find_dates


def judge(claim: str, *passages: str):
    return LexicalJudge().judge(claim, list(passages))


def dates_of(text: str) -> list[tuple[int | None, int, int | None]]:
    return [(n.year, n.month, n.day) for n in Sentence(text).numbers if isinstance(n, Date)]


@pytest.mark.parametrize(("text", "expected"), [
    ("It opened on March 3, 2011.", [(2011, 3, 3)]),
    ("It opened on March 3rd, 2011.", [(2011, 3, 3)]),
    ("It opened on 3 March 2011.", [(2011, 3, 3)]),
    ("It opened on the 3rd of March.", [(None, 3, 3)]),
    ("It opened on 2011-03-03.", [(2011, 3, 3)]),
    ("It opened in March 2011.", [(2011, 3, None)]),
    ("It opened in Sept. 2019.", [(2019, 9, None)]),
    ("It opened on 25th December, 2019.", [(2019, 12, 25)]),
    ("It opened in March.", []),  # a month alone is not a date
    ("It may rain in 2011.", []),  # the modal
    ("In March, 15 people died.", []),  # a comma ends the date: 15 is a count
])
def test_dates_are_read_into_day_month_and_year(text: str, expected: list) -> None:
    assert dates_of(text) == expected


def test_the_numbers_of_a_date_are_not_counted_twice() -> None:
    assert [n.unit for n in Sentence("On 3 March 2011, 40 people came.").numbers] == ["date", None]
    assert find_dates(("from", "2010", "-", "11")) == []  # a range of years, not a date


@pytest.mark.parametrize("claim", [
    "The bridge opened on March 3, 2011.",
    "The bridge opened on 3 March 2011.",
    "The bridge opened on the 3rd of March 2011.",
    "The bridge opened on 2011-03-03.",
    "The bridge opened in March 2011.",
    "The bridge opened in 2011.",
])
@pytest.mark.parametrize("passage", [
    "The bridge opened on 3 March 2011 after four years of work.",
    "The bridge opened on March 3, 2011 after four years of work.",
    "The bridge opened on 2011-03-03 (after four years of work).",
])
def test_a_date_matches_its_other_written_forms(claim: str, passage: str) -> None:
    verdict = judge(claim, passage)
    assert verdict.supported is True, verdict.reason


def test_the_reason_names_the_dates() -> None:
    verdict = judge("The bridge opened on March 3, 2011.", "The bridge opened on 3 March 2011.")
    assert "dates (by day, month and year)" in verdict.reason


def test_a_year_the_evidence_does_not_state_is_no_conflict_when_day_and_month_agree() -> None:
    passage = "The festival of 2011 ran for a week. The bridge opened on 3 March with a parade."
    verdict = judge("The bridge opened on March 3rd, 2011, with a parade.", passage)
    assert verdict.supported is True, verdict.reason
    only_month = judge("The bridge opened on March 3, 2011.", "The bridge opened in March with a parade.")
    assert (only_month.supported, only_month.rule) == (False, "number"), only_month.reason  # the day is not stated


@pytest.mark.parametrize("claim", [
    "The bridge opened on March 4, 2011.",  # another day
    "The bridge opened on 3 March 2012.",  # another year
    "The bridge opened on 2011-03-04.",
    "The bridge opened in March 2012.",
    "The bridge opened in 2012.",
])
def test_a_date_that_differs_is_still_caught(claim: str) -> None:
    verdict = judge(claim, "The bridge opened on 3 March 2011 after four years of work.")
    assert (verdict.supported, verdict.rule) == (False, "number"), verdict.reason


def test_a_date_that_differs_is_named_in_the_reason() -> None:
    verdict = judge("The bridge opened on March 4, 2011.", "The bridge opened on 3 March 2011.")
    assert "date 'march 4, 2011'" in verdict.reason and "'3 march 2011'" in verdict.reason, verdict.reason


def test_another_month_is_caught() -> None:
    verdict = judge("The bridge opened on 3 April 2011.", "The bridge opened on 3 March 2011.")
    assert verdict.supported is False, verdict.reason
