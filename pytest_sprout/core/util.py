"""Small helpers every layer may use: whether a pytest config is an xdist worker's, how a hash
is shown, how text goes into a Markdown table cell, and text that UTF-8 can always hold. Plain
Python, no imports from the package."""

from __future__ import annotations

import functools
from typing import Any


def is_xdist_worker(config: Any) -> bool:
    """True on a pytest-xdist worker (its config carries ``workerinput``); False in a plain run
    and on the xdist controller."""
    return hasattr(config, "workerinput")


def short_hash(digest: Any, missing: str = "unknown") -> str:
    """A SHA-256 (or any digest) as people read it: its first 12 characters; ``missing`` when
    there is none."""
    return str(digest or missing)[:12]


def md_cell(text: Any) -> str:
    """Text made inert in a Markdown table cell or line: backslashes and pipes escaped, ``<``
    written as an entity (no HTML), a newline as a space, a backtick as a quote (no code span)."""
    return (
        str(text).replace("\\", "\\\\").replace("<", "&lt;").replace("|", "\\|").replace("\n", " ").replace("`", "'")
    )


def clean_text(text: str) -> str:
    """``text`` with every code point that UTF-8 cannot hold (lone surrogates) escaped."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


def file_sha256(path: Any) -> str:
    """The SHA-256 of a file's bytes, read in blocks."""
    import hashlib

    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


# The folders whose code decides a verdict: the judges, the checks on them, and the data model and
# settings they read. A verdict cached by other code than this is never served (cache.py).
JUDGE_CODE = ("core", "judges", "checks")


@functools.cache
def judge_code_fingerprint() -> str:
    """The SHA-256 of the judges' own source files (their paths and bytes), computed once per
    process: a judge whose code changed is a cache miss, whether or not anyone bumped a version.
    Where the sources cannot be read (a zip install), the hash of the file list still differs by
    release only; the plugin version, also in every key, covers that case."""
    import hashlib
    from pathlib import Path

    package = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256()
    for folder in JUDGE_CODE:
        for path in sorted((package / folder).rglob("*.py")):
            digest.update(path.relative_to(package).as_posix().encode() + b"\0")
            try:
                digest.update(path.read_bytes())
            except OSError:
                digest.update(b"unreadable")
            digest.update(b"\0")
    return digest.hexdigest()
