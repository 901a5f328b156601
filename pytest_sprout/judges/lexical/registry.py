"""The lexical judge's rules, one object each, in the order the judge applies them (``RULES``).

A rule is a ``Rule``: its ``name`` (what ``LexicalJudge(disabled={...})`` switches off), the
``family`` its failure reports as the verdict's rule ("entity", "number", ...), whether a failure
on evidence that lacks some of the claim's words is only ``soft`` (weighed by the calibrated score,
not decisive), its ``check``, and hand examples of the phenomenon: ``must_fail`` (claim, evidence)
pairs the judge rejects by this rule's family and accepts, or rejects otherwise, with the rule
switched off, and ``must_pass`` pairs this rule does not reject (tests/test_lexical_registry.py
runs them all).

Most rules apply at stage ``"evidence"``: ``check(context) -> Failure | None`` against a window of
evidence sentences (``Context``), called in the order of ``RULES`` for each sentence that holds the
whole claim, then once for the evidence the search chose; the first failure wins, and among
sentences that each hold the whole claim the failure of the latest family (``RULE_ORDER``) is the
one reported. A few rules apply elsewhere, each at one place of ``judge.py``, named by their
``stage``:

- ``"clause"``: a clause of the claim the evidence lacks, found while the coverage is counted
  (it applies after every rule of stage ``"evidence"``);
- ``"decisive"``: what makes a soft failure decisive though the evidence lacks some of the claim.

To add a rule: write its check (in ``rules.py``, ``polarity.py`` for negation and antonyms,
``names.py`` for names), add one ``Rule`` here at the place it should win over the others, with
its examples, bump ``judge.RULES_VERSION`` and refit (``bench/fit_lexical.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from .index import Sentence
from .names import (
    check_displaced_name, check_name_alone, check_name_in_place, check_name_slot,
    check_names_exchanged,
)
from .passage import _Prepared, number_facts, numbers_near
from .polarity import (
    check_antonym_swapped, check_antonyms, check_negated_clause_stated, check_negation,
    check_negation_unsaid, check_opposite_relation,
)
from .rules import (
    Alignment, Failure, align, check_numbers_in, check_quantifier_whole, check_quantifiers,
    check_stitched, check_swap, check_unit_swapped, has_unit, substitutions,
)

Example = tuple[str, str]  # (claim, evidence passage)


class Context:
    """What a rule of stage ``"evidence"`` reads: the claim, the evidence window, the cited passages,
    the claim's keys the window lacks (``uncovered``), the window's sentence holding most of the
    claim (``best``; None when each sentence is tried alone), the window's (passage, sentence)
    positions (``places``; None: anywhere in the passages), whether the cue rules apply
    (``cues``), and whether this is the second reading of a soft failure (``fallback``)."""

    __slots__ = ("claim", "window", "prepared", "uncovered", "best", "places", "cues", "fallback", "_pairs", "_subs")

    def __init__(self, claim: Sentence, window: tuple[Sentence, ...], prepared: list[_Prepared],
                 uncovered: Sequence[str] = (), best: Sentence | None = None,
                 places: Sequence[tuple[int, int]] | None = None) -> None:
        self.claim = claim
        self.window = window
        self.prepared = prepared
        self.uncovered = uncovered
        self.best = best
        self.places = places
        self.cues = True
        self.fallback = False
        self._pairs: Alignment | None = None
        self._subs: list[tuple[int, Sentence, int]] | None = None

    @property
    def pairs(self) -> Alignment:
        """The claim's clauses aligned with the window's (``rules.align``), computed once."""
        if self._pairs is None:
            self._pairs = align(self.claim, self.window)
        return self._pairs

    @property
    def subs(self) -> list[tuple[int, Sentence, int]]:
        """The claim's words put in the place of the window's (``rules.substitutions``), computed once."""
        if self._subs is None:
            self._subs = list(substitutions(self.claim, self.window))
        return self._subs

    @property
    def cued(self) -> bool:
        """Whether the clause-level cue rules apply: cues on, and a cue in the claim or the window."""
        window = self.window
        return self.cues and (self.claim.has_cue or (
            window[0].has_cue if len(window) == 1 else any(s.has_cue for s in window)))

    def said(self, cue: str) -> bool:
        """Whether the claim has the cue (``"has_negation"``, ``"has_quantifier"``), or the window
        has it where it counts (not gathered): a rule of that cue has something to read."""
        return getattr(self.claim, cue) or len(self.window) == 1 and getattr(self.window[0], cue)

    @property
    def gathered(self) -> bool:
        """Evidence gathered from several sentences: only the claim's own cues count."""
        return len(self.window) > 1


