"""What a report says about the judges that made its verdicts, and how two reports' judging is
compared (plain Python, no pytest).

- ``judging``: the settings that decide a verdict, from the run's options alone (known before
  anything runs): the thresholds, each tier's judging options (``--sprout-citations``, the NLI
  model, the LLM endpoint's model ...; not the API key, devices, batch sizes or timeouts) and
  ``--sprout-mutate``. Every report carries it (a shard's also under ``shard.judging``).
- ``judges``: per tier that judged in the run, what its judge is: ``name``, ``version`` (the
  lexical rules' version, the Ragas version, else the plugin's), its ``settings()`` (as every cache
  key takes them), its ``calibration`` id and its model's ``fingerprint`` (None where it has none).

``--sprout-compare`` and ``--sprout-fail-on=new`` refuse a baseline whose judging differs from this
run's on a tier both judged (``judging_difference``, ``judges_difference``), naming the setting,
unless ``--sprout-compare-any-judging``: a change of the judge is not a change of the system.
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterable, Mapping

_USERINFO = re.compile(r"(?<=://)[^/@\s]+@")  # "https://user:token@host/v1": the part a report must not hold


def scrubbed(value: Any) -> Any:
    """``value`` with the credentials a URL may carry (``user:token@``) masked, at any depth: the
    reports hold the judges' settings, and an endpoint's URL is one of them."""
    if isinstance(value, str):
        return _USERINFO.sub("***@", value)
    if isinstance(value, Mapping):
        return {k: scrubbed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [scrubbed(v) for v in value]
    return value


def find(settings: Any, key: str) -> Any:
    """The first value of ``key`` anywhere in a nested settings dict (depth first), else None."""
    if isinstance(settings, Mapping):
        if settings.get(key) is not None:
            return settings[key]
        for value in settings.values():
            found = find(value, key)
            if found is not None:
                return found
    return None


def judge_record(name: str, tier: Any) -> dict[str, Any]:
    """One tier's entry of the report's ``judges`` (see the module)."""
    from .version import __version__

    settings = scrubbed(json.loads(json.dumps(tier.settings(), sort_keys=True, default=str)))
    version = find(settings, "rules_version") or find(settings, "ragas") or __version__
    return {"name": name, "version": str(version), "settings": settings,
            "calibration": find(settings, "calibration"), "fingerprint": find(settings, "fingerprint")}


def _show(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)[:80]


def judging_difference(old: Mapping[str, Any], new: Mapping[str, Any], options: Mapping[str, Iterable[str]],
                       tiers: Iterable[str]) -> list[str]:
    """The judging settings that differ between two ``judging`` records, for the ``tiers`` given:
    ``options`` maps a tier to the options it reads; a threshold counts for its own tier."""
    tiers = set(tiers)
    keys = {"sprout_mutate"} | {dest for tier in tiers for dest in options.get(tier, ())}
    out = [f"{key}: {_show(old.get(key))} then, {_show(new.get(key))} now"
           for key in sorted(keys) if key in old or key in new if old.get(key) != new.get(key)]
    before, after = old.get("thresholds") or {}, new.get("thresholds") or {}
    for name in sorted(set(before) | set(after)):
        if str(name).split(".", 1)[0] in tiers and before.get(name) != after.get(name):
            out.append(f"threshold {name}: {_show(before.get(name))} then, {_show(after.get(name))} now")
    return out


def _without_fingerprint(settings: Any) -> Any:
    if isinstance(settings, Mapping):
        return {k: _without_fingerprint(v) for k, v in settings.items() if k != "fingerprint"}
    return settings


def judges_difference(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """What differs between two reports' ``judges``, on the tiers both name. A fingerprint counts
    only where both know it (a run without a disk cache does not hash the model's files)."""
    out = []
    for tier in sorted(set(old) & set(new)):
        a, b = old[tier], new[tier]
        if not isinstance(a, Mapping) or not isinstance(b, Mapping):
            continue
        for key in ("version", "calibration", "fingerprint"):
            if key == "fingerprint" and (a.get(key) is None or b.get(key) is None):
                continue
            if a.get(key) != b.get(key):
                out.append(f"{tier} judge {key}: {_show(a.get(key))} then, {_show(b.get(key))} now")
        settings_a, settings_b = (_without_fingerprint(x.get("settings") or {}) for x in (a, b))
        if settings_a != settings_b and not any(line.startswith(f"{tier} ") for line in out):
            keys = sorted(k for k in set(settings_a) | set(settings_b) if settings_a.get(k) != settings_b.get(k))
            out.append(f"{tier} judge settings() differ in {', '.join(keys[:5])}: "
                       f"{_show({k: settings_a.get(k) for k in keys[:3]})} then, "
                       f"{_show({k: settings_b.get(k) for k in keys[:3]})} now")
    return out
