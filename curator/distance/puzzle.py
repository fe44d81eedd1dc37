"""Permutation puzzles (rules family `permutation`) read from TOML into a PermutationPuzzle.

Piece sets are permuted and twisted by moves given as cycles of positions; a state's rank is,
set by set, permutation rank x orientation rank.
"""

from __future__ import annotations

import hashlib
import itertools
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from curator.common.errors import SelectionError
from curator.common.ranking import (
    orientation_count,
    rank_orientation,
    rank_permutation,
    unrank_orientation,
    unrank_permutation,
)
from curator.common.reading import (
    PuzzleFile,
    TableReader,
    puzzle_file,
    read_puzzle_file,
    rules_family,
    unknown,
)

FAMILY = "permutation"
METRICS = ("quarter", "half")
"""quarter: each listed move and its inverse; half: every power of each listed move."""
MAX_SET_PIECES = 20
MAX_ORIENTATIONS = 64
MAX_POSITIONS = 1 << 34
MAX_MOVES = 255
PLAIN_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,31}")
TOP_KEYS = {"name", "title", "rules", "pieces", "moves"}
RULES_KEYS = {"family", "metric"}
SET_KEYS = {"count", "orientations", "zero_sum", "solved", "layout", "stickers"}
STICKER_KEYS = {"positions", "fixed"}
CUBE_FACES = ("UD", "FB", "RL")
"""The faces of a cube, in pairs of opposite faces: up, down, front, back, right, left."""
MOVE_KEYS = {"cycles", "twists", "mover"}

SetState = tuple[tuple[int, ...], tuple[int, ...]]
"""(permutation, orientation) of one piece set: permutation[p] is the piece on position p
and orientation[p] that piece's twist."""
State = tuple[SetState, ...]


@dataclass(frozen=True)
class PieceSet:
    """Pieces 0..count-1 permuted among positions 0..count-1, each with `orientations` twists."""

    name: str
    count: int
    orientations: int
    zero_sum: bool
    """The twists always add up to a multiple of `orientations` (one twist is implied)."""
    solved: tuple[int, ...]
    layout: tuple[int, int] | None = None
    """(rows, cols) to draw the set's positions in, row by row; None: one row."""
    stickers: tuple[str, ...] | None = None
    """For the corners of a 2x2x2 cube: per position the faces its three stickers lie on
    (letters of U D F B R L), the up or down one first, then clockwise as seen from outside;
    a corner with twist t shows its k-th sticker (in the order of the position it belongs
    on) on face (k + t) mod 3 of the position it stands on. Pictures draw the cube's net."""
    fixed: tuple[str, ...] = ()
    """The faces of the cube's corners that never move (not in the state), as `stickers`."""

    @property
    def permutations(self) -> int:
        return math.factorial(self.count)

    @property
    def orientation_states(self) -> int:
        return orientation_count(self.count, self.orientations, self.zero_sum)


@dataclass(frozen=True)
class Case:
    """One way a move acts on a piece set.

    Afterwards position p holds the piece that stood on source[p], its twist increased by
    twist[p]. The case applies when the set's mover stands on `at`; `at` is -1 for a case
    that always applies.
    """

    at: int
    source: tuple[int, ...]
    twist: tuple[int, ...]


@dataclass(frozen=True)
class Effect:
    """What a move does to one piece set.

    Without a mover (-1) there is one case, which always applies. With a mover, the case whose
    `at` is the mover's position applies; when there is none the move is not legal.
    """

    mover: int
    cases: tuple[Case, ...]


@dataclass(frozen=True)
class Move:
    """A move as the tables count it (a power of a listed move, or a conditional move)."""

    name: str
    effects: tuple[Effect, ...]
    """One per piece set, in the order of the puzzle's sets."""


