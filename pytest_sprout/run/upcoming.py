"""Which sprout items this process runs next: the one "cases coming up" mechanism.

Asking the system ahead (answers.py) and the batching of the tiers that judge many cases at once
(alce, llm) all ask the same question, so they share this answer; run.py asks it and hands the
answered cases to the answer source (``prefetch``) and to the tier (``prepare``):

- a plain run (and the xdist controller, which runs nothing): ``session.items`` from the item now
  running onward, in pytest's order;
- an xdist worker: the items the controller has already handed it and it has not run yet, read
  from xdist's ``WorkerInteractor`` (``item_index``, ``nextitem_index`` and the ``torun`` queue,
  under its lock and never changed). In a dist mode that may take queued items back (worksteal) only the item now
  running counts, so that nothing is asked on behalf of another worker.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator, Sequence

import pytest

from ..config.settings import get_settings
from ..core.util import is_xdist_worker

UPCOMING_KEY = pytest.StashKey["Upcoming"]()

# xdist modes in which the items queued on a worker stay there until it runs them (worksteal
# takes queued items back). "no" is what a worker parses from `-n N` alone, which means load.
KEEPS_QUEUE = {"no", "load", "loadscope", "loadfile", "loadgroup"}


class Upcoming:
    """``config`` finds xdist's WorkerInteractor (its plugin manager); ``dist`` is xdist's --dist as
    given on the command line (``Settings.dist_arg``: a worker overwrites config.option.dist)."""

    def __init__(self, config: Any, dist: str | None = None) -> None:
        self.config = config
        self.dist = dist
        self.items: Sequence[Any] = ()
        self._index: dict[int, int] = {}  # id(item) -> its position in self.items
        self._position = 0  # plain run: the position of the item now running
        self._interactor: Any = None
        self.worker = is_xdist_worker(config)

    def collected(self, items: Sequence[Any]) -> None:
        """After collection (and deselection): the items this process may run."""
        self.items = items
        self._index = {id(item): i for i, item in enumerate(items)}
        self._position = 0

    def started(self, item: Any) -> None:
        """The item pytest is about to run."""
        self._position = self._index.get(id(item), self._position)

    def _worker_indices(self) -> list[int]:
        if self._interactor is None:
            self._interactor = next(
                (p for p in self.config.pluginmanager.get_plugins() if hasattr(p, "torun")), False
            )
        interactor = self._interactor
        if not interactor:
            return []
        # item_index runs now; nextitem_index is already taken from the queue and runs next
        indices = [getattr(interactor, "item_index", None), getattr(interactor, "nextitem_index", None)]
        if self.dist in KEEPS_QUEUE:  # the worker overwrites config.option.dist: the command line's
            with interactor.torun.lock() as queued:
                indices += list(queued)
        return [i for i in indices if isinstance(i, int) and 0 <= i < len(self.items)]

    def iter_items(self, tier: str | None = None, available: Callable[[str], bool] | None = None) -> Iterator[Any]:
        """The sprout items coming up in this process, the one now running first (of one tier, or
        of the tiers ``available`` accepts)."""
        if self.worker:
            chosen: Iterator[Any] = (self.items[i] for i in self._worker_indices())
        else:
            chosen = (self.items[i] for i in range(self._position, len(self.items)))
        for item in chosen:
            if getattr(item, "case", None) is None:
                continue
            if (tier is None or item.tier == tier) and (available is None or available(item.tier)):
                yield item

    def cases(self, tier: str | None = None, limit: int | None = None,
              available: Callable[[str], bool] | None = None) -> list[Any]:
        """The distinct cases of the items coming up (see iter_items), in run order."""
        seen: dict[str, Any] = {}
        for item in self.iter_items(tier, available):
            seen.setdefault(item.case.id, item.case)
            if limit is not None and len(seen) >= limit:
                break
        return list(seen.values())


def get_upcoming(config: Any) -> Upcoming:
    if UPCOMING_KEY not in config.stash:
        config.stash[UPCOMING_KEY] = Upcoming(config, get_settings(config).dist_arg)
    return config.stash[UPCOMING_KEY]
