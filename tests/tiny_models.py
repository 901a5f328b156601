"""Tiny NLI models built on the spot, for the alce tier's tests (no model can be downloaded here).

Run as a script (python tests/tiny_models.py [FOLDER], default build/tiny-nli) to build them all.

Each is a real transformers model saved with ``save_pretrained`` next to a real fast tokenizer
trained with the ``tokenizers`` library, so the judge loads it by the same code path as a hub
model. They are too small to understand language: their outputs are either random (but fixed by a
seed) or *forced* to one label by their weights:

- a classifier forced to one class has +20 on that class's bias in its classification layer;
- a TRUE-style T5 forced to answer "1" (or "0") has every decoder block's output projection set
  to zero, so the decoder's state is its start token's embedding, all ones; T5 ties its LM head
  to the embeddings, so the embedding of the forced answer is all threes and the other's all
  minus threes (logits +24 and -24), every other embedding zero.
"""

from __future__ import annotations

import warnings
from pathlib import Path

CORPUS = [
    "Snake plants tolerate low light. They grow faster in bright indirect light.",
    "Water a pothos when the top 5 cm of soil is dry, about every 1 to 2 weeks.",
    "Peace lilies contain calcium oxalate crystals and are toxic to cats and dogs.",
    "The Eiffel Tower is in Paris. Paris is the capital of France. It opened in 1889.",
    "Ferns like humid air. Mist them often or keep them in a bathroom.",
    "Title: Care guide. premise hypothesis 0 1 2 3 4 5 6 7 8 9 yes no not",
    "abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ .,;:!?'\"()[]-",
]

MNLI_LABELS = ("entailment", "neutral", "contradiction")  # MoritzLaurer-style order
ROBERTA_LABELS = ("CONTRADICTION", "NEUTRAL", "ENTAILMENT")  # entailment last, upper case


def _quiet() -> None:
    from transformers.utils import logging

    logging.disable_progress_bar()
    logging.set_verbosity_error()


def wordpiece_tokenizer(model_max_length: int = 512):
    """A BERT-style fast tokenizer ([CLS] a [SEP] b [SEP]) trained on CORPUS."""
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    tok.train_from_iterator(CORPUS * 3, trainers.WordPieceTrainer(vocab_size=300, special_tokens=specials))
    cls, sep = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", cls), ("[SEP]", sep)],
    )
    return PreTrainedTokenizerFast(
        tokenizer_object=tok, unk_token="[UNK]", pad_token="[PAD]", cls_token="[CLS]",
        sep_token="[SEP]", mask_token="[MASK]", model_max_length=model_max_length,
    )


