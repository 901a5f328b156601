"""Expected facts matched through the lexical judge's lemmas (judges/facts.py), and the near
miss of a missing fact printed with one decimal, never rounded up to the threshold."""

from __future__ import annotations

import json

import pytest
from hypothesis import assume, given, strategies as st

from helpers import make_project
from pytest_sprout.judges.facts import FactMatch, fact_reasons, find_fact, match_fact, shown


@pytest.mark.parametrize("text", ["Some houseplants are offensive to cats.", "The cat was offended.",
                                  "It offends nobody."])
def test_a_fact_is_found_through_other_forms_of_its_words(text: str) -> None:
    match = match_fact("offend", text)
    assert match.found
    if "offensive" in text:  # the surface match alone misses it, and the reason keeps its score
        assert match.by_lemma and match.fuzzy_score < 85 and match.lemma_score == 100.0


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


# Repro 39: a fact close in spelling to a stretch that says another number or the opposite.
@pytest.mark.parametrize(("fact", "text", "conflict"), [
    ("2 cups", "Use 20 cups [1].", "another number"),
    ("every 7 days", "Water every 17 days.", "another number"),
    ("3 weeks", "Wait 8 weeks.", "another number"),
    ("5 cups", "Use 2.5 cups.", "another number"),
    ("2 cups of water", "Add cups of water.", "another number"),
    ("is safe for cats", "Pothos is unsafe for cats.", "the opposite"),
    ("increase humidity", "Decrease humidity.", "the opposite"),
    ("direct light", "Give it indirect light.", "the opposite"),
    ("unsafe for cats", "It is safe for cats.", "the opposite"),
    ("safe for cats", "Pothos are not safe for cats.", "negates"),
    ("safe for cats", "Pothos aren't safe for cats.", "negates"),
    ("not safe for cats", "It is safe for cats.", "the fact is negated"),
    # a close score made of the other words: "do" is no "soap"
    ("insecticidal soap", "Many general insecticides do not kill spider mites.", "lacks 'soap'"),
])
def test_a_fact_is_not_found_where_the_answer_says_another_number_or_the_opposite(
        fact: str, text: str, conflict: str) -> None:
    match = match_fact(fact, text)
    assert not match.found
    assert conflict in match.conflict
    [reason] = fact_reasons([match], text, 85.0)
    assert "not counted: " in reason["why"] and conflict in reason["conflict"]


def test_an_answer_that_covers_part_of_the_fact_does_not_cover_it() -> None:
    assert not find_fact("bright indirect light", "Indirect light [1].")
    assert not find_fact("toxic", "They are nontoxic.")
    assert not find_fact("2 cups", "12 cups")


@pytest.mark.parametrize(("fact", "text"), [
    ("2 cups", "Use two cups."),
    ("one cup", "Use 1 cup."),
    ("every 7 days", "Water every 7 days, or when dry."),
    ("1000 mg", "Take 1,000 mg."),
    ("2.5 cups", "Use 2.5 cups."),
    ("bright indirect light", "Give it bright, indirect light."),
    ("bright indirect light", "Give it brigth indirect light."),  # a typo
    ("not safe for cats", "It is not safe for cats."),
    ("toxic to cats", "Unfortunately, pothos are toxic to cats [1]."),
    ("safe for cats", "They are safe for cats, but not for fish."),
    # "never" negates "leave", not the fact: the negation counts only right before the stretch
    ("water sitting in the crown", "Never leave water sitting in the crown."),
])
def test_a_fact_said_with_its_number_and_its_sense_is_found(fact: str, text: str) -> None:
    assert find_fact(fact, text)


WORDS = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=3, max_size=8)


@given(st.integers(1, 500), st.integers(1, 500), st.sampled_from(["cups", "days", "weeks", "cm", "mg"]))
def test_a_number_matches_only_by_its_value(ours: int, theirs: int, unit: str) -> None:
    assert find_fact(f"{ours} {unit}", f"Use {theirs} {unit} of it.") == (ours == theirs)


@given(st.lists(WORDS, min_size=1, max_size=5), st.lists(WORDS, max_size=4), st.lists(WORDS, max_size=4))
def test_a_fact_written_out_in_its_own_clause_is_found(fact: list[str], before: list[str], after: list[str]) -> None:
    assume(not {"not", "no", "nor", "never", "none", "nothing", "neither", "without", "cannot"} & set(fact + before))
    text = " ".join(before + ["."] + fact + [","] + after)
    assert find_fact(" ".join(fact), text)


@given(st.lists(WORDS, min_size=2, max_size=6), st.data())
def test_an_answer_much_shorter_than_the_fact_never_covers_it(fact: list[str], data: st.DataObject) -> None:
    phrase = " ".join(fact)
    text = data.draw(st.text(alphabet="abcdefghijklmnopqrstuvwxyz ", max_size=max(0, int(len(phrase) * 0.7) - 1)))
    assert not find_fact(phrase, text)


@given(WORDS.filter(lambda w: len(w) >= 4), st.sampled_from(["un", "non", "dis"]))
def test_a_negating_prefix_is_not_a_match(word: str, prefix: str) -> None:
    assert not find_fact(f"is {word} for cats", f"It is {prefix}{word} for cats.")


REPRO_CONFTEST = '''
ANS = {"cups": "Use 20 cups [1].", "days": "Water every 17 days [1].", "light": "Indirect light [1].",
       "cats": "Pothos is unsafe for cats [1].", "humid": "Decrease humidity [1]."}

def pytest_sprout_make_system(config):
    def system(question):
        return ANS[question], [ANS[question].replace(" [1]", "")]
    return system
'''

REPRO_SUITE = """
cases:
  - {id: cups, question: cups, expected_facts: ["2 cups"]}
  - {id: days, question: days, expected_facts: ["every 7 days"]}
  - {id: light, question: light, expected_facts: ["bright indirect light"]}
  - {id: cats, question: cats, expected_facts: ["is safe for cats"]}
  - {id: humid, question: humid, expected_facts: ["increase humidity"]}
"""


def test_facts_with_another_number_or_the_opposite_fail_their_items(pytester: pytest.Pytester) -> None:
    make_project(pytester, suite=REPRO_SUITE, conftest=REPRO_CONFTEST, name="facts")
    result = pytester.runpytest("-m", "groundedness", "--sprout-report=r.json")
    result.assert_outcomes(failed=5)
    result.stdout.fnmatch_lines(["*missing expected fact '2 cups': best near miss '20 cups'*not counted: "
                                 "'20 cups' gives another number*"])
    rows = json.loads((pytester.path / "r.json").read_text(encoding="utf-8"))["items"]
    assert all(row["metrics"]["facts"] == [False] for row in rows)
    assert not any("facts_by_lemma" in (row.get("extra") or {}) for row in rows)
