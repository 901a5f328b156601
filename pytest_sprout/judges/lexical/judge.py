"""The lexical judge (``LexicalJudge``): finds the evidence for a claim in the passages it cites,
applies the rules of ``registry.RULES`` and gives a calibrated score. A claim is judged so:

1. A sentence with no claim of its own ("Based on the given context [1],", "[1][2]", "It is not
   mentioned whether ...") is unscored, rule ``no-claim`` (``claims``); an opening that frames the
   claim ("According to the passage, ...") is set aside (``framing``); a claim that cites nothing
   is unsupported, rule ``uncited``.
2. Each content word of the claim is found in the cited sentences by its key (its lemma, then a
   light stem), else by the key of a WordNet synonym or related form (read only for a word no
   cited sentence holds).
3. A cited sentence that holds the whole claim and passes the rules settles it. Else the evidence
   is up to ``window`` sentences chosen one by one for the most words not yet covered; one not
   next to a sentence chosen joins only with two of the claim's words (``evidence._choose``).
4. The first rule the claim fails against the evidence decides; on evidence that lacks some of
   the claim's words a "soft" failure is only weighed by the score, and a clause of the claim the
   evidence lacks fails as ``clause``.
5. ``score`` is a logistic model of the features of ``Evidence`` (``calibration``). A claim is
   supported when no rule fails, at least ``coverage`` of its words are covered and the score is
   at least ``threshold`` (else rule ``coverage`` or ``calibrated``).

Passages are analysed once and cached by text (the 4,096 most recent).
"""

from __future__ import annotations

import os
from dataclasses import replace
from functools import reduce
from itertools import compress, repeat
from operator import add, and_, mul
from typing import Iterable, Sequence

from pytest_sprout.core.calibration import Calibration, user_calibration
from pytest_sprout.core.model import Passage, Verdict

from . import calibration as shipped  # (``calibration`` is also LexicalJudge's argument)
from .claims import join_fragments, no_claim
from .evidence import Evidence, _add_synonyms, _choose, _lacked_clause, _linked_pairs, _pair_key, _union
from .framing import strip_boilerplate, strip_list_marker
from .index import Sentence, _bits, analyse
from .names import absent_names
from .passage import _Prepared, _prepare_passage
from .registry import NAMES, RULE_RANK, RULES, Context, Rule
from .rules import Failure
from .text import rejoin_numbers, weight
from .verdicts import sigmoid, verdict, wordless

RULES_VERSION = 19  # bump when a rule changes what it decides: it is part of settings()

# Format characters an answer may carry that no reader sees: zero-width spaces and joiners, soft
# hyphens, bidi marks, embeddings and isolates, word joiners, the byte-order mark.
_INVISIBLE = dict.fromkeys(map(ord, "\u00ad\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
                                    "\u2060\u2061\u2062\u2063\u2064\u2066\u2067\u2068\u2069\ufeff"))

_ZEROS = repeat(0)  # the default of each dict.get mapped over a claim's keys

# The rules a soft failure is read again with, on evidence that lacks some of the claim's words.
_SECOND_READING = ("negation_unsaid", "negated_clause_stated")
_FRAGMENT = "; a fragment, judged with the sentence before it"


