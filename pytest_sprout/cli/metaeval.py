"""Meta-evaluation on the command line: how well a judge agrees with human grounding labels.

    python -m pytest_sprout.metaeval --judge lexical --data ../shared/benchmarks/wice/claim_test.jsonl
    python -m pytest_sprout.metaeval --judge nli --nli-model PATH --data FILE.jsonl
    python -m pytest_sprout.metaeval --judge nli --nli-model ID --nli-endpoint URL --data FILE.jsonl

Reads a generic JSONL (``premise``, ``claim``, ``label``, optional ``category``) or the WiCE and
LFQA-Verification formats, runs the judge on every (claim, premise), and prints, each with its n
and a 95% interval: balanced accuracy, precision and recall on the *unsupported* class (the
failures a judge exists to catch), recall on the supported class, accuracy, ROC AUC of the judge's
score, one row per category, and a sweep of thresholds on the score. ``--tune NAME=V1,V2`` re-runs
the judge with each setting (for choosing a default on development data only).

Intervals: Wilson for proportions; balanced accuracy with the MOVER method (Zou and Donner 2008)
over the two Wilson intervals; AUC with the Hanley and McNeil (1982) standard error. The work is
done in checks/metaeval.py (readers, evaluation, tuning, output) and stats.py (the statistics);
this module only reads the command line.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Callable, Sequence

from ..checks.metaeval import (
    FORMATS, DataError, detect_format, evaluate, format_result, format_tune, load, make_judge, parse_tune, run_judge,
    tune,
)
from ..core.paths import options_clash
from ..reports.safe_write import write_json


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m pytest_sprout.metaeval",
        description="Score a grounding judge against human labels (WiCE, LFQA-Verification or generic JSONL).",
    )
    parser.add_argument("--judge", choices=("lexical", "nli"), required=True)
    parser.add_argument("--data", required=True, help="a JSONL file, a WiCE claim file, or an LFQA-Verification annotations file or folder")
    parser.add_argument("--format", choices=FORMATS, help="default: detected from the file")
    parser.add_argument("--premise", choices=("gold", "article"), default="gold", help="WiCE: gold sentences (default) or the whole article")
    parser.add_argument("--coverage", type=float, help="lexical judge: coverage threshold (default: the judge's)")
    parser.add_argument("--calibration", metavar="PATH", help="judge with a calibration fitted on your labels "
                        "(python -m pytest_sprout.calibrate --out PATH)")
    parser.add_argument("--nli-model", help="nli judge: a local model folder or a model id")
    parser.add_argument("--nli-device", default="auto")
    parser.add_argument("--nli-batch-size", type=int, default=16)
    parser.add_argument("--nli-max-length", type=int, default=400)
    parser.add_argument("--nli-dtype", default="auto", metavar="auto|float32|bfloat16|float16",
                        help="precision of the NLI model's weights (auto: bfloat16 on a GPU that supports it, float32 on CPU)")
    parser.add_argument("--nli-endpoint", metavar="URL", help="a text-embeddings-inference server that serves --nli-model: "
                        "score there (/predict) instead of loading the weights; key from env SPROUT_NLI_API_KEY")
    parser.add_argument("--tune", metavar="NAME=V1,V2,...", help="re-run the judge with each value of one setting")
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    return parser


def main(argv: Sequence[str] | None = None, out: Callable[[str], None] = print) -> int:
    args = build_parser().parse_args(argv)
    try:
        problem = options_clash([("--json", args.json)], [("--data", args.data), ("--calibration", args.calibration)])
        if problem:  # checked before any work: never written over what it reads
            raise DataError(problem)
        check_nli_options(args)
        examples = load(args.data, args.format, args.premise)
        try:
            judge = make_judge(args)
        except (TypeError, ValueError) as exc:
            raise DataError(str(exc)) from None
        result = evaluate(examples, run_judge(judge, examples))
        settings = judge.settings() if hasattr(judge, "settings") else {}
        fmt = args.format or detect_format(Path(args.data))
        lines = format_result(result, f"judge: {args.judge} {json.dumps(settings, sort_keys=True)}\ndata: {args.data} ({fmt})")
        tuned = None
        if args.tune:
            name, values = parse_tune(args.tune)
            tuned = tune(args, examples, name, values)
            lines += format_tune(tuned, "the judge as run above")
    except (DataError, _model_error()) as exc:  # evaluated only when something is raised
        print(f"metaeval: error: {exc}", file=sys.stderr)
        return 2
    for line in lines:
        out(line)
    if args.json:
        write_json(args.json, {"judge": args.judge, "settings": settings, "data": args.data, "format": fmt, **result,
                               **({"tune": tuned} if tuned is not None else {})})
    return 0


def check_nli_options(args: argparse.Namespace) -> None:
    """--nli-dtype and --nli-endpoint: the plugin's checks and messages (config/options.py), before
    any work. The endpoint's key comes from SPROUT_NLI_API_KEY (judges/nli_endpoint.py), never shown."""
    from ..core.errors import SettingsError
    from ..core.option_values import check_url
    from ..judges.nli import DTYPES

    if args.nli_dtype not in DTYPES:
        raise DataError(f"--nli-dtype must be one of {', '.join(DTYPES)}, got {args.nli_dtype!r}")
    if args.nli_endpoint is not None:
        try:
            check_url(args.nli_endpoint, "--nli-endpoint")
        except SettingsError as exc:
            raise DataError(str(exc)) from None


def _model_error() -> type[Exception]:
    """A model that fails at its first use (weights that do not load, an --nli-endpoint that refuses
    or does not answer): an error line, not a traceback."""
    from ..judges.nli_model import NLIModelError

    return NLIModelError


if __name__ == "__main__":
    sys.exit(main())
