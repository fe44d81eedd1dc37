"""What packing does to a results folder: bytes and decode speed per layer, property and codec.

    python3 benchmarks/compression.py output/peg
    python3 benchmarks/compression.py output/peg --copy /tmp/peg-packed   # also write a copy
                                                                          # as analyze would

For every layer and property: the share of set bits, the raw bytes, and for each codec of
`curator.layered.packed` the packed bytes and the speed of decoding every block (GB/s of
raw bits, one thread). The totals compare raw files, each codec everywhere, and what
`curator analyze` writes (`curator.layered.store.encode`). With --copy, the folder's layers
are written again through `LayerStore.save` into a new folder.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from curator.layered.bits import PROPERTIES
from curator.layered.packed import CODECS, PackedWords, pack
from curator.layered.store import LayerStore, encode


def decode_speed(data: bytes, words: int) -> float:
    """GB/s of raw bits at which every block of a packed file decodes."""
    packed = PackedWords(Path("memory"), data, words)
    start = time.perf_counter()
    for i in range(packed.blocks):
        packed.decode(i)
    return words * 8 / max(time.perf_counter() - start, 1e-9) / 1e9


def measure(directory: Path) -> None:
    store = LayerStore.open(directory)
    totals = {"raw": 0, **{codec: 0 for codec in CODECS}, "chosen": 0}
    by_property = {prop: dict.fromkeys(totals, 0) for prop in PROPERTIES}
    print(f"{'layer':6} {'property':9} {'density':>8} {'raw MB':>9} "
          + " ".join(f"{codec + ' MB':>10} {'GB/s':>6}" for codec in CODECS) + "  chosen")
    for record in store.records():
        layer = record.layer
        bits = store.load(layer)
        for prop, words in bits.arrays().items():
            count = record.entry[prop]
            sizes = {"raw": words.nbytes}
            cells = []
            for codec in CODECS:
                data = pack(words, codec)
                sizes[codec] = len(data)
                cells.append(f"{len(data) / 1e6:10.3f} {decode_speed(data, layer.words):6.2f}")
            chosen, data = encode(words, count, layer.size)
            sizes["chosen"] = len(data)
            for name, size in sizes.items():
                totals[name] += size
                by_property[prop][name] += size
            print(f"{layer.key:6} {prop:9} {count / layer.size:8.5f} {words.nbytes / 1e6:9.3f} "
                  + " ".join(cells) + f"  {chosen}", flush=True)
    for prop, sums in by_property.items():
        print(f"total {prop:9}: " + ", ".join(f"{name} {size / 1e6:,.1f} MB" for name, size in sums.items()))
    print("total all      : " + ", ".join(f"{name} {size / 1e6:,.1f} MB" for name, size in totals.items()))


def copy(directory: Path, target: Path) -> None:
    """Write `directory`'s layers again, as `curator analyze` would, into `target`."""
    source = LayerStore.open(directory)
    puzzle = source.puzzle()
    max_pieces = source.manifest["max_pieces"]
    out = LayerStore.for_puzzle(target, puzzle, max_pieces, force=False)
    start = time.perf_counter()
    for record in source.records():
        out.save(source.load(record.layer), record.seconds, puzzle, max_pieces)
    print(f"copied {len(source.records())} layers to {target} in {time.perf_counter() - start:.1f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", type=Path)
    parser.add_argument("--copy", type=Path, help="also write the layers again into this folder")
    parser.add_argument("--no-measure", action="store_true", help="only write the copy")
    args = parser.parse_args()
    if not args.no_measure:
        measure(args.directory)
    if args.copy:
        copy(args.directory, args.copy)


if __name__ == "__main__":
    main()
