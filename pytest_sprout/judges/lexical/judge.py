"""The lexical judge: finds the evidence for a claim, applies the rules, and gives a calibrated score.

A claim is judged against the sentences of the passages it cites:

1. A sentence with no claim of its own (it only announces its source, a bare citation, a list
   marker, "It is not mentioned whether ...") is unscored, rule ``no-claim``; in an answer
   (``judge_answer``) a fragment without a verb is judged with the sentence before it (``claims``).
   Boilerplate that frames an answer ("Based on the given context, ...") is set aside.
2. Each content word of the claim is found in a cited sentence by its key (its lemma, then a light
   stem), else by the key of one of its WordNet synonyms, else of one of its derivationally related
   forms ("explanation" found as "explain").
3. The evidence is the best set of up to ``window`` sentences (adjacent or not, from any of the
   cited passages) for the claim's words: a sentence that covers the whole claim when there is one,
   else the sentences chosen one by one for the most words not yet covered. A sentence that is not
   next to one already chosen joins only if it holds at least two of the claim's words: one word
   alone ("winter") is no sign that the sentence is about what the claim says.
4. Rules, in the order of ``registry.RULES``: a name of the claim (a people or a language counts
   as its place, "Libyan" as "Libya"; a name no cited passage has is weighed by the score) is not
   in place of another name of the sentence that states the rest (all but one in six of its
   words), nor taken from another evidence sentence into the place where that sentence has another
   name, nor a run of capitalised words in another run's slot ("entity"); every number, by value,
   range, unit and bound, is in the evidence sentences, or is a number that counts nothing ("in
   2015", "10 cm") in a sentence next to them ("number": a number the passage states about
   something else does not support it), and no unit of the claim stands where an evidence sentence
   has another unit of its dimension ("spend years" against "spend months"); quantifiers and modals
   agree with the evidence ("quantifier"; decisive against an evidence clause that holds the whole
   claim clause, though the evidence lacks words of the claim's other clauses); negation agrees ("negation": a negative verb, "failed to",
   "lacks", "refused to", "prevented ... from", negates its clause as a cue does; on evidence that
   lacks some of the claim's words a conflict is only weighed, unless no evidence clause about the
   claim's negated clause says "no", not even in other words: "unless", "lacks", "barely", or one
   evidence sentence says the whole negated clause, or one evidence clause the words around its
   negation, without negating them; evidence gathered from several sentences may not negate a
   clause the claim states); no word of the claim is an antonym of
   an evidence word in its place ("antonym"; a word the claim negates, "not strong" or "not square
   or round", says its antonym itself, as "not possible" says "impossible" and "is not safe"
   "unsafe"; the antonym may be a hedge, "likely", and between the same two words either
   word may be the other's antonym, "create cold that" against "create heat that"; a relation
   word, "before", where the evidence has its opposite, "after", between the same words); no two
   entities of the evidence trade places
   ("entity-swap"); no sentence of evidence gathered from several says the claim's predicate of a
   subject of its own while the claim's subject comes from another, and no name of the claim
   comes only from a sentence apart from the others that holds nothing else of the claim
   ("stitched"); no clause of two or more words, nor the second half of the claim, is
   wholly absent from the evidence ("clause": English puts what it says about its topic last, so a
   claim whose opening alone is in the evidence, "Peace lilies | are toxic to cats", is only on
   topic), nor is the claim's last clause, when it is all the evidence lacks and holds no more than
   one word of its own that is not a word of the rest of the claim (a clause added to a sentence
   of the evidence). A claim that cites nothing is unsupported ("uncited").
5. ``score`` is a probability that people would call the claim supported, from a logistic model of
   the coverage, the IDF-weighted coverage, the weight of the words left uncovered, whether a whole
   clause is uncovered, how many sentences the evidence takes, whether a rule failed, the
   IDF-weighted share of the claim the cited passages hold anywhere (facts spread over a passage)
   and how many sentences they have (the more text, the more words match by chance), the share
   of the claim the best single cited sentence holds, and, of the pairs of neighbouring claim
   words the evidence holds, the share one evidence sentence holds together (evidence stitched
   from sentences about other things holds a claim's words but splits its links) (fitted by
   ``bench/fit_lexical.py``; coefficients in ``calibration.py``). A claim is supported when no rule
   fails, at least ``coverage`` of its words are covered, and the score is at least ``threshold``
   ("coverage" or "calibrated" name the failure otherwise).

Passages are analysed once and cached by text (the 4,096 most recent). WordNet is read only for a
claim word that no cited sentence holds, so a claim copied or lightly edited from its passage
never touches it.
"""

