"""LexicalJudge, second edition: each phenomenon it handles, named in the verdict's reason."""

from __future__ import annotations

import subprocess
import sys

import pytest

from pytest_sprout.judges.lexical import LexicalJudge, Sentence, calibration, lexicon, stem, words_of
from pytest_sprout.judges.lexical.judge import strip_boilerplate


def judge(claim: str, *passages: str, **kwargs):
    return LexicalJudge(**kwargs).judge(claim, list(passages))


# --- numbers: compared by value, whatever the tokeniser did ------------------------------------------


@pytest.mark.parametrize(("claim", "passage"), [
    ("The city had 735,000 residents.", "The city had 735, 000 residents."),
    ("The deal is worth $10 million per year.", "The deal is worth $ 10 - million - per - year ."),
    ("Unemployment fell to 3.5%.", "Unemployment fell to 3.5 % in May."),
    ("He scored two hundred points.", "He scored 200 points."),
    ("The town has 3.5 million people.", "The town has 3,512,000 people."),
])
def test_numbers_match_by_value_across_their_written_forms(claim: str, passage: str) -> None:
    verdict = judge(claim, passage)
    assert verdict.supported is True, verdict.reason


@pytest.mark.parametrize(("claim", "passage"), [
    ("The town has 3.9 million people.", "The town has 3,512,000 people."),  # a scale word rounds by 5% at most
    ("The plant opened in 2007.", "The plant opened in 2000."),
    ("The city had 7,350,000 residents.", "The city had 735, 000 residents."),
])
def test_other_values_are_still_caught(claim: str, passage: str) -> None:
    verdict = judge(claim, passage)
    assert (verdict.supported, verdict.rule) == (False, "number"), verdict.reason


def test_a_list_of_small_numbers_is_not_joined_into_thousands() -> None:
    assert [n.lo for n in Sentence("Ages 5, 10 and 15.").numbers] == [5.0, 10.0, 15.0]
    assert words_of("In 1990, 100 people came") == ["in", "1990", ",", "100", "people", "came"]


# --- evidence scope -----------------------------------------------------------------------------------


def test_a_claim_may_combine_non_adjacent_sentences_and_passages() -> None:
    first = "Marie Curie was born in Warsaw. She studied in Paris. The city was large."
    second = "In 1903 she shared the Nobel Prize in Physics with Pierre Curie."
    verdict = judge("Marie Curie, born in Warsaw, shared the 1903 Nobel Prize in Physics.", first, second)
    assert verdict.supported is True, verdict.reason
    assert "evidence from 2 cited passages" in verdict.reason and "over 2 sentences" in verdict.reason


def test_numbers_and_names_may_come_from_anywhere_in_the_cited_passages() -> None:
    passage = ("The tower opened in 1931. Its architect was William Lamb. "
               "The building rises 443 metres above the street, with 102 floors.")
    verdict = judge("The tower by William Lamb has 102 floors.", passage)
    assert verdict.supported is True, verdict.reason


def test_one_shared_word_does_not_pull_a_far_sentence_into_the_evidence() -> None:
    passage = "Pothos wilts in dry air. Cacti like sun. Snake plants need no fertiliser in winter."
    verdict = judge("Pothos wilts in dry air in winter.", passage, coverage=0.9)
    assert (verdict.supported, verdict.rule) == (False, "coverage")
    assert verdict.evidence == "Pothos wilts in dry air." and "missing: winter" in verdict.reason


def test_a_name_replaced_by_another_name_of_the_passage_is_caught() -> None:
    passage = "The opera Aida was written by Verdi for the opening in Cairo. Later, Tosca was written by Puccini in Rome."
    verdict = judge("The opera Aida was written by Puccini for the opening in Cairo.", passage)
    assert (verdict.supported, verdict.rule) == (False, "entity")
    assert verdict.reason == "claim has 'Puccini' where its evidence sentence has 'Verdi'"


# --- boilerplate --------------------------------------------------------------------------------------


@pytest.mark.parametrize("opening", [
    "Based on the given context, ", "According to the document, ", "The passage states that ",
    "As mentioned in the provided sources, ", "It is stated in the text that ",
])
def test_answer_boilerplate_is_set_aside_and_named(opening: str) -> None:
    verdict = judge(opening + "snake plants tolerate low light.", "Snake plants tolerate low light.")
    assert verdict.supported is True and "boilerplate" in verdict.reason, verdict.reason


