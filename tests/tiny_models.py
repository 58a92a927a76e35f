"""Tiny random BERT models saved as sentence-transformers folders, made in a test's folder
from finchunk's bundled WordPiece vocabulary: nothing is downloaded. Random weights, fixed
seed: their vectors mean nothing, but they are a real model folder end to end."""

from __future__ import annotations

from pathlib import Path

VOCAB = Path(__file__).resolve().parents[1] / "src" / "finchunk" / "text" / "vocab"


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
    from tokenizers import BertWordPieceTokenizer
    from transformers import PreTrainedTokenizerFast

    wordpiece = BertWordPieceTokenizer(str(VOCAB / "bert-base-uncased.txt"), lowercase=True)
    special = {k: f"[{k.upper()}]" for k in ("unk", "sep", "pad", "cls", "mask")}
    return PreTrainedTokenizerFast(
        tokenizer_object=wordpiece._tokenizer, **{f"{k}_token": v for k, v in special.items()}
    )


def tiny_embedder(folder: Path, prompts: dict[str, str] | None = None) -> Path:
    """A sentence-transformers embedder (BERT, mean pooling, 32 dimensions) in ``folder``."""
    import torch
    from sentence_transformers import SentenceTransformer
    from transformers import BertModel

    try:
        from sentence_transformers.sentence_transformer.modules import Pooling, Transformer
    except ImportError:  # sentence-transformers before 6
        from sentence_transformers.models import Pooling, Transformer

    torch.manual_seed(0)
    raw = folder.parent / f"{folder.name}-bert"
    BertModel(_config()).save_pretrained(raw)
    _tokenizer().save_pretrained(raw)
    word = Transformer(str(raw), max_seq_length=128)
    dimension = getattr(word, "get_embedding_dimension", None) or word.get_word_embedding_dimension
    pooling = Pooling(dimension(), "mean")
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
