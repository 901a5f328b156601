"""MiniCheck, the grounding checkers of Tang et al. (2024), as their reference code feeds them.

Shared by the two tiers that run them: the ``alce`` tier (the classifiers MiniCheck-RoBERTa-Large,
MiniCheck-DeBERTa-v3-Large and the seq2seq MiniCheck-Flan-T5-Large, through ``--nli-model``) and
the ``llm`` tier's ``minicheck`` metric (Bespoke-MiniCheck-7B or any checker behind an
OpenAI-compatible endpoint, e.g. Ollama's ``bespoke-minicheck``). Plain Python: no torch, no HTTP.

What the reference (github.com/Liyan06/MiniCheck, ``minicheck/inference.py``) does, and this module
reproduces:

- **Sentences.** The document is split at newlines, each line into sentences with NLTK's
  ``sent_tokenize`` (Punkt, English), and a ``"\\n"`` unit stands between consecutive lines.
- **Chunks.** Units are packed greedily in order: a unit joins the current chunk unless the chunk's
  size plus the unit's would exceed the chunk size, in which case the chunk is closed and the unit
  starts the next one (so a unit larger than the chunk size is a chunk of its own, and chunks do not
  overlap). Sizes are *words* (``len(unit.split())``) for Flan-T5 and *tokens of the model's own
  tokenizer* (no special tokens) for RoBERTa and DeBERTa. A chunk is its units joined with spaces,
  ``" \\n "`` turned back into ``"\\n"``, stripped; empty chunks are dropped. Default sizes: 400 tokens
  (RoBERTa, DeBERTa), 500 words (Flan-T5).
- **Inputs.** Classifiers read one sequence, ``chunk + eos_token + claim``, truncated at 512
  (RoBERTa) or 2048 (DeBERTa) tokens; P(supported) is the softmax of class 1. Flan-T5 reads
  ``"predict: " + chunk + eos_token + claim`` (up to 2048 tokens) and writes one decoder step from
  the start token; P(supported) is the softmax over two vocabulary entries, 209 (supported) against
  3 (unsupported) in T5's vocabulary, which are the first pieces of ``"1"`` and ``"0"``.
- **Aggregation.** A claim's score is the maximum over the document's chunks; it counts as
  supported above 0.5 (pytest-sprout's ``alce.entailment`` threshold decides here, default 0.5).
- **Bespoke-MiniCheck-7B** gets a system prompt and a user prompt per (chunk, claim), answers one
  token, and P(supported) is the summed probability of the top-5 first tokens that read "yes" in
  any case. A claim of several sentences is split; its score is the minimum over its sentences of
  the maximum over chunks.

The one part that cannot always be reproduced is the sentence splitter: NLTK's Punkt model is a
data download. When ``nltk`` and its ``punkt_tab`` (or ``punkt``) data are installed it is used;
otherwise pytest-sprout's own splitter (``model.split_sentences``) stands in, and ``splitter()``
says which one ran (it is part of every cache key). The two differ only on rare abbreviations, and
only where a chunk boundary falls.
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Sequence

from ..core.model import split_sentences

# The Bespoke-MiniCheck prompt, character for character as the reference sends it (minicheck/utils.py):
# the model was fine-tuned on it. [DOCUMENT] and [CLAIM] are replaced by the chunk and the claim.
SYSTEM_PROMPT = (
    "Determine whether the provided claim is consistent with the corresponding document. "
    "Consistency in this context implies that all information presented in the claim is "
    "substantiated by the document. If not, it should be considered inconsistent. Please assess "
    "the claim's consistency with the document by responding with either \"Yes\" or \"No\"."
)
USER_PROMPT = "Document: [DOCUMENT]\nClaim: [CLAIM]"
TOP_LOGPROBS = 5  # the reference asks vLLM for the 5 most likely first tokens
ENDPOINT_CHUNK_WORDS = 1000  # default chunk size for the endpoint checker (see docs/llm.md)


@dataclass(frozen=True)
class Family:
    """How one MiniCheck model reads its input."""

    name: str  # roberta-large, deberta-v3-large, flan-t5-large (the reference's model names)
    kind: str  # "classifier" or "seq2seq"
    unit: str  # what the chunk size counts: "tokens" or "words"
    chunk_size: int  # the reference's default chunk size
    max_length: int  # the reference's max_model_len: model inputs are truncated there


FAMILIES = {
    "roberta": Family("roberta-large", "classifier", "tokens", 400, 512),
    "deberta-v2": Family("deberta-v3-large", "classifier", "tokens", 400, 2048),
    "t5": Family("flan-t5-large", "seq2seq", "words", 500, 2048),
}
SUPPORTED_INDEX = 1  # the classifiers' class that means "supported"


def family_of(config: Mapping[str, Any], names: Iterable[str | None]) -> Family | None:
    """The MiniCheck family of a model, or None when it is not a MiniCheck checkpoint.

    The rule: "minicheck" (any case) appears in the config's ``_name_or_path`` or in one of
    ``names`` (the hub id, the model folder's own name, and for a hub download its repository
    folder ``models--lytang--MiniCheck-...``), and the config's ``model_type`` is one MiniCheck was
    trained on (``roberta`` or ``deberta-v2`` with a 2-class head, or an encoder-decoder ``t5``).
    The RoBERTa and DeBERTa checkpoints name themselves in ``_name_or_path``; the Flan-T5 one
    names a training folder, so it is recognised by its hub id or folder name only.
    """
    texts = [str(config.get("_name_or_path") or ""), *(str(n) for n in names if n)]
    if not any("minicheck" in t.lower() for t in texts):
        return None
    family = FAMILIES.get(str(config.get("model_type", "")))
    if family is None:
        return None
    if family.kind == "seq2seq":
        return family if config.get("is_encoder_decoder") else None
    labels = config.get("id2label") or {}
    count = len(labels) if labels else int(config.get("num_labels", 2))
    return family if count == 2 else None


def is_minicheck_name(name: str) -> bool:
    """Whether a model name at an endpoint names a MiniCheck checker (``bespoke-minicheck``,
    ``bespokelabs/Bespoke-MiniCheck-7B``): then the llm tier runs the ``minicheck`` metric only."""
    return "minicheck" in name.lower()


# --- sentences ------------------------------------------------------------------------------------

@functools.lru_cache(maxsize=1)
def _punkt() -> Callable[[str], list[str]] | None:
    """NLTK's English Punkt ``sent_tokenize``, when nltk and its model data are installed."""
    try:
        from nltk.tokenize import sent_tokenize  # type: ignore[import-not-found,unused-ignore]  # optional, untyped

        sent_tokenize("A first sentence. A second one.")  # raises LookupError without the data
    except (ImportError, LookupError, OSError):
        return None
    return sent_tokenize  # type: ignore[no-any-return,unused-ignore]  # nltk ships no stubs


def splitter() -> str:
    """Which sentence splitter chunking uses here: "nltk-punkt" (the reference's) or "sprout"."""
    return "nltk-punkt" if _punkt() is not None else "sprout"


def split_line(line: str) -> list[str]:
    """A line's sentences, with the reference's splitter when installed."""
    punkt = _punkt()
    return punkt(line) if punkt is not None else split_sentences(line)


@dataclass(frozen=True)
class Unit:
    """A sentence of the document (or a ``"\\n"`` between lines) and where it is."""

    text: str
    start: int
    end: int


def units(text: str, split: Callable[[str], list[str]] = split_line) -> list[Unit]:
    """The document as the reference's ``sent_tokenize_with_newlines`` sees it: each line's
    sentences, a ``"\\n"`` unit between consecutive lines; [""] for a document with no sentence."""
    out: list[Unit] = []
    pos = 0
    lines = text.split("\n")
    for i, line in enumerate(lines):
        cursor = pos
        for sentence in split(line):
            at = text.find(sentence, cursor, pos + len(line))
            start = at if at >= 0 else cursor
            out.append(Unit(sentence, start, start + len(sentence)))
            cursor = start + len(sentence) if at >= 0 else cursor
        if i < len(lines) - 1:
            out.append(Unit("\n", pos + len(line), pos + len(line) + 1))
        pos += len(line) + 1
    return out or [Unit("", 0, 0)]


