"""``--sprout-compare=OLD.json``: this run against an earlier report, metric by metric and item by
item (layer 8, controller; plain Python over rows and report dicts).

- Items are paired by node id and case content hash (``identity.case_hash``; a baseline row
  without one pairs by node id when both runs hash to the same dataset). A case whose content
  changed is a new case, never a pair.
- Each metric's delta (new - old) uses a paired interval over the pairs (core/paired.py: Newcombe's
  method 10 for paired proportions, clustered by case where observations nest in items; a paired t
  for means). A metric without pairs falls back to the unpaired interval (Newcombe's for two
  independent proportions, or MOVER over the clustered intervals; Welch's t for means), over the
  baseline restricted to the items this run judged (selection.restrict_baseline).
- ``flips``: every paired item whose outcome changed, as {"nodeid", "old", "new"}.
- The header names the two systems (name and version, from each report) and how many cases were paired.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

from ..core.identity import id_list
from ..core.paired import Paired, paired_mean, paired_rate, scored
from ..core.row import Row
from ..core.stats import MetricRow, mover_difference, newcombe_interval, t_quantile, wilson_interval
from ..core.util import md_cell as _md, short_hash as _short

FLIPS_SHOWN = 20
JUDGED_OTHERWISE = "judged with DIFFERENT settings, so the changes are the judge's as much as the system's: "
INCOMPLETE = ("the baseline {baseline} is INCOMPLETE (\"complete\": false): its run stopped early or was "
              "interrupted, and the items it never ran have no verdict to compare with")  # flips listed in the terminal and the Markdown before "... and N more"


@dataclass(frozen=True)
class Delta:
    """One metric compared with the baseline: new - old, with its 95% interval."""

    tier: str
    metric: str
    kind: str
    old: str  # "k/n" or "mean (n=..)", for display
    new: str
    delta: float | None
    low: float | None
    high: float | None
    method: str  # "newcombe paired (method 10)", "paired t", "newcombe", "welch", or why there is no interval
    pairs: int | None = None  # items judged in both runs the paired interval is over (None: unpaired)

    @property
    def verdict(self) -> str:
        if self.low is None or self.high is None:
            return "no interval"
        if self.high < 0:
            return "worse"
        if self.low > 0:
            return "better"
        return "no distinguishable change"

    def to_json(self) -> dict[str, Any]:
        out = {
            "tier": self.tier, "metric": self.metric, "kind": self.kind, "old": self.old, "new": self.new,
            "delta": self.delta, "ci_low": self.low, "ci_high": self.high, "method": self.method,
            "verdict": self.verdict,
        }
        if self.pairs is not None:
            out["pairs"] = self.pairs
        return out


# --- items of the two runs --------------------------------------------------------------------


@dataclass(frozen=True)
class ItemView:
    """What a comparison reads of one item row."""

    tier: str
    outcome: str | None
    case_hash: str | None
    metrics: Mapping[str, Sequence[Any]]


def item_views(items: Iterable[Row | Mapping[str, Any]]) -> dict[str, ItemView]:
    """Node id -> ItemView, from Row objects (this run) or a report's item dicts (the baseline)."""
    out: dict[str, ItemView] = {}
    for item in items:
        data: Mapping[str, Any] = item.to_json() if isinstance(item, Row) else item
        nodeid, tier, outcome = data.get("nodeid"), data.get("tier"), data.get("outcome")
        digest, metrics = data.get("case_hash"), data.get("metrics") or {}
        if isinstance(nodeid, str):
            out[nodeid] = ItemView(str(tier), outcome if isinstance(outcome, str) else None,
                                   digest if isinstance(digest, str) else None, metrics)
    return out


def paired_ids(old: Mapping[str, ItemView], new: Mapping[str, ItemView], same_dataset: bool) -> list[str]:
    """The node ids judged in both runs on the same case content, sorted."""
    out = []
    for nodeid in sorted(set(old) & set(new)):
        a, b = old[nodeid].case_hash, new[nodeid].case_hash
        if (a == b) if (a is not None and b is not None) else same_dataset:
            out.append(nodeid)
    return out