@dataclass(frozen=True)
class PermutationPuzzle:
    """A validated permutation puzzle: piece sets, the moves of its metric and its file text."""

    name: str
    title: str
    metric: str
    sets: tuple[PieceSet, ...]
    moves: tuple[Move, ...]
    text: str
    source: str

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.text.encode()).hexdigest()

    @property
    def size(self) -> int:
        """Number of ranks: the product over sets of permutations x orientation states."""
        return math.prod(s.permutations * s.orientation_states for s in self.sets)

    @property
    def solved_state(self) -> State:
        return tuple((s.solved, (0,) * s.count) for s in self.sets)

    def rank(self, state: State) -> int:
        """Rank of a state (ValueError if it is not one of this puzzle's states)."""
        if len(state) != len(self.sets):
            raise ValueError(f"expected {len(self.sets)} piece sets, got {len(state)}")
        rank = 0
        for s, (perm, ori) in zip(self.sets, state):
            if len(perm) != s.count or len(ori) != s.count:
                raise ValueError(f"{s.name}: expected {s.count} pieces")
            rank = rank * s.permutations + rank_permutation(perm)
            rank = rank * s.orientation_states + rank_orientation(ori, s.orientations, s.zero_sum)
        return rank

    def unrank(self, rank: int) -> State:
        """The state of a rank in 0..size-1 (inverse of `rank`)."""
        if not 0 <= rank < self.size:
            raise ValueError(f"rank {rank} out of range 0..{self.size - 1}")
        state = []
        for s in reversed(self.sets):
            rank, ori = divmod(rank, s.orientation_states)
            rank, perm = divmod(rank, s.permutations)
            state.append(
                (
                    unrank_permutation(perm, s.count),
                    unrank_orientation(ori, s.count, s.orientations, s.zero_sum),
                )
            )
        return tuple(reversed(state))

    @property
    def movers(self) -> tuple[int | None, ...]:
        """Per piece set, the piece whose place decides which moves apply (the 8-puzzle's
        blank: its `mover`), or None."""
        return tuple(next((m.effects[i].mover for m in self.moves if m.effects[i].mover >= 0), None)
                     for i in range(len(self.sets)))

    @property
    def move_names(self) -> list[str]:
        return [m.name for m in self.moves]

    def apply(self, state: State, name: str) -> State:
        """The state after the move called `name` (ValueError if there is none, or if it is
        not legal in `state`)."""
        move = next((m for m in self.moves if m.name == name), None)
        if move is None:
            raise ValueError(f"unknown move {name!r} (moves: {' '.join(self.move_names)})")
        out = []
        for s, effect, (perm, ori) in zip(self.sets, move.effects, state):
            case: Case | None
            if effect.mover < 0:
                case = effect.cases[0]
            else:
                case = next((c for c in effect.cases if perm[c.at] == effect.mover), None)
                if case is None:
                    raise ValueError(f"move {name} is not legal here")
            out.append(
                (
                    tuple(perm[q] for q in case.source),
                    tuple((ori[q] + t) % s.orientations for q, t in zip(case.source, case.twist)),
                )
            )
        return tuple(out)

    def parse(self, text: str, what: str = "state") -> State:
        """The state written as `state_text` writes it: "SET p0 p1 ... / o0 o1 ...; SET ..."
        (the orientations only for sets that have them); SelectionError naming `what` if it
        is not a state of this puzzle."""
        parts = {}
        for chunk in (c.strip() for c in text.split(";")):
            name, _, rest = chunk.partition(" ")
            perm, _, ori = rest.partition("/")
            if not name:
                raise SelectionError(f"{what}: a part between ';' names no piece set; give every piece set "
                                     "once, as 'SET p0 p1 ... / o0 o1 ...; SET ...'")
            if name in parts:
                raise SelectionError(f"{what}: {name} is given twice; give every piece set once")
            try:
                parts[name] = ([int(v) for v in perm.split()], [int(v) for v in ori.split()])
            except ValueError:
                raise SelectionError(f"{what}: {chunk!r} is not a set's name and whole numbers") from None
        names = [s.name for s in self.sets]
        if sorted(parts) != sorted(names):
            raise SelectionError(f"{what}: give every piece set once ({', '.join(names)}), as "
                                 "'SET p0 p1 ... / o0 o1 ...; SET ...'")
        state = tuple((tuple(parts[s.name][0]), tuple(parts[s.name][1] or [0] * s.count)) for s in self.sets)
        try:
            self.rank(state)
        except (ValueError, TypeError) as exc:
            raise SelectionError(f"{what}: not a state of {self.name} ({exc})") from None
        return state

    def describe(self, state: State) -> dict[str, dict[str, list[int]]]:
        """JSON form of a state: per set its permutation, and its orientation if it has one."""
        out = {}
        for s, (perm, ori) in zip(self.sets, state):
            out[s.name] = {"permutation": list(perm)}
            if s.orientations > 1:
                out[s.name]["orientation"] = list(ori)
        return out


