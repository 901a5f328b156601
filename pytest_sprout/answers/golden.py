"""Golden sets: every answer the system gave, recorded with the dataset it answered, and replayed
later without calling the system. Plain Python, no pytest import."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping

from ..core.model import Answer, Case, GoldenItem
from ..core.identity import (
    Fingerprints, SnapshotError, check_fingerprints, dataset_hash, diff, file_sha256, fingerprints, read_json,
)
from ..core.util import short_hash

FORMAT = 1


def entry(item: GoldenItem, system: Mapping[str, Any] | None) -> dict[str, Any]:
    """One case of a golden set as plain JSON: the answer, or the error the system raised."""
    data: dict[str, Any] = {"question": item.case.question}
    if item.answer is not None:
        data["answer"] = item.answer.to_json()
    else:
        data["error"] = item.error or "no answer"
    if system:
        data["system"] = dict(system)
    return data


def build(cases: list[Case], entries: Mapping[str, Mapping[str, Any]], plugin_version: str) -> dict[str, Any]:
    """The golden-set document. ``entries`` maps case id -> ``entry(...)``; the system's declared
    name/version is taken from the entries (under xdist it comes from the workers)."""
    system = next((e["system"] for e in entries.values() if e.get("system")), None)
    answers = {cid: {k: v for k, v in e.items() if k != "system"} for cid, e in sorted(entries.items())}
    return {
        "pytest_sprout": "golden set",
        "format": FORMAT,
        "plugin_version": plugin_version,
        "dataset_hash": dataset_hash(cases),
        "system": system,
        "cases": fingerprints(cases),
        "answers": answers,
    }


@dataclass
class GoldenSet:
    """A golden set read from disk, checked against the current cases."""

    label: str
    sha256: str
    dataset_hash: str
    system: dict[str, Any] | None
    answers: dict[str, dict[str, Any]]

    def item(self, case: Case) -> GoldenItem:
        """The recorded answer (or error) for a case; a case that was not recorded is an error."""
        data = self.answers.get(case.id)
        if data is None:
            return GoldenItem(case, None, f"{case.id!r} is not in the golden set {self.label}: not recorded: re-record "
                                          f"it with --sprout-record={self.label}")
        if "answer" in data:
            return GoldenItem(case, Answer.from_json(data["answer"]))
        return GoldenItem(case, None, str(data.get("error", "no answer")))


def load(path: Path, label: str, cases: Iterable[Case]) -> GoldenSet:
    """Read a golden set; refuse one that is broken or was recorded from another dataset."""
    cases = list(cases)
    data = read_json(path, label)
    if not isinstance(data, dict) or data.get("pytest_sprout") != "golden set":
        raise SnapshotError(f"{label}: not a pytest-sprout golden set (expected \"pytest_sprout\": \"golden set\")")
    if data.get("format") != FORMAT:
        raise SnapshotError(f"{label}: golden-set format {data.get('format')!r} is not supported (expected {FORMAT})")
    recorded_hash = data.get("dataset_hash")
    if not isinstance(recorded_hash, str):
        raise SnapshotError(f"{label}: field 'dataset_hash' must be a string")
    answers = data.get("answers")
    if not isinstance(answers, dict):
        raise SnapshotError(f"{label}: field 'answers' must be an object of case ids")
    for case_id, value in answers.items():
        _check_entry(value, label, case_id)
    system = data.get("system")
    if system is not None and not (isinstance(system, dict) and all(isinstance(v, str) for v in system.values())):
        raise SnapshotError(f"{label}: field 'system' must be an object of strings (name, version) or null")
    current = dataset_hash(cases)
    if recorded_hash != current:
        old: Fingerprints = check_fingerprints(data.get("cases", {}), label, "cases")
        changes = diff(old, fingerprints(cases)).lines(indent="  ")
        raise SnapshotError("\n".join([
            f"{label} was recorded from dataset {short_hash(recorded_hash)} but the suites are now "
            f"{short_hash(current)}; refusing to replay a stale golden set:",
            *changes,
            f"re-record it: pytest --sprout-record={label} (with --sprout-update-snapshot if the snapshot pins the old dataset)",
        ]))
    return GoldenSet(label, file_sha256(path), recorded_hash, system, answers)


def _check_entry(value: Any, label: str, case_id: str) -> None:
    where = f"{label}: field 'answers.{case_id}"
    if not isinstance(value, dict):
        raise SnapshotError(f"{where}' must be an object")
    if "answer" in value:
        answer = value["answer"]
        if not isinstance(answer, dict) or not isinstance(answer.get("sentences", []), list) \
                or not isinstance(answer.get("passages", []), list):
            raise SnapshotError(f"{where}.answer' must be an object with 'sentences' and 'passages' lists")
        for i, sent in enumerate(answer.get("sentences", [])):
            if not isinstance(sent, dict) or not isinstance(sent.get("text"), str) \
                    or not isinstance(sent.get("citations", []), list) \
                    or not all(isinstance(c, str) for c in sent.get("citations", [])):
                raise SnapshotError(f"{where}.answer.sentences[{i}]' must be an object with a 'text' string and a "
                                    "'citations' list of passage ids")
        for i, passage in enumerate(answer.get("passages", [])):
            if not isinstance(passage, dict) or not isinstance(passage.get("text"), str) \
                    or not isinstance(passage.get("id", ""), str):
                raise SnapshotError(f"{where}.answer.passages[{i}]' must be an object with 'id' and 'text' strings")
        try:
            Answer.from_json(answer)
        except (KeyError, TypeError, AttributeError, ValueError) as exc:
            raise SnapshotError(f"{where}.answer' cannot be read as an answer ({type(exc).__name__}: {exc})") from None
    elif not isinstance(value.get("error"), str):
        raise SnapshotError(f"{where}' needs an 'answer' object or an 'error' string")
