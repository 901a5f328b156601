"""Mutation testing of judges in a run: judging the mutants of every sentence a tier judged
supported with the tier's own judge, and the kill-rate accounting on the controller.

A mutant is derived only from a sentence the tier itself judged supported, so a kill means the
judge saw the change. Mutant outcomes live in the item row under ``"mutants"`` and in their own
tally; they never count in the main metrics.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from ..core.row import RowItems, as_rows
from ..core.stats import MetricRow, Tally
from ..core.table import SATURATED_FAILED_NOTE, SATURATED_NOTE, UNDERPOWERED_NOTE, format_table
from .operators import OPERATORS, STRUCTURAL, mutate_sentence

if TYPE_CHECKING:
    from ..core.model import Answer

STRUCTURAL_NOTE = (
    "structural (citation_move, citation_drop): they change what a sentence cites, not what it says;"
    " a judge that reads citations kills them by construction, so they stay out of the headline."
)
# How the summary names a group of mutants: "kills 97% of 120 negations".
PLURALS: dict[str, str] = {
    "negation": "negations",
    "number": "number/unit changes",
    "entity_swap": "entity swaps",
    "antonym": "antonym swaps",
    "quantifier": "quantifier/modal changes",
    "unsupported_clause": "unsupported clauses",
    "splice": "splices",
    "citation_move": "moved citations",
    "citation_drop": "dropped citations",
}
NO_JUDGE = "the tier has no claim-level judge(claim, passages), so it was not mutated"


# --- judging mutants in a run --------------------------------------------------------------------


def supported_indices(answer: Answer, sentence_rows: Sequence[dict[str, Any]]) -> list[int]:
    """Positions of the answer's sentences that the tier judged supported (by position when the
    tier's rows line up with the answer's sentences, else by text)."""
    texts = [s.text for s in answer.sentences]
    if [r.get("text") for r in sentence_rows] == texts:
        return [i for i, r in enumerate(sentence_rows) if r.get("supported") is True]
    ok = {r.get("text") for r in sentence_rows if r.get("supported") is True}
    return [i for i, t in enumerate(texts) if t in ok]


def mutant_rows(tier: Any, answer: Answer, sentence_rows: Sequence[dict[str, Any]],
                mode: str = "required") -> list[dict[str, Any]] | None:
    """Judge every mutant of every supported sentence with the tier's own judge.

    None when the tier has no ``judge`` with ``judge_many(pairs)``. Each row records the operator,
    the original and mutated sentence, and ``killed``: True when the judge called the mutant
    unsupported, False when it survived, None when the judge could not decide.
    """
    judge = getattr(tier, "judge", None)
    if judge is None or not callable(getattr(judge, "judge_many", None)):
        return None
    mutants = [m for i in supported_indices(answer, sentence_rows) for m in mutate_sentence(answer, i, mode=mode)]
    if not mutants:
        return []
    from ..core.citations import sources

    # judged as the item was (``mode``: core/citations.py): in retrieved mode an uncited mutant
    # against the retrieved passages its original sentence was judged against (a tier may bound them)
    bound = getattr(tier, "retrieved_passages", None)

    def premise(m: Any) -> list[Any]:
        src = sources(answer, m.sentence, mode)
        return bound(m.original.text, src.passages) if src.retrieved and bound is not None else src.passages

    verdicts = judge.judge_many([(m.sentence.text, premise(m)) for m in mutants])
    rows = []
    for m, v in zip(mutants, verdicts):
        rows.append({
            "operator": m.operator,
            "index": m.index,
            "sentence": m.original.text,
            "mutant": m.sentence.text,
            "citations": list(m.sentence.citations),
            "change": m.change,
            "killed": None if v.supported is None else not v.supported,
            "score": v.score,
            "evidence": v.evidence,
            "reason": v.reason,
        })
    return rows


# --- aggregation on the controller ---------------------------------------------------------------


def kill_tally(items: RowItems) -> Tally:
    """Per (tier, operator): True for each mutant killed, False for each survivor, None unscored."""
    tally = Tally()
    for row in as_rows(items):
        for m in row.mutants or ():
            tally.add(row.tier, m["operator"], m["killed"], (row.nodeid, m.get("index")))
    return tally


def kill_rows(tally: Tally) -> list[MetricRow]:
    """The tally's rows, tiers in order and operators in the order of OPERATORS."""
    rows = tally.rows()
    order = {op: i for i, op in enumerate(OPERATORS)}
    tier_rank: dict[str, int] = {}
    for r in rows:
        tier_rank.setdefault(r.tier, len(tier_rank))
    return sorted(rows, key=lambda r: (tier_rank[r.tier], order.get(r.metric, len(order)), r.metric))


def not_mutated(items: RowItems) -> dict[str, str]:
    """Tiers that were asked to mutate but could not, with the reason."""
    return {row.tier: row.mutants_skipped for row in as_rows(items) if row.mutants_skipped}


def _pct(x: float | None) -> str:
    """A percentage, with as many decimals as it takes for a rate that is not 0 or 1 never to read
    as 0% or 100% (2 survivors of 465 are "99.6%", not "100%")."""
    if x is None:
        return "-"
    text = f"{100 * x:.0f}"
    for decimals in (1, 2, 3):
        if not 0 < x < 1 or float(text) not in (0.0, 100.0):
            break
        text = f"{100 * x:.{decimals}f}"
    return f"{text}%"