def flips(old: Mapping[str, ItemView], new: Mapping[str, ItemView], ids: Iterable[str]) -> list[dict[str, Any]]:
    """Every paired item whose outcome changed, by node id."""
    return [{"nodeid": i, "old": old[i].outcome, "new": new[i].outcome} for i in ids if old[i].outcome != new[i].outcome]


def cases_of(ids: Iterable[str]) -> int:
    """How many cases (suite file and case id, any tier) the node ids cover."""
    return len({nodeid.rsplit("[", 1)[0] for nodeid in ids})


def metric_pairs(old: Mapping[str, ItemView], new: Mapping[str, ItemView], ids: Iterable[str],
                 tier: str, metric: str) -> list[tuple[list[Any], list[Any]]]:
    """(old values, new values) of every paired item of ``tier`` scored on ``metric`` in both runs.
    An errored item is never counted in a metric, so it pairs with nothing."""
    out = []
    for nodeid in ids:
        a, b = old[nodeid], new[nodeid]
        if a.tier != tier or "error" in (a.outcome, b.outcome):
            continue
        values_old, values_new = scored(a.metrics.get(metric) or []), scored(b.metrics.get(metric) or [])
        if values_old and values_new:
            out.append((values_old, values_new))
    return out


# --- the deltas -------------------------------------------------------------------------------


def compare_rows(baseline: Any, rows: list[MetricRow], values: Mapping[tuple[str, str], list[Any]],
                 paired: Mapping[tuple[str, str], Paired] | None = None) -> list[Delta]:
    """One Delta per metric of this run: paired where ``paired`` has the metric, else unpaired
    against the baseline's metric rows (``baseline.rows``, ``baseline.values``)."""
    deltas = []
    for row in rows:
        old = baseline.rows.get((row.tier, row.metric))
        pair = (paired or {}).get((row.tier, row.metric))
        if old is None and pair is None:
            deltas.append(Delta(row.tier, row.metric, row.kind, "-", _show(row.to_json()), None, None, None, "new metric"))
        elif old is not None and old["kind"] != row.kind:
            deltas.append(Delta(row.tier, row.metric, row.kind, _show(old), _show(row.to_json()), None, None, None, "kind changed"))
        elif pair is not None:
            deltas.append(Delta(row.tier, row.metric, row.kind, pair.old, pair.new, pair.delta, pair.low, pair.high,
                                pair.method, pair.pairs))
        elif row.kind == "rate":
            deltas.append(_unpaired_rate(row, old))
        else:
            deltas.append(_unpaired_mean(row, old, values.get((row.tier, row.metric), []),
                                         baseline.values.get((row.tier, row.metric), [])))
    return deltas


def paired_deltas(rows: list[MetricRow], old: Mapping[str, ItemView], new: Mapping[str, ItemView],
                  ids: Sequence[str]) -> dict[tuple[str, str], Paired]:
    """The paired difference of every metric of this run that has pairs."""
    out = {}
    for row in rows:
        pairs = metric_pairs(old, new, ids, row.tier, row.metric)
        if not pairs:
            continue
        kinds = {isinstance(v, bool) for values in (p for pair in pairs for p in pair) for v in values}
        if row.kind == "rate" and kinds == {True}:
            result = paired_rate(pairs)
        elif row.kind == "mean" and True not in kinds:
            result = paired_mean(pairs)
        else:
            continue  # values of another kind than the metric's (a hand-made baseline): compare unpaired
        if result is not None:
            out[(row.tier, row.metric)] = result
    return out


