"""LexicalJudge: hand examples for every rule, and properties over generated passages."""

from __future__ import annotations

import math
import re

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from pytest_sprout.judges.lexical import Context, LexicalJudge, Sentence, _Prepared, calibration, stem, words_of
from pytest_sprout.judges.lexical.index import positions
from pytest_sprout.core.model import Passage, Verdict, split_sentences

CARE = (
    "The snake plant tolerates low light, although it grows faster in bright, indirect light. "
    "Water a snake plant only when the soil has dried out, which usually means every 2 to 3 weeks in summer. "
    "Snake plants do not need fertiliser in winter. "
    "Cats are more sensitive than dogs to the sap of the plant. "
    "Water the soil, then mist the leaves. "
    "Repot in spring every 10-15 months, using a free-draining cactus mix. "
    "Keep it above 10°C (50°F) and away from cold draughts. "
    "Pothos often wilts in dry air. "
    "Young plants may need support. "
    "Give it at least 6 hours of sun a day."
)


def verbatim_features(sentences: int) -> tuple[float, ...]:
    """The calibrated score's inputs for a claim that is a sentence of a passage of ``sentences``
    sentences: every word covered, in the evidence and in the passage, no rule failed."""
    full = {"coverage": 1.0, "weighted_coverage": 1.0, "passage_weighted": 1.0, "log_sentences": math.log1p(sentences),
            "single_sentence": 1.0, "linked_pairs": 1.0}
    return tuple(full.get(name, 0.0) for name in calibration.FEATURES)


def judge(claim: str, passage: str = CARE, **kwargs) -> Verdict:
    return LexicalJudge(**kwargs).judge(claim, [passage])


# --- hand examples, one group per rule ------------------------------------------------------------


@pytest.mark.parametrize(
    "claim",
    [
        "Snake plants tolerate low light.",
        "Water a snake plant every 2-3 weeks in summer, when the soil has dried out.",
        "In winter, snake plants need no fertiliser.",
        "Snake plants never need fertiliser in winter.",
        "Repot every 10 to 15 months in spring.",
        "Keep it above 10 °C.",
        "Pothos wilts in dry air.",
        "Young plants might need support.",
        "Give it at least six hours of sun daily.",
        "Mist the leaves after watering the soil.",
    ],
)
def test_paraphrases_that_keep_the_meaning_are_supported(claim: str) -> None:
    verdict = judge(claim)
    assert verdict.supported is True, verdict.reason
    assert verdict.rule is None
    assert verdict.evidence and verdict.evidence in CARE
    assert 0.6 <= verdict.score <= 1.0


def test_the_supported_verdict_carries_the_best_window_and_its_coverage() -> None:
    verdict = judge("Pothos often wilts in dry air.")
    assert verdict == Verdict(True, verdict.score, "Pothos often wilts in dry air.", verdict.reason, None)
    assert verdict.reason.startswith("coverage 1.00 >= 0.50, calibrated score")
    assert verdict.score == pytest.approx(LexicalJudge().probability(verbatim_features(len(split_sentences(CARE)))))


def test_coverage_names_the_missing_words() -> None:
    verdict = judge("Repot the fresh woody cactus in autumn.")
    assert verdict.supported is False and verdict.rule == "coverage"
    assert 0.0 <= verdict.score < 0.5
    assert verdict.reason == "coverage 0.40 < 0.50; missing: fresh, woody, autumn"
    assert verdict.evidence is not None and "Repot" in verdict.evidence


def test_coverage_threshold_is_configurable() -> None:
    claim = "Pothos wilts in dry air and in bright sun."  # 4 of 6 keys: 0.67
    assert judge(claim).supported is True
    strict = judge(claim, coverage=0.9)
    assert strict.supported is False and strict.rule == "coverage"
    assert strict.reason == "coverage 0.67 < 0.90; missing: bright, sun"


