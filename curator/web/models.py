"""The shapes of the workspace's JSON API, as pydantic models.

FastAPI checks requests against them and documents every endpoint with them in the app's
OpenAPI document (`/openapi.json`), so a game's own tools can call the API as the page does.
"""

from __future__ import annotations

from enum import Enum
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StrictBool, StrictInt
from pydantic_core import PydanticCustomError

from curator import catalogue
from curator.arrange import CURVES
from curator.common.ranking import MAX_CELLS

Cell = tuple[StrictInt, StrictInt]
"""A board cell as [row, col] (see docs/level-pack.md)."""
MAX_PACK = 200
"""Most levels one pack request takes."""
MAX_LEVELS = 200
"""Most levels one selection computes metrics for."""
MAX_POOL = 5_000
"""Most candidate levels one arrangement rates (as many as `curator pack` rates by default);
a request also stops at the app's time limit."""
POOL = 1_000
"""Candidate levels an arrangement rates unless told otherwise (a request of a few seconds)."""
MAX_SEED = 2**63 - 1
MAX_DRAWING = 1_000
"""Most characters of a board drawing (a 256-cell board inside its walls takes far fewer)."""

CurveName = Enum("CurveName", {name: name for name in CURVES}, type=str)  # type: ignore[misc]
"""A named curve of `curator.arrange.CURVES` (the workspace takes no curve files)."""
KindName = Enum("KindName", {kind.name: kind.name for kind in catalogue.kinds()}, type=str)  # type: ignore[misc]
"""The kinds of results of the catalogue, built-in and installed."""
Finite = Annotated[float, Field(allow_inf_nan=False, strict=True)]


def _digits(value: Any) -> Any:
    """A whole number written in a URL: the digits 0-9, with a sign at most (Python's int()
    also reads '1_6' as 16, and digits of other scripts)."""
    if isinstance(value, str) and not (value.isascii() and value.removeprefix("-").isdigit()):
        raise PydanticCustomError("int_parsing", "Input should be a whole number written with the digits 0-9")
    return value


Whole = Annotated[int, BeforeValidator(_digits)]
"""A whole number of a path or a query: only the digits 0-9."""


class Request(BaseModel):
    """A request body: a key it does not know is refused by name (a misspelt field would
    otherwise fall back to its default without a word)."""

    model_config = ConfigDict(extra="forbid")


class Problem(BaseModel):
    """Every error: one line saying what is wrong."""

    detail: str


class Folder(BaseModel):
    """A results folder given on the command line, addressed by its `id`."""

    id: int
    name: str
    """The folder's name (made unique with a suffix when two share one)."""
    kind: KindName  # type: ignore[valid-type]
    """The kind of results (the catalogue's): layered results (levels to select and play), a
    permutation puzzle's distance table, or goal tables of a sliding-block puzzle or a
    Sokoban room (levels under `/api/folders/{id}/sliding/`)."""
    held: str
    """What the folder holds, in words ("sliding-block tables")."""
    workspace: str | None
    """How the page plays its levels: "pieces" (click a piece, then where it goes), "blocks"
    (every legal move listed with the distance it leads to; arrow keys too), "universe"
    (puzzles listed per connected set under `/api/folders/{id}/universe/`, played as blocks
    are, distances measured on the set), or null: tables only."""
    puzzle: str
    title: str


class LayerRow(BaseModel):
    """One row of a folder's layer table (the figures of `curator info`)."""

    positions: int
    pieces: int | None = None
    """Pieces of the layer's positions (layered results)."""
    distance: int | None = None
    """Distance from the solved state (distance tables), or to the goal (goal tables)."""
    solvable: int | None = None
    unique: int | None = None
    all_moves: int | None = None
    seconds: float | None = None
    counts: dict[str, int] | None = None
    """Pieces per type (puzzles with several piece types)."""
    puzzles: int | None = None
    """Universe tables: puzzles (connected sets) whose farthest position lies at `distance`."""
    minimal: int | None = None
    """Universe tables: how many of those puzzles are minimal."""


