"""The NLIJudge: does a premise entail a claim, as a transformers NLI model sees it?

Two kinds of model are accepted:

- a sequence-classification model (``AutoModelForSequenceClassification``; 3-way MNLI-style or
  2-way), whose entailment class is found by name in ``config.id2label``;
- a TRUE-style seq2seq model (``AutoModelForSeq2SeqLM``, e.g. t5_xxl_true_nli_mixture, the judge
  ALCE uses), fed ``"premise: P hypothesis: H"``; the entailment probability is
  P("1") / (P("1") + P("0")) for the first generated token(s).

Long premises (``window="chunk"``, the default): the premise is cut into sentence-aligned chunks
that fit ``max_length`` tokens together with the claim (consecutive chunks share one sentence),
each chunk is scored and the maximum entailment probability is the verdict. A claim whose
normalised text equals one or more whole sentences of its premise is entailed without a model call
(the *verbatim short-circuit*). ``window="off"`` is ALCE's own behaviour: the whole premise,
truncated to what the model accepts.

Speed: identical (premise, claim) pairs are scored once per process; pairs are sorted by length
into batches; inference runs under ``torch.inference_mode``; and, given ``cache_dir``, verdicts are
kept on disk in SQLite keyed by (model fingerprint, window, max_length, premise, claim). The model
fingerprint is the SHA-256 of every weight, config and tokenizer file in the model folder; each
file's digest is itself cached by (path, size, mtime), so a large weights file is read in full once
per version of the file, not once per run.

torch and transformers are imported only when a judge is built.
"""

from __future__ import annotations

import hashlib
import json
import re
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Sequence

from ..core.model import Passage, Verdict, split_sentences
from .minicheck import Family
from .nli_model import ModelSource, NLIModelError, VerdictCache, _hub_folder, model_meta, nli_extra_missing, resolve_model

WINDOWS = ("chunk", "off")
MIN_CHUNK_TOKENS = 16  # below this, the claim leaves no room for its premise: truncate instead
_HASHED_SUFFIXES = (".safetensors", ".bin", ".json", ".model", ".txt", ".pt", ".pth", ".py")


# --- premises ---------------------------------------------------------------------------------

def format_source(source: Passage | str) -> str:
    """A passage as ALCE formats it for its NLI judge: ``"Title: t\\ntext"`` (plain text when the
    passage has no title; ALCE's data always has one)."""
    if isinstance(source, Passage):
        return f"Title: {source.title}\n{source.text}" if source.title else source.text
    return str(source)


def premise_of(sources: Sequence[Passage | str]) -> str:
    """The premise for a set of cited passages: each formatted, joined with newlines (ALCE)."""
    return "\n".join(format_source(s) for s in sources)


def normalise(text: str) -> str:
    """Lower-case words only, single-spaced: the form the verbatim short-circuit compares."""
    return " ".join(re.findall(r"\w+", text.casefold()))


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Character spans of the premise's units: each line, split into sentences."""
    spans: list[tuple[int, int]] = []
    pos = 0
    for line in text.split("\n"):
        cursor = pos
        for sentence in split_sentences(line):
            start = text.find(sentence, cursor)
            if start < 0:  # split_sentences only strips; cannot happen, but never lose text
                start, sentence = cursor, text[cursor:pos + len(line)]
            spans.append((start, start + len(sentence)))
            cursor = start + len(sentence)
        pos += len(line) + 1
    return spans


def is_verbatim(claim: str, premise: str, spans: list[tuple[int, int]] | None = None) -> bool:
    """Whether the claim, normalised, is one or more consecutive whole sentences of the premise.

    Whole sentences only: "snake plants need water" inside "it is false that snake plants need
    water" is not a match, so negations and conditionals around a copied clause still go to the
    model.
    """
    target = normalise(claim)
    if not target:
        return False
    units = [normalise(premise[a:b]) for a, b in (spans if spans is not None else sentence_spans(premise))]
    units = [u for u in units if u]
    for i in range(len(units)):
        joined = units[i]
        j = i
        while len(joined) < len(target) and j + 1 < len(units):
            j += 1
            joined = f"{joined} {units[j]}"
        if joined == target:
            return True
    return False


