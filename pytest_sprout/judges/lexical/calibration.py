"""Coefficients of the lexical judge's calibrated score, written by ``bench/fit_lexical.py``:
score = sigmoid(INTERCEPT + sum(COEFFICIENTS[i] * feature[i])), features in the order of FEATURES.
``shipped()`` is this calibration; ``load(path)`` reads another from a JSON file of the same fields."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import NamedTuple


class Calibration(NamedTuple):
    version: str  # part of every cache key
    features: tuple[str, ...]
    intercept: float
    coefficients: tuple[float, ...]
    threshold: float


def shipped() -> Calibration:
    """The calibration that ships with the judge (the constants below)."""
    return Calibration(VERSION, FEATURES, INTERCEPT, COEFFICIENTS, THRESHOLD)


def load(path: str | Path) -> Calibration:
    """A calibration from a JSON file; a clear ``ValueError`` naming the file and the field when it
    is not one: its features must be the judge's, in the judge's order (``FEATURES``)."""
    where = Path(path)
    try:
        data = json.loads(where.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{where}: cannot read a calibration: {exc}") from exc
    if not isinstance(data, dict):
        raise ValueError(f"{where}: a calibration is a JSON object, got {type(data).__name__}")
    missing = [k for k in Calibration._fields if k not in data]
    if missing:
        raise ValueError(f"{where}: missing field(s) {', '.join(missing)}")
    if tuple(data["features"]) != FEATURES:
        raise ValueError(f"{where}: field 'features' must be {list(FEATURES)}, got {data['features']!r}")
    numbers = [data["intercept"], data["threshold"], *data["coefficients"]] if isinstance(
        data["coefficients"], list) else None
    if numbers is None or len(data["coefficients"]) != len(FEATURES) or not all(
            isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) for x in numbers):
        raise ValueError(f"{where}: 'intercept', 'threshold' and the {len(FEATURES)} 'coefficients' must be finite "
                         "numbers")
    if not 0.0 <= data["threshold"] <= 1.0 or not isinstance(data["version"], str) or not data["version"]:
        raise ValueError(f"{where}: 'threshold' must be in [0, 1] and 'version' a non-empty string")
    return Calibration(data["version"], FEATURES, float(data["intercept"]),
                       tuple(float(c) for c in data["coefficients"]), float(data["threshold"]))


VERSION = 'wicedev349+lfqa3838-05b7bdaa'
FEATURES = ('coverage', 'weighted_coverage', 'uncovered_weight', 'uncovered_clause', 'extra_sentences', 'rule_failed', 'names_missing', 'several_passages', 'rarest_missing', 'passage_weighted', 'log_sentences', 'single_sentence', 'linked_pairs')
INTERCEPT = -3.3742
COEFFICIENTS = (-1.2348, 3.0690, 0.1592, 0.9424, 0.3644, -1.5321, -0.3349, -0.4210, -1.1967, 2.5344, -0.1034, 1.8707, 1.0857)
THRESHOLD = 0.52
