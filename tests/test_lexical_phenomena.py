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


# --- units: an amount matches the same amount in another unit of its dimension -------------------


@pytest.mark.parametrize(("claim", "passage"), [
    ("The rounds weigh 10 kg.", "The rounds weigh 23 pounds."),  # 10.4 kg, written rounded
    ("The tower is 448 feet tall.", "The tower is 136.6 m tall."),
    ("The trail is 5 miles long.", "The trail is 8 km long."),
    ("Keep it at 59°F.", "Keep it at 15°C."),
    ("Add 2 cups of water.", "Add 473 ml of water."),
    ("The film lasts 90 minutes.", "The film lasts 1.5 hours."),
    ("Keep it with 56 days of rainwater.", "Keep it with 8 weeks of rainwater."),
    ("Repot it every 18 months.", "Repot it every 1.5 years."),  # a rate, per period converted
])
def test_an_amount_matches_its_conversion_into_another_unit(claim: str, passage: str) -> None:
    verdict = judge(claim, passage)
    assert verdict.supported is True, verdict.reason


@pytest.mark.parametrize(("claim", "passage"), [
    ("The tower is 500 feet tall.", "The tower is 136.6 m tall."),
    ("Keep it at 70°F.", "Keep it at 15°C."),
    ("The film lasts 2 hours.", "The film lasts 90 minutes."),
    ("The pot is 10 cm wide.", "The pot is 10 inches wide."),  # the same number in another unit
    ("The bag weighs 10 kg.", "The bag weighs 10 litres."),  # another dimension: never converted
    ("Repot it every 2 years.", "Repot it every 18 months."),
    ("Keep it with 54 days of rainwater.", "Keep it with 8 weeks of rainwater."),  # durations convert exactly
])
def test_a_conversion_that_differs_is_still_caught(claim: str, passage: str) -> None:
    verdict = judge(claim, passage)
    assert (verdict.supported, verdict.rule) == (False, "number"), verdict.reason


def test_a_conversion_in_brackets_has_the_bound_of_what_it_converts() -> None:
    passage = "Keep it above 10°C (50°F) in winter."
    assert judge("Keep it above 50°F in winter.", passage).supported is True
    verdict = judge("Keep it below 50°F in winter.", passage)
    assert (verdict.supported, verdict.rule) == (False, "number"), verdict.reason
    assert "claim says 'below 50°f' but evidence says" in verdict.reason


@pytest.mark.parametrize(("claim", "passage", "supported"), [
    ("The change takes effect in the 2018–19 academic year.", "The change takes effect in the 2018-2019 academic year.",
     True),
    ("The change takes effect in the 2018–19 academic year.", "The change takes effect in the 2018-2020 academic year.",
     False),
    ("The club won the 1999-00 season.", "The club won the 1999-2000 season.", True),
    ("The court ruled by a vote of 5-4.", "The court ruled by a 5-to-4 vote.", True),
    ("The court ruled by a vote of 6-3.", "The court ruled by a 5-to-4 vote.", False),
])
def test_abbreviated_year_ranges_and_scores_are_read_whole(claim: str, passage: str, supported: bool) -> None:
    verdict = judge(claim, passage)
    assert verdict.supported is supported, verdict.reason


# --- frequencies: a rate matches only the same rate -------------------------------------------------


@pytest.mark.parametrize(("claim", "passage"), [
    ("Water it daily.", "Water it every day."),
    ("Water it every day.", "Water it daily."),
    ("Water it twice a week.", "Water it 2 times per week."),
    ("Water it 2 times per week.", "Water it twice a week."),
    ("Water it weekly.", "Water it once a week."),
    ("Water it once a week.", "Water it weekly."),
    ("Feed it once a month.", "Feed it monthly."),
    ("Water it every 14 days.", "Water it fortnightly."),  # a period counted in its largest whole unit
    ("Check it every 24 hours.", "Check it daily."),
    ("Give it at least six hours of sun daily.", "Give it at least 6 hours of sun a day."),
    ("The deal pays $10 million annually.", "The deal pays $10 million per year."),
])
def test_a_frequency_matches_the_same_rate_however_written(claim: str, passage: str) -> None:
    verdict = judge(claim, passage)
    assert verdict.supported is True, verdict.reason


