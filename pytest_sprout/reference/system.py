"""The reference RAG system: a plain BM25 + extractive answerer over a small houseplant corpus.

It exists so that the demo suites in ``suites/`` have something real to test. The design is the
simplest one that behaves like a real retrieval-augmented system, weaknesses included:

1. **Corpus.** ``docs.jsonl`` (package data) holds short houseplant-care documents. Each document
   is split into sentences (``sentences.split_sentences``) and cut into overlapping windows of
   ``WINDOW`` sentences with stride ``STRIDE``. A window is a *passage*: id ``"<doc-id>#<n>"``,
   the document's title, and the window's text.
2. **Retrieval.** Passages are indexed with ``bm25s`` (title + text, lowercased, stop words removed,
   a light suffix-stripping stemmer). A question retrieves the top ``k`` passages. Raw BM25 scores
   grow with the length of the question, so scope is judged by *coverage* instead: the
   idf-weighted share of the question's terms found in the top passage. Below ``min_coverage``
   the question is out of scope and the system refuses.
3. **Extraction.** Every sentence of the retrieved passages is scored by the idf of the question
   terms it contains; words of the document's title count only ``TITLE_WEIGHT``, since retrieval
   already matched the topic. The best sentence, and up to ``max_sentences - 1`` more that score
   at least ``keep_ratio`` of the best, form the answer, in rank order. Each sentence cites the
   highest-ranked retrieved passage that contains it, with an ALCE marker (``[1]`` = rank 1).
   A sentence that opens with a pronoun ("It", "They", "This") is stitched to the sentence before
   it in its document, so that the claim reads on its own.
4. **Citation guard.** A claim is kept only when every sentence of the document it copies lies
   inside the window it cites: provenance by sentence position, which consults no judge. It drops
   a stitched claim whose first half lies outside the cited window. If nothing survives, the
   system refuses. (The guard deliberately does not use the ``LexicalJudge`` that the
   ``groundedness`` tier judges the answers with: then the tier's ``grounded`` rate would be 1.0
   by construction. With this guard it measures whether that judge accepts what an extractive
   system copies from its sources.)

The answer is built as text with markers and parsed with ``Answer.from_text``, the same path a
user's LLM-based system would take. Everything is deterministic: no sampling, ties broken by
corpus order. Its weaknesses are the ordinary ones of extractive QA: it answers with the sentences
that share the most words with the question, which are not always the ones that answer it; it
cannot combine facts across documents; a synonym it does not know ("poisonous" for "toxic")
lowers coverage and can make it refuse an answerable question; and an off-topic question that
uses the corpus's words ("Is aloe vera toxic to horses?") gets a confident answer.

Heavy imports (numpy through ``bm25s``) happen when a system is constructed, never when this
module is imported.
"""

from __future__ import annotations

import logging
import hashlib
import json
import math
import re
from dataclasses import dataclass
from importlib import resources
from typing import Any, Sequence

from ..core.model import Answer, Passage, split_sentences

REFUSAL_TEXT = "I don't know based on the available documents."
WINDOW = 3
STRIDE = 2
TITLE_WEIGHT = 0.25

STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further had
    has have having he her here hers herself him himself his how i if in into is it its itself just
    me more my myself no nor not of off on once only or other our ours ourselves out over own same
    she should so some such than that the their theirs them themselves then there these they this
    those through to too under until up very was we were what when where which while who whom why
    will with would you your yours yourself yourselves get got make much many one ok okay also
    need needs keep best good way use tell kind type often usually likely lot lots come comes
    give better well like wrong happen happens
    don doesn didn isn aren wasn weren hasn haven hadn won wouldn shouldn couldn can't t s""".split()
)
_TOKEN = re.compile(r"[a-z0-9]+")
_IRREGULAR = {"leaves": "leaf", "mice": "mouse", "children": "child", "cacti": "cactus"}
_ANAPHORA = frozenset("it its they their them this these that those such".split())


def shaping_sources() -> list[str]:
    """The files whose code shapes the answers, besides the corpus and the parameters: this module
    (retrieval, extraction, the citation guard) and the sentence splitter and marker parser
    (core/sentences.py: the corpus's sentences and the answer's parse). The rest of the data model
    (model.py) builds the answer from what they give and is not among them."""
    from ..core import sentences

    return [__file__, sentences.__file__]


