"""Finding and reading an NLI model without torch or transformers: where a model name loads from
(a local folder or the Hugging Face cache; the hub only when it can be reached), what its JSON
files say (classifier or seq2seq, which class means entailment, how many tokens it takes, a
MiniCheck checkpoint), and the on-disk cache of its verdicts and of its files' digests.

The NLIJudge (nli.py) builds on this; the alce tier calls ``check_model`` before any worker starts.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.util import file_sha256
from .minicheck import Family

ENTAILMENT_LABELS = frozenset({"entailment", "entail", "entails", "entailed", "supported", "support", "supports"})
_HUB_ID = re.compile(r"[A-Za-z0-9][\w.-]*(/[\w.-]+)?\Z")


class NLIModelError(ValueError):
    """The model cannot be used: not found, offline, no entailment label, bad settings."""


# --- model resolution (no torch / transformers import) -----------------------------------------

def _hub_host() -> str:
    endpoint = os.environ.get("HF_ENDPOINT", "https://huggingface.co")
    return re.sub(r"^\w+://", "", endpoint).split("/")[0].split(":")[0]


def hub_reachable(timeout: float = 1.5) -> bool:
    """Whether a TCP connection to the hub opens within ``timeout`` seconds (DNS included)."""
    import socket

    result: list[bool] = []

    def probe() -> None:
        try:
            socket.create_connection((_hub_host(), 443), timeout=timeout).close()
            result.append(True)
        except OSError:
            result.append(False)

    thread = threading.Thread(target=probe, daemon=True)
    thread.start()
    thread.join(timeout)
    return bool(result and result[0])


def _offline_flag() -> bool | None:
    value = os.environ.get("HF_HUB_OFFLINE")
    if value is None:
        return None
    return value.strip().lower() in {"1", "true", "yes", "on"}


@dataclass(frozen=True)
class ModelSource:
    """Where the model comes from: a local folder, or a hub id (cached or to download)."""

    name: str  # what the user passed
    path: str  # a local folder, or the hub id
    folder: Path | None  # the local folder holding the files, when known before loading
    local_only: bool  # load without touching the network


def resolve_model(name: str) -> ModelSource:
    """Decide, before transformers is imported, where ``name`` loads from and whether the network
    may be used. Raises NLIModelError at once for a folder that does not exist, or a hub id that
    is not in the local Hugging Face cache while the hub is unreachable or HF_HUB_OFFLINE is set.
    """
    path = Path(name).expanduser()
    if path.exists():
        if not path.is_dir() or not (path / "config.json").is_file():
            raise NLIModelError(
                f"{name!r} is not a model folder (no config.json in it); pass a folder written by "
                "save_pretrained, or a Hugging Face model id"
            )
        return ModelSource(name, str(path), path, True)
    if not _HUB_ID.match(name) or name.startswith((".", "~")):
        where = "" if path.is_absolute() else f" (relative to {Path.cwd()})"
        raise NLIModelError(f"{name!r}: no such folder{where}")
    from huggingface_hub import try_to_load_from_cache

    cached = try_to_load_from_cache(name, "config.json")
    if isinstance(cached, str):
        return ModelSource(name, name, Path(cached).parent, True)
    offline = _offline_flag()
    where = f"not a local folder, and not in the Hugging Face cache ({_hf_cache_dir()})"
    if offline:
        raise NLIModelError(
            f"{name!r} is {where}, and HF_HUB_OFFLINE is set, so it cannot be downloaded. "
            f"Download it where there is network (hf download {name}) or pass a local folder"
        )
    if offline is None and not hub_reachable():
        os.environ["HF_HUB_OFFLINE"] = "1"  # nothing can be downloaded: spare every later retry
        raise NLIModelError(
            f"{name!r} is {where}, and {_hub_host()} cannot be reached. Download it where there is "
            f"network (hf download {name}) or pass a local folder"
        )
    return ModelSource(name, name, None, False)


def check_model(name: str, entail_label: int | None = None, trust_remote_code: bool = False) -> None:
    """The cheap checks (no torch, no transformers): the model is found, its config.json names an
    entailment class (or ``entail_label`` picks one, or it is a seq2seq or MiniCheck model), and it
    needs no code of its own unless ``trust_remote_code``. Raises NLIModelError."""
    source = resolve_model(name)
    if source.folder is not None:  # else: to be downloaded, checked when loaded
        model_meta(source.folder, name, entail_label, trust_remote_code)


def _hf_cache_dir() -> str:
    from huggingface_hub import constants

    return str(constants.HF_HUB_CACHE)


def nli_extra_missing() -> list[str]:
    """The packages of the ``nli`` extra that are not installed (cheap: no import)."""
    return [m for m in ("torch", "transformers") if importlib.util.find_spec(m) is None]


# --- label mapping ----------------------------------------------------------------------------

def entailment_index(id2label: dict[Any, str]) -> int:
    """The class index whose label names entailment ('entailment', 'ENTAILMENT', 'entail',
    'supported', ...); 'not_entailment' does not count. Raises NLIModelError otherwise."""
    found = [int(i) for i, label in id2label.items()
             if re.sub(r"[^a-z]+", "_", str(label).lower()).strip("_") in ENTAILMENT_LABELS]
    if len(found) == 1:
        return found[0]
    labels = {int(k): v for k, v in id2label.items()}
    why = "several labels name entailment" if found else "no label names entailment"
    hint = (f"; or pass --nli-entail-label=N with the class N ({' or '.join(map(str, sorted(labels)))}) that means "
            "supported/entailed") if len(labels) == 2 else ""
    raise NLIModelError(
        f"{why} in the model's id2label {labels}; an NLI model needs exactly one class called "
        f"'entailment' (or 'entail', 'supported'). Fix id2label in the model's config.json{hint}"
    )


# --- disk cache -------------------------------------------------------------------------------

class VerdictCache:
    """Entailment probabilities on disk (SQLite; safe with several xdist workers writing). A
    cache that cannot be read or written only costs time: errors read as misses."""

    @classmethod
    def open(cls, folder: Path) -> VerdictCache | None:
        try:
            return cls(folder)
        except (OSError, sqlite3.Error):
            return None

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / "nli-verdicts.sqlite3"
        self.db = sqlite3.connect(self.path, timeout=30.0, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("CREATE TABLE IF NOT EXISTS verdicts (key TEXT PRIMARY KEY, prob REAL, how TEXT, ev_start INTEGER, ev_end INTEGER)")
        self.db.execute("CREATE TABLE IF NOT EXISTS digests (path TEXT PRIMARY KEY, size INTEGER, mtime_ns INTEGER, sha256 TEXT)")
        self.db.commit()

    def get_many(self, keys: list[str]) -> dict[str, tuple[float, str, int, int]]:
        found: dict[str, tuple[float, str, int, int]] = {}
        try:
            for i in range(0, len(keys), 500):
                part = keys[i:i + 500]
                rows = self.db.execute(
                    f"SELECT key, prob, how, ev_start, ev_end FROM verdicts WHERE key IN ({','.join('?' * len(part))})", part
                )
                for key, prob, how, a, b in rows:
                    found[key] = (prob, how, a, b)
        except sqlite3.Error:
            pass
        return found

    def put_many(self, rows: list[tuple[str, float, str, int, int]]) -> None:
        try:
            with self.db:
                self.db.executemany("INSERT OR REPLACE INTO verdicts VALUES (?, ?, ?, ?, ?)", rows)
        except sqlite3.Error:
            pass

    def file_digest(self, path: Path) -> str:
        """SHA-256 of a file, read in full once per (path, size, mtime)."""
        stat = path.stat()
        real = str(path.resolve())
        try:
            row = self.db.execute("SELECT size, mtime_ns, sha256 FROM digests WHERE path = ?", (real,)).fetchone()
        except sqlite3.Error:
            row = None
        if row and row[0] == stat.st_size and row[1] == stat.st_mtime_ns:
            return str(row[2])
        digest = file_sha256(path)
        try:
            with self.db:
                self.db.execute("INSERT OR REPLACE INTO digests VALUES (?, ?, ?, ?)", (real, stat.st_size, stat.st_mtime_ns, digest))
        except sqlite3.Error:
            pass
        return digest


@dataclass(frozen=True)
class ModelMeta:
    """What the model's JSON files say about reading it (no transformers needed)."""

    kind: str  # "classifier" or "seq2seq"
    entail_index: int  # the classifier's supported class (-1 for a seq2seq model)
    label: str  # that class's label, or the seq2seq answer meaning entailed
    limit: int  # the most tokens the model takes
    minicheck: Family | None = None  # a MiniCheck checkpoint: read as its reference code does


