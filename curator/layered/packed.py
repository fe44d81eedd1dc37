"""Bit arrays kept in compressed blocks, with an index so that any word can be read alone.

A packed file holds the same bits as a raw bit file (bit i in bit i % 64 of word i // 64)
cut into blocks of `BLOCK_WORDS` words (the last may be shorter), each compressed on its
own by one codec: "sparse", bitarray's sparse compression (`bitarray.util.sc_encode`, made
for few set bits, decoded at several GB/s), "zstd" (Zstandard, for denser bits) or "lz4"
(LZ4, for denser bits that must decode fast: about 3 GB/s against zstd's 0.7). Layout,
integers little-endian (see docs/results-format.md):

    offset  size              field
    0       8                 magic b"CURPACK1"
    8       8                 words: the length of the bit array in 64-bit words
    16      8                 block: words per block
    24      8                 codec: its name in ASCII, padded with zero bytes
    32      8 * (blocks + 1)  offsets: where each block's bytes start, counted from the
                              file's first byte; the last is the file's size
    ...     4 * blocks        crc32 of each block's compressed bytes
    ...                       the compressed blocks, in order

Reading a word decodes its block only; every block is checked against its crc32 and its
decoded length, so a damaged file is a StoreError naming it, never wrong bits.
"""

from __future__ import annotations

import mmap
import os
import zlib
from collections import OrderedDict
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from pathlib import Path

import lz4.block
import numpy as np
from bitarray import bitarray
from bitarray.util import sc_decode, sc_encode
from zstandard import ZstdCompressor, ZstdDecompressor, ZstdError

from curator.common.errors import StoreError

MAGIC = b"CURPACK1"
HEADER = np.dtype([("magic", "S8"), ("words", "<u8"), ("block", "<u8"), ("codec", "S8")])
BLOCK_WORDS = 1 << 15
"""Words per block: the 2,097,152 positions `select` scans at a time."""
ZSTD_LEVEL = 3
"""On English peg solitaire's dense layers: 10% fewer bytes than level 1, written at
130 MB/s and decoded at 0.6-0.8 GB/s (zlib level 1: 31 MB/s and 0.1-0.15 GB/s)."""
LZ4_LEVEL = 4
"""LZ4's high-compression mode at level 4: written at 45 MB/s, decoded at 3 GB/s."""
CACHED_BLOCKS = 8
"""Decoded blocks a `PackedWords` keeps for lookups that come back to them."""
WORKERS = len(os.sched_getaffinity(0))
"""Threads that decode blocks together (the codecs let go of the interpreter)."""


@cache
def _pool() -> ThreadPoolExecutor:
    """The threads every packed file decodes its blocks on, started at first use."""
    return ThreadPoolExecutor(WORKERS, thread_name_prefix="curator-unpack")


def _sparse(words: np.ndarray) -> bytes:
    return sc_encode(bitarray(buffer=memoryview(words).cast("B"), endian="little"))  # type: ignore[arg-type]  # numpy types arrays as Buffers on Python 3.12+ only


def _unsparse(data: bytes | memoryview) -> bytes:
    bits = sc_decode(data)
    if bits.endian != "little" or len(bits) % 64:
        raise ValueError("not a little-endian run of words")
    return bits.tobytes()


def _zstd(words: np.ndarray) -> bytes:
    return ZstdCompressor(level=ZSTD_LEVEL).compress(memoryview(words).cast("B"))  # type: ignore[arg-type]  # numpy types arrays as Buffers on Python 3.12+ only


def _unzstd(data: bytes | memoryview) -> bytes:
    """A block's bytes (a context per call: contexts are not shared between threads)."""
    return ZstdDecompressor().decompress(data)


def _lz4(words: np.ndarray) -> bytes:
    return lz4.block.compress(memoryview(words).cast("B"), mode="high_compression", compression=LZ4_LEVEL)  # type: ignore[arg-type]  # numpy types arrays as Buffers on Python 3.12+ only


CODECS = {"sparse": (_sparse, _unsparse), "zstd": (_zstd, _unzstd), "lz4": (_lz4, lz4.block.decompress)}
"""Each codec's (encode a block's words, decode to its bytes)."""