class BoardShape(BaseModel):
    """What a client needs to address cells: the cells in order and the piece types."""

    grid: str
    cells: list[Cell]
    """Every cell as [row, col]; a position has one entry per cell in this order."""
    piece_types: list[str]
    """Entry t of a position (1-based) is a piece of type piece_types[t - 1]; 0 is empty."""
    family: str
    goal_pieces: int


class SlidingFigures(BaseModel):
    """The counts of a folder of goal tables (what `curator info` shows); null while the
    analysis is not finished."""

    ranks: int | None
    """Ranks of the tables: placements of the pieces group by group, some overlapping."""
    invalid: int | None
    """Ranks that are not positions (pieces overlap or leave the board)."""
    positions: int | None
    solvable: int | None
    unsolvable: int | None
    max_distance: int | None
    clusters: int | None
    """Connected sets: positions joined by moves, in either direction."""
    largest_cluster: int | None


class BlockPiece(BaseModel):
    """A kind of piece of a puzzle with goal tables, named by the letter (or XSB sign) that
    draws it."""

    letter: str
    cells: list[Cell]
    """Its shape: cells relative to its anchor, its first cell in row-major order."""
    count: int
    """The most pieces a position holds."""
    fewest: int | None = None
    """When the file gives the count as a range ("0..3"): the fewest; else None."""
    along: Literal["any", "row", "column"]
    """The line a piece keeps, if any."""


class BlockBoard(BaseModel):
    """What a client needs to draw and play a puzzle with goal tables: the board's box and
    cells, the pieces, the goal, the move rule and metric, and the file's start if it draws
    one."""

    rows: int
    cols: int
    cells: list[Cell]
    """The cells of the board in order (`data-cell` of a picture is an index into this list);
    the rest of the rows x cols box is wall."""
    pieces: list[BlockPiece]
    goal_piece: str | None
    """The letter of the piece to bring to `goal_cells`; null if the goal only drops pieces out."""
    goal_cells: list[Cell]
    exits: list[Cell] = []
    """Tilt moves: the cells pieces drop out through."""
    out: list[str] = []
    """Tilt moves: the letters whose pieces must all drop out."""
    keep: list[str] = []
    """Tilt moves: the letters whose pieces must never drop out."""
    move: str
    metric: str
    edge: Literal["stops", "falls"]
    """Under `until_blocked` moves, whether a piece that nothing stops stops at the edge or
    cannot slide that way (it would fly off the board); "stops" for other moves."""
    rules: str
    """The move rule in a few words, as `curator info` titles it."""
    start: str | None
    """The file's start, rows joined by '/' (as a drawing is posted to `sliding/position`)."""


class PieceSetShape(BaseModel):
    """A piece set of a permutation puzzle as the editor edits it."""

    name: str
    count: int
    """Pieces and positions 0..count-1 (a picture's `data-cell` numbers the positions of all
    sets in turn)."""
    orientations: int
    """Twists a piece may have (1: none)."""
    zero_sum: bool
    """The twists add up to a multiple of `orientations`: a twist edit turns one piece forward
    and another back."""
    layout: list[int] | None
    """[rows, cols] the positions are drawn in, row by row; null: one row."""
    mover: int | None
    """The piece whose place decides the moves (the 8-puzzle's blank), drawn as an empty tile."""
    stickers: bool
    """Pictures draw the cube's net of these corners too."""


class StatesShape(BaseModel):
    """What the editor needs of a permutation puzzle: its piece sets, its moves and the solved
    state, written as a state is posted ('SET p0 p1 ... / o0 o1 ...; SET ...')."""

    sets: list[PieceSetShape]
    moves: list[str]
    metric: str
    solved: str
    wants: list[str]
    """The variants it lists (`want` of `variants`): a distance table knows no unique solutions."""


class UniverseVehicle(BaseModel):
    """A kind of vehicle of a universe, named by its letter."""

    letter: str
    cells: list[Cell]
    """Its shape: cells from its first cell, along its line."""
    along: Literal["row", "column"]
    fewest: int
    most: int
    """How many of them a position holds, at least and at most."""


