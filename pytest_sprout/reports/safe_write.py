"""Safe writes for every file the plugin writes: a report, the snapshot, a golden set, a cache entry
is written whole or not at all (a temporary file in the same folder, then a rename), and a report
path is checked before anything runs (``output_problem``); ``clean_stale_tmp`` removes what a
writer killed mid-write (kill -9) left next to a file. Plain Python, no pytest import."""

from __future__ import annotations

import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any, Callable, TextIO


def atomic_write_text(path: str | os.PathLike[str], text: str) -> None:
    """Write via a temporary file in the same folder and a rename: never a torn file."""
    atomic_write(path, lambda handle: handle.write(text))


def atomic_write(path: str | os.PathLike[str], write: Callable[[TextIO], Any]) -> None:
    """Call ``write(handle)`` on a temporary file in the same folder, then rename it over
    ``path``: never a torn file, however much ``write`` streams into it."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        # backslashreplace: text UTF-8 cannot hold (a lone surrogate in a system's error message)
        # is written escaped, never a UnicodeEncodeError after the whole run.
        with os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace") as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp creates 0600; give the usual permissions
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def dumps(data: Any) -> str:
    """The JSON text every report and snapshot file uses (indented, keys sorted, UTF-8 kept):
    byte for byte ``json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False)``, which with an
    indent runs the pure-Python encoder's generators; this builds the same text about 1.5x faster
    (strings through the C escaper) and falls back to ``json.dumps`` for anything but plain JSON
    values (a key that is not a string, another type, a cycle or very deep nesting)."""
    parts: list[str] = []
    try:
        _encode(data, "\n", 0, parts.append)
    except (_Unusual, RecursionError):
        return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False)
    return "".join(parts)


class _Unusual(Exception):
    """A value the fast encoder leaves to ``json.dumps`` (which may also refuse it)."""


_escape = json.encoder.encode_basestring  # the C escaper of ensure_ascii=False
_INFINITY = float("inf")


def _encode(o: Any, nl: str, depth: int, append: Callable[[str], Any]) -> None:
    kind = type(o)
    if kind is str:
        append(_escape(o))
    elif o is None:
        append("null")
    elif o is True:
        append("true")
    elif o is False:
        append("false")
    elif kind is int:
        append(int.__repr__(o))
    elif kind is float:
        append("NaN" if o != o else "Infinity" if o == _INFINITY else "-Infinity" if o == -_INFINITY
               else float.__repr__(o))
    elif kind is dict or kind is list or kind is tuple:
        if not o:
            append("{}" if kind is dict else "[]")
            return
        if depth > 100:
            raise _Unusual
        inner = nl + "  "
        sep = ("{" if kind is dict else "[") + inner
        if kind is dict:
            if not all(type(key) is str for key in o):
                raise _Unusual
            for key, value in sorted(o.items()):
                append(sep)
                append(_escape(key))
                append(": ")
                _encode(value, inner, depth + 1, append)
                sep = "," + inner
            append(nl + "}")
        else:
            for value in o:
                append(sep)
                _encode(value, inner, depth + 1, append)
                sep = "," + inner
            append(nl + "]")
    else:
        raise _Unusual


def write_json(path: str | os.PathLike[str], data: Any) -> None:
    atomic_write_text(path, dumps(data) + "\n")


def remove_stale(path: str | os.PathLike[str]) -> str:
    """After a failed write: remove the file an earlier run left at ``path``, so that it cannot
    pass for this run's output. Returns what the message about the failure adds."""
    try:
        if not Path(path).is_file():
            return ""
        Path(path).unlink()
    except OSError as exc:
        return f"; the old file there could not be removed ({exc.strerror or exc}) and is NOT this run's"
    return "; the old file there was removed (it was not this run's)"


def output_problem(path: Path) -> str | None:
    """Why a report cannot be written at ``path``, or None when it can. The folder may be missing
    (it is created), as long as it could be: every existing ancestor must be a writable folder."""
    if path.is_dir():
        return "is a directory; give a file name"
    folder = path.parent
    while not folder.exists():
        if folder.parent == folder:
            break
        folder = folder.parent
    if not folder.is_dir():
        return f"{folder} is not a folder"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"the folder {folder} is not writable"
    if path.exists() and not os.access(path, os.W_OK) and not os.access(folder, os.W_OK):
        return "the file is read-only"
    return _probe(folder) if folder == path.parent else None


def _probe(folder: Path) -> str | None:
    """Try to create a file in the folder: permission bits do not tell (a read-only mount)."""
    try:
        fd, name = tempfile.mkstemp(prefix=".sprout-probe.", suffix=".tmp", dir=folder)
    except OSError as exc:
        return f"cannot write in the folder {folder} ({exc.strerror or exc})"
    os.close(fd)
    os.unlink(name)
    return None


def clean_stale_tmp(path: Path) -> list[Path]:
    """Remove the temporary files an earlier writer of ``path`` left behind (killed mid-write).
    Called on the controller before the run, when no other writer of this report runs."""
    removed: list[Path] = []
    folder = path.parent
    if not folder.is_dir():
        return removed
    for tmp in folder.glob(f".{glob_escape(path.name)}.*.tmp"):
        try:
            tmp.unlink()
            removed.append(tmp)
        except OSError:
            pass
    return removed


def glob_escape(name: str) -> str:
    return re.sub(r"([*?\[])", r"[\1]", name)
