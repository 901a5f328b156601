"""Hypothesis strategies for property tests of a judge: passages with a claim they support, and
the same passages with a claim that one mutation operator made unsupported.

    from hypothesis import given
    from pytest_sprout.strategies import mutated_claims, supported_claims

    @given(supported_claims())
    def test_my_judge_accepts_what_the_passage_says(case):
        passage, claim = case
        assert my_judge.judge(claim, [passage]).supported

    @given(mutated_claims(operators=["negation", "number"]))
    def test_my_judge_rejects_mutants(case):
        passage, claim, operator = case
        assert my_judge.judge(claim, [passage]).supported is False

Passages are built from facts with distinct names, verbs, nouns, adjectives and numbers, so every
operator applies and its mutant is unsupported by construction: another fact of the same passage
never says what the mutant says. Needs hypothesis (the ``dev`` extra); the plugin never imports
this module.
"""

from __future__ import annotations

from typing import Sequence

from hypothesis import strategies as st

from .checks.operators import TEXT_OPERATORS, mutate_text, overlap

NAMES = ("Ardley", "Brasco", "Corwin", "Delmar", "Eastgate", "Fenwick", "Galloway", "Harrow")
VERBS = ("waters", "inspects", "repaints", "feeds", "visits", "cleans", "moves", "checks")
NOUNS = ("ferns", "boats", "fences", "greenhouses", "bridges", "orchards", "kilns", "hives")
# Adjectives whose antonym checks/operators.py knows: each fact takes one pair, used once.
ADJECTIVES = (("large", "small"), ("old", "new"), ("dry", "wet"), ("warm", "cool"), ("northern", "southern"), ("public", "private"))
ADVERBS = ("usually", "often", "sometimes", "rarely")
UNITS = ("days", "weeks", "months")
PLACES = ("Lake Orran", "Mount Kell", "Port Avis", "Glen Tarra", "Cape Morrow", "Fort Lisle", "Saint Brice", "Loch Ardan")
# A second passage on another subject, for the citation operators: it shares no content word.
DISTRACTORS = (
    "The museum opens at noon on weekdays.",
    "Its library lends maps, atlases and charts.",
    "Tickets cost less for students and pensioners.",
    "A guided tour leaves from the lobby each hour.",
)

CITATION_OPERATORS = ("citation_move",)
OPERATORS = TEXT_OPERATORS + CITATION_OPERATORS


@st.composite
def facts(draw: st.DrawFn, count: int | tuple[int, int] = (2, 4)) -> list[str]:
    """Sentences "<Name> <adverb> <verb> the <adjective> <noun> near <Place> every <n> <unit>.",
    no two sharing a name, verb, noun, adjective pair, place or number."""
    low, high = (count, count) if isinstance(count, int) else count
    k = draw(st.integers(low, high))
    names = draw(st.permutations(NAMES))[:k]
    verbs = draw(st.permutations(VERBS))[:k]
    nouns = draw(st.permutations(NOUNS))[:k]
    pairs = draw(st.permutations(ADJECTIVES))[:k]
    places = draw(st.permutations(PLACES))[:k]
    numbers = draw(st.lists(st.integers(2, 60), min_size=k, max_size=k, unique=True))
    out = []
    for i in range(k):
        adjective = pairs[i][draw(st.integers(0, 1))]
        adverb = draw(st.sampled_from(ADVERBS))
        unit = draw(st.sampled_from(UNITS))
        out.append(f"{names[i]} {adverb} {verbs[i]} the {adjective} {nouns[i]} near {places[i]} every {numbers[i]} {unit}.")
    return out


@st.composite
def supported_claims(draw: st.DrawFn) -> tuple[str, str]:
    """(passage, claim): the claim is one of the passage's sentences, word for word."""
    sentences = draw(facts())
    claim = draw(st.sampled_from(sentences))
    return " ".join(sentences), claim


@st.composite
def mutated_claims(draw: st.DrawFn, operators: Sequence[str] = OPERATORS) -> tuple[str, str, str]:
    """(passage, claim, operator): a claim the passage does not support, made by ``operator``
    from a sentence of a passage that does.

    For the text operators the passage is the one the sentence came from. For ``citation_move``
    the claim is the original sentence and the passage is an unrelated one it now cites.
    """
    unknown = [op for op in operators if op not in OPERATORS]
    if unknown or not operators:
        raise ValueError(f"unknown operators {unknown!r}; choose from {', '.join(OPERATORS)}")
    operator = draw(st.sampled_from(list(operators)))
    passage, claim = draw(supported_claims())
    if operator == "citation_move":
        other = " ".join(draw(st.permutations(DISTRACTORS))[: draw(st.integers(1, len(DISTRACTORS)))])
        assert overlap(claim, other) == 0.0
        return other, claim, operator
    mutant = mutate_text(operator, claim, [passage])
    if mutant is None:  # the facts are built so that every operator applies
        raise AssertionError(f"{operator} did not apply to {claim!r}")
    return passage, mutant, operator


__all__ = ["OPERATORS", "facts", "mutated_claims", "supported_claims"]
