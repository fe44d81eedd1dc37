"""The contract every rule family keeps: the `Rules` base class (a guide: docs/rules.md).

Two kinds of families exist. Families of identical pieces (`typed = False`) see a position
as a uint64 occupancy mask and compile

    children(mask, tables, out_masks, out_moves) -> count

Families of typed pieces (`typed = True`) see a position as its occupancy mask plus an int8
array with one entry per cell (0 empty, t = piece type t, 1-based) and compile

    children(mask, board, tables, out_masks, out_boards, out_removed, out_moves) -> count

where out_removed[j] is the type (1-based) of the piece the j-th move removed. Every move
removes exactly one piece. out_moves[j] encodes the move as from_cell * 256 + to_cell.

On boards of more than 64 cells (`Rules.mask_words` > 1) a mask is a (mask_words,) uint64
array instead, out_masks a (MAX_CHILDREN, mask_words) array, and the arrays of `tables` that
hold masks have a last axis of mask_words words (`Rules.mask_array`); a family that handles
this sets `wide = True` and returns the multi-word `children` for such boards. Wide boards
run on the general kernels only.

A family names the sweep kernel it runs on (`sweep_kernel`): the general ones, "masks"
(one kind of piece) and "boards" (typed pieces), only call `children`; the fast ones read a
description the family gives, `mask_moves` for "patterns" (moves are fixed cell patterns),
`line_segments` for "lines" (moves stay on one row or column) and `captures` for "captures"
(every move is a capture). `children` stays the reference the fast kernels are tested
against.

A family also says how positions relate to each other: `symmetries` (board symmetries the
rules respect) and `translation_margin` (whether moving every piece by one vector gives an
equivalent position, and how much of the board around the pieces has to look the same).

What a family must give, and what it may:

- required: the class attributes `family` (and `typed`, `sweep_kernel`, `params` where the
  defaults do not fit), and the methods `tables` and `children`;
- optional checks: `check` (family-specific validation of the board, pieces and parameters);
- optional fast paths, each only read by the sweep kernel of its name: `mask_moves`
  ("patterns"), `line_segments` ("lines"), `captures` ("captures");
- optional knowledge of equivalent positions: `keeps` (or `symmetries`) and
  `translation_margin`, which only make `select --canonical` and class sizes finer;
- optional: `player`, the player model (`curator.common.difficulty.Player`) that rates the
  family's levels until a puzzle is calibrated, fitted on graded levels of the family (the
  defaults fitted on the shipped Fling! levels where it is None);
- provided: `from_params` (how puzzle files build the rules) and `moves_from` (moves in
  Python, for the search's answers, metrics, pictures and the workspace).

The compiled functions (`children`, `captures`' reach) must be module-level
`@numba.njit(cache=True)` functions: kernels bind them by name and cache one copy per
family (see `curator.common.kernels`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any, ClassVar, Self

import numba
import numpy as np

from curator.common.board import Board, Transform
from curator.common.difficulty import Player
from curator.common.ranking import WORD_CELLS, from_words, highest_bit, lowest_bit, mask_words, to_words
from curator.common.reading import KIND_NAMES, unknown

MAX_CHILDREN = 512
"""Upper bound on the number of moves from one position, for the kernels' buffers."""

Tables = tuple[np.ndarray, ...]
"""The arrays a family's compiled functions read (`Rules.tables`), passed as one tuple."""
MaskChildren = Callable[[np.uint64, Tables, np.ndarray, np.ndarray], int]
"""`children` of a family of identical pieces: (mask, tables, out_masks, out_moves) -> count."""
BoardChildren = Callable[[np.uint64, np.ndarray, Tables, np.ndarray, np.ndarray, np.ndarray, np.ndarray], int]
"""`children` of a typed family: (mask, board, tables, out_masks, out_boards, out_removed,
out_moves) -> count."""
Reach = Callable[[np.uint64, Tables, np.ndarray], None]
"""`reach` of a family on the "captures" kernel: (mask, tables, out) fills out[c, t]."""


SWEEP_KERNELS = {"masks": False, "patterns": False, "lines": False, "boards": True, "captures": True}
"""The sweep kernels a family may run on (`Rules.sweep_kernel`), and whether each takes typed
pieces; `curator.layered.sweep` implements one per name."""


