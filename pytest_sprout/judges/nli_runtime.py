"""The NLIJudge's torch side: loading a model and its tokenizer with transformers, the device,
and the forward passes that turn batches of (premise chunk, claim) texts into probabilities.

Imported by the judge only when it loads its model (nli.py stays importable without torch); every
function here imports torch or transformers itself.
"""

from __future__ import annotations

import os
import sys
import warnings
from typing import Any

from .minicheck import Family
from .nli_model import ModelSource, NLIModelError


def pick_device(torch: Any, device: str | None) -> Any:
    """The torch device for "cpu", "cuda" or "auto" (cuda when torch sees one). Raises
    NLIModelError for an unknown device or a cuda that is not there."""
    if device in (None, "", "auto"):
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        dev = torch.device(device)
    except RuntimeError:
        raise NLIModelError(f"unknown device {device!r}; use cpu, cuda or auto") from None
    if dev.type == "cuda" and not torch.cuda.is_available():
        raise NLIModelError("device 'cuda' asked for, but torch sees no CUDA device; use cpu or auto")
    return dev


def cuda_possible() -> bool:
    """False when this machine certainly has no CUDA device (no NVIDIA or ROCm device node on
    Linux, or macOS), decided without importing torch; True when it may have one."""
    if sys.platform == "darwin":
        return False
    if sys.platform.startswith("linux"):
        return any(os.path.exists(p) for p in ("/dev/nvidia0", "/dev/nvidiactl", "/dev/dxg", "/dev/kfd"))
    return True


def auto_dtype(device: str | None) -> str:
    """What --nli-dtype=auto means for ``device``: bfloat16 on a CUDA device that supports it,
    float32 otherwise (on CPU, bfloat16 is slower on most processors and changes verdicts)."""
    if device == "cpu" or (device in (None, "", "auto") and not cuda_possible()):
        return "float32"
    import torch

    try:
        dev = pick_device(torch, device)
    except NLIModelError:
        return "float32"  # the device error is raised, with its message, when the model loads
    if dev.type == "cuda" and torch.cuda.is_bf16_supported():
        return "bfloat16"
    return "float32"


def load_transformers(source: ModelSource, name: str, trust_remote_code: bool) -> tuple[Any, Any, Any]:
    """(config, model, tokenizer) of ``source``, with transformers' own warnings, logging and
    progress bars silenced (and restored after). A hub id that is not cached is downloaded.
    Raises NLIModelError naming the model when transformers cannot load it, or when its
    tokenizer has no fast version (chunking needs the offsets)."""
    import transformers
    from transformers import AutoConfig, AutoModelForSeq2SeqLM, AutoModelForSequenceClassification, AutoTokenizer

    local: dict[str, Any] = {"local_files_only": True} if source.local_only else {}
    if trust_remote_code:
        local["trust_remote_code"] = True
    logging = transformers.utils.logging
    verbosity, bars = logging.get_verbosity(), logging.is_progress_bar_enabled()
    logging.set_verbosity_error()
    logging.disable_progress_bar()
    try:
        with warnings.catch_warnings():  # transformers' model code warns on import: not ours to show
            warnings.filterwarnings("ignore", message=r".*torch\.jit\.script.*deprecated", category=DeprecationWarning)
            config = AutoConfig.from_pretrained(source.path, **local)
            if getattr(config, "is_encoder_decoder", False):
                model = AutoModelForSeq2SeqLM.from_pretrained(source.path, **local)
            else:
                model = AutoModelForSequenceClassification.from_pretrained(source.path, **local)
            tokenizer = AutoTokenizer.from_pretrained(source.path, **local)
    except Exception as exc:  # whatever transformers or safetensors raise: the model cannot be used
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise NLIModelError(f"cannot load {name!r}: {first}") from None
    finally:
        logging.set_verbosity(verbosity)
        if bars:
            logging.enable_progress_bar()
    if not getattr(tokenizer, "is_fast", False):
        raise NLIModelError(f"{name!r}: the tokenizer has no fast (Rust) version; chunking needs its offsets")
    return config, model, tokenizer


