"""Calibration on the command line: fit a judge to your labels.

    python -m pytest_sprout.calibrate --judge lexical --data labels.jsonl --report sprout.json --out sprout.calibration.json
    python -m pytest_sprout.calibrate --judge lexical --data my_labelled.jsonl
    python -m pytest_sprout.calibrate --judge nli --nli-model PATH --data wice/claim_dev.jsonl

``--data``: the formats ``metaeval`` reads (generic JSONL ``{id, premise, claim, label}``, WiCE,
LFQA-Verification), or a run's ``--sprout-labels`` file with ``--report`` (that run's
``--sprout-report``): each labelled sentence is judged again from the answer and passages the
report holds. The fit and the rule that keeps it or the shipped calibration are in
checks/calibrate.py; this prints both judges' cross-validated numbers and which one was kept and
why, and writes the calibration file (``--out``) whichever was kept.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, Callable, Sequence

from ..checks import calibrate as fit
from ..checks.metaeval import FORMATS, DataError, load, make_judge, pairs_of, run_judge
from ..core.calibration import CalibrationError, write
from ..core.identity import file_sha256
from ..core.paths import options_clash


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m pytest_sprout.calibrate",
        description="Fit a grounding judge's decision threshold to your labels, by cross-validation; keep the shipped "
                    "one unless the fit clearly beats it.")
    parser.add_argument("--judge", choices=("lexical", "nli"), required=True)
    parser.add_argument("--data", required=True, help="labelled claims: a JSONL file ({id, premise, claim, label}), a "
                        "WiCE claim file, LFQA-Verification annotations, or a --sprout-labels file (with --report)")
    parser.add_argument("--report", help="the --sprout-report JSON of the run a --sprout-labels file labels")
    parser.add_argument("--format", choices=(*FORMATS, "labels"), help="default: detected from the file")
    parser.add_argument("--premise", choices=("gold", "article"), default="gold", help="WiCE: gold sentences (default) or the whole article")
    parser.add_argument("--out", help="write the calibration here (e.g. sprout.calibration.json at your rootdir)")
    parser.add_argument("--coverage", type=float, help="lexical judge: coverage threshold (default: the judge's)")
    parser.add_argument("--nli-model", help="nli judge: a local model folder or a model id")
    parser.add_argument("--nli-device", default="auto")
    parser.add_argument("--nli-batch-size", type=int, default=16)
    parser.add_argument("--nli-max-length", type=int, default=400)
    parser.add_argument("--folds", type=int, default=fit.FOLDS)
    parser.add_argument("--repeats", type=int, default=fit.REPEATS)
    parser.add_argument("--seed", type=int, default=fit.SEED)
    return parser


def is_labels_file(path: Path) -> bool:
    """A --sprout-labels file: its first record has case_id and supported."""
    import json

    if not path.is_file() or path.suffix == ".json":
        return False
    with path.open(encoding="utf-8", errors="replace") as handle:
        for line in handle:
            if line.strip():
                try:
                    record = json.loads(line)
                except ValueError:
                    return False
                return isinstance(record, dict) and "case_id" in record and "supported" in record
    return False


def labelled(args: argparse.Namespace) -> fit.Labelled:
    """The labelled (claim, sources) pairs of --data, as the judge is to judge them."""
    path = Path(args.data)
    if args.format == "labels" or (args.format is None and is_labels_file(path)):
        return from_labels_and_report(path, args.report)
    if args.report:
        raise DataError(f"--report is for a --sprout-labels file; {path} is labelled data of its own")
    examples = load(path, args.format, args.premise)
    info = {"source": path.name, "sha256": file_sha256(path) if path.is_file() else None,
            "format": args.format or ("lfqa" if path.is_dir() or path.suffix == ".json" else "jsonl/wice"),
            "dataset": None}
    return fit.Labelled(pairs_of(examples), [e.supported for e in examples], info)


def from_labels_and_report(path: Path, report: str | None) -> fit.Labelled:
    import json

    from ..checks.labels import LabelError, load_labels

    if not report:
        raise DataError(f"{path}: a --sprout-labels file; give --report with the --sprout-report JSON of the run it labels")
    try:
        labels = load_labels(path, str(path))
    except LabelError as exc:
        raise DataError(str(exc)) from None
    try:
        data = json.loads(Path(report).read_text(encoding="utf-8"))
    except OSError as exc:
        raise DataError(f"{report}: cannot read: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise DataError(f"{report}: not a --sprout-report JSON: {str(exc)[:120]}") from None
    if not isinstance(data, dict) or not isinstance(data.get("items"), list):
        raise DataError(f"{report}: field 'items' is missing: not a --sprout-report JSON")
    found = fit.from_run(labels, data["items"], dataset=data.get("dataset_hash"))
    run = ((data.get("judging") or {}).get("thresholds") or {}).get("groundedness.coverage")
    found.coverage = float(run) if isinstance(run, (int, float)) and not isinstance(run, bool) else None
    if not found.pairs:
        raise DataError(f"{path}: none of its {len(labels.given)} labels is of a sentence the groundedness tier judged "
                        f"in {report}")
    return found


def points_of(args: argparse.Namespace, data: fit.Labelled) -> tuple[Any, list[fit.Point], int]:
    judge = make_judge(args)
    if args.judge == "lexical":
        # Without --coverage, the coverage the labelled run judged with (its report's), not the default.
        each = [data.coverage] * len(data.pairs) if args.coverage is None and data.coverage is not None else None
        points, unscored = fit.lexical_points(judge, data.pairs, data.labels, each)
        return judge, points, unscored
    from ..checks.metaeval import Example

    examples = [Example(str(i), claim, tuple(str(getattr(s, "text", s)) for s in sources), label)
                for i, ((claim, sources), label) in enumerate(zip(data.pairs, data.labels))]
    verdicts = run_judge(judge, examples)
    points, unscored = fit.nli_points(verdicts, data.labels)
    return judge, points, unscored


def main(argv: Sequence[str] | None = None, out: Callable[[str], None] = print) -> int:
    args = build_parser().parse_args(argv)
    try:
        problem = options_clash([("--out", args.out)], [("--data", args.data), ("--report", args.report)])
        if problem:  # checked before any work: never written over what it reads
            raise DataError(problem)
        if args.folds < 2 or args.repeats < 1:
            raise DataError("--folds must be at least 2 and --repeats at least 1")
        data = labelled(args)
        try:
            judge, points, unscored = points_of(args, data)
        except (TypeError, ValueError) as exc:
            raise DataError(str(exc)) from None
        default = float(judge.threshold)
        decision = fit.decide(points, default, folds=args.folds, repeats=args.repeats, seed=args.seed)
        settings = judge.settings() if hasattr(judge, "settings") else {}
        rules_version = settings.get("rules_version") if args.judge == "lexical" else None
        shipped = settings.get("calibration") if args.judge == "lexical" else settings.get("model")
        calibration = fit.make_calibration(decision, args.judge, data.info, rules_version,
                                           str(shipped) if shipped is not None else None)
    except (DataError, CalibrationError) as exc:
        print(f"calibrate: error: {exc}", file=sys.stderr)
        return 2
    what = (f"lexical judge (rules_version {rules_version}, shipped calibration {shipped}, threshold {default:.3f})"
            if args.judge == "lexical" else f"nli judge ({shipped}, p(entailment) threshold {default:.3f})")
    lines = [f"calibrate: {what}", f"labels: {args.data}" + (f" with {args.report}" if args.report else "")
             + (f"; {unscored} unscored by the judge (no claim), left out" if unscored else "")
             + (f"; {data.unmatched} labels of sentences the report does not hold, left out" if data.unmatched else "")]
    lines += fit.format_decision(decision)
    if args.out:
        try:
            write(calibration, Path(args.out))
        except OSError as exc:
            print(f"calibrate: error: {args.out}: cannot write: {exc.strerror or exc}", file=sys.stderr)
            return 2
        lines.append(f"wrote {args.out} (id {calibration.id}, {calibration.kept} threshold {calibration.threshold:.3f}); "
                     f"use it with --sprout-calibration={args.out}, or name it sprout.calibration.json at the rootdir")
    else:
        lines.append("not written: give --out PATH to write the calibration")
    for line in lines:
        out(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