@pytest.mark.parametrize(("claim", "passage", "number"), [
    # a frequency is not a bare number, a count, a year, a date or a duration
    ("Item 10 needs fact 1 and sunshine daily.", "Item 10 needs fact 1 and care.", "daily"),
    ("Item 10 needs fact 0 and sunshine daily.", "Item 10 needs fact 0 and care.", "daily"),
    ("The plant is watered weekly.", "The plant is watered 1 time.", "weekly"),
    ("The plant was watered once a month.", "The plant was watered in 2011.", "once a month"),
    ("The plant was watered every 3 days.", "The plant was watered for 3 days.", "every 3 days"),
    ("The plant was watered twice a week.", "The plant was watered on 2 March 2011.", "twice a week"),
    # a bare number is not satisfied by a frequency, nor by "a day"
    ("Item 1 is watered.", "Item is watered daily.", "1"),
    ("Item 1 is watered.", "Item is watered twice a day.", "1"),
    ("Item 1 gets sun.", "Item gets 6 hours of sun a day.", "1"),
    # another rate
    ("Water it weekly.", "Water it twice a week.", "weekly"),
    ("Water it daily.", "Water it every 2 days.", "daily"),
    ("Water it three times a day.", "Water it twice a day.", "three times a day"),
    ("Water it every 2 weeks.", "Water it every 3 weeks.", "every 2 weeks"),
])
def test_a_frequency_and_a_plain_number_never_stand_for_each_other(claim: str, passage: str, number: str) -> None:
    verdict = judge(claim, passage)
    assert (verdict.supported, verdict.rule) == (False, "number"), verdict.reason
    assert f"'{number}'" in verdict.reason


def test_every_other_and_every_nth_period_are_rates() -> None:
    def rates(text: str) -> list[tuple[float, str | None]]:
        return [(round(n.lo, 3), n.unit) for n in Sentence(text).numbers]

    assert rates("Water it every other day.") == [(0.5, "/day")]
    assert rates("Feed it every second week.") == [(0.5, "/week")]  # not once a second
    assert rates("Feed it every third month.") == [(0.333, "/month")]
    assert rates("Check it every second.") == [(1.0, "/second")]
    assert "second" not in Sentence("Feed it every second week.").seq  # the ordinal is the number's
    assert judge("Water it every other day.", "Water it every 2 days.").rule != "number"
    for claim, passage in (("Water it every other day.", "Water it daily."),
                           ("Feed it every third month.", "Feed it monthly.")):
        verdict = judge(claim, passage)
        assert (verdict.supported, verdict.rule) == (False, "number"), verdict.reason


def test_frequencies_are_read_as_rates() -> None:
    rates = {text: [(n.text, n.lo, n.hi, n.unit) for n in Sentence(text).numbers] for text in (
        "Water it twice daily.", "Water it 2-3 times a week.", "Water it every 2 to 3 weeks.",
        "It grows 2 cm per year.")}
    assert rates == {
        "Water it twice daily.": [("twice daily", 2.0, 2.0, "/day")],
        "Water it 2-3 times a week.": [("2-3 times a week", 2.0, 3.0, "/week")],
        "Water it every 2 to 3 weeks.": [("every 2 to 3 weeks", 1 / 3, 1 / 2, "/week")],
        "It grows 2 cm per year.": [("2 cm", 2.0, 2.0, "cm"), ("per year", 1.0, 1.0, "/year")],
    }


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


def test_a_derivationally_related_form_covers_a_word_and_is_named() -> None:
    assert lexicon.derived("explanation") >= {"explain"} and lexicon.derived("easily") >= {"easy"}
    verdict = judge("The explanation of the crash was simple.", "They explain the crash simply.")
    assert verdict.supported is True and "related forms 'explanation'~'explain'" in verdict.reason
    # A synonym is tried first, and named as one.
    both = judge("The movie was an emotional success.", "The film was a success that moved people with emotion.")
    assert "synonyms 'movie'~'film'" in both.reason and "related forms 'emotional'~'emotion'" in both.reason