class Runtime:
    """A loaded model, ready to score: the model on its device in eval mode, its tokenizer, and
    what its family's input format needs (``overhead``: the tokens the format adds around a
    premise chunk and a claim; for TRUE-style models the answer token ids, for MiniCheck's Flan-T5
    the ids of its two labels). ``kind`` and ``minicheck`` come from the model's files
    (nli_model.model_meta)."""

    def __init__(self, name: str, config: Any, model: Any, tokenizer: Any, device: Any, *, kind: str,
                 entail_index: int | None, minicheck: Family | None, limit: int, dtype: str = "float32") -> None:
        self.name, self.kind, self.entail_index, self.minicheck = name, kind, entail_index, minicheck
        self.limit = limit  # the model's own input length
        self.tokenizer, self.device = tokenizer, device
        self.answers: tuple[list[int], list[int]] = ([], [])  # TRUE-style seq2seq: the ids of "1" and "0"
        self.label_ids: tuple[int, int] = (0, 0)  # MiniCheck Flan-T5: the first ids of "0" and "1"
        self.start: Any = None  # seq2seq: the decoder's start token
        if minicheck is not None:
            self._minicheck_format(config, tokenizer)
        elif getattr(config, "is_encoder_decoder", False):
            yes = tokenizer("1", add_special_tokens=False).input_ids
            no = tokenizer("0", add_special_tokens=False).input_ids
            if not yes or not no or yes == no:
                raise NLIModelError(f"{name!r}: the tokenizer cannot spell the TRUE labels '1' and '0'")
            self.answers = (yes, no)
            self.start = _decoder_start(config)
            self.overhead = len(tokenizer("premise: hypothesis:").input_ids)
        else:
            self.overhead = tokenizer.num_special_tokens_to_add(pair=True)
        import torch

        self.dtype = dtype
        self.model = model.to(device=device, dtype=getattr(torch, dtype)).eval()

    def _minicheck_format(self, config: Any, tokenizer: Any) -> None:
        """MiniCheck's input format: the chunk and the claim joined by the tokenizer's end-of-sequence
        token; Flan-T5 answers with the first piece of "1" (supported) or of "0" (T5's 209 and 3)."""
        if not tokenizer.eos_token:
            raise NLIModelError(f"{self.name!r}: MiniCheck joins chunk and claim with the tokenizer's eos token, and it has none")
        if self.kind == "seq2seq":
            yes = tokenizer("1", add_special_tokens=False).input_ids
            no = tokenizer("0", add_special_tokens=False).input_ids
            if not yes or not no or yes[0] == no[0]:
                raise NLIModelError(f"{self.name!r}: the tokenizer cannot tell MiniCheck's answers '1' and '0' apart")
            self.label_ids = (no[0], yes[0])
            self.start = _decoder_start(config)
            self.overhead = len(tokenizer(f"predict: {tokenizer.eos_token}").input_ids)
        else:
            self.overhead = tokenizer.num_special_tokens_to_add(pair=False) + 1

    def forward(self, texts: list[tuple[str, str]], limit: int) -> list[float]:
        """P(entailment) for each (premise chunk, claim) of one batch, inputs truncated to ``limit``
        tokens (MiniCheck's: to the model's own input length, as the reference does)."""
        return self.run(self.encode(texts, limit))

    def inputs(self, texts: list[tuple[str, str]]) -> list[str] | list[tuple[str, str]]:
        """The model's inputs as text, in its family's format: (premise, claim) pairs for an NLI
        classifier, one string each for MiniCheck (``chunk<eos>claim``; Flan-T5 prefixed
        "predict: ") and for a TRUE-style model (``premise: P hypothesis: H``)."""
        if self.minicheck is not None:
            eos = self.tokenizer.eos_token
            prefix = "predict: " if self.kind == "seq2seq" else ""
            return [f"{prefix}{p}{eos}{c}" for p, c in texts]
        if self.kind == "classifier":
            return list(texts)
        return [f"premise: {p} hypothesis: {c}" for p, c in texts]

    def encode(self, texts: list[tuple[str, str]], limit: int) -> Any:
        """Tokenise one batch (CPU tensors): the half of ``forward`` that can run in another
        thread while the model runs the batch before it."""
        inputs = self.inputs(texts)
        if self.minicheck is not None:
            limit = self.limit
        if inputs and isinstance(inputs[0], tuple):
            return self.tokenizer([p for p, _ in inputs], [c for _, c in inputs], padding=True, truncation=True,
                                  max_length=limit, return_tensors="pt")
        return self.tokenizer(inputs, padding=True, truncation=True, max_length=limit, return_tensors="pt")

    def run(self, enc: Any) -> list[float]:
        """P(entailment) for each row of a batch from ``encode``."""
        import torch

        with torch.inference_mode():
            enc = enc.to(self.device)
            if self.kind == "classifier":
                logits = self.model(**enc).logits.float()
                return torch.softmax(logits, dim=-1)[:, self.entail_index].tolist()
            if self.minicheck is not None:  # Flan-T5: one decoder step, softmax over the two answers
                start = torch.full((enc.input_ids.shape[0], 1), self.start, dtype=torch.long, device=self.device)
                logits = self.model(input_ids=enc.input_ids, attention_mask=enc.attention_mask,
                                    decoder_input_ids=start).logits
                pair = logits[:, 0, list(self.label_ids)].float()  # (unsupported, supported)
                return torch.softmax(pair, dim=-1)[:, 1].tolist()
            encoded = self.model.get_encoder()(input_ids=enc.input_ids, attention_mask=enc.attention_mask)
            scores = [self._sequence_logprob(torch, encoded, enc.attention_mask, ids) for ids in self.answers]
            return torch.sigmoid(scores[0] - scores[1]).tolist()

    def _sequence_logprob(self, torch: Any, encoded: Any, mask: Any, ids: list[int]) -> Any:
        """log P(ids) as the first tokens the decoder writes, for every row of the batch."""
        rows = mask.shape[0]
        decoder_in = torch.tensor([[self.start] + ids[:-1]] * rows, device=self.device)
        logits = self.model(encoder_outputs=encoded, attention_mask=mask, decoder_input_ids=decoder_in).logits.float()
        logp = torch.log_softmax(logits, dim=-1)
        target = torch.tensor(ids, device=self.device)
        return logp[:, torch.arange(len(ids)), target].sum(dim=-1)


def _decoder_start(config: Any) -> Any:
    """The seq2seq decoder's start token: the config's, else its padding token (T5)."""
    start = config.decoder_start_token_id
    return start if start is not None else config.pad_token_id