def test_inflections_and_plurals_match() -> None:
    assert stem("waters") == stem("watering") == stem("watered") == stem("water")
    assert stem("dries") == stem("dried") == stem("dry")
    assert stem("leaves") == stem("leaf")
    assert stem("repotting") == stem("repot")
    assert judge("Watering the soil comes before misting the leaves, then.", "Water the soil, then mist the leaves.").rule != "coverage"


@pytest.mark.parametrize(
    ("claim", "offending"),
    [
        ("Snake plants do not tolerate low light.", "'tolerate' ('not')"),
        ("Snake plants need fertiliser in winter.", "'need' ('not')"),
        ("Snake plants don't tolerate low light.", "'tolerate' ('not')"),
        ("Pothos never wilts in dry air.", None),  # never vs often: the quantifier rule speaks first
        ("Cats are not more sensitive than dogs to the sap of the plant.", "('not')"),
    ],
)
def test_negation_must_agree(claim: str, offending: str | None) -> None:
    verdict = judge(claim)
    assert verdict.supported is False
    if offending is None:
        assert verdict.rule == "quantifier"
    else:
        assert verdict.rule == "negation", verdict.reason
        assert offending in verdict.reason


def test_negation_reason_says_which_side_negates() -> None:
    assert judge("Snake plants do not tolerate low light.").reason == (
        "claim negates 'tolerate' ('not') but the evidence does not"
    )
    assert judge("Snake plants need fertiliser in winter.").reason == (
        "evidence negates 'need' ('not') but the claim does not"
    )


def test_negation_is_checked_clause_by_clause() -> None:
    passage = "Pothos is not fussy about humidity and does well in normal household air."
    assert LexicalJudge().judge(passage, [passage]).supported is True
    assert judge("Pothos does well in normal household air.", passage).supported is True
    flipped = judge("Pothos is fussy about humidity and does well in normal household air.", passage)
    assert flipped.rule == "negation" and "'fussy' ('not')" in flipped.reason
    unrelated = "Water weekly in summer, but never water in winter."
    assert judge("Water weekly in summer.", unrelated).supported is True
    assert judge("Water weekly in winter.", unrelated).rule == "negation"


def test_it_is_not_true_that_negates_what_follows() -> None:
    passage = "If you love a decorative pot, use it as a cachepot."
    verdict = judge("It is not true that if you love a decorative pot, use it as a cachepot.", passage)
    assert verdict.rule == "negation" and "('not')" in verdict.reason


def test_double_negation_and_litotes_are_not_negations() -> None:
    passage = "Never use a pot without a drainage hole."
    assert judge("Always use a pot with a drainage hole.", passage).rule != "negation"
    litotes = "It is not unusual for athletes to have a slow heart rate."
    assert judge("It is usual for athletes to have a slow heart rate.", litotes).supported is True
    not_only = "Snake plants not only tolerate shade but also drought."
    assert judge(not_only, "Snake plants tolerate shade and drought.").supported is True


