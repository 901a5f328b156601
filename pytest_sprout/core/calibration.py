"""A judge's calibration fitted on the user's labels (``sprout.calibration.json``): the file's
format, reading it (every problem named by file, line and field) and writing it. Plain Python;
the fitting is in checks/calibrate.py, its use in the lexical judge and the alce tier.

The file is versioned JSON::

    {"format": "sprout-calibration", "version": 1, "id": "<16 hex>", "judge": "lexical" | "nli",
     "kept": "calibrated" | "shipped", "threshold": 0.61, "intercept": null, "coefficients": null,
     "features": null, "rules_version": 18, "shipped": "<the shipped calibration's version>",
     "labels": {"source": "...", "sha256": "...", "format": "...", "n": 100, "supported": 60,
                "unsupported": 40, "dataset": "<dataset hash of the run the labels came from> | null"},
     "why": "...", "cv": {...}}

``threshold`` is the decision threshold of the judge's calibrated score (the lexical judge's
probability, the NLI judge's p(entailment)); ``intercept``/``coefficients`` (lexical only, in the
order of ``features``) replace the shipped coefficients of the score when not null. ``id`` is the
hash of everything that decides a verdict and where it was fitted: a file edited by hand no longer
matches it and is refused. ``kept: "shipped"`` records a fit that did not clearly beat the shipped
calibration: the file then holds the shipped threshold and changes no verdict.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import SettingsError

FORMAT = "sprout-calibration"
VERSION = 1
JUDGES = ("lexical", "nli")
FILE_NAME = "sprout.calibration.json"


class CalibrationError(SettingsError):
    """A calibration file that cannot be used; the message names the file, the line and the field."""


@dataclass(frozen=True)
class Calibration:
    judge: str
    threshold: float
    kept: str = "calibrated"
    intercept: float | None = None
    coefficients: tuple[float, ...] | None = None
    features: tuple[str, ...] | None = None
    rules_version: int | None = None
    shipped: str | None = None
    labels: dict[str, Any] = field(default_factory=dict)
    why: str = ""
    cv: dict[str, Any] = field(default_factory=dict)
    path: str | None = field(default=None, compare=False)  # where it was read from (not in the file)

    @property
    def id(self) -> str:
        """The hash of what decides the verdicts and of the labels it was fitted on."""
        decisive = {"judge": self.judge, "threshold": self.threshold, "kept": self.kept, "intercept": self.intercept,
                    "coefficients": list(self.coefficients) if self.coefficients is not None else None,
                    "features": list(self.features) if self.features is not None else None,
                    "rules_version": self.rules_version, "shipped": self.shipped,
                    "labels": {k: self.labels.get(k) for k in ("sha256", "n", "dataset")}}
        text = json.dumps(decisive, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]

    @property
    def dataset(self) -> str | None:
        """The dataset hash of the run whose labels it was fitted on (None: labels from elsewhere)."""
        value = self.labels.get("dataset")
        return value if isinstance(value, str) else None

    def to_json(self) -> dict[str, Any]:
        return {"format": FORMAT, "version": VERSION, "id": self.id, "judge": self.judge, "kept": self.kept,
                "threshold": self.threshold, "intercept": self.intercept,
                "coefficients": list(self.coefficients) if self.coefficients is not None else None,
                "features": list(self.features) if self.features is not None else None,
                "rules_version": self.rules_version, "shipped": self.shipped, "labels": self.labels,
                "why": self.why, "cv": self.cv}

    def describe(self) -> str:
        """One line: which calibration, fitted on what."""
        n = self.labels.get("n")
        source = self.labels.get("source")
        return (f"{self.path or FILE_NAME} (id {self.id}, {self.judge} judge, threshold {self.threshold:.3f}"
                + (", refitted coefficients" if self.coefficients is not None else "")
                + (f", {self.kept} kept" if self.kept != "calibrated" else "")
                + (f"; fitted on {n} labels" if n is not None else "")
                + (f" of {source}" if source else "") + ")")


def write(calibration: Calibration, path: Path) -> None:
    path.write_text(json.dumps(calibration.to_json(), indent=2, sort_keys=False) + "\n", encoding="utf-8")


def _line_of(text: str, key: str) -> int:
    """The line of the first ``"key":`` in the file's text (1 when it is not there)."""
    at = text.find(json.dumps(key) + ":")
    if at < 0:
        at = text.find(json.dumps(key))
    return text.count("\n", 0, at) + 1 if at >= 0 else 1


