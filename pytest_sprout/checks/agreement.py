"""Agreement between tiers that judged the same sentences: percent agreement, Cohen's kappa and
every disagreement, computed on the controller from the item rows of a run. Pure functions."""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from ..core.row import RowItems, as_rows
from ..core.stats import Kappa, cohen_kappa, wilson_interval


@dataclass
class PairAgreement:
    """How two tiers' per-sentence verdicts compare over the sentences both of them scored."""

    tiers: tuple[str, str]
    n: int  # sentences both tiers scored (True/False)
    agree: int
    ci_low: float
    ci_high: float
    kappa: Kappa
    # counts: both supported, only the first tier, only the second, neither
    table: dict[str, int]
    unscored: int = 0  # sentences that at least one of the two left unscored
    disagreements: list[dict[str, Any]] = field(default_factory=list)

    @property
    def rate(self) -> float | None:
        return self.agree / self.n if self.n else None

    def to_json(self) -> dict[str, Any]:
        return {
            "tiers": list(self.tiers),
            "n": self.n,
            "agree": self.agree,
            "rate": self.rate,
            "ci_low": self.ci_low,
            "ci_high": self.ci_high,
            "kappa": self.kappa.to_json(),
            "table": dict(self.table),
            "unscored": self.unscored,
            "disagreements": self.disagreements,
        }


def _tier_order(tier: str) -> tuple[int, str]:
    from ..core.model import TIERS

    return (TIERS.index(tier) if tier in TIERS else len(TIERS), tier)


def _by_case(items: RowItems) -> dict[str, dict[str, list[dict[str, Any]]]]:
    """case id -> tier -> that tier's sentence rows (only items that judged sentences)."""
    cases: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for row in as_rows(items):
        sentences = row.sentences or []
        if sentences and all("supported" in s for s in sentences):
            cases.setdefault(row.case_id, {})[row.tier] = sentences
    return cases


def _align(first: list[dict[str, Any]], second: list[dict[str, Any]]) -> list[tuple[int, dict[str, Any], dict[str, Any]]]:
    """Pairs of rows about the same sentence: by position when the texts line up, else by text."""
    if [s["text"] for s in first] == [s["text"] for s in second]:
        return [(i, a, b) for i, (a, b) in enumerate(zip(first, second))]
    unused = list(range(len(second)))
    pairs = []
    for i, a in enumerate(first):
        for j in unused:
            if second[j]["text"] == a["text"]:
                pairs.append((i, a, second[j]))
                unused.remove(j)
                break
    return pairs


def compare(items: RowItems, confidence: float = 0.95) -> list[PairAgreement]:
    """Every pair of tiers that judged at least one common sentence, in tier order."""
    cases = _by_case(items)
    tiers = sorted({t for per_tier in cases.values() for t in per_tier}, key=_tier_order)
    results = []
    for first, second in combinations(tiers, 2):
        counts = {"both_supported": 0, f"{first}_only": 0, f"{second}_only": 0, "neither": 0}
        unscored, disagreements, seen = 0, [], False
        for case_id in sorted(cases):
            per_tier = cases[case_id]
            if first not in per_tier or second not in per_tier:
                continue
            for index, a, b in _align(per_tier[first], per_tier[second]):
                seen = True
                va, vb = a.get("supported"), b.get("supported")
                if va is None or vb is None:
                    unscored += 1
                    continue
                key = ("both_supported" if va else f"{second}_only") if vb else (f"{first}_only" if va else "neither")
                counts[key] += 1
                if va != vb:
                    disagreements.append({
                        "case_id": case_id,
                        "sentence_index": index,
                        "sentence": a["text"],
                        "citations": list(a.get("citations", [])),
                        "verdicts": {first: va, second: vb},
                        "scores": {first: a.get("score"), second: b.get("score")},
                        "evidence": {first: a.get("evidence"), second: b.get("evidence")},
                        "reasons": {first: a.get("reason"), second: b.get("reason")},
                    })
        if not seen:
            continue
        table = [
            [counts["both_supported"], counts[f"{first}_only"]],
            [counts[f"{second}_only"], counts["neither"]],
        ]  # rows: the first tier says supported / unsupported; columns: the second tier
        n = sum(counts.values())
        agree = counts["both_supported"] + counts["neither"]
        low, high = wilson_interval(agree, n, confidence)
        results.append(PairAgreement(
            (first, second), n, agree, low, high, cohen_kappa(table, confidence), counts, unscored, disagreements,
        ))
    return results


def agreement_report(items: RowItems) -> dict[str, Any]:
    """The report's "agreement" section, or nothing when fewer than two tiers judged sentences."""
    pairs = compare(items)
    return {"agreement": [p.to_json() for p in pairs]} if pairs else {}


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def summary_lines(items: RowItems) -> list[str]:
    """One line per pair of tiers: agreement with its interval, kappa with its interval."""
    pairs = compare(items)
    if not pairs:
        return []
    lines = ["agreement between tiers on the same sentences (95% CI):"]
    for p in pairs:
        a, b = p.tiers
        k = p.kappa
        if k.kappa is None:
            kappa = "kappa undefined (both tiers gave every sentence the same verdict)" if p.n else "kappa -"
        elif k.ci_low is None:
            kappa = f"Cohen's kappa {k.kappa:.2f} (no interval: one tier gave every sentence the same verdict)"
        else:
            kappa = f"Cohen's kappa {k.kappa:.2f} [{k.ci_low:.2f}, {k.ci_high:.2f}]"
        line = (
            f"  {a} vs {b}: {p.agree}/{p.n} sentences agree, {_pct(p.rate)} "
            f"[{_pct(p.ci_low)}, {_pct(p.ci_high)}]; {kappa}"
        )
        if p.disagreements:
            line += (
                f"; {len(p.disagreements)} disagreements ({p.table[f'{a}_only']} only {a} supports, "
                f"{p.table[f'{b}_only']} only {b}), listed in --sprout-report"
            )
        if p.unscored:
            line += f"; {p.unscored} unscored by one of them"
        lines.append(line)
    return lines