@pytest.mark.parametrize(
    ("claim", "reason"),
    [
        ("Water a snake plant every 4 weeks in summer.",
         "number 'every 4 weeks' of the claim is not in the evidence (evidence has 'every 2 to 3 weeks')"),
        ("Repot in spring every 15 months.",
         "number 'every 15 months' of the claim is not in the evidence (evidence has 'every 10-15 months')"),
        ("Keep it above 15°C.", "number 'above 15°c' of the claim is not in the evidence (evidence has 'above 10°c')"),
        ("Keep it below 10°C.", "claim says 'below 10°c' but evidence says 'above 10°c'"),
        ("Give it at most 6 hours of sun a day.", "claim says 'at most 6 hours' but evidence says 'at least 6 hours'"),
        ("Give it at least 6 hours of sun a week.", "number 'a week' of the claim is not in the evidence (evidence has 'a day')"),
        ("Snake plants do not need fertiliser in winter for 3 years.",
         "number '3 years' of the claim is not in the evidence (evidence has 'every 2 to 3 weeks')"),
    ],
)
def test_every_number_date_percentage_and_unit_must_be_in_the_evidence(claim: str, reason: str) -> None:
    verdict = judge(claim)
    assert (verdict.supported, verdict.rule, verdict.reason) == (False, "number", reason)


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        ("It needs six weeks.", "It needs 6 weeks."),
        ("It grows 2.5 cm a month.", "It grows 2.5 centimetres every month."),
        ("Germination takes 10 to 15 days.", "Germination takes 10-15 days."),
        ("About 10 percent survive.", "About 10% survive."),
        ("Keep it at 15 degrees Celsius.", "Keep it at 15°C."),
        ("Feed it weekly.", "Feed it once a week."),
        ("It flowered in May 2021.", "It flowered in May 2021 for the first time."),
        ("It costs $1,500.", "It costs $1500."),
    ],
)
def test_numbers_are_normalised(claim: str, evidence: str) -> None:
    verdict = judge(claim, evidence)
    assert verdict.supported is True, verdict.reason


def test_a_number_without_a_unit_matches_only_when_it_stands_alone() -> None:
    assert judge("Cut the stems to 10 cm.", "Cut the stems to 10, 12 or 15 cm.").supported is True
    verdict = judge("The label gives three numbers within 3 weeks.", "The label gives three numbers.")
    assert verdict.rule == "number" and "'within 3 weeks'" in verdict.reason


def test_bounds_on_small_number_words_count() -> None:
    verdict = judge("Use pots with at most one drainage hole.", "Use pots with at least one drainage hole.")
    assert (verdict.rule, verdict.reason) == ("number", "claim says 'at most one' but evidence says 'at least one'")


def test_units_must_agree() -> None:
    verdict = judge("Cut the stems to 15 inches.", "Cut the stems to 15 cm.")
    assert verdict.rule == "number" and "'15 inches'" in verdict.reason and "'15 cm'" in verdict.reason
    assert judge("It flowered in June 2021.", "It flowered in May 2021.").rule in ("number", "coverage")


@pytest.mark.parametrize(
    ("claim", "reason"),
    [
        ("Pothos never wilts in dry air.", "claim says 'never' but evidence says 'often'"),
        ("Pothos always wilts in dry air.", "claim says 'always' but evidence says 'often'"),
        ("Young plants must have support.", None),
    ],
)
def test_quantifiers_and_modals_must_agree(claim: str, reason: str | None) -> None:
    verdict = judge(claim)
    if reason is None:  # coverage may differ ("have" is a stopword): only the rule matters here
        verdict = judge("Young plants must need support.")
        reason = "claim says 'must' but evidence says 'may'"
    assert (verdict.supported, verdict.rule, verdict.reason) == (False, "quantifier", reason)


def test_a_dropped_hedge_is_no_rule() -> None:
    """"may need" -> "need": people accept such sentences (the rule that noted it decided no verdict
    of 9,000 labelled items and was removed, issue 47); a stronger word in the hedge's place fails."""
    assert judge("Young plants need support.").supported is True
    assert judge("Young plants must need support.").rule == "quantifier"


def test_a_claim_may_say_less_than_its_evidence() -> None:
    assert judge("Some cats are sensitive to sap.", "All cats are sensitive to sap.").supported is True
    assert judge("Cats are sometimes sensitive to sap.", "Cats are often sensitive to sap.").supported is True
    assert judge("All cats are sensitive to sap.", "Some cats are sensitive to sap.").rule == "quantifier"
    assert judge("All cats are sensitive to sap.", "Cats are sensitive to sap.").reason == (
        "claim says 'all' but the evidence does not"
    )
    assert judge("Cats need less water.", "Cats need more water.").reason == "claim says 'less' but evidence says 'more'"


