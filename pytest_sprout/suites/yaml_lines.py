"""Checks on a composed YAML node tree that the YAML loader does not make: a mapping key written
twice (YAML keeps the last one silently, so a case's second ``question:`` would hide the first).
Iterative, so a deeply nested document cannot exhaust the stack; aliases are visited once."""

from __future__ import annotations

from typing import Any


def duplicate_key(node: Any, skip: Any = None) -> tuple[str, int, int] | None:
    """The first mapping key written twice under ``node`` (not looking inside ``skip``), as
    (key, first line, second line), or None."""
    import yaml

    stack, seen_nodes = [node], set()
    while stack:
        current = stack.pop()
        if current is None or current is skip or id(current) in seen_nodes:
            continue
        seen_nodes.add(id(current))
        if isinstance(current, yaml.MappingNode):
            keys: dict[str, int] = {}
            for key, _ in current.value:
                if isinstance(key, yaml.ScalarNode) and key.tag != "tag:yaml.org,2002:merge":
                    line = key.start_mark.line + 1
                    if key.value in keys:
                        return key.value, keys[key.value], line
                    keys[key.value] = line
            stack.extend(reversed([part for pair in current.value for part in pair]))
        elif isinstance(current, yaml.SequenceNode):
            stack.extend(reversed(current.value))
    return None


def describe(dup: tuple[str, int, int]) -> str:
    key, first, second = dup
    return f"key {key!r} is written twice (lines {first} and {second}); YAML would silently keep only the last"