def t5_tokenizer(model_max_length: int = 512):
    """A T5-style fast tokenizer (text </s>) trained on CORPUS; "1" and "0" are single tokens."""
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.WordPiece(unk_token="<unk>"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    specials = ["<pad>", "</s>", "<unk>"]
    tok.train_from_iterator(CORPUS * 3, trainers.WordPieceTrainer(vocab_size=300, special_tokens=specials))
    tok.post_processor = processors.TemplateProcessing(
        single="$A </s>", pair="$A </s> $B </s>", special_tokens=[("</s>", tok.token_to_id("</s>"))],
    )
    return PreTrainedTokenizerFast(
        tokenizer_object=tok, unk_token="<unk>", pad_token="<pad>", eos_token="</s>",
        model_max_length=model_max_length,
    )


def classifier(folder: Path, arch: str = "deberta", labels: tuple[str, ...] = ROBERTA_LABELS,
               force: str | None = None, seed: int = 0, max_positions: int = 512, init_std: float = 0.02) -> Path:
    """A sequence-classification model (DeBERTa-v2 or BERT shape, a few thousand weights) with
    the given labels; ``force`` names the label whose logit gets +20. A larger ``init_std`` makes
    an unforced model's output depend more on its input."""
    import torch
    from transformers import BertConfig, BertForSequenceClassification, DebertaV2Config, DebertaV2ForSequenceClassification

    _quiet()
    torch.manual_seed(seed)
    tokenizer = wordpiece_tokenizer(max_positions)
    id2label = dict(enumerate(labels))
    common = dict(
        vocab_size=len(tokenizer), hidden_size=8, num_hidden_layers=1, num_attention_heads=2,
        intermediate_size=16, max_position_embeddings=max_positions, num_labels=len(labels),
        id2label=id2label, label2id={v: k for k, v in id2label.items()}, pad_token_id=tokenizer.pad_token_id,
        initializer_range=init_std,
    )
    if arch == "deberta":
        config = DebertaV2Config(relative_attention=True, pos_att_type=["p2c", "c2p"], position_biased_input=False,
                                 pooler_hidden_size=8, type_vocab_size=0, **common)
        model = DebertaV2ForSequenceClassification(config)
    elif arch == "bert":
        model = BertForSequenceClassification(BertConfig(type_vocab_size=2, **common))
    else:
        raise ValueError(arch)
    if force is not None:
        with torch.no_grad():
            model.classifier.bias[labels.index(force)] += 20.0
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def true_t5(folder: Path, answer: str = "1") -> Path:
    """A TRUE-style T5 whose first generated token is always ``answer`` ("1" or "0")."""
    import torch
    from transformers import T5Config, T5ForConditionalGeneration

    _quiet()
    torch.manual_seed(0)
    tokenizer = t5_tokenizer()
    config = T5Config(
        vocab_size=len(tokenizer), d_model=8, d_kv=4, d_ff=16, num_layers=1, num_heads=2,
        tie_word_embeddings=False,  # transformers 5 ties anyway; this only turns off output scaling
        decoder_start_token_id=tokenizer.pad_token_id,
        pad_token_id=tokenizer.pad_token_id, eos_token_id=tokenizer.eos_token_id,
    )
    model = T5ForConditionalGeneration(config)
    yes = tokenizer.convert_tokens_to_ids("1")
    no = tokenizer.convert_tokens_to_ids("0")
    win, lose = (yes, no) if answer == "1" else (no, yes)
    with torch.no_grad():
        for block in model.decoder.block:
            block.layer[0].SelfAttention.o.weight.zero_()
            block.layer[1].EncDecAttention.o.weight.zero_()
            block.layer[2].DenseReluDense.wo.weight.zero_()
        model.decoder.final_layer_norm.weight.fill_(1.0)
        model.shared.weight.zero_()
        model.shared.weight[config.decoder_start_token_id] = 1.0
        model.shared.weight[win] = 3.0
        model.shared.weight[lose] = -3.0
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def zoo(base: Path) -> dict[str, Path]:
    """Every tiny model the tests use, built once under ``base`` (skipped when already there)."""
    specs = {
        "entail": lambda p: classifier(p, force="ENTAILMENT"),  # entailment is class 2
        "entail-mnli-order": lambda p: classifier(p, labels=MNLI_LABELS, force="entailment"),  # class 0
        "contradict": lambda p: classifier(p, force="CONTRADICTION"),
        "bert-entail": lambda p: classifier(p, arch="bert", labels=("entailment", "not_entailment"), force="entailment"),
        "bert-not": lambda p: classifier(p, arch="bert", labels=("entailment", "not_entailment"), force="not_entailment"),
        "random": lambda p: classifier(p, init_std=0.5),
        "short": lambda p: classifier(p, init_std=0.5, max_positions=64),
        "no-label": lambda p: classifier(p, labels=("LABEL_0", "LABEL_1", "LABEL_2")),
        "t5-yes": lambda p: true_t5(p, "1"),
        "t5-no": lambda p: true_t5(p, "0"),
    }
    paths = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # transformers' model code, on import
        for name, build in specs.items():
            path = base / name
            if not (path / "config.json").exists():
                build(path)
            paths[name] = path
        load_once(paths["entail"], paths["t5-yes"])
    return paths


def load_once(*folders: Path) -> None:
    """Load models the way the judge does, so that every module it needs is imported before a
    test starts: pytester's in-process runs drop the modules imported during a run, and
    importing torch again in every run would be slow."""
    from transformers import AutoModelForSeq2SeqLM, AutoModelForSequenceClassification, AutoTokenizer

    for folder in folders:
        AutoTokenizer.from_pretrained(folder)
        if "t5" in folder.name:
            AutoModelForSeq2SeqLM.from_pretrained(folder)
        else:
            AutoModelForSequenceClassification.from_pretrained(folder)


if __name__ == "__main__":  # python tests/tiny_models.py build/tiny-nli: the zoo, for trying scripts
    import sys

    for label, folder in zoo(Path(sys.argv[1] if len(sys.argv) > 1 else "build/tiny-nli")).items():
        print(f"{label:18} {folder}")
