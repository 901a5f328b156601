"""Meta-evaluation: how well a judge agrees with human grounding labels. The readers (generic
JSONL, WiCE, LFQA-Verification), the evaluation of a judge's verdicts against the labels, tuning
one setting, and the result as text lines. The statistics (Wilson rates, balanced accuracy with
its MOVER interval, ROC AUC with the Hanley-McNeil interval, the paired bootstrap) are in stats.py;
the command line, ``python -m pytest_sprout.metaeval``, in metaeval.py.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Sequence

from ..core.calibration import load as load_calibration
from ..core.stats import Rate, balanced_accuracy, paired_ba_difference, roc_auc

SUPPORTED_WORDS = {"supported", "support", "entailment", "entailed", "true", "yes", "1", "attributable"}
UNSUPPORTED_WORDS = {
    "not_supported", "not supported", "unsupported", "partially_supported", "partially supported",
    "partially", "partial", "contradiction", "contradicted", "neutral", "false", "no", "0",
    "not_attributable", "not attributable",
}
FORMATS = ("jsonl", "wice", "lfqa")
# Which documents each LFQA-Verification system's answers were judged against (see docs).
LFQA_DOCS = {
    "webgpt": "docs-webgpt.json", "gpt3_wdoc": "docs-webgpt.json", "alpaca_wdoc": "docs-webgpt.json",
    "gpt3_whudoc": "docs-human.json", "gpt3": "docs-webgpt.json", "alpaca": "docs-webgpt.json",
}


class DataError(ValueError):
    """Bad input data; the message names the file, the record and the field."""


@dataclass(frozen=True)
class Example:
    """One labelled claim: the human says ``supported`` or not, given ``premise`` (its sources)."""

    id: str
    claim: str
    premise: tuple[str, ...]
    supported: bool
    category: str | None = None
    # The sentence before this one in its answer (LFQA): a fragment ("In 2011.") is judged with it.
    previous: str | None = None


# --- readers -------------------------------------------------------------------------------------


def parse_label(value: Any, where: str) -> bool:
    """A human label as a bool: True for supported; partially supported counts as unsupported."""
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        word = value.strip().lower()
        if word in SUPPORTED_WORDS:
            return True
        if word in UNSUPPORTED_WORDS:
            return False
    raise DataError(
        f"{where}: field 'label' must be supported/unsupported (or partially_supported, true/false, 1/0), got {value!r}"
    )


def _lines(path: Path) -> Iterable[tuple[int, dict[str, Any]]]:
    try:
        handle = path.open(encoding="utf-8")
    except OSError as exc:
        raise DataError(f"{path}: cannot read: {exc.strerror or exc}") from None
    with handle:
        number = 0
        while True:
            try:
                line = handle.readline()
            except UnicodeDecodeError as exc:
                raise DataError(f"{path}:{number + 1}: not UTF-8 ({exc.reason}); save the file as UTF-8") from None
            if not line:
                return
            number += 1
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise DataError(f"{path}:{number}: not valid JSON: {exc.msg}") from None
            except (ValueError, RecursionError) as exc:
                raise DataError(f"{path}:{number}: cannot be read: {_json_limit(exc)}") from None
            if not isinstance(record, dict):
                raise DataError(f"{path}:{number}: expected a JSON object, got {type(record).__name__}")
            yield number, record


def _text(record: dict[str, Any], key: str, where: str) -> str:
    if key not in record:
        raise DataError(f"{where}: field {key!r} is missing")
    value = record[key]
    if not isinstance(value, str) or not value.strip():
        raise DataError(f"{where}: field {key!r} must be a non-empty string, got {value!r}")
    return value


def read_jsonl(path: Path) -> list[Example]:
    """Generic JSONL: ``premise`` (a string, or a list of passages; ``""`` or ``[]`` is no evidence,
    judged as a claim that cites nothing), ``claim``, ``label``, and optional ``category`` and ``id``."""
    examples = []
    for number, record in _lines(path):
        where = f"{path}:{number}"
        if "premise" not in record:
            raise DataError(f"{where}: field 'premise' is missing (use \"\" or [] for no evidence)")
        premise = record["premise"]
        if isinstance(premise, list) and all(isinstance(p, str) for p in premise):
            passages = tuple(p for p in premise if p.strip())  # [] or only blanks: no evidence
        elif isinstance(premise, str):
            passages = (premise,) if premise.strip() else ()  # "": no evidence
        else:
            raise DataError(f"{where}: field 'premise' must be a string or a list of strings, got {premise!r}")
        if "label" not in record:
            raise DataError(f"{where}: field 'label' is missing")
        category = record.get("category")
        examples.append(Example(
            str(record.get("id", number)), _text(record, "claim", where), passages,
            parse_label(record["label"], where), None if category is None else str(category),
        ))
    if not examples:
        raise DataError(f"{path}: no examples")
    return examples


def read_wice(path: Path, premise: str = "gold") -> list[Example]:
    """WiCE claims. ``premise="gold"``: the claim's first non-empty set of gold supporting
    sentences; a claim with no gold sentence at all (only ever not_supported) is judged against
    its oracle chunks from ``oracle_chunks_<file>`` next to it (gold plus distractor sentences),
    or against the whole article when that file is absent. ``premise="article"``: the whole
    article. Labels: supported = 1; partially and not supported = 0 (as WiCE and LLM-AggreFact)."""
    if premise not in ("gold", "article"):
        raise DataError(f"--premise must be gold or article, got {premise!r}")
    oracle = _wice_oracle(path) if premise == "gold" else {}
    examples = []
    for number, record in _lines(path):
        where = f"{path}:{number}"
        claim = _text(record, "claim", where)
        evidence = record.get("evidence")
        if not isinstance(evidence, list) or not all(isinstance(s, str) for s in evidence):
            raise DataError(f"{where}: field 'evidence' must be a list of sentences")
        gold_sets = record.get("supporting_sentences")
        if not isinstance(gold_sets, list):
            raise DataError(f"{where}: field 'supporting_sentences' must be a list of lists of indices")
        label = str(record.get("label", ""))
        if label not in ("supported", "partially_supported", "not_supported"):
            raise DataError(f"{where}: field 'label' must be supported, partially_supported or not_supported, got {label!r}")
        key = str((record.get("meta") or {}).get("id", number))
        category = label
        gold = next((s for s in gold_sets if isinstance(s, list) and s), None)
        passages: tuple[str, ...]
        if premise == "article":
            passages = (" ".join(evidence),)
        elif gold is not None:
            try:
                passages = (" ".join(evidence[i] for i in gold),)
            except (IndexError, TypeError):
                raise DataError(f"{where}: field 'supporting_sentences' has an index outside 'evidence'") from None
        elif key in oracle:
            passages = tuple(oracle[key])
            category = f"{label} (no gold sentences; oracle chunks)"
        else:
            passages = (" ".join(evidence),)
            category = f"{label} (no gold sentences; whole article)"
        examples.append(Example(key, claim, passages, label == "supported", category))
    if not examples:
        raise DataError(f"{path}: no examples")
    return examples


def _wice_oracle(path: Path) -> dict[str, list[str]]:
    """Claim id -> its oracle chunks, from the oracle file next to the claim file (if any)."""
    oracle_path = path.with_name(f"oracle_chunks_{path.name}")
    chunks: dict[str, list[str]] = {}
    if not oracle_path.is_file():
        return chunks
    for number, record in _lines(oracle_path):
        key = (record.get("meta") or {}).get("id")
        evidence = record.get("evidence")
        if key is None or not isinstance(evidence, list):
            raise DataError(f"{oracle_path}:{number}: needs 'meta.id' and an 'evidence' list")
        chunks.setdefault(str(key), []).append(" ".join(str(s) for s in evidence))
    return chunks


def _load_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise DataError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except json.JSONDecodeError as exc:
        raise DataError(f"{path}: not valid JSON: {exc.msg} (line {exc.lineno})") from None
    except UnicodeDecodeError as exc:
        raise DataError(f"{path}: not UTF-8 ({exc.reason} at byte {exc.start}); save the file as UTF-8") from None
    except (ValueError, RecursionError) as exc:
        raise DataError(f"{path}: cannot be read: {_json_limit(exc)}") from None


def _json_limit(exc: BaseException) -> str:
    """Why well-formed JSON could not be read: a number over Python's digit limit, or nesting too deep."""
    if isinstance(exc, RecursionError):
        return "the JSON is nested too deeply"
    return f"a number in it is too long to read ({str(exc).split(':')[0]})"