def test_an_agent_noun_is_not_a_related_form_of_what_it_does() -> None:
    # "growers" is not "grow": an appended clause about growers stays uncovered in a plant passage.
    assert "grow" not in lexicon.derived("grower") and "grower" not in lexicon.derived("grow")
    assert "photograph" not in lexicon.derived("photographer") and "growth" in lexicon.derived("grow")
    verdict = judge("Ferns grow in shade, a tip that greenhouse growers pass on to beginners.",
                    "Ferns grow in shade. They grow slowly in winter.")
    assert verdict.supported is False and "growers" in verdict.reason, verdict.reason


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
    """The features of a known claim, each from its definition (not from the judge's code), and the
    score as the logistic model of calibration.py written out."""
    import math

    from pytest_sprout.judges.lexical.text import weight

    j = LexicalJudge()
    assert len(calibration.COEFFICIENTS) == len(calibration.FEATURES)
    verdict, found = j.assess("Snake plants tolerate low light in winter.", ["Snake plants tolerate low light."])
    assert found is not None
    held = [weight(w) for w in ("snake", "plants", "tolerate", "low", "light")]
    share = sum(held) / (sum(held) + weight("winter"))  # IDF-weighted: "winter" alone is missing
    expected = {"coverage": 5 / 6, "weighted_coverage": share, "uncovered_weight": weight("winter"),
                "uncovered_clause": 0.0, "extra_sentences": 0, "rule_failed": 0.0, "names_missing": 0,
                "several_passages": 0.0, "rarest_missing": weight("winter"), "passage_weighted": share,
                "log_sentences": math.log(2), "single_sentence": 5 / 6,
                "linked_pairs": 1.0}  # one sentence of evidence holds every pair of the claim's words
    assert set(expected) == set(calibration.FEATURES)
    features = dict(zip(calibration.FEATURES, found.features()))
    assert features == pytest.approx(expected)
    logit = calibration.INTERCEPT
    for name, coefficient in zip(calibration.FEATURES, calibration.COEFFICIENTS):
        logit += coefficient * expected[name]
    assert verdict.score == pytest.approx(1 / (1 + math.exp(-logit)))
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
            "print(l.lexicon._lemma_table.cache_info().currsize, l.lexicon._wn.cache_info().currsize,"
            " 'numpy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["0", "0", "False"]


# --- polarity in scope (issue 26, item 3): a cue counts only in the clause aligned with the claim ------


@pytest.mark.parametrize(("claim", "passage"), [
    # "no" before a number abbreviates "number": no negation
    ("Smith wore the jersey for Leeds.", "Smith wore the no 1 jersey for Leeds last season."),
    ("He was given the shirt.", "He was given the no 10 shirt."),
    # a clause opened by a subordinator or "and" with a subject keeps its cue to itself
    ("Smith won the race at Ascot.", "Not a single bet was placed on Smith before he won the race at Ascot."),
    ("Jones said the team played well.", "Jones said the team played well and that the fans may support him."),
    ("Jones said the team played well.", "Jones said the team played well, and he may stay next season."),
])
def test_a_cue_in_another_clause_of_the_evidence_sentence_is_no_conflict(claim: str, passage: str) -> None:
    verdict = judge(claim, passage)
    assert verdict.supported is True, verdict.reason


@pytest.mark.parametrize(("claim", "passage", "rule"), [
    ("A bet was placed on Smith.", "Not a single bet was placed on Smith before he won the race at Ascot.", "negation"),
    ("Jones said the fans must support him.", "Jones said the team played well and that the fans may support him.",
     "quantifier"),
    ("Smith wore no jersey for Leeds.", "Smith wore the jersey for Leeds last season.", "negation"),
    ("Cats do not bite.", "Cats and dogs bite.", "negation"),  # "and" between nouns opens no clause
])
def test_a_cue_in_the_aligned_clause_still_conflicts(claim: str, passage: str, rule: str) -> None:
    verdict = judge(claim, passage)
    assert (verdict.supported, verdict.rule) == (False, rule), verdict.reason


def test_a_hedge_dropped_in_the_aligned_clause_is_no_conflict() -> None:
    verdict = judge("Jones said the fans will support him.", "Jones said the team played well and that the fans may"
                    " support him.")
    assert verdict.supported is True, verdict.reason


def test_evidence_gathered_from_several_sentences_is_checked_only_for_the_claims_own_classes_of_cue() -> None:
    # The claim says "can" (modality); the other sentence's "some" (quantity) is about something else.
    claim = "Editing can create new traits."
    verdict = judge(claim, "Some techniques create new traits quickly. Editing is one technique.")
    assert len(verdict.evidence.split(". ")) == 2 and verdict.supported is True, verdict.reason
    # ... but a hedge of the claim's own class still counts.
    hedged = judge("Editing always creates new traits.", "Some techniques sometimes create new traits. Editing is one technique.")
    assert (hedged.supported, hedged.rule) == (False, "quantifier"), hedged.reason


# --- a negation no evidence sentence says (rules_version 11) ------------------------------------------
# A claim that negates what its evidence states, where the evidence lacks some of the claim's words,
# was only weighed (the score decided, and the score does not read the conflict). It is rejected now
# when no sentence of the evidence negates anything, not even in other words: that is how a sentence
# is reversed ("is" -> "is not"); a paraphrase of a negated fact says "no" somehow.


