"""Small helpers every layer may use: whether a pytest config is an xdist worker's, how a hash
is shown, how text goes into a Markdown table cell, text that UTF-8 can always hold, and work
done with the cyclic garbage collector paused. Plain Python, no imports from the package."""

from __future__ import annotations

import functools
import gc
import re
from contextlib import contextmanager
from typing import Any, Iterator


def is_xdist_worker(config: Any) -> bool:
    """True on a pytest-xdist worker (its config carries ``workerinput``); False in a plain run
    and on the xdist controller."""
    return hasattr(config, "workerinput")


@contextmanager
def collector_paused() -> Iterator[None]:
    """Run the block with Python's cyclic garbage collector paused, and leave it as it was found
    (a caller that had disabled it keeps it disabled). For work that builds a great many objects
    holding no cycle that live on (a large suite's YAML nodes, a merge's rows): each automatic
    collection would walk them all again as they pile up."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def short_hash(digest: Any, missing: str = "unknown") -> str:
    """A SHA-256 (or any digest) as people read it: its first 12 characters; ``missing`` when
    there is none."""
    return str(digest or missing)[:12]


# What a terminal or a report must not receive raw: C0 controls (tab, newline and carriage return
# are kept where asked), DEL, C1 controls, lone surrogates and the two non-characters U+FFFE/FFFF.
_UNSAFE_CLASS = "\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff"
UNSAFE_TEXT = re.compile(f"[{_UNSAFE_CLASS}]")  # refused in suite text
# Shown escaped too, though a suite may hold them (right-to-left text uses the marks): the bidi
# controls, format characters that reorder what a terminal or a log viewer shows (Trojan Source):
# the embeddings and overrides U+202A-202E, the isolates U+2066-2069, the marks U+200E/200F and
# U+061C.
BIDI_CONTROLS = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
BIDI = re.compile(f"[{BIDI_CONTROLS}]")
_UNSAFE = re.compile(f"[{_UNSAFE_CLASS}{BIDI_CONTROLS}]")
_UNSAFE_ALL = re.compile(f"[{_UNSAFE_CLASS}{BIDI_CONTROLS}\t\n\r]")
_MD_ESCAPES = str.maketrans({
    "\\": "\\\\", "|": "\\|", "[": "\\[", "]": "\\]", "(": "\\(", ")": "\\)", "!": "\\!",
    "<": "&lt;", "`": "'", "\n": " ", "@": "@\u200b",
})


def _escaped(match: Any) -> str:
    return ascii(match.group())[1:-1]  # '\x1b', '\ud83c', '\x85'


def safe_text(text: Any, *, lines: bool = True) -> str:
    """``text`` fit for a terminal and a report: every control character (newline and tab kept
    when ``lines``), DEL, C1 control, lone surrogate, non-character and bidi control written as its
    Python escape (``\x1b`` becomes the four characters ``\x1b``, U+202E the six ``\u202e``), so
    suite data or a system's answer cannot move the cursor, hide text, retitle the terminal or
    reorder what it shows."""
    text = str(text)
    return (_UNSAFE if lines else _UNSAFE_ALL).sub(_escaped, text)


def bidi_escaped(text: str) -> str:
    """``text`` with its bidi controls (only) written as escapes: for HTML, which escapes the rest."""
    return BIDI.sub(_escaped, text)


def md_cell(text: Any) -> str:
    """Text made inert in a Markdown table cell or line: backslashes, pipes and the link and image
    marks (``[ ] ( ) !``) escaped, ``<`` written as an entity (no HTML), a newline as a space, a
    backtick as a quote (no code span), ``@`` followed by a zero-width space (no mention) and
    control characters written as escapes (``safe_text``)."""
    return safe_text(str(text).replace("\n", " "), lines=False).translate(_MD_ESCAPES)


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
