"""The citations mode (``--sprout-citations`` / ``sprout_citations``, a suite's ``defaults:
{citations: ...}``, a case's ``citations:``): what a sentence without ``[k]`` markers is judged
against. Plain Python, no pytest import.

- ``required`` (the default): nothing; the sentence is unsupported ("cites no passage").
- ``retrieved``: every passage retrieved for the answer, as if the sentence cited them all; the
  reason of its verdict names the passage(s) the evidence came from.

A sentence with markers is judged against what it cites in either mode. A case's own mode wins
over its suite's defaults, which win over the run's option.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from .model import CITATIONS, Answer, Case, Passage, Sentence

DEFAULT = "required"
OPTION = "--sprout-citations / sprout_citations"


def problem(value: Any) -> str | None:
    """Why ``value`` is not a citations mode, or None when it is one."""
    if isinstance(value, str) and value in CITATIONS:
        return None
    return f"must be one of {', '.join(CITATIONS)}, got {value!r}"


def mode_of(case: Case, run_mode: str | None) -> str:
    """The mode an item of ``case`` runs in: the case's own (its suite's defaults included), else
    the run's option, else ``required``."""
    return case.citations or run_mode or DEFAULT


@dataclass(frozen=True)
class Sources:
    """What one sentence is judged against: the passages, the citations that name no retrieved
    passage, and whether the retrieved set stands in for markers the sentence does not have."""

    passages: list[Passage]
    missing: list[str]
    retrieved: bool = False  # True: an uncited sentence judged against every retrieved passage


def sources(answer: Answer, sentence: Sentence, mode: str) -> Sources:
    """The passages ``sentence`` is judged against in ``mode`` (see the module)."""
    if mode == "retrieved" and not sentence.citations:
        return Sources(list(answer.passages), [], True)
    found, missing = answer.cited(sentence)
    return Sources(found, missing)


def passage_label(answer: Answer, pid: str) -> str:
    """How a reason names a passage: its 1-based rank (its [k] marker) and its id."""
    for i, p in enumerate(answer.passages):
        if p.id == pid:
            return f"[{i + 1}] {pid}" if pid != str(i + 1) else f"[{i + 1}]"
    return pid


def retrieved_note(answer: Answer, evidence_ids: Iterable[str], judged: int | None = None) -> str:
    """The words a reason adds for an uncited sentence judged against the retrieved passages
    (``judged``: how many of them, when a judge bounds the set, as the alce tier does)."""
    ids = list(dict.fromkeys(evidence_ids))
    n = len(answer.passages)
    if judged is not None and judged < n:
        head = (f"no [k] markers: judged against the {judged} of the {n} retrieved passages that share the most "
                "words with it (alce.max_retrieved)")
    else:
        head = f"no [k] markers: judged against the {n} retrieved passage{'s' if n != 1 else ''}"
    if not ids:
        return head
    return f"{head}; evidence from {', '.join(passage_label(answer, pid) for pid in ids)}"


NO_CITATIONS_HINT = ("no sentence of this run cites a passage ([k] markers): for pipelines that answer "
                     "without markers, use --sprout-citations=retrieved")
KINDS = ("cited", "uncited", "retrieved")
WORDS = {
    "required": "a sentence without [k] markers is unsupported",
    "retrieved": "a sentence without [k] markers is judged against every retrieved passage",
}


def citing_kind(sentence: Mapping[str, Any]) -> str:
    """How one judged sentence row (a tier's JSON row) stands: "cited" (it has markers),
    "retrieved" (none, judged against the retrieved passages) or "uncited" (none, unsupported)."""
    if sentence.get("citations"):
        return "cited"
    return "retrieved" if sentence.get("judged_against") == "retrieved" else "uncited"


def settings_record(mode: str, cases: Iterable[Case], counts: Mapping[str, int]) -> dict[str, Any]:
    """The report's ``settings`` entry for the citations: the run's mode, the cases (by their
    own or their suite's ``citations:``) that run in another one, and how the judged sentence rows
    of every tier stood (``citing_kind``)."""
    out: dict[str, Any] = {"citations": mode, "sentence_citations": {k: int(counts.get(k, 0)) for k in KINDS}}
    other: dict[str, int] = {}
    for case in cases:
        if case.citations is not None and case.citations != mode:
            other[case.citations] = other.get(case.citations, 0) + 1
    if other:
        out["citations_by_case"] = dict(sorted(other.items()))
    return out


def mode_line(settings: Mapping[str, Any] | None) -> str | None:
    """"citations: required (a sentence without [k] markers is unsupported)", with the cases that
    set their own mode; None for a report without the entry (an older version's)."""
    if not settings or "citations" not in settings:
        return None
    mode = str(settings["citations"])
    line = f"citations: {mode}" + (f" ({WORDS[mode]})" if mode in WORDS else "")
    other = settings.get("citations_by_case") or {}
    if other:
        parts = ", ".join(f"{n} case{'s' if n != 1 else ''} {m}" for m, n in other.items())
        line += f"; set per case or suite: {parts}"
    return line


def hint_line(settings: Mapping[str, Any] | None) -> str | None:
    """NO_CITATIONS_HINT when sentences were judged and none cites a passage, none was judged
    against the retrieved passages either (the run, and every case, in ``required`` mode)."""
    counts = (settings or {}).get("sentence_citations") or {}
    if counts.get("uncited", 0) > 0 and not counts.get("cited") and not counts.get("retrieved"):
        return NO_CITATIONS_HINT
    return None