def majority(labels: Sequence[str]) -> str | None:
    """The label at least two of three annotators gave; None when all differ."""
    for label in labels:
        if list(labels).count(label) * 2 > len(labels):
            return label
    return None


def read_lfqa(path: Path, dropped: list[str] | None = None) -> list[Example]:
    """LFQA-Verification: ``annotations-<system>.json`` (or a folder: every system in it).

    Each answer sentence takes its annotators' majority label (sentences whose three labels all
    differ are dropped, and listed in ``dropped``); supported = 1, partially and not supported
    = 0. The answers carry no per-sentence citations, so each sentence is judged against all the
    documents of its question (each document one passage), joined on ``question_id`` with the
    documents file its system was given (``LFQA_DOCS``). Category: the system.
    """
    files = sorted(path.glob("annotations-*.json")) if path.is_dir() else [path]
    if not files:
        raise DataError(f"{path}: no annotations-*.json files")
    examples: list[Example] = []
    for file in files:
        system = file.stem.removeprefix("annotations-")
        if system not in LFQA_DOCS:
            raise DataError(f"{file}: unknown LFQA-Verification system {system!r}; expected one of {', '.join(LFQA_DOCS)}")
        docs_path = file.with_name(LFQA_DOCS[system])
        docs: dict[Any, tuple[str, ...]] = {}
        for i, q in enumerate(_load_json(docs_path)):
            try:
                docs[q["question_id"]] = tuple(d["text"] for d in q["docs"])
            except (KeyError, TypeError):
                raise DataError(f"{docs_path}: question {i}: needs 'question_id' and 'docs' with 'text'") from None
        for qi, q in enumerate(_load_json(file)):
            where = f"{file}: question {qi}"
            if not isinstance(q, dict) or "question_id" not in q or not isinstance(q.get("annotations"), list):
                raise DataError(f"{where}: needs 'question_id' and an 'annotations' list")
            if q["question_id"] not in docs:
                raise DataError(f"{where}: question_id {q['question_id']!r} is not in {docs_path.name}")
            previous: str | None = None
            for si, a in enumerate(q["annotations"]):
                key = f"{system}:{q['question_id']}:{si}"
                if not isinstance(a, dict) or not isinstance(a.get("labels"), list) or not isinstance(a.get("answer"), str):
                    raise DataError(f"{where}, sentence {si}: needs 'answer' (a string) and 'labels' (a list)")
                label = majority([str(x) for x in a["labels"]])
                before, previous = previous, a["answer"]
                if label is None:
                    if dropped is not None:
                        dropped.append(key)
                    continue
                examples.append(Example(key, a["answer"], docs[q["question_id"]],
                                        parse_label(label, f"{where}, sentence {si}"), system, before))
    if not examples:
        raise DataError(f"{path}: no examples")
    return examples


