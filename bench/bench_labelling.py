"""The labelling mode's share of the HTML page: bytes and render time, against the same page
without it, in one process.

    python bench/bench_labelling.py [--items 5000] [--sentences 3] [--passages 5] [--chars 1000]

A synthetic report at the page's limit (5,000 items; every answer of 3 sentences citing one of 5
retrieved passages of about 1,000 characters; each passage shared by the 3 sentences of its answer
and by the answers of 10 cases). Prints the page with and without the labelling section, the
section's bytes per sentence, and what the section would weigh with each card carrying its own
copy of its passages (the baseline the stored-once data block replaces).
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from pytest_sprout.reports.html import labelling, page


def synthetic(items: int, sentences: int, passages: int, chars: int) -> dict[str, Any]:
    words = "soil light water roots leaves pot drainage humidity winter summer fertiliser repot".split()
    rows = []
    for n in range(items):
        topic = n // 10  # ten cases share their passages (the same documents retrieved)
        texts = [" ".join(f"{words[(topic + k + i) % len(words)]}{i % 7}" for i in range(chars // 7))[:chars]
                 for k in range(passages)]
        sents = [{"text": f"The {words[(topic + j) % len(words)]} of case {n} is fine in sentence {j}.",
                  "citations": [str(j % passages + 1)], "supported": j % 4 != 3, "score": 0.6, "rule": "x",
                  "reason": "coverage", "evidence": texts[j % passages][:120]} for j in range(sentences)]
        rows.append({"nodeid": f"suites/s.yaml::c{n}[groundedness]", "case_id": f"c{n}", "suite": "s",
                     "tier": "groundedness", "outcome": "passed", "question": f"What about {n}?",
                     "metrics": {"grounded_sentence": [s["supported"] for s in sents]}, "sentences": sents,
                     "answer": {"text": " ".join(s["text"] for s in sents), "refused": False,
                                "passages": [{"id": str(k + 1), "text": t} for k, t in enumerate(texts)]}})
    return {"plugin": "pytest-sprout", "version": "0", "dataset_hash": "bench", "system": {}, "metrics": [],
            "items": rows}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=5000)
    parser.add_argument("--sentences", type=int, default=3)
    parser.add_argument("--passages", type=int, default=5)
    parser.add_argument("--chars", type=int, default=1000)
    args = parser.parse_args()
    report = synthetic(args.items, args.sentences, args.passages, args.chars)
    real = labelling.labelling_section
    timings = {}
    for name, section in (("without", lambda *a, **k: ""), ("with", real)):
        labelling.labelling_section = section  # type: ignore[assignment]
        start = time.process_time()
        html = page.render_html(report)
        timings[name] = (time.process_time() - start, len(html.encode("utf-8")))
    labelling.labelling_section = real  # type: ignore[assignment]
    from pytest_sprout.core.row import as_rows

    part = real(report, list(as_rows(report["items"])))
    n = args.items * args.sentences
    block = part[part.index('<script type="application/json" id="lab-passages">'):]
    inlined = len(part.encode("utf-8")) - len(block.encode("utf-8")) + n * args.chars  # each card its own passage
    out = {
        "items": args.items, "sentences": n,
        "page_mb_without": round(timings["without"][1] / 1e6, 2), "page_mb_with": round(timings["with"][1] / 1e6, 2),
        "size_ratio": round(timings["with"][1] / timings["without"][1], 2),
        "labelling_mb": round(len(part.encode("utf-8")) / 1e6, 2),
        "labelling_bytes_per_sentence": round(len(part.encode("utf-8")) / n),
        "labelling_mb_if_each_card_held_its_passage": round(inlined / 1e6, 2),
        "render_s_without": round(timings["without"][0], 2), "render_s_with": round(timings["with"][0], 2),
        "render_ratio": round(timings["with"][0] / timings["without"][0], 2),
    }
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
