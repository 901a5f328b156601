"""What the lexical judge found for a claim (``Evidence``): the sentences, the coverage and the
features of the calibrated score; and the small steps of the search that gathers it (the masks of
the claim's words, synonyms for the words no cited sentence holds, ties between sentences)."""

from __future__ import annotations

import math
from functools import reduce
from itertools import compress
from operator import or_
from typing import Sequence

from pytest_sprout.core.model import Passage

from .index import Sentence
from .passage import _Prepared
from .rules import Failure
from .text import related_keys

# Cited passages of more sentences than the fitting data had (78 at most) count as this many: the
# score is not extrapolated far beyond what it was fitted on.
_MOST_SENTENCES = 100
_LOG_SENTENCES = tuple(math.log1p(n) for n in range(_MOST_SENTENCES + 1))  # the log_sentences feature, by count


class Evidence:
    """What the judge found for a claim: the sentences, the coverage and the calibrated features."""

    __slots__ = ("window", "covered", "total", "coverage", "weighted", "uncovered_weight", "clause", "passages",
                 "synonyms", "failure", "boilerplate", "missing", "names_missing",
                 "clause_failure", "cue_conflict", "rarest_missing", "dated", "passage_weighted", "sentences",
                 "single", "linked")

    def __init__(self) -> None:
        self.window: tuple[Sentence, ...] = ()
        self.covered = 0
        self.total = 0
        self.coverage = 0.0
        self.weighted = 0.0
        self.uncovered_weight = 0.0
        self.rarest_missing = 0.0  # the weight of the rarest claim word the evidence lacks: one specific fact
        self.clause = 0.0  # 1.0 when a whole clause of two or more words is uncovered
        self.passages = 0
        self.dated = False  # the claim has a date, matched by day, month and year
        # The IDF-weighted share of the claim's words that the cited passages hold anywhere, in or
        # out of the evidence: facts spread over a passage beyond the best few sentences.
        self.passage_weighted = 0.0
        self.sentences = 0  # how many sentences the cited passages have: the text the words could come from
        # The share of the claim's words that the one cited sentence holding most of them holds: the
        # same coverage is stronger in one sentence than stitched from several.
        self.single = 0.0
        # Of the pairs of neighbouring claim words that the evidence holds, the share one evidence
        # sentence holds together (``_linked_pairs``): evidence stitched from sentences about other
        # things holds the claim's words but splits its links. 1.0 for evidence of one sentence.
        self.linked = 0.0
        self.synonyms: list[tuple[str, str]] = []  # (claim word, evidence word) matched as synonyms or related forms
        self.failure: Failure | None = None
        self.boilerplate = ""
        self.missing: list[str] = []  # the claim's words that the evidence lacks, in order
        self.names_missing = 0  # names of the claim that no cited passage has
        self.clause_failure: Failure | None = None  # a clause of two or more words, none of them covered
        # Negation or quantifiers that disagree with evidence that does not hold the whole claim: a
        # sign weighed by the score, not a verdict (the evidence may be about something else).
        self.cue_conflict: Failure | None = None

    def features(self) -> tuple[float, ...]:
        """The inputs of the calibrated score, in the order of ``calibration.FEATURES``.

        The caps are written as conditional expressions, not ``min``/``max`` calls (the same values,
        computed once per claim), and log1p of the sentence count is read from a table.
        """
        uncovered, window = self.uncovered_weight, len(self.window)
        names, sentences = self.names_missing, self.sentences
        return (
            self.coverage, self.weighted, 3.0 if uncovered > 3.0 else uncovered, self.clause,
            window - 1 if window else 0, 1.0 if self.failure else 0.0, 2 if names > 2 else names,
            1.0 if self.passages > 1 else 0.0, self.rarest_missing, self.passage_weighted,
            _LOG_SENTENCES[sentences if sentences < _MOST_SENTENCES else _MOST_SENTENCES], self.single,
            self.linked,
        )


def _union(masks: list[list[int]]) -> list[int]:
    """Per claim key, the sentences of any cited passage that hold it (a passage's own list when
    there is one passage: a claim's masks are read, never written, once it is taken)."""
    return masks[0] if len(masks) == 1 else [reduce(or_, column) for column in zip(*masks)]


def _add_synonyms(ours: Sentence, keys: list[str], masks: list[list[int]], prepared: list[_Prepared],
                  held: list[int]) -> dict[int, str]:
    """For each claim key that no cited sentence holds (``held``: per key, the union of its
    ``masks``), the first of its synonyms or related forms (WordNet, read only here) that a cited
    passage holds: its sentences are added to the key's masks. Returns {key's position: the
    synonym's key}."""
    words = ours.first_words()
    synonym_of: dict[int, str] = {}
    holds = prepared[0].masks.__contains__ if len(prepared) == 1 else (
        lambda o: any(o in p.masks for p in prepared))  # one passage, the usual case: a lookup in C
    for j in [j for j, mask in enumerate(held) if not mask]:  # (a key's masks change only at its own turn)
        key = keys[j]
        other = next(filter(holds, related_keys(words[key])), None)
        if other is not None:
            for pm, p in zip(masks, prepared):
                pm[j] |= p.masks.get(other, 0)
            synonym_of[j] = other
    return synonym_of


