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
from typing import Any

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
    force_first_token(model, config.decoder_start_token_id, win, lose)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


# --- MiniCheck-shaped checkers (2 unnamed classes; class 1 means supported) --------------------

MINICHECK_LABELS = ("0", "1")  # MiniCheck's id2label: {"0": "0", "1": "1"}


def roberta_tokenizer(model_max_length: int = 512):
    """A RoBERTa-style byte-level BPE tokenizer (<s> A </s>, eos </s>) trained on CORPUS."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    specials = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
    tok.train_from_iterator(CORPUS * 3, trainers.BpeTrainer(
        vocab_size=400, special_tokens=specials, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    tok.post_processor = processors.RobertaProcessing(("</s>", tok.token_to_id("</s>")), ("<s>", tok.token_to_id("<s>")))
    return PreTrainedTokenizerFast(
        tokenizer_object=tok, bos_token="<s>", eos_token="</s>", sep_token="</s>", cls_token="<s>",
        unk_token="<unk>", pad_token="<pad>", mask_token="<mask>", model_max_length=model_max_length,
    )


def _minicheck_config_name(folder: Path, name: str) -> None:
    """Write ``_name_or_path`` into config.json as the hub's MiniCheck configs have it."""
    import json

    path = folder / "config.json"
    config = json.loads(path.read_text())
    config["_name_or_path"] = name
    path.write_text(json.dumps(config, indent=2))


def minicheck_classifier(folder: Path, arch: str = "roberta", force: str | None = None, seed: int = 0,
                         init_std: float = 0.02, name_or_path: str | None = "auto") -> Path:
    """A RoBERTa or DeBERTa-v2 sequence classifier with MiniCheck's config shape: two classes
    labelled "0" and "1", ``_name_or_path`` naming the MiniCheck checkpoint (None: not named, as
    any unnamed 2-label model). ``force`` ("0" or "1") puts +20 on that class's bias."""
    import torch
    from transformers import DebertaV2Config, DebertaV2ForSequenceClassification, RobertaConfig, RobertaForSequenceClassification

    _quiet()
    torch.manual_seed(seed)
    id2label = dict(enumerate(MINICHECK_LABELS))
    if arch == "roberta":
        tokenizer = roberta_tokenizer(512)
        config = RobertaConfig(
            vocab_size=len(tokenizer), hidden_size=8, num_hidden_layers=1, num_attention_heads=2, intermediate_size=16,
            max_position_embeddings=514, type_vocab_size=1, pad_token_id=tokenizer.pad_token_id,
            bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id, num_labels=2,
            id2label=id2label, label2id={v: k for k, v in id2label.items()}, initializer_range=init_std,
        )
        model = RobertaForSequenceClassification(config)
        head = model.classifier.out_proj
        default_name = "lytang/MiniCheck-RoBERTa-Large"
    elif arch == "deberta":
        tokenizer = wordpiece_tokenizer(512)  # eos: [SEP], as DeBERTa-v3's tokenizer has it
        tokenizer.eos_token = "[SEP]"
        config = DebertaV2Config(
            vocab_size=len(tokenizer), hidden_size=8, num_hidden_layers=1, num_attention_heads=2, intermediate_size=16,
            max_position_embeddings=512, relative_attention=True, pos_att_type=["p2c", "c2p"],
            position_biased_input=False, pooler_hidden_size=8, type_vocab_size=0, pad_token_id=tokenizer.pad_token_id,
            num_labels=2, id2label=id2label, label2id={v: k for k, v in id2label.items()}, initializer_range=init_std,
        )
        model = DebertaV2ForSequenceClassification(config)
        head = model.classifier
        default_name = "lytang/MiniCheck-DeBERTa-v3-Large"
    else:
        raise ValueError(arch)
    if force is not None:
        with torch.no_grad():
            head.bias[MINICHECK_LABELS.index(force)] += 20.0
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    if name_or_path is not None:
        _minicheck_config_name(folder, default_name if name_or_path == "auto" else name_or_path)
    return folder


T5_SUPPORTED, T5_UNSUPPORTED = 209, 3  # T5's ids of "▁1" and "▁" (the first piece of "0")