def test_boilerplate_alone_or_inside_a_sentence_is_kept() -> None:
    assert strip_boilerplate("According to the document") == ("According to the document", "")
    assert strip_boilerplate("Water it according to the document.")[1] == ""


# --- morphology and lexicon ---------------------------------------------------------------------------


def test_inflections_share_a_key_through_the_lemmatiser() -> None:
    assert stem("won") == stem("win") and stem("mice") == stem("mouse") and stem("children") == stem("child")
    assert stem("leaves") == stem("leaf") and stem("better") == stem("good")
    assert judge("The film won two awards.", "The film wins two awards.").supported is True


def test_a_wordnet_synonym_covers_a_word_and_is_named() -> None:
    verdict = judge("The movie was shot in Spain.", "The film was shot in Spain.")
    assert verdict.supported is True and "synonyms 'movie'~'film'" in verdict.reason


@pytest.mark.parametrize(("claim", "passage", "said"), [
    ("Snake plants tolerate high light.", "Snake plants tolerate low light.", "low"),
    ("Keep the soil wet in winter.", "Keep the soil dry in winter.", "dry"),
    ("The team lost the final in 1998.", "The team won the final in 1998.", "won"),
])
def test_an_antonym_of_an_evidence_word_is_its_own_rule(claim: str, passage: str, said: str) -> None:
    verdict = judge(claim, passage)
    assert (verdict.supported, verdict.rule) == (False, "antonym")
    assert f"its antonym '{said}'" in verdict.reason


def test_a_negated_antonym_in_the_evidence_is_not_an_antonym() -> None:
    assert judge("It is usual to rest.", "It is not unusual to rest.").rule != "antonym"


def test_a_clause_with_no_word_in_the_evidence_is_caught() -> None:
    verdict = judge("Snake plants tolerate low light, which also doubles the growth rate.",
                    "Snake plants tolerate low light.")
    assert (verdict.supported, verdict.rule) == (False, "clause")
    assert verdict.reason.startswith("no word of the clause 'doubles growth rate' is in the evidence")


def test_resources_are_installed_and_licensed_for_use() -> None:
    from importlib import metadata

    assert lexicon.available() == {"lemminflect": True, "wordnet": True}
    assert "MIT" in (metadata.metadata("lemminflect").get_all("Classifier") or [""])[-1] + str(
        metadata.metadata("lemminflect").get_all("Classifier"))
    folder = lexicon._wordnet_dir()
    assert folder is not None
    with open(f"{folder}/LICENSE", encoding="utf-8") as handle:
        assert "Permission to use, copy, modify and distribute" in handle.read()


# --- the calibrated score -----------------------------------------------------------------------------


def test_the_score_is_a_probability_from_the_stored_coefficients() -> None:
    j = LexicalJudge()
    assert len(calibration.COEFFICIENTS) == len(calibration.FEATURES)
    verdict, found = j.assess("Snake plants tolerate low light in winter.", ["Snake plants tolerate low light."])
    assert found is not None and verdict.score == pytest.approx(j.probability(found.features()))
    assert 0.0 < verdict.score < 1.0
    full = j.judge("Snake plants tolerate low light.", ["Snake plants tolerate low light."]).score
    assert verdict.score < full  # less coverage, lower probability
    assert j.settings()["threshold"] == calibration.THRESHOLD and j.settings()["calibration"] == calibration.VERSION


def test_threshold_is_validated() -> None:
    with pytest.raises(ValueError, match="threshold"):
        LexicalJudge(threshold=1.5)


# --- coordination with other fixes -------------------------------------------------------------------


def test_a_detached_contraction_is_a_negation() -> None:
    assert words_of("He did n't go.") == ["he", "did", "not", "go"]
    assert words_of("It ca n't be.") == ["it", "can", "not", "be"]
    assert (judge("He did n't go.", "He went home.").rule) == "negation"
    assert judge("He did n't go.", "He did not go home.").supported is True


def test_the_lexicon_is_not_loaded_at_import() -> None:
    code = ("import sys, pytest_sprout.judges.lexical as l, pytest_sprout.plugin; "
            "print(l.lexicon._lemma_state, l.lexicon._wordnet_state, 'numpy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["unloaded", "unloaded", "False"]
