"""The lexical judge: finds the evidence for a claim and applies the rules."""

from __future__ import annotations

from typing import Iterable, Sequence

from pytest_sprout.model import Passage, Verdict

from .index import _INDEX_FROM, Sentence, _bits, _Prepared, _prepare_passage, _text
from .rules import (
    _RULE_RANK, Failure, align, check_names, check_negation, check_numbers, check_quantifiers, check_swap,
)

RULES_VERSION = 1  # bump when a rule changes what it decides: it is part of settings()

class LexicalJudge:
    """Offline groundedness judge: coverage of the claim by its cited passages, plus rules."""

    name = "lexical"

    def __init__(self, coverage: float = 0.6, window: int = 2) -> None:
        if isinstance(coverage, bool) or not isinstance(coverage, (int, float)) or not 0.0 < coverage <= 1.0:
            raise ValueError(f"coverage must be a number in (0, 1], got {coverage!r}")
        if isinstance(window, bool) or not isinstance(window, int) or window < 1:
            raise ValueError(f"window must be a whole number of sentences >= 1, got {window!r}")
        self.coverage = float(coverage)
        self.window = window
        self._prepare = _prepare_passage  # claims are analysed afresh: they rarely repeat

    def settings(self) -> dict:
        """What decides the verdicts, as JSON-able values (part of every cache key)."""
        return {"coverage": self.coverage, "window": self.window, "rules_version": RULES_VERSION}

    def judge_many(self, pairs: Iterable[tuple[str, Sequence[Passage | str]]]) -> list[Verdict]:
        """``judge`` on each (claim, sources) pair; a passage cited by several is analysed once."""
        return [self.judge(claim, sources) for claim, sources in pairs]

    def judge(self, claim: str, sources: Sequence[Passage | str]) -> Verdict:
        """Whether the passages a claim cites support it; ``score`` is the coverage."""
        if not isinstance(claim, str):
            raise TypeError(f"claim must be a str, got {type(claim).__name__}")
        if isinstance(sources, (str, bytes)):
            raise TypeError("sources must be a sequence of passages (Passage or str), not a single str")
        texts = [s if isinstance(s, str) else Passage.coerce(s, i).text for i, s in enumerate(sources)]
        if not texts:
            return Verdict(False, 0.0, None, "the sentence cites no passage", "uncited")
        prepared = [self._prepare(text) for text in texts]
        for p in prepared:  # a sentence copied from a cited passage: analysed already (analysis is pure)
            ours = p.by_text.get(claim)
            if ours is not None:
                break
        else:
            ours = Sentence(claim)
        keys = ours.keys or ours.allkeys()
        if not keys:  # only symbols ("* * *"): supported where they are written in a cited passage
            for p in prepared:
                found = next((s.text for s in p.sentences if claim.strip() in s.text), None)
                if found is not None and claim.strip():
                    return Verdict(True, 1.0, found, "the claim has no words; its text is in the evidence")
            return Verdict(False, 0.0, None, "the claim has no words to check", "coverage")
        total = len(keys)
        need = self.coverage * total - 1e-9
        content = bool(ours.keys)
        covers: list[int] = []  # per passage, the sentences that cover the whole claim (bit mask)
        failures: list[tuple[tuple[Sentence, ...], Failure]] = []  # windows judged so far, with the rule each fails
        if self.window >= 2:  # first pass: a single sentence that covers the whole claim and passes
            for p in prepared:
                if content:
                    covers.append(p.cover(keys))
                else:
                    covers.append(sum(1 << i for i, h in enumerate(self._hits(keys, content, p)) if h == total))
                for i in _bits(covers[-1]):
                    window = p.sentences[i : i + 1]
                    if window[0] is ours:  # the claim is this sentence: every rule holds
                        return self._supported(1.0, window)
                    failure = self._rules(ours, window)
                    if failure is None:
                        return self._supported(1.0, window)
                    failures.append((window, failure))
        if failures and self.window == 2 and content:
            # The best windows cover the whole claim: the sentences above, which all failed, then the
            # pairs of neighbours that cover it together where neither does alone.
            for p, cover in zip(prepared, covers):
                for i in _bits(p.pair_cover(keys, cover)):
                    window = p.sentences[i : i + 2]
                    failure = self._rules(ours, window)
                    if failure is None:
                        return self._supported(1.0, window)
                    failures.append((window, failure))
            return self._furthest(1.0, failures)
        found = [(p, self._hits(keys, content, p)) for p in prepared]
        hits, windows = self._best_windows(keys, content, found)
        if not windows:
            return Verdict(False, 0.0, None, f"coverage 0.00 < {self.coverage:.2f}; the cited passages are empty", "coverage")
        score = hits / total
        if hits >= need:
            # The windows of best coverage, single sentences first (those of the first pass again,
            # when a wider window than two is allowed).
            judged = {id(window[0]): failure for window, failure in failures}
            failures = []
            for window in windows:
                known = len(window) == 1 and id(window[0]) in judged
                failure = judged[id(window[0])] if known else self._rules(ours, window)
                if failure is None:
                    return self._supported(score, window)
                failures.append((window, failure))
            return self._furthest(score, failures)
        window = windows[0]
        if ours.keys:
            seen = frozenset().union(*(s.keys for s in window))
            missing = [ours.words[idx] for k, idx in ours.content if k not in seen]
        else:
            seen = frozenset().union(*(s.allkeys() for s in window))
            missing = [k.lstrip("#") for k in sorted(keys) if k not in seen]
        missing = list(dict.fromkeys(missing))
        shown = ", ".join(missing[:6]) + (f" (+{len(missing) - 6} more)" if len(missing) > 6 else "")
        return Verdict(
            False, score, " ".join(s.text for s in window),
            f"coverage {score:.2f} < {self.coverage:.2f}; missing: {shown}", "coverage",
        )

    @staticmethod
    def _furthest(score: float, failures: list[tuple[tuple[Sentence, ...], Failure]]) -> Verdict:
        """The verdict for windows that all failed: the one that got furthest through the rules (the
        first such), as it is the closest to supporting the claim."""
        window, (rule, reason) = max(failures, key=lambda f: _RULE_RANK[f[1][0]])
        return Verdict(False, score, _text(window), reason, rule)

    def _supported(self, score: float, window: tuple[Sentence, ...]) -> Verdict:
        return Verdict(
            True, score, _text(window),
            f"coverage {score:.2f} >= {self.coverage:.2f}; numbers, quantifiers, negation agree",
        )

    @staticmethod
    def _rules(ours: Sentence, window: tuple[Sentence, ...]) -> Failure | None:
        failure = check_names(ours, window) or check_numbers(ours, window)
        if failure is None and (ours.has_cue or any(s.has_cue for s in window)):
            pairs = align(ours, window)  # shared by the two clause-level rules
            failure = check_quantifiers(ours, window, pairs) or check_negation(ours, window, pairs)
        return failure or check_swap(ours, window)

    @staticmethod
    def _hits(keys: frozenset[str], content: bool, prepared: "_Prepared") -> list[int]:
        """How many of the claim's keys each sentence of the passage holds."""
        if not content:  # a claim without content words: match on every word and number
            return [len(keys & s.allkeys()) for s in prepared.sentences]
        keysets = prepared.keysets
        if len(keysets) <= _INDEX_FROM:  # a short passage: one set intersection per sentence
            return [len(keys & other) for other in keysets]
        counts = [0] * len(keysets)  # a long one: only the sentences that hold a key are visited
        index = prepared.index
        for key in keys:
            for i in index.get(key, ()):
                counts[i] += 1
        return counts

    def _best_windows(
        self, keys: frozenset[str], content: bool, found: list[tuple["_Prepared", list[int]]]
    ) -> tuple[int, list[tuple[Sentence, ...]]]:
        """The best coverage (claim keys found) and the windows that reach it, in passage order,
        single sentences first. A larger window counts only when it covers more than each of its
        sentences does. Only the best windows are judged: a window that covers less of the claim
        cannot rescue a claim the best one contradicts.
        """
        best = 0
        tier: list[tuple[int, int, tuple[Sentence, ...]]] = []  # (size, order, window)
        order = 0
        for prepared, counts in found:
            sentences = prepared.sentences
            n = len(sentences)
            if not n:
                continue
            top = max(counts)
            if not top:
                if not tier and best == 0:
                    tier.append((1, order, sentences[:1]))  # nothing matches: the first sentence, for the report
                order += n
                continue
            if top > best:
                best, tier = top, []
            if top == best:
                tier.extend((1, order + i, sentences[i : i + 1]) for i, h in enumerate(counts) if h == top)
            # A larger window can only join the tier if its sentences' counts add up to the best.
            if self.window >= 2 and n > 1:
                for i in [i for i, (a, b) in enumerate(zip(counts, counts[1:])) if a and b and a + b >= best]:
                    a, b = counts[i], counts[i + 1]
                    shared = prepared.shared[i] if content else sentences[i].allkeys() & sentences[i + 1].allkeys()
                    both = a + b - (len(keys & shared) if shared else 0)
                    if both > a and both > b and both >= best:
                        if both > best:
                            best, tier = both, []
                        tier.append((2, order + i, sentences[i : i + 2]))
                for size in range(3, min(self.window, n) + 1):
                    for i in range(n - size + 1):
                        inner = counts[i : i + size]
                        if max(inner) and sum(inner) > max(inner) and sum(inner) >= best:
                            sets = prepared.keysets if content else [s.allkeys() for s in sentences]
                            union = len(keys & frozenset().union(*sets[i : i + size]))
                            if union > max(inner) and union >= best:
                                if union > best:
                                    best, tier = union, []
                                tier.append((size, order + i, sentences[i : i + size]))
            order += n
        tier.sort(key=lambda w: (w[0], w[1]))
        return best, [w for _, _, w in tier]
