"""Your own labels (``--sprout-labels``): read a JSON Lines file of human labels, match each to
the verdict this run's judge gave the same sentence (or answer), and correct the judge's rate
with them (core/ppi.py). Plain Python, no pytest: the session turns a LabelError into a usage error.

One label per line: ``{"case_id": "...", "sentence": "<the sentence as judged>", "supported":
true|false}`` for the sentence-level metric, ``{"case_id": "...", "supported": ...}`` for the
answer-level ``grounded``; optionally ``"tier"`` (else the label holds for every tier that judged
it), ``"labeller"`` and ``"note"``. ``"supported": null`` is a label still to be given (what
``--sprout-label-sample`` writes): read, never used. What the sample gives a person to label with
(``"question"``, ``"judged_against"``, ``"passages"``: checks/label_context.py) is read, never used.
When a file labels the same thing twice the
later line wins (a file people append corrections to): a line without a tier replaces every
earlier label of its sentence, a line naming a tier replaces, for that tier, the earlier label
of its sentence with that tier or without one. So each (case, sentence, tier that judged it) is
paired with one label, and a sentence counts once however many times it was corrected.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from ..core.errors import SettingsError
from ..core.identity import LIST_LIMIT, file_sha256
from ..core.ppi import Corrected, JudgeVsLabels, corrected_rate, judge_vs_labels, strata_of
from ..core.row import Row, as_rows
from ..core.stats import MetricRow

SENTENCE_METRIC = "grounded_sentence"
ANSWER_METRIC = "grounded"
FIELDS = ("case_id", "sentence", "supported", "tier", "labeller", "note")
CONTEXT = {"question": str, "judged_against": str, "passages": list}  # what the sample shows; not used
MAX_ERRORS = 10


class LabelError(SettingsError):
    """A labels file that cannot be read, or lines in it that are not labels."""


@dataclass(frozen=True)
class Label:
    case_id: str
    sentence: str | None  # None: a label of the whole answer
    supported: bool | None  # None: still to be labelled
    tier: str | None
    line: int

    def key(self) -> tuple[str, str | None, str | None]:
        return (self.case_id, _norm(self.sentence), self.tier)

    def item(self) -> tuple[str, str | None]:
        """What is labelled: the case and the sentence (None: the answer), whatever the tier."""
        return (self.case_id, _norm(self.sentence))

    def describe(self) -> str:
        what = f"{self.case_id!r}" + (f" {_clip(self.sentence)!r}" if self.sentence is not None else " (answer)")
        return f"{what} (line {self.line})"


@dataclass
class LabelSet:
    path: str  # as shown (relative to the rootdir)
    sha256: str
    labels: list[Label] = field(default_factory=list)

    @property
    def given(self) -> list[Label]:
        """Labels with a verdict, the later line winning where one item is labelled twice: a line
        without a tier replaces every earlier label of its sentence, one naming a tier the earlier
        one of that tier (an earlier tier-less label still holds for the other tiers; ``for_tier``)."""
        latest: dict[tuple[str, str | None], dict[str | None, Label]] = {}
        for label in self.labels:
            if label.supported is None:
                continue
            by_tier = latest.setdefault(label.item(), {})
            if label.tier is None:
                by_tier.clear()
            by_tier[label.tier] = label
        return sorted((lab for by_tier in latest.values() for lab in by_tier.values()), key=lambda lab: lab.line)

    @property
    def items(self) -> int:
        """How many sentences (and answers) have a label, each counted once whatever its tiers."""
        return len({label.item() for label in self.given})

    @property
    def pending(self) -> int:
        return sum(1 for label in self.labels if label.supported is None)


def _norm(text: str | None) -> str | None:
    return None if text is None else " ".join(text.split())


def _clip(text: str | None, width: int = 60) -> str:
    text = _norm(text) or ""
    return text if len(text) <= width else text[: width - 3] + "..."


def _parse_line(raw: str, where: str, number: int) -> Label:
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        raise LabelError(f"{where}: not JSON ({str(exc).splitlines()[0][:120]})") from None
    if not isinstance(data, dict):
        raise LabelError(f"{where}: expected a JSON object, one label per line")
    unknown = sorted(set(data) - set(FIELDS) - set(CONTEXT))
    if unknown:
        raise LabelError(f"{where}: unknown field {unknown[0]!r} (a label has {', '.join(FIELDS)}; a label "
                         f"sample adds {', '.join(CONTEXT)})")
    for name, kind in CONTEXT.items():
        if data.get(name) is not None and not isinstance(data[name], kind):
            raise LabelError(f"{where}: field {name!r} must be {'a string' if kind is str else 'a list'}")
    case_id = data.get("case_id")
    if not isinstance(case_id, str) or not case_id:
        raise LabelError(f"{where}: field 'case_id' is missing or not a non-empty string")
    if "supported" not in data:
        raise LabelError(f"{where}: field 'supported' is missing (true, false, or null for a label still to give)")
    supported = data["supported"]
    if supported is not None and not isinstance(supported, bool):
        raise LabelError(f"{where}: field 'supported' must be true, false or null, got {json.dumps(supported)[:40]}")
    for name in ("sentence", "tier", "labeller", "note"):
        if data.get(name) is not None and not isinstance(data[name], str):
            raise LabelError(f"{where}: field {name!r} must be a string")
    sentence = data.get("sentence")
    if sentence is not None and not sentence.strip():
        raise LabelError(f"{where}: field 'sentence' is empty")
    return Label(case_id, sentence, supported, data.get("tier"), number)


def load_labels(path: Path, shown: str) -> LabelSet:
    """Read a labels file; every malformed line is named (file, line and field), up to ten."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise LabelError(f"{shown}: the labels file cannot be read: {exc.strerror or exc}") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise LabelError(f"{shown}: not UTF-8 (byte {exc.start})") from None
    out = LabelSet(shown, file_sha256(path))
    errors = []
    for number, raw in enumerate(text.splitlines(), 1):
        if not raw.strip():
            continue
        try:
            out.labels.append(_parse_line(raw, f"{shown}:{number}", number))
        except LabelError as exc:
            errors.append(str(exc))
    if errors:
        more = f"\n  ... and {len(errors) - MAX_ERRORS} more" if len(errors) > MAX_ERRORS else ""
        noun = "line is" if len(errors) == 1 else "lines are"
        raise LabelError(f"{shown}: {len(errors)} {noun} not labels:\n  " + "\n  ".join(errors[:MAX_ERRORS]) + more)
    return out