def _kills(r: MetricRow) -> str:
    return f"{_pct(r.rate)} of {r.n} {PLURALS.get(r.metric, r.metric)} [{_pct(r.ci_low)}, {_pct(r.ci_high)}]"


def headline(tier: str, kills: Sequence[MetricRow], metrics: Sequence[MetricRow]) -> str:
    """"groundedness: grounded saturated (all passed) 1.000 (3/3), but its weakest text operator kills 12% of 50
    entity swaps [5%, 24%]; its strongest, 97% of 120 negations [93%, 99%]": the tier's main metric,
    then its weakest and its strongest kill rate among the operators that change what a sentence
    says. The STRUCTURAL operators stay out of this line: they change what a sentence cites, and a
    judge that reads citations kills them by construction (a 100% there says nothing about meaning)."""
    mine = [m for m in metrics if m.tier == tier]
    main = next((m for name in ("grounded", "citation_recall") for m in mine if m.metric == name), mine[0] if mine else None)
    scored = [k for k in kills if k.n and k.metric not in STRUCTURAL]
    if not scored:
        structural = [k for k in kills if k.n]
        if not structural:
            return f"{tier}: no mutant could be scored"
        return f"{tier}: no text mutant could be scored; only structural ones ({', '.join(_kills(k) for k in structural)})"
    worst = min(scored, key=lambda k: (k.rate, -k.n))
    best = max(scored, key=lambda k: (k.rate, k.n))
    kills_text = f"its weakest text operator kills {_kills(worst)}"
    if best is not worst:
        kills_text += f"; its strongest, {_kills(best)}"
    if main is None or main.rate is None:
        return f"{tier}: {kills_text}"
    if main.kind == "rate":
        count = f"{main.k}/{main.n}"
        if main.saturated:
            return f"{tier}: {main.metric} saturated ({main.saturated_at}) {main.rate:.3f} ({count}), but {kills_text}"
        interval = f"[{main.ci_low:.3f}, {main.ci_high:.3f}]"
        return f"{tier}: {main.metric} {main.rate:.3f} ({count}) {interval}; {kills_text}"
    if main.saturated:
        return f"{tier}: {main.metric} saturated ({main.saturated_at}) mean {main.rate:.3f} (n={main.n}), but {kills_text}"
    return f"{tier}: {main.metric} mean {main.rate:.3f} (n={main.n}); {kills_text}"


# How a saturated kill rate reads: a kill is the "pass" of a mutant row.
KILL_SIDES = {"all passed": "all killed", "all failed": "none killed"}
# The kill-rate table's columns: each row counts mutants of one operator, killed out of scored.
KILL_TABLE_HEADER = ("tier", "operator", "killed/n", "kill rate", "95% CI", "flags")


def summary_lines(items: RowItems, metrics: Sequence[MetricRow]) -> list[str]:
    """The mutation section of the terminal summary: a headline per tier, then the kill-rate table."""
    rows = kill_rows(kill_tally(items))
    skipped = not_mutated(items)
    if not rows and not skipped:
        return []
    lines = ["mutation testing (mutants of supported sentences; never counted in the metrics above):"]
    tiers = list(dict.fromkeys(r.tier for r in rows))
    lines += [headline(t, [r for r in rows if r.tier == t], metrics) for t in tiers]
    if rows:
        table = format_table(rows, header=KILL_TABLE_HEADER, sides=KILL_SIDES)
        lines += [line for line in table if line not in (SATURATED_NOTE, SATURATED_FAILED_NOTE, UNDERPOWERED_NOTE)]
        if any(r.saturated for r in rows):
            lines.append("a saturated kill rate: every mutant of that operator was killed (all killed), "
                         "or none was (none killed).")
        if any(r.underpowered for r in rows):
            lines.append("an underpowered kill rate: fewer than 30 mutants of that operator; read the interval.")
        if any(r.metric in STRUCTURAL for r in rows):
            lines.append(STRUCTURAL_NOTE)
    lines += [f"{tier}: {reason}" for tier, reason in sorted(skipped.items())]
    survivors = sum(1 for row in as_rows(items) for m in row.mutants or () if m["killed"] is False)
    if survivors:
        lines.append(f"{survivors} surviving mutant{'' if survivors == 1 else 's'}, each with its evidence, "
                     f"{'is' if survivors == 1 else 'are'} listed in --sprout-report")
    return lines


def mutation_report(items: RowItems) -> dict[str, Any]:
    """The report's "mutation" section: kill rates per (tier, operator) and every survivor."""
    rows = kill_rows(kill_tally(items))
    skipped = not_mutated(items)
    if not rows and not skipped:
        return {}
    survivors = [
        {"tier": row.tier, "case_id": row.case_id, "nodeid": row.nodeid, **m}
        for row in sorted(as_rows(items), key=lambda r: r.nodeid or "")
        for m in row.mutants or ()
        if m["killed"] is False
    ]
    kill_rates = [{**r.to_json(), "operator": r.metric, "structural": r.metric in STRUCTURAL} for r in rows]
    return {"mutation": {"kill_rates": kill_rates, "survivors": survivors, "not_mutated": skipped}}


def mutate_item(tier: Any, answer: Answer, sentence_rows: Sequence[dict[str, Any]],
                mode: str = "required") -> dict[str, Any]:
    """What run_item adds to an item row under --sprout-mutate: ``mutants`` or ``mutants_skipped``."""
    rows = mutant_rows(tier, answer, sentence_rows, mode)
    return {"mutants_skipped": NO_JUDGE} if rows is None else {"mutants": rows}
