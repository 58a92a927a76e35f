"""BERT's uncased WordPiece tokenizer in plain Python: the pieces ``tokenizers``'
``BertWordPieceTokenizer(vocab, lowercase=True)`` gives, without that library.

The English models (SPLADE-tiny) read text as WordPiece ids of BERT's uncased vocabulary
(:data:`finchunk.text.analysis.ENGLISH_VOCAB`). Importing ``tokenizers`` and building its
tokenizer cost a cold ``finchunk search`` about 20 ms of CPU before the question's first
piece; this module costs the vocabulary's read (a few ms) and runs at a few µs a word, far
below the model's own cost per piece, so it tokenizes the passages at index time too and the
question and its passages are cut the same way.

The steps are BERT's, as ``tokenizers`` runs them (0.23 checked; the tests check the one
installed):

1. **clean**: NUL, U+FFFD and every control, format or private-use character (Cc, Cf, Co;
   tab, newline and carriage return excepted) are dropped, then every whitespace character
   becomes a space (unassigned code points stay, as ``tokenizers`` keeps them);
2. **CJK**: each CJK ideograph is set apart by spaces;
3. **accents**: NFD, then non-spacing marks (Mn) dropped;
4. **lower case**, character by character (no final-sigma rule: "Σ" is always "σ");
5. **words**: split at whitespace, each punctuation character (Unicode P*, or ASCII
   punctuation, so ``$``, ``+``, ``<`` …) a word of its own;
6. **pieces**: greedy longest match from the left, later pieces with ``##``; a word with no
   such split, or over 100 characters, is one ``[UNK]``.

**Which characters.** ``tokenizers`` reads character categories from tables older than
Unicode 9 (2016); Python's :mod:`unicodedata` is newer, and the two disagree on a few
hundred characters added or recategorised since (new combining marks, format characters and
punctuation of Brahmic, Arabic and historic scripts). Those lie outside :data:`KNOWN`, the
blocks where the two agree code point by code point (Latin, Greek, Cyrillic, Hebrew, general
punctuation, currency, symbols, CJK, kana, Hangul, full-width forms, emoji): a text with a
character outside them is handed to ``fallback`` (``tokenizers`` itself, where a caller
gives it).
``tests/test_wordpiece.py`` checks every code point of :data:`KNOWN`, and questions and
passages in English and Spanish, against ``tokenizers``.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

from finchunk.errors import InputError
from finchunk.files import read_bytes

#: Longest word (in characters) split into pieces; a longer one is ``[UNK]``.
MAX_WORD_CHARS = 100
UNKNOWN = "[UNK]"
CONTINUATION = "##"

_TRAILING_SPACE = re.compile(r"[^\S\n](?:\n|\Z)")  # a vocabulary line that ends in whitespace
_ASCII_PUNCTUATION = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"
# ASCII text after cleaning: runs of anything but space and punctuation, or one punctuation
_ASCII_WORD = re.compile(r"[^ " + re.escape(_ASCII_PUNCTUATION) + r"]+|[" +
                         re.escape(_ASCII_PUNCTUATION) + "]")  # fmt: skip
# what cleaning does to ASCII: controls out (tab, newline, return become spaces)
_ASCII_CLEAN = {c: None for c in range(32)} | {9: " ", 10: " ", 13: " ", 127: None}
#: The characters this module splits exactly as ``tokenizers`` does (see the module's note).
KNOWN = (
    (0x0000, 0x05FF),  # Latin, Greek, Cyrillic, Armenian, Hebrew, combining diacritics
    (0x1E00, 0x2BFF),  # Latin and Greek extended, punctuation, currency, symbols, arrows
    (0x3000, 0x9FFF),  # CJK punctuation, kana, CJK ideographs
    (0xAC00, 0xD7AF),  # Hangul syllables
    (0xF900, 0xFAFF),  # CJK compatibility ideographs
    (0xFB00, 0xFB4F),  # ligatures (ﬁ, ﬂ) and Hebrew presentation forms
    (0xFE30, 0xFE4F),  # CJK compatibility forms
    (0xFEFF, 0xFEFF),  # byte order mark
    (0xFF00, 0xFFEF),  # full-width and half-width forms
    (0xFFFD, 0xFFFD),  # the replacement character
    (0x1F000, 0x1FAFF),  # emoji and pictographs
)


@lru_cache(maxsize=1)
def _unknown_character() -> re.Pattern[str]:
    """A character outside :data:`KNOWN` (compiled when a text is first not all ASCII)."""
    return re.compile("[^" + "".join(f"\\U{lo:08x}-\\U{hi:08x}" for lo, hi in KNOWN) + "]")


_CJK = (
    (0x4E00, 0x9FFF),
    (0x3400, 0x4DBF),
    (0x20000, 0x2A6DF),
    (0x2A700, 0x2B73F),
    (0x2B740, 0x2B81F),
    (0x2B920, 0x2CEAF),
    (0xF900, 0xFAFF),
    (0x2F800, 0x2FA1F),
)


@lru_cache(maxsize=65536)
def _cleaned(c: str) -> str:
    """Steps 1 and 2 for one character of a text that is not all ASCII."""
    if c in "\t\n\r":
        return " "
    if c == "\0" or c == "\ufffd" or unicodedata.category(c) in ("Cc", "Cf", "Co"):
        return ""
    if c.isspace():
        return " "
    code = ord(c)
    if any(lo <= code <= hi for lo, hi in _CJK):
        return f" {c} "
    return c


def _is_punctuation(c: str) -> bool:
    return c in _ASCII_PUNCTUATION or unicodedata.category(c)[0] == "P"


def normalize(text: str) -> str:
    """Steps 1-4: the text BERT's uncased tokenizer splits into words."""
    if text.isascii():
        return text.translate(_ASCII_CLEAN).lower()
    text = "".join(map(_cleaned, text))
    text = unicodedata.normalize("NFD", text)
    if not text.isascii():
        text = "".join(c for c in text if unicodedata.category(c) != "Mn")
    # str.lower() alone would apply the final-sigma rule, which BERT's tokenizer does not
    return text.replace("\u03a3", "\u03c3").lower()


