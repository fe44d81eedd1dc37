"""Pictures of levels: one geometry, drawn as SVG (drawsvg) or PNG (Pillow).

`picture` lays a position out once, as board tiles, holes (empty cells) and pieces, in
pixels; `svg_drawing` and `png_image` only draw that layout. Square grids get square tiles
(checkered for capture puzzles); triangular grids get hexagonal tiles with every row offset
by half a cell, so neighbours along the six directions touch.

`state_picture` lays out a state of a permutation puzzle the same way: per piece set a grid
of square tiles (its `layout`, or one row), each holding the numbered piece on it, with a
mark showing the piece's orientation. `block_picture` draws sliding blocks as joined squares,
`universe_picture` a position of a universe (vehicles as joined squares, walls), and
`sokoban_picture` a Sokoban room: walls, floor, goals, boxes and the keeper.
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import drawsvg
from PIL import Image, ImageDraw, ImageFont

UNIT = 48
"""Pixels per cell (from one cell centre to the next along a row)."""
MARGIN = 0.3
"""Space around the board, in cells."""
BACKGROUND = "#ffffff"
SUPERSAMPLE = 3
"""PNG pictures are drawn this many times larger, then scaled down (smooth edges)."""

# Board and piece colours per rule family; typed pieces get a colour per letter.
BOARD_STYLES = {
    "jump": {"tile": "#e3c58f", "edge": "#b08850", "hole": "#5e4324", "piece": "#b3261e"},
    "fling": {"tile": "#cfdbe8", "edge": "#8ea3ba", "hole": "#54677d", "piece": "#f08a24"},
    "capture": {"tile": "#f0d9b5", "dark": "#b58863", "edge": "#8b6a4a", "hole": "", "piece": "#444444"},
}
DEFAULT_STYLE = {"tile": "#dddddd", "edge": "#999999", "hole": "#555555", "piece": "#2b6cb0"}
PIECE_COLOURS = {
    "K": "#c9a000",
    "Q": "#8e44ad",
    "R": "#c0392b",
    "B": "#1e8449",
    "N": "#2471a3",
    "P": "#566573",
}
SPARE_COLOURS = ("#d35400", "#117a65", "#7d3c98", "#a93226", "#1f618d", "#b7950b", "#515a5a")


@dataclass(frozen=True)
class Tile:
    """The board under one cell: a polygon."""

    cell: int
    points: tuple[tuple[float, float], ...]
    fill: str
    edge: str


@dataclass(frozen=True)
class Disc:
    """A hole or a piece: a circle, with a letter for typed pieces."""

    cell: int
    x: float
    y: float
    radius: float
    fill: str
    edge: str
    piece: str | None = None
    """The piece type's letter (a permutation puzzle's piece set); None for a hole."""
    label: str = ""
    data: tuple[tuple[str, str | int], ...] = ()
    """More data-NAME attributes for the SVG element."""


@dataclass(frozen=True)
class Picture:
    """One position laid out in pixels."""

    width: int
    height: int
    title: str
    tiles: tuple[Tile, ...]
    holes: tuple[Disc, ...]
    pieces: tuple[Disc, ...]
    label_size: float
    marks: tuple[Disc, ...] = ()
    """Small dots drawn over the pieces (orientations of permutation-puzzle pieces)."""
    stickers: tuple[Tile, ...] = ()
    """Coloured squares beside the board: a cube's net (`cube_net`); `cell` numbers them."""


def piece_colour(piece_types: Sequence[str], t: int, family: str) -> str:
    """Fill colour of piece type t (1-based)."""
    if len(piece_types) == 1:
        return BOARD_STYLES.get(family, DEFAULT_STYLE)["piece"]
    letter = piece_types[t - 1]
    return PIECE_COLOURS.get(letter.upper(), SPARE_COLOURS[(t - 1) % len(SPARE_COLOURS)])


def _darker(colour: str, factor: float = 0.6) -> str:
    r, g, b = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    return "#{:02x}{:02x}{:02x}".format(*(int(v * factor) for v in (r, g, b)))