@pytest.mark.parametrize(
    ("claim", "evidence", "swapped"),
    [
        ("Dogs are more sensitive than cats.", "Cats are more sensitive than dogs.", ("dogs", "cats")),
        ("Water the leaves, then mist the soil.", "Water the soil, then mist the leaves.", ("leaves", "soil")),
        ("Mist the soil, then water the leaves.", "Water the soil, then mist the leaves.", ("mist", "water")),
        ("Mist the leaves, then water the soil.", "Water the soil, then mist the leaves.", ("mist", "water")),
        ("Cats chase mice.", "Mice chase cats.", ("cats", "mice")),
        ("Dormancy runs from February to November.", "Dormancy runs from November to February.", ("february", "november")),
        ("The aloe vera is more sensitive to sun than the ZZ plant.", "The ZZ plant is more sensitive to sun than the aloe vera.",
         ("aloe vera", "zz plant")),
    ],
)
def test_swapped_entities_are_caught_where_word_order_shows_it(claim: str, evidence: str, swapped: tuple[str, str]) -> None:
    verdict = judge(claim, evidence)
    assert (verdict.supported, verdict.rule) == (False, "entity-swap"), verdict.reason
    assert all(f"'{w}'" in verdict.reason for w in swapped)


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        ("Mice are chased by cats.", "Cats chase mice."),  # passive voice
        ("Pothos, ferns and snake plants tolerate shade.", "Snake plants, ferns and pothos tolerate shade."),  # a list
        ("Water the plant when the soil is dry.", "Water the plant when the dry soil shows."),
        ("Repot in spring.", "In spring, repot."),
        ("Feed it in summer, when it grows.", "When it grows, feed it in summer."),  # clauses reordered
    ],
)
def test_reordering_that_keeps_the_roles_is_not_a_swap(claim: str, evidence: str) -> None:
    verdict = judge(claim, evidence)
    assert verdict.rule != "entity-swap", verdict.reason


def test_names_of_the_claim_must_be_in_the_evidence() -> None:
    passage = "The Boston fern likes humidity and bright, indirect light."
    verdict = judge("The Kimberley fern likes humidity and bright, indirect light.", passage)
    assert (verdict.supported, verdict.rule, verdict.reason) == (
        False, "entity", "claim has 'Kimberley' where its evidence sentence has 'Boston'")
    elsewhere = judge("The Kimberley fern likes humidity.", passage)  # the name is in no cited passage
    assert (elsewhere.supported, elsewhere.rule) == (False, "entity") and "'Kimberley'" in elsewhere.reason
    assert judge("The BOSTON fern likes humidity and bright light.", passage).supported is True
    assert judge("Ferns like humidity and bright light.", passage).supported is True  # a capital that starts the sentence


def test_uncited_sentence_is_unsupported() -> None:
    verdict = LexicalJudge().judge("Snake plants tolerate low light.", [])
    assert verdict == Verdict(False, 0.0, None, "the sentence cites no passage", "uncited")


def test_sources_may_be_passages_strings_or_mappings_and_evidence_may_span_them() -> None:
    first = Passage("a", "Snake plants tolerate low light.")
    second = {"id": "b", "text": "They need water every 3 weeks."}
    j = LexicalJudge()
    assert j.judge("They need water every 3 weeks.", [first, second]).evidence == second["text"]
    both = "Snake plants tolerate low light and need water every 3 weeks."
    spanning = j.judge(both, [first, second])
    assert spanning.supported is True and "evidence from 2 cited passages" in spanning.reason
    assert spanning.evidence == first.text + " " + second["text"]
    assert j.judge(both, [first.text + " " + second["text"]]).supported is True  # one passage, two sentences


def test_window_one_uses_single_sentences_only() -> None:
    passage = "Snake plants tolerate low light. They need water every 3 weeks."
    claim = "Snake plants tolerate low light and need water every 3 weeks."
    assert judge(claim, passage).evidence == passage
    single = judge(claim, passage, window=1)
    assert single.evidence == "Snake plants tolerate low light." and "coverage 0.71 " in single.reason


