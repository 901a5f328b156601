"""The negation operator: a supported sentence turned into its negation, by a "not" after the
first auxiliary it finds (or a "does not" before its verb), else an "It is not true that" prefix.
A pure function of the sentence, like every operator (operators.py lists them)."""

from __future__ import annotations

import re
from typing import Sequence

from .words import WORD, match_case

# --- negation ----------------------------------------------------------------------------------

_NEGATED_CONTRACTIONS = {
    "can't": "can", "cannot": "can", "won't": "will", "shan't": "shall", "don't": "do",
    "doesn't": "does", "didn't": "did", "isn't": "is", "aren't": "are", "wasn't": "was",
    "weren't": "were", "hasn't": "has", "haven't": "have", "hadn't": "had", "couldn't": "could",
    "wouldn't": "would", "shouldn't": "should", "mustn't": "must", "mightn't": "might",
}
_AUXILIARIES = frozenset("is are was were can could will would should must may might shall".split())
_HAVE = {"has": "does not have", "have": "do not have", "had": "did not have"}
_PARTICIPLES = frozenset(
    """been become begun brought built bought chosen come done drawn driven eaten fallen found
    forgotten given gone got gotten grown had held hidden kept known led left lost made met paid put
    read risen run said seen sent set shown sold spent spoken stood taken thought told understood
    won worn written""".split()
)
# After these, "not" would not negate ("will not only"), or would stack ("is not no").
_NO_NOT_BEFORE = frozenset("not no never nothing none neither nor only just merely simply".split())
_SINGULAR_SUBJECTS = frozenset("it he she this which who".split())
_PLURAL_SUBJECTS = frozenset("they we you these those".split())
_ADVERB_SKIP = frozenset("also often usually always only still generally typically mostly".split())
# A capitalised first word followed by one of these is read as an imperative: "Keep the soil".
_IMPERATIVE_NEXT = frozenset(
    """the a an it them your its their this these those every each only when if until once in at
    about roughly thoroughly deeply sparingly regularly well less more""".split()
)
# Capitalised first words that are no verb, so no imperative ("Only the gas giants have rings",
# "Through their color patterns, fish ...", "Over the centuries, ..."): "Do not" before one of
# them makes no sentence at all ("Do not only the gas giants have rings"), not the negation.
_NOT_VERBS = frozenset(
    """Only Through Though Although Over Under Above Below Across Along Among Around Behind Beyond
    Despite Except Inside Outside Within Without Upon Via Unlike Like Since Until Whether Whereas
    Because Unless Even Just Still Also Often Sometimes Usually Always Never Here Now Today People""".split()
)
_QUANTIFIED_SUBJECTS = frozenset("Some Many Most Several Few".split())
_LOWER_FIRST = frozenset(
    """The A An In On At It Its This That These Those They Their There When While If As For But
    So After Before During Some Most Many All Every Each Few No""".split()
)


# A sentence-opening connective and its comma: "Additionally, ", "In addition, ", "As a result, ".
_CONNECTIVE = re.compile(
    r"^\s*(?:additionally|also|moreover|furthermore|however|therefore|thus|hence|overall|ultimately|finally|"
    r"instead|meanwhile|consequently|similarly|likewise|in addition|in fact|as a result|for example|for instance|"
    r"in general|in short|in summary|in conclusion),\s+",
    re.IGNORECASE,
)


def _base_form(verb: str) -> str:
    """'tolerates' -> 'tolerate', 'carries' -> 'carry', 'watches' -> 'watch'."""
    if verb.endswith("ies") and len(verb) > 4:
        return verb[:-3] + "y"
    if verb.endswith(("ches", "shes", "sses", "xes", "zzes", "oes")):
        return verb[:-2]
    return verb[:-1]