class LexicalJudge:
    """Offline groundedness judge: coverage of the claim by its cited passages, plus rules."""

    name = "lexical"

    DEFAULT_COVERAGE = 0.5
    DEFAULT_WINDOW = 3

    def __init__(
        self, coverage: float = DEFAULT_COVERAGE, window: int = DEFAULT_WINDOW, threshold: float | None = None,
        disabled: Iterable[str] = (), calibration: str | os.PathLike[str] | Calibration | None = None,
    ) -> None:
        if isinstance(coverage, bool) or not isinstance(coverage, (int, float)) or not 0.0 < coverage <= 1.0:
            raise ValueError(f"coverage must be a number in (0, 1], got {coverage!r}")
        if isinstance(window, bool) or not isinstance(window, int) or window < 1:
            raise ValueError(f"window must be a whole number of sentences >= 1, got {window!r}")
        # A calibration fitted on the user's labels (python -m pytest_sprout.calibrate): its threshold
        # (an explicit ``threshold`` wins) and, when refitted, its coefficients.
        fitted = user_calibration(calibration)
        self.calibration = fitted
        self._calibration = shipped.shipped()
        if fitted is not None and fitted.coefficients is not None and fitted.intercept is not None:
            if fitted.features != self._calibration.features:
                raise ValueError(f"{fitted.path}: its coefficients are of the features {fitted.features}, this judge's "
                                 f"are {self._calibration.features}: fit it again with python -m pytest_sprout.calibrate")
            self._calibration = self._calibration._replace(intercept=fitted.intercept, coefficients=fitted.coefficients)
        if threshold is None:
            threshold = self._calibration.threshold if fitted is None else fitted.threshold
        if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not 0.0 <= threshold <= 1.0:
            raise ValueError(f"threshold must be a probability in [0, 1], got {threshold!r}")
        self.coverage = float(coverage)
        self.window = window
        self.threshold = float(threshold)
        if isinstance(disabled, str):
            raise ValueError(f"disabled must be a collection of rule names, not the single string {disabled!r}")
        self.disabled = frozenset(disabled)
        unknown = sorted(self.disabled - NAMES)
        if unknown:
            raise ValueError(f"disabled: no rule named {', '.join(map(repr, unknown))} "
                             f"(rules: {', '.join(r.name for r in RULES)})")
        self._prepare = _prepare_passage  # claims are analysed afresh: they rarely repeat
        self._arrange(tuple(r for r in RULES if r.name not in self.disabled))

    def _arrange(self, rules: tuple[Rule, ...]) -> None:
        """Apply ``rules`` (in their order): those of stage "evidence" in ``_rules``, the others by name."""
        self.rules = rules
        self._on = {r.name: r for r in rules}
        self._loop = tuple(r for r in rules if r.stage == "evidence")
        self._second = tuple(self._on[name] for name in _SECOND_READING if name in self._on)

    def settings(self) -> dict:
        """What decides the verdicts, as JSON-able values (part of every cache key)."""
        out = {"coverage": self.coverage, "window": self.window, "threshold": self.threshold,
               "rules_version": RULES_VERSION, "calibration": self._calibration.version, "disabled": sorted(self.disabled)}
        if self.calibration is not None:
            out["user_calibration"] = self.calibration.id
        return out

    def judge_many(self, pairs: Iterable[tuple[str, Sequence[Passage | str]]]) -> list[Verdict]:
        """``judge`` on each (claim, sources) pair; a pair that repeats in the call is judged once (a
        verdict is a pure function of the claim, the passages' texts and the settings)."""
        seen: dict[tuple | None, Verdict] = {}
        out = []
        for claim, sources in pairs:
            key = _pair_key(claim, sources)
            verdict = seen.get(key) if key is not None else None
            if verdict is None:
                verdict = seen[key] = self.assess(claim, sources)[0]
            out.append(verdict)
        return out

    def judge_answer(self, pairs: Sequence[tuple[str, Sequence[Passage | str]]]) -> list[Verdict]:
        """``judge_many`` on the sentences of one answer, in order, except that a fragment (no verb:
        "In 2011.", "222 - 0.") is judged together with the sentence before it (``claims``)."""
        judged, joined = join_fragments(pairs)
        return [replace(v, reason=v.reason + _FRAGMENT) if j else v
                for v, j in zip(self.judge_many(judged), joined)]

    def judge_answer_sourced(self, pairs: Sequence[tuple[str, Sequence[Passage | str]]]
                             ) -> list[tuple[Verdict, list[Passage | str]]]:
        """``judge_answer``, with the sources each verdict's evidence came from (of those the pair was
        judged against: a fragment's include the sentence's before it)."""
        judged, joined = join_fragments(pairs)
        out = []
        for (claim, sources), j in zip(judged, joined):
            verdict, found = self.assess(claim, sources)
            if j:
                verdict = replace(verdict, reason=verdict.reason + _FRAGMENT)
            out.append((verdict, [sources[i] for i in self._holding(found, verdict.evidence, sources)]))
        return out

    def _holding(self, found: Evidence | None, evidence: str | None, sources: Sequence[Passage | str]) -> list[int]:
        """The positions of the sources whose sentences make up the evidence (judge_answer_sourced)."""
        prepared = [self._prepare(s if isinstance(s, str) else Passage.coerce(s, i).text) for i, s in enumerate(sources)]
        if found is not None and found.window:
            window = {id(w) for w in found.window}
            hits = [i for i, p in enumerate(prepared) if any(id(s) in window for s in p.sentences.analysed())]
            if not hits:  # the passage analysis was evicted from the cache since: match by text
                hits = [i for i, p in enumerate(prepared) if any(w.text in p.by_text for w in found.window)]
            if hits:
                return hits
        if evidence:  # a claim without content words: its evidence is one sentence's text
            return [i for i, p in enumerate(prepared) if evidence in p.by_text][:1]
        return []

    def judge(self, claim: str, sources: Sequence[Passage | str]) -> Verdict:
        """Whether the passages a claim cites support it; ``score`` is the calibrated probability."""
        return self.assess(claim, sources)[0]

    def probability(self, features: Sequence[float]) -> float:
        """The calibrated score of ``Evidence.features``."""
        c = self._calibration
        return sigmoid(c.intercept + sum(map(mul, c.coefficients, features)))

    def assess(self, claim: str, sources: Sequence[Passage | str]) -> tuple[Verdict, Evidence | None]:
        """The verdict and what it was based on (None for a claim that cites nothing or has no words)."""
        if not isinstance(claim, str):
            raise TypeError(f"claim must be a str, got {type(claim).__name__}")
        if isinstance(sources, (str, bytes)):
            raise TypeError("sources must be a sequence of passages (Passage or str), not a single str")
        if not claim.isascii():  # the answer's own format characters (zero-width, bidi) change nothing
            claim = claim.translate(_INVISIBLE)
        why = no_claim(claim)
        if why is not None:
            return Verdict(None, 0.0, None, f"no claim: {why}", "no-claim"), None
        claim = rejoin_numbers(strip_list_marker(claim))  # as the passages are read
        prepare = self._prepare
        if sources.__class__ is list and len(sources) == 1 and sources[0].__class__ is str:  # the common case
            prepared = [prepare(sources[0])]
        else:
            prepared = [prepare(s if s.__class__ is str or isinstance(s, str) else Passage.coerce(s, i).text)
                        for i, s in enumerate(sources)]
        if not prepared:
            return Verdict(False, 0.0, None, "the sentence cites no passage", "uncited"), None
        for p in prepared:  # a sentence copied from a cited passage: analysed already (analysis is pure)
            ours = p.by_text.get(claim)
            if ours is not None:
                found = Evidence()
                found.total = len(ours.keys)
                found.sentences = len(p.sentences)
                _whole(found, (ours,))
                return self._verdict(found), found
        text, boilerplate = strip_boilerplate(claim)
        ours = analyse(text)
        if not ours.keys:
            return wordless(claim, ours, prepared, self.coverage), None
        found = self._search(ours, prepared)
        found.boilerplate = boilerplate
        found.dated = ours.has_date
        return self._verdict(found), found

    def _search(self, ours: Sentence, prepared: list[_Prepared]) -> Evidence:
        """The evidence for a claim and the first rule it fails: a sentence that holds the whole claim
        and passes the rules, else the best set of up to ``window`` sentences (``_choose``)."""
        seq = ours.seq  # claim order, each key once: every choice below is deterministic
        keys = list(seq) if len(seq) == len(ours.keys) else list(dict.fromkeys(seq))
        found = Evidence()
        found.total = full = len(keys)
        found.sentences = sum([len(p.sentences.texts) for p in prepared])
        # Per passage and claim key, the sentences that hold the key (bit i: sentence i).
        masks = [list(map(p.masks.get, keys, _ZEROS)) for p in prepared]
        held = _union(masks)
        synonym_of = {}
        if 0 in held:  # keys no cited sentence holds: names perhaps, or words a synonym stands for
            found.names_missing = len(absent_names(ours, [k for k, m in zip(keys, held) if not m], prepared))
            synonym_of = _add_synonyms(ours.first_words(), keys, masks, prepared, held)
            if synonym_of:
                held = _union(masks)
        # A sentence that covers the whole claim and passes the rules settles it; one repeated word
        # for word fails as its first copy did (with its neighbours, which hold the numbers it may take).
        failures: list[tuple[tuple[Sentence, ...], Failure]] = []
        tried: set[tuple[str | None, ...]] = set()
        for pi, (pm, p) in enumerate(zip(masks, prepared)):
            common = reduce(and_, pm, -1)
            for i in _bits(common) if common else ():
                window: tuple[Sentence, ...] = (p.sentences[i],)
                texts = p.sentences.texts
                seen = (window[0].text,) if not ours.numbers else (  # a number may come from a neighbour
                    texts[i - 1] if i else None, texts[i], texts[i + 1] if i + 1 < len(texts) else None)
                if seen in tried:
                    continue
                tried.add(seen)
                decided = self._rules(Context(ours, window, prepared, (), places=((pi, i),)))
                if decided is None:
                    return _whole(found, window, ours, keys, synonym_of)
                failures.append((window, decided[1]))
        if failures:  # sentences that cover the whole claim are the best evidence; the rules failed them all
            window, found.failure = max(failures, key=lambda f: RULE_RANK[f[1][0]])  # the first of the latest rule
            return _whole(found, window, ours, keys, synonym_of)
        chosen, picked, covered = _choose(masks, full, self.window)  # (the masks hold the synonyms' sentences)
        if not chosen:
            first = next((p.sentences[:1] for p in prepared if p.sentences), ())
            self._fill(found, ours, keys, first, 0, synonym_of, 1 if first else 0, held)
            return found
        window = tuple(prepared[pi].sentences[i] for pi, i in chosen)
        uncovered = self._fill(found, ours, keys, window, covered, synonym_of, len({pi for pi, _ in chosen}), held)
        found.single = picked[0].bit_count() / full
        found.linked = _linked_pairs(seq, keys, picked, covered)
        best = window[0] if len(window) == 1 else max(window, key=lambda s: len(ours.keys & s.keys))
        context = Context(ours, window, prepared, uncovered, best, chosen)
        decided = self._rules(context)
        failure: Failure | None = decided[1] if decided is not None else None
        decisive = self._on.get("quantifier_whole")  # makes a soft quantifier failure decisive
        if decided is not None and uncovered and decided[0].soft and not (
                decided[1][0] == "quantifier" and decisive is not None and decisive.check(context) is not None):
            found.cue_conflict = failure  # the evidence lacks some of the claim: read it again
            context.cues, context.fallback = False, True
            failure = next(filter(None, (rule.check(context) for rule in self._second)), None)
            context.fallback = False
            if failure is None:
                decided = self._rules(context)
                failure = decided[1] if decided is not None else None
        found.failure = failure if failure is not None else found.clause_failure
        return found

    def _fill(self, found: Evidence, ours: Sentence, keys: list[str], window: tuple[Sentence, ...], covered: int,
              synonym_of: dict[int, str], passages: int, held: list[int]) -> tuple[str, ...]:
        """Fill in ``found`` for the evidence ``window``, which holds the claim keys ``covered`` (bit j:
        ``keys[j]``; ``held``, per key, the cited sentences that hold it); returns the keys it lacks."""
        words = ours.first_words()
        weights = list(map(weight, map(words.__getitem__, keys)))
        total = reduce(add, weights, 0.0)  # (sums in the keys' order: the same floats every time)
        full = len(keys)
        bits = bin(covered | 1 << full)[:2:-1]  # bit j of covered is bits[j]
        lost = bits.count("0")
        uncovered = tuple(compress(keys, map("0".__eq__, bits))) if lost else ()
        got = reduce(add, compress(weights, map("1".__eq__, bits)), 0.0) if lost else total
        anywhere = reduce(add, compress(weights, held), 0.0) if 0 in held else total
        found.window = window
        found.passages = passages
        found.covered = full - lost
        found.coverage = found.covered / full
        found.weighted = got / total if total else 0.0
        found.passage_weighted = anywhere / total if total else 0.0
        found.uncovered_weight = total - got
        if lost:
            found.rarest_missing = max(compress(weights, map("0".__eq__, bits)))
            found.claim, found.lacking = ours, set(uncovered)
            lacked = _lacked_clause(ours, found)
            if lacked is not None:  # a failure of the clause rules, if on
                found.clause = 1.0
                rule = self._on.get(lacked[0])
                found.clause_failure = rule.check(lacked[1]) if rule is not None else None
        if synonym_of:  # else found.synonyms stays empty, and the evidence's keys are not gathered
            evidence = frozenset().union(*(s.keys for s in window)) if window else frozenset()
            found.synonyms = [(words[keys[j]], next((s.surface(k) for s in window if k in s.keys), k))
                              for j, k in synonym_of.items() if covered >> j & 1 and keys[j] not in evidence]
        return uncovered

    def _rules(self, context: Context) -> tuple[Rule, Failure] | None:
        """The first rule of stage "evidence" the claim fails against the context's window, in the
        order of ``RULES``, with its failure (None: it passes them all)."""
        for rule in self._loop:
            failure = rule.check(context)
            if failure is not None:
                return rule, failure
        return None

    def _verdict(self, found: Evidence) -> Verdict:
        return verdict(found, self.probability(found.features()), self.coverage, self.threshold)


def _whole(found: Evidence, window: tuple[Sentence, ...], ours: Sentence | None = None, keys: Sequence[str] = (),
           synonym_of: dict[int, str] | None = None) -> Evidence:
    """``found`` for one sentence that holds every word of the claim (some by ``synonym_of``)."""
    found.window = window
    found.passages = 1
    found.covered = found.total
    found.coverage = found.weighted = found.passage_weighted = found.single = found.linked = 1.0
    if synonym_of and ours is not None:
        words = ours.first_words()
        found.synonyms = [(words[keys[j]], window[0].surface(k)) for j, k in synonym_of.items()]
    return found
