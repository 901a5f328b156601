"""One word put in the place of another (issue 26, rules_version 16, read off the mutants of real
LLM answers that the judge accepted): an antonym, a hedge or a unit between the same words as in
the evidence; a modal against an evidence clause that holds the whole claim clause; a name taken
from a sentence that says nothing else of the claim, or from another sentence of the passage
where the sentence that states the rest has a name of its own."""

from __future__ import annotations

import pytest

from pytest_sprout.judges.lexical import LexicalJudge, analyse
from pytest_sprout.judges.lexical.names import check_displaced_name, check_name_alone
from pytest_sprout.judges.lexical.passage import _prepare_passage
from pytest_sprout.judges.lexical.rules import substitutions

judge = LexicalJudge().judge


@pytest.mark.parametrize(("claim", "passage", "said"), [
    # the antonym of the claim's word, though the evidence holds nothing else the claim lacks
    ("The strength gradually decreases as the key length grows.",
     "The strength gradually increases as the key length grows.", "'decreases' where the evidence says its antonym 'increases'"),
    # WordNet's indirect antonyms go one way ("different" -> "similar"): either way round counts
    ("As with many scams, like-farming has several similar aims.",
     "As with many scams, like-farming has several different aims.", "'similar' where the evidence says its antonym 'different'"),
    # both negated: "not impossible" is not "not possible"
    ("On the Kelvin scale it is not impossible to go below zero.",
     "On the Kelvin scale it is not possible to go below zero.", "'impossible' where the evidence says its antonym 'possible'"),
    # the evidence's antonym is a hedge, no content word of its own
    ("Regular patrol officers unlikely utilize Level II vests.",
     "Regular patrol officers likely utilize Level II vests.", "'unlikely' where the evidence says its antonym 'likely'"),
])
def test_an_antonym_in_the_place_of_the_evidence_word_is_caught(claim: str, passage: str, said: str) -> None:
    verdict = judge(claim, [passage])
    assert (verdict.supported, verdict.rule) == (False, "antonym"), verdict.reason
    assert said in verdict.reason
    assert judge(passage, [passage]).supported is True


def test_a_claim_that_negates_the_word_says_its_antonym() -> None:
    # "less comfortable" is what "uncomfortable" says, between the same words or not
    assert judge("Solid tires give a less comfortable ride.", ["Solid tires give an uncomfortable ride."]).rule != "antonym"
    assert judge("Tires give a less comfortable ride.", ["Solid tires give an uncomfortable ride."]).rule != "antonym"


def test_evidence_that_says_both_words_may_say_either() -> None:
    higher, lower = analyse("A higher image setting makes large files."), analyse("A lower image setting makes small files.")
    claim = analyse("Lower image settings make large files.")
    # against the first sentence alone, "Lower" stands where it says "higher" (at the opening)
    assert [(p, s.text, q) for p, s, q in substitutions(claim, [higher])] == [(0, higher.text, 0)]
    # with the second, the evidence says "lower" too: at an end, that is no substitution; "large"
    # between "make" and "files" against the second's "small" still is
    assert [(claim.seq[p], s.seq[q]) for p, s, q in substitutions(claim, [higher, lower])] == [("larg", "small")]
    # a sentence that holds every word of the claim has none in another's place
    assert list(substitutions(analyse("A higher image setting makes files."), [higher])) == []


@pytest.mark.parametrize(("claim", "passage", "said"), [
    ("The accused may spend years in detention while the case is pending.",
     "The accused may spend months in detention while the case is pending.", "'years' where the evidence says 'months'"),
    ("Bigger boards can accommodate riders with larger yards.",
     "Bigger boards can accommodate riders with larger feet.", "'yards' where the evidence says 'feet'"),
])
def test_a_unit_in_the_place_of_another_of_its_dimension_is_caught(claim: str, passage: str, said: str) -> None:
    verdict = judge(claim, [passage])
    assert (verdict.supported, verdict.rule) == (False, "number"), verdict.reason
    assert said in verdict.reason


def test_a_unit_of_another_dimension_or_an_ordinal_is_no_unit_swap() -> None:
    # "second" is an ordinal as often as a unit; "miles" and "hours" measure different things
    assert judge("The second theory has to do with trade.", ["The first theory has to do with trade."]).rule != "number"
    assert judge("The drive took many miles.", ["The drive took many hours."]).rule != "number"


def test_a_modal_against_a_clause_that_holds_the_whole_claim_clause_is_decisive() -> None:
    # the evidence lacks words of the claim's second clause, but one of its clauses holds all of
    # the first and says "can" where the claim says "must": no longer only weighed
    verdict = judge("The heat must heighten the flavors in foods, but it can also cause the oils to turn rancid.",
                    ["Simply put, heat can heighten the flavors in foods. The oil ends up tasting rancid, too."])
    assert (verdict.supported, verdict.rule) == (False, "quantifier"), verdict.reason
    assert "claim says 'must' but evidence says 'can'" in verdict.reason