def _insert_not(text: str, words: list[re.Match[str]]) -> tuple[str, str] | None:
    """Negate the first verb that can take "not" cleanly."""
    for i, w in enumerate(words):
        low = w.group().lower()
        nxt = words[i + 1].group().lower() if i + 1 < len(words) else ""
        if low == "can" and nxt not in _NO_NOT_BEFORE:
            new = match_case("cannot", w.group())
            return text[: w.start()] + new + text[w.end():], f"{w.group()!r} -> {new!r}"
        if low in _AUXILIARIES and nxt not in _NO_NOT_BEFORE:
            return text[: w.end()] + " not" + text[w.end():], f"{w.group()!r} -> '{w.group()} not'"
        if low in _HAVE and nxt not in _NO_NOT_BEFORE:
            if nxt in _PARTICIPLES or nxt.endswith("ed"):
                return text[: w.end()] + " not" + text[w.end():], f"{w.group()!r} -> '{w.group()} not'"
            new = match_case(_HAVE[low], w.group())
            return text[: w.start()] + new + text[w.end():], f"{w.group()!r} -> {new!r}"
        if low in _SINGULAR_SUBJECTS or low in _PLURAL_SUBJECTS:
            j = i + 1
            while j < len(words) and words[j].group().lower() in _ADVERB_SKIP:
                j += 1
            if j >= len(words):
                return None
            verb = words[j].group()
            if not verb.islower() or verb in _AUXILIARIES or verb in _HAVE or verb in _NO_NOT_BEFORE:
                continue
            if low in _SINGULAR_SUBJECTS and verb.endswith("s") and not verb.endswith(("ss", "us", "is")):
                new = f"does not {_base_form(verb)}"
            elif low in _PLURAL_SUBJECTS and not verb.endswith(("ed", "ing", "s")):
                new = f"do not {verb}"
            else:
                continue
            return text[: words[j].start()] + new + text[words[j].end():], f"{verb!r} -> {new!r}"
    return None


def negate(text: str, passages: Sequence[str] = ()) -> tuple[str, str] | None:
    """Remove the sentence's negation if it has one, else negate it.

    Tries, in order: drop "not" / "n't" / "cannot"; "Do not" before an imperative ("Keep the soil
    moist" -> "Do not keep ..."); "not" after the first auxiliary or modal ("is" -> "is not");
    "has" -> "does not have"; a pronoun's verb ("it grows" -> "it does not grow"); otherwise the
    prefix "It is not true that".
    """
    for m in re.finditer(r"\b([A-Za-z]+n[\u2019']t|cannot)\b", text, re.IGNORECASE):
        base = _NEGATED_CONTRACTIONS.get(m.group(1).lower().replace("\u2019", "'"))
        if base:
            return text[: m.start()] + match_case(base, m.group(1)) + text[m.end():], f"{m.group(1)!r} -> {base!r}"
    # "whether or not", "if not" and "not only" are not negations of the sentence: dropping them keeps it true.
    found_not = re.search(r"(?<!\bor)(?<!\bif)\s\bnot\b(?!\s+(?:only|just|merely|simply|to mention)\b)", text,
                          re.IGNORECASE)
    if found_not:
        return text[: found_not.start()] + text[found_not.end():], "dropped 'not'"
    words = list(WORD.finditer(text))
    if not words:
        return None
    first = words[0].group()
    second = words[1].group() if len(words) > 1 else ""
    # "Therefore, it is ...": a connective and a comma, not an imperative's verb and its object.
    adjacent = len(words) > 1 and not text[words[0].end(): words[1].start()].strip()
    if (
        words[0].start() == 0 and first[:1].isupper() and first not in _LOWER_FIRST and first not in _NOT_VERBS
        and second in _IMPERATIVE_NEXT and first.lower() not in _AUXILIARIES and adjacent
    ):
        return "Do not " + first.lower() + text[words[0].end():], "imperative: prefixed 'Do not'"
    # "Some plants can X" -> "Some plants cannot X" could both be true: negate the whole claim.
    # A "not" inserted after "whether" leaves the sentence as true as before: only look before it.
    whether = re.search(r"\bwhether\b", text, re.IGNORECASE)
    if whether:
        words = [w for w in words if w.end() <= whether.start()]
    lead = _CONNECTIVE.match(text)
    rest = text[lead.end():] if lead else text
    opener = WORD.match(rest)
    quantified = opener is not None and opener.group().capitalize() in _QUANTIFIED_SUBJECTS
    found = None if quantified or rest.lower().startswith("a few ") else _insert_not(text, words)
    if found is not None:
        return found
    # A connective that opens the sentence ("Additionally, research found ...") stays in front.
    if lead:
        lower = opener is not None and opener.group() in _LOWER_FIRST
        body = rest[:1].lower() + rest[1:] if lower else rest
        return f"{text[: lead.end()]}it is not true that {body}", "prefixed 'It is not true that'"
    body = text[:1].lower() + text[1:] if first in _LOWER_FIRST else text
    return "It is not true that " + body, "prefixed 'It is not true that'"
