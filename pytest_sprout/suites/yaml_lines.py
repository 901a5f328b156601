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


def key_line(node: Any, field: str | None) -> int | None:
    """The line of the key a field names under a mapping node: ``question``, ``defaults.tiers``,
    ``thresholds.groundedness.coverage`` (a key may hold dots: the longest key written wins), or
    None when the mapping has no such key (a missing field is located by its mapping instead)."""
    import yaml

    line = None
    while field and isinstance(node, yaml.MappingNode):
        keys = {key.value: (key, value) for key, value in node.value if isinstance(key, yaml.ScalarNode)}
        parts = field.split(".")
        for cut in range(len(parts), 0, -1):
            name = ".".join(parts[:cut])
            if name in keys:
                key, node = keys[name]
                line, field = key.start_mark.line + 1, ".".join(parts[cut:])
                break
        else:
            return line
    return line


def describe(dup: tuple[str, int, int]) -> str:
    key, first, second = dup
    return f"key {key!r} is written twice (lines {first} and {second}); YAML would silently keep only the last"


_STR, _SEQ, _MAP, _MERGE = ("tag:yaml.org,2002:str", "tag:yaml.org,2002:seq", "tag:yaml.org,2002:map",
                            "tag:yaml.org,2002:merge")


class _Fallback(Exception):
    """The tree holds something only the constructor itself builds right (a merge key, an alias)."""


def plain_data(node: Any, constructor: Any) -> Any:
    """What ``constructor.construct_document(node)`` gives for a suite's tree, built without the
    constructor's generic machinery (a third of a large suite's collection time): strings, lists
    and mappings directly, any other scalar (numbers, booleans, null, dates) by the constructor.
    A tree with a merge key, an alias (one node used twice), another tag or an unhashable key is
    built by the constructor, as before."""
    return plain_data_checked(node, constructor)[0]


def plain_data_checked(node: Any, constructor: Any) -> tuple[Any, bool]:
    """`plain_data`, and whether some mapping in the tree may write a key twice: False only when
    every mapping's keys are plain strings, all different (what `duplicate_key` compares), so that
    a suite without a repeated key is not walked a second time to look for one."""
    import yaml

    scalar, sequence, mapping = yaml.ScalarNode, yaml.SequenceNode, yaml.MappingNode
    seen: set[int] = set()
    maybe = [False]

    def build(n: Any) -> Any:
        kind = type(n)
        if kind is scalar:
            return n.value if n.tag == _STR else constructor.construct_object(n)
        if id(n) in seen:
            raise _Fallback
        seen.add(id(n))
        if kind is sequence and n.tag == _SEQ:
            return [build(child) for child in n.value]
        if kind is mapping and n.tag == _MAP:
            out = {}
            for key_node, value_node in n.value:
                if key_node.tag == _MERGE or type(key_node) is not scalar:
                    raise _Fallback
                if key_node.tag != _STR:  # 1 and "1" are one key to duplicate_key, two to a dict
                    maybe[0] = True
                out[build(key_node)] = build(value_node)
            if len(out) != len(n.value):
                maybe[0] = True
            return out
        raise _Fallback

    try:
        return build(node), maybe[0]
    except _Fallback:
        return constructor.construct_document(node), True
