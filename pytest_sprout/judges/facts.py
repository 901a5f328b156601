"""Expected facts (a case's ``expected_facts``) found in an answer: the groundedness tier's
``facts`` metric.

A fact is found when its text is in the answer, when the fuzzy match of its surface form reaches
the threshold (rapidfuzz ``partial_ratio``, 0-100), or when the fuzzy match of its *lemmas* does:
both texts read through the lexical judge's word keys (its lemma, then a light stem: "offended"
and "offends" are "offend"), an answer word that is a derivationally related form of a fact word
("offensive" of "offend", "explanation" of "explain", as the judge finds them) taking the fact
word's key. The surface score is kept in the reason either way; a failing score is printed with
one decimal, rounded down, so it never reads as the threshold (84.96 is "84.9/100 (needs 85)").
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

FACT_THRESHOLD = 85.0  # rapidfuzz partial_ratio, 0-100
# Related forms (WordNet, read once per process when first needed) are looked up only for a fact
# whose lemmas alone come this near: a form shares most of its word ("offend" ~ "offensiv" is 83).
RELATED_FROM = 60.0
_WORD = re.compile(r"[^\W_]+(?:['\u2019-][^\W_]+)*")


@dataclass(frozen=True)
class FactMatch:
    """How an expected fact fared: found or not, the surface (raw) fuzzy score and the lemma one."""

    fact: str
    found: bool
    fuzzy_score: float  # partial_ratio of the lower-cased texts
    lemma_score: float  # partial_ratio of their word keys (see the module)

    @property
    def by_lemma(self) -> bool:
        """Found through the lemmas only: the surface match alone would have missed it."""
        return self.found and self.lemma_score > self.fuzzy_score


def shown(score: float) -> str:
    """A score with one decimal, rounded down: a failing 84.96 never reads as 85.0."""
    return f"{math.floor(score * 10 + 1e-9) / 10:.1f}"


def _keys(text: str) -> list[tuple[str, str]]:
    """(word, key) for each word of the text, lower-cased; the key is the lexical judge's."""
    from .lexical.text import stem

    return [(w, stem(w)) for w in _WORD.findall(text.lower())]


@lru_cache(maxsize=1 << 14)
def _forms(word: str) -> frozenset[str]:
    """The keys of a word's derivationally related forms ("offensive" -> "offend", ...)."""
    from .lexical import lexicon
    from .lexical.text import stem

    try:
        return frozenset(stem(w) for w in lexicon.derived(lexicon.lemma(word)))
    except Exception:  # WordNet unavailable: no related forms, the lemmas alone
        return frozenset()


def lemma_text(fact: str, text: str, forms: bool = True) -> tuple[str, str]:
    """The fact and the answer as word keys, an answer word related to a fact word written as
    that fact word's key (with ``forms``; see the module)."""
    fact_words = _keys(fact)
    if not forms:
        return " ".join(key for _, key in fact_words), " ".join(key for _, key in _keys(text))
    fact_keys = {key for _, key in fact_words}
    related: dict[str, str] = {}
    for word, key in fact_words:
        for form in _forms(word):
            related.setdefault(form, key)
    out = []
    for word, key in _keys(text):
        if key not in fact_keys:
            if key in related:
                key = related[key]
            else:
                key = next((k for k in sorted(_forms(word)) if k in fact_keys), key)
        out.append(key)
    return " ".join(key for _, key in fact_words), " ".join(out)


def match_fact(fact: str, text: str, threshold: float = FACT_THRESHOLD) -> FactMatch:
    """Whether an expected fact appears in the answer text (see the module), with both scores."""
    from rapidfuzz import fuzz

    fact_l, text_l = fact.lower().strip(), text.lower()
    if not fact_l or fact_l in text_l:
        return FactMatch(fact, True, 100.0, 100.0)
    raw = float(fuzz.partial_ratio(fact_l, text_l))
    if raw >= threshold:
        return FactMatch(fact, True, raw, raw)
    lemma = _lemma_score(*lemma_text(fact, text, forms=False))
    if RELATED_FROM <= lemma < threshold:
        lemma = max(lemma, _lemma_score(*lemma_text(fact, text)))
    return FactMatch(fact, lemma >= threshold, raw, lemma)


def _lemma_score(fact_k: str, text_k: str) -> float:
    from rapidfuzz import fuzz

    if fact_k and f" {fact_k} " in f" {text_k} ":  # every word, in order, by its key
        return 100.0
    return float(fuzz.partial_ratio(fact_k, text_k)) if fact_k and text_k else 0.0


def find_fact(fact: str, text: str, threshold: float = FACT_THRESHOLD) -> bool:
    """Whether an expected fact appears in the answer text, allowing small wording changes and
    other inflections of its words."""
    return match_fact(fact, text, threshold).found


def best_near_miss(fact: str, text: str) -> tuple[str, float]:
    """The stretch of the answer closest to an expected fact, and its rapidfuzz partial_ratio
    score (0-100, unrounded): what the fuzzy match came nearest to when the fact was not found."""
    from rapidfuzz import fuzz

    fact_l, text_l = fact.lower().strip(), text.lower()
    if not fact_l or not text_l:
        return "", 0.0
    match = fuzz.partial_ratio_alignment(fact_l, text_l)
    if match is None:
        return "", 0.0
    start, end = match.dest_start, match.dest_end
    while start > 0 and text[start - 1].isalnum():  # widen to whole words, for reading
        start -= 1
    while end < len(text) and text[end].isalnum():
        end += 1
    return text[start:end].strip(" .,;:!?"), float(match.score)


def fact_reasons(missing: list[FactMatch], text: str, threshold: float) -> list[dict[str, Any]]:
    """One reason per missing fact: its best near miss with the surface score (one decimal,
    rounded down) and the threshold, and the lemma score when it came nearer."""
    out = []
    for m in missing:
        near, score = best_near_miss(m.fact, text)
        if near:
            why = f"best near miss {near!r} scores {shown(score)}/100 (needs {threshold:g})"
            if m.lemma_score > score:
                why += f"; by lemma {shown(m.lemma_score)}"
        else:
            why = "the answer has no sentences to search"
        out.append({"metric": "facts", "why": f"missing expected fact {m.fact!r}: {why}", "fact": m.fact,
                    "near_miss": near, "fuzzy_score": float(shown(score)), "lemma_score": float(shown(m.lemma_score)),
                    "threshold": threshold})
    return out


def found_by_lemma(matches: list[FactMatch]) -> list[dict[str, Any]]:
    """The facts found only through their lemmas, with the raw fuzzy score the surface match had."""
    return [{"fact": m.fact, "fuzzy_score": float(shown(m.fuzzy_score)), "lemma_score": float(shown(m.lemma_score))}
            for m in matches if m.by_lemma]
