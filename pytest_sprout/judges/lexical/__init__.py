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
- ``rules``: the order of the rules, the alignment of clauses, and the rules of numbers,
  quantifiers, swapped entities and stitched subjects;
- ``polarity``: the rules of negation, litotes, denial and antonyms;
- ``names``: the rules of names (a name of the claim in the place of another of its evidence);
- ``framing``: openings that frame an answer ("Based on the given context, ..."), set aside;
- ``claims``: sentences with no claim of their own (unscored, rule ``no-claim``) and fragments
  without a verb (judged with the sentence before them, ``LexicalJudge.judge_answer``);
- ``evidence``: what the judge found for a claim, and the features of its calibrated score;
- ``verdicts``: the verdict and its reason from what was found (the failed rule, the coverage, the
  calibrated score, the notes), and the verdict on a claim without content words;
- ``judge``: ``LexicalJudge``, which finds the evidence and combines coverage and rules into a
  calibrated probability.

How to add a rule (each step is a place in the code; tests/test_lexical_rules_order.py checks
that the first three agree):

1. Write ``check_x(claim, window, ...) -> Failure | None`` in ``rules.py`` (in ``polarity.py`` for
   a rule of negation or antonyms, in ``names.py`` for one of names): ``claim`` and each
   evidence sentence are ``index.Sentence`` analyses; return ``("x", reason)``, the reason naming
   the claim's word and the evidence's. Read what the sentence already computes (``keys``,
   ``content``, ``clauses()``, ``numbers``, ``names()``) rather than the text.
2. Call it in ``LexicalJudge._rules`` (judge.py), the one place the rules run, at the point where it
   should win over the others: ``_rules`` is called for each sentence that holds the whole claim
   and then once for the evidence the search chose. (The clause rule is the exception: it is found
   while the coverage is counted, ``LexicalJudge._fill``, and applies after every rule of
   ``_rules``.)
3. Put ``"x"`` in ``rules.RULE_ORDER`` at that same position: the order is the order of the calls,
   and among sentences that each hold the whole claim and fail, the latest rule's failure is the
   one reported.
4. If its failure on evidence that lacks some of the claim's words is only a sign (the evidence may
   be about something else), add ``"x"`` to ``judge._SOFT``: the score weighs it instead.
5. Bump ``judge.RULES_VERSION`` (it is part of every cache key), refit with
   ``bench/fit_lexical.py`` (the ``rule_failed`` feature changes) and write the new
   ``calibration.py``; compare the verdicts before and after with
   ``bench/bench_lexical.py --against`` on the labelled data.
   (A sentence that should not be judged at all, having no claim of its own, is no rule: its
   pattern goes in ``claims.no_claim`` and the judge leaves it unscored, rule ``no-claim``.)
6. Describe the rule in ``judge.py``'s docstring (step 4 of the judging) and in
   docs/judging-the-judges.md; test it in tests/test_lexical*.py with a verdict that it fails and
   one it must not fail (the phenomenon, not one data set's sentence).
"""

from __future__ import annotations

from . import calibration, lexicon
from .index import Clause, Sentence, analyse
from .passage import _Prepared, _prepare_passage
from .judge import RULES_VERSION, Evidence, LexicalJudge, strip_boilerplate
from .numbers import Number, find_numbers
from .names import check_displaced_name
from .polarity import check_antonyms, check_negated_clause_stated, check_negation
from .rules import RULE_ORDER, Alignment, Failure, align, check_numbers_in, check_quantifiers, check_swap
from .text import stem, words_of

__all__ = [
    "RULES_VERSION", "RULE_ORDER", "Alignment", "Clause", "Evidence", "Failure", "LexicalJudge", "Number", "Sentence",
    "_Prepared", "_prepare_passage", "align", "analyse", "calibration", "check_antonyms", "check_displaced_name",
    "check_negated_clause_stated", "check_negation", "check_numbers_in", "check_quantifiers", "check_swap",
    "find_numbers", "lexicon", "stem", "strip_boilerplate", "words_of",
]