# --- matching labels to this run's verdicts (on the controller) -----------------------------------


@dataclass
class Matched:
    """The labels matched to the verdicts of one (tier, metric)."""

    pairs: list[tuple[bool, bool]] = field(default_factory=list)  # (judge's verdict, people's label)


@dataclass
class Matching:
    by_metric: dict[tuple[str, str], Matched] = field(default_factory=dict)
    stale: list[Label] = field(default_factory=list)  # labels of answers this run did not give
    unscored: int = 0  # labels of items the judge could not decide


def _verdicts(rows: Iterable[Row]) -> dict[str, list[tuple[str, dict[str | None, bool | None]]]]:
    """case id -> [(tier, {normalised sentence text or None for the answer: the judge's verdict})]."""
    out: dict[str, list[tuple[str, dict[str | None, bool | None]]]] = {}
    for row in rows:
        if row.outcome == "error":
            continue
        verdicts: dict[str | None, bool | None] = {}
        if SENTENCE_METRIC in row.metrics:
            for sentence in row.sentences:
                text = _norm(sentence.get("text"))
                if isinstance(text, str) and text not in verdicts:
                    value = sentence.get("supported")
                    verdicts[text] = value if isinstance(value, bool) else None
        answer = row.metrics.get(ANSWER_METRIC)
        if answer:
            verdicts[None] = answer[0] if isinstance(answer[0], bool) else None
        if verdicts:
            out.setdefault(row.case_id, []).append((row.tier, verdicts))
    return out


def match(labels: LabelSet, items: Iterable[Row | dict[str, Any]]) -> Matching:
    """Pair each label with the verdict of every tier that judged its sentence (or answer): for each
    such tier the label naming it, else the label without a tier (never both: ``LabelSet.given``)."""
    index = _verdicts(as_rows(items))
    result = Matching()
    given = labels.given
    tiers_labelled = {(label.item(), label.tier) for label in given if label.tier is not None}
    for label in given:
        text = _norm(label.sentence)
        metric = ANSWER_METRIC if text is None else SENTENCE_METRIC
        found = False
        for tier, verdicts in index.get(label.case_id, []):
            if (label.tier is not None and tier != label.tier) or text not in verdicts:
                continue
            found = True
            if label.tier is None and (label.item(), tier) in tiers_labelled:
                continue  # a later line names this tier: it holds here
            verdict = verdicts[text]
            if verdict is None:
                result.unscored += 1
                continue
            result.by_metric.setdefault((tier, metric), Matched()).pairs.append((verdict, bool(label.supported)))
        if not found:
            result.stale.append(label)
    return result


@dataclass(frozen=True)
class Correction:
    corrected: Corrected | None
    judge: JudgeVsLabels

    def to_json(self) -> dict[str, Any]:
        return {"corrected": self.corrected.to_json() if self.corrected else None,
                "judge_vs_labels": self.judge.to_json()}