def _is_corner(faces: str) -> bool:
    """Whether `faces` names a cube corner: one face of each pair of opposite faces, the up
    or down one first."""
    axes = [next((i for i, pair in enumerate(CUBE_FACES) if face in pair), -1) for face in faces]
    return len(faces) == 3 and axes[0] == 0 and sorted(axes) == [0, 1, 2]


def is_permutation_file(path: str | Path) -> bool:
    """Whether `path` is a TOML file whose [rules] family is `permutation`."""
    return rules_family(path) == FAMILY


def load_permutation_puzzle(path: str | Path) -> PermutationPuzzle:
    """Read and validate a permutation puzzle file."""
    return permutation_puzzle_from(read_puzzle_file(path))


def parse_permutation_puzzle(text: str, source: str = "<puzzle>") -> PermutationPuzzle:
    """Validate permutation-puzzle text; `source` names it in error messages."""
    return permutation_puzzle_from(puzzle_file(text, source))


def permutation_puzzle_from(file: PuzzleFile) -> PermutationPuzzle:
    """Validate a permutation puzzle file already read and decoded."""
    return _PermutationReader(file.source).puzzle(file.data, file.text)


class _PermutationReader(TableReader):
    """Reads a permutation puzzle's tables, naming the source and the key in every error."""

    def puzzle(self, data: dict, text: str) -> PermutationPuzzle:
        self.family(data, TOP_KEYS)
        self.only(data, TOP_KEYS, "")
        name = self.name(data)
        title = self.title(data, name)
        metric = self.rules(self.get(data, "rules", dict, ""))
        sets = self.piece_sets(self.get(data, "pieces", dict, ""))
        size = math.prod(s.permutations * s.orientation_states for s in sets)
        if size > MAX_POSITIONS:
            raise self.fail("pieces", f"{size:,} positions; at most {MAX_POSITIONS:,} are supported")
        table = self.get(data, "moves", dict, "")
        if not table:
            raise self.fail("moves", "names no moves")
        listed = [self.move(key, value, sets) for key, value in table.items()]
        moves = self.expand(listed, metric, sets)
        return PermutationPuzzle(name, title, metric, sets, moves, text, self.source)

    def rules(self, table: dict) -> str:
        self.only(table, RULES_KEYS, "rules")
        family = self.get(table, "family", str, "rules")
        if family != FAMILY:
            raise self.fail("rules.family", f"must be {FAMILY!r} in a permutation puzzle, got {family!r}")
        metric = self.get(table, "metric", str, "rules", "quarter")
        if metric not in METRICS:
            raise self.fail("rules.metric", f"unknown metric {metric!r} (known: {', '.join(METRICS)})")
        return metric

    # -- piece sets ------------------------------------------------------------------------

    def piece_sets(self, table: dict) -> tuple[PieceSet, ...]:
        if not table:
            raise self.fail("pieces", "names no piece sets")
        return tuple(self.piece_set(name, value) for name, value in table.items())

    def piece_set(self, name: str, value: Any) -> PieceSet:
        where = f"pieces.{name}"
        self.plain_name(name, where)
        if not isinstance(value, dict):
            raise self.fail(where, f"must be a table, got {value!r}")
        self.only(value, SET_KEYS, where)
        count = self.bounded(value, "count", where, 1, MAX_SET_PIECES)
        orientations = self.bounded(value, "orientations", where, 1, MAX_ORIENTATIONS, 1)
        zero_sum = self.get(value, "zero_sum", bool, where, False)
        if zero_sum and orientations == 1:
            raise self.fail(f"{where}.zero_sum", "needs orientations of 2 or more")
        solved = self.ints(self.get(value, "solved", list, where, list(range(count))), f"{where}.solved")
        if sorted(solved) != list(range(count)):
            raise self.fail(f"{where}.solved", f"must list each piece 0..{count - 1} once, got {solved}")
        layout = self.layout(value, f"{where}.layout", count)
        stickers, fixed = self.stickers(value, f"{where}.stickers", count, orientations)
        return PieceSet(name, count, orientations, zero_sum, tuple(solved), layout, stickers, fixed)

    def stickers(self, table: dict, key: str, count: int, orientations: int,
                 ) -> tuple[tuple[str, ...] | None, tuple[str, ...]]:
        """The corner stickers of a cube's set (see `PieceSet.stickers`): every position's
        faces and the fixed corners' together name the eight corners of a cube once each."""
        if "stickers" not in table:
            return None, ()
        value = table["stickers"]
        if not isinstance(value, dict):
            raise self.fail(key, f"must be a table with positions and fixed, got {value!r}")
        self.only(value, STICKER_KEYS, key)
        positions = self.get(value, "positions", list, key)
        fixed = self.get(value, "fixed", list, key, [])
        if orientations != 3:
            raise self.fail(key, "are for cube corners, whose pieces have orientations = 3")
        if len(positions) != count:
            raise self.fail(f"{key}.positions", f"must name {count} corners, one per position, "
                            f"got {len(positions)}")
        corners = [*positions, *fixed]
        for corner in corners:
            if not isinstance(corner, str) or not _is_corner(corner):
                raise self.fail(f"{key}.positions", f"{corner!r} is not a corner: three faces, one "
                                "of each of U/D, F/B and R/L, the up or down one first (e.g. URF)")
        if len(corners) != 8 or len({frozenset(c) for c in corners}) != 8:
            raise self.fail(key, "positions and fixed must name the cube's 8 corners once each")
        return tuple(positions), tuple(fixed)

    def layout(self, table: dict, key: str, count: int) -> tuple[int, int] | None:
        if "layout" not in table:
            return None
        value = table["layout"]
        if (
            not isinstance(value, list)
            or len(value) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 1 for v in value)
        ):
            raise self.fail(key, f"must be [rows, cols], two whole numbers of at least 1, got {value!r}")
        rows, cols = value
        if rows * cols < count:
            raise self.fail(key, f"{rows} x {cols} has fewer than the set's {count} positions")
        if max(rows, cols) > count:
            raise self.fail(key, f"{rows} x {cols}: neither may exceed the set's {count} positions")
        return rows, cols

    # -- moves -----------------------------------------------------------------------------

    def move(self, name: str, value: Any, sets: tuple[PieceSet, ...]) -> Move:
        where = f"moves.{name}"
        self.plain_name(name, where)
        if not isinstance(value, dict):
            raise self.fail(where, f"must be a table, got {value!r}")
        self.only(value, MOVE_KEYS, where)
        cycles = self.get(value, "cycles", dict, where)
        twists = self.get(value, "twists", dict, where, {})
        mover = self.get(value, "mover", dict, where, {})
        names = {s.name for s in sets}
        for key, part in (("cycles", cycles), ("twists", twists), ("mover", mover)):
            for set_name in part:
                if set_name not in names:
                    raise self.fail(f"{where}.{key}.{set_name}", unknown("piece set", set_name, names))
        if not cycles:
            raise self.fail(f"{where}.cycles", "names no piece set")
        for set_name in twists:
            if set_name not in cycles:
                raise self.fail(f"{where}.twists.{set_name}", "has no cycles to go with it")
        if len(mover) > 1:
            raise self.fail(f"{where}.mover", "names more than one piece set")
        if mover and len(cycles) > 1:
            raise self.fail(f"{where}.cycles", "a move with a mover acts on the mover's set only")
        effects = tuple(
            self.effect(where, s, cycles[s.name], twists.get(s.name), mover.get(s.name))
            if s.name in cycles
            else _identity(s.count)
            for s in sets
        )
        if all(e.mover < 0 and _is_identity(e.cases[0]) for e in effects):
            raise self.fail(where, "does not change any position")
        return Move(name, effects)

    def effect(self, where: str, s: PieceSet, cycles: Any, twists: Any, mover: Any) -> Effect:
        key = f"{where}.cycles.{s.name}"
        cycles = self.cycle_list(cycles, key, s.count)
        if mover is not None:
            if twists is not None:
                raise self.fail(f"{where}.twists.{s.name}", "a move with a mover cannot twist")
            return self.conditional(f"{where}.mover.{s.name}", key, s, cycles, mover)
        flat = [p for c in cycles for p in c]
        for p in flat:
            if flat.count(p) > 1:
                raise self.fail(key, f"position {p} appears more than once")
        if twists is None:
            twists = [[0] * len(c) for c in cycles]
        else:
            twists = self.twist_list(twists, f"{where}.twists.{s.name}", s, cycles)
        case = _case(-1, s.count, cycles, twists)
        if s.zero_sum and sum(case.twist) % s.orientations:
            raise self.fail(
                f"{where}.twists.{s.name}",
                f"add up to {sum(case.twist)}, not a multiple of {s.orientations} "
                f"(pieces.{s.name}.zero_sum)",
            )
        return Effect(-1, (case,))

    def conditional(self, key: str, cycles_key: str, s: PieceSet, cycles: list, mover: Any) -> Effect:
        if not isinstance(mover, int) or isinstance(mover, bool) or not 0 <= mover < s.count:
            raise self.fail(key, f"must be a piece 0..{s.count - 1}, got {mover!r}")
        if s.orientations > 1:
            raise self.fail(key, "a move with a mover needs a set without orientations")
        starts = [c[0] for c in cycles]
        for c in cycles:
            if len(c) < 2:
                raise self.fail(cycles_key, "each cycle starts where the mover stands and moves it "
                                "on, so it needs 2 or more positions")
            if len(set(c)) < len(c):
                raise self.fail(cycles_key, f"cycle {c} visits a position twice")
            if starts.count(c[0]) > 1:
                raise self.fail(cycles_key, f"more than one cycle starts at position {c[0]}")
        cases = tuple(_case(c[0], s.count, [c], [[0] * len(c)]) for c in cycles)
        return Effect(mover, cases)

    def expand(self, listed: list[Move], metric: str, sets: tuple[PieceSet, ...]) -> tuple[Move, ...]:
        """The moves of the metric, checked for unique names, count and inverses."""
        moves: list[Move] = []
        for move in listed:
            for generated in _powers(move, metric, sets):
                if any(m.name == generated.name for m in moves):
                    raise self.fail(f"moves.{move.name}", f"move name {generated.name!r} is used twice")
                moves.append(generated)
        if len(moves) > MAX_MOVES:
            raise self.fail("rules.metric", f"gives {len(moves)} moves; at most {MAX_MOVES} are supported")
        for move in moves:
            if not _undone(move, moves, sets):
                raise self.fail(f"moves.{move.name}", "no move undoes it; add the reverse move")
        return tuple(moves)

    # -- values ----------------------------------------------------------------------------

    def plain_name(self, name: str, where: str) -> None:
        if not PLAIN_NAME.fullmatch(name):
            raise self.fail(where, "names are letters, digits, '_' or '-', starting with a letter")

    def bounded(self, table: dict, key: str, where: str, lo: int, hi: int, default: Any = ...) -> int:
        value = self.get(table, key, int, where, default)
        if not lo <= value <= hi:
            raise self.fail(f"{where}.{key}", f"must be between {lo} and {hi}, got {value}")
        return value

    def ints(self, values: list, key: str) -> list[int]:
        for v in values:
            if not isinstance(v, int) or isinstance(v, bool):
                raise self.fail(key, f"must hold integers, got {v!r}")
        return values

    def cycle_list(self, value: Any, key: str, count: int) -> list[list[int]]:
        if not isinstance(value, list) or not value or not all(isinstance(c, list) and c for c in value):
            raise self.fail(key, f"must be a list of cycles such as [[0, 1, 2]], got {value!r}")
        for cycle in value:
            for p in self.ints(cycle, key):
                if not 0 <= p < count:
                    raise self.fail(key, f"position {p} out of range 0..{count - 1}")
        return value

    def twist_list(self, value: Any, key: str, s: PieceSet, cycles: list[list[int]]) -> list[list[int]]:
        if s.orientations == 1:
            raise self.fail(key, f"pieces.{s.name} has no orientations")
        shape = [len(c) for c in cycles]
        if not isinstance(value, list) or [len(t) if isinstance(t, list) else -1 for t in value] != shape:
            raise self.fail(key, f"must give one twist per cycle position (shape {cycles}), got {value!r}")
        for twist in value:
            for t in self.ints(twist, key):
                if not 0 <= t < s.orientations:
                    raise self.fail(key, f"twist {t} out of range 0..{s.orientations - 1}")
        return value