def cell_centres(board) -> list[tuple[float, float]]:
    """Centre of each cell in cells (before margins): square grids on a unit lattice,
    triangular grids with rows √3/2 apart and each row shifted half a cell."""
    if board.grid == "triangular":
        return [(c - r / 2, r * math.sqrt(3) / 2) for r, c in board.cells]
    return [(float(c), float(r)) for r, c in board.cells]


def _tile_shape(grid: str) -> list[tuple[float, float]]:
    if grid == "triangular":
        radius = 1 / math.sqrt(3)  # pointy-top hexagon one cell wide
        angles = [math.radians(-90 + 60 * k) for k in range(6)]
        return [(radius * math.cos(a), radius * math.sin(a)) for a in angles]
    return [(-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)]


def _frame(
    centres: Sequence[tuple[float, float]], shape: Sequence[tuple[float, float]], unit: float
) -> tuple[int, int, Callable[[float, float], tuple[float, float]]]:
    """Width and height in pixels of tiles of `shape` around `centres` (in cells) plus the
    margin, and the function taking a point in cells to pixels."""
    half_w = max(abs(x) for x, _ in shape)
    half_h = max(abs(y) for _, y in shape)
    left = min(x for x, _ in centres) - half_w - MARGIN
    top = min(y for _, y in centres) - half_h - MARGIN
    width = max(x for x, _ in centres) + half_w + MARGIN - left
    height = max(y for _, y in centres) + half_h + MARGIN - top

    def px(x: float, y: float) -> tuple[float, float]:
        return round((x - left) * unit, 2), round((y - top) * unit, 2)

    return math.ceil(width * unit), math.ceil(height * unit), px


def picture(puzzle, position: Sequence[int], title: str = "", unit: float = UNIT) -> Picture:
    """Lay out `position` (one entry per cell: 0 empty, t = piece type t) of `puzzle`."""
    board = puzzle.board
    if len(position) != board.size:
        raise ValueError(f"a position has {board.size} cells, got {len(position)}")
    family = puzzle.rules.family
    style = BOARD_STYLES.get(family, DEFAULT_STYLE)
    shape = _tile_shape(board.grid)
    centres = cell_centres(board)
    width, height, px = _frame(centres, shape, unit)
    checkered = family == "capture" and board.grid == "square"
    typed = len(puzzle.piece_types) > 1
    tiles, holes, pieces = [], [], []
    for i, ((r, c), (x, y)) in enumerate(zip(board.cells, centres)):
        fill = style["dark"] if checkered and (r + c) % 2 else style["tile"]
        tiles.append(Tile(i, tuple(px(x + dx, y + dy) for dx, dy in shape), fill, style["edge"]))
        cx, cy = px(x, y)
        t = position[i]
        if t:
            colour = piece_colour(puzzle.piece_types, t, family)
            letter = puzzle.piece_types[t - 1]
            radius = round(0.38 * unit, 2)
            pieces.append(Disc(i, cx, cy, radius, colour, _darker(colour), letter, letter if typed else ""))
        elif style["hole"]:
            holes.append(Disc(i, cx, cy, round(0.13 * unit, 2), style["hole"], style["hole"]))
    return Picture(
        width=width,
        height=height,
        title=title,
        tiles=tuple(tiles),
        holes=tuple(holes),
        pieces=tuple(pieces),
        label_size=round(0.44 * unit, 2),
    )


# -- permutation puzzles -----------------------------------------------------------------------

SET_GAP = 0.4
"""Space between the grids of two piece sets, in cells."""
HOME_TILE = "#c8e6c0"
"""Tile of a position whose piece is the solved one there, untwisted."""
MARK_COLOUR = "#1a1a1a"