def corrections(matching: Matching, rows: list[MetricRow]) -> dict[tuple[str, str], Correction]:
    """Per labelled (tier, metric): the corrected rate and the judge against the labels."""
    out = {}
    for row in rows:
        matched = matching.by_metric.get((row.tier, row.metric))
        if matched is None or row.kind != "rate" or row.k is None:
            continue
        verdicts = {True: row.k, False: row.n - row.k}
        out[(row.tier, row.metric)] = Correction(corrected_rate(strata_of(matched.pairs, verdicts)),
                                                 judge_vs_labels(matched.pairs))
    return out


def summary_lines(labels: LabelSet, matching: Matching, fixed: dict[tuple[str, str], Correction]) -> list[str]:
    """The lines the terminal and the Markdown print under the table."""
    used = sum(len(m.pairs) for m in matching.by_metric.values())
    lines = [f"labels: {labels.path}: {labels.items} labels"
             + (f", {labels.pending} still to give (\"supported\": null)" if labels.pending else "")
             + f"; {used} matched to a verdict of this run"
             + (f", {matching.unscored} to a verdict the judge could not give" if matching.unscored else "")]
    for (tier, metric), fix in sorted(fixed.items()):
        j = fix.judge
        lines.append(f"  {tier} {metric}: judge vs labels: sensitivity {_rate(j.sensitivity)}, "
                     f"specificity {_rate(j.specificity)}")
        if j.misses_most_unsupported:
            lines.append(f"  {tier} {metric}: the judge misses most unsupported sentences people found on this data "
                         f"(it rejects {j.specificity.k} of the {j.specificity.n} they call unsupported)")
    if matching.stale:
        stale = matching.stale
        noun = "label describes an answer" if len(stale) == 1 else "labels describe answers"
        names = "; ".join(label.describe() for label in stale[:LIST_LIMIT])
        more = f"; ... and {len(stale) - LIST_LIMIT} more" if len(stale) > LIST_LIMIT else ""
        lines.append(f"  {len(stale)} {noun} this run did not give (not used): {names}{more}")
    return lines


def _rate(rate: Any) -> str:
    if not rate.n:
        return "- (no labels of that kind)"
    low, high = rate.interval
    return f"{rate.value:.3f} ({rate.k}/{rate.n}) [{low:.3f}, {high:.3f}]"


# --- which sentences to label (--sprout-label-sample) --------------------------------------------

SAMPLE_NAME = "sprout-label-sample.jsonl"


def label_sample(items: Iterable[Row | dict[str, Any]], size: int, seed: str) -> list[dict[str, Any]]:
    """A deterministic sample of ``size`` judged sentences to label, stratified by the judge's
    verdict: half from the sentences it rejected (all of them when fewer), the rest from those
    it accepted, so that rare rejections are not missed; the corrected rate weighs each verdict by
    its share of all sentences (core/ppi.py), so the oversampling costs no bias. One entry per
    (case, sentence), the verdict of the first tier (by node id) that judged it; ``seed`` fixes
    the draw (the dataset hash: the same suites give the same sample). Each entry carries what a
    person labels with (checks/label_context.py): the question, and the full text of the passages
    the sentence was judged against with the claim's words marked; the verdict stays out of it."""
    import random

    from .label_context import sample_context

    def judged() -> Iterable[tuple[tuple[str, str], bool, Row, dict[str, Any]]]:
        seen: set[tuple[str, str]] = set()
        for row in sorted(as_rows(items), key=lambda r: str(r.nodeid)):
            if row.outcome == "error" or SENTENCE_METRIC not in row.metrics:
                continue
            for sentence in row.sentences:
                text, verdict = sentence.get("text"), sentence.get("supported")
                key = (row.case_id, _norm(text) or "")
                if isinstance(text, str) and isinstance(verdict, bool) and key not in seen:
                    seen.add(key)
                    yield key, verdict, row, sentence

    verdicts = {key: verdict for key, verdict, _, _ in judged()}
    rejected = sorted(k for k, v in verdicts.items() if not v)
    accepted = sorted(k for k, v in verdicts.items() if v)
    rng = random.Random(f"sprout-label-sample:{seed}")
    take_rejected = min(len(rejected), max(size // 2, size - len(accepted)))
    chosen = rng.sample(rejected, take_rejected)
    chosen += rng.sample(accepted, min(len(accepted), size - take_rejected))
    picked = set(chosen)  # a second pass keeps only the chosen sentences' rows
    entries = {key: {"case_id": key[0], "sentence": sentence["text"], "supported": None, **sample_context(row, sentence)}
               for key, _, row, sentence in judged() if key in picked}
    return [entries[key] for key in sorted(chosen)]
