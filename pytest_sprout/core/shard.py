"""Splitting a run into shards (``--sprout-shard=K/N``): which shard each unit of work belongs to.

A unit is a case (every tier of a case lands in the same shard; the answer is asked once), or the
node id of any other test. Each unit starts in the shard its own hash names, so that a case keeps
its shard when other cases are added or removed; the shards are then balanced to within one unit
by moving the fewest units from the fullest shards (those whose second hash is highest, each to
the emptiest shard it ranks first). Adding one case to a dataset moves at most a handful of the
others (tests/test_shards.py measures it). Plain Python, no pytest import.
"""

from __future__ import annotations

import hashlib
import re
from typing import Iterable

from .errors import SettingsError

_SPEC = re.compile(r"^\s*(\d{1,6})\s*/\s*(\d{1,6})\s*$")


def parse_shard(value: str, where: str = "--sprout-shard") -> tuple[int, int]:
    """``"K/N"`` as (K, N) with 1 <= K <= N; anything else is a SettingsError naming ``where``."""
    match = _SPEC.match(str(value))
    if not match:
        raise SettingsError(f"{where}={value!r}: expected K/N, e.g. 2/4 (shard 2 of 4)")
    index, count = int(match[1]), int(match[2])
    if count < 1 or not 1 <= index <= count:
        raise SettingsError(f"{where}={value!r}: K must be from 1 to N and N at least 1")
    return index, count


def _hash(text: str) -> int:
    return int.from_bytes(hashlib.sha256(text.encode("utf-8", "backslashreplace")).digest()[:8], "big")


def assign(units: Iterable[str], count: int) -> dict[str, int]:
    """Each distinct unit's shard, from 1 to ``count``: deterministic, hash-based, balanced to
    within one unit (see the module)."""
    keys = sorted(set(units))
    shards: list[list[str]] = [[] for _ in range(count)]
    for key in keys:
        shards[_hash(key) % count].append(key)
    low, extra = divmod(len(keys), count)
    # The `extra` shards that keep one more unit: those that start fullest (ties: the lower index).
    by_size = sorted(range(count), key=lambda s: (-len(shards[s]), s))
    target = {s: low + (1 if rank < extra else 0) for rank, s in enumerate(by_size)}
    moving: list[str] = []
    for s in range(count):
        if len(shards[s]) > target[s]:
            shards[s].sort(key=lambda key: _hash("move:" + key))
            keep = target[s]
            moving += shards[s][keep:]
            del shards[s][keep:]
    moving.sort(key=lambda key: _hash("move:" + key))
    for key in moving:
        room = [s for s in range(count) if len(shards[s]) < target[s]]
        best = max(room, key=lambda s: _hash(f"{s}:{key}"))
        shards[best].append(key)
    return {key: s + 1 for s in range(count) for key in shards[s]}
