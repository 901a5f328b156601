"""The tier protocol, in the base layer: what a judge tier module defines, what a tier is built
from (``TierSettings``) and what it concludes (``TierResult``). No pytest import.

The tiers themselves are registered in model.py (``TIER_SPECS``, with the data model's other
vocabulary: a case's default tiers are its names); they are importable from here too.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Protocol

from .model import TIER_SPECS as TIER_SPECS
from .model import TIERS as TIERS
from .model import GoldenItem


def unknown_tier(tier: str, where: str = "") -> str:
    """The words for a tier name that is not one, naming the tier meant when the name is that of
    an extra or an option family (``nli``: the ``[nli]`` extra and ``--nli-model`` are the
    ``alce`` tier's) or differs from one only in case or spaces, then every known tier. ``where`` follows the name
    (" in nli.recall")."""
    known = f"known tiers: {', '.join(TIER_SPECS)}"
    wanted = str(tier).strip().lower()
    for spec in TIER_SPECS.values():
        if wanted == spec.name:
            return f"unknown tier {tier!r}{where} (did you mean {spec.name!r}?); {known}"
    for spec in TIER_SPECS.values():
        if spec.extra and wanted == spec.extra.lower() and spec.extra != spec.name:
            return (f"unknown tier {tier!r}{where} (the {spec.extra.upper()} tier is called {spec.name!r}: "
                    f"the [{spec.extra}] extra and the --{spec.extra}-* options are its); {known}")
    return f"unknown tier {tier!r}{where}; {known}"


# A tier module (judges/<tier>.py) defines:
#
# - ``OPTIONS`` (when it reads any): the option names (config dests) it reads from
#   ``TierSettings.options``;
# - ``unavailable(settings) -> str | None``: cheap (no heavy import), why the tier cannot run with
#   these settings (an option not given, an extra not installed), or None;
# - ``make_tier(settings) -> Tier``: builds the tier once per process (heavy imports happen here);
#   raises TierUnusable when its judge cannot be used (a model that is not found).
#
# Tiers never see pytest, the session or the queue of items: the run layer (run.py) reads the
# options, builds the settings, and hands a tier that judges in batches the answered cases coming
# up (``prepare``).


@dataclass
class TierResult:
    """What one tier concluded about one answered case.

    ``passed`` is True/False, or None when the tier could not score the item at all (the item is
    then reported as unscored, never as a pass or a fail). ``metrics`` maps a metric name to its
    outcomes for this item: True/False (pass/fail), a float (continuous score) or None (unscored).
    """

    passed: bool | None
    metrics: dict[str, list[Any]] = field(default_factory=dict)
    sentences: list[dict[str, Any]] = field(default_factory=list)
    message: str = ""  # the failure text, one screen at most
    note: str = ""  # one line, for unscored items and the report
    extra: dict[str, Any] = field(default_factory=dict)  # tier-specific JSON-able details
    # Why each failed metric failed: dicts with "metric" and a one-line "why", plus details
    # (the missing fact and its best near miss, the unsupported sentence with rule and evidence).
    reasons: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class TierSettings:
    """What a tier is built from, as plain values: the run's thresholds (``--sprout-threshold``),
    the values of the tier's own options, where it may keep a disk cache, and how it runs."""

    thresholds: Mapping[tuple[str, str], float] = field(default_factory=dict)
    options: Mapping[str, Any] = field(default_factory=dict)  # option dest -> value (missing: None)
    # A folder for the tier's own disk cache, by name (created on call); None: no disk cache.
    cache_dir: Callable[[str], Any] | None = None
    workers: int | None = None  # xdist workers sharing this machine's cores; None outside xdist
    # The run names this tier (-m TIER) and this process decides before anything runs (a plain run
    # or the xdist controller): unavailable() may then check more (load a model's config).
    explicit: bool = False

    def threshold(self, tier: str, name: str, default: float) -> float:
        return self.thresholds.get((tier, name), default)

    def option(self, dest: str) -> Any:
        return self.options.get(dest)


class Tier(Protocol):
    """A built tier. ``settings()`` is JSON-able and part of every cache key. A tier that judges
    in batches also has ``prepared(item) -> bool`` and ``prepare(items)``: the run layer hands it
    the answered cases coming up in this process, the item about to be judged first, and
    ``evaluate`` then reads back what was judged. A tier with ``close()`` has it called at the end."""

    name: str

    def settings(self) -> dict[str, Any]: ...

    def evaluate(self, item: GoldenItem) -> TierResult: ...