def detect_format(path: Path) -> str:
    """lfqa for a folder or a .json file, wice when records have supporting_sentences, else jsonl."""
    if path.is_dir() or path.suffix == ".json":
        return "lfqa"
    if not path.is_file():
        raise DataError(f"{path}: no such file")
    for _, record in _lines(path):
        return "wice" if "supporting_sentences" in record else "jsonl"
    raise DataError(f"{path}: no examples")


def load(path: str | Path, fmt: str | None = None, premise: str = "gold") -> list[Example]:
    path = Path(path)
    if not path.exists():
        raise DataError(f"{path}: no such file or folder")
    fmt = fmt or detect_format(path)
    if fmt == "wice":
        return read_wice(path, premise)
    if fmt == "lfqa":
        return read_lfqa(path)
    if fmt == "jsonl":
        return read_jsonl(path)
    raise DataError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")


# --- statistics ----------------------------------------------------------------------------------


def scores_for(labels: Sequence[bool], predicted: Sequence[bool]) -> dict[str, Any]:
    """Confusion counts and rates, the unsupported class being the positive one."""
    tp = sum(1 for y, p in zip(labels, predicted) if not y and not p)  # unsupported, caught
    fn = sum(1 for y, p in zip(labels, predicted) if not y and p)  # unsupported, passed
    tn = sum(1 for y, p in zip(labels, predicted) if y and p)  # supported, passed
    fp = sum(1 for y, p in zip(labels, predicted) if y and not p)  # supported, flagged
    recall_unsupported = Rate(tp, tp + fn)
    recall_supported = Rate(tn, tn + fp)
    ba = balanced_accuracy(recall_unsupported, recall_supported)
    return {
        "n": len(labels),
        "supported": tn + fp,
        "unsupported": tp + fn,
        "confusion": {"unsupported_caught": tp, "unsupported_passed": fn, "supported_passed": tn, "supported_flagged": fp},
        "balanced_accuracy": None if ba is None else {"value": ba[0], "ci_low": ba[1], "ci_high": ba[2]},
        "precision_unsupported": Rate(tp, tp + fp).to_json(),
        "recall_unsupported": recall_unsupported.to_json(),
        "recall_supported": recall_supported.to_json(),
        "accuracy": Rate(tp + tn, len(labels)).to_json(),
    }


