"""The house rules for the package's size (docs/architecture.md): no module over 500 lines and no
function or method over 80 lines (decorators aside, docstring and comments included), read from
the source with `ast`. A module or function that grows past the limit is split by responsibility
into named parts; an exception needs a line in the allow-lists below saying why."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest_sprout

PACKAGE = Path(pytest_sprout.__file__).parent
MAX_MODULE_LINES = 500
MAX_FUNCTION_LINES = 80

# Modules allowed past MAX_MODULE_LINES, as {path inside the package: why}.
MODULE_EXCEPTIONS: dict[str, str] = {}
# Functions allowed past MAX_FUNCTION_LINES, as {"path:qualified name": why}. The lexical judge's
# hot loop (judges/lexical/scan.py `_scan`) fits, its rarer tests being helpers.
FUNCTION_EXCEPTIONS: dict[str, str] = {}


def module_lines(source: str) -> int:
    return len(source.splitlines())


def long_functions(source: str, limit: int = MAX_FUNCTION_LINES) -> list[tuple[str, int]]:
    """(qualified name, lines) of every function or method, nested ones included, longer than
    ``limit`` lines, from its ``def`` line to its last line."""
    found = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                assert child.end_lineno is not None
                lines = child.end_lineno - child.lineno + 1
                if lines > limit:
                    found.append((prefix + child.name, lines))
                visit(child, prefix + child.name + ".")
            elif isinstance(child, ast.ClassDef):
                visit(child, prefix + child.name + ".")
            else:
                visit(child, prefix)

    visit(ast.parse(source), "")
    return found


def package_modules() -> dict[str, str]:
    """{path inside the package: source} for every module."""
    return {p.relative_to(PACKAGE).as_posix(): p.read_text(encoding="utf-8")
            for p in sorted(PACKAGE.rglob("*.py")) if "__pycache__" not in p.parts}


def test_no_module_is_over_500_lines() -> None:
    too_long = {path: module_lines(source) for path, source in package_modules().items()
                if module_lines(source) > MAX_MODULE_LINES and path not in MODULE_EXCEPTIONS}
    assert too_long == {}, f"split these modules by responsibility (lines): {too_long}"


def test_no_function_is_over_80_lines() -> None:
    too_long = {f"{path}:{name}": lines for path, source in package_modules().items()
                for name, lines in long_functions(source) if f"{path}:{name}" not in FUNCTION_EXCEPTIONS}
    assert too_long == {}, f"split these functions into named helpers (lines): {too_long}"


def test_the_exceptions_are_still_needed() -> None:
    # an allow-list entry whose module or function has come back under the limit goes
    modules = package_modules()
    stale = [path for path in MODULE_EXCEPTIONS if module_lines(modules.get(path, "")) <= MAX_MODULE_LINES]
    long_now = {f"{path}:{name}" for path, source in modules.items() for name, _ in long_functions(source)}
    stale += [key for key in FUNCTION_EXCEPTIONS if key not in long_now]
    assert stale == []


def test_the_checks_catch_planted_long_code() -> None:
    def body(count: int, indent: int) -> str:
        return "".join(f"{' ' * indent}x{i} = {i}\n" for i in range(count))

    source = ("def fits():\n" + body(79, 4)  # 80 lines with its def: allowed
              + "class C:\n    def method(self):\n" + body(80, 8)  # 81: too long, named as a method
              + "    async def host(self):\n        def inner():\n" + body(81, 12)  # inner 82, host 84
              + "        return inner\n")
    found = dict(long_functions(source))
    assert "fits" not in found
    assert found == {"C.method": 81, "C.host": 84, "C.host.inner": 82}
    assert module_lines("pass\n" * 501) == 501 > MAX_MODULE_LINES


def test_benchmarks_holds_the_current_numbers_only() -> None:
    # docs/BENCHMARKS.md is the numbers of the code as it is, each with its command; what earlier
    # versions measured goes to CHANGELOG.md. A page past 600 lines has become a change log again.
    lines = (PACKAGE.parent / "docs" / "BENCHMARKS.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 600, f"docs/BENCHMARKS.md has {len(lines)} lines: move history to CHANGELOG.md"