# --- the judge --------------------------------------------------------------------------------

@dataclass(frozen=True)
class Entailment:
    """The model's view of one (premise, claim) pair.

    ``how``: "verbatim" (short-circuited), "whole" (the premise fit), "chunked" (max over
    sentence-aligned chunks) or "truncated" (the premise, cut to fit the model).
    ``evidence``: the (start, end) span of the best chunk in the premise, when chunked.
    """

    prob: float
    how: str
    evidence: tuple[int, int] | None = None


@dataclass
class Plan:
    """The model inputs one pair needs."""

    premise: str
    claim: str
    how: str
    chunks: list[tuple[int, int]]  # character spans of the premise, one model input each
    tokens: list[int]  # input length of each chunk, for sorting into batches
    texts: list[str] | None = None  # the chunks' texts when they are not plain slices (MiniCheck)

    def text(self, c: int) -> str:
        if self.texts is not None:
            return self.texts[c]
        a, b = self.chunks[c]
        return self.premise[a:b]


class NLIJudge:
    """Judges claims against their sources with an NLI model: ``judge(claim, sources)``.

    ``model`` is a local folder or a Hugging Face id. ``device``: "cpu", "cuda" or "auto".
    ``max_length``: tokens per model input (premise chunk plus claim), capped by the model's own
    limit. ``window``: "chunk" or "off". ``threshold``: the entailment probability at which a claim
    counts as supported. ``cache_dir``: a folder for the on-disk verdict cache, or None.
    ``threads``: torch CPU threads (None leaves torch's default).
    ``entail_label``: the class index that means entailed/supported, for a classifier whose
    ``id2label`` names none (``--nli-entail-label``). ``trust_remote_code``: allow a model that
    ships its own Python code (``--nli-trust-remote-code``). ``chunk_size``: for a MiniCheck
    model, the reference's chunk size (None: 400 tokens for RoBERTa/DeBERTa, 500 words for
    Flan-T5); ``max_length`` does not apply to MiniCheck chunks.
    """

    def __init__(
        self,
        model: str,
        *,
        device: str = "auto",
        batch_size: int = 16,
        max_length: int = 400,
        window: str = "chunk",
        threshold: float = 0.5,
        cache_dir: str | Path | None = None,
        threads: int | None = None,
        entail_label: int | None = None,
        trust_remote_code: bool = False,
        chunk_size: int | None = None,
    ) -> None:
        if window not in WINDOWS:
            raise NLIModelError(f"window must be one of {', '.join(WINDOWS)}, got {window!r}")
        if batch_size < 1:
            raise NLIModelError(f"batch size must be at least 1, got {batch_size}")
        if max_length < 2 * MIN_CHUNK_TOKENS:
            raise NLIModelError(f"max length must be at least {2 * MIN_CHUNK_TOKENS} tokens, got {max_length}")
        if not 0.0 < threshold <= 1.0:
            raise NLIModelError(f"the entailment threshold must be in (0, 1], got {threshold}")
        if chunk_size is not None and chunk_size < 1:
            raise NLIModelError(f"chunk size must be at least 1, got {chunk_size}")
        missing = nli_extra_missing()
        if missing:
            raise NLIModelError(f"{' and '.join(missing)} not installed: pip install \"pytest-sprout[nli]\"")
        self.name = model
        self.window = window
        self.batch_size = batch_size
        self.threshold = threshold
        self._device_name, self._threads = device, threads
        self.trust_remote_code = trust_remote_code
        self._model: Any = None
        self._load_error: str | None = None
        self.source = resolve_model(model)
        if self.source.folder is None:  # a hub id to download: fetch it now, its config is needed
            self.load()
            self.source = ModelSource(model, model, _hub_folder(model), True)
        if self.source.folder is None:
            raise NLIModelError(f"{model!r} was loaded, but its files are not in the Hugging Face cache")
        meta = model_meta(self.source.folder, model, entail_label, trust_remote_code)
        self.kind, self.entail_index, self.label, self.limit = meta.kind, meta.entail_index, meta.label, meta.limit
        self.minicheck: Family | None = meta.minicheck
        self.chunk_size = (chunk_size or meta.minicheck.chunk_size) if meta.minicheck else None
        self.max_length = min(max_length, self.limit)
        self._memo: dict[tuple[str, str], Entailment] = {}
        self.counts = {"pairs": 0, "short_circuited": 0, "chunked": 0, "truncated": 0,
                       "memory_hits": 0, "disk_hits": 0, "model_inputs": 0, "batches": 0}
        self._disk = VerdictCache.open(Path(cache_dir)) if cache_dir is not None else None
        self._fingerprint: str | None = None

    # --- loading ------------------------------------------------------------------------------
    @property
    def loaded(self) -> bool:
        """Whether torch, transformers and the weights are in memory (they load on first need)."""
        return self._model is not None

    def load(self) -> None:
        """Import torch and transformers and load the model and tokenizer (once; a failure is
        remembered and raised again, never retried)."""
        if self._model is not None:
            return
        if self._load_error is not None:
            raise NLIModelError(self._load_error)
        try:
            self._load()
        except NLIModelError as exc:
            self._load_error = str(exc)
            raise

    def _load(self) -> None:
        import torch
        import transformers
        from transformers import AutoConfig, AutoModelForSeq2SeqLM, AutoModelForSequenceClassification, AutoTokenizer

        if self._threads:
            torch.set_num_threads(self._threads)
        self.device = self._device(torch, self._device_name)
        local: dict[str, Any] = {"local_files_only": True} if self.source.local_only else {}
        if self.trust_remote_code:
            local["trust_remote_code"] = True
        logging = transformers.utils.logging
        verbosity, bars = logging.get_verbosity(), logging.is_progress_bar_enabled()
        logging.set_verbosity_error()
        logging.disable_progress_bar()
        try:
            with warnings.catch_warnings():  # transformers' model code warns on import: not ours to show
                warnings.filterwarnings("ignore", message=r".*torch\.jit\.script.*deprecated", category=DeprecationWarning)
                config = AutoConfig.from_pretrained(self.source.path, **local)
                if getattr(config, "is_encoder_decoder", False):
                    model = AutoModelForSeq2SeqLM.from_pretrained(self.source.path, **local)
                else:
                    model = AutoModelForSequenceClassification.from_pretrained(self.source.path, **local)
                tokenizer = AutoTokenizer.from_pretrained(self.source.path, **local)
        except Exception as exc:  # whatever transformers or safetensors raise: the model cannot be used
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise NLIModelError(f"cannot load {self.name!r}: {first}") from None
        finally:
            logging.set_verbosity(verbosity)
            if bars:
                logging.enable_progress_bar()
        if not getattr(tokenizer, "is_fast", False):
            raise NLIModelError(f"{self.name!r}: the tokenizer has no fast (Rust) version; chunking needs its offsets")
        self.tokenizer = tokenizer
        if self.minicheck is not None:
            self._load_minicheck(config, tokenizer)
        elif getattr(config, "is_encoder_decoder", False):
            yes = tokenizer("1", add_special_tokens=False).input_ids
            no = tokenizer("0", add_special_tokens=False).input_ids
            if not yes or not no or yes == no:
                raise NLIModelError(f"{self.name!r}: the tokenizer cannot spell the TRUE labels '1' and '0'")
            self._answers = (yes, no)
            start = config.decoder_start_token_id
            self._start = start if start is not None else config.pad_token_id
            self._overhead = len(tokenizer("premise: hypothesis:").input_ids)
        else:
            self._overhead = tokenizer.num_special_tokens_to_add(pair=True)
        self._model = model.to(self.device).eval()

    def _load_minicheck(self, config: Any, tokenizer: Any) -> None:
        """MiniCheck's input format: the chunk and the claim joined by the tokenizer's end-of-sequence
        token; Flan-T5 answers with the first piece of "1" (supported) or of "0" (T5's 209 and 3)."""
        if not tokenizer.eos_token:
            raise NLIModelError(f"{self.name!r}: MiniCheck joins chunk and claim with the tokenizer's eos token, and it has none")
        if self.kind == "seq2seq":
            yes = tokenizer("1", add_special_tokens=False).input_ids
            no = tokenizer("0", add_special_tokens=False).input_ids
            if not yes or not no or yes[0] == no[0]:
                raise NLIModelError(f"{self.name!r}: the tokenizer cannot tell MiniCheck's answers '1' and '0' apart")
            self._label_ids = (no[0], yes[0])
            start = config.decoder_start_token_id
            self._start = start if start is not None else config.pad_token_id
            self._overhead = len(tokenizer(f"predict: {tokenizer.eos_token}").input_ids)
        else:
            self._overhead = tokenizer.num_special_tokens_to_add(pair=False) + 1

    @staticmethod
    def _device(torch: Any, device: str) -> Any:
        if device in (None, "", "auto"):
            return torch.device("cuda" if torch.cuda.is_available() else "cpu")
        try:
            dev = torch.device(device)
        except RuntimeError:
            raise NLIModelError(f"unknown device {device!r}; use cpu, cuda or auto") from None
        if dev.type == "cuda" and not torch.cuda.is_available():
            raise NLIModelError("device 'cuda' asked for, but torch sees no CUDA device; use cpu or auto")
        return dev

    def settings(self) -> dict[str, Any]:
        """What the verdicts depend on; with a disk cache, the model files' fingerprint too."""
        return {
            "judge": "nli",
            "model": self.name,
            "fingerprint": self.fingerprint(),
            "kind": self.kind,
            "entailment_label": self.label,
            **({"minicheck": self.minicheck.name, "chunk_size": self.chunk_size, "splitter": _splitter()}
               if self.minicheck else {}),
            "window": self.window,
            "max_length": self.max_length,
            "threshold": self.threshold,
        }

    def fingerprint(self) -> str | None:
        """SHA-256 over the model's files (weights, config, tokenizer) and how it is read; None
        without a disk cache (the file digests are memoised there)."""
        if self._fingerprint is None and self._disk is not None:
            assert self.source.folder is not None
            family = [self.minicheck.name, self.chunk_size, _splitter()] if self.minicheck else None
            h = hashlib.sha256(json.dumps([self.kind, self.entail_index, self.label, family]).encode())
            for path in sorted(self.source.folder.iterdir()):
                if path.is_file() and path.suffix in _HASHED_SUFFIXES:
                    h.update(f"{path.name}:{self._disk.file_digest(path)}\n".encode())
            self._fingerprint = h.hexdigest()
        return self._fingerprint

    # --- judging ------------------------------------------------------------------------------
    def judge(self, claim: str, sources: Sequence[Passage | str]) -> Verdict:
        return self.judge_many([(claim, sources)])[0]

    def judge_many(self, pairs: Iterable[tuple[str, Sequence[Passage | str]]]) -> list[Verdict]:
        """One Verdict per (claim, sources): the sources are joined into one premise (ALCE)."""
        pairs = list(pairs)
        for claim, sources in pairs:
            if not isinstance(claim, str):
                raise TypeError(f"claim must be a str, got {type(claim).__name__}")
            if isinstance(sources, (str, bytes)):
                raise TypeError("sources must be a sequence of passages (Passage or str), not a single str")
        todo = [(premise_of(list(sources)), claim) for claim, sources in pairs if sources]
        results = iter(self.entail(todo))
        verdicts = []
        for _, sources in pairs:
            if not sources:
                verdicts.append(Verdict(False, 0.0, None, "cites no passage", "no-citation"))
                continue
            verdicts.append(self.verdict(next(results), premise_of(list(sources))))
        return verdicts

    def verdict(self, result: Entailment, premise: str) -> Verdict:
        """An Entailment as a Verdict, with the reason in words."""
        supported = result.prob >= self.threshold
        score = round(result.prob, 4)
        evidence = premise[result.evidence[0]:result.evidence[1]] if result.evidence else None
        if result.how == "verbatim":
            return Verdict(True, 1.0, None, "the sentence is verbatim in its premise (no model call)")
        where = {
            "whole": "",
            "chunked": " (best of the premise's chunks)",
            "truncated": f" (premise truncated to {self.max_length if self.window == 'chunk' else self.limit} tokens)",
        }[result.how]
        if supported:
            return Verdict(True, score, evidence, f"entailed: p(entailment) {score:.2f}{where}")
        return Verdict(False, score, evidence,
                       f"not entailed: p(entailment) {score:.2f} < {self.threshold:.2f}{where}", "nli")

    def describe_pairs(self, pairs: Iterable[tuple[str, Sequence[Passage | str]]]) -> dict[str, int]:
        """How the distinct (claim, sources) pairs already judged were scored: counts of model
        pairs, short-circuited (verbatim), chunked and truncated ones. Depends on the pairs only,
        not on what the caches held, so it is the same in every run."""
        counts = {"nli_pairs": 0, "short_circuited": 0, "chunked": 0, "truncated": 0}
        seen = {(premise_of(list(sources)), claim) for claim, sources in pairs if sources}
        for pair in seen:
            result = self._memo.get(pair)
            if result is None:
                continue
            counts["nli_pairs"] += 1
            if result.how == "verbatim":
                counts["short_circuited"] += 1
            elif result.how in ("chunked", "truncated"):
                counts[result.how] += 1
        return counts

    def entailment_probs(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        """P(entailment) for each (premise, claim) pair."""
        return [r.prob for r in self.entail(pairs)]

    def entail(self, pairs: Sequence[tuple[str, str]]) -> list[Entailment]:
        """Score (premise, claim) pairs: memory, then verbatim, then disk cache, then the model."""
        self.counts["pairs"] += len(pairs)
        fresh: dict[tuple[str, str], None] = {}
        for pair in pairs:
            if pair in self._memo:
                self.counts["memory_hits"] += 1
            else:
                fresh[pair] = None
        plans = []
        for premise, claim in fresh:
            spans = sentence_spans(premise)
            if self.window == "chunk" and is_verbatim(claim, premise, spans):
                self._memo[(premise, claim)] = Entailment(1.0, "verbatim")
                continue
            plans.append((premise, claim, spans))
        keys = {}
        if plans and self._disk is not None and self.fingerprint() is not None:
            keys = {(p, c): self._key(p, c) for p, c, _ in plans}
            hits = self._disk.get_many(list(keys.values()))
            remaining = []
            for premise, claim, spans in plans:
                hit = hits.get(keys[(premise, claim)])
                if hit is None:
                    remaining.append((premise, claim, spans))
                    continue
                prob, how, a, b = hit
                self.counts["disk_hits"] += 1
                self._memo[(premise, claim)] = Entailment(prob, how, (a, b) if a >= 0 else None)
            plans = remaining
        if plans:
            self.load()
            computed = self._score([self.plan(p, c, s) for p, c, s in plans])
            rows = []
            for (premise, claim, _), result in zip(plans, computed):
                self._memo[(premise, claim)] = result
                if keys:
                    a, b = result.evidence or (-1, -1)
                    rows.append((keys[(premise, claim)], result.prob, result.how, a, b))
            if self._disk is not None and rows:
                self._disk.put_many(rows)
        results = [self._memo[pair] for pair in pairs]
        for pair in fresh:
            how = self._memo[pair].how
            if how == "verbatim":
                self.counts["short_circuited"] += 1
            elif how in ("chunked", "truncated"):
                self.counts[how] += 1
        return results

    def _key(self, premise: str, claim: str) -> str:
        data = json.dumps([self._fingerprint, self.window, self.max_length, premise, claim])
        return hashlib.sha256(data.encode()).hexdigest()

    # --- planning: chunks and truncation ------------------------------------------------------
    def _room(self, claim: str) -> tuple[int, int]:
        """(premise tokens that fit next to the claim, claim tokens)."""
        claim_len = len(self.tokenizer(claim, add_special_tokens=False).input_ids)
        limit = self.max_length if self.window == "chunk" else self.limit
        return limit - claim_len - self._overhead, claim_len + self._overhead

    def plan(self, premise: str, claim: str, spans: list[tuple[int, int]] | None = None) -> Plan:
        """The model inputs a (premise, claim) pair needs: the whole premise, its truncation
        (window off, or a claim too long to leave room), or sentence-aligned chunks."""
        self.load()
        if self.minicheck is not None and self.window == "chunk":
            return self._minicheck_plan(premise, claim)
        spans = sentence_spans(premise) if spans is None else spans
        room, fixed = self._room(claim)
        enc = self.tokenizer(premise, add_special_tokens=False, return_offsets_mapping=True, verbose=False)
        offsets = [tuple(o) for o in enc["offset_mapping"]]
        total = len(offsets)
        if total <= room:
            return Plan(premise, claim, "whole", [(0, len(premise))], [total + fixed])
        if self.window == "off" or room < MIN_CHUNK_TOKENS:
            cut = offsets[max(room, 1) - 1][1] if room > 0 else 0
            return Plan(premise, claim, "truncated", [(0, cut)], [max(room, 0) + fixed])
        units = _token_units(spans, offsets, room)
        chunks, tokens = [], []
        i = 0
        while i < len(units):
            j, used = i, 0
            while j < len(units) and used + units[j][2] <= room:
                used += units[j][2]
                j += 1
            chunks.append((units[i][0], units[j - 1][1]))
            tokens.append(used + fixed)
            if j >= len(units):
                break
            i = j - 1 if j - 1 > i else j  # the next chunk repeats this chunk's last sentence
        return Plan(premise, claim, "chunked", chunks, tokens)

    def _minicheck_plan(self, premise: str, claim: str) -> Plan:
        """The reference's chunks: sentence units packed greedily up to the chunk size (tokens of
        this tokenizer for the classifiers, words for Flan-T5), no overlap."""
        from .minicheck import chunk_document

        assert self.minicheck is not None and self.chunk_size is not None
        count = None if self.minicheck.unit == "words" else self._unit_tokens
        chunks = chunk_document(premise, self.chunk_size, count)
        if not chunks:  # a premise with no text: the reference scores the claim against ""
            return Plan(premise, claim, "whole", [(0, len(premise))], [self._overhead], [""])
        how = "whole" if len(chunks) == 1 else "chunked"
        return Plan(premise, claim, how, [(c.start, c.end) for c in chunks], [len(c.text) for c in chunks],
                    [c.text for c in chunks])

    def _unit_tokens(self, texts: Sequence[str]) -> list[int]:
        """Tokens per sentence unit, counted as the reference counts them (no special tokens,
        capped at the model's input length)."""
        ids = self.tokenizer(list(texts), add_special_tokens=False, truncation=True, max_length=self.limit,
                             verbose=False)["input_ids"]
        return [len(x) for x in ids]

    # --- scoring ------------------------------------------------------------------------------
    def _score(self, plans: list[Plan]) -> list[Entailment]:
        inputs = [(k, c) for k, plan in enumerate(plans) for c in range(len(plan.chunks))]
        order = sorted(inputs, key=lambda kc: -plans[kc[0]].tokens[kc[1]])
        probs: dict[tuple[int, int], float] = {}
        for start in range(0, len(order), self.batch_size):
            batch = order[start:start + self.batch_size]
            texts = []
            for k, c in batch:
                texts.append((plans[k].text(c), plans[k].claim))
            for kc, p in zip(batch, self._forward(texts)):
                probs[kc] = p
            self.counts["batches"] += 1
        self.counts["model_inputs"] += len(inputs)
        results = []
        for k, plan in enumerate(plans):
            scores = [probs[(k, c)] for c in range(len(plan.chunks))]
            best = max(range(len(scores)), key=scores.__getitem__)
            results.append(Entailment(scores[best], plan.how, plan.chunks[best] if plan.how == "chunked" else None))
        return results

    def _forward(self, texts: list[tuple[str, str]]) -> list[float]:
        import torch

        limit = self.max_length if self.window == "chunk" else self.limit
        with torch.inference_mode():
            if self.minicheck is not None:
                return self._minicheck_forward(torch, texts)
            if self.kind == "classifier":
                enc = self.tokenizer(
                    [p for p, _ in texts], [c for _, c in texts], padding=True, truncation=True,
                    max_length=limit, return_tensors="pt",
                ).to(self.device)
                logits = self._model(**enc).logits.float()
                return torch.softmax(logits, dim=-1)[:, self.entail_index].tolist()
            enc = self.tokenizer(
                [f"premise: {p} hypothesis: {c}" for p, c in texts], padding=True, truncation=True,
                max_length=limit, return_tensors="pt",
            ).to(self.device)
            encoded = self._model.get_encoder()(input_ids=enc.input_ids, attention_mask=enc.attention_mask)
            scores = [self._sequence_logprob(torch, encoded, enc.attention_mask, ids) for ids in self._answers]
            return torch.sigmoid(scores[0] - scores[1]).tolist()

    def _minicheck_forward(self, torch: Any, texts: list[tuple[str, str]]) -> list[float]:
        """P(supported) as the reference computes it: one sequence ``chunk <eos> claim`` (Flan-T5:
        prefixed "predict: ") truncated at the model's input length; class 1 of the classifier's
        softmax, or the softmax over the two answer tokens at the decoder's first step."""
        eos = self.tokenizer.eos_token
        prefix = "predict: " if self.kind == "seq2seq" else ""
        enc = self.tokenizer([f"{prefix}{p}{eos}{c}" for p, c in texts], padding=True, truncation=True,
                             max_length=self.limit, return_tensors="pt").to(self.device)
        if self.kind == "classifier":
            logits = self._model(**enc).logits.float()
            return torch.softmax(logits, dim=-1)[:, self.entail_index].tolist()
        start = torch.full((enc.input_ids.shape[0], 1), self._start, dtype=torch.long, device=self.device)
        logits = self._model(input_ids=enc.input_ids, attention_mask=enc.attention_mask, decoder_input_ids=start).logits
        pair = logits[:, 0, list(self._label_ids)].float()  # (unsupported, supported)
        return torch.softmax(pair, dim=-1)[:, 1].tolist()

    def _sequence_logprob(self, torch: Any, encoded: Any, mask: Any, ids: list[int]) -> Any:
        """log P(ids) as the first tokens the decoder writes, for every row of the batch."""
        rows = mask.shape[0]
        decoder_in = torch.tensor([[self._start] + ids[:-1]] * rows, device=self.device)
        logits = self._model(encoder_outputs=encoded, attention_mask=mask, decoder_input_ids=decoder_in).logits.float()
        logp = torch.log_softmax(logits, dim=-1)
        target = torch.tensor(ids, device=self.device)
        return logp[:, torch.arange(len(ids)), target].sum(dim=-1)



def _token_units(spans: list[tuple[int, int]], offsets: list[tuple[int, int]], room: int) -> list[tuple[int, int, int]]:
    """Sentence spans as (start, end, tokens); a sentence longer than ``room`` tokens is cut into
    token windows so that no text is lost."""
    units = []
    t = 0
    for a, b in spans:
        first = t
        while t < len(offsets) and offsets[t][0] < b:
            t += 1
        count = t - first
        if count <= room:
            if count:
                units.append((a, b, count))
            continue
        for s in range(first, t, room):
            e = min(s + room, t)
            units.append((offsets[s][0], offsets[e - 1][1], e - s))
    return units


def _splitter() -> str:
    from .minicheck import splitter

    return splitter()
