"""Pictures of levels: one geometry, drawn as SVG (drawsvg) or PNG (Pillow).

`picture` lays a position out once, as board tiles, holes (empty cells) and pieces, in
pixels; `svg_drawing` and `png_image` only draw that layout. Square grids get square tiles
(checkered for capture puzzles); triangular grids get hexagonal tiles with every row offset
by half a cell, so neighbours along the six directions touch.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

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
    """The piece type's letter; None for a hole."""
    label: str = ""


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


def picture(puzzle, position: Sequence[int], title: str = "", unit: float = UNIT) -> Picture:
    """Lay out `position` (one entry per cell: 0 empty, t = piece type t) of `puzzle`."""
    board = puzzle.board
    if len(position) != board.size:
        raise ValueError(f"a position has {board.size} cells, got {len(position)}")
    family = puzzle.rules.family
    style = BOARD_STYLES.get(family, DEFAULT_STYLE)
    shape = _tile_shape(board.grid)
    centres = cell_centres(board)
    half_w = max(abs(x) for x, _ in shape)
    half_h = max(abs(y) for _, y in shape)
    left = min(x for x, _ in centres) - half_w - MARGIN
    top = min(y for _, y in centres) - half_h - MARGIN
    width = max(x for x, _ in centres) + half_w + MARGIN - left
    height = max(y for _, y in centres) + half_h + MARGIN - top

    def px(x: float, y: float) -> tuple[float, float]:
        return round((x - left) * unit, 2), round((y - top) * unit, 2)

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
        width=math.ceil(width * unit),
        height=math.ceil(height * unit),
        title=title,
        tiles=tuple(tiles),
        holes=tuple(holes),
        pieces=tuple(pieces),
        label_size=round(0.44 * unit, 2),
    )


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
    bold = {"stroke_width": max(1, size // 20), "stroke_fill": "#ffffff"}
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
    for tile in pic.tiles:
        draw.polygon([(x * k, y * k) for x, y in tile.points], fill=tile.fill, outline=tile.edge, width=k)
    for disc in pic.holes + pic.pieces:
        box = [(disc.x - disc.radius) * k, (disc.y - disc.radius) * k,
               (disc.x + disc.radius) * k, (disc.y + disc.radius) * k]
        draw.ellipse(box, fill=disc.fill, outline=disc.edge, width=2 * k if disc.piece else 1)
        if disc.label:
            _centred_text(draw, disc.x * k, disc.y * k, disc.label, round(pic.label_size * k))
    return image.resize((pic.width, pic.height), Image.Resampling.LANCZOS)