from __future__ import annotations

import os
from dataclasses import replace
from functools import reduce
from itertools import compress, count, repeat
from operator import and_, mul
from typing import Iterable, Sequence

from pytest_sprout.core.calibration import Calibration, user_calibration
from pytest_sprout.core.model import Passage, Verdict

from . import calibration as shipped  # (``calibration`` is also LexicalJudge's argument)
from .claims import join_fragments, no_claim
from .evidence import (
    Evidence, _add_synonyms, _added_clause, _best_single, _linked_pairs, _next_best, _pair_key, _uncovered_tail, _union,
)
from .framing import strip_boilerplate, strip_list_marker
from .index import Sentence, _bits, analyse, positions
from .names import absent_names
from .passage import _Prepared, _prepare_passage
from .registry import NAMES, RULE_RANK, RULES, Context, Rule
from .rules import Failure
from .text import rejoin_numbers, stem, weight
from .verdicts import sigmoid, verdict, wordless

RULES_VERSION = 19  # bump when a rule changes what it decides: it is part of settings()

# Format characters an answer may carry that no reader sees: zero-width spaces and joiners, soft
# hyphens, bidi marks, embeddings and isolates, word joiners, the byte-order mark.
_INVISIBLE = dict.fromkeys(map(ord, "\u00ad\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
                                    "\u2060\u2061\u2062\u2063\u2064\u2066\u2067\u2068\u2069\ufeff"))

_ZEROS = repeat(0)  # the default of each dict.get mapped over a claim's keys