class UniverseFigures(BaseModel):
    """The totals of universe tables (what `curator info` says under its table)."""

    sets: int
    """Connected sets: each is one puzzle, its farthest position."""
    positions: int
    solvable_sets: int
    solvable_positions: int
    minimal: int
    farthest: int
    """The largest distance of a set (-1 if none can be solved)."""


class UniverseBoard(BaseModel):
    """What a client needs to draw and play a universe's positions: the board's size and
    cells, the kinds of vehicles, the goal and the walls, and the tables' totals."""

    rows: int
    cols: int
    cells: list[Cell]
    """Every cell in row-major order (`data-cell` of a picture is an index into this list)."""
    vehicles: list[UniverseVehicle]
    goal_piece: str
    goal_cells: list[Cell]
    walls: list[int]
    """The fewest and the most single-cell walls (drawn 'x')."""
    open_lines: bool
    """No row is filled by its horizontal vehicles and walls, no column by its vertical ones."""
    rules: str
    """The universe in a line, as `curator info` titles it."""
    figures: UniverseFigures


class FolderDetail(Folder):
    """A folder with its table (layers, or positions per distance), the board for layered
    results, the counts and board of goal tables, and the piece sets of a distance table."""

    complete: bool
    layers: list[LayerRow]
    board: BoardShape | None = None
    figures: SlidingFigures | None = None
    blocks: BlockBoard | None = None
    states: StatesShape | None = None
    universe: UniverseBoard | None = None


class Move(BaseModel):
    """A move from one cell to another."""

    model_config = ConfigDict(populate_by_name=True, extra="forbid")

    from_: Cell = Field(alias="from")
    to: Cell


class LevelOut(BaseModel):
    """A level as `curator select --json` prints it, with its position."""

    layer: str
    rank: int
    pieces: int
    position: list[int]
    """One entry per cell (see `BoardShape`)."""
    board: list[str]
    solvable: bool
    unique: bool
    all_moves: bool
    solutions: int
    legal_moves: int
    safe_moves: int
    difficulty: float | None
    difficulty_terms: str
    """What the difficulty is made of, in one line ("12 moves; 3 tempting dead ends ...")."""
    win_chance: float | None
    mistake_depth: float | None
    mistake_depth_max: int | None
    decisions: int | None
    forced: int | None
    information: float | None
    search: float | None
    class_size: int
    solution: list[Move]


class Selection(BaseModel):
    """The levels a selection returns and how many positions matched its filters."""

    puzzle: str
    matched: int | None
    levels: list[LevelOut]


class PositionIn(Request):
    """A position: one entry per cell (0 empty, t = piece type t)."""

    position: list[StrictInt] = Field(max_length=MAX_CELLS)


class MoveIn(PositionIn):
    """A position and a move to play from it."""

    move: Move


class LegalMove(Move):
    """A legal move and whether the position it leads to is still solvable."""

    safe: bool


class PositionReport(BaseModel):
    """Where a position stands for a player, and what each legal move does."""

    position: list[int]
    pieces: int
    goal: bool
    """A goal position: the level is solved."""
    solvable: bool
    unique: bool
    all_moves: bool
    source: Literal["stored", "search"]
    """Whether the answer comes from the stored bits or from a search."""
    moves: list[LegalMove]
    picture: str
    """The position as SVG markup; tiles, holes and pieces carry data-cell attributes."""


class Arranged(LevelOut):
    """A level of an arranged pack and the difficulty its slot aimed at."""

    target: float


class Arrangement(BaseModel):
    """An arranged pack: its levels in order, the curve they follow and how many candidate
    levels they were chosen from."""

    puzzle: str
    curve: CurveName
    pool: int
    levels: list[Arranged]


class CurveIn(Request):
    """The curve an arranged pack follows, to record in its download: one target per level
    (the targets of `arrange`'s levels)."""

    name: CurveName
    pool: StrictInt = Field(ge=1, le=MAX_POOL)
    targets: list[Finite] = Field(min_length=1, max_length=MAX_PACK)


