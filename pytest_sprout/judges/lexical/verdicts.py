"""The lexical judge's verdict on what it found for a claim (``evidence.Evidence``), with its reason:
the failed rule, else a soft failure the score confirms, else the coverage and the calibrated score,
with notes (boilerplate set aside, synonyms matched, passages used). ``wordless`` judges a claim
without content words ("10-15 cm.")."""

from __future__ import annotations

import math

from pytest_sprout.core.model import Verdict

from .evidence import Evidence
from .index import Sentence, _text
from .passage import _Prepared
from .rules import check_numbers_in
from .text import stem, synonym_keys


def sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x)) if x > -500 else 0.0


class _TwoDecimals(dict):
    """A number -> its text with two decimals ("0.50"), memoised: coverages and thresholds recur."""

    def __missing__(self, x: float) -> str:
        text = f"{x:.2f}"
        if x and len(self) < 4096:  # not zero: 0.0 and -0.0 are one key but print differently
            self[x] = text
        return text


_TWO = _TwoDecimals()


def verdict(found: Evidence, p: float, coverage: float, threshold: float) -> Verdict:
    """The verdict on what was found for a claim, ``p`` its calibrated score, under the judge's
    ``coverage`` and ``threshold``."""
    evidence = _text(found.window) if found.window else None
    notes = []
    if found.boilerplate:
        notes.append(f"boilerplate '{found.boilerplate}' set aside")
    if found.synonyms:  # WordNet synonyms, then derivationally related forms ("explanation"~"explain")
        same = [(a, b) for a, b in found.synonyms if stem(b) in synonym_keys(a)]
        forms = [pair for pair in found.synonyms if pair not in same]
        if same:
            notes.append("synonyms " + ", ".join(f"'{a}'~'{b}'" for a, b in same[:3]))
        if forms:
            notes.append("related forms " + ", ".join(f"'{a}'~'{b}'" for a, b in forms[:3]))
    if found.passages > 1:
        notes.append(f"evidence from {found.passages} cited passages")
    where = f" over {len(found.window)} sentences" if len(found.window) > 1 else ""
    extra = ("; " + "; ".join(notes)) if notes else ""
    if found.failure is not None:
        rule, reason = found.failure
        return Verdict(False, p, evidence, reason + extra, rule)
    if found.cue_conflict is not None:
        if p < threshold:  # a soft failure the calibrated score confirms
            rule, reason = found.cue_conflict
            return Verdict(False, p, evidence, f"{reason} (calibrated score {p:.2f} < {_TWO[threshold]}){extra}", rule)
        notes.append(f"{found.cue_conflict[1]}, weighed: the evidence does not hold the whole claim")
        extra = "; " + "; ".join(notes)
    if not found.window:
        return Verdict(False, 0.0, None, f"coverage 0.00 < {_TWO[coverage]}; the cited passages are empty", "coverage")
    if found.coverage < coverage - 1e-9:
        return Verdict(False, p, evidence, f"coverage {_TWO[found.coverage]} < {_TWO[coverage]}{where}; "
                       f"missing: {missing_words(found)}{extra}", "coverage")
    if p < threshold:
        clause = ", a whole clause uncovered" if found.clause else ""
        return Verdict(False, p, evidence, f"calibrated score {p:.2f} < {_TWO[threshold]} (coverage "
                       f"{_TWO[found.coverage]}{where}, weighted {found.weighted:.2f}{clause}); "
                       f"missing: {missing_words(found)}{extra}", "calibrated")
    checked = "names, numbers and dates (by day, month and year)" if found.dated else "names and numbers"
    return Verdict(True, p, evidence, f"coverage {_TWO[found.coverage]} >= {_TWO[coverage]}{where}, calibrated "
                   f"score {p:.2f}; {checked} are in the cited passages; quantifiers, negation agree{extra}")


def missing_words(found: Evidence) -> str:
    """The words the evidence lacks, for a reason: six at most."""
    missing = found.missing
    more = len(missing) - 6
    return (", ".join(missing[:6]) + (f" (+{more} more)" if more > 0 else "")) or "none"


def wordless(claim: str, ours: Sentence, prepared: list[_Prepared], coverage: float) -> Verdict:
    """A claim without content words ("10-15 cm.", "* * *"): matched on all its words and numbers."""
    keys = ours.allkeys()
    sentences = [s for p in prepared for s in p.sentences]
    if not keys:
        text = claim.strip()
        found = next((s.text for s in sentences if text in s.text), None) if text else None
        if found is not None:
            return Verdict(True, 1.0, found, "the claim has no words; its text is in the evidence")
        return Verdict(False, 0.0, None, "the claim has no words to check", "coverage")
    where = max(sentences, key=lambda s: len(keys & s.allkeys()), default=None)
    if where is None:
        return Verdict(False, 0.0, None, f"coverage 0.00 < {coverage:.2f}; the cited passages are empty", "coverage")
    score = len(keys & where.allkeys()) / len(keys)
    failure = check_numbers_in(ours, [n for p in prepared for n in p.numbers])
    if failure is not None:
        return Verdict(False, score, where.text, failure[1], failure[0])
    if score < coverage - 1e-9:
        missing = ", ".join(k.lstrip("#") for k in sorted(keys - where.allkeys()))
        return Verdict(False, score, where.text, f"coverage {score:.2f} < {coverage:.2f}; missing: {missing}",
                       "coverage")
    return Verdict(True, score, where.text, f"coverage {score:.2f} >= {coverage:.2f}; numbers agree")