@pytest.mark.parametrize(("claim", "passage"), [
    ("The estate was not administered by his mother Afeni Shakur after his death.",
     "The estate was administered by his mother, Afeni Shakur, who sued Entertainment One in 2013."),
    ("Exercise does not strengthen the heart muscle of older runners.",
     "Exercise strengthens the heart muscle, enabling it to pump more blood with each beat."),
])
def test_a_negation_that_no_evidence_sentence_says_is_rejected(claim: str, passage: str) -> None:
    verdict = judge(claim, passage)
    assert (verdict.supported, verdict.rule) == (False, "negation"), verdict.reason
    assert "no evidence clause about it negates anything" in verdict.reason
    # the same claim without the negation is supported by the same passage
    assert judge(claim.replace(" not ", " ").replace("does strengthen", "strengthens"), passage).supported is True


@pytest.mark.parametrize(("claim", "passage"), [
    ("King George spoke no English at his coronation.", "King George was a Hanoverian who spoke zero English."),
    ("Tobacco is not allowed in the community.", "The community is against the use of tobacco."),
    ("The estate was not administered by his mother after his death.",
     "The estate is administered by the mother unless a will says otherwise."),
    ("Lean removes steps that do not add value for customers.", "Lean drives out non-value added steps and processes."),
    ("The old lamp does not give light in the evening.", "The old lamp barely gives light."),
])
def test_a_negation_the_evidence_says_in_other_words_is_still_only_weighed(claim: str, passage: str) -> None:
    verdict = judge(claim, passage)
    assert verdict.supported is True, verdict.reason
    assert "weighed" in verdict.reason


def test_a_negation_that_names_the_other_side_of_a_comparison_is_only_weighed() -> None:
    evidence = "Fish living around coral reefs are bright and more colorful than others."
    contrast = judge("Reef fish appear more colorful than fish that don't live around coral reefs.", evidence)
    assert contrast.supported is True and "weighed" in contrast.reason, contrast.reason
    negated = judge("Reef fish appear more colorful and do not live around coral reefs.", evidence)
    assert (negated.supported, negated.rule) == (False, "negation"), negated.reason


# A negated claim clause that no evidence clause shares two words with (the evidence splits them:
# "Advil (Ibuprofen) will tend to be more effective") is rejected the same way, when an evidence
# sentence holds two of its words and none of those sentences says "no"; and one whose every word an
# evidence sentence states, with no negated clause of that sentence on those words, is rejected even
# when another part of that sentence says "no" ("impossible").


def test_a_negation_no_evidence_clause_matches_is_rejected() -> None:
    evidence = "Advil (Ibuprofen) will tend to be more effective when inflammation is involved."
    negated = judge("Ibuprofen is not typically more effective when inflammation is involved.", evidence)
    assert (negated.supported, negated.rule) == (False, "negation"), negated.reason
    assert "no evidence clause about it negates anything" in negated.reason
    assert judge("Ibuprofen is typically more effective when inflammation is involved.", evidence).supported is True


def test_a_negation_of_what_one_evidence_sentence_says_whole_is_rejected() -> None:
    evidence = ("Although the new direction is impossible to predict, the angular momentum must remain constant"
                " in an isolated system.")
    negated = judge("This law states that in an isolated system, the angular momentum must not remain constant.",
                    evidence)
    assert (negated.supported, negated.rule) == (False, "negation"), negated.reason
    # the "no" of that sentence ("impossible") is in another clause: no paraphrase of the claim's negation
    assert "no evidence clause about it negates anything" in negated.reason
    kept = judge("This law states that in an isolated system, the angular momentum must remain constant.", evidence)
    assert kept.supported is True, kept.reason
    # the evidence negates those very words: agreement, not a conflict
    same = judge("This law states that in an open system, the angular momentum does not remain constant.",
                 "Although it is hard to predict, the angular momentum does not remain constant in an open system.")
    assert same.supported is True, same.reason


def test_a_negation_dropped_from_evidence_gathered_from_two_sentences_is_rejected() -> None:
    evidence = ("Salivary stones form when chemicals in the saliva accumulate in the duct or gland."
                " The exact cause is not known.")
    dropped = judge("Salivary stones form when chemicals in the saliva accumulate in the duct, but the exact cause"
                    " is known.", evidence)
    assert (dropped.supported, dropped.rule) == (False, "negation"), dropped.reason
    assert "evidence negates 'known'" in dropped.reason
    kept = judge("Salivary stones form when chemicals in the saliva accumulate in the duct, but the exact cause"
                 " is not known.", evidence)
    assert kept.supported is True, kept.reason
    # an evidence clause of one word is no sign the claim restates it ("not known" elsewhere)
    one_word = judge("Salivary stones form when chemicals in the saliva accumulate in the duct and are known.",
                     "Salivary stones form when chemicals in the saliva accumulate in the duct or gland. Not known.")
    assert one_word.rule != "negation", one_word.reason