class PackIn(Request):
    """The positions of a pack's levels, in order, and the curve they follow if the pack
    was arranged (see `arrange`)."""

    positions: list[list[StrictInt]] = Field(min_length=1, max_length=MAX_PACK)
    curve: CurveIn | None = None


class LevelFilters(BaseModel):
    """The filters of `curator select`, as query parameters (text ones in the same syntax)."""

    model_config = ConfigDict(extra="forbid")

    solvable: bool | None = None
    unique: bool | None = None
    all_moves: bool | None = None
    pieces: str | None = Field(None, max_length=40, description="Piece counts A..B or A, e.g. 5..7.")
    counts: str | None = Field(None, max_length=200, description="Per-type counts, e.g. K=1,R=0..2.")
    must_include: str | None = Field(None, max_length=400, description="Cells r,c;r,c holding a piece.")
    must_exclude: str | None = Field(None, max_length=400, description="Cells r,c;r,c left empty.")
    canonical: bool = False


class LevelQuery(LevelFilters):
    """The options of `curator select`: the filters, and how to choose among the matches."""

    sample: Whole | None = Field(None, ge=1, le=MAX_LEVELS, description="Draw N matches at random.")
    seed: Whole | None = Field(None, ge=0, le=MAX_SEED, description="Random seed of the sample.")
    difficulty: str | None = Field(None, max_length=40, description="Difficulties A..B, e.g. 3..7.5.")
    sort: str | None = Field(None, max_length=40, description="METRIC or METRIC:desc.")
    limit: Whole | None = Field(None, ge=1, le=MAX_LEVELS, description="Keep the first N levels.")


class ArrangeIn(LevelFilters):
    """The options of `curator pack`, as a JSON body: the filters (text ones in the syntax of
    `select`), the pack's size and curve, and its pool. Its true and false are JSON's own
    (query parameters also take "yes" or 1)."""

    solvable: StrictBool | None = None
    unique: StrictBool | None = None
    all_moves: StrictBool | None = None
    size: StrictInt = Field(ge=1, le=MAX_PACK, description="Levels in the pack.")
    curve: CurveName = Field(CurveName("linear"), description="How difficulty rises over the pack.")
    pool: StrictInt = Field(POOL, ge=1, le=MAX_POOL, description="Candidate levels drawn and rated.")
    seed: StrictInt = Field(0, ge=0, le=MAX_SEED, description="Random seed of the pool.")
    canonical: StrictBool = Field(True, description="Always true: a pack keeps one level per class.")


# -- goal tables (the "blocks" workspace) -------------------------------------------------


class SlidingQuery(BaseModel):
    """The options of `curator select` on goal tables, as query parameters."""

    model_config = ConfigDict(extra="forbid")

    distance: str | None = Field(None, max_length=40, description="Distances to the goal, e.g. 60..90.")
    unique: bool = Field(False, description="Only levels with exactly one shortest solution.")
    all_moves: bool = Field(False, description="Only levels where every move keeps them solvable.")
    cluster: str | None = Field(None, max_length=40, description="Size of its connected set, A..B.")
    hardest: bool = Field(False, description="One level per connected set: its farthest from the goal.")
    sample: Whole | None = Field(None, ge=1, le=MAX_LEVELS, description="Draw N matches at random.")
    seed: Whole | None = Field(None, ge=0, le=MAX_SEED, description="Random seed of the sample.")
    limit: Whole | None = Field(None, ge=1, le=MAX_LEVELS, description="Keep the first N levels.")


class SlidingLevelOut(BaseModel):
    """A level as `curator select --json` prints it on goal tables, with its picture."""

    rank: int
    board: list[str]
    """The drawing, one string per row: letters for pieces, '.' empty, '#' wall (Sokoban:
    XSB)."""
    distance: int | None
    """Moves to the goal in the puzzle's metric; null if it cannot be solved."""
    difficulty: float | None
    """The player model's effort, on the scale of every kind's levels; null if unsolvable."""
    difficulty_terms: str
    """What the difficulty is made of, in one line."""
    unique: bool
    all_moves: bool
    cluster: int
    """Positions in its connected set."""
    solution: list[str]
    """One shortest solution, moves written 'V 2,0 -> 3,0' (letter, anchor before and after;
    Sokoban: LURD letters per move)."""
    picture: str
    """The position as SVG markup (what moves carries data-cell: a piece's label its anchor's
    index, the Sokoban keeper its cell's)."""


