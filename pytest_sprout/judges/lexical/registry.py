"""The lexical judge's rules, one ``Rule`` each, in the order the judge applies them (``RULES``).
Most apply at stage ``"evidence"``: ``check(Context)`` for each sentence that holds the whole claim,
then for the evidence the search chose; the first failure wins (among whole sentences that each
fail, the latest family of ``RULE_ORDER``). A rule of stage ``"clause"`` names a failure the judge
finds itself; one of stage ``"decisive"`` makes a soft failure decisive."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Sequence

from .index import Sentence
from .names import (
    check_displaced_name, check_name_alone, check_name_in_place, check_name_slot, check_names_exchanged,
)
from .passage import _Prepared, number_facts, numbers_near
from .polarity import (
    check_antonym_swapped, check_antonyms, check_negated_clause_stated, check_negation, check_negation_unsaid,
    check_opposite_relation,
)
from .rules import (
    Alignment, Failure, align, check_numbers_in, check_quantifier_whole, check_quantifiers, check_stitched, check_swap,
    check_unit_swapped, has_unit, number_keys, substitutions,
)

Example = tuple[str, str]  # (claim, evidence passage)


@dataclass(slots=True, eq=False)
class Context:
    """What a rule of stage "evidence" reads: the claim, the evidence ``window``, the cited passages
    (``prepared``), the claim's keys the window lacks (``uncovered``), the window's sentence holding
    most of the claim (``best``; None when each sentence is tried alone), the window's (passage,
    sentence) positions (``places``; None: anywhere), whether the cue rules apply (``cues``) and
    whether this is the second reading of a soft failure (``fallback``)."""

    claim: Sentence
    window: tuple[Sentence, ...]
    prepared: list[_Prepared]
    uncovered: Sequence[str] = ()
    best: Sentence | None = None
    places: Sequence[tuple[int, int]] | None = None
    cues: bool = field(default=True, init=False)
    fallback: bool = field(default=False, init=False)
    _pairs: Alignment | None = field(default=None, init=False)
    _subs: list[tuple[int, Sentence, int]] | None = field(default=None, init=False)

    @property
    def pairs(self) -> Alignment:
        """``rules.align`` of the claim and the window, computed once for the rules that read it."""
        if self._pairs is None:
            self._pairs = align(self.claim, self.window)
        return self._pairs

    @property
    def subs(self) -> list[tuple[int, Sentence, int]]:
        """``rules.substitutions`` of the claim and the window, computed once."""
        if self._subs is None:
            self._subs = list(substitutions(self.claim, self.window))
        return self._subs

    @property
    def cued(self) -> bool:
        """Whether the clause-level cue rules apply: cues on, and a cue in the claim or the window."""
        window = self.window
        return self.cues and (self.claim.has_cue or (
            window[0].has_cue if len(window) == 1 else any(s.has_cue for s in window)))

    @property
    def gathered(self) -> bool:
        """Evidence gathered from several sentences: only the claim's own cues count."""
        return len(self.window) > 1


@dataclass(frozen=True)
class Rule:
    """One rule: its ``name`` (what ``LexicalJudge(disabled={...})`` switches off), the ``family`` its
    failure reports as the verdict's rule, whether a failure on evidence lacking some of the claim is
    only ``soft`` (weighed by the score), its ``check``, hand examples (claim, evidence) it must fail
    and must pass (tests/test_lexical_registry.py runs them), its ``stage`` and ``doc``."""

    name: str
    family: str
    soft: bool
    check: Callable[..., Failure | None]
    must_fail: tuple[Example, ...] = ()
    must_pass: tuple[Example, ...] = ()
    stage: str = "evidence"
    doc: str = ""  # what it catches, in a sentence or two


def _numbers(c: Context) -> Failure | None:
    if not c.claim.numbers:
        return None
    if c.places is None:
        return check_numbers_in(c.claim, *number_facts(c.prepared))
    held = [c.prepared[pi].sentences[i].derived(number_keys) for pi, i in c.places]
    if all(any(n.exact in keys for keys in held) for n in c.claim.numbers):
        return None  # each is a number of the evidence sentences, by value, unit and bound: it matches it
    return check_numbers_in(c.claim, *numbers_near(c.prepared, c.places))


def _negated_clause_stated(c: Context) -> Failure | None:
    if c.fallback:  # a soft failure read again: one sentence must say the whole clause, three words of it
        return check_negated_clause_stated(c.claim, c.window, 1 if len(c.window) == 1 else 3)
    return check_negated_clause_stated(c.claim, c.window, 2) if c.gathered and c.cued else None


def _negation_unsaid(c: Context) -> Failure | None:
    cued = c.claim.has_negation and (c.fallback or c.cued)
    return check_negation_unsaid(c.claim, c.window, c.pairs) if cued else None


