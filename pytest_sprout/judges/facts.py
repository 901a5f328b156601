"""Expected facts (a case's ``expected_facts``) found in an answer: the groundedness tier's
``facts`` metric.

A fact is found when the answer holds it, word for word (at word boundaries: "2 cups" is not in
"12 cups"), or when a stretch of the answer's words is close enough to the whole fact: the fuzzy
score (rapidfuzz ``ratio``, 0-100) of the fact against each run of the answer's words about as
long as the fact (one or two words fewer or more) reaches the threshold, on the lower-cased text or
on the words' *lemmas*: both texts read through the lexical judge's word keys (its lemma, then a
light stem: "offended" and "offends" are "offend"), an answer word that is a derivationally related
form of a fact word ("offensive" of "offend", "explanation" of "explain", as the judge finds them)
taking the fact word's key. The fact is scored against windows of the answer, never the reverse, so
an answer that says less ("Indirect light" for "bright indirect light") does not cover it.

A close stretch still does not count when it says something else:

- another number: the fact's numbers must be there by value, as the lexical judge compares them
  ("2 cups" is "two cups" but not "20 cups"; "every 7 days" is "weekly" but not "every 17 days");
- the opposite: a word of the stretch that is a fact word with a negating prefix ("unsafe" for
  "safe", "indirect" for "direct") or the reverse, or its WordNet antonym ("decrease" for
  "increase");
- a negation one side has and the other lacks ("not", "never", "isn't"...), in the stretch or just
  before it in its clause ("is not safe for cats" for "safe for cats").

The surface score is kept in the reason either way; a failing score is printed with one decimal,
rounded down, so it never reads as the threshold (84.96 is "84.9/100 (needs 85)"); a close
stretch that says something else is named with why ("'20 cups' gives another number").
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

FACT_THRESHOLD = 85.0  # rapidfuzz ratio of the fact to a stretch of the answer, 0-100
# Related forms (WordNet, read once per process when first needed) are looked up only for a fact
# whose lemmas alone come this near: a form shares most of its word.
RELATED_FROM = 60.0
# A word; a number with its point or thousands commas is one ("2.5", "1,000").
_WORD = re.compile(r"(?:\d+(?:[.,]\d+)+|[^\W_]+)(?:['\u2019-][^\W_]+)*")
SPAN_SLACK = 2  # a stretch of the answer has the fact's words, up to this many fewer or more
_NEGATORS = frozenset("not no never none nothing neither nor cannot without".split())
_NEGATING_PREFIXES = ("non-", "non", "un", "in", "im", "il", "ir", "dis", "de", "anti-", "anti")
WORD_FROM = 67.0  # a fact word is in a stretch when one of its words scores this near it ("grey" ~ "gray" 75)
_FUNCTION_WORDS = frozenset(
    "the and for with from into onto that this these those its are was were been has have had not nor but".split())
_CLAUSE_BREAK = re.compile(r"[,;:.!?()\u2013\u2014]")


@dataclass(frozen=True)
class FactMatch:
    """How an expected fact fared: found or not, the surface (raw) fuzzy score and the lemma one."""

    fact: str
    found: bool
    fuzzy_score: float  # ratio of the fact to the closest stretch of the answer, lower-cased
    lemma_score: float  # the same on their word keys (see the module)
    near_miss: str = ""  # the closest stretch of the answer, when the fact was not found
    conflict: str = ""  # why a stretch close enough does not count ("'20 cups' gives another number")

    @property
    def by_lemma(self) -> bool:
        """Found through the lemmas only: the surface match alone would have missed it."""
        return self.found and self.lemma_score > self.fuzzy_score


def shown(score: float) -> str:
    """A score with one decimal, rounded down: a failing 84.96 never reads as 85.0."""
    return f"{math.floor(score * 10 + 1e-9) / 10:.1f}"


def _keys(text: str) -> list[tuple[str, str]]:
    """(word, key) for each word of the text, lower-cased; the key is the lexical judge's, and a
    number word's is its value ("two" is "2")."""
    from .lexical.text import NUMBER_WORDS, stem

    return [(w, f"{NUMBER_WORDS[w]:g}" if w in NUMBER_WORDS and w != "half" else stem(w))
            for w in _WORD.findall(text.lower())]


@lru_cache(maxsize=1 << 14)
def _forms(word: str) -> frozenset[str]:
    """The keys of a word's derivationally related forms ("offensive" -> "offend", ...)."""
    from .lexical import lexicon
    from .lexical.text import stem

    try:
        return frozenset(stem(w) for w in lexicon.derived(lexicon.lemma(word)))
    except Exception:  # WordNet unavailable: no related forms, the lemmas alone
        return frozenset()