def stem(word: str) -> str:
    """A light suffix stripper (plurals, then -ing/-ed), so 'waterings' matches 'water'."""
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if len(word) > 4 and word.endswith("ies"):
        word = word[:-3] + "y"
    elif len(word) > 3 and word.endswith("es") and word[-3] in "sxz":
        word = word[:-2]
    elif len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    if len(word) > 5 and word.endswith("ing"):
        word = word[:-3]
    elif len(word) > 4 and word.endswith("ed") and not word.endswith("eed"):
        word = word[:-2]
    else:
        return word
    if len(word) > 2 and word[-1] == word[-2] and word[-1] not in "lsz":  # dropp -> drop
        word = word[:-1]
    return word


def tokenize(text: str) -> list[str]:
    """Lowercased, stop words removed, stemmed content tokens."""
    return [stem(t) for t in _TOKEN.findall(text.lower()) if t not in STOPWORDS]


@dataclass(frozen=True)
class Document:
    id: str
    title: str
    sentences: tuple[str, ...]


@dataclass(frozen=True)
class Window:
    """A passage: the sentences ``start`` to ``end`` (exclusive) of one document."""

    doc: Document
    number: int
    start: int
    end: int

    @property
    def passage(self) -> Passage:
        text = " ".join(self.doc.sentences[self.start : self.end])
        return Passage(id=f"{self.doc.id}#{self.number}", text=text, title=self.doc.title)


def load_documents(text: str | None = None) -> list[Document]:
    """Read the corpus (``docs.jsonl`` from the package unless ``text`` is given)."""
    if text is None:
        text = resources.files(__package__).joinpath("docs.jsonl").read_text(encoding="utf-8")
    docs = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        data = json.loads(line)
        try:
            docs.append(Document(data["id"], data["title"], tuple(split_sentences(data["text"]))))
        except KeyError as exc:
            raise ValueError(f"docs.jsonl line {number}: missing field {exc}") from None
    return docs


def make_windows(docs: Sequence[Document], size: int = WINDOW, stride: int = STRIDE) -> list[Window]:
    """Overlapping sentence windows; the last window of a document always reaches its end."""
    windows = []
    for doc in docs:
        n = len(doc.sentences)
        starts = list(range(0, max(n - size, 0) + 1, stride))
        if starts[-1] + size < n:
            starts.append(n - size)
        for number, start in enumerate(starts):
            windows.append(Window(doc, number, start, min(start + size, n)))
    return windows


def idf_table(term_sets: Sequence[set[str]]) -> dict[str, float]:
    """BM25-style idf of every term over a collection of term sets."""
    df: dict[str, int] = {}
    for terms in term_sets:
        for t in terms:
            df[t] = df.get(t, 0) + 1
    n = len(term_sets)
    return {t: math.log(1 + (n - c + 0.5) / (c + 0.5)) for t, c in df.items()}


