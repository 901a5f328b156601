"""Whether two paths name one file, and the check every command makes before it writes anything:
no output path may be one of its inputs, or another output (plain Python, no pytest).

Paths are compared resolved (``os.path.realpath``: ``./a.json``, ``sub/../a.json`` and a link to it
are one file) and, where both exist, with ``os.path.samefile`` (a hard link, or a path through
another mount of the same folder). The caller turns the problem into its own usage error.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable, Sequence

Role = tuple[str, "str | os.PathLike[str]"]  # (what it is, as the user would name it: "--out X"), path


def same_file(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    """Whether ``a`` and ``b`` name the same file (the same resolved path, or one file on disk)."""
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist (yet): the resolved paths decided
        return False


def clash(outputs: Sequence[Role], inputs: Iterable[Role] = ()) -> tuple[str, str, bool] | None:
    """(output, other, other is an input) for the first output that is also an input (``other`` is
    the input's role) or the path of an earlier output, else None. Roles are shown as given."""
    sources = list(inputs)
    for index, (role, path) in enumerate(outputs):
        for other, source in sources:
            if same_file(path, source):
                return role, other, True
        for other, earlier in outputs[:index]:
            if same_file(path, earlier):
                return role, other, False
    return None


def clash_message(outputs: Sequence[Role], inputs: Iterable[Role] = ()) -> str | None:
    """The usage error for ``clash``, or None: "--out X is also --golden X: refusing to overwrite it"."""
    found = clash(outputs, inputs)
    if found is None:
        return None
    role, other, is_input = found
    if is_input:
        return f"{role} is also {other}: refusing to overwrite it; write the output to another path"
    return (f"{role} and {other} name the same file: two outputs on one path would keep only the last; "
            "give each its own")


def options_clash(outputs: Sequence[tuple[str, str | None]], inputs: Sequence[tuple[str, str | None]]) -> str | None:
    """``clash_message`` for a command line's options, each (flag, path or None when not given):
    "--out a.json is also --data a.json: refusing to overwrite it; ..."."""
    return clash_message([(f"{flag} {path}", path) for flag, path in outputs if path],
                         [(f"{flag} {path}", path) for flag, path in inputs if path])


def shown(path: str | os.PathLike[str], root: str | os.PathLike[str] | None = None) -> str:
    """A path as the user reads it: relative to ``root`` when it lies inside it."""
    p = Path(path)
    if root is not None:
        try:
            return p.relative_to(root).as_posix()
        except ValueError:
            pass
    return str(p)
