"""A clause added to a sentence of the evidence, and a name put in the place of another (issue 26,
items 1 and 2): what the evidence holds only through the rest of the claim, or only in another
sentence away from the words around it, does not support the claim."""

from __future__ import annotations

import pytest

from pytest_sprout.judges.lexical import LexicalJudge, analyse
from pytest_sprout.judges.lexical.evidence import _added_clause
from pytest_sprout.judges.lexical.names import check_displaced_name, check_name_in_place

judge = LexicalJudge().judge

# --- an added clause: its only covered word is a word of the rest of the claim ----------------------


@pytest.mark.parametrize(("claim", "passage", "shown"), [
    # 'roots' is the first clause's 'rooted': the added clause has no word of its own in the evidence
    ("Snake plant leaves can be rooted in soil or water, because the roots store extra sugar at night.",
     "Snake plant leaves can be rooted in soil or water. Keep them warm.", "store extra sugar night"),
    # one word of its own ('keeps', from the next sentence) is no sign the evidence says it
    ("Pothos does well in normal household air, and this also keeps slugs away.",
     "Pothos does well in normal household air. Trim long vines to keep the plant bushy.", "slugs away"),
])
def test_a_clause_the_evidence_holds_only_through_the_rest_of_the_claim_is_caught(
        claim: str, passage: str, shown: str) -> None:
    verdict = judge(claim, [passage])
    assert (verdict.supported, verdict.rule) == (False, "clause"), verdict.reason
    assert verdict.reason.startswith(f"the clause '{shown}' is not in the evidence")


@pytest.mark.parametrize(("claim", "passage"), [
    # the last clause has two words of its own in the evidence: a paraphrase, not an addition
    ("Peace lilies like shade, and their leaves droop when the soil gets dry.",
     "Peace lilies like shade. Their leaves droop when they are thirsty."),
    # the evidence lacks words of the other clauses too: left to the coverage and the score
    ("Peace lilies love deep shade, and they bloom during the summer months.",
     "Peace lilies like shade. They bloom in summer."),
])
def test_a_last_clause_with_words_of_its_own_or_other_gaps_is_no_added_clause(claim: str, passage: str) -> None:
    verdict = judge(claim, [passage])
    assert verdict.rule != "clause" or not verdict.reason.startswith("the clause"), verdict.reason


def test_added_clause_reads_the_last_clause_only() -> None:
    ours = analyse("The roots store extra sugar at night, and snake plant leaves can be rooted in water.")
    uncovered = {k for k in ours.keys if k not in analyse("Snake plant leaves can be rooted in water.").keys}
    assert _added_clause(ours, uncovered) is None  # the uncovered clause comes first
    one = analyse("Snake plants store extra sugar at night.")
    assert _added_clause(one, set(one.keys)) is None  # one clause: the rest of the claim is nothing


# --- a name in the place of another name of the sentence that says the rest --------------------------


def test_a_name_from_another_sentence_in_the_place_of_the_evidence_name_is_caught() -> None:
    claim = "These cables lack the firm holding pressure of a VGA connector."
    verdict = judge(claim, ["These cables lack the holding pressure of a USB connector. A VGA cable is firm."])
    assert (verdict.supported, verdict.rule) == (False, "entity"), verdict.reason
    assert "claim has 'VGA' where an evidence sentence has 'USB'" in verdict.reason


@pytest.mark.parametrize(("claim", "passage"), [
    # the other sentence states the name next to the claim's words: in its place
    ("These cables lack the firm holding pressure of a VGA connector.",
     "These cables lack the holding pressure of a USB connector. A VGA connector is firm."),
    # a month is part of a date, for the date rule: no name to put in place of another
    ("The cables lack the firm holding pressure of a January connector.",
     "The cables lack the holding pressure of a USB connector. January cables are firm."),
    # no other name stands in its place: a name stated in one sentence joined to what another says
    ("In Germany, only parties that pass a 5-percent threshold take seats in parliament.",
     "Germany has a federal parliament. Only parties that pass a 5-percent threshold take seats in parliament."),
])
def test_a_name_in_place_or_with_no_rival_is_not_displaced(claim: str, passage: str) -> None:
    sentences = [analyse(s + ".") for s in passage.rstrip(".").split(". ")]
    assert check_name_in_place(analyse(claim), sentences) is None
    assert judge(claim, [passage]).rule != "entity"


