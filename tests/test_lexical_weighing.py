"""LexicalJudge, rules_version 4: what is decisive and what is weighed by the calibrated score.

A negation or quantifier that disagrees with evidence holding every word of the claim decides the
verdict (the claim is the evidence with its polarity or quantity changed). Where the evidence lacks
some of the claim's words it may be about something else: the disagreement is named, and the
calibrated score decides. Answer connectives ("In conclusion, ", "Additionally") frame a sentence
and are not content the evidence must hold.
"""

from __future__ import annotations

import pytest

from pytest_sprout.judges.lexical import LexicalJudge, Sentence, align, calibration, lexicon
from pytest_sprout.judges.lexical.judge import strip_boilerplate

JUDGE = LexicalJudge()


def test_a_negated_copy_of_the_evidence_is_rejected_by_the_negation_rule() -> None:
    verdict = JUDGE.judge("Ferns do not like humid air.", ["Ferns like humid air."])
    assert verdict.supported is False and verdict.rule == "negation", verdict.reason


def test_a_negated_claim_over_two_sentences_that_hold_all_its_words_is_rejected() -> None:
    passage = "Ferns like humid air. They grow well in bathrooms."
    verdict = JUDGE.judge("Ferns do not like humid air and grow well in bathrooms.", [passage])
    assert verdict.supported is False and verdict.rule == "negation", verdict.reason


def test_a_changed_quantifier_on_evidence_holding_every_word_is_rejected() -> None:
    verdict = JUDGE.judge("Ferns always like humid air.", ["Ferns sometimes like humid air."])
    assert verdict.supported is False and verdict.rule == "quantifier", verdict.reason


def test_clauses_that_share_one_word_of_several_are_not_aligned() -> None:
    claim = Sentence("Fish that do not live near coral reefs are dull")
    evidence = Sentence("Salmon live in many different places")
    for ours, closest, _mutual in align(claim, (evidence,)):
        if ours.negated:
            assert len(ours.keys) >= 2 and closest == [], (ours, closest)


def test_a_clause_sharing_two_words_is_aligned_and_its_polarity_checked() -> None:
    claim = Sentence("Cacti do not need much water")
    evidence = Sentence("Cacti need much water")
    (ours, closest, _), = align(claim, (evidence,))
    assert ours.negated and closest and not closest[0].negated


def test_a_negation_against_evidence_lacking_claim_words_is_weighed_and_named() -> None:
    # The evidence has no word for 'quickly' and 'sunny windowsill': it may be about another setting.
    passage = "Basil does not wilt in the shade of taller plants."
    verdict = JUDGE.judge("Basil wilts quickly in the shade on a sunny windowsill.", [passage])
    found = JUDGE.assess("Basil wilts quickly in the shade on a sunny windowsill.", [passage])[1]
    assert found is not None and found.cue_conflict is not None and found.cue_conflict[0] == "negation"
    assert found.failure is None or found.failure[0] != "negation"
    # Weighed, not decisive: the score is the one the same evidence gets without its negation.
    plain = JUDGE.judge("Basil wilts quickly in the shade on a sunny windowsill.",
                        ["Basil wilts in the shade of taller plants."])
    assert verdict.score == plain.score
    if not verdict.supported:  # the score decided; the verdict names the disagreement it weighed
        assert verdict.rule in ("negation", "coverage", "clause", "antonym"), verdict.reason


def test_the_evidence_negating_a_clause_the_claim_states_is_decisive_in_one_sentence() -> None:
    verdict = JUDGE.judge("He went home.", ["He did n't go."])
    assert verdict.supported is False and verdict.rule == "negation", verdict.reason


@pytest.mark.parametrize(("opening", "rest"), [
    ("In conclusion, ", "snake plants tolerate low light."),
    ("For example, ", "snake plants tolerate low light."),
    ("Last but not least, ", "snake plants tolerate low light."),
    ("In addition, ", "snake plants tolerate low light."),
])
def test_answer_connectives_are_set_aside(opening: str, rest: str) -> None:
    text, aside = strip_boilerplate(opening + rest)
    assert text == rest[:1].upper() + rest[1:] and aside == opening.strip(" ,")
    verdict = JUDGE.judge(opening + rest, ["Snake plants tolerate low light."])
    assert verdict.supported is True and verdict.rule is None, verdict.reason


