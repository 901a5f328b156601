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

torch and transformers are imported only when a judge is built. The premises (formatting,
sentence spans, the verbatim short-circuit, chunk packing) are nli_premise.py's; loading the model
and the forward passes are nli_runtime.py's; finding and reading a model without torch, and the
disk cache, nli_model.py's. Their public names stay importable from here.
"""

from __future__ import annotations

import hashlib
import json
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Sequence

from ..core.model import Passage, Verdict
from .minicheck import Family
from .nli_model import ModelSource, NLIModelError, VerdictCache, _hub_folder, model_meta, nli_extra_missing, resolve_model
from .nli_premise import format_source, is_verbatim, normalise, pack_chunks, premise_of, sentence_spans, token_units

if TYPE_CHECKING:
    from .nli_endpoint import Endpoint, EndpointRuntime
    from .nli_runtime import Runtime

__all__ = ["NLIJudge", "NLIModelError", "Entailment", "Plan", "WINDOWS", "format_source", "is_verbatim", "model_meta",
           "nli_extra_missing", "normalise", "premise_of", "resolve_model", "sentence_spans"]

WINDOWS = ("chunk", "off")
DTYPES = ("auto", "float32", "bfloat16", "float16")  # --nli-dtype; auto: bfloat16 on a GPU that has it, else float32
MIN_CHUNK_TOKENS = 16  # below this, the claim leaves no room for its premise: truncate instead
_HASHED_SUFFIXES = (".safetensors", ".bin", ".json", ".model", ".txt", ".pt", ".pth", ".py")


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
    ``dtype``: the weights' precision, one of DTYPES (``--nli-dtype``); "auto" is bfloat16 on a
    CUDA device that supports it, float32 elsewhere. Part of the settings and the cache key.
    ``endpoint``: the URL of a text-embeddings-inference server that serves ``model``
    (nli_endpoint.py): the model's inputs are scored there, and only its tokenizer and config are
    read here; the server's /info names the model for the cache, and its dtype is the server's.
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
        dtype: str = "auto",
        endpoint: str | None = None,
    ) -> None:
        if dtype not in DTYPES:
            raise NLIModelError(f"dtype must be one of {', '.join(DTYPES)}, got {dtype!r}")
        if endpoint and dtype != "auto":
            raise NLIModelError(f"--nli-dtype={dtype} does not apply with --nli-endpoint: the server decides the dtype")
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
        self._dtype_name = dtype
        self._dtype: str | None = None if dtype == "auto" else dtype  # "auto" is resolved on first need
        self.trust_remote_code = trust_remote_code
        self._runtime: Runtime | EndpointRuntime | None = None
        self._endpoint: Endpoint | None = None
        if endpoint:
            from .nli_endpoint import Endpoint, fetch_light

            self._endpoint = Endpoint(endpoint)
        self._load_error: str | None = None
        self._fetched: tuple[Any, Any, Any] | None = None  # a downloaded model's (config, model, tokenizer)
        self.source = resolve_model(model)
        if self.source.folder is None and self._endpoint is not None:  # the tokenizer and config only
            self.source = ModelSource(model, model, fetch_light(model), True)
        if self.source.folder is None:  # a hub id to download: fetch it now, its config is needed
            self._fetched = self._fetch()
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
        return self._runtime is not None

    def load(self) -> None:
        """Import torch and transformers and load the model and tokenizer (once; a failure is
        remembered and raised again, never retried)."""
        if self._runtime is not None:
            return
        if self._load_error is not None:
            raise NLIModelError(self._load_error)
        try:
            self._runtime = self._load()
        except NLIModelError as exc:
            self._load_error = str(exc)
            raise

    @property
    def runtime(self) -> Runtime | EndpointRuntime:
        """The loaded model, its tokenizer and input format (nli_runtime.py); loads them."""
        self.load()
        assert self._runtime is not None
        return self._runtime

    @property
    def tokenizer(self) -> Any:
        """The model's (fast) tokenizer; loads the model."""
        return self.runtime.tokenizer

    def _fetch(self) -> tuple[Any, Any, Any]:
        """Download a hub model's files (once the device is known to exist): its config, then,
        says which kind of model it is; the loaded weights wait for the first ``load``."""
        import torch

        from .nli_runtime import load_transformers, pick_device

        pick_device(torch, self._device_name)
        return load_transformers(self.source, self.name, self.trust_remote_code)

    def _load(self) -> Runtime | EndpointRuntime:
        if self._endpoint is not None:
            return self._load_endpoint(self._endpoint)
        import torch

        from .nli_runtime import Runtime, load_transformers, pick_device

        if self._threads:
            torch.set_num_threads(self._threads)
        device = pick_device(torch, self._device_name)
        fetched, self._fetched = self._fetched, None
        config, model, tokenizer = fetched or load_transformers(self.source, self.name, self.trust_remote_code)
        return Runtime(self.name, config, model, tokenizer, device, kind=self.kind, entail_index=self.entail_index,
                       minicheck=self.minicheck, limit=self.limit, dtype=self.dtype)

    def _load_endpoint(self, endpoint: Endpoint) -> EndpointRuntime:
        from .nli_endpoint import EndpointRuntime, load_tokenizer

        assert self.source.folder is not None
        tokenizer = load_tokenizer(self.source.path, self.name, self.source.local_only, self.trust_remote_code)
        config = json.loads((self.source.folder / "config.json").read_text(encoding="utf-8"))
        id2label = config.get("id2label") or {}
        return EndpointRuntime(self.name, endpoint, tokenizer, kind=self.kind, label=self.label, id2label=id2label,
                               minicheck=self.minicheck, limit=self.limit)

    def close(self) -> None:
        """Close the endpoint's HTTP connections (nothing to do for a model loaded here)."""
        if self._endpoint is not None:
            self._endpoint.close()

    @property
    def dtype(self) -> str:
        """The weights' precision: the one asked for, or what "auto" means here (nli_runtime.auto_dtype;
        torch is imported for it only where a GPU may be present)."""
        if self._dtype is None and self._endpoint is not None:
            self._dtype = str(self._endpoint.info().get("model_dtype") or "?")
        if self._dtype is None:
            from .nli_runtime import auto_dtype

            self._dtype = auto_dtype(self._device_name)
        return self._dtype

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
            "dtype": self.dtype,
            **({"endpoint": self._endpoint.identity()} if self._endpoint is not None else {}),
        }

    def fingerprint(self) -> str | None:
        """SHA-256 over the model's files (weights, config, tokenizer) and how it is read; None
        without a disk cache (the file digests are memoised there)."""
        if self._fingerprint is None and self._disk is not None:
            assert self.source.folder is not None
            family = [self.minicheck.name, self.chunk_size, _splitter()] if self.minicheck else None
            h = hashlib.sha256(json.dumps([self.kind, self.entail_index, self.label, family]).encode())
            weights = set()
            if self._endpoint is not None:  # the server's model: its /info names it; the files here are the tokenizer's
                h.update(json.dumps(self._endpoint.identity(), sort_keys=True).encode())
                weights = {".safetensors", ".bin", ".pt", ".pth"}
            for path in sorted(self.source.folder.iterdir()):
                if path.is_file() and path.suffix in _HASHED_SUFFIXES and path.suffix not in weights:
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
            "truncated": f" (premise truncated to {self._input_limit()} tokens)",
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
        data = json.dumps([self._fingerprint, self.window, self.max_length, self.dtype, premise, claim])
        return hashlib.sha256(data.encode()).hexdigest()

    # --- planning: chunks and truncation ------------------------------------------------------
    def _room(self, claim: str) -> tuple[int, int]:
        """(premise tokens that fit next to the claim, claim tokens)."""
        overhead = self.runtime.overhead
        claim_len = len(self.tokenizer(claim, add_special_tokens=False).input_ids)
        return self._input_limit() - claim_len - overhead, claim_len + overhead

    def _input_limit(self) -> int:
        """Tokens per model input: ``max_length`` when chunking, else the model's own limit."""
        return self.max_length if self.window == "chunk" else self.limit

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
        chunks, tokens = pack_chunks(token_units(spans, offsets, room), room, fixed)
        return Plan(premise, claim, "chunked", chunks, tokens)

    def _minicheck_plan(self, premise: str, claim: str) -> Plan:
        """The reference's chunks: sentence units packed greedily up to the chunk size (tokens of
        this tokenizer for the classifiers, words for Flan-T5), no overlap."""
        from .minicheck import chunk_document

        assert self.minicheck is not None and self.chunk_size is not None
        count = None if self.minicheck.unit == "words" else self._unit_tokens
        chunks = chunk_document(premise, self.chunk_size, count)
        if not chunks:  # a premise with no text: the reference scores the claim against ""
            return Plan(premise, claim, "whole", [(0, len(premise))], [self.runtime.overhead], [""])
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
        runtime, limit = self.runtime, self._input_limit()
        probs: dict[tuple[int, int], float] = {}
        batches = [order[i:i + self.batch_size] for i in range(0, len(order), self.batch_size)]

        def encode(batch: list[tuple[int, int]]) -> Any:
            return runtime.encode([(plans[k].text(c), plans[k].claim) for k, c in batch], limit)

        # The next batch is tokenised in a helper thread while the model runs this one (the fast
        # tokenizer releases the GIL, as torch does in its kernels).
        with ThreadPoolExecutor(1) as pool:
            coming = pool.submit(encode, batches[0]) if batches else None
            for i, batch in enumerate(batches):
                assert coming is not None
                enc = coming.result()
                coming = pool.submit(encode, batches[i + 1]) if i + 1 < len(batches) else None
                for kc, p in zip(batch, runtime.run(enc)):
                    probs[kc] = p
                self.counts["batches"] += 1
        self.counts["model_inputs"] += len(inputs)
        results = []
        for k, plan in enumerate(plans):
            scores = [probs[(k, c)] for c in range(len(plan.chunks))]
            best = max(range(len(scores)), key=scores.__getitem__)
            results.append(Entailment(scores[best], plan.how, plan.chunks[best] if plan.how == "chunked" else None))
        return results


def _splitter() -> str:
    from .minicheck import splitter

    return splitter()