def t5_unigram_tokenizer(model_max_length: int = 2048):
    """A SentencePiece-style (Unigram, metaspace) tokenizer laid out like T5's where MiniCheck
    looks: <pad> 0, </s> 1, <unk> 2, "▁" 3, "▁1" 209; "0" has no "▁0" piece, so it is "▁" + "0"."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast

    pieces = {"<pad>", "</s>", "<unk>", "▁", "▁1", "▁0"}
    words = []
    for line in CORPUS:
        for w in line.replace("\n", " ").split():
            for piece in (f"▁{w.lower()}", f"▁{w}"):
                if piece not in pieces and piece not in words:
                    words.append(piece)
    chars = sorted({c for line in CORPUS for c in line if not c.isspace()} | set("predict:"))
    vocab = [("<pad>", 0.0), ("</s>", 0.0), ("<unk>", 0.0), ("▁", -2.0)]
    vocab += [(c, -5.0) for c in chars if c != "1"] + [("1", -5.0)]
    vocab += [(w, -1.0) for w in words]
    vocab = vocab[:T5_SUPPORTED]
    while len(vocab) < T5_SUPPORTED:
        vocab.append((f"▁filler{len(vocab)}", -20.0))
    vocab.append(("▁1", -1.0))
    tok = Tokenizer(models.Unigram(vocab, unk_id=2, byte_fallback=False))
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    tok.decoder = decoders.Metaspace()
    tok.post_processor = processors.TemplateProcessing(single="$A </s>", pair="$A </s> $B </s>",
                                                       special_tokens=[("</s>", 1)])
    return PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="<unk>", pad_token="<pad>", eos_token="</s>",
                                   model_max_length=model_max_length)


def minicheck_t5(folder: Path, answer: str | None = "1", seed: int = 0) -> Path:
    """A T5 read the MiniCheck way (folder named ...MiniCheck...: its config does not say so).
    ``answer`` "1" forces the supported token (209), "0" the unsupported one (3), None keeps the
    random weights (the answer then depends on the input)."""
    import torch
    from transformers import T5Config, T5ForConditionalGeneration

    _quiet()
    torch.manual_seed(seed)
    tokenizer = t5_unigram_tokenizer()
    assert tokenizer.convert_tokens_to_ids("▁1") == T5_SUPPORTED and tokenizer.convert_tokens_to_ids("▁") == T5_UNSUPPORTED
    config = T5Config(
        vocab_size=len(tokenizer), d_model=8, d_kv=4, d_ff=16, num_layers=1, num_heads=2, tie_word_embeddings=False,
        decoder_start_token_id=0, pad_token_id=0, eos_token_id=1, n_positions=512,
        initializer_factor=1.0 if answer is None else 0.05,
    )
    model = T5ForConditionalGeneration(config)
    if answer is not None:
        win, lose = (T5_SUPPORTED, T5_UNSUPPORTED) if answer == "1" else (T5_UNSUPPORTED, T5_SUPPORTED)
        force_first_token(model, 0, win, lose)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def remote_code_classifier(folder: Path) -> Path:
    """A classifier whose config asks for its own code (``auto_map``), like HHEM-2.1-open: a
    subclass of BERT's classifier defined in a .py file next to the weights."""
    import json

    classifier(folder, arch="bert", labels=("entailment", "not_entailment"), force="entailment")
    (folder / "sprout_custom.py").write_text(
        "from transformers import BertConfig, BertForSequenceClassification\n\n"
        "class SproutCustomConfig(BertConfig):\n    model_type = 'sprout-custom'\n\n"
        "class SproutCustomModel(BertForSequenceClassification):\n    config_class = SproutCustomConfig\n"
    )
    config = json.loads((folder / "config.json").read_text())
    config["model_type"] = "sprout-custom"
    config["architectures"] = ["SproutCustomModel"]
    config["auto_map"] = {"AutoConfig": "sprout_custom.SproutCustomConfig",
                          "AutoModelForSequenceClassification": "sprout_custom.SproutCustomModel"}
    (folder / "config.json").write_text(json.dumps(config, indent=2))
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


def force_first_token(model: Any, start_id: int, win: int, lose: int) -> None:
    """Make a T5's first decoded token ``win`` over ``lose`` whatever the input: the decoder's
    blocks add nothing to the start token's embedding, which the tied head reads as +3 / -3."""
    import torch

    with torch.no_grad():
        for block in model.decoder.block:
            block.layer[0].SelfAttention.o.weight.zero_()
            block.layer[1].EncDecAttention.o.weight.zero_()
            block.layer[2].DenseReluDense.wo.weight.zero_()
        model.decoder.final_layer_norm.weight.fill_(1.0)
        model.shared.weight.zero_()
        model.shared.weight[start_id] = 1.0
        model.shared.weight[win] = 3.0
        model.shared.weight[lose] = -3.0
