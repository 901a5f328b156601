"""The result cache: the system's answers and the tiers' results, kept in pytest's cache dir
(``.pytest_cache/d/sprout``, emptied by ``--cache-clear``).

Every key is the SHA-256 of everything the value depends on, so a change to any of them is a miss,
never a stale hit:

- answers: plugin version, dataset hash, the case, the system's declared name and version. Only a
  system that declares a non-empty ``version`` has its answers cached: without one, a change to
  the system could not be told apart.
- tier results: the above, plus the answer itself, the tier's name and ``settings()`` and every
  ``--sprout-threshold``.

Results a judge could not score (``passed`` None, or an unscored metric) are never cached: they
are usually transient (a timeout). Plain Python, no pytest import.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Mapping

from .judges import TierResult
from .model import Answer, Case, GoldenItem
from .snapshot import canonical_json


class ResultCache:
    def __init__(self, root: Path | None, dataset_hash: str, plugin_version: str) -> None:
        self.root = root  # None: caching is off (no cache dir, -p no:cacheprovider)
        self.base = {"plugin": plugin_version, "dataset": dataset_hash}

    def key(self, **parts: Any) -> str | None:
        """The key for these parts, or None when a part is not plain JSON (then nothing is cached)."""
        try:
            text = canonical_json({**self.base, **parts})
        except (TypeError, ValueError):
            return None
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def _path(self, kind: str, key: str) -> Path:
        assert self.root is not None
        return self.root / kind / key[:2] / f"{key}.json"

    def _get(self, kind: str, key: str | None) -> Any:
        if self.root is None or key is None:
            return None
        try:
            return json.loads(self._path(kind, key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None  # missing or broken: a miss; the next put repairs it

    def _put(self, kind: str, key: str | None, value: Any) -> None:
        if self.root is None or key is None:
            return
        from .report import atomic_write_text

        try:
            atomic_write_text(self._path(kind, key), json.dumps(value, ensure_ascii=False))
        except (OSError, TypeError, ValueError):
            pass  # a cache that cannot be written only costs time

    # --- answers ------------------------------------------------------------------------------
    def answer_key(self, case: Case, system: Mapping[str, Any] | None) -> str | None:
        if not system or not system.get("version"):
            return None
        return self.key(kind="answer", case=case.canonical(), system=dict(system))

    def get_answer(self, case: Case, system: Mapping[str, Any] | None) -> Answer | None:
        data = self._get("answers", self.answer_key(case, system))
        try:
            return None if data is None else Answer.from_json(data)
        except (KeyError, TypeError, AttributeError):
            return None

    def put_answer(self, case: Case, system: Mapping[str, Any] | None, answer: Answer) -> None:
        self._put("answers", self.answer_key(case, system), answer.to_json())

    # --- tier results -------------------------------------------------------------------------
    def result_key(self, tier: Any, item: GoldenItem, system: Mapping[str, Any] | None,
                   thresholds: Mapping[tuple[str, str], float]) -> str | None:
        if item.answer is None:
            return None
        try:
            settings = tier.settings()
        except Exception:  # a tier whose settings cannot be read is not cached
            return None
        return self.key(
            kind="result", tier=tier.name, settings=settings, system=dict(system or {}),
            case=item.case.canonical(), source=item.case.source, answer=item.answer.to_json(),
            thresholds=sorted([t, n, v] for (t, n), v in thresholds.items()),
        )

    def get_result(self, key: str | None) -> TierResult | None:
        data = self._get("results", key)
        if not isinstance(data, dict):
            return None
        try:
            return TierResult(**data)
        except TypeError:
            return None

    def put_result(self, key: str | None, result: TierResult) -> None:
        if result.passed is None or any(v is None for values in result.metrics.values() for v in values):
            return
        self._put("results", key, {
            "passed": result.passed, "metrics": result.metrics, "sentences": result.sentences,
            "message": result.message, "note": result.note, "extra": result.extra,
        })


def cache_root(config: Any) -> Path | None:
    """``.pytest_cache/d/sprout``, or None when pytest's cache is off."""
    cache = getattr(config, "cache", None)
    if cache is None:
        return None
    try:
        return Path(cache.mkdir("sprout"))
    except OSError:
        return None