def model_meta(folder: Path, name: str | None = None, entail_label: int | None = None,
               trust_remote_code: bool = False) -> ModelMeta:
    """From the model's JSON files, without transformers. Refuses a model that needs its own code
    (``auto_map`` in its config) unless ``trust_remote_code``, and a classifier whose entailment
    class is neither named in ``id2label`` nor given as ``entail_label``."""
    from .minicheck import SUPPORTED_INDEX, family_of

    try:
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise NLIModelError(f"cannot read {folder / 'config.json'}: {exc}") from None
    try:
        tok_config = json.loads((folder / "tokenizer_config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        tok_config = {}
    if (config.get("auto_map") or tok_config.get("auto_map")) and not trust_remote_code:
        raise NLIModelError(
            f"{name or folder} ships its own Python code (auto_map in its config), which transformers "
            "would run on this machine with your permissions; pass --nli-trust-remote-code "
            "(NLIJudge(trust_remote_code=True)) if you trust its author"
        )
    family = family_of(config, _own_names(folder, name))
    if config.get("is_encoder_decoder"):
        kind, index, label = "seq2seq", -1, "1"
        positions = config.get("n_positions")
    else:
        id2label = config.get("id2label") or {i: f"LABEL_{i}" for i in range(int(config.get("num_labels", 2)))}
        labels = {int(k): str(v) for k, v in id2label.items()}
        kind = "classifier"
        if entail_label is not None:
            if entail_label not in labels:
                raise NLIModelError(
                    f"--nli-entail-label={entail_label}: the model has classes {sorted(labels)} ({labels})"
                )
            index = entail_label
        elif family is not None:
            index = SUPPORTED_INDEX
        else:
            index = entailment_index(id2label)
        label = labels[index]
        positions = config.get("max_position_embeddings")
    limits = [x for x in (positions, tok_config.get("model_max_length")) if isinstance(x, (int, float)) and 0 < x < 1_000_000]
    limit = int(min(limits)) if limits else 512
    if family is not None:
        limit = family.max_length  # the reference's max_model_len (relative positions: T5, DeBERTa)
    return ModelMeta(kind, index, label, limit, family)


def _own_names(folder: Path, name: str | None) -> list[str]:
    """The names a model goes by: its folder's (not its parents'), its hub repository's for a
    download (``models--org--name/snapshots/<commit>``), and the hub id it was asked by."""
    names = [folder.name]
    if folder.parent.name == "snapshots":
        names.append(folder.parent.parent.name)
    if name and not Path(name).expanduser().exists():
        names.append(name)
    return names


def _hub_folder(repo_id: str) -> Path | None:
    from huggingface_hub import try_to_load_from_cache

    cached = try_to_load_from_cache(repo_id, "config.json")
    return Path(cached).parent if isinstance(cached, str) else None
