"""Checks of the slow universe reference: small boards worked out by hand, and properties of a
4x4 board with walls against a second, separately written enumeration of positions."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator

import pytest

from tests.universe_reference import fewest_moves, is_goal, key, neighbours, parse, positions, universe

SMALL = {"h": (0, 1), "H": (0, 1), "v": (0, 2), "V": (0, 1)}
SIZES = {"R": 2, "h": 2, "H": 3, "v": 2, "V": 3}


def test_three_by_four_with_one_vertical() -> None:
    # 3x4, R in row 1, exactly one v. A v in a 3-row column always covers row 1, so R never
    # passes it and v only moves between top rows 0 and 1. The sets:
    #   v in column 2, R at column 0: 2 positions, R stuck left of v -> unsolvable;
    #   v in column 3, R at 0 or 1: 4 positions, unsolvable;
    #   v in column 0, R at 1 or 2: 4 positions, goals R at 2 (2 of them), distance 1;
    #   v in column 1, R at 2: 2 positions, both goals, distance 0.
    # Smallest keys: R at 0 -> hmask 48, at 1 -> 96, at 2 -> 192; v top in column 2 -> 68,
    # column 3 -> 136, column 0 -> 17, column 1 -> 34; so the order is as listed.
    records = universe(3, 4, 1, {"v": (1, 1)}, (0, 0))
    assert [(r["first"], r["size"], r["solvable"], r["distance"], r["distances"]) for r in records] == [
        ("..v.RRv.....", 2, False, None, None),
        ("...vRR.v....", 4, False, None, None),
        ("v...vRR.....", 4, True, 1, [2, 2]),
        (".v...vRR....", 2, True, 0, [2]),
    ]
    assert [r["farthest"] for r in records] == [None, None, "v...vRR.....", ".v...vRR...."]
    # Without v, R alone at 1 still needs one move; with the v on the goal, nothing to gain.
    assert [r["minimal"] for r in records] == [None, None, False, False]
    assert all(r["counts"] == {"h": 0, "H": 0, "v": 1, "V": 0, "x": 0} for r in records)


def test_three_by_four_alone_or_with_one_vertical() -> None:
    # With v in 0..1 the lone R adds one set: R at columns 0, 1, 2, one move from either start
    # to the goal; its smallest key is R at column 0 (hmask 48, vmask 0), so it comes first.
    # Nothing can be taken away, so it is minimal.
    records = universe(3, 4, 1, {"v": (0, 1)}, (0, 0))
    assert len(records) == 5
    alone = records[0]
    assert alone == {"first": "....RR......", "size": 3, "solvable": True, "distance": 1,
                     "farthest": "....RR......", "minimal": True,
                     "counts": {"h": 0, "H": 0, "v": 0, "V": 0, "x": 0}, "distances": [1, 2]}


def test_four_by_four_with_one_vertical() -> None:
    # 4x4, R in row 1, one v: with v at top row 2 (rows 2-3) R runs freely, so each column of v
    # is one set. R columns beside a v at top 0 or 1: column 0 -> R at 1, 2; column 1 -> R at 2;
    # column 2 -> R at 0; column 3 -> R at 0, 1. Sizes 3 + 2*that: 7, 5, 5, 7.
    #   column 3: goal only R2 with v down; R0, R1 with v down at 1; v up (4 positions) at 2.
    #   column 2: goal R2 v down; R0, R1 v down at 1; R0 with v up (2) at 2.
    #   column 0: goals R2 with any of 3 v places; R1 up (2), R0/R1 down at 1.
    #   column 1: goals R2 with 3 v places; R0, R1 with v down at 1.
    # Farthest of column 3: R0 with v at top 0; without v R0 needs 1 < 2 moves: minimal.
    # Same for column 2. Columns 0 and 1: distance 1 and R alone still needs 1: not minimal.
    # First keys all have hmask 48 (R at 0); vmask 68 (col 2, top 0) < 136 (col 3, top 0)
    # < 4352 (col 0, top 2) < 8704 (col 1, top 2).
    records = universe(4, 4, 1, {"v": (1, 1)}, (0, 0))
    assert [(r["first"], r["size"], r["distance"], r["distances"], r["farthest"], r["minimal"])
            for r in records] == [
        ("..v.RRv.........", 5, 2, [1, 2, 2], "..v.RRv.........", True),
        ("...vRR.v........", 7, 2, [1, 2, 4], "...vRR.v........", True),
        ("....RR..v...v...", 7, 1, [3, 4], "....RR..v...v...", False),
        ("....RR...v...v..", 5, 1, [3, 2], "....RR...v...v..", False),
    ]


def test_fewest_moves() -> None:
    assert fewest_moves(3, 4, "....RR......") == 1
    assert fewest_moves(3, 4, "......RR....") == 0
    assert fewest_moves(3, 4, "...vRR.v....") is None
    # The v must go down two cells (one move) before R can pass: two moves.
    assert fewest_moves(4, 4, "..v." "RRv." "...." "....") == 2
    # A V in a 4-row column covers row 1 wherever it stands.
    assert fewest_moves(4, 4, "..V." "RRV." "..V." "....") is None


def test_parse_and_neighbours() -> None:
    pieces, walls = parse(3, 5, "hhHHHxRR.v....v")
    assert sorted(pieces) == [("H", (2, 3, 4)), ("R", (6, 7)), ("h", (0, 1)), ("v", (9, 14))]
    assert walls == [5]
    assert sorted(neighbours(3, 5, "hhHHHxRR.v....v")) == ["hhHHHx.RRv....v"]
    with pytest.raises(ValueError):
        parse(2, 3, "hhh...")


def test_rule_three_walls_only_left_of_r() -> None:
    # 3x4, R in row 1, one wall: 8 cells of rows 0 and 2 times 3 places of R, plus a wall left
    # of R in its own row: 1 with R at column 1, 2 with R at column 2.
    drawings = positions(3, 4, 1, {}, (1, 1))
    assert len(drawings) == len(set(drawings)) == 27
    assert "...." "xRR." "...." in drawings and "...." ".xRR" "...." in drawings
    assert "...." "RRx." "...." not in drawings and "...." "RR.x" not in drawings
    assert "x..." "RR.." "...." in drawings and "...." "..RR" "...x" in drawings


# A second enumeration for the property checks: cell by cell in reading order, each still open
# cell is left empty, walled, or the first cell of a piece; the rules are then checked on
# the finished drawing, cell coverage only.


def _fill(rows: int, cols: int, board: list[str | None], made: dict[str, int], limits: dict[str, int]
          ) -> Iterator[tuple[str, dict[str, int]]]:
    if None not in board:
        yield "".join(str(ch) for ch in board), dict(made)
        return
    i = board.index(None)
    r, c = divmod(i, cols)
    for choice in ".xRhHvV":
        if choice in ".x":
            cells = [i]
        elif choice in "RhH":
            cells = [r * cols + c + k for k in range(SIZES[choice]) if c + k < cols]
        else:
            cells = [(r + k) * cols + c for k in range(SIZES[choice]) if r + k < rows]
        if choice != "." and made[choice] >= limits[choice]:
            continue
        if choice != "." and (len(cells) < SIZES.get(choice, 1) or any(board[j] is not None for j in cells)):
            continue
        for j in cells:
            board[j] = choice
        made[choice] = made.get(choice, 0) + (choice != ".")
        yield from _fill(rows, cols, board, made, limits)
        made[choice] -= choice != "."
        for j in cells:
            board[j] = None


def _keeps_rules(rows: int, cols: int, goal_row: int, drawing: str) -> bool:
    grid = [drawing[r * cols : (r + 1) * cols] for r in range(rows)]
    if any(sum(ch in "RhHx" for ch in line) > cols - 1 for line in grid):
        return False
    if any(sum(grid[r][c] in "vV" for r in range(rows)) > rows - 1 for c in range(cols)):
        return False
    goal = grid[goal_row]
    if drawing.count("R") != 2 or goal.count("R") != 2 or "h" in goal or "H" in goal:
        return False
    return all(c < goal.index("R") for c, ch in enumerate(goal) if ch == "x")


def _by_cells(rows: int, cols: int, goal_row: int, counts: dict[str, tuple[int, int]],
              walls: tuple[int, int]) -> set[str]:
    ranges = {kind: counts.get(kind, (0, 0)) for kind in "hHvV"} | {"x": walls, "R": (1, 1)}
    limits = {kind: hi for kind, (lo, hi) in ranges.items()}
    out = set()
    for drawing, made in _fill(rows, cols, [None] * (rows * cols), dict.fromkeys(limits, 0), limits):
        if all(lo <= made[kind] for kind, (lo, hi) in ranges.items()) and _keeps_rules(
                rows, cols, goal_row, drawing):
            out.add(drawing)
    return out


@pytest.fixture(scope="module")
def walled() -> tuple[list[dict[str, object]], set[str]]:
    return universe(4, 4, 2, SMALL, (0, 1)), _by_cells(4, 4, 2, SMALL, (0, 1))


def _reach(rows: int, cols: int, start: str) -> set[str]:
    seen = {start}
    queue = deque([start])
    while queue:
        for there in neighbours(rows, cols, queue.popleft()):
            if there not in seen:
                seen.add(there)
                queue.append(there)
    return seen


def test_positions_match_a_second_enumeration(walled) -> None:
    records, drawings = walled
    assert len(drawings) > 1000
    assert set(positions(4, 4, 2, SMALL, (0, 1))) == drawings
    assert sum(int(str(r["size"])) for r in records) == len(drawings)


def test_sets_farthest_and_order(walled) -> None:
    records, drawings = walled
    covered: set[str] = set()
    for r in records:
        group = _reach(4, 4, str(r["first"]))
        assert len(group) == r["size"] and group <= drawings and not group & covered
        covered |= group
        assert r["first"] == min(group, key=key)
        goals = any(is_goal(4, 4, d) for d in group)
        assert r["solvable"] == goals
        if goals:
            assert r["farthest"] in group
            assert fewest_moves(4, 4, str(r["farthest"])) == r["distance"]
            assert (r["distance"] == 0) == is_goal(4, 4, str(r["farthest"]))
            histogram = r["distances"]
            assert isinstance(histogram, list)
            assert sum(histogram) == r["size"] and len(histogram) == int(str(r["distance"])) + 1
        else:
            assert r["distance"] is r["farthest"] is r["minimal"] is r["distances"] is None
    assert covered == drawings
    firsts = [(key(str(r["first"])), str(r["first"])) for r in records]
    assert firsts == sorted(firsts)


def test_removing_a_piece_never_lengthens(walled) -> None:
    records, _ = walled
    solvable = [r for r in records if r["solvable"]]
    assert any(r["minimal"] for r in solvable) and not all(r["minimal"] for r in solvable)
    for r in solvable:
        farthest, distance = str(r["farthest"]), int(str(r["distance"]))
        pieces, walls = parse(4, 4, farthest)
        removals = [cells for kind, cells in pieces if kind != "R"] + [(cell,) for cell in walls]
        shorter = []
        for cells in removals:
            smaller = "".join("." if i in cells else ch for i, ch in enumerate(farthest))
            moves = fewest_moves(4, 4, smaller)
            assert moves is not None and moves <= distance
            shorter.append(moves < distance)
        assert r["minimal"] == all(shorter)