def words(text: str) -> list[str]:
    """Step 5 on a normalized text (:func:`normalize`)."""
    if text.isascii():
        return _ASCII_WORD.findall(text)
    out: list[str] = []
    word: list[str] = []
    for c in text:
        if c.isspace() or _is_punctuation(c):
            if word:
                out.append("".join(word))
                word = []
            if not c.isspace():
                out.append(c)
        else:
            word.append(c)
    if word:
        out.append("".join(word))
    return out


class WordPiece:
    """A WordPiece vocabulary and BERT's uncased tokenization over it (:meth:`encode`)."""

    def __init__(
        self, vocab: dict[str, int], fallback: Callable[[str], list[int]] | None = None
    ) -> None:
        if UNKNOWN not in vocab:
            raise InputError(f"a WordPiece vocabulary needs {UNKNOWN}")
        self.vocab = vocab
        #: Tokenizes a text with a character outside :data:`KNOWN` (None: this module does,
        #: going by the running Python's Unicode tables).
        self.fallback = fallback
        self._unknown = vocab[UNKNOWN]
        self._longest = max(map(len, vocab))
        self._pieces: dict[str, tuple[int, ...]] = {}

    @classmethod
    def read(cls, path: Path, fallback: Callable[[str], list[int]] | None = None) -> WordPiece:
        """A ``vocab.txt``: one piece a line, its id the line's number (trailing whitespace
        is not part of a piece; a repeated piece keeps its last line's id)."""
        try:
            text = read_bytes(path).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(f"{path}: not a UTF-8 vocabulary: {exc}") from exc
        lines = text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()  # the newline that ends the last line
        if _TRAILING_SPACE.search(text):
            lines = [line.rstrip() for line in lines]
        vocab = dict(zip(lines, range(len(lines)), strict=True))
        if UNKNOWN not in vocab:
            raise InputError(f"{path}: a WordPiece vocabulary without {UNKNOWN}")
        return cls(vocab, fallback)

    def __len__(self) -> int:
        return len(self.vocab)

    def token_to_id(self, token: str) -> int | None:
        return self.vocab.get(token)

    def encode(self, text: str) -> list[int]:
        """The text's piece ids (no ``[CLS]``/``[SEP]``)."""
        if self.fallback is not None and not known(text):
            return self.fallback(text)
        out: list[int] = []
        pieces = self._pieces
        for word in words(normalize(text)):
            found = pieces.get(word)
            if found is None:
                found = pieces[word] = self._split(word)
                if len(pieces) > 1 << 17:  # bounded: long indexing runs meet many words
                    pieces.clear()
            out.extend(found)
        return out

    def _split(self, word: str) -> tuple[int, ...]:
        """Step 6: greedy longest-match-first pieces of one word."""
        if len(word) > MAX_WORD_CHARS:
            return (self._unknown,)
        vocab, ids, start = self.vocab, [], 0
        while start < len(word):
            end = min(len(word), start + self._longest)
            while end > start:
                piece = word[start:end] if start == 0 else CONTINUATION + word[start:end]
                found = vocab.get(piece)
                if found is not None:
                    ids.append(found)
                    break
                end -= 1
            else:
                return (self._unknown,)
            start = end
        return tuple(ids)


def known(text: str) -> bool:
    """Whether every character of ``text`` lies in :data:`KNOWN`."""
    return text.isascii() or not _unknown_character().search(text)