def load(path: str | Path, judge: str | None = None, shown: str | None = None) -> Calibration:
    """Read and check a calibration file; ``judge``: the judge it must be for."""
    path = Path(path)
    shown = shown or str(path)
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except OSError as exc:
        raise CalibrationError(f"{shown}: the calibration file cannot be read: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise CalibrationError(f"{shown}: not UTF-8 (byte {exc.start})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CalibrationError(f"{shown}:{exc.lineno}: not valid JSON: {exc.msg}") from None
    except (ValueError, RecursionError) as exc:
        raise CalibrationError(f"{shown}: cannot be read: {str(exc)[:120]}") from None
    if not isinstance(data, dict):
        raise CalibrationError(f"{shown}:1: expected a JSON object (a calibration written by python -m pytest_sprout.calibrate)")

    def bad(key: str, what: str) -> CalibrationError:
        return CalibrationError(f"{shown}:{_line_of(text, key)}: field {key!r} {what}")

    if data.get("format") != FORMAT:
        raise bad("format", f"must be {FORMAT!r} (a file written by python -m pytest_sprout.calibrate), got {data.get('format')!r}")
    if data.get("version") != VERSION:
        raise bad("version", f"must be {VERSION}; this pytest-sprout reads calibration version {VERSION}, got {data.get('version')!r}")
    for key in ("id", "judge", "kept", "threshold", "labels"):
        if key not in data:
            raise bad(key, "is missing")
    if data["judge"] not in JUDGES:
        raise bad("judge", f"must be one of {', '.join(JUDGES)}, got {data['judge']!r}")
    if judge is not None and data["judge"] != judge:
        raise bad("judge", f"is {data['judge']!r}: this calibration is for the {data['judge']} judge, not the {judge} one")
    if data["kept"] not in ("calibrated", "shipped"):
        raise bad("kept", f"must be 'calibrated' or 'shipped', got {data['kept']!r}")
    threshold = data["threshold"]
    if not _number(threshold) or not 0.0 <= threshold <= 1.0:
        raise bad("threshold", f"must be a number in [0, 1], got {threshold!r}")
    intercept, coefficients, features = data.get("intercept"), data.get("coefficients"), data.get("features")
    if intercept is not None and not _number(intercept):
        raise bad("intercept", f"must be a number or null, got {intercept!r}")
    if coefficients is not None:
        if not isinstance(coefficients, list) or not all(_number(c) for c in coefficients):
            raise bad("coefficients", "must be a list of numbers or null")
        if intercept is None:
            raise bad("intercept", "must be a number when 'coefficients' are given")
        if not isinstance(features, list) or len(features) != len(coefficients) or not all(isinstance(f, str) for f in features):
            raise bad("features", "must name each coefficient's feature (a list of strings as long as 'coefficients')")
    rules_version = data.get("rules_version")
    if rules_version is not None and (not isinstance(rules_version, int) or isinstance(rules_version, bool)):
        raise bad("rules_version", f"must be a whole number or null, got {rules_version!r}")
    labels = data["labels"]
    if not isinstance(labels, dict):
        raise bad("labels", "must be an object (source, sha256, n, ...)")
    n = labels.get("n")
    if not isinstance(n, int) or isinstance(n, bool) or n < 0:
        raise bad("n", f"(in 'labels') must be the number of labels fitted on, got {n!r}")
    for key in ("why", "shipped"):
        if data.get(key) is not None and not isinstance(data[key], str):
            raise bad(key, "must be a string")
    if data.get("cv") is not None and not isinstance(data["cv"], dict):
        raise bad("cv", "must be an object")
    calibration = Calibration(
        judge=data["judge"], threshold=float(threshold), kept=data["kept"],
        intercept=None if intercept is None else float(intercept),
        coefficients=None if coefficients is None else tuple(float(c) for c in coefficients),
        features=None if features is None or coefficients is None else tuple(features),
        rules_version=rules_version, shipped=data.get("shipped"), labels=dict(labels), why=data.get("why") or "",
        cv=dict(data.get("cv") or {}), path=shown)
    if data["id"] != calibration.id:
        raise bad("id", f"is {data['id']!r} but the file's content hashes to {calibration.id!r}: the file was edited "
                        "after it was fitted; fit it again with python -m pytest_sprout.calibrate")
    return calibration


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def user_calibration(given: str | os.PathLike[str] | Calibration | None, judge: str = "lexical") -> Calibration | None:
    """A judge's ``calibration=`` argument: a Calibration, a path to read (checked for ``judge``), or None."""
    if given is None or isinstance(given, Calibration):
        if given is not None and given.judge != judge:
            raise CalibrationError(f"{given.path or 'calibration'}: it is for the {given.judge} judge, not the {judge} one")
        return given
    return load(Path(given), judge=judge)
