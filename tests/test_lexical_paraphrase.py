"""The lexical judge on polarity, counts and quantities said another way (rules_version 14): "not
the only", "no other ... as", "never ... without", "unlikely that", an elided "if not,", "not X
but rather Y", "not strong enough" for "too weak", "the two" that points back, "every" for "all",
a quantifier said by a clause that holds the whole claim clause, a weekday as no rival name (in
test_lexical_places.py). Each reading with claims it must accept and claims it must
still reject, so that no reading buys its paraphrases by letting the reversal through."""

from __future__ import annotations

import pytest

from pytest_sprout.judges.lexical import LexicalJudge, Sentence, check_quantifiers
from pytest_sprout.judges.lexical.polarity import check_negation_unsaid


def judge(claim: str, *passages: str):
    return LexicalJudge().judge(claim, list(passages))


# --- "not the only X" says the rest; "the only X" must still match it ------------------------------

SCRATCH = "Dogs aren't the only animals to exhibit the scratch reflex."


def test_not_the_only_says_what_follows_it() -> None:
    assert [c.negated for c in Sentence(SCRATCH).clauses()] == [False]
    verdict = judge("Dogs exhibit the scratch reflex.", SCRATCH)
    assert verdict.supported is True, verdict.reason
    # "not only" was already no cue; "not the only" reads the same way.
    assert judge("This is not the only way banks make money.", "Banks make money this way: they lend.").supported is True


# --- "no other X is as ... as Y" says that Y is the most ... ------------------------------------------

SHEARWATERS = "Perhaps no other species are as famous for this as the Sooty Shearwaters."


def test_no_other_as_ranks_the_others() -> None:
    verdict = judge("The most famous of these species are the Sooty Shearwaters.", SHEARWATERS)
    assert verdict.supported is True, verdict.reason
    assert judge("The Sooty Shearwaters are more famous than any other bird.",
                 "No other bird is more famous than the Sooty Shearwaters.").supported is True


def test_no_other_without_a_comparison_still_negates() -> None:
    verdict = judge("There is another way to do it.", "There is no other way to do it.")
    assert (verdict.supported, verdict.rule) == (False, "negation"), verdict.reason
    negated = judge("The Sooty Shearwaters are not famous for this.", SHEARWATERS)
    assert (negated.supported, negated.rule) == (False, "negation"), negated.reason


# --- "never X without Y" says "always Y when X" ------------------------------------------------------

KNIFE = "Never move from cutting raw meat to cutting cooked foods without sanitizing the knife."


def test_never_without_cancels() -> None:
    assert [c.negated for c in Sentence(KNIFE).clauses()] == [False, False]
    verdict = judge("The knife should be sanitized when moving from cutting raw meat to cutting cooked foods.", KNIFE)
    assert verdict.supported is True, verdict.reason


@pytest.mark.parametrize("claim", [
    "Never move from cutting raw meat to cutting cooked foods.",  # it says "never" of what the evidence allows
    "Move from cutting raw meat to cutting cooked foods without sanitizing the knife.",
])
def test_a_claim_that_keeps_one_half_of_never_without_fails(claim: str) -> None:
    verdict = judge(claim, KNIFE)
    assert (verdict.supported, verdict.rule) == (False, "negation"), verdict.reason


def test_not_without_is_no_double_negation() -> None:
    # "was not suspended without pay" denies the suspension: the "not" stays.
    passage = "The second player was not suspended without pay for ten games."
    assert [c.negated for c in Sentence(passage).clauses()][0] is True
    verdict = judge("The second player was suspended for ten games.", passage)
    assert (verdict.supported, verdict.rule) == (False, "negation"), verdict.reason


# --- "unlikely to" / "unlikely that" negates what follows, hedged ----------------------------------


@pytest.mark.parametrize("claim", [
    "It is unlikely that individual cases will lead to widespread outbreaks.",
    "Individual cases are unlikely to lead to widespread outbreaks.",
])
def test_unlikely_says_what_a_negation_says(claim: str) -> None:
    verdict = judge(claim, "But individual cases will not lead to widespread outbreaks.")
    assert verdict.supported is True, verdict.reason


def test_unlikely_against_an_affirmation_fails_and_not_unlikely_is_litotes() -> None:
    verdict = judge("Individual cases will lead to widespread outbreaks.",
                    "It is unlikely that individual cases will lead to widespread outbreaks.")
    assert (verdict.supported, verdict.rule) == (False, "negation"), verdict.reason
    assert [c.denied for c in Sentence("It is not unlikely that cases will lead to outbreaks.").clauses()] == [False]


def test_a_negated_un_word_among_the_negative_verbs_is_litotes() -> None:
    # "not unable to" says "able to", as "not unlikely" says "likely": no negation of the clause ...
    assert [c.denied for c in Sentence("He was not unable to sign the treaty.").clauses()] == [False]
    assert [c.denied for c in Sentence("He was unable to sign the treaty.").clauses()] == [True]


# --- "not strong enough" says "too weak": a negated adjective and its antonym --------------------------

PULL = "With much smaller bodies, the gravitational pull is too weak to overcome the asteroid's mechanical strength."


def test_a_negated_adjective_agrees_with_its_antonym() -> None:
    verdict = judge("The gravitational pull is not strong enough to overcome the mechanical strength of asteroids.", PULL)
    assert verdict.supported is True, verdict.reason


