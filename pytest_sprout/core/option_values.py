"""Pure checks and parsing of option values, for every layer that needs them (cases.py checks a
case's own thresholds with them, gates.py parses ``--sprout-min``). No pytest import: a bad value
raises errors.SettingsError, which options.py turns into a pytest usage error with the same message.
"""

from __future__ import annotations

import math
import re
from typing import Any

from .errors import SettingsError
from .model import TIERS

# --- thresholds: one validation for --sprout-threshold / sprout_thresholds and a case's own ------
# Names each tier reads (kept here, not imported from the tiers: reading options stays cheap).
# Every value is a fraction in [0, 1], except the counts in COUNTS (a whole number in its range).
THRESHOLD_NAMES: dict[str, tuple[str, ...]] = {
    "groundedness": ("coverage", "facts"),
    "alce": ("entailment", "recall", "precision", "max_citations", "max_retrieved"),
    "ragas": ("context_precision", "context_recall", "string_similarity"),
    "llm": (
        "ragas_faithfulness", "ragas_answer_relevancy", "ragas_context_precision", "ragas_context_recall",
        "deepeval_faithfulness", "deepeval_answer_relevancy", "deepeval_contextual_precision",
        "deepeval_contextual_recall",
        "minicheck_citation_recall", "minicheck_citation_precision", "minicheck_entailment",
        "minicheck_chunk_words", "minicheck_max_citations", "minicheck_max_retrieved",
    ),
}
UNIT = (0.0, 1.0)
# Settings that count something: a whole number in its range, not a fraction.
COUNTS: dict[tuple[str, str], tuple[float, float]] = {
    ("alce", "max_citations"): (1.0, 1000.0),
    ("alce", "max_retrieved"): (1.0, 1_000_000.0),
    ("llm", "minicheck_chunk_words"): (1.0, 1_000_000.0),
    ("llm", "minicheck_max_citations"): (1.0, 1000.0),
    ("llm", "minicheck_max_retrieved"): (1.0, 1_000_000.0),
}
# Settings a case may not change on its own: they change how the judge works (the NLI model's
# cut-off, how many citations ALCE reads), not only where an item passes.
NOT_PER_CASE = frozenset({("alce", "entailment"), ("alce", "max_citations"), ("alce", "max_retrieved"), *(
    ("llm", n) for n in (
    "minicheck_entailment", "minicheck_chunk_words", "minicheck_max_citations", "minicheck_max_retrieved"))})


def tier_settings() -> dict[str, dict[str, tuple[float, float]]]:
    """Every TIER.NAME that --sprout-threshold / sprout_thresholds accepts, with its range."""
    return {tier: {name: COUNTS.get((tier, name), UNIT) for name in names} for tier, names in THRESHOLD_NAMES.items()}


def threshold_problem(tier: str, name: str, value: Any, per_case: bool = False) -> str | None:
    """Why ``tier.name = value`` is not a valid threshold, or None when it is."""
    if tier not in THRESHOLD_NAMES:
        from .tier import unknown_tier

        return unknown_tier(tier, f" in {tier}.{name}")
    if name not in THRESHOLD_NAMES[tier]:
        valid = ", ".join(f"{tier}.{n}" for n in THRESHOLD_NAMES[tier])
        return f"unknown setting {tier}.{name}; valid names: {valid}"
    if per_case and (tier, name) in NOT_PER_CASE:
        return f"{tier}.{name} changes the judge itself and can only be set for the whole run (--sprout-threshold)"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return f"{tier}.{name} must be a number, got {value!r}"
    low, high = COUNTS.get((tier, name), UNIT)
    if not math.isfinite(value) or not low <= value <= high:
        return f"{tier}.{name}={value:g} is out of range; it must be from {low:g} to {high:g}"
    if (tier, name) in COUNTS and value != int(value):
        return f"{tier}.{name}={value:g} must be a whole number"
    return None


def parse_assignments(values: list[str], flag: str) -> dict[tuple[str, str], float]:
    """Parse repeatable 'TIER.NAME=VALUE' options into {(tier, name): value}."""
    parsed: dict[tuple[str, str], float] = {}
    for raw in values:
        key, sep, number = raw.partition("=")
        tier, dot, name = key.strip().partition(".")
        if not sep or not dot or not tier or not name:
            raise SettingsError(f"{flag}: expected TIER.NAME=VALUE, got {raw!r}")
        try:
            parsed[(tier, name.strip())] = float(number)
        except ValueError:
            raise SettingsError(f"{flag}: {raw!r}: {number!r} is not a number") from None
    return parsed


def check_thresholds(parsed: dict[tuple[str, str], float], flag: str = "--sprout-threshold / sprout_thresholds") -> None:
    """Refuse an unknown tier or setting name, or a value out of its range, naming the valid ones."""
    for (tier, name), value in parsed.items():
        problem = threshold_problem(tier, name, value)
        if problem:
            raise SettingsError(f"{flag}: {problem}")


def parse_thresholds(values: list[str], flag: str = "--sprout-threshold") -> dict[tuple[str, str], float]:
    """Parse and validate --sprout-threshold / sprout_thresholds."""
    parsed = parse_assignments(values, flag)
    check_thresholds(parsed, flag)
    return parsed


def check_url(url: str, flag: str = "--llm-base-url") -> None:
    """An http(s) URL with a host, checked before any client is built (a malformed one would fail
    inside the HTTP client, deep in a traceback)."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018  (parses the port: "http://host:99999" raises here)
    except ValueError as exc:
        raise SettingsError(f"{flag}: {url!r} is not a valid URL ({exc})") from None
    if parts.scheme not in ("http", "https"):
        raise SettingsError(f"{flag}: {url!r} must start with http:// or https://")
    if not parts.hostname:
        raise SettingsError(f"{flag}: {url!r} names no host")
    if any(ch.isspace() or ord(ch) < 32 for ch in url):
        raise SettingsError(f"{flag}: {url!r} contains spaces or control characters")


def check_fraction(value: float, flag: str) -> None:
    if not (math.isfinite(value) and 0.0 <= value <= 1.0):
        raise SettingsError(f"{flag} must be a fraction from 0 to 1, got {value:g}")


def explicit_tiers(markexpr: str) -> set[str]:
    """Tiers that a -m expression asks for by name (not negated)."""
    words = re.findall(r"[A-Za-z_]+", markexpr or "")
    chosen = set()
    for i, word in enumerate(words):
        if word in TIERS and not (i > 0 and words[i - 1] == "not"):
            chosen.add(word)
    return chosen

