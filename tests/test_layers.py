"""The package's shape (docs/architecture.md): every module sits in one layer, no module imports
from a layer above its own, no modules import each other in a circle (inside one layer too), and no
folders do (a folder's modules taken together). Read from the source with `ast`, lazy imports
inside functions included, so a shortcut taken today fails here instead of growing a circle."""

from __future__ import annotations

import ast
import re
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
    ("wiring", ["plugin", "hookspec", "session", "startup", "__init__", "convert", "metaeval", "calibrate", "merge", "model", "stats",
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


def package_sources() -> dict[str, tuple[bool, str]]:
    """{module name: (is a package's __init__, source)} for every module of the package."""
    return {module_name(p): (p.name == "__init__.py", p.read_text(encoding="utf-8")) for p in modules()}


def import_graph(sources: dict[str, tuple[bool, str]]) -> dict[str, set[str]]:
    """{module: the modules of ``sources`` it imports}. A name that is no module (``from . import
    Answer``) is an import of the package whose __init__ holds it."""
    graph: dict[str, set[str]] = {name: set() for name in sources}
    for name, (is_package, source) in sources.items():
        for _, target in imports(name, is_package, source):
            while target not in sources and "." in target:
                target = target.rsplit(".", 1)[0]
            if target not in sources and target != "pytest":
                target = "__init__"
            if target in sources and target != name:
                graph[name].add(target)
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan's algorithm): every set of
    nodes that reach each other, each sorted, in a sorted list."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph.get(node, ())):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def folder_of(name: str, sources: dict[str, tuple[bool, str]]) -> str:
    """The folder a module sits in (a package's __init__ is its own folder); "" for the top."""
    if sources[name][0] and name != "__init__":
        return name
    return name.rsplit(".", 1)[0] if "." in name else ""


def folder_graph(sources: dict[str, tuple[bool, str]]) -> dict[str, set[str]]:
    """{folder: the folders its modules import}. A folder and the folders inside it are one
    feature (reports/ writes what reports/html/ draws): imports between them are the module
    graph's business, not this one's; nor are the top-level modules', which sit above every folder."""
    graph: dict[str, set[str]] = {}
    for name, targets in import_graph(sources).items():
        here = folder_of(name, sources)
        graph.setdefault(here, set())
        for target in targets:
            there = folder_of(target, sources)
            related = here == there or there.startswith(here + ".") or here.startswith(there + ".")
            if here and there and not related:
                graph[here].add(there)
    return graph


def folder_upward(sources: dict[str, tuple[bool, str]]) -> list[str]:
    """Every folder that imports a folder of a layer above its own."""
    found = []
    for here, targets in sorted(folder_graph(sources).items()):
        own = layer_of(here)
        for there in sorted(targets):
            other = layer_of(there)
            if own is not None and other is not None and other > own:
                found.append(f"folder {here} ({LAYERS[own][0]}) imports folder {there} ({LAYERS[other][0]})")
    return found


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


def test_no_modules_import_each_other_in_a_circle():
    assert circles(import_graph(package_sources())) == []


def test_no_folders_import_each_other_in_a_circle_or_upward():
    sources = package_sources()
    assert circles(folder_graph(sources)) == []
    assert folder_upward(sources) == []


# Planted packages: the checks above must fail on each of these.
PLANTED_MODULE_CIRCLE = {  # three modules of one layer (reports): no import runs upward, yet a circle
    "reports": (True, ""),
    "reports.json_report": (False, "def write():\n    from .html.page import write_html\n"),
    "reports.html": (True, ""),
    "reports.html.page": (False, "from . import sections\nfrom ..json_report import write\n"),
    "reports.html.sections": (False, "def f():\n    from .page import forest_plot\n"),
    "reports.markdown": (False, "from .json_report import write\n"),
}
PLANTED_FOLDERS = {  # no module circle, but two folders need each other (tools is in no layer)
    "reference": (True, ""),
    "reference.system": (False, "from ..tools import merge\n"),
    "reference.docs": (False, ""),
    "tools": (True, ""),
    "tools.merge": (False, "import json\n"),
    "tools.convert": (False, "from ..reference import docs\n"),
    "judges": (True, ""),
    "judges.alce": (False, "from ..controller.gates import Gate\n"),
    "controller": (True, ""),
    "controller.gates": (False, ""),
}


def test_the_circle_checks_catch_planted_circles():
    assert circles(import_graph(PLANTED_MODULE_CIRCLE)) == [
        ["reports.html.page", "reports.html.sections", "reports.json_report"]]
    assert circles(import_graph(PLANTED_FOLDERS)) == []
    assert circles(folder_graph(PLANTED_FOLDERS)) == [["reference", "tools"]]
    assert folder_upward(PLANTED_FOLDERS) == ["folder judges (judges) imports folder controller (controller)"]
    # a package's __init__ that imports its module, which imports a name the __init__ holds, is a circle
    assert circles(import_graph({"answers": (True, "from .source import Answer\n"),
                                 "answers.source": (False, "from . import Answer\n")})) == [["answers", "answers.source"]]


# --- the seams between the session and the halves it composes ------------------------------------
# Each half says what it needs of the session that composes it as one small Protocol, which the
# session satisfies (mypy checks that it does): no closures (Callable) and no Any in the
# parameters that take it. {module: (its Protocol, the functions that take one)}
SEAMS = {
    "run.worker": ("RunHost", ["Run.__init__"]),
    "controller.controller": ("RunFacts", ["Controller.__init__"]),
    "controller.startcheck": ("Checked", ["check_tier_options", "check_suites_root", "inputs", "outputs", "check_roles"]),
}
# Plugins found by looking for an attribute on every registered plugin: {module: why it may}.
# The merge is not one of them: it puts itself in config.stash (config/settings.py MERGE_KEY).
SNIFFING_ALLOWED = {"run.upcoming": "xdist's WorkerInteractor is registered under no name; its queue is what it has"}


def seam_problems(name: str, source: str, protocol: str, functions: list[str]) -> list[str]:
    """What is wrong with one seam: no Protocol of that name, a function missing, or one whose
    parameters take a callable or Any, or none of them the Protocol."""
    tree = ast.parse(source)
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
    problems = []
    found = classes.get(protocol)
    if found is None or not any(ast.unparse(base) in ("Protocol", "typing.Protocol") for base in found.bases):
        problems.append(f"{name}: no Protocol {protocol}")
    defs = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
    defs.update({f"{c.name}.{f.name}": f for c in classes.values() for f in c.body if isinstance(f, ast.FunctionDef)})
    for qualified in functions:
        node = defs.get(qualified)
        if node is None:
            problems.append(f"{name}: no {qualified}")
            continue
        args = node.args.posonlyargs + node.args.args + node.args.kwonlyargs
        annotations = {a.arg: ast.unparse(a.annotation) if a.annotation is not None else "" for a in args}
        for arg, text in annotations.items():
            if "Callable" in text or re.search(r"\bAny\b", text):
                problems.append(f"{name}:{node.lineno} {qualified}({arg}: {text})")
        if not any(re.search(rf"\b{protocol}\b", text) for text in annotations.values()):
            problems.append(f"{name}: {qualified} takes no {protocol}")
    return problems


def sniffed_plugins(source: str) -> list[int]:
    """Lines of a loop (or comprehension) over ``pluginmanager.get_plugins()`` that looks for an
    attribute (getattr, hasattr) on each: a plugin found by sniffing."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        loops = [node.iter] if isinstance(node, ast.For) else [g.iter for g in node.generators] if isinstance(
            node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)) else []
        if not any(isinstance(i, ast.Call) and isinstance(i.func, ast.Attribute) and i.func.attr == "get_plugins" for i in loops):
            continue
        if any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("getattr", "hasattr")
               for n in ast.walk(node)):
            lines.append(node.lineno)
    return lines


def test_the_session_s_halves_take_it_through_a_protocol():
    sources = package_sources()
    problems = [p for name, (protocol, functions) in SEAMS.items()
                for p in seam_problems(name, sources[name][1], protocol, functions)]
    assert problems == []


def test_no_plugin_is_found_by_sniffing_an_attribute():
    found = {name: sniffed_plugins(source) for name, (_, source) in package_sources().items()}
    assert {name: lines for name, lines in found.items() if lines and name not in SNIFFING_ALLOWED} == {}
    assert all(found.get(name) for name in SNIFFING_ALLOWED)  # an allowance no longer needed goes


def test_the_seam_checks_catch_planted_closures_any_and_sniffing():
    closures = ("from typing import Any, Callable, Protocol\nclass Host(Protocol):\n    def suites(self) -> int: ...\n"
                "class Run:\n    def __init__(self, suites: Callable[[], int], host: Host) -> None: ...\n"
                "def check(sprout: Any) -> None: ...\n")
    assert seam_problems("m", closures, "Host", ["Run.__init__", "check", "gone"]) == [
        "m:5 Run.__init__(suites: Callable[[], int])", "m:6 check(sprout: Any)", "m: check takes no Host", "m: no gone"]
    assert seam_problems("m", "class Host:\n    pass\n", "Host", []) == ["m: no Protocol Host"]
    sniffing = ("def f(config):\n    for p in config.pluginmanager.get_plugins():\n        if getattr(p, 'merge', False):\n"
                "            return p\n    return [p for p in config.pluginmanager.get_plugins() if hasattr(p, 'x')]\n")
    assert sniffed_plugins(sniffing) == [2, 5]
    assert sniffed_plugins("def f(config):\n    return config.stash.get(KEY, None)\n") == []