class SlidingSelection(BaseModel):
    """The levels a selection returns and how many positions matched its filters."""

    puzzle: str
    matched: int
    levels: list[SlidingLevelOut]


class BoardIn(Request):
    """A position of a puzzle with goal tables, or of a universe, drawn as `draw` writes it."""

    board: str = Field(min_length=1, max_length=MAX_DRAWING,
                       description="Rows joined by '/' (or line breaks), e.g. VSSV/VSSV/VHHV/VNNV/N..N.")


class BoardMoveIn(BoardIn):
    """A drawn position and a move to play from it: the cell of what moves (a piece's anchor,
    the Sokoban keeper) before and after (`move`), or under tilt moves the way the board tilts
    (`tilt`)."""

    move: Move | None = None
    tilt: Direction | None = None


Direction = Literal["up", "right", "down", "left"]
"""The way a tilt move tilts the board."""


class SlidingMoveOut(BaseModel):
    """A legal move: what moves (a piece's letter, '@' for the Sokoban keeper), its cell before
    (`from`) and after (`to`), and where it leads; or, under tilt moves, the `direction` the
    board tilts (no piece, `from` and `to` null)."""

    model_config = ConfigDict(populate_by_name=True)

    from_: Cell | None = Field(alias="from")
    to: Cell | None
    direction: Direction | None = None
    piece: str
    text: str
    """The move as solutions write it: 'V 2,0 -> 3,0', 'tilt up' (Sokoban: one LURD letter)."""
    cost: int
    """What it adds to a solution's length in the puzzle's metric."""
    distance: int | None
    """The distance of the position it leads to; null if that cannot be solved."""
    closer: bool
    """It starts a shortest solution and costs something (its distance plus its cost is the
    one before)."""
    solvable: bool


class SlidingReport(SlidingLevelOut):
    """Where a drawn position stands for a player, and what each legal move does."""

    goal: bool
    """The goal is reached: the level is solved."""
    solvable: bool
    moves: list[SlidingMoveOut]


class SlidingPackIn(Request):
    """The ranks of a pack's levels, in order (as levels and reports give them)."""

    ranks: list[StrictInt] = Field(min_length=1, max_length=MAX_PACK)


# -- universe tables (the "universe" workspace) ----------------------------------------------


class UniverseFilters(BaseModel):
    """The filters of `curator select` on universe tables (ranges and counts in the same
    syntax), which its listing and its packs take."""

    model_config = ConfigDict(extra="forbid")

    solvable: bool | None = Field(None, description="Only sets that can be solved (true), or only others.")
    minimal: bool | None = Field(None, description="The farthest position is minimal (true), or not.")
    unique: bool | None = Field(None, description="The farthest position has one shortest solution, or not.")
    distance: str | None = Field(None, max_length=40, description="The farthest position's moves, e.g. 5..7.")
    cluster: str | None = Field(None, max_length=40, description="The connected set's size, A..B.")
    pieces: str | None = Field(None, max_length=40, description="Vehicles, the goal vehicle included, A..B.")
    walls: str | None = Field(None, max_length=40, description="Walls, A..B.")
    counts: str | None = Field(None, max_length=200, description="Per kind (x: walls), e.g. h=2..4,x=1.")
    hardest: bool = Field(False, description="Only the sets at the largest distance of their piece set.")


class UniverseQuery(UniverseFilters):
    """The options of `curator select` on universe tables, as query parameters."""

    sort: str | None = Field(None, max_length=40, description="distance, cluster, pieces or walls, largest "
                                                               "first; METRIC:asc for smallest first.")
    sample: Whole | None = Field(None, ge=1, le=MAX_LEVELS, description="Draw N matches at random.")
    seed: Whole | None = Field(None, ge=0, le=MAX_SEED, description="Random seed of the sample.")
    limit: Whole | None = Field(None, ge=1, le=MAX_LEVELS,
                                description="Keep the first N puzzles (default and most: 200).")