@dataclass(frozen=True)
class Rule:
    name: str
    family: str
    soft: bool
    check: Callable[..., Failure | None]
    must_fail: tuple[Example, ...] = ()
    must_pass: tuple[Example, ...] = ()
    stage: str = "evidence"


def _numbers(c: Context) -> Failure | None:
    if not c.claim.numbers:
        return None
    facts = number_facts(c.prepared) if c.places is None else numbers_near(c.prepared, c.places)
    return check_numbers_in(c.claim, *facts)


def _same(failure: Failure | None) -> Failure | None:
    """The check of a rule whose failure the judge finds itself (stage "clause")."""
    return failure


def _negated_clause_stated(c: Context) -> Failure | None:
    if c.fallback:  # a soft failure read again: one sentence must say the whole clause, three words of it
        return check_negated_clause_stated(c.claim, c.window, 1 if len(c.window) == 1 else 3)
    return check_negated_clause_stated(c.claim, c.window, 2) if c.gathered and c.cued else None


def _negation_unsaid(c: Context) -> Failure | None:
    return check_negation_unsaid(c.claim, c.window, c.pairs) if c.claim.has_negation and (c.fallback or c.cued) else None


RULES: tuple[Rule, ...] = (
    Rule("displaced_name", "entity", False, lambda c: None if c.best is None else check_displaced_name(
        c.claim, c.best, c.uncovered, c.window, c.places),
        must_fail=(("Marie Curie won the Nobel Prize in Physics in 1903 with Albert Einstein.",
                    "Marie Curie won the Nobel Prize in Physics in 1903 with Pierre Curie. "
                    "Albert Einstein won it in 1921."),),
        must_pass=(("Marie Curie won the Nobel Prize in Physics in 1903.",
                    "Marie Curie won the Nobel Prize in Physics in 1903 with Pierre Curie."),)),
    Rule("name_in_place", "entity", False, lambda c: None if c.best is None else check_name_in_place(c.claim, c.window),
         must_fail=(("The holding pressure of a VGA connector is low.",
                     "The holding pressure of a USB connector is low. A VGA cable carries video."),),
         must_pass=(("The holding pressure of a USB connector is low.",
                     "The holding pressure of a USB connector is low. A VGA cable carries video."),)),
    Rule("name_slot", "entity", False, lambda c: check_name_slot(c.claim, c.window),
         must_fail=(("In December 2017, News Feed announced that it would change.",
                     "In December 2017, Facebook announced that it would change its News Feed."),
                    ("The OS government raised taxes on imports.", "The US government raised taxes on imports.")),
         must_pass=(("In December 2017, Facebook announced that it would change.",
                     "In December 2017, Facebook announced that it would change its News Feed."),)),
    Rule("numbers", "number", False, _numbers,
         must_fail=(("Water the fern every 3 days.", "Water the fern every 5 days."),),
         must_pass=(("Water the fern every five days.", "Water the fern every 5 days."),)),
    Rule("unit_swapped", "number", False, lambda c: check_unit_swapped(c.claim, c.window, c.subs) if has_unit(c.claim) else None,
         must_fail=(("Detainees spend years in detention before a hearing.",
                     "Detainees spend months in detention before a hearing."),),
         must_pass=(("Detainees spend months in detention.", "Detainees spend months in detention before a hearing."),)),
    Rule("quantifiers", "quantifier", True,
         lambda c: check_quantifiers(c.claim, c.window, c.pairs, c.gathered) if c.cued and c.said("has_quantifier") else None,
         must_fail=(("All ferns like humid air.", "Some ferns like humid air."),),
         must_pass=(("Some ferns like humid air.", "Most ferns like humid air."),)),
    Rule("negation", "negation", True,
         lambda c: check_negation(c.claim, c.window, c.pairs, c.gathered) if c.cued and c.said("has_negation") else None,
         must_fail=(("Ferns do not like humid air.", "Ferns like humid air."),),
         must_pass=(("Ferns do not like dry air.", "Ferns do not like dry air and need humidity."),)),
    Rule("negation_unsaid", "negation", True, _negation_unsaid,
         must_fail=(("The vaccine does not protect children from measles in the first year.",
                     "The vaccine protects children from measles."),),
         must_pass=(("The vaccine does not protect adults from measles.",
                     "The vaccine does not protect adults from measles, only children."),)),
    Rule("negated_clause_stated", "negation", True, _negated_clause_stated,
         must_fail=(("Young lambs are protected by thick wool in winter.",
                     "Adult sheep are protected by thick wool in winter. Young lambs have no wool yet."),),
         must_pass=(("Adult sheep are protected by thick wool in winter.",
                     "Adult sheep are protected by thick wool in winter. Young lambs have no wool yet."),)),
    Rule("antonyms", "antonym", False,
         lambda c: check_antonyms(c.claim, c.window, c.uncovered) if c.uncovered else None,
         must_fail=(("The river has high water in summer.", "The river has low water in summer and floods in spring."),),
         must_pass=(("The river has low water in summer.", "The river has low water in summer and floods in spring."),)),
    Rule("antonym_swapped", "antonym", False, lambda c: check_antonym_swapped(c.claim, c.window, c.subs),
         must_fail=(("Pressure gradually decreases as depth grows in the sea.", "Pressure gradually increases as depth grows."),),
         must_pass=(("Pressure gradually increases as depth grows.", "Pressure gradually increases as depth grows."),)),
    Rule("opposite_relation", "antonym", False, lambda c: check_opposite_relation(c.claim, c.window),
         must_fail=(("Warm the body before a shower.", "Warm the body after a shower."),),
         must_pass=(("Warm the body after a shower.", "Warm the body after a shower, then rest."),)),
    Rule("swap", "entity-swap", False, lambda c: check_swap(c.claim, c.window),
         must_fail=(("Dogs are more sensitive to lilies than cats.", "Cats are more sensitive to lilies than dogs."),),
         must_pass=(("Cats are more sensitive to lilies than dogs.", "Cats are more sensitive to lilies than dogs are."),)),
    Rule("names_exchanged", "entity-swap", False,
         lambda c: check_names_exchanged(c.claim, c.window[0] if c.best is None else c.best),
         must_fail=(("Mid-Atlantic notes that the William Labov accent fell out of favor.",
                     "William Labov notes that the Mid-Atlantic accent fell out of favor."),),
         must_pass=(("Labov notes that the Mid-Atlantic accent fell out of favor.",
                     "William Labov notes that the Mid-Atlantic accent fell out of favor."),)),
    Rule("stitched", "stitched", False, lambda c: check_stitched(c.claim, c.window),
         must_fail=(("Body armor typically wears a vest rated at level three.",
                     "Police patrol officers typically wear a vest rated at level three. Body armor is heavy."),),
         must_pass=(("Police patrol officers typically wear a vest rated at level three.",
                     "Police patrol officers typically wear a vest rated at level three. Body armor is heavy."),)),
    Rule("name_alone", "stitched", False, lambda c: None if c.places is None else check_name_alone(
        c.claim, c.window, c.places, c.prepared),
         must_fail=(("The Getty Images enzyme breaks down sugar in the gut.",
                     "An enzyme breaks down sugar in the gut. It works fast. Image: Getty Images."),),
         must_pass=(("An enzyme breaks down sugar in the gut.",
                     "An enzyme breaks down sugar in the gut. It works fast. Image: Getty Images."),)),
    Rule("quantifier_whole", "quantifier", False, lambda c: check_quantifier_whole(c.claim, c.window),
         must_fail=(("Cats must avoid lilies, which grow in spring gardens.", "Cats can avoid lilies. Tulips grow in spring."),),
         must_pass=(("Cats can avoid lilies.", "Cats can avoid lilies. Tulips grow in spring."),),
         stage="decisive"),
    Rule("clause", "clause", False, _same, stage="clause",
         must_fail=(("Peace lilies are toxic to cats.", "Peace lilies like shade."),),
         must_pass=(("Peace lilies like shade.", "Peace lilies like shade and are toxic to cats."),)),
    Rule("clause_added", "clause", False, _same, stage="clause",
         must_fail=(("Training increases the size of the heart, further reducing the heart rate.",
                     "Training increases the size of the heart. The heart pumps blood."),),
         must_pass=(("Training increases the size of the heart.",
                     "Training increases the size of the heart. The heart pumps blood."),)),
)

# The families of the rules in the order they apply, the clause rule last: among sentences that
# each hold the whole claim and fail, the failure of the latest family is reported.
RULE_ORDER: tuple[str, ...] = tuple(dict.fromkeys(
    [r.family for r in RULES if r.stage == "evidence"] + ["clause"]))
RULE_RANK = {family: rank for rank, family in enumerate(RULE_ORDER)}
NAMES = frozenset(r.name for r in RULES)