# ---------------------------------------------------------------------------------------
# Cases and their algebra
# ---------------------------------------------------------------------------------------


def _case(at: int, count: int, cycles: list[list[int]], twists: list[list[int]]) -> Case:
    """The case of cycles whose piece at cycle[j] moves on to cycle[j+1] with twists[j] added."""
    source = list(range(count))
    twist = [0] * count
    for cycle, added in zip(cycles, twists):
        for j, p in enumerate(cycle):
            target = cycle[(j + 1) % len(cycle)]
            source[target] = p
            twist[target] = added[j]
    return Case(at, tuple(source), tuple(twist))


def _identity(count: int) -> Effect:
    return Effect(-1, (Case(-1, tuple(range(count)), (0,) * count),))


def _is_identity(case: Case) -> bool:
    return case.source == tuple(range(len(case.source))) and not any(case.twist)


def _then(a: Case, b: Case, orientations: int) -> Case:
    """Case a followed by case b (both unconditional)."""
    source = tuple(a.source[q] for q in b.source)
    twist = tuple((a.twist[q] + t) % orientations for q, t in zip(b.source, b.twist))
    return Case(-1, source, twist)


def _inverse(case: Case, orientations: int) -> Case:
    """The case undoing `case`; its `at` is where the mover ends up."""
    source = [0] * len(case.source)
    twist = [0] * len(case.source)
    for p, q in enumerate(case.source):
        source[q] = p
        twist[q] = -case.twist[p] % orientations
    at = -1 if case.at < 0 else case.source.index(case.at)
    return Case(at, tuple(source), tuple(twist))


