"""Tiny random BERT models saved as sentence-transformers folders, made in a test's folder
from finchunk's bundled WordPiece vocabulary: nothing is downloaded. Random weights, fixed
seed: their vectors mean nothing, but they are a real model folder end to end."""

from __future__ import annotations

from pathlib import Path

VOCAB = Path(__file__).resolve().parents[1] / "src" / "finchunk" / "retrieve" / "vocab"


def _config():
    from transformers import BertConfig

    return BertConfig(
        vocab_size=30522,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=37,
        max_position_embeddings=128,
    )


def _tokenizer():
    from transformers import BertTokenizerFast

    return BertTokenizerFast(vocab_file=str(VOCAB / "bert-base-uncased.txt"), do_lower_case=True)


def tiny_embedder(folder: Path, prompts: dict[str, str] | None = None) -> Path:
    """A sentence-transformers embedder (BERT, mean pooling, 32 dimensions) in ``folder``."""
    import torch
    from sentence_transformers import SentenceTransformer, models
    from transformers import BertModel

    torch.manual_seed(0)
    raw = folder.parent / f"{folder.name}-bert"
    BertModel(_config()).save_pretrained(raw)
    _tokenizer().save_pretrained(raw)
    word = models.Transformer(str(raw), max_seq_length=128)
    pooling = models.Pooling(word.get_word_embedding_dimension(), "mean")
    SentenceTransformer(modules=[word, pooling], device="cpu", prompts=prompts).save(str(folder))
    return folder


def tiny_cross_encoder(folder: Path) -> Path:
    """A cross-encoder (BERT with one relevance logit) in ``folder``."""
    import torch
    from transformers import BertForSequenceClassification

    torch.manual_seed(0)
    config = _config()
    config.num_labels = 1
    BertForSequenceClassification(config).save_pretrained(folder)
    _tokenizer().save_pretrained(folder)
    return folder
