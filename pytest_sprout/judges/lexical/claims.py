"""What in an answer is a claim: ``no_claim`` says why a sentence states nothing a passage could
support or refute (it announces its source, is a bare citation or list marker, says what the
sources do not state, is a preamble or a bare "Yes."): the judge leaves it unscored, rule
``no-claim``. The patterns are narrow on purpose ("It is unclear whether ..." is a claim).
``join_fragments`` judges a sentence without a verb ("In 2011.") with the sentence before it."""

from __future__ import annotations

import re
from typing import Sequence, TypeVar

from . import lexicon
from .framing import _ACCORDING, _BOILERPLATE, _OPENERS, _SOURCE
from .text import words_of

_MARKER = r"\[\s*\d+(?:\s*[,;-]\s*\d+)*\s*\]"
# "(Smith et al., 2020)", "(Smith and Jones 2019; Lee, 2020a)", "(Smith, 2020, p. 4)".
_AUTHOR_YEAR = (r"\(\s*(?:(?!(?:in|on|at|by|since|from|until|before|after|circa|around|about|between|during|"
                r"early|late|mid|summer|winter|spring|autumn|fall)\b)(?-i:[A-Z])[\w'’-]+(?: (?:et al\.?|and|&) ?(?:[A-Z][\w'’-]+)?)?,? (?:19|20)\d\d[a-z]?"
                r"(?:, p+\. ?\d+(?:-\d+)?)?\s*;?\s*)+\)")
_CITATION = re.compile(
    rf"^\s*(?:(?:sources?|references?|citations?|see)\s*:?\s*)?(?:(?:{_MARKER}|{_AUTHOR_YEAR})\s*[,;]?\s*)+[.,;:]*\s*$",
    re.IGNORECASE,
)
_LIST_MARKER = re.compile(r"^\s*(?:\(?\d{1,2}[.)]|\(\d{1,2}\))\s*$")
# What is left of a sentence after its framing opening when it states nothing: punctuation and
# citation markers ("Based on the given context [1]," reaches the judge as "Based on the given context,.").
_NOTHING_LEFT = re.compile(rf"(?:\s|[.,;:!?\-–—]|{_MARKER}|{_AUTHOR_YEAR})*")
_SOURCE_ONLY = re.compile(
    rf"\s*(?:{_ACCORDING}|(?:here is|here's) what) {_SOURCE}(?: (?:says|states|shows))?{_NOTHING_LEFT.pattern}",
    re.IGNORECASE)
_CONNECTIVE = r"(?:(?:however|unfortunately|but|also|moreover|additionally|furthermore|overall|therefore),?\s+)?"
_LACKS = re.compile(
    rf"^\s*{_CONNECTIVE}(?:"
    # "It is not mentioned whether ...", "It isn't stated in the passages what ..."
    r"(?:it is|it's|it was) not (?:explicitly |directly |clearly )?"
    r"(?:mentioned|stated|specified|said|given|provided|indicated|discussed|addressed|described|explained|"
    r"clarified|reported)\b"
    r"|(?:it is|it's) (?:not clear|unclear) (?:from|in) " + _SOURCE + r"\b"
    # "The context does not say ...", "The provided documents don't mention ..."
    rf"|{_SOURCE} (?:does not|doesn't|do not|don't|did not|didn't|cannot|can't|fails? to) "
    r"(?:explicitly |directly |clearly |specifically )?"
    r"(?:say|state|mention|specify|provide|indicate|include|contain|give|describe|discuss|address|explain|"
    r"clarify|tell|offer|answer|cover)\b"
    # "There is no information about ...", "No mention is made of ..."
    r"|there (?:is|are|was) no (?:specific |explicit |further |direct )?(?:information|mention|details?|data|"
    r"evidence|indication) (?:about|of|on|regarding|concerning|as to|in|that|whether|given|provided)\b"
    r"|no (?:specific |explicit |further )?(?:information|mention|details?) (?:is|are|was|were) "
    r"(?:given|provided|made|available|mentioned|offered)\b"
    r")",
    re.IGNORECASE,
)
# An answer's preamble ("Here is a concise summary of the passage:", "Sure! Here are the key
# points:"): it says what the answer does, nothing about the world. (A sentence that describes the
# source's course, "The passage then focuses on X", is framing: X is judged, ``framing``.)
_PREAMBLE = re.compile(
    r"\s*(?:(?:sure|certainly|okay|ok)[!,.]?\s+)?(?:here (?:is|are)|here's|below (?:is|are)) (?:a |an |the |my )?"
    r"(?:[\w-]+ ){0,3}(?:summary|summaries|overview|answer|list|breakdown|explanation|rundown|recap|version|points)"
    rf"(?: (?:of|for|on|from|based on) (?:{_SOURCE}|(?:the |this )?[\w-]+(?: [\w-]+)?))?\s*[:.]?\s*",
    re.IGNORECASE,
)
# A bare reply to the question ("Yes.", "No, it is not.", "Yes, there are.", "Generally, yes.", "The
# short answer is no."): it says that the question's proposition holds or not, which only the
# question states.
_BARE_REPLY = re.compile(
    r"\s*(?:(?:generally|usually|mostly|basically|essentially|overall|in general|in short|in most cases),?\s+"
    r"|the (?:short |simple |quick )?answer is:?\s+)?"
    r"(?:yes|no|yeah|nope)(?:,?\s+(?:there|it|they|he|she|you|we|i|that|this)\s+"
    r"(?:is|are|was|were|do|does|did|can|could|will|would|has|have|may|might|should)(?:\s*not|n't)?)?\s*[.!]?\s*",
    re.IGNORECASE,
)
# The first words a sentence with no claim can start with: most claims skip the patterns.
_STARTS = _OPENERS - {"it\u2019s", "keep", "note"} | frozenset(
    "also basically below but certainly citation citations essentially furthermore generally here here's moreover "
    "mostly no nope ok okay overall see sure there therefore unfortunately usually yeah yes".split())