def test_citation_markers_in_claims_and_passages_are_ignored() -> None:
    assert judge("Pothos often wilts in dry air [1].", "Pothos often wilts in dry air.[3]").supported is True


def test_claims_without_content_words_fall_back_to_all_words() -> None:
    assert judge("It is not.", "It is not.").supported is True
    assert judge("It is 10.", "It is 12.").rule == "number"
    # Punctuation alone states nothing: unscored, never a pass or a fail, even written verbatim there.
    no_words = judge("* * *", "Anything at all.")
    assert (no_words.supported, no_words.rule, no_words.reason) == (None, "no-claim", "no claim: it has no words")
    assert judge("* * *", "Part one. * * * Part two.").supported is None
    assert judge("10-15 cm.", "Plant them 10-15 cm apart.").supported is True  # numbers alone are a claim


def test_empty_passages_give_a_coverage_verdict() -> None:
    verdict = LexicalJudge().judge("Snake plants tolerate low light.", ["", "   "])
    assert (verdict.supported, verdict.rule, verdict.evidence) == (False, "coverage", None)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"coverage": 0}, "coverage"), ({"coverage": 1.5}, "coverage"), ({"coverage": "0.6"}, "coverage"),
     ({"window": 0}, "window"), ({"window": 1.5}, "window")],
)
def test_bad_settings_are_clear_errors(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        LexicalJudge(**kwargs)


def test_bad_sources_are_clear_errors() -> None:
    with pytest.raises(TypeError, match="not a single str"):
        LexicalJudge().judge("claim", "a passage")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="passage 2 is a int"):
        LexicalJudge().judge("claim", ["a passage", 3])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="claim must be a str"):
        LexicalJudge().judge(None, ["a passage"])  # type: ignore[arg-type]


def test_settings_are_json_able_and_change_with_the_parameters() -> None:
    import json

    a, b = LexicalJudge().settings(), LexicalJudge(coverage=0.7, window=2).settings()
    assert json.loads(json.dumps(a)) == a and a != b
    assert a["coverage"] == 0.5 and a["window"] == 3 and LexicalJudge.name == "lexical"
    assert a["rules_version"] == 19 and a["calibration"] and LexicalJudge(threshold=0.9).settings() != a


def test_reasons_are_one_line() -> None:
    for claim in ["Snake plants tolerate low light.", "Cats chase\nmice.", "Repot the cactus in autumn.", "Keep it below 10°C."]:
        assert "\n" not in judge(claim).reason


def test_tokens() -> None:
    assert words_of("Don't water it; it can't take 2,500 ml [1].") == [
        "do", "not", "water", "it", ";", "it", "can", "not", "take", "2,500", "ml"]
    assert words_of("Keep it at 15°C (59°F).") == ["keep", "it", "at", "15", "°", "c", "(", "59", "°", "f", ")"]
    s = Sentence("Keep it 10 cm to 15 cm tall for twenty-five days, from May 2021, at about 50 percent.")
    assert [n.text for n in s.numbers] == ["10 cm to 15 cm", "twenty-five days", "may 2021", "about 50 percent"]
    assert [(n.lo, n.hi, n.unit) for n in s.numbers][:2] == [(10, 15, "cm"), (25, 25, "day")]


# --- properties over generated passages -----------------------------------------------------------

PLANTS = ["fern", "cactus", "orchid", "pothos", "palm", "violet", "begonia", "ivy", "yucca", "lily"]
PARTS = ["leaf", "root", "stem", "bud", "flower", "shoot", "frond", "bulb"]
VERBS = ["water", "mist", "feed", "repot", "prune", "shade", "move", "wipe", "check", "turn", "spray", "rinse"]
ADJECTIVES = ["young", "tall", "variegated", "dwarf", "hardy", "tropical", "mature", "potted"]
PLACES = ["the kitchen", "a bright window", "the greenhouse", "a shady porch", "the bathroom", "a cool hallway"]
SEASONS = ["spring", "summer", "autumn", "winter"]
UNITS = ["cm", "weeks", "days", "months", "litres", "grams"]
QUANTS = ["often", "sometimes", "rarely", "always", "usually"]


