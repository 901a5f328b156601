"""The package's shape (docs/architecture.md): every module sits in one layer, and no module
imports from a layer above its own. Read from the source with `ast`, lazy imports inside
functions included, so a shortcut taken today fails here instead of growing a circle."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest_sprout

PACKAGE = Path(pytest_sprout.__file__).parent

# Bottom to top. A module is named by its dotted path inside the package; a package name stands
# for every module under it.
LAYERS: list[tuple[str, list[str]]] = [
    ("core", ["core"]),
    ("suites", ["suites"]),
    ("judges", ["judges"]),
    ("checks on the judges", ["checks"]),
    ("config", ["config"]),
    ("answers", ["answers"]),
    ("run", ["run"]),
    ("reports", ["reports"]),
    ("snapshot", ["snapshot"]),
    ("controller", ["controller"]),
    ("cli", ["cli"]),
    ("wiring", ["plugin", "hookspec", "session", "startup", "__init__", "convert", "metaeval", "merge", "model", "stats",
                "strategies", "reference"]),
]
# Folders that may not import pytest at all (plain Python, usable without pytest).
NO_PYTEST = ["core", "suites", "judges", "checks", "reports"]


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
    if parts[-1] == "__init__" and len(parts) > 1:
        parts.pop()
    return ".".join(parts)


def layer_of(name: str) -> int | None:
    for index, (_, names) in enumerate(LAYERS):
        for entry in names:
            if name == entry or name.startswith(entry + "."):
                return index
    return None


def imports(name: str, is_package: bool, source: str) -> list[tuple[int, str]]:
    """(line, module inside the package) for every import in a module's source, lazy ones
    included; (line, "pytest") for an import of pytest."""
    package = [] if name == "__init__" else name.split(".") if is_package else name.split(".")[:-1]
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "pytest" or alias.name.startswith("_pytest"):
                    found.append((node.lineno, "pytest"))
                elif alias.name.startswith("pytest_sprout."):
                    found.append((node.lineno, alias.name.removeprefix("pytest_sprout.")))
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                module = node.module or ""
                if module == "pytest" or module.startswith("_pytest"):
                    found.append((node.lineno, "pytest"))
                elif module == "pytest_sprout":
                    found += [(node.lineno, alias.name) for alias in node.names]
                elif module.startswith("pytest_sprout."):
                    found.append((node.lineno, module.removeprefix("pytest_sprout.")))
                continue
            anchor = package[: len(package) - (node.level - 1)]
            if node.module:
                found.append((node.lineno, ".".join([*anchor, node.module])))
            else:  # from . import a, b: each name is a module, or a name of that package's __init__
                found += [(node.lineno, ".".join([*anchor, alias.name])) for alias in node.names]
    return found


def target_layer(target: str) -> int | None:
    """The layer of an imported module; a name that is no module (from . import Answer) belongs
    to the package whose __init__ holds it."""
    layer = layer_of(target)
    if layer is None:
        parent = target.rsplit(".", 1)[0] if "." in target else "__init__"
        layer = layer_of(parent)
    return layer


def upward_imports(name: str, is_package: bool, source: str) -> list[str]:
    own = layer_of(name)
    found = []
    for line, target in imports(name, is_package, source):
        if target == "pytest":
            if any(name == n or name.startswith(n + ".") for n in NO_PYTEST):
                found.append(f"{name}:{line} imports pytest (a plain-Python layer)")
            continue
        other = target_layer(target)
        if own is not None and other is not None and other > own:
            found.append(f"{name}:{line} ({LAYERS[own][0]}) imports {target} ({LAYERS[other][0]})")
    return found


def modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def test_every_module_has_a_layer():
    unplaced = [module_name(p) for p in modules() if layer_of(module_name(p)) is None]
    assert unplaced == [], f"place these modules in LAYERS (and in docs/architecture.md): {unplaced}"


def test_no_module_imports_from_a_layer_above_its_own():
    upward = [line for p in modules() for line in upward_imports(module_name(p), p.name == "__init__.py",
                                                                p.read_text(encoding="utf-8"))]
    assert upward == []


def test_the_checker_catches_upward_and_lazy_imports():
    source = "import json\nfrom ..core import model\n\ndef f():\n    from ..session import get_session\n    import pytest\n"
    assert upward_imports("judges.alce", False, source) == [
        "judges.alce:5 (judges) imports session (wiring)",
        "judges.alce:6 imports pytest (a plain-Python layer)",
    ]
    assert upward_imports("plugin", False, source.replace("..", ".")) == []  # wiring may import anything
    assert upward_imports("checks", True, "from . import mutate\nfrom ..judges import LexicalJudge\n") == []