class ReferenceSystem:
    """Callable ``question -> Answer``; see the module docstring for the design.

    ``guard=False`` turns the citation guard off, to see what it catches.
    """

    name = "sprout-reference"

    def __init__(
        self,
        k: int = 3,
        min_coverage: float = 0.4,
        max_sentences: int = 3,
        keep_ratio: float = 0.6,
        guard: bool = True,
        documents: Sequence[Document] | None = None,
    ) -> None:
        import bm25s

        self.k = k
        self.min_coverage = min_coverage
        self.max_sentences = max_sentences
        self.keep_ratio = keep_ratio
        self.guard = guard
        self.documents = list(documents) if documents is not None else load_documents()
        self.windows = make_windows(self.documents)
        corpus = [tokenize(f"{w.doc.title} {w.passage.text}") for w in self.windows]
        self.retriever = bm25s.BM25()
        quiet = logging.getLogger("bm25s")  # bm25s logs "Building index" at DEBUG: not news to a user
        level = quiet.level
        quiet.setLevel(logging.WARNING)
        try:
            self.retriever.index(corpus, show_progress=False)
        finally:
            quiet.setLevel(level)
        self.vocab = self.retriever.vocab_dict
        self.window_terms = [set(tokens) for tokens in corpus]
        self.window_idf = idf_table(self.window_terms)
        self.unknown_idf = math.log(1 + (len(corpus) + 0.5) / 0.5)  # a term no passage has
        self.title_terms = {d.id: set(tokenize(d.title)) for d in self.documents}
        # Sentence-level idf for extraction: how rare a term is among all sentences.
        self.sentence_idf = idf_table([set(tokenize(s)) for d in self.documents for s in d.sentences])
        digest = hashlib.sha256(json.dumps([guard, min_coverage, k, max_sentences, keep_ratio]).encode())
        for d in self.documents:
            digest.update(json.dumps([d.id, d.title, d.sentences]).encode())
        # The code that shapes the answers is part of the fingerprint too: the answer cache reuses
        # answers while it holds, so an edit to this file or to the sentence splitter never serves
        # yesterday's answers (and an edit elsewhere in the data model keeps them).
        for source in shaping_sources():
            with open(source, "rb") as handle:
                digest.update(handle.read())
        self.version = f"1.0+{digest.hexdigest()[:8]}"
        self.fingerprint = digest.hexdigest()  # everything the answers depend on: reuse them while it holds

    def retrieve(self, question: str) -> list[tuple[int, float]]:
        """Indexes into ``windows`` of the top ``k`` passages with their BM25 scores, best first;
        [] when no term of the question is in the corpus."""
        import numpy as np

        tokens = [t for t in tokenize(question) if t in self.vocab]
        if not tokens:
            return []
        scores = self.retriever.get_scores(tokens)
        order = np.argsort(-scores, kind="stable")[: self.k]
        return [(int(i), float(scores[i])) for i in order if scores[i] > 0]

    def coverage(self, question: str, index: int) -> float:
        """The idf-weighted share of the question's terms that window ``index`` contains (0..1)."""
        weights = {t: self.window_idf.get(t, self.unknown_idf) for t in set(tokenize(question))}
        if not weights:
            return 0.0
        found = sum(w for t, w in weights.items() if t in self.window_terms[index])
        return found / sum(weights.values())

    def _sentence_score(self, terms: set[str], doc: Document, index: int) -> float:
        """idf of the question terms in the sentence; terms of the document's title count less,
        since retrieval has already matched the topic and every sentence shares it."""
        title = self.title_terms[doc.id]
        return sum(
            self.sentence_idf.get(t, 0.0) * (TITLE_WEIGHT if t in title else 1.0)
            for t in terms & set(tokenize(doc.sentences[index]))
        )

    def _claim(self, doc: Document, index: int, chosen: set[tuple[str, int]]) -> tuple[str, int]:
        """The sentence, stitched to the one before it when it opens with a pronoun (unless that
        one is in the answer already), and the index of the first document sentence it copies."""
        sentence = doc.sentences[index]
        first = _TOKEN.match(sentence.lower())
        if index == 0 or first is None or first.group() not in _ANAPHORA or (doc.id, index - 1) in chosen:
            return sentence, index
        before = doc.sentences[index - 1].rstrip(".!?")
        return f"{before}; {sentence[0].lower()}{sentence[1:]}", index - 1

    def refuse(self, passages: tuple[Passage, ...]) -> Answer:
        return Answer(sentences=(), passages=passages, refused=True, text=REFUSAL_TEXT)

    def __call__(self, question: str) -> Answer:
        ranked = [i for i, _ in self.retrieve(question)]
        hits = [self.windows[i] for i in ranked]
        passages = tuple(w.passage for w in hits)
        if not hits or self.coverage(question, ranked[0]) < self.min_coverage:
            return self.refuse(passages)
        terms = set(tokenize(question))
        seen: set[tuple[str, int]] = set()
        candidates: list[tuple[float, int, int, Document]] = []  # score, rank, sentence, doc
        for rank, window in enumerate(hits):
            for i in range(window.start, window.end):
                if (window.doc.id, i) not in seen:  # a sentence cites the best window it is in
                    seen.add((window.doc.id, i))
                    score = self._sentence_score(terms, window.doc, i)
                    if score > 0:
                        candidates.append((score, rank, i, window.doc))
        if not candidates:
            return self.refuse(passages)
        candidates.sort(key=lambda c: (-c[0], c[1], c[2]))
        close = [c for c in candidates if c[0] >= self.keep_ratio * candidates[0][0]]
        chosen = sorted(close[: self.max_sentences], key=lambda c: (c[1], c[2]))  # reading order
        in_answer = {(doc.id, i) for _, _, i, doc in chosen}
        parts = []
        for _, rank, i, doc in chosen:
            claim, first = self._claim(doc, i, in_answer)
            # The guard: every sentence the claim copies lies inside the cited window (the
            # sentence ``i`` does by construction; a stitched one before it may not).
            if not self.guard or first >= hits[rank].start:
                parts.append(f"{claim.rstrip('.!?')} [{rank + 1}].")
        if not parts:
            return self.refuse(passages)
        return Answer.from_text(" ".join(parts), passages, refused=False)


def make_system(**settings: Any) -> ReferenceSystem:
    """The factory named by ``sprout_system = "pytest_sprout.reference:make_system"``."""
    return ReferenceSystem(**settings)