def sweep_thresholds(scores: Sequence[float]) -> list[float]:
    """Thresholds for the sweep: 0.1 steps over [0, 1] for scores in [0, 1], else score deciles."""
    if all(0.0 <= s <= 1.0 for s in scores):
        return [round(0.1 * i, 1) for i in range(11)]
    ordered = sorted(scores)
    return sorted({ordered[min(len(ordered) - 1, int(q * len(ordered) / 10))] for q in range(10)})


def evaluate(examples: Sequence[Example], verdicts: Sequence[Any]) -> dict[str, Any]:
    """Every metric of a judge's verdicts against the human labels (unscored verdicts apart)."""
    scored = [(e, v) for e, v in zip(examples, verdicts) if v.supported is not None]
    labels = [e.supported for e, _ in scored]
    predicted = [bool(v.supported) for _, v in scored]
    scores = [float(v.score) for _, v in scored]
    overall = scores_for(labels, predicted)
    auc = roc_auc(scores, labels)
    overall["auc"] = None if auc is None else {"value": auc[0], "ci_low": auc[1], "ci_high": auc[2], "n": len(scores)}
    categories = []
    for name in sorted({e.category for e, _ in scored if e.category is not None}):
        idx = [i for i, (e, _) in enumerate(scored) if e.category == name]
        row = scores_for([labels[i] for i in idx], [predicted[i] for i in idx])
        cat_auc = roc_auc([scores[i] for i in idx], [labels[i] for i in idx])
        row["auc"] = None if cat_auc is None else {"value": cat_auc[0], "ci_low": cat_auc[1], "ci_high": cat_auc[2], "n": len(idx)}
        categories.append({"category": name, **row})
    sweep = []
    for t in sweep_thresholds(scores):
        row = scores_for(labels, [s >= t for s in scores])
        sweep.append({"threshold": t, **row})
    return {
        "n": len(examples),
        "unscored": len(examples) - len(scored),
        "overall": overall,
        "categories": categories,
        "sweep": sweep,
    }


# --- judges --------------------------------------------------------------------------------------


def make_judge(args: argparse.Namespace, overrides: dict[str, Any] | None = None) -> Any:
    """The judge named on the command line, with optional setting overrides (for --tune)."""
    overrides = overrides or {}
    if args.judge == "lexical":
        from ..judges.lexical import LexicalJudge

        kwargs: dict[str, Any] = {"calibration": args.calibration} if getattr(args, "calibration", None) else {}
        if args.coverage is not None:
            kwargs["coverage"] = args.coverage
        kwargs.update(overrides)
        return LexicalJudge(**kwargs)
    if not args.nli_model:
        raise DataError("--judge nli needs --nli-model (a local folder or a model id)")
    from ..judges.nli import NLIJudge, NLIModelError

    kwargs = {"device": args.nli_device, "batch_size": args.nli_batch_size, "max_length": args.nli_max_length,
              "dtype": getattr(args, "nli_dtype", None) or "auto", "endpoint": getattr(args, "nli_endpoint", None)}
    if getattr(args, "calibration", None):  # a calibration of the nli judge: its p(entailment) threshold
        kwargs["threshold"] = load_calibration(args.calibration, judge="nli").threshold
    kwargs.update(overrides)
    try:
        return NLIJudge(args.nli_model, **kwargs)
    except NLIModelError as exc:
        raise DataError(str(exc)) from None


def pairs_of(examples: Sequence[Example]) -> list[tuple[str, list[str]]]:
    """(claim, premise) to judge for each example: a fragment ("In 2011.", no verb) that follows a
    sentence of its answer is judged together with it, as the groundedness tier judges answers."""
    from ..judges.lexical.claims import join_fragments

    return [(e.claim, list(e.premise)) if e.previous is None
            else join_fragments([(e.previous, e.premise), (e.claim, e.premise)])[0][1] for e in examples]


def run_judge(judge: Any, examples: Sequence[Example]) -> list[Any]:
    return list(judge.judge_many(pairs_of(examples)))


def parse_tune(spec: str) -> tuple[str, list[float]]:
    name, sep, values = spec.partition("=")
    try:
        parsed = [float(v) for v in values.split(",") if v.strip()]
    except ValueError:
        parsed = []
    if not sep or not name.strip() or not parsed:
        raise DataError(f"--tune expects NAME=V1,V2,..., e.g. coverage=0.4,0.5,0.6; got {spec!r}")
    return name.strip(), parsed


