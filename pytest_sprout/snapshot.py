"""Dataset identity: the hash that pins which cases a result describes."""

from __future__ import annotations

import hashlib
import json
from typing import Iterable

from .model import Case


def canonical_json(value: object) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def dataset_hash(cases: Iterable[Case]) -> str:
    """SHA-256 of the canonical JSON of every case (sorted keys, cases sorted by id)."""
    rows = sorted((case.canonical() for case in cases), key=lambda row: row["id"])
    return hashlib.sha256(canonical_json(rows).encode("utf-8")).hexdigest()
