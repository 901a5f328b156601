"""What the lexical judge found for a claim (``Evidence``), and the steps of the search that gathers
it: the claim words' synonyms, the greedy choice of sentences, the links the evidence keeps."""

from __future__ import annotations

import math
from functools import reduce
from itertools import compress
from operator import or_
from typing import Sequence

from pytest_sprout.core.model import Passage

from .index import Sentence, positions
from .passage import _Prepared
from .rules import Failure
from .text import related_keys, stem

# Cited passages of more sentences than the fitting data had (78 at most) count as this many: the
# score is not extrapolated far beyond what it was fitted on.
_MOST_SENTENCES = 100
_LOG_SENTENCES = tuple(math.log1p(n) for n in range(_MOST_SENTENCES + 1))  # the log_sentences feature, by count


class Evidence:
    """What the judge found for a claim (the class attributes are the defaults): the ``window`` of
    evidence sentences, which holds ``covered`` of the claim's ``total`` keys, and the features of
    the calibrated score (``features``): the ``coverage``, ``weighted`` by rarity (``text.weight``),
    the ``uncovered_weight`` and the weight of the ``rarest_missing`` word, ``clause`` (1.0: a
    clause of the claim uncovered), how many cited ``passages`` the window comes from, how many
    ``sentences`` the cited passages have and the weighted share of the claim they hold anywhere
    (``passage_weighted``), the share the best ``single`` sentence holds, the share of the claim's
    neighbouring words one sentence holds together (``linked``, ``_linked_pairs``) and how many
    names of the claim no cited passage has. ``cue_conflict``: negation or quantifiers at odds with
    evidence that lacks some of the claim, weighed by the score, not decisive."""

    window: tuple[Sentence, ...] = ()
    covered = total = passages = sentences = names_missing = 0
    coverage = weighted = uncovered_weight = rarest_missing = clause = passage_weighted = single = linked = 0.0
    dated = False  # the claim has a date, matched by day, month and year
    boilerplate = ""
    synonyms: Sequence[tuple[str, str]] = ()  # (claim word, evidence word) matched as synonyms or related forms
    failure: Failure | None = None
    clause_failure: Failure | None = None  # a clause of the claim the evidence lacks
    cue_conflict: Failure | None = None
    claim: Sentence | None = None
    lacking: frozenset[str] | set[str] = frozenset()  # the claim's keys the window lacks

    @property
    def missing(self) -> list[str]:
        """The claim's words that the evidence lacks, in order."""
        claim, lacking = self.claim, self.lacking
        if claim is None or not lacking:
            return []
        return list(dict.fromkeys([claim.words[i] for k, i in claim.content if k in lacking]))

    def features(self) -> tuple[float, ...]:
        """The inputs of the calibrated score, in the order of ``calibration.FEATURES``."""
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
    """Per claim key, the sentences of any cited passage that hold it."""
    return masks[0] if len(masks) == 1 else [reduce(or_, column) for column in zip(*masks)]


def _add_synonyms(words: dict[str, str], keys: list[str], masks: list[list[int]], prepared: list[_Prepared],
                  held: list[int]) -> dict[int, str]:
    """For each claim key no cited sentence holds (``held[j]`` is 0), the first of its synonyms or
    related forms (WordNet, read only here) a cited passage holds: its sentences join the key's
    ``masks``. Returns {key's position: the synonym's key}."""
    synonym_of: dict[int, str] = {}
    holds = prepared[0].masks.__contains__ if len(prepared) == 1 else (
        lambda o: any(o in p.masks for p in prepared))
    for j in [j for j, mask in enumerate(held) if not mask]:
        other = next(filter(holds, related_keys(words[keys[j]])), None)
        if other is not None:
            for pm, p in zip(masks, prepared):
                pm[j] |= p.masks.get(other, 0)
            synonym_of[j] = other
    return synonym_of


def _lacked_clause(claim: Sentence, found: Evidence) -> tuple[str, Failure] | None:
    """The rule and failure of a clause of the claim that the evidence lacks (``found.lacking``): a
    clause of two or more words, none covered; the second half of the claim, only its opening
    covered ("Peace lilies | are toxic to cats"); or a last clause added to a sentence of the
    evidence (``_added_clause``)."""
    uncovered = found.lacking
    for clause in claim.clauses():
        if len(clause.keys) >= 2 and clause.keys <= uncovered:
            shown = " ".join(w for w in found.missing if stem(w) in clause.keys)
            return "clause", ("clause", f"no word of the clause '{shown}' is in the evidence")
    seq = claim.seq
    tail = next((n for n, key in enumerate(reversed(seq)) if key not in uncovered), len(seq))  # uncovered at the end
    if tail >= 2 and 2 * tail >= len(seq):
        shown = " ".join(claim.words[idx] for _, idx in claim.content[-tail:])
        return "clause", ("clause", f"no word of the second half of the claim '{shown}' is in the evidence, only "
                                    "its opening")
    added = _added_clause(claim, uncovered)
    if added is None:
        return None
    shown = " ".join(w for w in found.missing if stem(w) in added)
    return "clause_added", (
        "clause", f"the clause '{shown}' is not in the evidence: its other words are the rest of the claim's")


