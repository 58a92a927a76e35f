"""Bytes → text as browsers decode a page (the WHATWG Encoding Standard), with a warning
whenever bytes had to be replaced, or were read in another encoding than the declared one.

Order: a byte-order mark; else UTF-16 without one, told by its NUL bytes (ASCII in UTF-16LE
is every odd byte NUL; browsers would show NULs); else the declared ``<meta charset>``
label, looked up in the standard label table (a label the table lacks, such as ``cp037``,
is ignored, and a ``utf-16`` label on a page without a BOM means UTF-8, as in browsers);
else UTF-8, where only a multi-byte character cut off by the end of the file is replaced;
else Windows-1252.

When the declared encoding would replace bytes by U+FFFD and a common one reads them all
(UTF-8 strictly; Windows-1252, which reads almost any bytes, only where the declaration
is UTF-8 (or a ``utf-16`` label on 8-bit text) and the bytes hold fewer valid UTF-8
characters than invalid sequences: a file mixing encodings is read as declared), that one
is used, with a warning naming both: ``declared utf-8 but the bytes are windows-1252; read
as windows-1252``.
"""

from __future__ import annotations

import codecs
import re

#: WHATWG encoding name → (Python codec, labels). The labels are those of the Encoding
#: Standard for the encodings filings use; any other label is ignored.
_ENCODINGS: dict[str, tuple[str, str]] = {
    "utf-8": ("utf-8", "unicode-1-1-utf-8 unicode11utf8 unicode20utf8 utf-8 utf8 x-unicode20utf8"),
    "windows-1252": (
        "cp1252",
        "ansi_x3.4-1968 ascii cp1252 cp819 csisolatin1 ibm819 iso-8859-1 iso-ir-100 iso8859-1 "
        "iso88591 iso_8859-1 iso_8859-1:1987 l1 latin1 us-ascii windows-1252 x-cp1252",
    ),
    "iso-8859-2": ("iso8859-2", "csisolatin2 iso-8859-2 iso-ir-101 iso8859-2 iso88592 l2 latin2"),
    "iso-8859-15": ("iso8859-15", "csisolatin9 iso-8859-15 iso8859-15 iso885915 l9 latin-9"),
    "windows-1250": ("cp1250", "cp1250 windows-1250 x-cp1250"),
    "windows-1251": ("cp1251", "cp1251 windows-1251 x-cp1251"),
    "windows-1253": ("cp1253", "cp1253 windows-1253 x-cp1253"),
    "windows-1254": (
        "cp1254",
        "cp1254 csisolatin5 iso-8859-9 iso-ir-148 iso8859-9 iso88599 l5 latin5 windows-1254",
    ),
    "koi8-r": ("koi8-r", "cskoi8r koi koi8 koi8-r koi8_r"),
    "macintosh": ("mac-roman", "csmacintosh mac macintosh x-mac-roman"),
    "shift_jis": ("shift_jis", "csshiftjis ms932 ms_kanji shift-jis shift_jis sjis windows-31j"),
    "euc-jp": ("euc_jp", "cseucpkdfmtjapanese euc-jp x-euc-jp"),
    "gbk": ("gb18030", "chinese csgb2312 gb2312 gb_2312 gb_2312-80 gbk iso-ir-58 x-gbk"),
    "gb18030": ("gb18030", "gb18030"),
    "big5": ("big5hkscs", "big5 big5-hkscs cn-big5 csbig5 x-x-big5"),
    "euc-kr": (
        "cp949",
        "cseuckr csksc56011987 euc-kr iso-ir-149 korean ks_c_5601-1987 windows-949",
    ),
    # A utf-16 label without a BOM means UTF-8 (the meta prescan cannot have read it else).
    "utf-16": (
        "utf-8",
        "csunicode iso-10646-ucs-2 ucs-2 unicode unicodefeff utf-16 utf-16le utf-16be unicodefffe",
    ),  # fmt: skip
}
_LABELS = {label: codec for codec, labels in _ENCODINGS.values() for label in labels.split()}
_BOMS = ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"),
         (codecs.BOM_UTF16_BE, "utf-16-be"))  # fmt: skip
_CHARSET = re.compile(rb"""<meta[^>]{0,512}?charset\s*=\s*["']?([A-Za-z0-9_\-:.]{1,40})""", re.I)


def codec_for_label(label: str) -> str | None:
    """The Python codec of a WHATWG encoding label ("latin1" → cp1252), None if unknown."""
    return _LABELS.get(label.strip().lower())


def declared_label(data: bytes, scan: int = 4096) -> str | None:
    """The ``<meta charset>`` (or ``content="...; charset=..."``) label near the top."""
    m = _CHARSET.search(data[:scan])
    return m.group(1).decode("ascii").lower() if m else None


def utf8_with_cut_tail(data: bytes) -> tuple[str, int]:
    """``data`` as UTF-8 and how many bytes at its end were replaced (a multi-byte character
    cut by truncation); the UnicodeDecodeError when the bytes are not UTF-8 before the end."""
    try:
        return data.decode("utf-8"), 0
    except UnicodeDecodeError as exc:
        if exc.reason != "unexpected end of data" or exc.end != len(data):
            raise
        return data[: exc.start].decode("utf-8") + "\ufffd", len(data) - exc.start