def _lemma_words(fact: str, text: str, forms: bool = True) -> tuple[list[str], list[str]]:
    """The fact's and the answer's word keys, an answer word related to a fact word taking that
    fact word's key (with ``forms``; see the module). One key per word of each."""
    fact_words = _keys(fact)
    if not forms:
        return [key for _, key in fact_words], [key for _, key in _keys(text)]
    fact_keys = {key for _, key in fact_words}
    related: dict[str, str] = {}
    for word, key in fact_words:
        for form in _forms(word):
            related.setdefault(form, key)
    out = []
    for word, key in _keys(text):
        if key not in fact_keys:
            if key in related:
                key = related[key]
            else:
                key = next((k for k in sorted(_forms(word)) if k in fact_keys), key)
        out.append(key)
    return [key for _, key in fact_words], out


def lemma_text(fact: str, text: str, forms: bool = True) -> tuple[str, str]:
    """The fact and the answer as word keys, an answer word related to a fact word written as
    that fact word's key (with ``forms``; see the module)."""
    fact_k, text_k = _lemma_words(fact, text, forms)
    return " ".join(fact_k), " ".join(text_k)


def match_fact(fact: str, text: str, threshold: float = FACT_THRESHOLD) -> FactMatch:
    """Whether an expected fact appears in the answer text (see the module), with both scores."""
    fact_l, text_l = fact.lower().strip(), text.lower()
    if not fact_l:
        return FactMatch(fact, True, 100.0, 100.0)
    spans = [m.span() for m in _WORD.finditer(text_l)]
    conflict = ""
    for start in _occurrences(fact_l, text_l):
        why = _says_else(fact_l, text_l, start, start + len(fact_l), spans)
        if not why:
            return FactMatch(fact, True, 100.0, 100.0)
        conflict = conflict or why
    windows = _windows(len(spans), len(_WORD.findall(fact_l)))
    surface = _scored(fact_l, [text_l[spans[i][0]:spans[j - 1][1]] for i, j in windows], windows)
    raw, near, why = _best(fact_l, text_l, spans, surface, threshold)
    conflict = conflict or why
    if raw >= threshold and not why:
        return FactMatch(fact, True, raw, raw)
    fact_k, text_k = _lemma_words(fact, text, forms=False)
    lemma, why = _lemma_best(fact_l, fact_k, text_k, text_l, spans, windows, threshold)
    if RELATED_FROM <= lemma < threshold or why:
        fact_k, text_k = _lemma_words(fact, text)
        lemma, why = max((lemma, why), _lemma_best(fact_l, fact_k, text_k, text_l, spans, windows, threshold),
                         key=lambda found: (found[0] >= threshold and not found[1], found[0]))
    found = lemma >= threshold and not why
    return FactMatch(fact, found, raw, lemma, "" if found else near, "" if found else conflict or why)


def _ratio(a: str, b: str) -> float:
    from rapidfuzz import fuzz

    return float(fuzz.ratio(a, b))


def _scored(query: str, choices: list[str], windows: list[tuple[int, int]]) -> list[tuple[float, int, int]]:
    """(ratio of the query and each choice, the choice's window), in one call into rapidfuzz."""
    from rapidfuzz import fuzz, process

    return [(float(score), *windows[k]) for _, score, k in process.extract(query, choices, scorer=fuzz.ratio,
                                                                             limit=None)]


def _occurrences(fact_l: str, text_l: str) -> list[int]:
    """Where the fact stands in the text word for word, at word boundaries: not "2 cups" inside
    "12 cups" or "2.2 cups", not "safe" inside "unsafe"."""
    out: list[int] = []
    start = text_l.find(fact_l)
    while start >= 0:
        end = start + len(fact_l)
        if _boundary(text_l, start - 1, -1, fact_l[0]) and _boundary(text_l, end, 1, fact_l[-1]):
            out.append(start)
        start = text_l.find(fact_l, start + 1)
    return out


def _boundary(text: str, i: int, step: int, edge: str) -> bool:
    if i < 0 or i >= len(text):
        return True
    if edge.isalnum() and text[i].isalnum():
        return False
    # a number's other part: "2" in "2.5" or "1,000", "5" in "2.5"
    return not (edge.isdigit() and text[i] in ".,-" and 0 <= i + step < len(text) and text[i + step].isdigit())


def _windows(count: int, n: int) -> list[tuple[int, int]]:
    """(first, end) word indices of every run of the answer's ``count`` words with ``n`` words, up
    to SPAN_SLACK fewer (at least one) or more."""
    out: list[tuple[int, int]] = []
    for k in range(max(1, n - SPAN_SLACK), n + SPAN_SLACK + 1):
        out.extend((i, i + k) for i in range(count - k + 1))
    return out