def test_what_says_no() -> None:
    from pytest_sprout.judges.lexical.polarity import says_no

    assert says_no(Sentence("The parts are mold-free."))
    assert says_no(Sentence("He failed to win."))
    assert says_no(Sentence("It is not here."))
    assert not says_no(Sentence("The parts are free of charge on Fridays."))
    assert not says_no(Sentence("The estate was administered by his mother."))


# --- stitched: a predicate the evidence says of another subject (issue 26, item 1; rules_version 11) ---


@pytest.mark.parametrize(("claim", "passage", "subject", "other"), [
    ("Body armor typically wears a vest rated at level three.",
     "Police patrol officers typically wear a vest rated at level three. Body armor is heavy.",
     "Body armor", "Police patrol officers"),
    ("Scammers often give people emotional reasons to click and share.",
     "Scammers create eye-catching posts. Posts often give people emotional reasons to click and share.",
     "Scammers", "Posts"),
    ("The main culprit usually shows up within thirty minutes of eating.",
     "The main culprit is asparagusic acid. Asparagus pee usually shows up within thirty minutes of eating.",
     "The main culprit", "Asparagus pee"),
])
def test_a_subject_given_the_predicate_another_sentence_says_of_something_else_is_stitched(
        claim: str, passage: str, subject: str, other: str) -> None:
    verdict = judge(claim, passage)
    assert (verdict.supported, verdict.rule) == (False, "stitched"), verdict.reason
    # the reason names both sentences: the one with the predicate, and the one with the subject
    assert f"'{subject}'" in verdict.reason and f"of '{other}'" in verdict.reason
    assert "from another sentence" in verdict.reason


@pytest.mark.parametrize(("claim", "passage"), [
    # linked by a pronoun or "the" + noun that refers back: such a subject is not read as another thing
    ("Acme reported record profits in its home market.",
     "Acme opened a store in Ohio. It reported record profits in its home market."),
    ("Acme reported record profits in its home market.",
     "Acme opened a store in Ohio. The company reported record profits in its home market."),
    # the predicate's sentence names the claim's subject too
    ("Police officers typically wear a vest rated at level three.",
     "Police patrol officers typically wear a vest rated at level three. Body armor is heavy."),
    # the subject's own sentence states the predicate; the other sentence adds a detail
    ("Body armor is heavy and uncomfortable for patrol officers.",
     "Police patrol officers typically wear a vest. Body armor is heavy and uncomfortable."),
])
def test_linked_or_unsplit_evidence_is_not_stitched(claim: str, passage: str) -> None:
    verdict = judge(claim, passage)
    assert verdict.supported is True, verdict.reason


@pytest.mark.parametrize("claim, passage", [
    ("Small asteroids do not have strong gravity.", "Small asteroids have weak gravity."),
    ("Solid tires give a less comfortable ride.", "Solid tires give an uncomfortable ride."),
    ("Ibuprofen is a non-steroidal drug.", "Ibuprofen is a nonsteroidal drug."),
    # a "no" in another clause of the evidence sentence is about something else
    ("Small asteroids do not have strong gravity.", "Small asteroids have weak gravity, meaning they cannot pull"
     " all the material around them."),
])
def test_a_word_the_claim_negates_says_its_antonym_itself(claim: str, passage: str) -> None:
    # "not strong" is what "weak" says: the antonym in the evidence agrees with the claim.
    verdict = judge(claim, passage)
    assert verdict.rule != "antonym", verdict.reason


def test_an_antonym_the_claim_does_not_negate_is_still_an_antonym() -> None:
    verdict = judge("Small asteroids have strong gravity.", "Small asteroids have weak gravity.")
    assert (verdict.supported, verdict.rule) == (False, "antonym"), verdict.reason
    # The claim negates another word than the one the evidence opposes.
    other = judge("Small asteroids that are not round have strong gravity.", "Small asteroids that are not round have weak gravity.")
    assert (other.supported, other.rule) == (False, "antonym"), other.reason


def test_a_negated_claim_word_against_a_negated_antonym_is_still_an_antonym() -> None:
    # "no internal torques" against "in the absence of external torques": both say no, they disagree.
    verdict = judge("The wheels keep their direction if there are no internal torques.",
                    "The wheels keep their direction in the absence of external torques.")
    assert (verdict.supported, verdict.rule) == (False, "antonym"), verdict.reason
