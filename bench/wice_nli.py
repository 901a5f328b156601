"""Agreement of the NLI judge with WiCE's human labels: gold-sentence premises against
whole-article premises, with the chunking window on and off.

    .venv/bin/python bench/wice_nli.py --nli-model MODEL [--data ../shared/benchmarks/wice/claim_test.jsonl]
        [--limit N] [--device auto] [--batch-size 16] [--max-length 400] [--json PATH]

Four runs of the same judge on the same claims:

  gold / chunk      each claim against its gold supporting sentences (the first non-empty gold
                    set; claims with none against their oracle chunks), window on;
  gold / off        the same premises, ALCE's whole-premise truncation;
  article / chunk   each claim against its whole cited article (about 1,400 words), window on;
  article / off     the same, truncated to the model's limit: the long-premise failure of ALCE.

Premises and labels come from pytest_sprout.checks.metaeval (supported = 1; partially and not supported
= 0), so the numbers line up with the lexical judge's in docs/BENCHMARKS.md. Per run it prints
n, balanced accuracy with its 95% interval, recall on each class, ROC AUC of p(entailment), and
how many pairs were short-circuited, chunked and truncated. --limit N takes the first N claims
(for a quick check of the plumbing with a tiny model; its numbers mean nothing).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pytest_sprout.checks import metaeval  # noqa: E402
from pytest_sprout.judges.nli import NLIJudge, NLIModelError  # noqa: E402

RUNS = (("gold", "chunk"), ("gold", "off"), ("article", "chunk"), ("article", "off"))


def run(args: argparse.Namespace, premise: str, window: str) -> dict[str, Any]:
    examples = metaeval.read_wice(Path(args.data), premise)
    if args.limit:
        examples = examples[: args.limit]
    judge = NLIJudge(args.nli_model, device=args.device, batch_size=args.batch_size,
                     max_length=args.max_length, window=window)
    result = metaeval.evaluate(examples, metaeval.run_judge(judge, examples))
    counts = {k: judge.counts[k] for k in ("short_circuited", "chunked", "truncated", "model_inputs")}
    return {"premise": premise, "window": window, "settings": judge.settings(), "counts": counts, **result}


def interval(value: dict[str, Any] | None) -> str:
    if not value:
        return "n/a"
    return f"{value['value']:.3f} [{value['ci_low']:.3f}, {value['ci_high']:.3f}]"


def rate(value: dict[str, Any]) -> str:
    return f"{value['k']}/{value['n']} {value['value']:.3f}" if value["n"] else "n/a"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nli-model", required=True, help="a local model folder or a Hugging Face id")
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "benchmarks" / "wice" / "claim_test.jsonl"))
    parser.add_argument("--limit", type=int, default=0, help="only the first N claims")
    parser.add_argument("--device", default="auto")
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--max-length", type=int, default=400)
    parser.add_argument("--json", help="also write every result as JSON to this path")
    args = parser.parse_args(argv)
    results = []
    try:
        for premise, window in RUNS:
            results.append(run(args, premise, window))
    except (NLIModelError, metaeval.DataError) as exc:
        print(f"wice_nli: error: {exc}", file=sys.stderr)
        return 2
    print(f"model: {args.nli_model}; data: {args.data}" + (f" (first {args.limit} claims)" if args.limit else ""))
    print("| premise | window | n (sup/unsup) | BA [95% CI] | recall unsup. | recall sup. | ROC AUC [95% CI] | short-circuited | chunked | truncated |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in results:
        o, c = r["overall"], r["counts"]
        print(f"| {r['premise']} | {r['window']} | {o['n']} ({o['supported']}/{o['unsupported']}) | "
              f"{interval(o['balanced_accuracy'])} | {rate(o['recall_unsupported'])} | {rate(o['recall_supported'])} | "
              f"{interval(o['auc'])} | {c['short_circuited']} | {c['chunked']} | {c['truncated']} |")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
