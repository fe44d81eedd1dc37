"""A slow, plain reference for the universe of a small Rush Hour-style board: every position,
its connected sets, and per set the hardest start and its distance to the goal. The fast
universe engine is checked against it; speed is no aim here, only being plainly right.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from itertools import product

HORIZONTAL = {"R": 2, "h": 2, "H": 3}
VERTICAL = {"v": 2, "V": 3}
KINDS = ("h", "H", "v", "V")
Piece = tuple[str, tuple[int, ...]]
Key = tuple[int, int]


def key(drawing: str) -> Key:
    """(hmask, vmask): cells of horizontal pieces and walls, cells of vertical pieces."""
    hmask = sum(1 << i for i, ch in enumerate(drawing) if ch in "RhHx")
    vmask = sum(1 << i for i, ch in enumerate(drawing) if ch in "vV")
    return hmask, vmask


def draw(rows: int, cols: int, pieces: list[Piece], walls: list[int]) -> str:
    """The drawing of pieces (kind, cells) and wall cells on an empty board."""
    board = ["."] * (rows * cols)
    for cell in walls:
        board[cell] = "x"
    for kind, cells in pieces:
        for cell in cells:
            if board[cell] != ".":
                raise ValueError(f"cell {cell} covered twice")
            board[cell] = kind
    return "".join(board)


def _runs(line: list[int], drawing: str, lengths: dict[str, int]) -> Iterator[Piece]:
    """The pieces of the given kinds along one line of cells, cut from left (top) to right."""
    i = 0
    while i < len(line):
        kind = drawing[line[i]]
        if kind not in lengths:
            i += 1
            continue
        cells = tuple(line[i : i + lengths[kind]])
        if len(cells) < lengths[kind] or any(drawing[cell] != kind for cell in cells):
            raise ValueError(f"broken piece {kind!r} at cell {line[i]}")
        yield kind, cells
        i += lengths[kind]


def parse(rows: int, cols: int, drawing: str) -> tuple[list[Piece], list[int]]:
    """The pieces (kind, cells) and the wall cells of a drawing."""
    if len(drawing) != rows * cols or set(drawing) - set(".xRhHvV"):
        raise ValueError(f"not a {rows}x{cols} drawing: {drawing!r}")
    pieces: list[Piece] = []
    for r in range(rows):
        pieces.extend(_runs([r * cols + c for c in range(cols)], drawing, HORIZONTAL))
    for c in range(cols):
        pieces.extend(_runs([r * cols + c for r in range(rows)], drawing, VERTICAL))
    walls = [i for i, ch in enumerate(drawing) if ch == "x"]
    return pieces, walls


def _slide(drawing: str, kind: str, cells: tuple[int, ...], shift: int) -> str:
    board = list(drawing)
    for cell in cells:
        board[cell] = "."
    for cell in cells:
        board[cell + shift] = kind
    return "".join(board)


def neighbours(rows: int, cols: int, drawing: str) -> list[str]:
    """Every drawing one move away: one piece slid one or more cells through empty cells."""
    out: list[str] = []
    for kind, cells in parse(rows, cols, drawing)[0]:
        step = 1 if kind in HORIZONTAL else cols
        for sign in (1, -1):
            lead = cells[-1] if sign == 1 else cells[0]
            distance = 1
            while True:
                target = lead + sign * distance * step
                if kind in HORIZONTAL:
                    inside = 0 <= target < rows * cols and target // cols == lead // cols
                else:
                    inside = 0 <= target < rows * cols
                if not inside or drawing[target] != ".":
                    break
                out.append(_slide(drawing, kind, cells, sign * distance * step))
                distance += 1
    return out


def is_goal(rows: int, cols: int, drawing: str) -> bool:
    """R covers the last two cells of its row."""
    cells = [i for i, ch in enumerate(drawing) if ch == "R"]
    return len(cells) == 2 and cells[1] % cols == cols - 1


def fewest_moves(rows: int, cols: int, drawing: str) -> int | None:
    """Breadth-first solve of one drawing, no rules checked; None if no goal is reachable."""
    seen = {drawing: 0}
    queue = deque([drawing])
    while queue:
        here = queue.popleft()
        if is_goal(rows, cols, here):
            return seen[here]
        for there in neighbours(rows, cols, here):
            if there not in seen:
                seen[there] = seen[here] + 1
                queue.append(there)
    return None


def _lines(length: int, tokens: tuple[str, ...]) -> list[str]:
    """Every string of exactly `length` characters made by joining tokens."""
    if length == 0:
        return [""]
    out: list[str] = []
    for token in tokens:
        if len(token) <= length:
            out.extend(token + rest for rest in _lines(length - len(token), tokens))
    return out


def row_patterns(cols: int, goal: bool) -> list[str]:
    """Each row's horizontal pieces and walls, at most cols-1 cells covered; the goal row
    holds R, no other horizontal piece, and walls only left of R."""
    if goal:
        lines = [s for s in _lines(cols, (".", "x", "RR")) if s.count("R") == 2]
        lines = [s for s in lines if "x" not in s[s.index("R") :]]
    else:
        lines = _lines(cols, (".", "x", "hh", "HHH"))
    return [s for s in lines if cols - s.count(".") <= cols - 1]


def column_patterns(rows: int) -> list[str]:
    """Each column's vertical pieces, at most rows-1 cells covered."""
    return [s for s in _lines(rows, (".", "vv", "VVV")) if rows - s.count(".") <= rows - 1]