# --- no rival: a month (or its abbreviation), a weekday or a heading in capitals is no name to displace


@pytest.mark.parametrize(("claim", "passage"), [
    # the evidence sentence's other capitalised word is a month's abbreviation, a date's
    ("Hamamatsu Base is in Shizuoka Prefecture.", "Hamamatsu is in Shizuoka Prefecture, since Oct. 1, 1956."),
    # ... or an English word in capitals, a heading
    ("Slash toured with Velvet Revolver in Texas.", "The story PUBLISHED here: Slash toured with Velvet Revolver."),
])
def test_a_month_or_a_heading_is_no_rival_name(claim: str, passage: str) -> None:
    assert check_displaced_name(analyse(claim), analyse(passage)) is None
    assert check_displaced_name(analyse(claim), analyse(passage.replace("Oct.", "Osaka").replace("PUBLISHED", "Slate")))


def test_a_weekday_is_no_rival_but_for_a_weekday() -> None:
    said = "The European Union on Thursday said it will take action against the United States."
    verdict = judge("The EU has said it will take action against the United States.", [said])
    assert verdict.supported is True, verdict.reason
    swapped = judge("The European Union on Monday said it will take action against the United States.", [said])
    assert (swapped.supported, swapped.rule) == (False, "entity"), swapped.reason
    assert "'Monday'" in swapped.reason and "'Thursday'" in swapped.reason


def test_a_month_that_another_evidence_sentence_holds_is_not_displaced() -> None:
    claim = analyse("Alice in Chains joined Velvet Revolver for gigs from August through October.")
    best = analyse("The story PUBLISHED here: Velvet Revolver and Alice in Chains joined for gigs through October.")
    assert check_displaced_name(claim, best, uncovered=()) is None  # "August" is in another evidence sentence
    assert check_displaced_name(analyse(claim.text.replace("August", "Boston")), analyse(best.text.replace(
        "PUBLISHED", "Slate")), uncovered=("boston",)) is not None


def test_a_name_displaced_by_a_real_name_is_still_caught() -> None:
    verdict = judge("It is based at Hamamatsu Air Base in Osaka.", ["Hamamatsu Air Base, Shizuoka, formed Oct. 1, 1956."])
    assert (verdict.supported, verdict.rule) == (False, "entity"), verdict.reason
    assert "'Shizuoka'" in verdict.reason


def test_a_month_the_passage_abbreviates_is_in_the_passage() -> None:
    assess = LexicalJudge().assess
    _, found = assess("Paterson died in November 2018 at the age of 78.", ["Paterson died Nov 2018, aged 78."])
    assert found is not None and found.names_missing == 0
    _, found = assess("Paterson died in November 2018 at the age of 78.", ["Paterson died in 2018, aged 78."])
    assert found is not None and found.names_missing == 1


# --- a name written by its initials or in full -------------------------------------------------------


def test_a_name_the_passage_writes_by_its_initials_is_in_the_passage() -> None:
    assess = LexicalJudge().assess
    for claim, passage in [
        ("Lee was born in the United States in 1990.", "Lee was born in the U.S. in 1990."),
        ("The EU will answer the tariffs.", "The European Union will answer the tariffs."),
        ("Build the PC in the UK.", "Build the PC in the United Kingdom."),
    ]:
        _, found = assess(claim, [passage])
        assert found is not None and found.names_missing == 0, claim
    _, found = assess("Lee was born in the United States in 1990.", ["Lee was born in Utah in 1990."])
    assert found is not None and found.names_missing == 2  # "United", "States": not "U.S." nor "US"


def test_a_name_and_its_initials_are_no_rivals() -> None:
    claim = analyse("The EU has said it will act against the tariffs.")
    assert check_displaced_name(claim, analyse("The European Union has said it will act against the tariffs.")) is None
    assert check_displaced_name(claim, analyse("The African Union has said it will act against the tariffs."))