@st.composite
def positive_sentence(draw) -> tuple[str, int | None]:
    """A sentence without negation, and the number it states (None if it states none)."""
    subject = f"The {draw(st.sampled_from(ADJECTIVES))} {draw(st.sampled_from(PLANTS))}"
    verb = draw(st.sampled_from(VERBS))
    obj = f"the {draw(st.sampled_from(PARTS))}"
    quant = draw(st.sampled_from(["", *QUANTS])) + " "
    tail_kind = draw(st.integers(0, 3))
    number: int | None = None
    if tail_kind == 0:
        tail = f"in {draw(st.sampled_from(PLACES))}"
    elif tail_kind == 1:
        number = draw(st.integers(2, 60))
        tail = f"every {number} {draw(st.sampled_from(UNITS))}"
    elif tail_kind == 2:
        tail = f"in {draw(st.sampled_from(SEASONS))}, then {draw(st.sampled_from(VERBS))} the {draw(st.sampled_from(PARTS))}"
    else:
        number = draw(st.integers(2, 60))
        tail = f"with {number} {draw(st.sampled_from(UNITS))} of rainwater"
    verb_s = verb + ("es" if verb.endswith(("sh", "ch", "s")) else "s")
    return f"{subject} {quant.strip() + ' ' if quant.strip() else ''}{verb_s} {obj} {tail}.", number


VOCAB = (
    PLANTS + PARTS + VERBS + ADJECTIVES + SEASONS + UNITS + QUANTS
    + "not no never without none all some most few may must can should more less then by than and but which , ; the a of in".split()
    + ["12", "3.5", "10-15", "7%", "20°C", "six", "a week", "at least", "up to", "May", "don't", "isn't"]
)


@st.composite
def any_sentence(draw) -> str:
    """Word soup from the judge's whole vocabulary: negations, quantifiers, numbers, clauses."""
    words = draw(st.lists(st.sampled_from(VOCAB), min_size=1, max_size=18))
    words.append(draw(st.sampled_from(PLANTS + PARTS + VERBS)))  # at least one word
    text = " ".join(words).replace(" ,", ",").replace(" ;", ";").strip(" ,;")
    return text[:1].upper() + text[1:] + "."


def passage_of(sentences: list[str]) -> str:
    return " ".join(sentences)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.one_of(any_sentence(), positive_sentence().map(lambda p: p[0])), min_size=1, max_size=8),
    st.floats(0.05, 1.0),
    st.integers(1, 3),
    st.data(),
)
def test_a_verbatim_sentence_of_its_passage_is_always_supported(sentences, coverage, window, data) -> None:
    passage = passage_of(sentences)
    parts = split_sentences(passage)
    claim = data.draw(st.sampled_from(parts))
    verdict = LexicalJudge(coverage=coverage, window=window).judge(claim, [Passage("p", passage)])
    assert verdict.supported is True, (claim, verdict)
    assert verdict.score == pytest.approx(LexicalJudge().probability(verbatim_features(len(parts))))


NEGATE = [(" does ", " does not "), (" is ", " is not ")]


def negated(sentence: str) -> str:
    """The sentence with its main verb negated: "The fern waters the leaf" -> "... does not water ..."."""
    subject, verb, rest = re.match(r"(The \w+ \w+) (\w+) (.*)", sentence).groups()
    if verb in QUANTS:  # "The young fern often waters ..." -> "... often does not water ..."
        verb2, rest = rest.split(" ", 1)
        base = verb2[:-2] if verb2.endswith(("shes", "ches", "sses")) else verb2[:-1]
        return f"{subject} {verb} does not {base} {rest}"
    base = verb[:-2] if verb.endswith(("shes", "ches", "sses")) else verb[:-1]
    return f"{subject} does not {base} {rest}"