def pack(words: np.ndarray, codec: str, block: int | None = None) -> bytes:
    """The packed file of a word array, compressed with `codec` (one of CODECS) in blocks of
    `block` words (default `BLOCK_WORDS`)."""
    return b"".join(pack_parts(words, codec, block))


def pack_parts(words: np.ndarray, codec: str, block: int | None = None) -> list[bytes]:
    """`pack`'s file as its parts in order (header, offsets, checksums, then each block):
    written one after another they make the file, with no copy of all its bytes in one."""
    words = np.ascontiguousarray(words, dtype="<u8")
    block = block or BLOCK_WORDS
    encode = CODECS[codec][0]
    blocks = [encode(words[first:first + block]) for first in range(0, words.shape[0], block)]
    header = np.array([(MAGIC, words.shape[0], block, codec.encode())], dtype=HEADER).tobytes()
    start = len(header) + 8 * (len(blocks) + 1) + 4 * len(blocks)
    offsets = np.cumsum([start] + [len(b) for b in blocks], dtype="<u8")
    crcs = np.array([zlib.crc32(b) for b in blocks], dtype="<u4")
    return [header, offsets.tobytes(), crcs.tobytes(), *blocks]


def is_packed(path: Path) -> bool:
    """Whether the file starts like a packed file."""
    with path.open("rb") as handle:
        return handle.read(len(MAGIC)) == MAGIC


