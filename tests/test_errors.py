"""Errors cross process boundaries whole: a worker's error reaches the caller with its type and
its one-line message (process pools and Dask send them pickled)."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from curator.common.errors import DamagedResults, FolderRefused, PuzzleError, SearchTooLarge, StoreError
from curator.export.pack import PackError

ERRORS = [
    PuzzleError("puzzles/a.toml", "board", "a connected set needs 130 moves"),
    PackError("pack.json", "levels", "not a list"),
    StoreError("out: damaged"),
    FolderRefused("out: another analysis is writing there", "use {force} to take it over"),
    DamagedResults("out/layer-3.bits: checksum", Path("out"), Path("out/puzzle.toml"), every_layer=True),
    SearchTooLarge("too many positions above layer 5", 7),
]


@pytest.mark.parametrize("error", ERRORS, ids=lambda e: type(e).__name__)
def test_an_error_survives_pickling_with_its_type_and_message(error):
    again = pickle.loads(pickle.dumps(error))
    assert type(again) is type(error) and str(again) == str(error)
    assert vars(again) == vars(error)