def words(unit: str) -> int:
    """Flan-T5's chunk size measure: whitespace-separated words."""
    return len(unit.split())


@dataclass(frozen=True)
class Chunk:
    """One model input's share of the document: its text and its span in the document."""

    text: str
    start: int
    end: int


def pack(parts: Sequence[Unit], size: int, sizes: Sequence[int]) -> list[Chunk]:
    """The reference's greedy packing of units into chunks of at most ``size`` (``sizes[i]`` is
    unit i's size), with its joining, newline restoring, stripping and dropping of empty chunks."""
    groups: list[list[int]] = []
    current: list[int] = []
    used = 0
    for i, n in enumerate(sizes):
        if used + n > size:
            groups.append(current)
            current, used = [i], n
        else:
            current.append(i)
            used += n
    if current:
        groups.append(current)
    chunks = []
    for group in groups:
        text = " ".join(parts[i].text for i in group).replace(" \n ", "\n").strip()
        if not text:
            continue
        spans = [(parts[i].start, parts[i].end) for i in group if parts[i].text.strip()]
        chunks.append(Chunk(text, spans[0][0], spans[-1][1]))
    return chunks


def chunk_document(text: str, size: int, count: Callable[[Sequence[str]], Sequence[int]] | None = None,
                   split: Callable[[str], list[str]] = split_line) -> list[Chunk]:
    """The document's chunks. ``count`` gives each unit's size (default: words, as for Flan-T5;
    the classifiers pass their tokenizer's token counts)."""
    parts = units(text, split)
    sizes = count([u.text for u in parts]) if count is not None else [words(u.text) for u in parts]
    return pack(parts, size, list(sizes))


# --- the endpoint checker's prompt and answer -------------------------------------------------------

def messages(chunk: str, claim: str) -> list[dict[str, str]]:
    """The chat messages Bespoke-MiniCheck is asked, one (chunk, claim) at a time."""
    user = USER_PROMPT.replace("[DOCUMENT]", chunk).replace("[CLAIM]", claim)
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]


class UnreadableAnswer(ValueError):
    """The checker's reply says neither Yes nor No."""


def support_from_logprobs(top: Sequence[tuple[str, float]]) -> float:
    """P(supported) from the first token's most likely alternatives, (token, logprob) pairs: the
    summed probability of those that read "yes" (case and surrounding spaces ignored)."""
    return min(1.0, sum(math.exp(lp) for token, lp in top if token.strip().lower() == "yes"))


_ANSWER = re.compile(r"\W*(yes|no)\b", re.IGNORECASE)


def support_from_text(text: str) -> float:
    """P(supported) from the reply's text alone: 1.0 for Yes, 0.0 for No (its first word)."""
    found = _ANSWER.match(text or "")
    if not found:
        raise UnreadableAnswer(f"the checker answered {text.strip()[:60]!r}, not Yes or No")
    return 1.0 if found.group(1).lower() == "yes" else 0.0


def claim_sentences(claim: str) -> list[str]:
    """A claim's sentences, as the reference splits a multi-sentence claim (at least one)."""
    return split_line(claim) or [claim]


def aggregate(scores: Sequence[Sequence[float]]) -> tuple[float, int]:
    """(score, index of the deciding chunk) from ``scores[chunk][sentence]``: for each sentence of
    the claim the maximum over chunks, then the minimum over sentences (the reference's rule; for a
    one-sentence claim simply the maximum over chunks)."""
    if not scores:
        raise ValueError("no chunk to aggregate")
    best = [max(range(len(scores)), key=lambda c: scores[c][s]) for s in range(len(scores[0]))]
    worst = min(range(len(best)), key=lambda s: scores[best[s]][s])
    return scores[best[worst]][worst], best[worst]
