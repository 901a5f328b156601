"""Optional dependencies of the ragas and llm tiers: checked cheaply, imported quietly.

Ragas and DeepEval send usage telemetry and DeepEval reads ``.env`` files when imported. Before
the first import this module sets ``RAGAS_DO_NOT_TRACK=true``, ``DEEPEVAL_TELEMETRY_OPT_OUT=1``
and ``DEEPEVAL_DISABLE_DOTENV=1``, unless the user has set them already.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
from types import ModuleType

QUIET_ENV: dict[str, str] = {
    "RAGAS_DO_NOT_TRACK": "true",
    "DEEPEVAL_TELEMETRY_OPT_OUT": "1",
    "DEEPEVAL_DISABLE_DOTENV": "1",
}

# The top-level modules each extra provides.
EXTRAS: dict[str, tuple[str, ...]] = {
    "ragas": ("ragas",),
    "llm": ("ragas", "deepeval", "openai", "httpx", "aiohttp"),
}


class MissingExtra(ImportError):
    """An optional dependency is not installed; the message is the one line to act on."""


def install_hint(extra: str) -> str:
    return f'pip install "pytest-sprout[{extra}]"'


def missing(extra: str) -> str | None:
    """Why the extra is not usable (one line with the pip command), or None. Imports nothing."""
    absent = [name for name in EXTRAS[extra] if importlib.util.find_spec(name) is None]
    if not absent:
        return None
    return f"the {extra} tier needs {', '.join(absent)}: {install_hint(extra)}"


def quiet_env() -> None:
    """Turn off Ragas/DeepEval telemetry and DeepEval's .env loading, unless the user chose."""
    for key, value in QUIET_ENV.items():
        os.environ.setdefault(key, value)


def load(name: str, extra: str) -> ModuleType:
    """Import an optional module after `quiet_env`; a missing one raises `MissingExtra`."""
    quiet_env()
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        raise MissingExtra(f"cannot import {name} ({exc}): {install_hint(extra)}") from None
