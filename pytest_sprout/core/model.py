"""Plain data model: cases, passages, answers and verdicts. No pytest import."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Protocol, Sequence, TypeAlias

# The splitter lives in sentences.py (the reference system fingerprints it); imported from here too.
from .sentences import ABBREVIATIONS as ABBREVIATIONS
from .sentences import split_sentences as split_sentences
from .sentences import strip_markers


@dataclass(frozen=True)
class TierSpec:
    """One judge tier: its name (the marker and the ``[tier]`` of its items), the module that judges
    (imported only when its items run), the marker's help line, and the extra it needs installed
    (None: the core install)."""

    name: str
    module: str
    marker: str
    extra: str | None = None


# The one place a tier is registered, in the order reports list them; TIERS (a case's default
# tiers) is their names.
TIER_SPECS: dict[str, TierSpec] = {spec.name: spec for spec in (
    TierSpec("groundedness", "pytest_sprout.judges.groundedness", "lexical groundedness judge (offline, deterministic)"),
    TierSpec("alce", "pytest_sprout.judges.alce", "ALCE-style NLI citation recall/precision (needs --nli-model)", "nli"),
    TierSpec("ragas", "pytest_sprout.judges.ragas_tier", "Ragas' own non-LLM metrics (needs the ragas extra)", "ragas"),
    TierSpec("llm", "pytest_sprout.judges.llm", "Ragas and DeepEval LLM-judged metrics (needs --llm-base-url)", "llm"),
)}
TIERS: tuple[str, ...] = tuple(TIER_SPECS)
EXPECTS: tuple[str, ...] = ("answer", "refuse")
# What a sentence without [k] markers is judged against: "required" (nothing: it is unsupported) or
# "retrieved" (every passage retrieved for the answer). A sentence with markers is always judged
# against what it cites.
CITATIONS: tuple[str, ...] = ("required", "retrieved")
ID_PATTERN = re.compile(r"[A-Za-z0-9_.-]+\Z")


@dataclass(frozen=True)
class Case:
    """One evaluation case from a suite file."""

    id: str
    suite: str
    question: str
    expect: str = "answer"
    expected_facts: tuple[str, ...] = ()
    tiers: tuple[str, ...] = TIERS
    tags: tuple[str, ...] = ()
    # Per-case pass thresholds, ((tier, name), value) sorted; override --sprout-threshold for this case.
    thresholds: tuple[tuple[tuple[str, str], float], ...] = ()
    # The case's own citations mode (CITATIONS; its suite's defaults included); None: the run's.
    citations: str | None = None
    # Where the case was defined ("suites/care.yaml:12"); not part of its identity.
    source: str | None = field(default=None, compare=False, repr=False)

    def canonical(self) -> dict[str, Any]:
        """The fields that define the case, as plain JSON values (used for hashing)."""
        return {
            "id": self.id,
            "suite": self.suite,
            "question": self.question,
            "expect": self.expect,
            "expected_facts": list(self.expected_facts),
            "tiers": list(self.tiers),
            "tags": list(self.tags),
            # only when set: a case without thresholds keeps the hash it always had
            **({"thresholds": {f"{t}.{n}": v for (t, n), v in self.thresholds}} if self.thresholds else {}),
            **({"citations": self.citations} if self.citations is not None else {}),
        }

    def threshold(self, tier: str, name: str, default: float) -> float:
        """This case's own threshold for tier.name, else ``default`` (the run's)."""
        for key, value in self.thresholds:
            if key == (tier, name):
                return value
        return default


@dataclass(frozen=True)
class Passage:
    id: str
    text: str
    title: str | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"id": self.id, "text": self.text}
        if self.title is not None:
            data["title"] = self.title
        return data

    @classmethod
    def coerce(cls, value: Any, index: int) -> Passage:
        """A Passage, a plain string (id = 1-based rank) or a mapping with text/id/title."""
        if isinstance(value, Passage):
            return value
        if isinstance(value, (str, bytes)):
            return cls(id=str(index + 1), text=as_text(value, f"passage {index + 1}"))
        if isinstance(value, Mapping):
            if "text" not in value:
                raise TypeError(f"passage {index + 1} has no 'text'")
            title = value.get("title")
            return cls(
                id=as_text(value.get("id", index + 1), f"passage {index + 1}'s 'id'"),
                text=as_text(value["text"], f"passage {index + 1}'s 'text'"),
                title=None if title is None else as_text(title, f"passage {index + 1}'s 'title'"),
            )
        raise TypeError(f"passage {index + 1} is a {type(value).__name__}, not a str, dict or Passage")


def as_text(value: Any, field: str) -> str:
    """A field of a system's answer as text: bytes are decoded as UTF-8 (a retriever that does not
    decode), never judged as their Python repr ``b'...'``; bytes that are not UTF-8 are refused."""
    if isinstance(value, (bytes, bytearray)):
        try:
            return bytes(value).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise TypeError(f"{field} is bytes that are not UTF-8 (byte 0x{value[exc.start]:02x} at offset "
                            f"{exc.start}); decode it before returning it") from None
    return str(value)


def as_refused(value: Any) -> bool | None:
    """The ``refused`` of an answer mapping: True, False or absent (None). A string such as
    "false" is refused: read by truthiness it would count as a refusal."""
    if value is None or isinstance(value, bool):
        return value
    raise TypeError(f"'refused' must be true or false, got {value!r}")


@dataclass(frozen=True)
class Sentence:
    text: str
    citations: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if isinstance(self.citations, str):
            raise TypeError(f"Sentence.citations must be a list of passage ids, got the string {self.citations!r}")
        if not isinstance(self.citations, tuple):  # a list given by hand: hashable and equal to a parsed one
            object.__setattr__(self, "citations", tuple(str(c) for c in self.citations))

    def to_json(self) -> dict[str, Any]:
        return {"text": self.text, "citations": list(self.citations)}


def passage_list(value: Any) -> tuple[Passage, ...]:
    """Passages as given by a system: a list (or tuple) of strings, dicts or Passages. A single
    string is refused: iterating it would make one passage per character."""
    if isinstance(value, (str, bytes)):
        raise TypeError("'passages' must be a list of passages, got a single string (write [text])")
    if isinstance(value, Mapping):
        raise TypeError("'passages' must be a list of passages, got a mapping")
    return tuple(Passage.coerce(p, i) for i, p in enumerate(value))


def check_passage_ids(passages: Sequence[Passage]) -> None:
    """Two passages with one id would make a citation ambiguous: refuse them."""
    seen: set[str] = set()
    for i, p in enumerate(passages):
        if p.id in seen:
            raise ValueError(f"two passages have the id {p.id!r} (passage {i + 1} repeats it); passage ids must be unique")
        seen.add(p.id)


# --- answer parsing ---------------------------------------------------------------------------

# A refusal is a declining phrase at the start of the answer, after at most a short apology or
# regret ("Sorry, I can't ...", "Unfortunately, the context does not ..."). The apology alone is
# no refusal: answers open with "Sorry for the confusion earlier! ..." or "Unfortunately, pothos
# are toxic to cats." and then answer in full.
_APOLOGY = (
    r"(?:(?:i(?:'|\u2019)?m|i\s+am|we(?:'|\u2019)?re|we\s+are)\s+(?:(?:so|very|really|truly)\s+)?sorry"
    r"|(?:(?:so|very|really)\s+)?sorry|(?:my\s+)?apologies|(?:i|we)\s+apologi[sz]e"
    r"|unfortunately|regrettably|sadly|(?:i(?:'|\u2019)?m|i\s+am)\s+afraid)"
    r"(?:\s+(?:for|about)\s+[^.!?,;:\u2014]{0,60})?"  # "Sorry for the confusion earlier"
    r"(?:\s*[,.!;:\u2013\u2014-]+)?\s*(?:but\s+|however,?\s+)?"
)
_NOT = r"(?:do\s+not|don(?:'|\u2019)?t|cannot|can(?:'|\u2019)?t|can\s+not|could\s+not|couldn(?:'|\u2019)?t|am\s+unable\s+to|(?:'|\u2019)m\s+unable\s+to|am\s+not\s+able\s+to|(?:'|\u2019)m\s+not\s+able\s+to|are\s+unable\s+to|(?:'|\u2019)re\s+unable\s+to|won(?:'|\u2019)?t|will\s+not|am\s+not\s+sure|(?:'|\u2019)m\s+not\s+sure)"
_DECLINE = (
    rf"(?:i|we)\s*{_NOT}\s+(?:(?:really|currently|reliably|fully|actually)\s+)?"
    r"(?:know|answer|help|assist|say|tell|find|locate|provide|give|determine|confirm|comment|advise|see|access|offer|address|respond)\b"
    r"|(?:i|we)\s*(?:do\s+not|don(?:'|\u2019)?t|(?:'|\u2019)?ve\s+no|have\s+no)\s+(?:have\s+)?(?:any\s+|enough\s+|sufficient\s+|the\s+|that\s+|this\s+|specific\s+|relevant\s+)*"
    r"(?:information|context|details|data|knowledge|answer|sources?|passages?|documents?)\b"
    r"|(?:there\s+is|there(?:'|\u2019)s|i\s+have|i\s+found|we\s+have)\s+(?:no|not\s+enough|insufficient|little)\s+"
    r"(?:relevant\s+|specific\s+)?(?:information|context|details|data|mention|evidence|answer)\b"
    r"|no\s+(?:relevant\s+)?(?:information|context|answer)\s+(?:is|was)\s+(?:available|provided|given|found)\b"
    r"|(?:the|this|that|your|these)\s+(?:provided\s+|given\s+|available\s+|retrieved\s+|supplied\s+)?"
    r"(?:context|passages?|documents?|sources?|information|texts?|excerpts?|question|request)\s+"
    r"(?:do(?:es)?\s+not|don(?:'|\u2019)?t|doesn(?:'|\u2019)?t|did\s+not|didn(?:'|\u2019)?t|is\s+not|isn(?:'|\u2019)?t|are\s+not|aren(?:'|\u2019)?t|is\s+outside|falls?\s+outside|is\s+beyond|lies\s+beyond)\b"
    r"|(?:that|this)\s+is\s+(?:outside|beyond|not\s+(?:something|a\s+question))\b"
)
_REFUSAL = re.compile(rf"^\s*(?:{_APOLOGY})?(?:{_DECLINE})", re.IGNORECASE)


def looks_like_refusal(text: str) -> bool:
    """Whether an answer declines: empty, or a declining phrase at its start ("I don't know",
    "I can't help with that", "There is no information about ...", "The provided context does not
    ..."), after at most a short apology or regret ("Sorry, but I can't ...", "Unfortunately, the
    passages do not ..."). An answer that only opens with "Sorry" or "Unfortunately" and then
    answers is an answer."""
    return not text.strip() or bool(_REFUSAL.match(text))


def parse_sentence(raw: str, passages: Sequence[Passage]) -> Sentence:
    """Strip ALCE-style markers from one sentence; marker k cites the k-th passage (1-based).

    A marker that points past the retrieved passages is kept as the citation "[k]", which names no
    passage, so every judge reports it as a citation to a passage that does not exist.
    """
    text, citations = strip_markers(raw, [p.id for p in passages])
    return Sentence(text=text, citations=citations)


@dataclass(frozen=True)
class Answer:
    sentences: tuple[Sentence, ...]
    passages: tuple[Passage, ...] = ()
    refused: bool = False
    text: str | None = None

    def __post_init__(self) -> None:
        # Lists given by hand (Answer(sentences=[...], passages=[...])) become tuples: the answer is
        # then hashable and judged the same on the first run and when read back from the cache.
        if isinstance(self.sentences, (str, bytes)) or isinstance(self.passages, (str, bytes)):
            which = "sentences" if isinstance(self.sentences, (str, bytes)) else "passages"
            raise TypeError(f"Answer.{which} must be a list, got a string")
        if not isinstance(self.sentences, tuple):
            object.__setattr__(self, "sentences", tuple(
                s if isinstance(s, Sentence) else Sentence(str(s["text"]), tuple(s.get("citations", ())))
                for s in self.sentences))
        if not isinstance(self.passages, tuple) or not all(isinstance(p, Passage) for p in self.passages):
            object.__setattr__(self, "passages", tuple(Passage.coerce(p, i) for i, p in enumerate(self.passages)))
        check_passage_ids(self.passages)

    @classmethod
    def from_text(
        cls, text: str, passages: Iterable[Any] = (), refused: bool | None = None
    ) -> Answer:
        """Parse an answer with ALCE-style markers: ``[1]``, ``[1][2]``, ``[1, 2]``."""
        plist = passage_list(passages)
        if refused is None:
            refused = looks_like_refusal(text)
        sentences = tuple(
            s for s in (parse_sentence(raw, plist) for raw in split_sentences(text)) if s.text
        )
        return cls(sentences=() if refused else sentences, passages=plist, refused=refused, text=text)

    @classmethod
    def coerce(cls, value: Any) -> Answer:
        """What a system returned, as an Answer.

        Accepts an Answer; a ``(text, passages)`` pair; or a mapping with ``text`` (or ``answer``),
        ``passages`` and optional ``refused``; or a mapping with ``sentences`` (each a dict with
        ``text`` and ``citations``) and ``passages``.
        """
        if isinstance(value, Answer):
            return value
        if isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], (str, bytes)):
            return cls.from_text(as_text(value[0], "the answer text"), value[1])
        if isinstance(value, Mapping):
            passages = value.get("passages", ())
            refused = as_refused(value.get("refused"))
            if "sentences" in value:
                plist = passage_list(passages)
                sents = tuple(
                    Sentence(text=as_text(s["text"], f"sentence {i + 1}'s 'text'"),
                             citations=tuple(as_text(c, f"sentence {i + 1}'s citation") for c in s.get("citations", ())))
                    for i, s in enumerate(value["sentences"])
                )
                return cls(sentences=sents, passages=plist, refused=bool(refused))
            text = value.get("text", value.get("answer"))
            if isinstance(text, (bytes, bytearray)):
                text = as_text(text, "'text'")
            if not isinstance(text, str):
                raise TypeError("an answer mapping needs a 'text' (or 'answer') string or 'sentences'")
            return cls.from_text(text, passages, refused)
        raise TypeError(
            f"the system returned a {type(value).__name__}; expected an Answer, a (text, passages) "
            "pair, or a dict with 'text' and 'passages'"
        )

    def passage(self, pid: str) -> Passage | None:
        for p in self.passages:
            if p.id == pid:
                return p
        return None

    def cited(self, sentence: Sentence) -> tuple[list[Passage], list[str]]:
        """The passages a sentence cites, and the citations that name no retrieved passage."""
        found, missing = [], []
        for cid in sentence.citations:
            p = self.passage(cid)
            (found.append(p) if p is not None else missing.append(cid))
        return found, missing

    def render(self) -> str:
        """The answer as text with 1-based markers, the form ``from_text`` reads."""
        if self.text is not None:
            return self.text
        index = {p.id: i + 1 for i, p in enumerate(self.passages)}
        parts = []
        for s in self.sentences:
            marks = "".join(f"[{index[c]}]" if c in index else c for c in s.citations)
            body = s.text
            if marks and body and body[-1] in ".!?":
                body = f"{body[:-1]} {marks}{body[-1]}"
            elif marks:
                body = f"{body} {marks}"
            parts.append(body)
        return " ".join(parts)

    def to_json(self) -> dict[str, Any]:
        return {
            "text": self.render(),
            "refused": self.refused,
            "sentences": [s.to_json() for s in self.sentences],
            "passages": [p.to_json() for p in self.passages],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Answer:
        plist = passage_list(data.get("passages", ()))
        sents = tuple(
            Sentence(text=s["text"], citations=tuple(s.get("citations", ()))) for s in data.get("sentences", ())
        )
        return cls(sentences=sents, passages=plist, refused=bool(data.get("refused")), text=data.get("text"))


@dataclass(frozen=True)
class GoldenItem:
    """A case and what the system gave for it: an answer, or the error it raised."""

    case: Case
    answer: Answer | None
    error: str | None = None  # formatted traceback when the system raised


@dataclass(frozen=True)
class Verdict:
    """One judge's decision on one claim.

    ``supported`` is True, False, or None for *unscored*: the judge could not decide (invalid
    JSON, a timeout). Unscored verdicts are counted apart, never as a pass or a fail.
    """

    supported: bool | None
    score: float
    evidence: str | None
    reason: str
    rule: str | None = None  # the rule that failed, for judges that have rules

    def to_json(self) -> dict[str, Any]:
        return {
            "supported": self.supported,
            "score": self.score,
            "evidence": self.evidence,
            "reason": self.reason,
            "rule": self.rule,
        }


# --- the types the public API accepts and returns (pytest_sprout.assert_grounded) ---------------

PassageLike: TypeAlias = Passage | str | Mapping[str, Any]
"""A passage as a system may give it: a Passage, its text, or a mapping with text/id/title."""
AnswerLike: TypeAlias = Answer | str | tuple[str, Sequence[PassageLike]] | Mapping[str, Any]
"""An answer as a system may give it: an Answer, text with ALCE markers, a (text, passages) pair,
or a mapping with text (or sentences) and passages (``Answer.coerce``)."""


class ClaimJudge(Protocol):
    """Judges claims against the passages they cite: LexicalJudge, NLIJudge, or a judge of your own."""

    def judge_many(self, pairs: Iterable[tuple[str, Sequence[Passage | str]]]) -> list[Verdict]:
        """One Verdict per (claim, cited passages) pair."""
        ...
