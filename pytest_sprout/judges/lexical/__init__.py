"""Deterministic, offline groundedness judge: lexical coverage plus rules that must agree.

The package, by role:

- ``text``: word lists, the tokeniser, word keys (lemma, then a light stem) and token kinds;
- ``numbers``: numbers with ranges, units and bounds, compared by value;
- ``dates``: dates of day, month and year in any common form, compared by value;
- ``lexicon``: the lemmatiser (lemminflect) and WordNet synonyms, antonyms and word rarity,
  loaded on first use only;
- ``index``: analysed sentences and the per-passage index of sentences by word;
- ``rules``: the rules a claim must pass against its evidence;
- ``judge``: ``LexicalJudge``, which finds the evidence and combines coverage and rules into a
  calibrated probability.
"""

from __future__ import annotations

from .index import *  # noqa: F403
from .index import Clause, Sentence, _bits, _Prepared, _prepare_passage, _text  # noqa: F401
from . import calibration, lexicon  # noqa: F401
from .judge import RULES_VERSION, LexicalJudge, strip_boilerplate  # noqa: F401
from .numbers import Number, find_numbers  # noqa: F401
from .rules import *  # noqa: F403
from .rules import (  # noqa: F401
    RULE_ORDER, Alignment, Failure, align, check_antonyms, check_displaced_name, check_names, check_names_in,
    check_negation, check_numbers_in, check_numbers, check_quantifiers,
    check_swap,
)
from .text import *  # noqa: F403
from .text import (  # noqa: F401
    CLAUSE_BREAKS, MONTHS, NEGATIONS, NUMBER_WORDS, QUANTIFIERS, STOPWORDS, UNITS, _classify, stem, words_of,
)

__all__ = ["LexicalJudge"]