def tune(args: argparse.Namespace, examples: Sequence[Example], name: str, values: Sequence[float]) -> list[dict[str, Any]]:
    """Everything for each value of one judge setting, with the balanced-accuracy difference from
    the judge as configured on the command line (paired bootstrap)."""
    labels = [e.supported for e in examples]
    base = [v.supported for v in run_judge(make_judge(args), examples)]
    rows = []
    for value in values:
        try:
            judge = make_judge(args, {name: value})
        except (TypeError, ValueError) as exc:
            raise DataError(f"--tune {name}={value}: {exc}") from None
        verdicts = run_judge(judge, examples)
        result = evaluate(examples, verdicts)
        difference = paired_ba_difference(labels, [v.supported for v in verdicts], base)
        rows.append({"setting": name, "value": value, **result["overall"], "ba_difference": difference})
    return rows


def best_setting(rows: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """The row with the highest balanced accuracy (the first one on ties)."""
    scored = [r for r in rows if r["balanced_accuracy"] is not None]
    return max(scored, key=lambda r: r["balanced_accuracy"]["value"]) if scored else None


# --- output --------------------------------------------------------------------------------------


def _ci(d: dict[str, Any] | None) -> str:
    if d is None or d.get("value") is None:
        return "-"
    return f"{d['value']:.3f} [{d['ci_low']:.3f}, {d['ci_high']:.3f}]"


def _rate(d: dict[str, Any]) -> str:
    return f"{d['k']}/{d['n']} {_ci(d)}" if d["n"] else "0/0 -"


def _kn(d: dict[str, Any]) -> tuple[str, str]:
    return f"{d['k']}/{d['n']}", _ci(d)


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    return ["  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip() for r in [header, *rows]]


def format_result(result: dict[str, Any], title: str) -> list[str]:
    """The result as text lines: overall metrics, categories, the threshold sweep."""
    o = result["overall"]
    lines = [title, f"{result['n']} examples ({o['supported']} supported, {o['unsupported']} unsupported by the human labels), {result['unscored']} unscored", ""]
    lines += _table(("metric", "k/n", "value [95% CI]"), [
        ("balanced accuracy", f"n={o['n']}", _ci(o["balanced_accuracy"])),
        ("precision, unsupported class", *_kn(o["precision_unsupported"])),
        ("recall, unsupported class", *_kn(o["recall_unsupported"])),
        ("recall, supported class", *_kn(o["recall_supported"])),
        ("accuracy", *_kn(o["accuracy"])),
        ("ROC AUC of the score", f"n={o['n']}", _ci(o["auc"])),
    ])
    if result["categories"]:
        lines += ["", "per category:"]
        lines += _table(
            ("category", "n", "sup/unsup", "balanced acc.", "recall unsupported", "recall supported", "AUC"),
            [(c["category"], str(c["n"]), f"{c['supported']}/{c['unsupported']}", _ci(c["balanced_accuracy"]),
              _rate(c["recall_unsupported"]), _rate(c["recall_supported"]), _ci(c["auc"])) for c in result["categories"]],
        )
    lines += ["", "threshold sweep on the score alone (predicted supported iff score >= t; the judge's other rules ignored):"]
    lines += _table(
        ("t", "balanced acc.", "precision unsupported", "recall unsupported", "recall supported"),
        [(f"{s['threshold']:g}", _ci(s["balanced_accuracy"]), _rate(s["precision_unsupported"]),
          _rate(s["recall_unsupported"]), _rate(s["recall_supported"])) for s in result["sweep"]],
    )
    return lines


def _signed(d: dict[str, Any] | None) -> str:
    if d is None:
        return "-"
    return f"{d['value']:+.3f} [{d['ci_low']:+.3f}, {d['ci_high']:+.3f}]"


def format_tune(rows: Sequence[dict[str, Any]], baseline: str) -> list[str]:
    lines = ["", "tuning (the judge re-run with each value; choose on development data only):"]
    lines += _table(
        ("setting", "balanced acc.", f"vs {baseline} (paired bootstrap)", "precision unsupported", "recall unsupported", "recall supported"),
        [(f"{r['setting']}={r['value']:g}", _ci(r["balanced_accuracy"]), _signed(r["ba_difference"]),
          _rate(r["precision_unsupported"]), _rate(r["recall_unsupported"]), _rate(r["recall_supported"])) for r in rows],
    )
    best = best_setting(rows)
    if best is not None:
        lines.append(f"best balanced accuracy: {best['setting']}={best['value']:g} ({_ci(best['balanced_accuracy'])})")
    return lines