def cut_tail_warning(cut: int) -> str | None:
    """The warning for :func:`utf8_with_cut_tail`'s count of replaced bytes (None for 0)."""
    return f"the last character was cut off ({cut} byte(s) replaced by U+FFFD)" if cut else None


def _c1(err: UnicodeError) -> tuple[str, int]:
    """Windows-1252 as WHATWG has it: the five bytes Python's cp1252 leaves undefined (0x81,
    0x8D, 0x8F, 0x90, 0x9D) are the C1 controls of the same number."""
    if not isinstance(err, UnicodeDecodeError):
        raise err
    return err.object[err.start : err.end].decode("latin-1"), err.end


codecs.register_error("finchunk-c1", _c1)


def _decode(data: bytes, codec: str, name: str) -> tuple[str, str | None]:
    """``data`` in ``codec``, bad bytes replaced by U+FFFD, and a warning naming how many."""
    if codec == "cp1252":
        return data.decode(codec, errors="finchunk-c1"), None
    text = data.decode(codec, errors="replace")
    count = text.count("\ufffd") - data.decode(codec, errors="ignore").count("\ufffd")
    if not count:
        return text, None
    return text, f"{count} byte sequence(s) that are not {name} were replaced by U+FFFD"


#: Bytes sampled for UTF-16's NUL pattern, and the share of the code units that must have
#: a NUL high byte (ASCII) while no low byte is NUL.
_UTF16_SAMPLE = 4096
_UTF16_ASCII_SHARE = 0.5
#: WHATWG names of the codecs a warning names.
_NAMES = {codec: name for name, (codec, _) in _ENCODINGS.items() if name != "utf-16"}
_NAMES |= {"utf-16-le": "UTF-16LE", "utf-16-be": "UTF-16BE"}


def utf16_by_nuls(data: bytes) -> str | None:
    """``utf-16-le`` or ``utf-16-be`` when ``data`` (without a BOM) looks like UTF-16 by its
    NUL bytes (at least half its first code units ASCII, no NUL in the other half of any)
    and decodes as it without error; else None."""
    sample = data[: min(len(data), _UTF16_SAMPLE) & ~1]
    units = len(sample) // 2
    if units < 2 or len(data) % 2:
        return None
    even, odd = sample[0::2].count(0), sample[1::2].count(0)
    codec = None
    if odd >= units * _UTF16_ASCII_SHARE and even == 0:
        codec = "utf-16-le"
    elif even >= units * _UTF16_ASCII_SHARE and odd == 0:
        codec = "utf-16-be"
    if codec is None:
        return None
    try:
        data.decode(codec)
    except UnicodeDecodeError:
        return None
    return codec


def _read_as(data: bytes, declared: str, codec: str) -> tuple[str, str]:
    """``data`` read cleanly in ``codec`` instead of the declared encoding, and the warning."""
    name = _NAMES.get(codec, codec)
    text = data.decode(codec, errors="finchunk-c1" if codec == "cp1252" else "strict")
    return text, f"{declared} but the bytes are {name}; read as {name}"


def _mostly_not_utf8(data: bytes) -> bool:
    """Whether ``data`` holds fewer valid multi-byte UTF-8 characters than invalid byte
    sequences: one-byte text (Latin-1, Windows-1252) rather than UTF-8 with a few bad bytes."""
    text = data.decode("utf-8", errors="replace")
    bad = text.count("\ufffd") - data.decode("utf-8", errors="ignore").count("\ufffd")
    good = sum(1 for ch in text if ord(ch) > 0x7F) - bad
    return good < bad


def _instead(data: bytes, codec: str) -> str | None:
    """The common encoding that reads ``data`` without replacing any byte, for a page whose
    declared ``codec`` would: UTF-8 (strict), else Windows-1252 where the declaration is
    UTF-8 and the bytes are mostly not UTF-8 (a page declared Windows-1251 or Shift_JIS with
    a bad byte is not Windows-1252 text); None when none fits."""
    if codec != "utf-8":
        try:
            data.decode("utf-8")
            return "utf-8"
        except UnicodeDecodeError:
            return None
    return "cp1252" if _mostly_not_utf8(data) else None


def decode_page(data: bytes, *, sniff_meta: bool = True) -> tuple[str, str | None]:
    """Text of a page and a warning when bytes were replaced, or read in another encoding
    than the declared one (None when neither)."""
    for bom, codec in _BOMS:
        if data.startswith(bom):
            return _decode(data[len(bom) :], codec, codec)
    utf16 = utf16_by_nuls(data)
    if utf16 is not None:
        return _read_as(data, "no byte-order mark or charset", utf16)
    label = declared_label(data) if sniff_meta else None
    codec = codec_for_label(label) if label else None
    if codec is not None and codec != "utf-8":
        text, warning = _decode(data, codec, label or codec)
        other = _instead(data, codec) if warning else None
        return (text, warning) if other is None else _read_as(data, f"declared {label}", other)
    try:
        text, cut = utf8_with_cut_tail(data)
        return text, cut_tail_warning(cut)
    except UnicodeDecodeError:
        pass
    if codec == "utf-8":  # declared UTF-8 (or utf-16), but it is not
        other = _instead(data, codec)
        if other is not None:
            return _read_as(data, f"declared {label}", other)
        return _decode(data, "utf-8", "UTF-8")  # mixed: replace, and say so
    return _decode(data, "cp1252", "windows-1252")
