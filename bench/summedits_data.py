"""SummEdits (Laban et al., 2023) as claims for the lexical judge's benches: every sentence of a
summary, judged against the summary's document; a summary is consistent when every sentence is
supported (the data's README). One JSON list per domain, ``summedits_<domain>.json``.

    from summedits_data import judged_claims, load_summaries, sentence_pairs
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from pytest_sprout.core.model import Verdict, split_sentences
from pytest_sprout.judges.lexical import LexicalJudge
from pytest_sprout.judges.lexical.claims import join_fragments


@dataclass(frozen=True)
class Summary:
    domain: str
    id: str
    doc: str
    sentences: tuple[str, ...]
    consistent: bool
    split: str


def load_summaries(path: str | Path) -> list[Summary]:
    """Every summary of a SummEdits folder (or one domain file), in file order."""
    where = Path(path)
    files = sorted(where.glob("summedits_*.json")) if where.is_dir() else [where]
    if not files:
        raise SystemExit(f"{where}: no summedits_*.json files")
    out = []
    for file in files:
        domain = file.stem.removeprefix("summedits_")
        for row in json.loads(file.read_text(encoding="utf-8")):
            sentences = tuple(split_sentences(row["summary"])) or (row["summary"],)
            out.append(Summary(domain, str(row["id"]), row["doc"], sentences, str(row["label"]) == "1",
                               str(row.get("split", ""))))
    return out


def is_summedits(path: str | Path) -> bool:
    where = Path(path)
    return where.name.startswith("summedits_") or (where.is_dir() and any(where.glob("summedits_*.json")))


def sentence_pairs(summaries: list[Summary]) -> list[tuple[str, list[str]]]:
    """(summary sentence, [its document]) for every sentence of every summary."""
    return [(s, [summary.doc]) for summary in summaries for s in summary.sentences]


def judged_claims(judge: LexicalJudge, summary: Summary) -> list[tuple[tuple[str, list[str]], Verdict]]:
    """The summary as one answer to the lexical judge: each claim it judged (a fragment joined to
    the sentence before it) against the document, with its verdict; sentences with no claim are
    left out. The summary is consistent by the judge when every verdict is supported."""
    pairs = [(sentence, [summary.doc]) for sentence in summary.sentences]
    judged, _ = join_fragments(pairs)
    return [(pair, v) for pair, v in zip(judged, judge.judge_answer(pairs)) if v.supported is not None]