# The rules a soft failure is read again with, on evidence that lacks some of the claim's words.
_SECOND_READING = ("negation_unsaid", "negated_clause_stated")


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
        # (an explicit ``threshold`` wins) and, when refitted, its coefficients of the score.
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
        """``judge`` on each (claim, sources) pair; a passage cited by several is analysed once, and
        a pair that repeats (the same mutant of the same sentence repeated in an answer) is judged
        once: a verdict is a pure function of the claim, the passages' texts and the settings."""
        assess = self.assess
        seen: dict[tuple, Verdict] = {}
        out = []
        for claim, sources in pairs:
            key = _pair_key(claim, sources)
            verdict = seen.get(key) if key is not None else None
            if verdict is None:
                verdict = assess(claim, sources)[0]
                if key is not None:
                    seen[key] = verdict
            out.append(verdict)
        return out

    def judge_answer(self, pairs: Sequence[tuple[str, Sequence[Passage | str]]]) -> list[Verdict]:
        """``judge_many`` on the sentences of one answer, in order, except that a fragment (no verb:
        "In 2011.", "222 - 0.") is judged together with the sentence before it (``claims``)."""
        judged, joined = join_fragments(pairs)
        return [replace(v, reason=f"{v.reason}; a fragment, judged with the sentence before it") if j else v
                for v, j in zip(self.judge_many(judged), joined)]

    def judge_answer_sourced(self, pairs: Sequence[tuple[str, Sequence[Passage | str]]]
                             ) -> list[tuple[Verdict, list[Passage | str]]]:
        """``judge_answer``, with the sources (of those the pair was judged against: a fragment's
        include the sentence's before it) that hold the sentences of each verdict's evidence: an
        uncited sentence judged against every retrieved passage (--sprout-citations=retrieved)
        names in its reason which passages the evidence came from."""
        judged, joined = join_fragments(pairs)
        out = []
        for (claim, sources), j in zip(judged, joined):
            verdict, found = self.assess(claim, sources)
            if j:
                verdict = replace(verdict, reason=f"{verdict.reason}; a fragment, judged with the sentence before it")
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
        c = self._calibration
        return sigmoid(c.intercept + sum(map(mul, c.coefficients, features)))

    def assess(self, claim: str, sources: Sequence[Passage | str]) -> tuple[Verdict, Evidence | None]:
        """The verdict and what it was based on (None for a claim that cites nothing or has no words)."""
        return self._assess(claim, sources)

    def _assess(self, claim: str, sources: Sequence[Passage | str]) -> tuple[Verdict, Evidence | None]:
        if not isinstance(claim, str):
            raise TypeError(f"claim must be a str, got {type(claim).__name__}")
        if isinstance(sources, (str, bytes)):
            raise TypeError("sources must be a sequence of passages (Passage or str), not a single str")
        if not claim.isascii():  # the answer's own format characters (zero-width, bidi) change nothing
            claim = claim.translate(_INVISIBLE)
        why = no_claim(claim)
        if why is not None:  # "Based on the given context [1],", "[1][2]": nothing to support or refute
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
                found = self._copied(ours, p)
                return self._verdict(found), found
        text, boilerplate = strip_boilerplate(claim)
        ours = analyse(text)
        if not ours.keys:
            return wordless(claim, ours, prepared, self.coverage), None
        found = self._search(ours, prepared)
        found.boilerplate = boilerplate
        found.dated = ours.has_date
        return self._verdict(found), found

    # --- finding the evidence ---------------------------------------------------------------------

    def _copied(self, ours: Sentence, p: _Prepared) -> Evidence:
        found = Evidence()
        found.window = (ours,)
        found.total = found.covered = len(ours.keys)
        found.coverage = found.weighted = found.passage_weighted = found.single = found.linked = 1.0
        found.passages = 1
        found.sentences = len(p.sentences)
        return found

    def _search(self, ours: Sentence, prepared: list[_Prepared]) -> Evidence:
        """The evidence for a claim and the first rule it fails: a sentence that holds the whole claim
        and passes the rules, else the best set of up to ``window`` sentences (``_choose``)."""
        seq = ours.seq  # claim order, each key once: every choice below is deterministic
        keys = list(seq) if len(seq) == len(ours.keys) else list(dict.fromkeys(seq))
        found = Evidence()
        found.total = full = len(keys)
        found.sentences = sum(len(p.sentences) for p in prepared)
        # Per passage and claim key, the sentences that hold the key (bit i: sentence i).
        masks = [list(map(p.masks.get, keys, _ZEROS)) for p in prepared]
        held = _union(masks)
        synonym_of = _add_synonyms(ours, keys, masks, prepared, held) if 0 in held else {}
        if synonym_of:
            held = _union(masks)
        # The claim's words that some cited sentence holds (bit j: keys[j]), synonyms included: the
        # sum of the powers of two (1 << j) whose key j is held.
        anywhere = (1 << full) - 1 if 0 not in held else sum(compress(map((1).__lshift__, count()), held))
        absent = absent_names(ours, prepared)
        if absent:
            found.names_missing = len(absent)
        # A sentence that covers the whole claim and passes the rules settles it.
        failures: list[tuple[tuple[Sentence, ...], Failure]] = []
        # A sentence repeated word for word fails as its first copy did (with its neighbours, which
        # hold the numbers it may take).
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
                    self._fill_whole(found, keys, ours, window, synonym_of)
                    return found
                failures.append((window, decided[1]))
        if failures:  # sentences that cover the whole claim are the best evidence; the rules failed them all
            window, found.failure = max(failures, key=lambda f: RULE_RANK[f[1][0]])  # the first of the latest rule
            self._fill_whole(found, keys, ours, window, synonym_of)
            return found
        chosen, covered, found.single = self._choose(masks, full)  # (the masks hold the synonyms' sentences)
        if not chosen:
            first = next((p.sentences[:1] for p in prepared if p.sentences), ())
            self._fill(found, ours, keys, first, 0, synonym_of, 1 if first else 0, anywhere)
            return found
        window = tuple(prepared[pi].sentences[i] for pi, i in chosen)
        self._fill(found, ours, keys, window, covered, synonym_of, len({pi for pi, _ in chosen}), anywhere)
        found.linked = _linked_pairs(ours, keys, masks, chosen)
        uncovered = tuple(key for j, key in enumerate(keys) if not covered >> j & 1)
        best = window[0] if len(window) == 1 else _best_single(window, ours.keys)
        context = Context(ours, window, prepared, uncovered, best, chosen)
        decided = self._rules(context)
        failure: Failure | None = decided[1] if decided is not None else None
        if decided is not None and uncovered and decided[0].soft and not self._decisive(decided, context):
            found.cue_conflict = failure  # the evidence lacks some of the claim: read it again
            context.cues, context.fallback = False, True
            failure = next(filter(None, (rule.check(context) for rule in self._second)), None)
            context.fallback = False
            if failure is None:
                decided = self._rules(context)
                failure = decided[1] if decided is not None else None
        if failure is None and found.clause_failure is not None:
            failure = found.clause_failure
        found.failure = failure
        return found

    def _choose(self, masks: list[list[int]], full: int) -> tuple[list[tuple[int, int]], int, float]:
        """The best set of up to ``window`` sentences for the claim's ``full`` keys, given per passage
        as the masks of the sentences holding each (a key found by a synonym: the synonym's):
        (their (passage, sentence) positions in order, the claim keys they cover as bits, the
        share of the keys the best single sentence holds).

        First the sentence that holds the most claim words (the first of them on a tie), then the
        one that adds the most words not yet covered, the nearer to one chosen on a tie. A sentence
        that is not next to one already chosen joins only if it holds at least two of the claim's
        words: one word alone ("winter") is no sign that the sentence is about what the claim says."""
        # Per sentence, the claim keys it holds (bit j: keys[j]), in the order of the key then the
        # sentence. A sentence is the int ``passage << 32 | sentence``: the neighbours of a
        # sentence are one less and one more (no sentence of a passage is 2**32 - 1 away from it).
        candidates: dict[int, int] = {}
        get = candidates.get
        for pi, pm in enumerate(masks):
            base = pi << 32
            for j, mask in enumerate(pm):
                if mask:
                    bit = 1 << j
                    for i in positions(mask):  # each sentence holding key j, lowest first
                        where = base | i
                        candidates[where] = get(where, 0) | bit
        if not candidates:
            return [], 0, 0.0
        counts = list(map(int.bit_count, candidates.values()))  # how many claim words each sentence holds
        top = max(counts)
        best: int | None = list(candidates)[counts.index(top)]
        chosen: list[int] = []
        covered = 0
        near: set[int] = set()  # the neighbours of the sentences chosen so far
        while best is not None:
            chosen.append(best)
            near.update((best - 1, best + 1))
            covered |= candidates.pop(best)
            if covered.bit_count() == full or len(chosen) == self.window:
                break
            best = _next_best(candidates, covered, chosen, near)
        chosen.sort()
        return [(where >> 32, where & 0xFFFFFFFF) for where in chosen], covered, top / full

    @staticmethod
    def _fill_whole(found: Evidence, keys: list[str], ours: Sentence, window: tuple[Sentence, ...],
                    synonym_of: dict[int, str]) -> None:
        """``_fill`` for one sentence that covers every word of the claim."""
        found.window = window
        found.passages = 1
        found.covered = len(keys)
        found.coverage = found.weighted = found.passage_weighted = found.single = found.linked = 1.0
        if synonym_of:
            words = ours.first_words()
            found.synonyms = [(words[keys[j]], window[0].surface(k)) for j, k in synonym_of.items()]

    def _fill(self, found: Evidence, ours: Sentence, keys: list[str],
              window: tuple[Sentence, ...], covered: int, synonym_of: dict[int, str], passages: int,
              anywhere: int) -> None:
        words = ours.first_words()
        found.window = window
        found.passages = passages
        total_weight = got = held = rarest = 0.0
        uncovered: set[str] = set()
        for j, key in enumerate(keys):
            w = weight(words[key])
            total_weight += w
            if anywhere >> j & 1:
                held += w
            if covered >> j & 1:
                got += w
            else:
                uncovered.add(key)
                if w > rarest:
                    rarest = w
        found.rarest_missing = rarest
        found.covered = len(keys) - len(uncovered)
        found.coverage = found.covered / len(keys)
        found.weighted = got / total_weight if total_weight else 0.0
        found.passage_weighted = held / total_weight if total_weight else 0.0
        found.uncovered_weight = total_weight - got
        found.clause = 0.0
        found.missing = list(dict.fromkeys([ours.words[idx] for k, idx in ours.content if k in uncovered]))
        absent: Failure | None = None
        if uncovered:
            for clause in ours.clauses():
                if len(clause.keys) >= 2 and clause.keys <= uncovered:
                    found.clause = 1.0
                    shown = " ".join(w for w in found.missing if stem(w) in clause.keys)
                    absent = ("clause", f"no word of the clause '{shown}' is in the evidence")
                    break
            else:  # the claim's opening in the evidence, what it says of it not: "Peace lilies | are toxic to cats"
                tail = _uncovered_tail(ours.seq, uncovered)
                if tail >= 2 and 2 * tail >= len(ours.seq):
                    found.clause = 1.0
                    shown = " ".join(ours.words[idx] for _, idx in ours.content[-tail:])
                    absent = ("clause", f"no word of the second half of the claim '{shown}' is in the "
                                        "evidence, only its opening")
            found.clause_failure = self._found("clause", absent)
        if uncovered and absent is None:
            added = _added_clause(ours, uncovered)
            if added is not None:
                found.clause = 1.0
                shown = " ".join(w for w in found.missing if stem(w) in added)
                found.clause_failure = self._found("clause_added", (
                    "clause", f"the clause '{shown}' is not in the evidence: its other words are the rest of the claim's"))
        if synonym_of:  # else found.synonyms stays empty, and the evidence's keys are not gathered
            evidence = frozenset().union(*(s.keys for s in window)) if window else frozenset()
            found.synonyms = [(words[keys[j]], next((s.surface(k) for s in window if k in s.keys), k))
                              for j, k in synonym_of.items() if covered >> j & 1 and keys[j] not in evidence]

    def _rules(self, context: Context) -> tuple[Rule, Failure] | None:
        """The first rule of stage "evidence" the claim fails against the context's window, in the
        order of ``RULES``, with its failure (None: it passes them all)."""
        for rule in self._loop:
            failure = rule.check(context)
            if failure is not None:
                return rule, failure
        return None

    def _decisive(self, decided: tuple[Rule, Failure], context: Context) -> bool:
        """Whether a soft quantifier failure is decisive though the evidence lacks some of the claim."""
        rule = self._on.get("quantifier_whole")
        return decided[1][0] == "quantifier" and rule is not None and rule.check(context) is not None

    def _found(self, name: str, failure: Failure | None) -> Failure | None:
        """A failure the judge found itself (the clause rules), if the rule ``name`` is on."""
        rule = self._on.get(name)
        return rule.check(failure) if rule is not None and failure is not None else None

    def _verdict(self, found: Evidence) -> Verdict:
        return verdict(found, self.probability(found.features()), self.coverage, self.threshold)