def state_cells(puzzle) -> list[tuple[int, int, float, float]]:
    """(set index, position, x, y) of every position of a permutation puzzle, set by set: a
    set's positions fill its `layout` (rows, cols) row by row, or one row; sets are stacked
    top to bottom."""
    out = []
    top = 0.0
    for i, s in enumerate(puzzle.sets):
        rows, cols = s.layout or (1, s.count)
        out += [(i, p, float(p % cols), top + p // cols) for p in range(s.count)]
        top += rows + SET_GAP
    return out


def state_picture(puzzle, state, title: str = "", unit: float = UNIT) -> Picture:
    """Lay out a state ((permutation, orientation) per piece set) of a permutation puzzle.

    Each position is a tile holding a disc labelled with the number of the piece on it; for
    a set with orientations, a mark on the disc's rim points up for twist 0 and turns
    clockwise by 360/orientations degrees per twist. Tiles whose piece is home are green.
    The tile of a set's mover (the 8-puzzle's blank) stays empty. A set of cube corners with
    `stickers` gets the cube's net above the tiles (`cube_net`, as `Picture.stickers`).
    """
    net = cube_net(puzzle, state)
    below = max(r for r, _ in net) + 1 + SET_GAP if net else 0.0
    cells = [(i, p, x, y + below) for i, p, x, y in state_cells(puzzle)]
    shape = _tile_shape("square")
    centres = [(x, y) for _, _, x, y in cells] + [(float(c), float(r)) for r, c in net]
    width, height, px = _frame(centres, shape, unit)
    movers = puzzle.movers
    tiles, pieces, marks = [], [], []
    for cell, (i, p, x, y) in enumerate(cells):
        s = puzzle.sets[i]
        perm, ori = state[i]
        home = perm[p] == s.solved[p] and ori[p] == 0
        edge = DEFAULT_STYLE["edge"]
        blank = perm[p] == movers[i]
        tiles.append(Tile(cell, tuple(px(x + dx, y + dy) for dx, dy in shape),
                          HOME_TILE if home and not blank else DEFAULT_STYLE["tile"], edge))
        if blank:
            continue
        cx, cy = px(x, y)
        colour = DEFAULT_STYLE["piece"] if i == 0 else SPARE_COLOURS[(i - 1) % len(SPARE_COLOURS)]
        data = (("position", p), ("piece", perm[p]), ("orientation", ori[p]))
        radius = round(0.38 * unit, 2)
        pieces.append(Disc(cell, cx, cy, radius, colour, _darker(colour), s.name, str(perm[p]), data))
        if s.orientations > 1:
            angle = 2 * math.pi * ori[p] / s.orientations
            mx, my = px(x + 0.3 * math.sin(angle), y - 0.3 * math.cos(angle))
            marks.append(Disc(cell, mx, my, round(0.075 * unit, 2), MARK_COLOUR, "#ffffff",
                              s.name, "", (("orientation", ori[p]),)))
    return Picture(
        width=width,
        height=height,
        title=title,
        tiles=tuple(tiles),
        holes=(),
        pieces=tuple(pieces),
        label_size=round(0.36 * unit, 2),
        marks=tuple(marks),
        stickers=tuple(Tile(n, tuple(px(c + dx, r + dy) for dx, dy in shape), colour, NET_EDGE)
                       for n, ((r, c), colour) in enumerate(sorted(net.items()))),
    )


FACE_COLOURS = {"U": "#ffffff", "D": "#ffd500", "F": "#009b48", "B": "#0046ad", "R": "#b71234",
                "L": "#ff5800"}
"""The usual colour scheme of a cube's faces: white up, yellow down, green front, blue back,
red right, orange left."""
NET = {"U": (0, 2), "L": (2, 0), "F": (2, 2), "R": (2, 4), "B": (2, 6), "D": (4, 2)}
"""Where each 2 x 2 face lies in the net (row, col of its top-left sticker): the up face
above the front, the left, front, right and back faces in a row, the down face below."""
NET_SIDES = {"U": ("BF", "LR"), "L": ("UD", "BF"), "F": ("UD", "LR"), "R": ("UD", "FB"),
             "B": ("UD", "RL"), "D": ("FB", "LR")}
"""Per face of the net, the faces beside its top and bottom rows, and beside its left and
right columns, as the face is seen unfolded."""
NET_EDGE = "#1b1b1b"
"""The lines between a net's stickers."""


def sticker_place(corner: str, k: int) -> tuple[int, int]:
    """(row, col) in the net of sticker k of the corner whose faces are `corner` (see
    `curator.distance.puzzle.PieceSet.stickers`).

    >>> sticker_place("URF", 0), sticker_place("URF", 1), sticker_place("URF", 2)
    ((1, 3), (2, 4), (2, 3))
    """
    face = corner[k]
    rows, cols = NET_SIDES[face]
    top, left = NET[face]
    row = next(rows.index(f) for f in corner if f in rows)
    col = next(cols.index(f) for f in corner if f in cols)
    return top + row, left + col


def cube_net(puzzle, state) -> dict[tuple[int, int], str]:
    """The net of a 2x2x2 cube in `state`, {(row, col): colour} with the six faces unfolded
    as `NET` lays them out, each sticker in its face's colour (`FACE_COLOURS`); empty for a
    puzzle without `stickers`. The piece on a position is the corner solved there
    (`solved`); with twist t its k-th sticker lies on face (k + t) mod 3 of the position."""
    i = next((i for i, s in enumerate(puzzle.sets) if s.stickers), None)
    if i is None:
        return {}
    s = puzzle.sets[i]
    perm, ori = state[i]
    colours: dict[tuple[int, int], str] = {}
    for p, corner in enumerate(s.stickers):
        home = s.stickers[s.solved.index(perm[p])]
        for k in range(3):
            colours[sticker_place(corner, (k + ori[p]) % 3)] = FACE_COLOURS[home[k]]
    for corner in s.fixed:
        for k in range(3):
            colours[sticker_place(corner, k)] = FACE_COLOURS[corner[k]]
    return colours


# -- SVG ---------------------------------------------------------------------------------------


def svg_drawing(pic: Picture, id_prefix: str = "p") -> drawsvg.Drawing:
    """The picture as a drawsvg drawing; pieces carry class "piece" and data-cell/data-type."""
    d = drawsvg.Drawing(pic.width, pic.height, id_prefix=id_prefix, role="img")
    if pic.title:
        d.append_title(pic.title)
    d.append(drawsvg.Rectangle(0, 0, pic.width, pic.height, fill=BACKGROUND, class_="background"))
    board = drawsvg.Group(class_="board")
    for tile in pic.tiles:
        flat = [v for point in tile.points for v in point]
        board.append(
            drawsvg.Lines(
                *flat, close=True, fill=tile.fill, stroke=tile.edge, stroke_width=1, data_cell=tile.cell
            )
        )
    d.append(board)
    if pic.stickers:
        net = drawsvg.Group(class_="net")
        for tile in pic.stickers:
            flat = [v for point in tile.points for v in point]
            net.append(drawsvg.Lines(*flat, close=True, fill=tile.fill, stroke=tile.edge, stroke_width=1,
                                     class_="sticker", data_sticker=tile.cell))
        d.append(net)
    for hole in pic.holes:
        d.append(
            drawsvg.Circle(hole.x, hole.y, hole.radius, fill=hole.fill, class_="hole", data_cell=hole.cell)
        )
    for piece in pic.pieces:
        d.append(
            drawsvg.Circle(
                piece.x,
                piece.y,
                piece.radius,
                fill=piece.fill,
                stroke=piece.edge,
                stroke_width=2,
                class_="piece",
                data_cell=piece.cell,
                data_type=piece.piece,
                **{f"data_{key}": value for key, value in piece.data},
            )
        )
        if piece.label:
            d.append(
                drawsvg.Text(
                    piece.label,
                    pic.label_size,
                    piece.x,
                    piece.y,
                    center=True,
                    fill="#ffffff",
                    font_family="DejaVu Sans, Arial, Helvetica, sans-serif",
                    font_weight="bold",
                    class_="label",
                )
            )
    for mark in pic.marks:
        d.append(
            drawsvg.Circle(
                mark.x,
                mark.y,
                mark.radius,
                fill=mark.fill,
                stroke=mark.edge,
                stroke_width=1,
                class_="mark",
                data_cell=mark.cell,
                data_type=mark.piece,
                **{f"data_{key}": value for key, value in mark.data},
            )
        )
    return d


def svg_text(pic: Picture, standalone: bool = True, id_prefix: str = "p") -> str:
    """SVG markup; without `standalone`, no XML declaration (for inlining into HTML)."""
    header = '<?xml version="1.0" encoding="UTF-8"?>\n' if standalone else ""
    return svg_drawing(pic, id_prefix).as_svg(header=header)


# -- PNG ---------------------------------------------------------------------------------------


@lru_cache(maxsize=8)
def _font(size: int) -> ImageFont.ImageFont | ImageFont.FreeTypeFont:
    try:
        return ImageFont.load_default(size=size)
    except (TypeError, ImportError, OSError):  # Pillow without FreeType: the small bitmap font
        return ImageFont.load_default()


def _centred_text(draw: ImageDraw.ImageDraw, x: float, y: float, text: str, size: int) -> None:
    font = _font(size)
    bold: dict[str, Any] = {"stroke_width": max(1, size // 20), "stroke_fill": "#ffffff"}
    if isinstance(font, ImageFont.FreeTypeFont):
        draw.text((x, y), text, fill="#ffffff", font=font, anchor="mm", **bold)
        return
    left, top, right, bottom = draw.textbbox((0, 0), text, font=font)
    draw.text((x - (left + right) / 2, y - (top + bottom) / 2), text, fill="#ffffff", font=font)


def png_image(pic: Picture) -> Image.Image:
    """The picture as an RGB Pillow image of pic.width x pic.height pixels."""
    k = SUPERSAMPLE
    image = Image.new("RGB", (pic.width * k, pic.height * k), BACKGROUND)
    draw = ImageDraw.Draw(image)
    for tile in pic.tiles + pic.stickers:
        draw.polygon([(x * k, y * k) for x, y in tile.points], fill=tile.fill, outline=tile.edge, width=k)
    for disc in pic.holes + pic.pieces:
        box = [(disc.x - disc.radius) * k, (disc.y - disc.radius) * k,
               (disc.x + disc.radius) * k, (disc.y + disc.radius) * k]
        draw.ellipse(box, fill=disc.fill, outline=disc.edge, width=2 * k if disc.piece else 1)
        if disc.label:
            _centred_text(draw, disc.x * k, disc.y * k, disc.label, round(pic.label_size * k))
    for mark in pic.marks:
        box = [(mark.x - mark.radius) * k, (mark.y - mark.radius) * k,
               (mark.x + mark.radius) * k, (mark.y + mark.radius) * k]
        draw.ellipse(box, fill=mark.fill, outline=mark.edge, width=k)
    return image.resize((pic.width, pic.height), Image.Resampling.LANCZOS)


def png_bytes(pic: Picture) -> bytes:
    """The picture as the bytes of a PNG file."""
    out = io.BytesIO()
    png_image(pic).save(out, format="PNG")
    return out.getvalue()


# -- sliding blocks ----------------------------------------------------------------------------

BLOCK_COLOURS = ("#2471a3", "#117a65", "#7d3c98", "#b7950b", "#d35400", "#515a5a", "#1f618d")
GOAL_BLOCK = "#c0392b"
"""The goal's piece is red, as Rush Hour's car is; other letters take BLOCK_COLOURS in turn."""
GOAL_TILE = "#f6e7a1"
"""Board tiles under a sliding-block puzzle's goal cells."""
SLIDER_COLOURS = {"G": "#1e8449", "B": "#2471a3", "R": "#c0392b", "Y": "#b7950b"}
"""Colours of tilt sliders whose letter is a colour's initial."""
EXIT_HOLE = "#1c1c1c"
"""The exits of a tilt board, drawn as dark holes (no piece ever stands on one)."""
BLOCK_GAP = 0.06
"""Space between neighbouring blocks, in cells."""


def block_picture(puzzle, position, title: str = "", unit: float = UNIT) -> Picture:
    """Lay out a position of a sliding-block puzzle: board tiles (the goal cells tinted), the
    exits of a tilt board as holes, and every piece as joined squares in its letter's colour,
    labelled at its anchor cell."""
    shape = _tile_shape("square")
    centres = [(float(c), float(r)) for r, c in puzzle.board.cells]
    width, height, px = _frame(centres, shape, unit)
    tiles = [Tile(i, tuple(px(x + dx, y + dy) for dx, dy in shape),
                  GOAL_TILE if i in puzzle.goal_cells else DEFAULT_STYLE["tile"], DEFAULT_STYLE["edge"])
             for i, (x, y) in enumerate(centres)]
    labels = []
    for group, anchors in zip(puzzle.groups, position):
        colour = block_colour(puzzle, group.letter)
        for anchor in anchors:
            cells = set(puzzle.piece_cells(group, anchor))
            for cell in sorted(cells):
                tiles.append(Tile(cell, _block_square(puzzle.board, cell, cells, px), colour, colour))
            x, y = centres[anchor]
            labels.append(Disc(anchor, *px(x, y), round(0.2 * unit, 2), colour, _darker(colour),
                               group.letter, group.letter))
    exits = tuple(Disc(cell, *px(*centres[cell]), round(0.36 * unit, 2), EXIT_HOLE, EXIT_HOLE)
                  for cell in puzzle.exits)
    return Picture(width=width, height=height, title=title, tiles=tuple(tiles), holes=exits,
                   pieces=tuple(labels), label_size=round(0.3 * unit, 2))


def block_colour(puzzle, letter: str) -> str:
    """The colour of a sliding-block puzzle's pieces of `letter`: the colour a tilt board's
    sliders are named by (G green, B blue, ...), red for the goal's piece, BLOCK_COLOURS in turn
    for the others (in the order of the file's pieces)."""
    if puzzle.exits and letter in SLIDER_COLOURS:
        return SLIDER_COLOURS[letter]
    if letter == puzzle.goal_letter:
        return GOAL_BLOCK
    others = [s.letter for s in puzzle.shapes if s.letter != puzzle.goal_letter]
    return BLOCK_COLOURS[others.index(letter) % len(BLOCK_COLOURS)]


def _block_square(board, cell: int, piece: set[int], px) -> tuple[tuple[float, float], ...]:
    """A cell's square, pulled in on the sides where the piece does not go on."""
    r, c = board.cells[cell]

    def inset(dr: int, dc: int) -> float:
        return 0.0 if board.index.get((r + dr, c + dc)) in piece else BLOCK_GAP

    top, bottom = -0.5 + inset(-1, 0), 0.5 - inset(1, 0)
    left, right = -0.5 + inset(0, -1), 0.5 - inset(0, 1)
    return tuple(px(c + x, r + y) for x, y in ((left, top), (right, top), (right, bottom), (left, bottom)))


def universe_picture(universe, position, title: str = "", unit: float = UNIT) -> Picture:
    """Lay out a position of a universe (`curator.universe.play.UniversePosition`): board tiles
    in row-major order (the goal cells tinted), its walls, and every vehicle as joined squares in
    its letter's colour (red for the goal vehicle), labelled at its first cell."""
    rows, cols = universe.rows, universe.cols
    shape = _tile_shape("square")
    centres = [(float(c), float(r)) for r in range(rows) for c in range(cols)]
    width, height, px = _frame(centres, shape, unit)
    goal = {universe.goal_row * cols + c for c in range(cols - universe.goal_length, cols)}
    tiles = [Tile(i, tuple(px(x + dx, y + dy) for dx, dy in shape),
                  GOAL_TILE if i in goal else DEFAULT_STYLE["tile"], DEFAULT_STYLE["edge"])
             for i, (x, y) in enumerate(centres)]
    for r, c in position.walls:
        tiles.append(Tile(r * cols + c, tuple(px(c + dx, r + dy) for dx, dy in shape), *WALL_TILE))
    others = [v.letter for v in universe.vehicles if v.letter != universe.goal_letter]
    labels = []
    for vehicle in position.vehicles:
        letter = vehicle.letter
        colour = GOAL_BLOCK if letter == universe.goal_letter else BLOCK_COLOURS[others.index(letter)
                                                                                  % len(BLOCK_COLOURS)]
        cells = set(vehicle.cells)
        for r, c in vehicle.cells:
            tiles.append(Tile(r * cols + c, _grid_square(r, c, cells, px), colour, colour))
        r, c = vehicle.cells[0]
        labels.append(Disc(r * cols + c, *px(c, r), round(0.2 * unit, 2), colour, _darker(colour), letter,
                           letter))
    return Picture(width=width, height=height, title=title, tiles=tuple(tiles), holes=(),
                   pieces=tuple(labels), label_size=round(0.3 * unit, 2))


def _grid_square(r: int, c: int, piece: set[tuple[int, int]], px) -> tuple[tuple[float, float], ...]:
    """Cell (r, c)'s square, pulled in on the sides where the piece does not go on."""

    def inset(dr: int, dc: int) -> float:
        return 0.0 if (r + dr, c + dc) in piece else BLOCK_GAP

    top, bottom = -0.5 + inset(-1, 0), 0.5 - inset(1, 0)
    left, right = -0.5 + inset(0, -1), 0.5 - inset(0, 1)
    return tuple(px(c + x, r + y) for x, y in ((left, top), (right, top), (right, bottom), (left, bottom)))


# -- Sokoban -----------------------------------------------------------------------------------

WALL_TILE = ("#7b6a58", "#5a4c3e")
"""Fill and edge of a wall."""
FLOOR_TILE = ("#efe9dc", "#d5ccb8")
"""Fill and edge of a floor cell (goal cells take GOAL_TILE)."""
GOAL_MARK = "#c0392b"
"""The dot on a goal, drawn over a box that stands on it."""
BOX_COLOURS = ("#b9770e", "#1e8449")
"""A box, and a box on a goal."""
PLAYER_COLOUR = "#2471a3"
BOX_INSET = 0.12
"""Space between a box and its cell's edge, in cells."""


def sokoban_picture(puzzle, position, title: str = "", unit: float = UNIT) -> Picture:
    """Lay out a position of a Sokoban room: floor tiles in cell order (goal cells tinted),
    then walls, a dot on each goal, each box as a square inside its cell (green on a goal),
    and the player as a disc. Floor tiles, goal dots, boxes and the player carry the floor
    cell's index (`data-cell`); walls carry -1."""
    boxes, player = position
    cells = puzzle.board.cells
    shape = _tile_shape("square")
    walls = sorted(puzzle.walls)
    width, height, px = _frame([(float(c), float(r)) for r, c in [*cells, *walls]], shape, unit)

    def square(r: int, c: int, inset: float) -> tuple[tuple[float, float], ...]:
        half = 0.5 - inset
        return tuple(px(c + dx * half / 0.5, r + dy * half / 0.5) for dx, dy in shape)

    goals = set(puzzle.goals)
    tiles = [Tile(i, square(r, c, 0.0), GOAL_TILE if i in goals else FLOOR_TILE[0], FLOOR_TILE[1])
             for i, (r, c) in enumerate(cells)]
    tiles += [Tile(-1, square(r, c, 0.0), *WALL_TILE) for r, c in walls]
    for b in boxes:
        colour = BOX_COLOURS[b in goals]
        tiles.append(Tile(b, square(cells[b][0], cells[b][1], BOX_INSET), colour, _darker(colour)))
    marks = tuple(Disc(g, *px(cells[g][1], cells[g][0]), round(0.12 * unit, 2), GOAL_MARK, GOAL_MARK)
                  for g in sorted(goals))
    r, c = cells[player]
    you = Disc(player, *px(c, r), round(0.32 * unit, 2), PLAYER_COLOUR, _darker(PLAYER_COLOUR), "@")
    return Picture(width=width, height=height, title=title, tiles=tuple(tiles), holes=marks, pieces=(you,),
                   label_size=round(0.3 * unit, 2))
