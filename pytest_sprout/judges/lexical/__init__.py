"""Deterministic, offline groundedness judge: lexical coverage plus rules that must agree
(``LexicalJudge``). docs/architecture.md gives the modules by role; ``judge`` how a claim is judged.

To add a rule: write its check (in ``rules.py``, ``polarity.py`` for negation and antonyms,
``names.py`` for names) on the ``index.Sentence`` analyses of the claim and the evidence, reading
what they compute (``keys``, ``content``, ``clauses()``, ``numbers``, ``names()``) rather than the
text, and returning ``(family, reason)``, the reason naming the claim's word and the evidence's;
add one ``Rule`` to ``registry.RULES`` where it should win over the others, with a one-line ``doc``
of what it catches and hand examples it must fail and must pass; bump ``judge.RULES_VERSION`` and refit (``bench/fit_lexical.py``); compare
verdicts with ``bench/bench_lexical.py --against`` and see what it pays with
``bench/ablate_lexical.py``. A sentence with no claim of its own is no rule: its pattern goes in
``claims.no_claim``.
"""

from __future__ import annotations

from . import calibration, lexicon
from .framing import strip_boilerplate
from .index import Clause, Sentence, analyse
from .judge import RULES_VERSION, Evidence, LexicalJudge
from .names import check_displaced_name
from .numbers import Number, find_numbers
from .passage import _Prepared, _prepare_passage
from .polarity import check_antonyms, check_negated_clause_stated, check_negation
from .registry import RULE_ORDER, RULES, Context, Rule
from .rules import Alignment, Failure, align, check_numbers_in, check_quantifiers, check_swap
from .text import stem, words_of

__all__ = [
    "RULES", "RULES_VERSION", "RULE_ORDER", "Alignment", "Context", "Rule", "Clause", "Evidence", "Failure",
    "LexicalJudge", "Number", "Sentence", "_Prepared", "_prepare_passage", "align", "analyse", "calibration",
    "check_antonyms", "check_displaced_name", "check_negated_clause_stated", "check_negation", "check_numbers_in",
    "check_quantifiers", "check_swap", "find_numbers", "lexicon", "stem", "strip_boilerplate", "words_of",
]
