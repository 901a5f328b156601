"""Judge tiers. Each tier lives in its own module, imported only when its items run.

Pure: nothing here imports pytest, the session, the options or the run. The tier protocol (what a
tier module defines, ``TierSettings``, ``TierResult``, ``Tier``) is in the base layer
(pytest_sprout.core.tier); its names are re-exported here.
"""

from __future__ import annotations

import importlib
from typing import Any

from ..core.model import Answer, Sentence, Verdict
from ..core.tier import TIER_SPECS, Tier, TierResult, TierSettings

__all__ = ["Tier", "TierResult", "TierSettings", "clip", "describe_sentences", "sentence_reasons",
           "sentence_row", "threshold_reasons", "tier_module"]


def tier_module(name: str) -> Any:
    """The module of a tier registered in core/tier.py's TIER_SPECS, imported now."""
    return importlib.import_module(TIER_SPECS[name].module)


def sentence_row(sentence: Sentence, verdict: Verdict, answer: Answer) -> dict[str, Any]:
    """A per-sentence verdict as a JSON-able row for the report."""
    row = sentence.to_json()
    row.update(verdict.to_json())
    _, missing = answer.cited(sentence)
    if missing:
        row["missing_citations"] = missing
    return row


def clip(text: str | None, limit: int = 160) -> str:
    if not text:
        return ""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def describe_sentences(rows: list[dict[str, Any]], answer: Answer, limit: int = 8) -> list[str]:
    """Failure lines for the unsupported sentences: text, citation, rule, evidence."""
    lines: list[str] = []
    bad = [(i, r) for i, r in enumerate(rows) if r.get("supported") is False]
    index = {p.id: i + 1 for i, p in enumerate(answer.passages)}
    for i, row in bad[:limit]:
        cites = ", ".join(f"[{index[c]}] {c}" if c in index else f"{c} (no such passage)" for c in row["citations"])
        lines.append(f"  x sentence {i + 1}: {clip(row['text'], 200)!r}")
        if not cites and row.get("judged_against") == "retrieved":
            cites = f"nothing ([k] markers); judged against the {len(answer.passages)} retrieved passages"
        lines.append(f"      cites: {cites or 'nothing'}")
        lines.append(f"      why: {row['reason']}" + (f" (score {row['score']:.2f})" if row.get("score") is not None else ""))
        if row.get("evidence"):
            lines.append(f"      best evidence: {clip(row['evidence'])!r}")
    if len(bad) > limit:
        lines.append(f"  ... and {len(bad) - limit} more unsupported sentences (see --sprout-report)")
    return lines


def sentence_reasons(rows: list[dict[str, Any]], metric: str) -> list[dict[str, Any]]:
    """One reason per unsupported sentence row: its number, text, citations, rule and evidence."""
    out = []
    for i, row in enumerate(rows):
        if row.get("supported") is not False:
            continue
        rule = row.get("rule")
        why = f"sentence {i + 1} unsupported" + (f" ({rule})" if rule else "") + f": {row.get('reason') or ''}".rstrip(": ")
        out.append({
            "metric": metric, "why": why, "sentence": i + 1, "text": row.get("text"),
            "citations": row.get("citations", []), "rule": rule, "score": row.get("score"),
            "evidence": row.get("evidence"),
        })
    return out


def threshold_reasons(scores: dict[str, Any], thresholds: dict[str, float]) -> list[dict[str, Any]]:
    """One reason per continuous score below its pass threshold."""
    return [
        {"metric": name, "why": f"{name} {value:.2f} is below its threshold {thresholds[name]:.2f}",
         "score": value, "threshold": thresholds[name]}
        for name, value in scores.items()
        if value is not None and name in thresholds and value < thresholds[name]
    ]