def _best(fact_l: str, text_l: str, spans: list[tuple[int, int]], scored: list[tuple[float, int, int]],
          threshold: float, fact_keys: list[str] | None = None, text_keys: list[str] | None = None,
          ) -> tuple[float, str, str]:
    """(score, stretch, why it does not count): the best stretch that says what the fact says when
    one reaches the threshold, else the closest; ``why`` is empty for a stretch that counts. With
    the word keys, a fact word is also covered by a stretch word of the same (or a close) key.
    ``scored`` is (score, first word, end word) per window."""
    if not scored:
        return 0.0, "", ""
    order = sorted(scored, key=lambda s: (-s[0], s[2] - s[1], s[1]))
    first_why = ""
    for score, i, j in order:
        if score < threshold:
            break
        a, b = spans[i][0], spans[j - 1][1]
        keys = text_keys[i:j] if fact_keys is not None and text_keys is not None else None
        missing = _missing_word(_WORD.findall(fact_l), _WORD.findall(text_l[a:b]), fact_keys, keys)
        why = f"{text_l[a:b]!r} lacks {missing!r}" if missing else _says_else(fact_l, text_l, a, b, spans)
        if not why:
            return score, text_l[a:b], ""
        first_why = first_why or why
    score, i, j = order[0]
    return score, text_l[spans[i][0]:spans[j - 1][1]], first_why


def _missing_word(fact_words: list[str], words: list[str], fact_keys: list[str] | None = None,
                  keys: list[str] | None = None) -> str:
    """A content word of the fact that no word of the stretch comes near (rapidfuzz ``ratio``
    below WORD_FROM, on the words or on their keys), else empty: a close score made of the other
    words ("insecticidal do" for "insecticidal soap") does not cover the fact. Numbers are left to
    the number check, function words to the whole score."""
    for i, word in enumerate(fact_words):
        if len(word) < 3 or word in _FUNCTION_WORDS or word[0].isdigit() or word in words:
            continue
        key = fact_keys[i] if fact_keys is not None and i < len(fact_keys) else None
        if key is not None and keys and key in keys:
            continue
        near = max((_ratio(word, w) for w in words), default=0.0)
        if key is not None and keys:
            near = max(near, max(_ratio(key, k) for k in keys))
        if near < WORD_FROM:
            return word
    return ""


def _lemma_best(fact_l: str, fact_k: list[str], text_k: list[str], text_l: str, spans: list[tuple[int, int]],
                windows: list[tuple[int, int]], threshold: float) -> tuple[float, str]:
    """The lemma score of the best stretch (its words' keys against the fact's), and why it does
    not count (empty when it does)."""
    if not fact_k or not text_k or len(text_k) != len(spans):
        return 0.0, ""
    scored = _scored(" ".join(fact_k), [" ".join(text_k[i:j]) for i, j in windows], windows)
    score, _, why = _best(fact_l, text_l, spans, scored, threshold, fact_k, text_k)
    return score, why


def _start_index(spans: list[tuple[int, int]], a: int) -> int:
    from bisect import bisect_left

    return bisect_left(spans, (a, -1))


def _says_else(fact_l: str, text_l: str, a: int, b: int, spans: list[tuple[int, int]]) -> str:
    """Why the stretch text_l[a:b] does not say what the fact says (see the module): another
    number, the opposite, a negation; empty when nothing is found."""
    stretch = text_l[a:b]
    words, fact_words = _WORD.findall(stretch), _WORD.findall(fact_l)
    number = _other_number(fact_l, stretch)
    if number:
        return f"{stretch!r} gives another number ({number})"
    opposite = _opposite(fact_words, words)
    if opposite:
        return f"{stretch!r} says the opposite ({opposite})"
    before = _clause_before(text_l, a, spans)
    if _negated(fact_words) != _negated(words + before):
        said = "the fact is negated and the answer is not" if _negated(fact_words) else (
            f"the answer negates it ({' '.join(before + words)!r})")
        return f"{stretch!r}: {said}"
    return ""


def _clause_before(text_l: str, a: int, spans: list[tuple[int, int]]) -> list[str]:
    """The word before position ``a`` in its clause (no punctuation between): "not" in "is not
    safe", but not "never" in "never leave water ..." (that negates "leave")."""
    i = _start_index(spans, a) - 1
    if i < 0 or _CLAUSE_BREAK.search(text_l, spans[i][1], a):
        return []
    return [text_l[spans[i][0]:spans[i][1]]]


def _negated(words: list[str]) -> bool:
    return sum(w in _NEGATORS or w.endswith(("n't", "n\u2019t")) for w in words) % 2 == 1


def _numbers(text: str) -> list[Any]:
    from .lexical.numbers import find_numbers
    from .lexical.text import words_of

    try:
        return list(find_numbers(words_of(text)))
    except Exception:  # an odd number the judge cannot read: compared by its digits below
        return []