@settings(max_examples=200, deadline=None)
@given(st.lists(positive_sentence(), min_size=1, max_size=8), st.data())
def test_adding_a_negation_to_a_supported_sentence_makes_it_unsupported(items, data) -> None:
    passage = passage_of([s for s, _ in items])
    claim = data.draw(st.sampled_from([s for s, _ in items]))
    j = LexicalJudge()
    assert j.judge(claim, [passage]).supported is True
    verdict = j.judge(negated(claim), [passage])
    assert (verdict.supported, verdict.rule) == (False, "negation"), (negated(claim), verdict)
    assert "('not')" in verdict.reason


@settings(max_examples=200, deadline=None)
@given(st.lists(positive_sentence(), min_size=1, max_size=8), st.data())
def test_changing_a_number_of_a_supported_sentence_makes_it_unsupported(items, data) -> None:
    passage = passage_of([s for s, _ in items])
    with_numbers = [(s, n) for s, n in items if n is not None]
    assume(with_numbers)
    claim, number = data.draw(st.sampled_from(with_numbers))
    new = data.draw(st.integers(1, 500).filter(lambda k: not re.search(rf"\b{k}\b", passage)))
    changed = re.sub(rf"\b{number}\b", str(new), claim, count=1)
    verdict = LexicalJudge().judge(changed, [passage])
    assert (verdict.supported, verdict.rule) == (False, "number"), (changed, verdict)
    assert re.search(rf"'(every )?{new} ", verdict.reason), verdict.reason  # "every 7 weeks": a frequency


@settings(max_examples=100, deadline=None)
@given(st.one_of(any_sentence(), positive_sentence().map(lambda p: p[0])))
def test_an_uncited_sentence_is_unsupported(claim: str) -> None:
    verdict = LexicalJudge().judge(claim, [])
    assert (verdict.supported, verdict.rule, verdict.evidence) == (False, "uncited", None)
    assert "cites no passage" in verdict.reason


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.one_of(any_sentence(), positive_sentence().map(lambda p: p[0])),
            st.lists(st.lists(positive_sentence().map(lambda p: p[0]), min_size=1, max_size=4).map(passage_of), max_size=3),
        ),
        max_size=6,
    )
)
def test_judge_many_equals_judge_on_each_pair(pairs) -> None:
    j = LexicalJudge()
    assert j.judge_many(pairs) == [j.judge(claim, sources) for claim, sources in pairs]
    assert j.judge_many(iter(pairs)) == j.judge_many(pairs)


# --- the judge's shortcuts decide what the full search would decide ------------------------------

SENTENCES = st.one_of(any_sentence(), positive_sentence().map(lambda p: p[0]))


@settings(max_examples=300, deadline=None)
@given(SENTENCES)
def test_every_rule_holds_for_a_sentence_against_itself(text: str) -> None:
    """A claim that is a sentence of its passage is judged supported without running the rules
    (the judge reuses the passage's analysis of it); that is exact because no rule can fail a
    sentence against itself, whether analysed once or twice."""
    sentence = Sentence(text)
    prepared = [_Prepared(text)]
    judge = LexicalJudge()
    assert judge._rules(Context(sentence, (sentence,), prepared, (), best=sentence)) is None
    assert judge._rules(Context(Sentence(text), (sentence,), prepared, (), best=sentence)) is None