def _unpaired_rate(row: MetricRow, old: Mapping[str, Any]) -> Delta:
    new_text, old_text = _show(row.to_json()), _show(old)
    if row.n == 0 or old["n"] == 0:
        return Delta(row.tier, row.metric, "rate", old_text, new_text, None, None, None, "no observations")
    if row.clusters is None and old.get("clusters") is None:
        d, low, high = newcombe_interval(row.k or 0, row.n, old["k"], old["n"])
        method = "newcombe"
    else:  # nested observations: each side's clustered interval (core/clusters.py)
        d, low, high = mover_difference(_interval(row.to_json()), _interval(old))
        method = "newcombe (clustered intervals)"
    return Delta(row.tier, row.metric, "rate", old_text, new_text, d, low, high, method)


def _unpaired_mean(row: MetricRow, old: Mapping[str, Any], new_values: list[Any], old_values: list[Any]) -> Delta:
    delta = None if row.rate is None or old.get("rate") is None else row.rate - old["rate"]
    interval = welch_interval(_numbers(new_values), _numbers(old_values))
    if interval is None:
        return Delta(row.tier, row.metric, "mean", _show(old), _show(row.to_json()), delta, None, None,
                     "no interval (needs 2+ values in both runs)")
    return Delta(row.tier, row.metric, "mean", _show(old), _show(row.to_json()), *interval, "welch")


def _numbers(values: Iterable[Any]) -> list[float]:
    out = []
    for v in values:
        if isinstance(v, (int, float)) and not isinstance(v, bool) and not math.isnan(v):
            out.append(float(v))
    return out


def welch_interval(a: list[float], b: list[float], confidence: float = 0.95) -> tuple[float, float, float] | None:
    """mean(a) - mean(b) with Welch's t interval (Satterthwaite degrees of freedom, rounded down)."""
    if len(a) < 2 or len(b) < 2:
        return None
    ma, mb = math.fsum(a) / len(a), math.fsum(b) / len(b)
    va = math.fsum((x - ma) ** 2 for x in a) / (len(a) - 1)
    vb = math.fsum((x - mb) ** 2 for x in b) / (len(b) - 1)
    sa, sb = va / len(a), vb / len(b)
    d = ma - mb
    if sa + sb == 0:
        return d, d, d
    df = (sa + sb) ** 2 / ((sa**2 / (len(a) - 1) if sa else 0.0) + (sb**2 / (len(b) - 1) if sb else 0.0))
    half = t_quantile(1 - (1 - confidence) / 2, max(1, int(df))) * math.sqrt(sa + sb)
    return d, d - half, d + half


def _interval(row: Mapping[str, Any]) -> tuple[float, float, float]:
    """(rate, low, high) of a rate row: its own interval (clustered where nested), else Wilson's."""
    k, n = row["k"], row["n"]
    if row.get("ci_low") is None or row.get("ci_high") is None:
        return (k / n, *wilson_interval(k, n))
    return (k / n, min(row["ci_low"], k / n), max(row["ci_high"], k / n))


def _show(row: Mapping[str, Any]) -> str:
    if row.get("kind") == "rate":
        return f"{row.get('k')}/{row.get('n')}"
    rate = row.get("rate")
    return f"{rate:.3f} (n={row.get('n')})" if isinstance(rate, (int, float)) else f"- (n={row.get('n')})"


# --- the views ----------------------------------------------------------------------------------


def system_name(system: Any) -> str:
    """A report's system as "name version" ("unknown" when the report does not say)."""
    if not isinstance(system, Mapping):
        return "unknown"
    return " ".join(str(system[k]) for k in ("name", "version") if system.get(k)) or "unknown"


def signed(value: float | None) -> str:
    return "-" if value is None else f"{value:+.3f}"


def ci_text(low: float | None, high: float | None) -> str:
    return "-" if low is None or high is None else f"[{low:+.3f}, {high:+.3f}]"