@pytest.mark.parametrize(("claim", "passage"), [
    ("The gravitational pull is not weak enough to overcome the mechanical strength of asteroids.", PULL),
    # a verb's antonym is its converse, not its negation: "cannot sell" is not "buy"
    ("Investors cannot sell the stock for a profit.", "Investors buy the stock for a profit."),
    # "lower" and "higher" in one clause compare two things: "not lower" is not said
    ("A trained heart rate is not lower than an untrained heart rate.",
     "A lower heart rate in a trained heart delivers what the higher heart rate in an untrained heart does."),
])
def test_an_antonym_stands_for_a_negation_only_of_an_adjective_it_replaces(claim: str, passage: str) -> None:
    verdict = judge(claim, passage)
    assert (verdict.supported, verdict.rule) == (False, "negation"), verdict.reason


# --- "the two" that points back counts no number of its own -----------------------------------------


@pytest.mark.parametrize("claim", [
    "The two have remained close over the years.",
    "The two went into the studio.",
    "Eminem and Dre stayed close, and the connection between the two is strong.",
])
def test_the_two_that_points_back_is_no_number(claim: str) -> None:
    passage = "Eminem and Dre have remained close over the years; they went into the studio, and their connection is strong."
    assert Sentence(claim).numbers == ()
    verdict = judge(claim, passage)
    assert verdict.supported is True, verdict.reason


@pytest.mark.parametrize(("claim", "number"), [
    ("The two pieces were secured around the waist.", "two"),  # a noun follows: a count
    ("The two main reasons are heat and light.", "two"),  # an adjective, then the noun
    ("The three-hour episode was long.", "three-hour"),
    ("The two kg bags were heavy.", "two kg"),
    ("The three went into the studio.", "three"),  # only "two" points back to a pair
    ("They alternate between the twenty.", "twenty"),
])
def test_the_two_before_what_it_counts_is_a_number(claim: str, number: str) -> None:
    verdict = judge(claim, "Pieces were secured around the waist; the reasons are heat and light; the episode and bags were long and "
                           "heavy. They went into the studio and alternate between them.")
    assert (verdict.supported, verdict.rule) == (False, "number"), verdict.reason
    assert f"'{number}'" in verdict.reason


# --- "every" and "each" say "all" ------------------------------------------------------------------

BRAWL = "In a brawl every player on both teams leaves the dugout."


@pytest.mark.parametrize("claim", [
    "In a brawl all of the players on both teams leave the dugout.",
    "In a brawl most players on both teams leave the dugout.",  # saying less is allowed
])
def test_every_is_all(claim: str) -> None:
    verdict = judge(claim, BRAWL)
    assert verdict.supported is True, verdict.reason


def test_every_against_a_weaker_quantifier_fails() -> None:
    verdict = judge("Every player on both teams runs onto the field.", "Some players on both teams run onto the field.")
    assert (verdict.supported, verdict.rule) == (False, "quantifier"), verdict.reason
    assert verdict.reason == "claim says 'every' but evidence says 'some'"


@pytest.mark.parametrize("text", ["Water it every week.", "Water it every 3 days.", "Water it every other day.",
                                  "They help each other.", "It fails every time."])
def test_every_of_a_time_is_no_quantifier(text: str) -> None:
    assert [q for c in Sentence(text).clauses() for q in c.quants] == []


# --- a quantifier said by an evidence clause that holds the whole claim clause ------------------------

PLANETS = (Sentence("Planets are round because their gravity pulls everything toward the center."),
           Sentence("The Earth and all planets are round because they formed from molten material."))


def test_a_quantifier_is_read_in_the_clause_that_holds_the_whole_claim_clause() -> None:
    # the claim clause "all planets are round" is most like the first sentence's "planets are round",
    # but the second sentence's clause holds every word of it, and says "all"
    claim = Sentence("All planets are round because they formed from molten material.")
    assert check_quantifiers(claim, PLANETS) is None
    assert check_quantifiers(claim, PLANETS, claim_side=True) is None


def test_a_quantifier_no_clause_holding_the_claim_says_still_fails() -> None:
    claim = Sentence("All planets are round because they formed from molten material.")
    some = (PLANETS[0], Sentence("The Earth and some planets are round because they formed from molten material."))
    assert check_quantifiers(claim, some) is not None and check_quantifiers(claim, some)[0] == "quantifier"
    assert check_quantifiers(claim, PLANETS[:1]) == ("quantifier", "claim says 'all' but the evidence does not")


# --- an elided "if not," and "not X but rather Y" ------------------------------------------------------


def test_an_elided_if_not_negates_nothing_after_it() -> None:
    claim = "A citizen was born in the US, or if not, they have at least one parent who is a US citizen."
    assert [c.negated for c in Sentence(claim).clauses()] == [False] * len(Sentence(claim).clauses())
    assert [c.negated for c in Sentence("If not treated, the rot spreads.").clauses()][0] is True


def test_not_x_but_rather_y_states_y() -> None:
    evidence = (Sentence("Today pants are a single item of clothing, but in those days they consisted of two separate pieces."),)
    claim = Sentence("In those days, pants were not a single item of clothing but rather two separate pieces.")
    assert check_negation_unsaid(claim, evidence) is None
    # without "but rather" the negation is the claim's own, and the evidence states the words it negates
    alone = Sentence("Pants are not a single item of clothing.")
    failure = check_negation_unsaid(alone, (Sentence("Pants are a single item of clothing."),))
    assert failure is not None and failure[0] == "negation"