def _powers(move: Move, metric: str, sets: tuple[PieceSet, ...]) -> list[Move]:
    """The powers of a listed move the metric counts as one move, named U, U2, ..., U'.

    A move with a mover is taken as it is.
    """
    if any(e.mover >= 0 for e in move.effects):
        return [move]
    base = [e.cases[0] for e in move.effects]
    powers = [base]
    while not all(_is_identity(c) for c in powers[-1]):
        powers.append([_then(p, b, s.orientations) for p, b, s in zip(powers[-1], base, sets)])
    order = len(powers)
    wanted = range(1, order) if metric == "half" else sorted({1, order - 1})
    out = []
    for k in wanted:
        name = move.name if k == 1 else f"{move.name}'" if k == order - 1 else f"{move.name}{k}"
        out.append(Move(name, tuple(Effect(-1, (c,)) for c in powers[k - 1])))
    return out


def _undone(move: Move, moves: list[Move], sets: tuple[PieceSet, ...]) -> bool:
    """Whether every way `move` can apply is undone by some move of `moves`."""
    for combination in itertools.product(*(e.cases for e in move.effects)):
        wanted = [_inverse(c, s.orientations) for c, s in zip(combination, sets)]
        if not any(
            all(e.mover == f.mover and w in f.cases for w, e, f in zip(wanted, move.effects, m.effects))
            for m in moves
        ):
            return False
    return True


def state_text(state: dict[str, dict[str, list[int]]]) -> str:
    """A state in its JSON form as one line: "SET p0 p1 ... / o0 o1 ...; SET ..." (the
    orientations only for sets that have them)."""
    return "; ".join(
        f"{name} " + " ".join(map(str, part["permutation"]))
        + ("" if "orientation" not in part else " / " + " ".join(map(str, part["orientation"])))
        for name, part in state.items()
    )