def piece_counts(drawing: str) -> dict[str, int]:
    """How many pieces of each kind and how many walls a drawing holds."""
    counts = {kind: drawing.count(kind) // length for kind, length in (HORIZONTAL | VERTICAL).items()}
    del counts["R"]
    counts["x"] = drawing.count("x")
    return counts


def positions(
    rows: int, cols: int, goal_row: int, counts: dict[str, tuple[int, int]], walls: tuple[int, int]
) -> list[str]:
    """Every drawing that keeps the rules and the count ranges."""
    ranges = {kind: counts.get(kind, (0, 0)) for kind in KINDS} | {"x": walls}
    rows_options = [row_patterns(cols, r == goal_row) for r in range(rows)]
    columns = column_patterns(rows)
    out = []
    for layout in product(*rows_options):
        flat = "".join(layout)
        have = piece_counts(flat)
        if any(have[kind] > ranges[kind][1] for kind in ("h", "H", "x")):
            continue
        options = []
        for c in range(cols):
            free = [flat[r * cols + c] == "." for r in range(rows)]
            options.append([p for p in columns if all(free[r] or p[r] == "." for r in range(rows))])
        for choice in product(*options):
            board = list(flat)
            for c, pattern in enumerate(choice):
                for r, ch in enumerate(pattern):
                    if ch != ".":
                        board[r * cols + c] = ch
            drawing = "".join(board)
            have = piece_counts(drawing)
            if all(lo <= have[kind] <= hi for kind, (lo, hi) in ranges.items()):
                out.append(drawing)
    return out


def components(rows: int, cols: int, everything: list[str]) -> list[list[str]]:
    """The connected sets of the move graph over the given drawings (closed under moves)."""
    known = set(everything)
    seen: set[str] = set()
    out = []
    for start in everything:
        if start in seen:
            continue
        seen.add(start)
        group = [start]
        queue = deque([start])
        while queue:
            for there in neighbours(rows, cols, queue.popleft()):
                if there not in known:
                    raise AssertionError(f"move leaves the positions: {there}")
                if there not in seen:
                    seen.add(there)
                    group.append(there)
                    queue.append(there)
        out.append(group)
    return out


def goal_distances(rows: int, cols: int, group: list[str]) -> dict[str, int]:
    """Fewest moves to a goal for each drawing of a connected set that holds a goal."""
    distance = {d: 0 for d in group if is_goal(rows, cols, d)}
    queue = deque(distance)
    while queue:
        here = queue.popleft()
        for there in neighbours(rows, cols, here):
            if there not in distance:
                distance[there] = distance[here] + 1
                queue.append(there)
    return distance


def is_minimal(rows: int, cols: int, drawing: str, distance: int) -> bool:
    """Whether taking away any one non-R piece or wall makes the solution strictly shorter."""
    pieces, walls = parse(rows, cols, drawing)
    removals = [cells for kind, cells in pieces if kind != "R"] + [(cell,) for cell in walls]
    for cells in removals:
        smaller = "".join("." if i in cells else ch for i, ch in enumerate(drawing))
        moves = fewest_moves(rows, cols, smaller)
        if moves is None or moves >= distance:
            return False
    return True


def record(rows: int, cols: int, group: list[str]) -> dict[str, object]:
    """The summary of one connected set."""
    first = min(group, key=key)
    out: dict[str, object] = {"first": first, "size": len(group), "solvable": False, "distance": None,
                              "farthest": None, "minimal": None, "counts": piece_counts(first),
                              "distances": None}
    distance = goal_distances(rows, cols, group)
    if distance:
        far = max(distance.values())
        farthest = min((d for d, n in distance.items() if n == far), key=key)
        histogram = [0] * (far + 1)
        for n in distance.values():
            histogram[n] += 1
        out |= {"solvable": True, "distance": far, "farthest": farthest,
                "minimal": is_minimal(rows, cols, farthest, far), "distances": histogram}
    return out


def universe(
    rows: int, cols: int, goal_row: int, counts: dict[str, tuple[int, int]], walls: tuple[int, int]
) -> list[dict[str, object]]:
    """One record per connected set, in the order of the smallest keys ("first"); sets whose
    smallest keys are equal (possible only across sets) follow the order of their drawings."""
    groups = components(rows, cols, positions(rows, cols, goal_row, counts, walls))
    records = [record(rows, cols, group) for group in groups]
    return sorted(records, key=lambda rec: (key(str(rec["first"])), rec["first"]))
