"""A randomly initialised NLI classifier with DeBERTa-v3-base's shape, for throughput benchmarks.

It costs what the real model costs (12 layers, hidden 768, 128,100-token vocabulary, relative
attention; about 184 M weights); its verdicts mean nothing. The real SentencePiece tokenizer cannot
be downloaded here, so a WordPiece tokenizer is trained on the benchmark's own text (about one
token per word, as the real one gives). Built on the fly, never committed.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Sequence


def build(folder: Path, corpus: Sequence[str], vocab_size: int = 30000, max_length: int = 512) -> Path:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import torch
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors, trainers
    from transformers import DebertaV2Config, DebertaV2ForSequenceClassification, PreTrainedTokenizerFast
    from transformers.utils import logging

    logging.disable_progress_bar()
    logging.set_verbosity_error()
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    tok.train_from_iterator(corpus, trainers.WordPieceTrainer(vocab_size=vocab_size, special_tokens=specials))
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", tok.token_to_id("[CLS]")), ("[SEP]", tok.token_to_id("[SEP]"))],
    )
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=tok, unk_token="[UNK]", pad_token="[PAD]", cls_token="[CLS]", sep_token="[SEP]",
        mask_token="[MASK]", model_max_length=max_length,
    )
    labels = {0: "entailment", 1: "neutral", 2: "contradiction"}
    config = DebertaV2Config(  # microsoft/deberta-v3-base's config.json, with a 3-way NLI head
        vocab_size=128100, hidden_size=768, num_hidden_layers=12, num_attention_heads=12,
        intermediate_size=3072, hidden_act="gelu", max_position_embeddings=512, type_vocab_size=0,
        layer_norm_eps=1e-7, relative_attention=True, position_buckets=256, norm_rel_ebd="layer_norm",
        share_att_key=True, pos_att_type=["p2c", "c2p"], max_relative_positions=-1,
        position_biased_input=False, pad_token_id=tokenizer.pad_token_id, num_labels=3,
        id2label=labels, label2id={v: k for k, v in labels.items()},
    )
    torch.manual_seed(0)
    DebertaV2ForSequenceClassification(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder
