"""Deterministic, offline groundedness judge: lexical coverage plus rules that must agree.

The package, by role (each module imports only those above it):

- ``text``: word lists, the tokeniser, word keys (lemma, then a light stem) and token kinds;
- ``numbers``: numbers with ranges, units and bounds, compared by value;
- ``dates``: dates of day, month and year in any common form, compared by value;
- ``lexicon``: the lemmatiser (lemminflect) and WordNet synonyms, antonyms and word rarity,
  loaded on first use only;
- ``scan``: the one pass over a sentence's tokens (its content, clauses and cues) and the content
  keys of a sentence without its analysis, for indexing a passage;
- ``index``: analysed sentences and the per-passage index of sentences by word;
- ``rules``: the alignment of clauses, and the rules of numbers, quantifiers, swapped entities and
  stitched subjects;
- ``polarity``: the rules of negation and antonyms;
- ``names``: the rules of names (a name of the claim in the place of another of its evidence);
- ``registry``: every rule as one ``Rule`` object, in the order the judge applies them (``RULES``),
  with hand examples it must fail and must pass;
- ``framing``: openings that frame an answer ("Based on the given context, ..."), set aside;
- ``claims``: sentences with no claim of their own (unscored, rule ``no-claim``) and fragments
  without a verb (judged with the sentence before them, ``LexicalJudge.judge_answer``);
- ``evidence``: what the judge found for a claim, and the features of its calibrated score;
- ``verdicts``: the verdict and its reason from what was found (the failed rule, the coverage, the
  calibrated score, the notes), and the verdict on a claim without content words;
- ``calibration``: the coefficients of the calibrated score, and ``load`` to read others from a file;
- ``judge``: ``LexicalJudge``, which finds the evidence and combines coverage and rules into a
  calibrated probability. ``LexicalJudge(disabled={"name", ...})`` switches rules off (named in
  ``settings()``, so in every cache key).

How to add a rule: write its check (``check_x(claim, window, ...) -> Failure | None`` in
``rules.py``, ``polarity.py`` for negation and antonyms, ``names.py`` for names: ``claim`` and each
evidence sentence are ``index.Sentence`` analyses; return ``(family, reason)``, the reason naming the
claim's word and the evidence's; read what the sentence already computes, ``keys``, ``content``,
``clauses()``, ``numbers``, ``names()``, rather than the text), then add one ``Rule`` to
``registry.RULES`` at the place where it should win over the others, with hand examples of the
phenomenon it must fail and must pass (tests/test_lexical_registry.py runs them). Bump
``judge.RULES_VERSION`` (part of every cache key) and refit with ``bench/fit_lexical.py``; compare
verdicts before and after with ``bench/bench_lexical.py --against``, and see what it pays with
``bench/ablate_lexical.py``. (A sentence with no claim of its own is no rule: its pattern goes in
``claims.no_claim``, and the judge leaves it unscored, rule ``no-claim``.)
"""

from __future__ import annotations

from . import calibration, lexicon
from .index import Clause, Sentence, analyse
from .passage import _Prepared, _prepare_passage
from .judge import RULES_VERSION, Evidence, LexicalJudge, strip_boilerplate
from .numbers import Number, find_numbers
from .names import check_displaced_name
from .polarity import check_antonyms, check_negated_clause_stated, check_negation
from .registry import RULE_ORDER, RULES, Context, Rule
from .rules import Alignment, Failure, align, check_numbers_in, check_quantifiers, check_swap
from .text import stem, words_of

__all__ = [
    "RULES", "RULES_VERSION", "RULE_ORDER", "Alignment", "Context", "Rule", "Clause", "Evidence", "Failure", "LexicalJudge", "Number", "Sentence",
    "_Prepared", "_prepare_passage", "align", "analyse", "calibration", "check_antonyms", "check_displaced_name",
    "check_negated_clause_stated", "check_negation", "check_numbers_in", "check_quantifiers", "check_swap",
    "find_numbers", "lexicon", "stem", "strip_boilerplate", "words_of",
]