@settings(max_examples=300, deadline=None)
@given(st.lists(SENTENCES, min_size=1, max_size=8), SENTENCES)
def test_the_masks_match_their_definition(sentences: list[str], claim: str) -> None:
    """Per content key, ``masks`` has the bits of the sentences that hold it, and ``positions``
    lists them, lowest first: what the judge reads to find a claim's sentences."""
    prepared = _Prepared(passage_of(sentences))
    sets = [s.keys for s in prepared.sentences]
    assert set(prepared.masks) == set().union(*sets)
    for key in set(Sentence(claim).keys) | set(prepared.masks):
        holding = tuple(i for i, keys in enumerate(sets) if key in keys)
        assert prepared.masks.get(key, 0) == sum(1 << i for i in holding)
        assert positions(prepared.masks.get(key, 0)) == holding == positions(prepared.masks.get(key, 0))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(SENTENCES, min_size=1, max_size=6), min_size=1, max_size=3), st.data())
def test_the_evidence_covers_at_least_as_much_as_any_single_sentence(passages, data) -> None:
    """The evidence is chosen sentence by sentence for the most uncovered words: it never covers
    less of the claim than the best single sentence, and never takes more than ``window`` sentences."""
    prepared = [_Prepared(passage_of(p)) for p in passages]
    claim = data.draw(st.one_of(SENTENCES, st.sampled_from([s.text for p in prepared for s in p.sentences])))
    ours = Sentence(claim)
    assume(ours.keys)
    window = data.draw(st.integers(1, 3))
    found = LexicalJudge(window=window)._search(ours, prepared)
    best = max(len(ours.keys & s.keys) for p in prepared for s in p.sentences)
    assert found.covered >= best and 1 <= len(found.window) <= window


def _next_best_one_by_one(candidates: dict[int, int], covered: int, chosen: list[int], near: set[int]) -> int | None:
    """``evidence._next_best`` written as one loop over the candidates, in order."""
    def distance(w: int) -> int:
        return min((abs(w - c) if w >> 32 == c >> 32 else 1 << 20) for c in chosen)

    best, gain = None, 0
    for where, bits in candidates.items():
        g = (bits & ~covered).bit_count()
        if not g or g < gain or (not bits & (bits - 1) and where not in near):
            continue
        if g > gain or distance(where) < distance(best):
            best, gain = where, g
    return best


@settings(max_examples=500, deadline=None)
@given(st.dictionaries(st.builds(lambda p, i: p << 32 | i, st.integers(0, 2), st.integers(0, 12)),
                       st.integers(1, 63), min_size=1, max_size=12), st.integers(0, 63), st.data())
def test_the_next_sentence_of_the_evidence_is_the_one_that_adds_most(candidates, covered, data) -> None:
    """The greedy step of the evidence search: the most keys added, then the nearest, then the first;
    a far sentence with a single claim key is passed over."""
    from pytest_sprout.judges.lexical.evidence import _next_best

    chosen = data.draw(st.lists(st.builds(lambda p, i: p << 32 | i, st.integers(0, 2), st.integers(0, 12)),
                                min_size=1, max_size=3))
    near = {c + d for c in chosen for d in (-1, 1)}
    where, held = list(candidates), list(candidates.values())
    one = all(w >> 32 == 0 for w in where + chosen)  # every sentence of one passage
    k = _next_best(where, held, covered, chosen, near, one)
    assert (None if k is None else where[k]) == _next_best_one_by_one(candidates, covered, chosen, near)


def test_a_sentence_that_differs_from_another_only_by_its_number_is_tried_on_its_own() -> None:
    # Found by the negation property above: the two sentences share their neighbours, and the search
    # took the second for a repeat of the first, so the claim failed on the first's number instead of
    # on the negation the sentence it copies shows.
    passage = "The young fern waters the leaf every 2 cm. The young fern waters the leaf every 3 cm."
    verdict = LexicalJudge().judge("The young fern does not water the leaf every 3 cm.", [passage])
    assert (verdict.supported, verdict.rule, verdict.evidence) == (
        False, "negation", "The young fern waters the leaf every 3 cm.")
    assert LexicalJudge().judge("The young fern waters the leaf every 3 cm.", [passage]).supported is True