def test_discourse_adverbs_are_not_words_the_evidence_must_hold() -> None:
    verdict = JUDGE.judge("Additionally, snake plants ultimately tolerate low light.", ["Snake plants tolerate low light."])
    assert verdict.supported is True and verdict.score > 0.9, verdict.reason


def test_a_rare_missing_word_lowers_the_score_more_than_a_common_one() -> None:
    passage = "The bridge opened to traffic in the north of the city."
    rare = JUDGE.assess("The bridge opened to traffic in the north of the city after a cantilever retrofit.", [passage])[1]
    common = JUDGE.assess("The bridge opened to traffic in the north of the city after a long time.", [passage])[1]
    assert rare is not None and common is not None
    assert rare.rarest_missing > common.rarest_missing
    assert JUDGE.probability(rare.features()) < JUDGE.probability(common.features())


def test_evidence_from_several_passages_is_a_feature_of_the_score() -> None:
    found = JUDGE.assess("Ferns like humid air and grow in bathrooms.",
                         ["Ferns like humid air.", "Plants grow in bathrooms."])[1]
    assert found is not None and found.passages == 2
    assert found.features()[calibration.FEATURES.index("several_passages")] == 1.0


def test_the_threshold_is_never_below_one_half() -> None:
    # A probability below one half says people would more likely call the claim unsupported.
    assert calibration.THRESHOLD >= 0.5 and LexicalJudge().threshold == calibration.THRESHOLD


def test_a_claim_whose_subject_alone_is_in_the_evidence_is_not_supported() -> None:
    verdict = JUDGE.judge("Peace lilies are toxic to cats.", ["Peace lilies like shade."])
    assert verdict.supported is False and verdict.rule == "clause", verdict.reason
    assert "second half of the claim 'toxic cats'" in verdict.reason
    # It is a rule of its own: the score alone sits near one half for such a claim.
    assert JUDGE.probability(JUDGE.assess("Peace lilies are toxic to cats.", ["Peace lilies like shade."])[1]
                             .features()) < 0.6
    # A claim whose missing words are not its whole second half is left to the score.
    kept = JUDGE.judge("Peace lilies like shade and moist soil.", ["Peace lilies like shade and soil."])
    assert kept.rule != "clause", kept.reason


def test_an_uncovered_second_half_needs_two_words() -> None:
    # One missing last word is an added detail the score weighs, not a clause.
    verdict = JUDGE.judge("Ferns like humid air in bathrooms.", ["Ferns like humid air."])
    assert verdict.rule != "clause", verdict.reason


def test_words_the_passage_holds_beyond_the_evidence_count_in_the_passage_share() -> None:
    # One sentence of evidence (window=1) holds half the claim; the passage holds all of it.
    passage = "Ferns grow in bathrooms. They need light. Ferns like humid air."
    found = LexicalJudge(window=1).assess("Ferns grow in bathrooms and like humid air.", [passage])[1]
    assert found is not None and found.weighted < 1.0 and found.passage_weighted == 1.0
    # A claim word that no cited sentence holds counts in neither.
    elsewhere = LexicalJudge(window=1).assess("Ferns grow in bathrooms and like humid air.",
                                              ["Ferns grow in bathrooms. They need light. Ferns like dry soil."])[1]
    assert elsewhere is not None and elsewhere.passage_weighted < 1.0
    both = (found.features(), elsewhere.features())
    position = calibration.FEATURES.index("passage_weighted")
    assert both[0][position] > both[1][position]