class UniversePuzzleOut(BaseModel):
    """A puzzle of universe tables as `curator select --json` prints it (one per connected set:
    its farthest position, or its first if it cannot be solved), with its picture."""

    rank: int
    """Its index among the stored sets."""
    board: list[str]
    """The drawing, one string per row: letters for vehicles, 'x' a wall, '.' empty."""
    first: list[str]
    """The set's first position (its smallest key), drawn the same way."""
    distance: int | None
    """Moves from the farthest position to the goal; null if the set cannot be solved."""
    cluster: int
    pieces: int
    walls: int
    counts: dict[str, int]
    minimal: bool | None
    unique: bool | None
    difficulty: float | None
    """The distance: the effort of the player sliding-block tables rate by default."""
    difficulty_terms: str
    """What a player meets along one shortest solution (empty if it cannot be solved)."""
    picture: str


class UniverseSelection(BaseModel):
    """The puzzles a selection returns and how many sets matched its filters."""

    puzzle: str
    matched: int
    puzzles: list[UniversePuzzleOut]


class UniversePlaced(BaseModel):
    """A vehicle of a position: its letter and its cells along its line."""

    letter: str
    cells: list[Cell]


class UniverseMoveOut(BaseModel):
    """A legal move: a vehicle's letter, its first cell before (`from`) and after (`to`), the
    position it leads to and that position's distance."""

    model_config = ConfigDict(populate_by_name=True)

    from_: Cell = Field(alias="from")
    to: Cell
    piece: str
    text: str
    """The move as solutions write it: 'h 0,1 -> 0,3'."""
    board: list[str]
    distance: int | None
    """The distance it leads to; null if the set cannot be solved."""
    closer: bool
    """It starts a shortest solution (it leads one move closer)."""
    solvable: bool


class UniverseReportOut(BaseModel):
    """Where a drawn position of a universe stands: its distance (measured on its connected
    set), the set's size and farthest distance, one shortest solution, its vehicles, picture
    and every legal move."""

    board: list[str]
    distance: int | None
    goal: bool
    """The goal vehicle covers the goal cells: the puzzle is solved."""
    solvable: bool
    cluster: int
    farthest: int | None
    """The largest distance in its set: the stored distance of the set's puzzle."""
    pieces: int
    walls: int
    counts: dict[str, int]
    vehicles: list[UniversePlaced]
    solution: list[str]
    moves: list[UniverseMoveOut]
    picture: str
    """The position as SVG markup (each cell's tiles carry data-cell, its index in row-major
    order; a vehicle's label carries that of its first cell)."""


class UniverseMoveIn(BoardIn):
    """A drawn position of a universe and a move to play from it: a vehicle's first cell
    before and after."""

    move: Move


def _as_filter(name: str) -> Any:
    """A field declared as `UniverseFilters` declares filter `name`: its default and its
    description."""
    field = UniverseFilters.model_fields[name]
    return Field(field.default, description=field.description)


class UniverseArrangeIn(UniverseFilters):
    """The options of `curator pack` on universe tables, as a JSON body: the filters of
    `select`, the pack's size and curve, its pool, seed and variety rule (a pack takes only
    sets that can be solved). Its true and false are JSON's own, as `ArrangeIn`'s."""

    solvable: StrictBool | None = _as_filter("solvable")
    minimal: StrictBool | None = _as_filter("minimal")
    unique: StrictBool | None = _as_filter("unique")
    hardest: StrictBool = _as_filter("hardest")
    size: StrictInt = Field(ge=1, le=MAX_PACK, description="Puzzles in the pack.")
    curve: CurveName = Field(CurveName("linear"), description="How the distance rises over the pack.")
    pool: StrictInt = Field(MAX_POOL, ge=1, le=MAX_POOL, description="Matching sets drawn as candidates.")
    seed: StrictInt = Field(0, ge=0, le=MAX_SEED, description="Random seed of the pool.")
    variety: Literal["piece-sets", "none"] = Field(
        "piece-sets", description="piece-sets: puzzles of as many piece sets as the curve allows; none: "
                                  "the nearest puzzle to each slot's target.")