def _quantifiers(c: Context) -> Failure | None:
    return check_quantifiers(c.claim, c.window, c.pairs, c.gathered) if c.cues and c.claim.has_quantifier else None


def _negation(c: Context) -> Failure | None:  # (evidence gathered from several sentences: only the claim's cues)
    said = c.claim.has_negation or len(c.window) == 1 and c.window[0].has_negation
    return check_negation(c.claim, c.window, c.pairs, c.gathered) if c.cues and said else None


RULES: tuple[Rule, ...] = (
    Rule("displaced_name", "entity", False, lambda c: None if c.best is None else check_displaced_name(
        c.claim, c.best, c.uncovered, c.window, c.places),
         (("Marie Curie won the Nobel Prize in Physics in 1903 with Albert Einstein.",
           "Marie Curie won the Nobel Prize in Physics in 1903 with Pierre Curie. Albert Einstein won it in 1921."),),
         (("Marie Curie won the Nobel Prize in Physics in 1903.",
           "Marie Curie won the Nobel Prize in Physics in 1903 with Pierre Curie."),),
         doc="A name put in the place of another of the sentence that states the rest of the claim."),
    Rule("name_in_place", "entity", False, lambda c: None if c.best is None else check_name_in_place(c.claim, c.window),
         (("The holding pressure of a VGA connector is low.",
           "The holding pressure of a USB connector is low. A VGA cable carries video."),),
         (("The holding pressure of a USB connector is low.",
           "The holding pressure of a USB connector is low. A VGA cable carries video."),),
         doc="A name taken from one evidence sentence into the place where another has a name of its own."),
    Rule("name_slot", "entity", False, lambda c: check_name_slot(c.claim, c.window),
         (("In December 2017, News Feed announced that it would change.",
           "In December 2017, Facebook announced that it would change its News Feed."),
          ("The OS government raised taxes on imports.", "The US government raised taxes on imports.")),
         (("In December 2017, Facebook announced that it would change.",
           "In December 2017, Facebook announced that it would change its News Feed."),),
         doc="A run of capitalised words in the slot of another run of the evidence (\"News Feed announced\")."),
    Rule("numbers", "number", False, _numbers,
         (("Water the fern every 3 days.", "Water the fern every 5 days."),),
         (("Water the fern every five days.", "Water the fern every 5 days."),),
         doc="A number or date that no evidence number matches by value, range, unit and bound (one that counts "
         "nothing, \"in 2015\", may come from a sentence next to the evidence)."),
    Rule("unit_swapped", "number", False, lambda c: check_unit_swapped(c.claim, c.subs) if has_unit(c.claim) else None,
         (("Detainees spend years in detention before a hearing.",
           "Detainees spend months in detention before a hearing."),),
         (("Detainees spend months in detention.", "Detainees spend months in detention before a hearing."),),
         doc="A unit where the evidence has another of its dimension (\"spend years\" for \"spend months\")."),
    Rule("quantifiers", "quantifier", True, _quantifiers,
         (("All ferns like humid air.", "Some ferns like humid air."),),
         (("Some ferns like humid air.", "Most ferns like humid air."),),
         doc="A quantifier or modal stronger than the evidence's (\"all\" for \"some\", \"must\" for \"may\")."),
    Rule("negation", "negation", True, _negation,
         (("Ferns do not like humid air.", "Ferns like humid air."),),
         (("Ferns do not like dry air.", "Ferns do not like dry air and need humidity."),),
         doc="A clause whose polarity is not its closest evidence clause's (a negative verb, \"failed to\", negates "
         "as a cue does), or a clause the evidence negates stated plainly."),
    Rule("negation_unsaid", "negation", True, _negation_unsaid,
         (("The vaccine does not protect children from measles in the first year.",
           "The vaccine protects children from measles."),),
         (("The vaccine does not protect adults from measles.",
           "The vaccine does not protect adults from measles, only children."),),
         doc="A negation that no evidence clause about the negated words says, in no words of its own (\"unless\", "
         "\"lacks\"): decisive even on evidence that lacks some of the claim."),
    Rule("negated_clause_stated", "negation", True, _negated_clause_stated,
         (("Young lambs are protected by thick wool in winter.",
           "Adult sheep are protected by thick wool in winter. Young lambs have no wool yet."),),
         (("Adult sheep are protected by thick wool in winter.",
           "Adult sheep are protected by thick wool in winter. Young lambs have no wool yet."),),
         doc="A clause that evidence gathered from several sentences negates, stated by the claim without negation."),
    Rule("antonyms", "antonym", False,
         lambda c: check_antonyms(c.claim, c.window, c.uncovered) if c.uncovered else None,
         (("The river has high water in summer.", "The river has low water in summer and floods in spring."),),
         (("The river has low water in summer.", "The river has low water in summer and floods in spring."),),
         doc="A claim word the evidence lacks whose antonym (or a hedge, \"likely\") it has in its place; a word the "
         "claim negates (\"not strong\") says its antonym itself."),
    Rule("antonym_swapped", "antonym", False, lambda c: check_antonym_swapped(c.claim, c.subs),
         (("Pressure gradually decreases as depth grows in the sea.", "Pressure gradually increases as depth grows."),),
         (("Pressure gradually increases as depth grows.", "Pressure gradually increases as depth grows."),),
         doc="A word where the evidence has its antonym between the same two words (\"create cold that\")."),
    Rule("opposite_relation", "antonym", False, lambda c: check_opposite_relation(c.claim, c.window),
         (("Warm the body before a shower.", "Warm the body after a shower."),),
         (("Warm the body after a shower.", "Warm the body after a shower, then rest."),),
         doc="A relation word where the evidence has its opposite between the same words (\"before\", \"after\")."),
    Rule("swap", "entity-swap", False, lambda c: check_swap(c.claim, c.window),
         (("Dogs are more sensitive to lilies than cats.", "Cats are more sensitive to lilies than dogs."),),
         (("Cats are more sensitive to lilies than dogs.", "Cats are more sensitive to lilies than dogs are."),),
         doc="Two entities of the evidence trading places, or steps reversed around \"then\"."),
    Rule("names_exchanged", "entity-swap", False,
         lambda c: check_names_exchanged(c.claim, c.window[0] if c.best is None else c.best),
         (("Mid-Atlantic notes that the William Labov accent fell out of favor.",
           "William Labov notes that the Mid-Atlantic accent fell out of favor."),),
         (("Labov notes that the Mid-Atlantic accent fell out of favor.",
           "William Labov notes that the Mid-Atlantic accent fell out of favor."),),
         doc="Two names of the claim that trade places in its evidence sentence."),
    Rule("stitched", "stitched", False, lambda c: check_stitched(c.claim, c.window),
         (("Body armor typically wears a vest rated at level three.",
           "Police patrol officers typically wear a vest rated at level three. Body armor is heavy."),),
         (("Police patrol officers typically wear a vest rated at level three.",
           "Police patrol officers typically wear a vest rated at level three. Body armor is heavy."),),
         doc="Evidence of several sentences, one saying the claim's predicate of a subject of its own while the "
         "claim's subject comes from another."),
    Rule("name_alone", "stitched", False, lambda c: None if c.places is None else check_name_alone(
        c.claim, c.window, c.places, c.prepared),
         (("The Getty Images enzyme breaks down sugar in the gut.",
           "An enzyme breaks down sugar in the gut. It works fast. Image: Getty Images."),),
         (("An enzyme breaks down sugar in the gut.",
           "An enzyme breaks down sugar in the gut. It works fast. Image: Getty Images."),),
         doc="A name of the claim that only a sentence apart, holding nothing else of the claim, holds."),
    Rule("quantifier_whole", "quantifier", False, lambda c: check_quantifier_whole(c.claim, c.window),
         (("Cats must avoid lilies, which grow in spring gardens.", "Cats can avoid lilies. Tulips grow in spring."),),
         (("Cats can avoid lilies.", "Cats can avoid lilies. Tulips grow in spring."),), stage="decisive",
         doc="A quantifier failure against an evidence clause that holds the whole claim clause: decisive, though the "
         "evidence lacks words of the claim's other clauses."),
    Rule("clause", "clause", False, lambda failure: failure,
         (("Peace lilies are toxic to cats.", "Peace lilies like shade."),),
         (("Peace lilies like shade.", "Peace lilies like shade and are toxic to cats."),), stage="clause",
         doc="A clause of two or more words, or the second half of the claim, wholly absent from the evidence "
         "(\"Peace lilies | are toxic to cats\" is only on topic)."),
    Rule("clause_added", "clause", False, lambda failure: failure,
         (("Training increases the size of the heart, further reducing the heart rate.",
           "Training increases the size of the heart. The heart pumps blood."),),
         (("Training increases the size of the heart.",
           "Training increases the size of the heart. The heart pumps blood."),), stage="clause",
         doc="The claim's last clause, all the evidence lacks, adding at most one word of its own to a sentence."),
)

# The families of the rules in the order they apply, the clause rule last: among sentences that
# each hold the whole claim and fail, the failure of the latest family is reported.
RULE_ORDER: tuple[str, ...] = tuple(dict.fromkeys([r.family for r in RULES if r.stage == "evidence"] + ["clause"]))
RULE_RANK = {family: rank for rank, family in enumerate(RULE_ORDER)}
NAMES = frozenset(r.name for r in RULES)
