"""The demo RAG system the suites in ``suites/`` run against (BM25 + extractive answers).

Importing this package is cheap; ``bm25s`` and numpy load when a system is built.
"""

from .system import ReferenceSystem, make_system

__all__ = ["ReferenceSystem", "make_system"]
