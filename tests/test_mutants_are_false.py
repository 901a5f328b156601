"""Mutants must be false by construction: for each operator, sentences where the obvious change would
keep the meaning (a bound made looser, a negation that is not one, a symmetric relation, a word in a
negated or conditional clause), and a check that the operator does not make that change.

The number test has its own small model of what a bounded quantity means, written apart from the
operator: the mutant is checked against the original's meaning, not against the operator's rules."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_sprout.core.model import Answer, Passage, Sentence
from pytest_sprout.checks.numbers import change_number
from pytest_sprout.checks.splice import splice
from pytest_sprout.checks.operators import (
    CLAUSES, antonym, append_clause, change_quantifier, drop_citation, move_citation, negate, overlap, swap_entities,
)

NAMES = ("Ardley", "Brasco", "Corwin", "Delmar", "Fenwick", "Galloway")
PLANTS = ("fern", "pothos", "orchid", "cactus", "begonia", "calathea")

# --- number: a looser bound is implied by the original ------------------------------------------

HOURS = {"seconds": 1 / 3600, "minutes": 1 / 60, "hours": 1, "days": 24, "weeks": 168, "months": 730,
         "years": 8766, "decades": 87660}
UPPER = ("within", "up to", "under", "less than", "at most", "no more than")
LOWER = ("at least", "more than", "over", "no less than", "after")
QUANTITY = re.compile(r"^(\d+(?:\.\d+)?)(?: to (\d+(?:\.\d+)?))? (\w+)$")


def meaning(bound: str | None, text: str) -> tuple[float, float]:
    """The set of durations (in hours) that a claim "<bound> <text>" allows, as [low, high]."""
    m = QUANTITY.match(text)
    assert m, text
    low = float(m.group(1)) * HOURS[m.group(3)]
    high = float(m.group(2) or m.group(1)) * HOURS[m.group(3)]
    if bound in UPPER:
        return 0.0, high
    if bound in LOWER:
        return low, float("inf")
    return low, high


def inside(a: tuple[float, float], b: tuple[float, float]) -> bool:
    return b[0] <= a[0] and a[1] <= b[1]


@settings(max_examples=300, deadline=None)
@given(
    bound=st.sampled_from((None,) + UPPER + LOWER),
    low=st.integers(2, 60),
    width=st.sampled_from((0, 1, 2, 5)),
    unit=st.sampled_from(("hours", "days", "weeks", "months")),
    negated=st.booleans(),
    plant=st.sampled_from(PLANTS),
)
def test_a_number_mutant_never_follows_from_the_original(bound, low, width, unit, negated, plant) -> None:
    quantity = f"{low} {unit}" if width == 0 else f"{low} to {low + width} {unit}"
    head = f"Do not leave the {plant} in water for " if negated else f"Roots of the {plant} appear "
    head += f"{bound} " if bound else ""
    text = f"{head}{quantity}."
    made = change_number(text, [text])
    if made is None:
        return
    mutant = made[0]
    assert mutant.startswith(head) and mutant.endswith("."), mutant
    before, after = meaning(bound, quantity), meaning(bound, mutant[len(head):-1])
    # "t in S" implies "t in S'" when S is inside S'; "t not in S" implies "t not in S'" when S' is inside S.
    implied = inside(after, before) if negated else inside(before, after)
    assert not implied, (text, mutant)


def test_looser_bounds_and_far_ends_of_ranges_are_not_made() -> None:
    """The cases the audit found: each became a true mutant before."""
    for text, never in [
        ("Roots appear within a day.", "within a week"),
        ("Roots appear within 2 to 4 weeks.", "within 20 to 40 weeks"),
        ("Most plants regrow leaves within a few weeks to a couple of months.", "couple of years"),
        ("Never let the pot sit in water for more than 30 minutes.", "more than 300 minutes"),
        ("Keep the plant away from temperatures below 13°C.", "below 12°C"),
        ("Treatment started within 6 hours greatly improves the chance of survival.", "within 3 hours"),
    ]:
        made = change_number(text, [text])
        assert made is None or never not in made[0], (text, made)
    assert change_number("Roots appear within a day.", [])[0] == "Roots appear within an hour."
    assert change_number("Water at least once a week.", [])[0] == "Water at least once a day."
    assert change_number("It lives 10 years or more.", [])[0] == "It lives 100 years or more."


# --- antonym: the two sides of one exchange, and names --------------------------------------------


@given(plant=st.sampled_from(PLANTS), name=st.sampled_from(NAMES), years=st.integers(2, 90),
       frame=st.sampled_from(("The {p} is long sold as {n}.", "The {p} was bought as {n}.",
                              "The {p} is also known as {n}.", "This {p} is {y} years old.",
                              "Shops sell the {p} as {n}.", "Growers buy the {p} as {n}.")))
def test_antonym_leaves_meaning_keeping_pairs_alone(plant, name, years, frame) -> None:
    text = frame.format(p=plant, n=name, y=years)
    assert antonym(text, [text]) is None, text


def test_antonym_still_swaps_a_real_opposite() -> None:
    text = "The snake plant, long sold as Sansevieria, tolerates low light."
    assert antonym(text, [text])[0] == "The snake plant, long sold as Sansevieria, tolerates high light."


# --- quantifier: a stronger word under a negation or in a condition is implied ---------------------


@given(plant=st.sampled_from(PLANTS), pair=st.sampled_from(
    (("usually", "always"), ("often", "always"), ("some", "all"), ("most", "all"), ("may", "must"), ("many", "all"))),
    frame=st.sampled_from((
        "The {p} does not {q} need repotting.", "If {q} leaves of the {p} turn yellow, cut them off.",
        "Never let {q} roots of the {p} dry out.", "When {q} buds of the {p} drop, move it.",
        "A {p} that {q} drops leaves is reacting to a change.",
    )))
def test_quantifier_leaves_negated_and_conditional_words_alone(plant, pair, frame) -> None:
    word, stronger = pair
    text = frame.format(p=plant, q=word)
    made = change_quantifier(text, [text])
    # "Never" itself may change ("Never" -> "Always" is false); the word in its scope may not.
    assert made is None or not made[1].lower().startswith(f"'{word}' -> '{stronger}'"), (text, made)


def test_quantifier_still_strengthens_in_a_plain_main_clause() -> None:
    assert change_quantifier("Ferns usually like humidity.", [])[0] == "Ferns always like humidity."
    assert change_quantifier("Take no more than a third.", [])[0] == "Take no less than a third."


# --- negation: "whether or not", "if not", "not only" ----------------------------------------------


@given(plant=st.sampled_from(PLANTS), adj=st.sampled_from(("dry", "wet", "cold", "warm")),
       frame=st.sampled_from((
           "Plants need water whether or not it rains on the {p}.",
           "Water the {p} weekly, if not more often, when it is {a}.",
           "The {p} grows whether or not the soil is {a}.",
       )))
def test_negation_never_drops_or_adds_a_not_that_keeps_the_meaning(plant, adj, frame) -> None:
    text = frame.format(p=plant, a=adj)
    mutant = negate(text, [text])[0]
    for phrase in ("whether or not", "if not"):
        if phrase in text:
            tail = text[text.index(phrase):]
            assert tail in mutant, (text, mutant)


# --- entity swap: symmetric relations and names listed together -----------------------------------


@given(names=st.permutations(NAMES), adj=st.sampled_from(("hardy", "toxic", "common")),
       frame=st.sampled_from(("{a} is as {j} as {b}.", "{a}, like {b}, is {j}.", "{a} and {b} are {j}.",
                              "{a} resembles {b} and is {j}.", "The difference between {a} and {b} is small.")))
def test_entity_swap_keeps_symmetric_pairs(names, adj, frame) -> None:
    text = frame.format(a=names[0], b=names[1], j=adj)
    assert swap_entities(text, [text]) is None, text


@given(names=st.permutations(NAMES))
def test_entity_swap_never_replaces_a_name_by_one_listed_with_it(names) -> None:
    a, b, c = names[:3]
    passage = f"{a} and {b} are toxic to cats. {c} grows in shade."
    made = swap_entities(f"{a} is toxic to cats.", [passage])
    assert made is None or b not in made[0]


# --- unsupported clause: never one whose content a retrieved passage mentions ----------------------


@given(index=st.integers(0, len(CLAUSES) - 1), form=st.sampled_from(("{k}", "{K}", "{k}s", "{K}ing")),
       text=st.sampled_from(("Ferns like humidity.", "Water the pothos weekly.", "Cacti need sun.")))
def test_a_clause_the_passage_may_support_is_never_appended(index, form, text) -> None:
    clause, keys = CLAUSES[index]
    passage = f"Notes: {form.format(k=keys[0].lower(), K=keys[0].capitalize())} here."
    made = append_clause(text, [passage])
    assert made is None or clause not in made[0]


# --- splice: never a predicate the passage gives the subject, by name, by pronoun or by kind ---------

PREDICATES = ("repaints the old fences", "feeds the hens at dawn", "won the county prize", "moved to Harrow in May",
              "sells honey at the market", "keeps bees behind the mill")


@settings(max_examples=300, deadline=None)
@given(names=st.permutations(NAMES), predicates=st.permutations(PREDICATES), shape=st.lists(
    st.sampled_from(("name", "pronoun", "repeat", "generic", "definite")), min_size=1, max_size=5))
def test_a_splice_never_pairs_a_subject_with_what_the_passage_says_of_it(names, predicates, shape) -> None:
    """A passage of facts, each said of a name, of the name before it again ("repeat"), by a
    pronoun ("He" after a name), of everyone ("Everyone ..."), or of a definite description ("The
    farmer ..."). The model, written apart from the operator: what the passage says of each name,
    the pronoun read as the name before it, "Everyone" as every name, "The farmer" as possibly any.
    The splice of the first sentence must give its name a predicate the model does not."""
    said: dict[str, set[str]] = {names[0]: {predicates[0]}}
    sentences = [f"{names[0]} {predicates[0]}."]
    last, anyone = names[0], set()
    for k, kind in enumerate(shape, start=1):
        predicate = predicates[k % len(predicates)]
        if kind == "name":
            last = names[k % len(names)]
            sentences.append(f"{last} {predicate}.")
            said.setdefault(last, set()).add(predicate)
        elif kind == "repeat":
            sentences.append(f"{last} {predicate}.")
            said.setdefault(last, set()).add(predicate)
        elif kind == "pronoun":
            sentences.append(f"He {predicate}.")
            said.setdefault(last, set()).add(predicate)
        else:
            sentences.append(f"{'Everyone' if kind == 'generic' else 'The farmer'} {predicate}.")
            anyone.add(predicate)
    made = splice(sentences[0], [" ".join(sentences)])
    if made is None:
        return
    name, predicate = made[0].rstrip(".").split(" ", 1)
    assert name == names[0], made
    assert predicate not in said[names[0]] | anyone, (sentences, made)


def test_a_splice_never_takes_a_predicate_from_a_subject_that_may_cover_or_contain_its_own() -> None:
    """A kind that includes the subject ("houseplants" for "plants"), a part of it ("The gel
    inside the leaves" of aloe vera), or a generic one ("A leaf laid on soil")."""
    for passage in (
        "Snake plants tolerate low light. Houseplants need drainage holes.",
        "Aloe vera is toxic to cats. The clear gel inside the leaves is used on burns.",
        "Jade plants are toxic to cats. A single leaf laid on dry soil will root within weeks.",
        "Snake plants tolerate low light. Most plants need drainage holes.",
        "Snake plants tolerate low light. Plantlets root in water.",
    ):
        assert splice(passage.split(". ")[0] + ".", [passage]) is None, passage


# --- citations -------------------------------------------------------------------------------------


@given(shared=st.floats(0.35, 1.0))
def test_a_citation_never_moves_to_a_passage_that_may_support_the_sentence(shared) -> None:
    sentence = "Boston ferns need humid air and indirect light every morning."
    words = ["Boston", "ferns", "need", "humid", "air", "indirect", "light", "every", "morning"]
    keep = words[: max(1, round(shared * len(words)))]
    other = " ".join(keep) + " matter."
    answer = Answer((Sentence(sentence, ("a",)),), (Passage("a", sentence), Passage("b", other)))
    moved = move_citation(answer.sentences[0], answer)
    if overlap(sentence, other) > 1 / 3:
        assert moved is None
    else:
        assert moved[0].citations == ("b",)


def test_a_dropped_citation_leaves_the_sentence_citing_nothing() -> None:
    answer = Answer((Sentence("Ferns like humidity.", ("a", "b")),), (Passage("a", "x"), Passage("b", "y")))
    dropped, change = drop_citation(answer.sentences[0], answer)
    assert dropped == Sentence("Ferns like humidity.", ()) and change == "dropped the citations a, b"