def _uncovered_tail(seq: Sequence[str], uncovered: set[str]) -> int:
    """How many of the claim's last content words (in order) the evidence lacks, one after another."""
    tail = 0
    for key in reversed(seq):
        if key not in uncovered:
            break
        tail += 1
    return tail


def _added_clause(claim: Sentence, uncovered: set[str]) -> frozenset[str] | None:
    """The claim's last clause when it is all the evidence lacks and the evidence holds it only
    through the rest of the claim: every uncovered word of the claim is in it, at least two of them,
    and of its covered words at most one (fewer than it lacks) is not also a word of another clause
    ("..., but the new plants may take months to appear, because the roots store extra sugar at
    night": 'roots' is the earlier clause's 'rooted'). A clause added to a sentence of the evidence;
    its covered word may come from anywhere in the passage. Its uncovered keys; None otherwise."""
    clauses = claim.clauses()
    if len(clauses) < 2:
        return None
    last = clauses[-1]
    missing = last.keys & uncovered
    if len(missing) < 2 or len(missing) < len(uncovered):
        return None
    own = last.keys - uncovered - frozenset().union(*(c.keys for c in clauses[:-1]))
    return missing if len(own) <= 1 and len(own) < len(missing) else None


def _distance(where: int, chosen: list[int]) -> int:
    """How far a sentence is from the nearest one already chosen (in sentences; 1 << 20 from another
    passage's), for ties: the nearer is preferred. Sentences are given as positions ``passage << 32 |
    sentence`` (``LexicalJudge._choose``)."""
    passage = where >> 32
    return min((abs(where - c) if passage == c >> 32 else 1 << 20) for c in chosen)


def _best_single(window: tuple[Sentence, ...], keys: frozenset[str]) -> Sentence:
    return max(window, key=lambda s: len(keys & s.keys))


def _linked_pairs(ours: Sentence, keys: Sequence[str], masks: list[list[int]], chosen: list[tuple[int, int]]) -> float:
    """Of the pairs of neighbouring content words of the claim (in its order) whose two words the
    evidence holds, the share that one evidence sentence holds together; 1.0 when none.

    ``keys``: the claim's keys; ``masks``: per passage and key, the sentences that hold it (a key
    found by a synonym: the synonym's, ``_add_synonyms``); ``chosen``: the evidence sentences'
    (passage, sentence) positions. A claim stitched from sentences about different things
    ("Ramsey" from one, "scored in the 3-3 draw" from another) holds its words, not its links: the
    pairs at each seam are split between sentences. Evidence of one sentence holds every pair."""
    if len(chosen) == 1:
        return 1.0
    where: dict[str, int] = {}  # claim key -> the evidence sentences that hold it (bit w: chosen[w])
    columns = [(1 << w, masks[pi], i) for w, (pi, i) in enumerate(chosen)]
    for j, key in enumerate(keys):
        held = 0
        for bit, pm, i in columns:
            if pm[j] >> i & 1:
                held |= bit
        where[key] = held
    pairs = together = 0
    last, before = "", 0
    for key in ours.seq:
        mask = where.get(key, 0)
        if key != last and mask and before:
            pairs += 1
            if mask & before:
                together += 1
        last, before = key, mask
    return together / pairs if pairs else 1.0


def _next_best(candidates: dict[int, int], covered: int, chosen: list[int], near: set[int]) -> int | None:
    """The sentence of ``candidates`` (sentence -> the claim keys it holds, as bits) that adds the
    most keys not yet ``covered``, the nearer to one ``chosen`` on a tie, then the first; a sentence
    not ``near`` one chosen that holds a single claim key is passed over (a far sentence must share
    a second word with the claim, to be about it). None when none adds a key.

    The gains are counted in C; only the sentences of the highest gain are looked at one by one (a
    sentence passed over holds one key, so it matters only when the highest gain is one)."""
    where = list(candidates)
    held = list(candidates.values())
    gains = list(map(int.bit_count, map((~covered).__and__, held)))
    top = max(gains, default=0)
    if not top:
        return None
    best, away = None, -1  # away: the distance of best to the sentences chosen, once computed
    for k in compress(range(len(gains)), map(top.__eq__, gains)):
        bits = held[k]
        if not bits & (bits - 1) and where[k] not in near:
            continue
        if best is None:
            best = where[k]
            continue
        if away < 0:
            away = _distance(best, chosen)
        d = _distance(where[k], chosen)
        if d < away:
            best, away = where[k], d
    return best


def _pair_key(claim: str, sources: Sequence[Passage | str]) -> tuple[str, ...] | None:
    """(claim, the passages' texts): what a verdict depends on; None for input ``assess`` refuses."""
    if not isinstance(claim, str) or isinstance(sources, (str, bytes)):
        return None
    texts: list[str] = []
    for s in sources:
        text = s if s.__class__ is str else getattr(s, "text", None)
        if text.__class__ is not str:
            return None
        texts.append(text)
    return (claim, *texts)