def test_the_number_of_cited_sentences_is_a_feature_capped_beyond_the_fitting_data() -> None:
    import math

    position = calibration.FEATURES.index("log_sentences")
    claim = "Ferns like humid air and bright light."
    for n in (1, 7, 99, 300):
        passage = " ".join(["Ferns like humid air."] + [f"Moss number {i} grows on stone." for i in range(n - 1)])
        found = JUDGE.assess(claim, [passage])[1]
        assert found is not None and found.sentences == n
        assert found.features()[position] == pytest.approx(math.log1p(min(n, 100)))


def test_an_antonym_counts_only_in_the_place_of_the_claims_word() -> None:
    evidence = ["The tea is served hot. Guests drink water in the garden."]
    swapped = JUDGE.judge("The tea is served cold.", evidence)
    assert swapped.supported is False and swapped.rule == "antonym", swapped.reason
    assert "'cold' where the evidence says its antonym 'hot'" in swapped.reason
    # "hot" is about the tea, two sentences from the water: no sign about "cold water".
    elsewhere = JUDGE.judge("Guests drink cold water in the garden.", evidence)
    assert elsewhere.rule != "antonym", elsewhere.reason


@pytest.mark.parametrize(("claim", "passage", "said"), [
    ("Aloe vera is harmless to cats.", "Aloe vera is toxic to cats.", "toxic"),  # harmful, see also toxic
    ("Aloe vera is toxic to cats.", "Aloe vera is harmless to cats.", "harmless"),  # nontoxic, see also harmless
    ("Succulents need dim light.", "Succulents need bright light.", "bright"),  # dark's antonym light: bright
    ("Mint prefers soil that stays dry.", "Mint prefers soil that stays moist.", "moist"),  # a satellite of wet
])
def test_an_indirect_antonym_in_its_place_is_an_antonym(claim: str, passage: str, said: str) -> None:
    verdict = JUDGE.judge(claim, [passage])
    assert (verdict.supported, verdict.rule) == (False, "antonym"), verdict.reason
    assert f"its antonym '{said}'" in verdict.reason


def test_an_indirect_antonym_elsewhere_or_in_another_use_is_not_an_antonym() -> None:
    # "toxic" is about cats, a sentence away from the gel on people's skin: no sign about "harmless".
    kept = JUDGE.judge("Its gel is harmless to the skin of people.",
                       ["Aloe vera is toxic to cats. Its gel soothes burns on the skin of people."])
    assert kept.supported is True and kept.rule != "antonym", kept.reason
    # Satellites that are also nouns or verbs are left out: "rubber" (a satellite of bad) in a
    # passage is the material, "said" (of same) the verb.
    assert "rubber" not in lexicon.antonyms("good") and "said" not in lexicon.antonyms("different")
    assert {"bright", "sunlit"} <= lexicon.antonyms("dim") and "arid" in lexicon.antonyms("moist")


def test_evidence_stitched_from_sentences_about_other_things_splits_the_claims_links() -> None:
    # Each pair of neighbouring claim words the evidence holds, held together by one sentence or not.
    position = calibration.FEATURES.index("linked_pairs")
    claim = "Ramsey scored in the draw with Villa."
    said = JUDGE.assess(claim, ["Ramsey trained on Monday. Ramsey scored in the draw with Villa."])[1]
    assert said is not None and said.features()[position] == 1.0  # one sentence holds it all
    stitched = JUDGE.assess(claim, ["Ramsey trained with the squad on Monday. Austin scored in the draw with Villa."])[1]
    assert stitched is not None and len(stitched.window) == 2 and stitched.coverage == 1.0
    # ramsey-scored is split between the two sentences; scored-draw and draw-villa are held together.
    assert stitched.features()[position] == pytest.approx(2 / 3)
    # Gathered with the claim's links intact: the subject's sentence states the predicate too.
    linked = JUDGE.assess("Ramsey scored in the draw and trained with the squad.",
                          ["Ramsey scored in the draw. He trained with the squad."])[1]
    assert linked is not None and len(linked.window) == 2
    # ramsey-scored, scored-draw and trained-squad held together; only draw-trained spans the two.
    assert linked.features()[position] == pytest.approx(3 / 4)
    assert stitched.features()[position] < said.features()[position]