_PUNCTUATION = " .,;:!?-–—"
_ALNUM = re.compile(r"[^\W_]")


def no_claim(sentence: str) -> str | None:
    """Why a sentence states nothing a passage could support or refute, or None for a claim."""
    text = sentence.strip()
    if not text:
        return None
    first = text[0]
    if not first.isalnum() and _ALNUM.search(text) is None:  # '".', "* * *"
        return "it has no words"
    if first in "[(" or first.isdigit():
        if _LIST_MARKER.match(text):
            return "a list marker"
        if _CITATION.match(text):
            return "a citation"
        return None
    word = text[:16].split(None, 1)[0].lower().rstrip(",:.!")
    if word not in _STARTS:
        return None
    if _CITATION.match(text):
        return "a citation"
    if _SOURCE_ONLY.fullmatch(text):
        return f"it only announces its source ('{text.rstrip(_PUNCTUATION)}')"
    m = _BOILERPLATE.match(text)
    if m is not None and _NOTHING_LEFT.fullmatch(text, m.end()):
        return f"it only frames the answer ('{text.rstrip(_PUNCTUATION)}')"
    if _LACKS.match(text):
        return "it says what the sources do not state"
    if _PREAMBLE.fullmatch(text):
        return f"it only introduces the answer ('{text.rstrip(_PUNCTUATION)}')"
    if _BARE_REPLY.fullmatch(text):
        return f"it only answers the question ('{text.rstrip(_PUNCTUATION)}')"
    return None


# Clitics that "words_of" drops or opens ("it's", "they're"): each is a verb.
_CLITIC_VERB = re.compile(r"[’'](?:s|re|ve|ll|d|m)\b|n[’']t\b", re.IGNORECASE)
_MOST_FRAGMENT_WORDS = 12  # a longer verbless stretch is a heading or a list, not a fragment


def is_fragment(sentence: str) -> bool:
    """Whether a sentence has no verb: none of its words can be one ("In 2011.", "222 - 0.")."""
    words = [w for w in words_of(sentence) if w[0].isalpha()]
    if len(words) > _MOST_FRAGMENT_WORDS or _CLITIC_VERB.search(sentence):
        return False
    return not any(lexicon.could_be_verb(w) for w in words)


S = TypeVar("S")


def join_fragments(pairs: Sequence[tuple[str, Sequence[S]]]) -> tuple[list[tuple[str, list[S]]], list[bool]]:
    """The sentences of one answer, in order, as (claim, cited passages): each fragment that
    follows a sentence with a claim becomes that sentence and the fragment, citing the passages of
    both (the previous sentence's first). Returns the pairs to judge and which were joined."""
    out: list[tuple[str, list[S]]] = []
    joined: list[bool] = []
    previous: tuple[str, Sequence[S]] | None = None
    for text, sources in pairs:
        claim = no_claim(text) is None
        if previous is not None and claim and is_fragment(text):
            before, cited = previous
            merged = list(cited) + [s for s in sources if not any(s is c or s == c for c in cited)]
            out.append((f"{before.rstrip()} {text.strip()}", merged))
            joined.append(True)
            continue
        out.append((text, list(sources)))
        joined.append(False)
        if claim:
            previous = (text, sources)
    return out, joined