class UniverseArranged(UniversePuzzleOut):
    """A puzzle of an arranged pack and the distance its slot aimed at."""

    target: float


class UniverseArrangement(BaseModel):
    """An arranged universe pack: its puzzles in order, the curve their distances follow and
    how many candidate sets they were chosen from."""

    puzzle: str
    curve: CurveName
    pool: int
    puzzles: list[UniverseArranged]


class UniversePackIn(Request):
    """The ranks of a universe pack's puzzles (stored sets), in order, as listed puzzles give
    them, and the curve they follow if the pack was arranged (see `universe/arrange`; its
    targets are distances)."""

    ranks: list[StrictInt] = Field(min_length=1, max_length=MAX_PACK)
    curve: CurveIn | None = None


# -- the editor ----------------------------------------------------------------------------

MAX_VARIANTS = 50
"""Most variants one request lists."""


class DrawnLevel(LevelOut):
    """A drawn position of layered results with every figure, and its picture."""

    goal: bool
    """The position is a goal: nothing is left to solve."""
    picture: str
    """The position as SVG markup (tiles, holes and pieces carry data-cell attributes)."""


class DrawnIn(Request):
    """A position of layered results: one entry per cell (`position`), or drawn like the
    board art (`board`, rows joined by '/'), one of them."""

    position: list[StrictInt] | None = Field(None, max_length=MAX_CELLS)
    board: str | None = Field(None, min_length=1, max_length=MAX_DRAWING)


class StateIn(Request):
    """A state of a permutation puzzle, written as `select --json` shows it in one line."""

    board: str = Field(min_length=1, max_length=MAX_DRAWING,
                       description="'SET p0 p1 ... / o0 o1 ...; SET ...' (the twists only for sets that "
                                   "have them), e.g. 'tiles 0 1 2 3 4 5 6 8 7'.")


class StateMove(BaseModel):
    """A legal move of a state: its name, the state it leads to and that state's distance."""

    name: str
    board: str
    """The state after the move, written as `StateIn` takes it."""
    distance: int | None
    closer: bool
    """It starts a shortest solution (the distance it leads to is one less)."""


class StateReport(BaseModel):
    """Where a state of a permutation puzzle stands: its rank, its distance to the solved
    state (null if the moves never reach it), one shortest solution, its picture and every
    legal move. A distance table stores no unique solutions: `unique` is always null."""

    rank: int
    distance: int | None
    solvable: bool
    goal: bool
    """It is the solved state."""
    unique: bool | None = None
    state: dict[str, dict[str, list[int]]]
    board: str
    """The state as one line, as `StateIn` takes it."""
    solution: list[str]
    moves: list[StateMove]
    picture: str
    """The state as SVG markup (tiles carry data-cell: the positions of all sets in turn)."""


class VariantsIn(Request):
    """A position and which of its variants to list: layered positions as `position`, one
    entry per cell; sliding-block ones as a drawing, `board`; states of a distance table as
    their line of text, `board` (as `StateIn`)."""

    position: list[StrictInt] | None = Field(None, max_length=MAX_CELLS)
    board: str | None = Field(None, min_length=1, max_length=MAX_DRAWING)
    want: Literal["unique", "solvable", "harder"] = Field(
        "unique", description="Uniquely solvable variants, solvable ones, or solvable and harder ones.")
    limit: StrictInt = Field(20, ge=1, le=MAX_VARIANTS, description="List the first N, hardest first.")


class VariantList(BaseModel):
    """The variants of a position: the position's own level, how many positions lie one edit
    away and how many of them are wanted, and the first of those, hardest first. Each variant
    is a level as `levels` (or `sliding/levels`) returns them, with the `edit` that makes it:
    its action (add, remove, move), the piece's letter, and its cells `from` and `to`."""

    want: str
    considered: int
    matched: int
    position: dict[str, Any]
    variants: list[dict[str, Any]]