def _other_number(fact_l: str, stretch: str) -> str:
    """The fact's number the stretch does not give, by value (empty when all are there)."""
    if not any(c.isdigit() for c in fact_l) and not _NUMBER_WORD.search(fact_l):
        return ""
    ours = _numbers(fact_l)
    theirs = _numbers(stretch)
    for number in ours:
        if not any(number.same_amount(other) or other.same_amount(number) for other in theirs):
            given = ", ".join(other.text for other in theirs) or "none"
            return f"{given}; the fact says {number.text}"
    if not ours:  # digits the judge reads as no number ("B12", "Form 1040-X"): the same digits
        digits, other = re.findall(r"\d+", fact_l), re.findall(r"\d+", stretch)
        if digits != other:
            return f"{', '.join(other) or 'none'}; the fact says {', '.join(digits)}"
    return ""


_NUMBER_WORD = re.compile(
    r"\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|"
    r"sixty|seventy|eighty|ninety|hundred|thousand|million|dozen|once|twice|half|daily|weekly|monthly|yearly)\b")


def _opposite(fact_words: list[str], words: list[str]) -> str:
    """A word of the stretch that is the opposite of a fact word: the same word with a negating
    prefix (either way round) or a WordNet antonym. Empty when none is."""
    from .lexical.text import antonym_keys, stem

    ours, theirs = set(fact_words), set(words)
    for word in words:
        if word in ours:
            continue
        for fw in fact_words:
            if fw in theirs:
                continue
            for longer, shorter in ((word, fw), (fw, word)):
                for prefix in _NEGATING_PREFIXES:
                    if longer.startswith(prefix) and len(shorter) > 2 and longer[len(prefix):] == shorter:
                        return f"{word!r} against {fw!r}"
            try:
                if stem(word) in antonym_keys(fw) or stem(fw) in antonym_keys(word):
                    return f"{word!r} against {fw!r}"
            except Exception:  # WordNet unavailable: prefixes only
                pass
    return ""


def find_fact(fact: str, text: str, threshold: float = FACT_THRESHOLD) -> bool:
    """Whether an expected fact appears in the answer text, allowing small wording changes and
    other inflections of its words, but not another number or the opposite."""
    return match_fact(fact, text, threshold).found


def best_near_miss(fact: str, text: str) -> tuple[str, float]:
    """The stretch of the answer closest to an expected fact (whole words, as written), and its
    score (rapidfuzz ``ratio``, 0-100, unrounded): what the fuzzy match came nearest to."""
    fact_l, text_l = fact.lower().strip(), text.lower()
    spans = [m.span() for m in _WORD.finditer(text_l)]
    if not fact_l or not spans:
        return "", 0.0
    windows = _windows(len(spans), len(_WORD.findall(fact_l)))
    scored = _scored(fact_l, [text_l[spans[i][0]:spans[j - 1][1]] for i, j in windows], windows)
    score, i, j = min(scored, key=lambda s: (-s[0], s[2] - s[1], s[1]))
    return text[spans[i][0]:spans[j - 1][1]].strip(" .,;:!?"), score


def fact_reasons(missing: list[FactMatch], text: str, threshold: float) -> list[dict[str, Any]]:
    """One reason per missing fact: its best near miss with the surface score (one decimal,
    rounded down) and the threshold, the lemma score when it came nearer, and why a stretch close
    enough does not count (another number, the opposite, a negation)."""
    out = []
    for m in missing:
        near, score = best_near_miss(m.fact, text)
        if m.fuzzy_score or m.near_miss:  # what match_fact measured
            score = m.fuzzy_score
        if near:
            why = f"best near miss {near!r} scores {shown(score)}/100 (needs {threshold:g})"
            if m.lemma_score > score and m.lemma_score >= RELATED_FROM:  # the lemmas came near
                why += f"; by lemma {shown(m.lemma_score)}"
            if m.conflict:
                why += f"; not counted: {m.conflict}"
        else:
            why = "the answer has no sentences to search"
        reason = {"metric": "facts", "why": f"missing expected fact {m.fact!r}: {why}", "fact": m.fact,
                  "near_miss": near, "fuzzy_score": float(shown(score)), "lemma_score": float(shown(m.lemma_score)),
                  "threshold": threshold}
        if m.conflict:
            reason["conflict"] = m.conflict
        out.append(reason)
    return out


def found_by_lemma(matches: list[FactMatch]) -> list[dict[str, Any]]:
    """The facts found only through their lemmas, with the raw fuzzy score the surface match had."""
    return [{"fact": m.fact, "fuzzy_score": float(shown(m.fuzzy_score)), "lemma_score": float(shown(m.lemma_score))}
            for m in matches if m.by_lemma]
