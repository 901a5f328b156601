"""Expected facts matched through the lexical judge's lemmas (judges/facts.py), and the near
miss of a missing fact printed with one decimal, never rounded up to the threshold."""

from __future__ import annotations

import json

import pytest

from helpers import make_project
from pytest_sprout.judges.facts import FactMatch, fact_reasons, find_fact, match_fact, shown


@pytest.mark.parametrize("text", ["Some houseplants are offensive to cats.", "The cat was offended.",
                                  "It offends nobody."])
def test_a_fact_is_found_through_other_forms_of_its_words(text: str) -> None:
    match = match_fact("offend", text)
    assert match.found and match.lemma_score == 100.0
    if "offensive" in text:  # the surface match alone misses it, and the reason keeps its score
        assert match.by_lemma and 83 < match.fuzzy_score < 85


def test_lemmas_keep_the_fuzzy_tolerance_and_do_not_invent_facts() -> None:
    assert find_fact("self-cleaning oven", "A self-cleaned oven, in fact.")
    assert find_fact("water weekly", "Water weekly in summer.")
    assert not find_fact("brown leaf tips", "A crust on the soil.")
    assert not find_fact("offend", "Peace lilies are toxic to cats.")  # no form of the word at all
    assert find_fact("toxic to cats", "Peace lilies are TOXIC to cats.")  # plain text, as before


def test_a_failing_score_has_one_decimal_and_never_reads_as_the_threshold() -> None:
    assert shown(84.6) == "84.6" and shown(84.96) == "84.9" and shown(85.0) == "85.0"
    miss = FactMatch("self-cleaning", False, 84.6, 0.0)
    [reason] = fact_reasons([miss], "The oven is self-clean. In fact", 85.0)
    assert "scores 84.6/100 (needs 85)" in reason["why"]
    assert reason["fuzzy_score"] == 84.6 and reason["threshold"] == 85.0


NEAR_CONFTEST = '''
def pytest_sprout_make_system(config):
    def system(question):
        return ("Peace lilies are offensive to cats [1]. Cacti like sun [1].",
                ["Peace lilies are offensive to cats. Cacti like sun."])
    return system
'''

NEAR_SUITE = """
suite: facts
cases:
  - id: lily
    question: Is a peace lily bad for cats?
    expected_facts: ["offend", "lily is fatal to cats"]
"""


def test_facts_by_lemma_through_pytest(pytester: pytest.Pytester) -> None:
    make_project(pytester, suite=NEAR_SUITE, conftest=NEAR_CONFTEST, name="facts")
    result = pytester.runpytest("-m", "groundedness", "--sprout-report=r.json")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*missing expected facts: 'lily is fatal to cats' (1 of 2 found)*",
                                 "*best near miss * scores *.*/100 (needs 85)*"])
    [row] = json.loads((pytester.path / "r.json").read_text(encoding="utf-8"))["items"]
    assert row["metrics"]["facts"] == [True, False]
    [lemma] = row["extra"]["facts_by_lemma"]
    assert lemma["fact"] == "offend" and lemma["fuzzy_score"] < 85 and lemma["lemma_score"] == 100.0
    [reason] = [r for r in row["reasons"] if r["metric"] == "facts"]
    assert reason["fuzzy_score"] < 85 and f"{reason['fuzzy_score']:.1f}/100" in reason["why"]