def _align(rows: Sequence[tuple[str, ...]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]


def pairing_phrase(outcome: Any) -> str:
    """"paired over 40 cases", or why no metric could be paired."""
    if outcome.paired_cases:
        noun = "case" if outcome.paired_cases == 1 else "cases"
        return f"paired over {outcome.paired_cases} {noun} (same case id and content in both runs)"
    return "no case in both runs with the same content: unpaired intervals"


def lines(outcome: Any) -> list[str]:
    """The terminal's comparison: the header, the table, the metrics gone, the flips."""
    same = outcome.baseline_hash == outcome.dataset_hash
    out = [
        f"compared with {outcome.baseline} (dataset {_short(outcome.baseline_hash)}"
        + (", the same as now" if same else f"; now {_short(outcome.dataset_hash)}: DIFFERENT dataset")
        + (f"; {outcome.cases.phrase()})" if outcome.cases is not None else ")"),
        f"systems: {outcome.systems[0]} in {outcome.baseline}, {outcome.systems[1]} now; {pairing_phrase(outcome)}",
    ]
    if not outcome.baseline_complete:
        out.append(INCOMPLETE.format(baseline=outcome.baseline))
    if outcome.judged_otherwise:
        out.append(JUDGED_OTHERWISE + "; ".join(outcome.judged_otherwise))
    out.extend(_align([("tier", "metric", "old", "new", "delta", "95% CI", "method", "verdict")] + [
        (d.tier, d.metric, d.old, d.new, signed(d.delta), ci_text(d.low, d.high), d.method, d.verdict)
        for d in outcome.deltas
    ]))
    out += [f"{name}: in the baseline, not measured in this run" for name in outcome.missing]
    out += flip_lines(outcome.flips)
    return out


def flip_lines(changed: Sequence[Mapping[str, Any]]) -> list[str]:
    if not changed:
        return ["no item changed outcome"]
    noun = "item" if len(changed) == 1 else "items"
    out = [f"{len(changed)} {noun} changed outcome (old -> new):"]
    out += [f"  {f['nodeid']}: {f['old']} -> {f['new']}" for f in changed[:FLIPS_SHOWN]]
    if len(changed) > FLIPS_SHOWN:
        out.append(f"  ... and {len(changed) - FLIPS_SHOWN} more (see --sprout-report: gates.compare.flips)")
    return out


def markdown(outcome: Any) -> list[str]:
    """The same as Markdown, for --sprout-md."""
    out = [f"### Compared with `{_md(outcome.baseline)}`", ""]
    head = [f"systems: {outcome.systems[0]} then, {outcome.systems[1]} now", pairing_phrase(outcome)]
    if outcome.cases is not None:
        head.insert(0, outcome.cases.phrase())
    out += [_md("; ".join(head)), ""]
    if not outcome.baseline_complete:
        out += [f"**{_md(INCOMPLETE.format(baseline=outcome.baseline))}**", ""]
    if outcome.judged_otherwise:
        out += [f"**{_md(JUDGED_OTHERWISE + '; '.join(outcome.judged_otherwise))}**", ""]
    out += ["| tier | metric | old | new | delta | 95% CI | method | verdict |", "|---|---|---:|---:|---:|---|---|---|"]
    for d in outcome.deltas:
        cells = (_md(d.tier), _md(d.metric), *(_md(c) for c in (d.old, d.new)), signed(d.delta),
                 ci_text(d.low, d.high), d.method, d.verdict)  # the names and values come from the baseline
        out.append("| " + " | ".join(cells) + " |")
    for name in outcome.missing:
        out.append(f"\n{_md(name)}: in the baseline, not measured in this run")
    out.append("")
    if outcome.flips:
        out += [f"#### Changed outcome ({len(outcome.flips)})", "", "| item | old | new |", "|---|---|---|"]
        out += [f"| `{_md(f['nodeid'])}` | {_md(f['old'])} | {_md(f['new'])} |" for f in outcome.flips[:FLIPS_SHOWN]]
        if len(outcome.flips) > FLIPS_SHOWN:
            out.append(f"\n... and {len(outcome.flips) - FLIPS_SHOWN} more (see the JSON report: gates.compare.flips)")
        out.append("")
    return out


__all__ = ["Delta", "ItemView", "compare_rows", "flips", "id_list", "item_views", "paired_deltas", "paired_ids",
           "welch_interval"]
