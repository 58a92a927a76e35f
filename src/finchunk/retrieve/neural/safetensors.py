"""Read a ``.safetensors`` file of float32 tensors into NumPy arrays, with no torch.

The format: 8 bytes (little-endian length ``n``), ``n`` bytes of JSON (tensor name → dtype,
shape, ``[begin, end)`` byte offsets into the rest of the file; an optional
``__metadata__``), then the raw tensors. Every way a file can be wrong (cut short, a header
that is not JSON or not of that shape, offsets outside the data, a size that disagrees
with the shape, a dtype other than ``F32``) is one :class:`SafetensorsError` naming the file,
never a numpy traceback or an array of the wrong values.

The file is mapped, not read: the arrays are views of the page cache, so a model costs no
copy when loaded and only the pages a computation touches are read (a cold ``finchunk search``
loads SPLADE-tiny's 17 MB in ~3 ms of CPU instead of ~12). A mapped file must not be
rewritten in place while its arrays are in use; models are replaced by new files.
"""

from __future__ import annotations

import math
import mmap
from pathlib import Path

import numpy as np

from finchunk.errors import InputError
from finchunk.files import JSONError, loads

#: A header this long is not a model's (real ones are a few kB per hundred tensors).
MAX_HEADER = 16 * 1024 * 1024


class SafetensorsError(InputError):
    """A safetensors file that cannot be read as float32 tensors."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"{path}: not a usable safetensors file: {reason}")


def read_safetensors(path: str | Path) -> dict[str, np.ndarray]:
    """The tensors in ``path`` by name (read-only float32 arrays over the file's bytes)."""
    p = Path(path)
    try:
        data = _mapped(p)
    except OSError as exc:
        raise SafetensorsError(p, exc.strerror or str(exc)) from exc
    if len(data) < 8:
        raise SafetensorsError(p, f"{len(data)} bytes, shorter than the 8-byte header length")
    n = int.from_bytes(data[:8], "little")
    if n > min(MAX_HEADER, len(data) - 8):
        raise SafetensorsError(p, f"a header of {n} bytes in a file of {len(data)}")
    try:
        header = loads(data[8 : 8 + n])
    except JSONError as exc:
        raise SafetensorsError(p, f"header: {exc}") from exc
    if not isinstance(header, dict):
        raise SafetensorsError(p, "the header is not a JSON object")
    body = memoryview(data)[8 + n :]
    return {
        name: _tensor(p, name, spec, body)
        for name, spec in header.items()
        if name != "__metadata__"
    }


def _mapped(path: Path) -> bytes | mmap.mmap:
    """The file's bytes, mapped read-only (an empty file: no bytes; mmap refuses those)."""
    with path.open("rb") as f:
        try:
            return mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        except ValueError:  # empty
            return b""


def _tensor(path: Path, name: str, spec: object, body: memoryview) -> np.ndarray:
    if not isinstance(spec, dict):
        raise SafetensorsError(path, f"tensor {name!r}: its entry is not an object")
    dtype, shape, offsets = spec.get("dtype"), spec.get("shape"), spec.get("data_offsets")
    if dtype != "F32":
        raise SafetensorsError(path, f"tensor {name!r} is {dtype}, only F32 is read")
    if not _ints(shape) or not _ints(offsets) or len(offsets) != 2:
        raise SafetensorsError(path, f"tensor {name!r}: shape or data_offsets malformed")
    begin, end = offsets
    size = 4 * math.prod(shape)
    if not 0 <= begin <= end <= len(body) or end - begin != size:
        raise SafetensorsError(
            path, f"tensor {name!r}: bytes {begin}-{end} of {len(body)} for shape {shape}"
        )
    return np.frombuffer(body, dtype="<f4", count=size // 4, offset=begin).reshape(shape)


def _ints(value: object) -> bool:
    return isinstance(value, list) and all(
        isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value
    )
