"""docs/architecture.md stays true to the tree: every module of the package is named in the
paragraph of its folder ("**core/.**", "**judges/lexical/.**", "**top.**" for the modules at the
top) by its name in backticks (`shard`), in the paragraph of its top folder by its path from there
(`lexical/names` under "**judges/.**"), or anywhere in the page by its path (`core/shard.py`). A
module added without a word about it fails here."""

from __future__ import annotations

import re
from pathlib import Path

import pytest_sprout

PACKAGE = Path(pytest_sprout.__file__).parent
DOC = PACKAGE.parent / "docs" / "architecture.md"


def folder_paragraphs(text: str) -> dict[str, str]:
    """{folder or "top": its paragraphs}: from a line opening with **folder/.** (or
    **folder/sub/.**, or **top.**) to the next such line or heading."""
    found: dict[str, str] = {}
    current = None
    for line in text.splitlines():
        opening = re.match(r"\*\*([a-z_/]+?)(/)?\.\*\*", line)
        if opening:
            current = opening.group(1) if opening.group(2) else "top"
        elif line.startswith("#"):
            current = None
        if current is not None:
            found[current] = found.get(current, "") + line + "\n"
    return found


def named_in(module: str, paragraphs: dict[str, str], text: str) -> bool:
    """Whether ``module`` (a path inside the package, without .py) is named in the page."""
    if re.search(rf"`(pytest_sprout/)?{re.escape(module)}(\.py)?`", text):
        return True
    folder, _, name = module.rpartition("/")
    places = [(folder or "top", name)]  # its own folder's paragraph, by name
    if folder.count("/"):  # a sub-folder's module, in its top folder's paragraph by its path from there
        top, _, below = module.partition("/")
        places.append((top, below))
    return any(re.search(rf"`{re.escape(name)}(\.py)?`", paragraphs.get(where, "")) for where, name in places)


def package_modules() -> list[str]:
    """Every module of the package as a path without .py; a package's __init__ is its folder's,
    and so is not asked for, but the top one (the public API) is."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).with_suffix("").as_posix()
        if "__pycache__" in path.parts or (relative.endswith("/__init__")):
            continue
        found.append(relative)
    return found


def test_every_module_is_named_in_the_architecture_page() -> None:
    text = DOC.read_text(encoding="utf-8")
    paragraphs = folder_paragraphs(text)
    missing = [m for m in package_modules() if not named_in(m, paragraphs, text)]
    assert missing == [], ("docs/architecture.md does not name these modules (add each to its folder's "
                           f"paragraph, in backticks, with what it does): {missing}")


def test_the_check_sees_a_missing_module_and_a_named_one() -> None:
    text = ("**core/.** `model` and `tier`.\n\n**judges/.** `lexical/names`, `alce`.\n\n"
            "**judges/lexical/.** `judge` and `scan`.\n\n"
            "## Elsewhere\n\n`shard` here is not in core's paragraph; `core/paths.py` is named by path.\n"
            "**top.** `plugin`.\n")
    paragraphs = folder_paragraphs(text)
    assert set(paragraphs) == {"core", "judges", "judges/lexical", "top"}
    assert named_in("judges/lexical/judge", paragraphs, text) and not named_in("judges/judge", paragraphs, text)
    assert named_in("core/model", paragraphs, text) and named_in("judges/lexical/names", paragraphs, text)
    assert named_in("core/paths", paragraphs, text) and named_in("plugin", paragraphs, text)
    assert not named_in("core/shard", paragraphs, text)  # named, but not where its folder is described
    assert not named_in("judges/lexical/rules", paragraphs, text)
    assert not named_in("judges/names", paragraphs, text)  # lexical/names is not judges/names
    assert not named_in("session", paragraphs, text)