def test_a_name_from_a_sentence_that_says_nothing_else_of_the_claim_is_stitched() -> None:
    passage = "The enzyme cuts the DNA strand. It was found in bacteria. Many labs use it. Image: Getty Images."
    prepared = [_prepare_passage(passage)]
    claim = analyse("The Getty Images enzyme cuts the DNA strand.")
    window = (analyse("The enzyme cuts the DNA strand."), analyse("Image: Getty Images."))
    failure = check_name_alone(claim, window, ((0, 0), (0, 3)), prepared)
    assert failure is not None and failure[0] == "stitched"
    assert "name 'Getty Images' comes from a sentence that says nothing else of the claim" in failure[1]
    # next to the sentence that says the rest, it may be what "it" there names
    assert check_name_alone(claim, window, ((0, 0), (0, 1)), prepared) is None
    # a name the passages keep coming back to is what they are about
    about = [_prepare_passage("Getty Images sells photos. Getty Images licenses them. " + passage)]
    assert check_name_alone(claim, window, ((0, 2), (0, 5)), about) is None


def test_a_name_in_the_place_of_another_with_one_word_of_six_missing_is_displaced() -> None:
    best = analyse("Last year Roth and colleagues showed that THC treatment of liver cells caused a dose dependent"
                   " increase in gene transcription.")
    claim = analyse("Last year Tashkin and colleagues found that THC treatment of liver cells caused a dose dependent"
                    " increase in gene transcription.")
    failure = check_displaced_name(claim, best)
    assert failure == ("entity", "claim has 'Tashkin' where its evidence sentence has 'Roth'")
    # the name and the missing word may be what another evidence sentence adds ("she" names Marie
    # Curie); a sentence next to it may name what it calls "it"
    other = analyse("Tashkin and colleagues found a link to lung cancer.")
    assert check_displaced_name(claim, best, (), (best, other), ((0, 0), (0, 5))) is None
    beside = analyse("Tashkin studied lung cancer in smokers.")
    assert check_displaced_name(claim, best, (), (best, beside), ((0, 0), (0, 1))) is None
    assert check_displaced_name(claim, best, (), (best, beside), ((0, 0), (0, 5))) == failure
    # three of the claim's fourteen other words missing: too much of it is not in the sentence to call it a copy
    loose = analyse("Last year Tashkin and colleagues found that THC treatment of kidney cells caused a dose dependent"
                    " rise in gene transcription.")
    assert check_displaced_name(loose, best) is None


def test_a_rival_name_may_be_a_word_the_claim_has_elsewhere() -> None:
    passage = ("The Tar Baby is a decoy object from the 1946 Disney film Song of the South. Although its provenance"
               " rests in African folklore, the term is viewed by some Americans as having a negative connotation"
               " towards African Americans.")
    claim = ("Although its provenance rests in African folklore, the term is viewed by some Americans as having a"
             " negative connotation towards Disney.")
    verdict = judge(claim, [passage])
    assert (verdict.supported, verdict.rule) == (False, "entity"), verdict.reason
    assert "claim has 'Disney' where an evidence sentence has 'African'" in verdict.reason


def test_a_sentence_opening_word_is_a_name_with_a_capital_inside_or_another_name_after_it() -> None:
    assert analyse("CRISPR gene editing has made its way into labs.").names() == {"crispr": "CRISPR"}
    assert analyse("Getty Images owns the photo.").names() == {"getti": "Getty", "imag": "Images"}
    assert analyse("Scientists found it in Boston.").names() == {"boston": "Boston"}
    verdict = judge("Getty Images gene editing has made its way into labs around the world.",
                    ["Image: Getty Images. CRISPR-Cas9 gene editing has made its way into labs around the world."])
    assert (verdict.supported, verdict.rule) == (False, "entity"), verdict.reason


def test_a_relation_word_where_the_evidence_has_its_opposite_is_caught() -> None:
    passage = "Hot water that remains on the skin continues to warm the body after a shower."
    verdict = judge("Hot water that remains on the skin continues to warm the body before a shower.", [passage])
    assert (verdict.supported, verdict.rule) == (False, "antonym"), verdict.reason
    assert "claim says 'before' where the evidence says 'after'" in verdict.reason
    cut = "Cut off at least 1 inch around and below the moldy spot."
    assert judge("Cut off at least 1 inch around and above the moldy spot.", [cut]).rule == "antonym"


def test_the_same_order_said_the_other_way_round_passes() -> None:
    # "A before B" for "B after A": other neighbours, no opposite in place
    verdict = judge("The storm arrived before the rain started.", ["The rain started after the storm arrived."])
    assert verdict.rule != "antonym", verdict.reason