class ParamError(ValueError):
    """A rule parameter is wrong; `key` names it (relative to the [rules] table)."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(message)
        self.key = key


@numba.njit(cache=True, inline="always")
def nearest_cell(cells: np.uint64, forward: bool) -> np.int64:
    """The first of `cells` met along a line: cells are numbered row by row, so it is the
    lowest one when the line goes up the numbering (right, down) and the highest otherwise."""
    return lowest_bit(cells) if forward else highest_bit(cells)


@numba.njit(cache=True, inline="always")
def encode_move(src: int, dst: int) -> int:
    """Pack a move's source and destination cells into one integer (also inside kernels).

    >>> encode_move(3, 5)
    773
    """
    return src * 256 + dst


def decode_move(code: int) -> tuple[int, int]:
    """Inverse of `encode_move`: (from_cell, to_cell).

    >>> decode_move(773)
    (3, 5)
    """
    return divmod(int(code), 256)


class Rules(ABC):
    """One rule family bound to a board and its parameters.

    A subclass sets `family` and implements `tables` and `children`; everything else has a
    default (see the module docstring for which methods are optional fast paths). Puzzle
    files build it through `from_params`; the sweep, the search and everything else only
    use the methods below.
    """

    family: ClassVar[str]
    """The name puzzle files give in `[rules] family` (and a plug-in's entry point)."""
    typed: ClassVar[bool] = False
    """Whether its puzzles have typed pieces (a [pieces] table; the typed `children`)."""
    sweep_kernel: ClassVar[str] = "masks"
    """The sweep kernel this family runs on (see `SWEEP_KERNELS`): "masks" or
    "boards" (the general ones, for untyped and typed families: the default by `typed`), or
    a fast path the family describes ("patterns", "lines", "captures")."""
    _kernel_by_typed: ClassVar[bool] = False
    """Whether `sweep_kernel` was set from `typed` (`__init_subclass__`), not named."""
    params: ClassVar[dict[str, type]] = {}
    """Parameter names the family accepts in [rules], with their types (bool, int, float, str)."""
    wide: ClassVar[bool] = False
    """Whether `children` and `tables` handle multi-word masks, so that the family plays on
    boards of more than 64 cells (see the module docstring)."""
    player: ClassVar[Player | None] = None
    """The player model that rates the family's levels until a puzzle is calibrated, fitted
    on graded levels of the family; None: the defaults fitted on the shipped Fling! levels."""

    board: Board
    """The board the rules are bound to."""
    piece_types: tuple[str, ...]
    """The piece letters in [pieces] order (type t is letter t - 1), or ("o",) if untyped."""
    options: dict[str, Any]
    """The [rules] parameters given (less `family`), as checked by `from_params`."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """A family that names no sweep kernel (nor does a parent) runs on the general one of
        its `typed`: "boards" or "masks"."""
        super().__init_subclass__(**kwargs)
        named = any("sweep_kernel" in vars(c) and not vars(c).get("_kernel_by_typed")
                    for c in cls.__mro__ if c is not Rules)
        if not named and isinstance(cls.typed, bool):
            cls.sweep_kernel = "boards" if cls.typed else "masks"
            cls._kernel_by_typed = True

    def __init__(self, board: Board, piece_types: tuple[str, ...], **params: Any) -> None:
        self.board = board
        self.piece_types = piece_types
        self.options = params
        self.mask_words = mask_words(board.size)
        """uint64 words per mask: 1 up to 64 cells, decided once from the board."""

    @classmethod
    def from_params(cls, board: Board, piece_types: tuple[str, ...], params: dict[str, Any]) -> Self:
        """Validate the [rules] parameters (less `family`) against `params` and `check`,
        and build the rules; ParamError naming the parameter if one is wrong."""
        for key, value in params.items():
            if key not in cls.params:
                raise ParamError(key, unknown(f"parameter for family {cls.family!r}", key, cls.params))
            expected = cls.params[key]
            if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
                named = KIND_NAMES.get(expected, f"a {expected.__name__}")
                raise ParamError(key, f"must be {named}, got {value!r}")
        if board.size > WORD_CELLS and not cls.wide:
            raise ParamError("family", f"family {cls.family!r} plays on at most {WORD_CELLS} cells "
                                       f"(its moves use one-word masks); the board has {board.size}")
        cls.check(board, piece_types, params)
        return cls(board, piece_types, **params)

    def mask_array(self, masks: Any) -> np.ndarray:
        """Masks given as Python ints (any nesting of lists or an object array) as a uint64
        array for `tables`: of the same shape on one-word boards, with a last axis of
        `mask_words` words on wider ones."""
        values = np.asarray(masks, dtype=object)
        if self.mask_words == 1:
            return values.astype(np.uint64)
        out = np.zeros((*values.shape, self.mask_words), dtype=np.uint64)
        for at, value in np.ndenumerate(values):
            out[at] = to_words(int(value), self.mask_words)
        return out

    @classmethod
    def check(cls, board: Board, piece_types: tuple[str, ...], params: dict[str, Any]) -> None:
        """Optional: family-specific validation of the board, the piece letters and the
        parameters (whose names and types are already checked); raise ParamError, with key
        "family" for a board or pieces the family does not play on. Default: accept."""

    @abstractmethod
    def tables(self) -> Tables:
        """Required: the arrays `children` reads, in the order it expects them (numpy
        arrays only: they are passed to compiled code as one tuple)."""

    @property
    @abstractmethod
    def children(self) -> MaskChildren | BoardChildren:
        """Required: the compiled move generator, a module-level `@numba.njit(cache=True)`
        function with the signature of `MaskChildren` (untyped) or `BoardChildren` (typed);
        see the module docstring. It writes at most MAX_CHILDREN moves."""

    def moves_from(self, position: tuple[int, ...], tables: Tables | None = None
                   ) -> list[tuple[tuple[int, int], tuple[int, ...]]]:
        """((from_cell, to_cell), resulting position) of every legal move, in Python.

        `position` has one entry per cell (0 empty, t = piece type t); `tables` may be
        passed to save rebuilding them on every call.
        """
        tables = self.tables() if tables is None else tables
        count, masks, boards, _, moves = self.generated(position, tables)
        n = len(position)
        if boards is not None:
            kids = [tuple(int(v) for v in boards[j]) for j in range(count)]
        else:
            ints = [int(masks[j]) if self.mask_words == 1 else from_words(masks[j]) for j in range(count)]
            kids = [tuple((m >> i) & 1 for i in range(n)) for m in ints]
        return [(decode_move(moves[j]), kids[j]) for j in range(count)]

    def generated(self, position: tuple[int, ...], tables: Tables, room: int = MAX_CHILDREN
                  ) -> tuple[Any, np.ndarray, np.ndarray | None, np.ndarray | None, np.ndarray]:
        """`children` called on `position` (one entry per cell) as it is, unchecked, with
        buffers of `room` moves, each entry -1 (every bit set) until written: what it returned
        (the move count), and its out_masks, out_boards and out_removed (None if untyped) and
        out_moves."""
        generate: Callable[..., Any] = self.children  # MaskChildren or BoardChildren, by `typed`
        moves = np.full(room, -1, dtype=np.int64)
        value = sum(1 << i for i, v in enumerate(position) if v)
        mask: np.uint64 | np.ndarray
        masks = np.full((room, self.mask_words), np.iinfo(np.uint64).max, dtype=np.uint64)
        if self.mask_words == 1:
            masks = masks[:, 0]
            mask = np.uint64(value)
        else:
            mask = to_words(value, self.mask_words)
        if not self.typed:
            return generate(mask, tables, masks, moves), masks, None, None, moves
        boards = np.full((room, len(position)), -1, dtype=np.int8)
        removed = np.full(room, -1, dtype=np.int64)
        count = generate(mask, np.array(position, dtype=np.int8), tables, masks, boards, removed, moves)
        return count, masks, boards, removed, moves

    def mask_moves(self) -> list[tuple[int, int]]:
        """Optional fast path, for families on the "patterns" kernel, whose every move is a
        fixed pattern: (cells that must be occupied, cells that must be empty) per move, the
        move flipping all of them. The sweep then ranks children from per-block tables
        instead of generating them."""
        raise NotImplementedError(f"family {self.family!r} does not describe its moves as patterns")

    def line_segments(self) -> list[int]:
        """Optional fast path, for families on the "lines" kernel, whose every move changes
        the cells of one segment only, as the segment's occupancy alone decides: the
        segments' cell masks. The sweep then looks a position's moves up per segment instead
        of generating them."""
        raise NotImplementedError(f"family {self.family!r} does not describe its moves by lines")

    def captures(self) -> tuple[Reach, np.ndarray]:
        """Optional fast path, for typed families on the "captures" kernel, whose every move
        is a capture (a piece moves onto an occupied cell and the piece there is removed):
        the compiled

            reach(mask, tables, out)

        which sets out[c, t], for every occupied cell c and type t >= 1, to the mask of the
        cells a piece of type t standing on c may capture on in this occupancy; and a bool
        array, indexed by type, of the types that may be captured.

        The sweep then works out each mask's geometry once for all its type orderings and
        ranks children from the parent's ordering instead of building their boards."""
        raise NotImplementedError(f"family {self.family!r} does not describe its moves as captures")

    def keeps(self, transform: Transform) -> bool:
        """Optional: whether the rules look the same after a board symmetry, given as a map
        of (row, col) steps (default: always; pawns moving up the board say no to flips)."""
        return True

    def symmetries(self) -> list[tuple[int, ...]]:
        """Cell permutations (identity first) that map every position to an equivalent one:
        the board's symmetries that `keeps` accepts."""
        return self.board.symmetries(self.keeps)

    def translation_margin(self, pieces: int, goal_pieces: int) -> int | None:
        """Optional: how far around its pieces the board decides the game from a position of
        `pieces` pieces played down to `goal_pieces`, or None if moving the pieces changes
        the game.

        With a margin m, moving every piece of a position by one vector gives an equivalent
        position (the same moves, moved by the vector, and so the same game all the way to
        the goal) whenever `Board.alike(pieces' cells, vector, m)`: the board looks the same
        within m steps of the pieces' box. That must hold for the positions the moves lead
        to as well, which the family's margin accounts for. The goal must not name cells
        (`Puzzle.translation_margin` checks that). Default: None.
        """
        return None