def _added_clause(claim: Sentence, uncovered: frozenset[str] | set[str]) -> frozenset[str] | None:
    """The claim's last clause when it is all the evidence lacks and the evidence holds it only
    through the rest of the claim: every uncovered word of the claim is in it, at least two of them,
    and of its covered words at most one (fewer than it lacks) is not also a word of another clause
    ("..., but the new plants may take months to appear, because the roots store extra sugar at
    night": 'roots' is the earlier clause's 'rooted'). Its uncovered keys; None otherwise."""
    clauses = claim.clauses()
    if len(clauses) < 2:
        return None
    last = clauses[-1]
    missing = last.keys & uncovered
    if len(missing) < 2 or len(missing) < len(uncovered):
        return None
    own = last.keys - uncovered - frozenset().union(*(c.keys for c in clauses[:-1]))
    return missing if len(own) <= 1 and len(own) < len(missing) else None


def _choose(masks: list[list[int]], full: int, window: int) -> tuple[list[tuple[int, int]], list[int], int]:
    """Up to ``window`` sentences for the claim's ``full`` keys (``masks``: per passage and key, the
    sentences holding it), chosen one by one (``_next_best``), the first holding the most keys: their
    (passage, sentence) positions in order, the keys each holds (bit j: key j) and those they cover.
    A sentence is the int ``passage << 32 | sentence``, its neighbours one less and one more."""
    candidates: dict[int, int] = {}
    get = candidates.get
    for pi, pm in enumerate(masks):
        bit = 1
        for mask in pm:
            if mask:
                for where in positions(mask) if not pi else map((pi << 32).__or__, positions(mask)):
                    candidates[where] = get(where, 0) | bit
            bit <<= 1
    if not candidates:
        return [], [], 0
    where, held = list(candidates), list(candidates.values())
    counts = list(map(int.bit_count, held))
    k: int | None = counts.index(max(counts))
    chosen: list[int] = []
    picked: list[int] = []
    covered = 0
    near: set[int] = set()  # the neighbours of the sentences chosen so far
    while k is not None:
        chosen.append(where[k])
        near.update((where[k] - 1, where[k] + 1))
        picked.append(held[k])
        covered |= held[k]
        held[k] = 0
        if covered.bit_count() == full or len(chosen) == window:
            break
        k = _next_best(where, held, covered, chosen, near, len(masks) == 1)
    return sorted((c >> 32, c & 0xFFFFFFFF) for c in chosen), picked, covered


def _next_best(where: list[int], held: list[int], covered: int, chosen: list[int], near: set[int],
               one: bool) -> int | None:
    """The index of the sentence (``where[k]``, holding the claim keys ``held[k]``) that adds the
    most keys not yet ``covered``, the nearer to one ``chosen`` on a tie (``one``: all of one
    passage), then the first; None when none adds a key. A sentence not ``near`` one chosen that
    holds a single claim key is passed over: a far sentence must share a second word with the claim."""
    gains = list(map(int.bit_count, map((~covered).__and__, held)))
    top = max(gains)
    if not top:
        return None
    best, away = None, -1  # away: the distance of best to the sentences chosen, once computed
    for k in compress(range(len(gains)), map(top.__eq__, gains)):
        bits = held[k]
        if not bits & (bits - 1) and where[k] not in near:
            continue
        if best is None:
            best = k
            continue
        if away < 0:
            away = _distance(where[best], chosen, one)
        d = _distance(where[k], chosen, one)
        if d < away:
            best, away = k, d
    return best


def _distance(where: int, chosen: list[int], one: bool) -> int:
    """How far a sentence is from the nearest one chosen, in sentences (1 << 20 from another passage's)."""
    if one:
        return min(map(abs, map(where.__sub__, chosen)))
    passage = where >> 32
    return min((abs(where - c) if passage == c >> 32 else 1 << 20) for c in chosen)


def _linked_pairs(seq: Sequence[str], keys: list[str], picked: list[int], covered: int) -> float:
    """Of the pairs of neighbouring content words of the claim (its keys in order, ``seq``) whose
    two words the evidence holds (``covered``, bit j: ``keys[j]``), the share one evidence sentence
    holds together (``picked``: the keys each holds); 1.0 when none. A claim stitched from sentences
    about different things holds its words, not its links: the pairs at each seam are split."""
    if len(picked) == 1:
        return 1.0
    if len(seq) != len(keys):  # a key repeats: bit p for the p-th key of the claim (a key next to itself once)
        at = dict(zip(keys, range(len(keys))))
        order = [j for j, last in zip(map(at.__getitem__, seq), (-1, *map(at.__getitem__, seq))) if j != last]
        picked = [_spread(bits, order, len(keys)) for bits in picked]
        covered = _spread(covered, order, len(keys))
    pairs = (covered & covered >> 1).bit_count()
    together = reduce(or_, [bits & bits >> 1 for bits in picked]).bit_count()
    return together / pairs if pairs else 1.0


def _spread(bits: int, order: list[int], full: int) -> int:
    """The int whose bit p is bit ``order[p]`` of ``bits`` (of ``full`` bits)."""
    text = bin(bits | 1 << full)[:2:-1]  # bit j is text[j]
    return int("".join(map(text.__getitem__, order))[::-1], 2)


def _pair_key(claim: str, sources: Sequence[Passage | str]) -> tuple | None:
    """(claim, the passages' texts): what a verdict depends on; None for input ``assess`` refuses."""
    if not isinstance(claim, str) or isinstance(sources, (str, bytes)):
        return None
    texts = []
    for s in sources:  # (a loop: the cheapest way for the one or two sources a claim cites)
        text = s if s.__class__ is str else getattr(s, "text", None)
        if text.__class__ is not str:
            return None
        texts.append(text)
    return (claim, *texts)
