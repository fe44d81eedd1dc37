"""Moving some bits of a word onto other places, in order: `gather(x, source, target)`.

The bits of `x` at the set bits of `source`, lowest first, are put at the set bits of
`target`, lowest first (`source` and `target` have as many set bits); every other bit of the
result is 0. The split-rank sweep kernel uses it to move the bits of a run of child
positions onto the parent positions they are children of (see `SplitMoves`).

Two compiled versions do the same: `gather_bmi2`, two instructions (PEXT, PDEP) on x86
processors with BMI2, and `gather_bytes`, a byte at a time through two 64 KiB tables, for
every other processor. `fast_gather` picks the one for the processor numba compiles for.
"""

from __future__ import annotations

import numba
import numpy as np
from llvmlite import binding as llvm
from llvmlite import ir
from numba import types
from numba.core import codegen
from numba.extending import intrinsic


def _bmi2(name: str):
    """A compiled-code-only function calling the BMI2 instruction `name` on two uint64."""

    @intrinsic
    def call(typingctx, value, mask):
        if value != types.uint64 or mask != types.uint64:
            return None

        def generate(context, builder, signature, args):
            word = ir.IntType(64)
            function = builder.module.declare_intrinsic(name, fnty=ir.FunctionType(word, [word, word]))
            return builder.call(function, args)

        return types.uint64(types.uint64, types.uint64), generate

    return call


pext = _bmi2("llvm.x86.bmi.pext.64")
"""The bits of `value` at the set bits of `mask`, packed into the lowest bits (BMI2 only)."""
pdep = _bmi2("llvm.x86.bmi.pdep.64")
"""The lowest bits of `value` spread onto the set bits of `mask` (BMI2 only)."""


@numba.njit(cache=True, inline="always")
def gather_bmi2(x, source, target):
    return pdep(pext(x, source), target)


def _byte_tables() -> tuple[np.ndarray, np.ndarray]:
    """PACK[m << 8 | x] = pext(x, m) and SPREAD[m << 8 | x] = pdep(x, m) for bytes m and x."""
    m = np.arange(256, dtype=np.uint16)[:, None]
    x = np.arange(256, dtype=np.uint16)[None, :]
    pack = np.zeros((256, 256), dtype=np.uint16)
    spread = np.zeros((256, 256), dtype=np.uint16)
    below = np.zeros_like(m)  # set bits of m below bit i: where bit i of x is packed
    for i in range(8):
        place = (m >> i) & 1
        pack |= ((x >> i) & 1 & place) << below
        spread |= ((x >> below) & 1 & place) << i
        below += place
    return pack.astype(np.uint8).ravel(), spread.astype(np.uint8).ravel()


PACK, SPREAD = _byte_tables()
ONES_IN_BYTE = np.array([bin(v).count("1") for v in range(256)], dtype=np.int64)


@numba.njit(cache=True, inline="always")
def gather_bytes(x, source, target):
    byte = np.uint64(255)
    eight = np.uint64(8)
    packed = np.uint64(0)
    filled = np.uint64(0)  # bits of `packed` taken so far
    while source:
        m = source & byte
        packed |= np.uint64(PACK[(m << eight) | (x & byte)]) << filled
        filled += np.uint64(ONES_IN_BYTE[m])
        source >>= eight
        x >>= eight
    out = np.uint64(0)
    shift = np.uint64(0)
    while target:
        m = target & byte
        out |= np.uint64(SPREAD[(m << eight) | (packed & byte)]) << shift
        packed >>= np.uint64(ONES_IN_BYTE[m])
        target >>= eight
        shift += eight
    return out


SLOW_BMI2 = ("znver1", "znver2")
"""Processors with BMI2 whose PEXT and PDEP are microcoded, slower than the byte tables."""


def fast_gather():
    """`gather_bmi2` when numba compiles for an x86 processor with fast BMI2 instructions,
    else `gather_bytes`."""
    features = numba.config.CPU_FEATURES
    if features is None:
        features = codegen.get_host_cpu_features()
    name = numba.config.CPU_NAME
    if name in (None, "host"):
        name = llvm.get_host_cpu_name()
    if "+bmi2" in features.split(",") and name not in SLOW_BMI2:
        return gather_bmi2
    return gather_bytes