class PackedWords:
    """The words of a packed file, read-only, decoded a block at a time as they are indexed.

    Indexing takes what readers of a word array use: an integer, a slice of step 1, or an
    integer array (each block decoded once per call). `numpy.asarray` decodes every block.
    """

    dtype = np.dtype("<u8")
    ndim = 1

    def __init__(self, path: Path, data: bytes | mmap.mmap, words: int, keep: bool = False) -> None:
        """`data` is the file's bytes; `words` the length the file must hold. With `keep`,
        every decoded block is kept (as a mapped file keeps its pages), for lookups spread
        over the whole array again and again; otherwise the last `CACHED_BLOCKS`."""
        self.path = path
        self.keep = keep
        self._data = data
        self._check_header(words)
        self._cache: OrderedDict[int, np.ndarray] = OrderedDict()

    @classmethod
    def open(cls, path: Path, words: int, keep: bool = False) -> PackedWords:
        """The packed file at `path` mapped for reading (StoreError naming it if it is not one)."""
        try:
            with path.open("rb") as handle:
                data = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        except (OSError, ValueError) as exc:
            raise StoreError(f"{path}: cannot be read ({exc})") from None
        return cls(path, data, words, keep)

    def _check_header(self, words: int) -> None:
        data = self._data
        if len(data) < HEADER.itemsize or bytes(data[:len(MAGIC)]) != MAGIC:
            raise StoreError(f"{self.path}: not a packed bit file")
        header = np.frombuffer(data, dtype=HEADER, count=1)[0]
        self.words, self.block = int(header["words"]), int(header["block"])
        self.codec = header["codec"].decode("ascii", "replace")
        if self.codec not in CODECS:
            raise StoreError(f"{self.path}: unknown codec {self.codec!r}")
        if self.words != words or self.block < 1:
            raise StoreError(f"{self.path}: holds {self.words} words, expected {words}")
        self.blocks = -(-self.words // self.block)
        index = HEADER.itemsize + 12 * self.blocks + 8
        if len(data) < index:
            raise StoreError(f"{self.path}: shorter than its block index")
        self._offsets = np.frombuffer(data, dtype="<u8", count=self.blocks + 1, offset=HEADER.itemsize)
        self._crcs = np.frombuffer(data, dtype="<u4", count=self.blocks,
                                   offset=HEADER.itemsize + 8 * (self.blocks + 1))
        ends = self._offsets
        if ends[0] != index or ends[-1] != len(data) or np.any(ends[1:] < ends[:-1]):
            raise StoreError(f"{self.path}: damaged block index")

    # -- array-like -----------------------------------------------------------------------

    @property
    def shape(self) -> tuple[int]:
        return (self.words,)

    def __len__(self) -> int:
        return self.words

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        out = np.empty(self.words, dtype="<u8")
        for i, block in enumerate(self.chunks()):
            out[i * self.block:(i + 1) * self.block] = block
        return out if dtype is None else out.astype(dtype)

    def __getitem__(self, key):
        if isinstance(key, slice):
            return self._slice(key)
        if isinstance(key, np.ndarray):
            return self._gather(key)
        index = int(key)
        if index < 0:
            index += self.words
        if not 0 <= index < self.words:
            raise IndexError(f"word {key} of {self.words}")
        return self._block(index // self.block)[index % self.block]

    def _slice(self, key: slice) -> np.ndarray:
        first, last, step = key.indices(self.words)
        if step != 1:
            raise IndexError("packed words are read in runs of step 1")
        parts = [self._block(i)[max(first - i * self.block, 0):last - i * self.block]
                 for i in range(first // self.block, -(-last // self.block))] if last > first else []
        return np.concatenate(parts) if parts else np.zeros(0, dtype="<u8")

    def _gather(self, indices: np.ndarray) -> np.ndarray:
        flat = indices.astype(np.int64).ravel()
        out = np.empty(flat.shape, dtype="<u8")
        if not flat.size:  # as an array answers: no indices, no words (a search's empty tier)
            return out.reshape(indices.shape)
        if flat.min() < 0 or flat.max() >= self.words:
            raise IndexError(f"word index out of range 0..{self.words - 1}")
        order = np.argsort(flat // self.block, kind="stable")
        blocks = flat[order] // self.block
        starts = np.flatnonzero(np.diff(blocks, prepend=-1))
        wanted = [int(i) for i in blocks[starts]]
        decoded = self._decode_all([i for i in wanted if i not in self._cache])
        if self.keep:
            self._cache.update(decoded)
        for i, lo, hi in zip(wanted, starts, [*starts[1:], flat.size], strict=True):
            where = order[lo:hi]
            block = decoded[i] if i in decoded else self._block(i)
            out[where] = block[flat[where] - i * self.block]
        return out.reshape(indices.shape)

    def count(self) -> int:
        """The number of set bits, a block at a time."""
        return sum(int(np.bitwise_count(block).sum()) for block in self.chunks())

    def chunks(self) -> Iterator[np.ndarray]:
        """Every block's words in order (decoded a few blocks ahead on every core, and kept
        as `keep` says)."""
        for first in range(0, self.blocks, 2 * WORKERS):
            batch = range(first, min(first + 2 * WORKERS, self.blocks))
            decoded = self._decode_all([i for i in batch if i not in self._cache])
            if self.keep:
                self._cache.update(decoded)
            for i in batch:
                yield decoded[i] if i in decoded else self._block(i)

    # -- blocks ---------------------------------------------------------------------------

    def _block(self, i: int) -> np.ndarray:
        """Block i, decoded (kept as `keep` says)."""
        if i in self._cache:
            self._cache.move_to_end(i)
        else:
            self._cache[i] = self.decode(i)
            if len(self._cache) > CACHED_BLOCKS and not self.keep:
                self._cache.popitem(last=False)
        return self._cache[i]

    def _decode_all(self, blocks: list[int]) -> dict[int, np.ndarray]:
        """The given blocks decoded, on `WORKERS` threads."""
        if len(blocks) < 2 or WORKERS < 2:
            return {i: self.decode(i) for i in blocks}
        return dict(zip(blocks, _pool().map(self.decode, blocks), strict=True))

    def decode(self, i: int) -> np.ndarray:
        """The words of block i, checked against its crc32 and its length."""
        lo, hi = int(self._offsets[i]), int(self._offsets[i + 1])
        data = memoryview(self._data)[lo:hi]
        expected = min(self.block, self.words - i * self.block)
        if zlib.crc32(data) != int(self._crcs[i]):
            raise StoreError(f"{self.path}: block {i} does not match its crc32 (damaged file)")
        try:
            out = CODECS[self.codec][1](data)
        except (ValueError, TypeError, ZstdError, lz4.block.LZ4BlockError) as exc:
            raise StoreError(f"{self.path}: block {i} cannot be decoded ({exc})") from None
        if len(out) != expected * 8:
            raise StoreError(f"{self.path}: block {i} holds {len(out)} bytes, expected {expected * 8}")
        return np.frombuffer(out, dtype="<u8")
