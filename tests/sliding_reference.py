"""A slow, plain reference for sliding-block puzzles: every placement, every move simulated cell by
cell, Dijkstra from the goal positions, exact counts of shortest solutions.

A position is a frozenset of pieces (letter, frozenset of cells); it shares nothing with
curator's ranking or move tables, so the two can be compared.
"""

from __future__ import annotations

import heapq
from collections import defaultdict
from dataclasses import dataclass, replace
from itertools import combinations, product

Cell = tuple[int, int]
Piece = tuple[str, frozenset]
STEERING = {"any": [(-1, 0), (0, 1), (1, 0), (0, -1)], "row": [(0, 1), (0, -1)], "column": [(-1, 0), (1, 0)]}


@dataclass(frozen=True)
class Spec:
    """A small puzzle: board cells, pieces per letter (shape, along, count or lines), rules, goal."""

    cells: frozenset
    shapes: dict  # letter -> (shape cells, along)
    counts: dict  # (letter, line or None) -> count
    move: str
    metric: str
    goal_letter: str
    goal_cells: frozenset
    edge: str = "stops"  # under until_blocked: "falls" if a slide nothing stops is no move
    exits: frozenset = frozenset()  # tilt: cells a piece drops out through
    out: tuple = ()  # tilt: letters that must all have dropped out (the goal)
    keep: tuple = ()  # tilt: letters that must never drop out

    def placements(self, letter: str, line: int | None) -> list[frozenset]:
        shape, along = self.shapes[letter]
        out = []
        for r, c in sorted(self.cells):
            if line is not None and (r if along == "row" else c) != line:
                continue
            cells = frozenset((r + dr, c + dc) for dr, dc in shape)
            if cells <= self.cells:
                out.append(cells)
        return out


def positions(spec: Spec) -> list[frozenset]:
    """Every placement of the pieces without overlaps (under tilt, of every number of pieces
    of the letters that may drop out, none on an exit)."""
    if spec.move == "tilt":
        return _tilt_positions(spec)
    options = [list(combinations(spec.placements(letter, line), n))
               for (letter, line), n in spec.counts.items()]
    out = []
    for choice in product(*options):
        pieces = [(letter, cells) for ((letter, _), _), group in zip(spec.counts.items(), choice)
                  for cells in group]
        covered = [c for _, cells in pieces for c in cells]
        if len(covered) == len(set(covered)):
            out.append(frozenset(pieces))
    return out


def _tilt_positions(spec: Spec) -> list[frozenset]:
    cells = sorted(spec.cells - spec.exits)
    out = [frozenset()]
    for (letter, _), n in spec.counts.items():
        fewest = n if letter in spec.keep or not spec.exits else 0
        grown = []
        for partial in out:
            taken = {c for _, piece in partial for c in piece}
            for k in range(fewest, n + 1):
                for chosen in combinations([c for c in cells if c not in taken], k):
                    grown.append(partial | {(letter, frozenset({c})) for c in chosen})
        out = grown
    return out


def tilt(spec: Spec, position: frozenset, d: Cell) -> frozenset | None:
    """The board tilted towards d: every piece steps on while the cell ahead is on the board
    and empty, round after round until none moves; one stepping onto an exit leaves. None if
    nothing moved or a kept piece left."""
    pieces = {cells: letter for letter, cells in position}
    moved = False
    while True:
        stepped = False
        for cells in sorted(pieces, key=sorted):
            if cells not in pieces:
                continue
            ahead = _shift(cells, d)
            if not ahead <= spec.cells or any(ahead == other for other in pieces):
                continue
            letter = pieces.pop(cells)
            stepped = moved = True
            if ahead & spec.exits:
                if letter in spec.keep:
                    return None
            else:
                pieces[ahead] = letter
        if not stepped:
            break
    return frozenset((letter, cells) for cells, letter in pieces.items()) if moved else None


def _shift(cells: frozenset, d: Cell, times: int = 1) -> frozenset:
    return frozenset((r + times * d[0], c + times * d[1]) for r, c in cells)


def _slides(spec: Spec, position: frozenset, piece: Piece, rule: str) -> list[tuple[frozenset, int]]:
    """(cells after, cells moved) of each slide of `piece` under `rule`."""
    letter, cells = piece
    free = spec.cells - {c for p in position if p != piece for c in p[1]}
    rows = 1 + max(r for r, _ in spec.cells)
    cols = 1 + max(c for _, c in spec.cells)
    out = []
    for d in STEERING[spec.shapes[letter][1]]:
        stops = []
        times = 1
        while _shift(cells, d, times) <= free:
            stops.append((_shift(cells, d, times), times))
            times += 1
        if rule == "until_blocked" and spec.edge == "falls":
            # Blocked only by a wall inside the box or a piece; otherwise it flies off.
            ahead = _shift(cells, d, times)
            if all(c in free for c in ahead if 0 <= c[0] < rows and 0 <= c[1] < cols):
                stops = []
        out += {"step": stops[:1], "line": stops, "until_blocked": stops[-1:]}[rule]
    return out


def children(spec: Spec, position: frozenset) -> dict[frozenset, int]:
    """Each position one move away under the metric, with the move's cost."""
    if spec.move == "tilt":
        tilted = (tilt(spec, position, d) for d in STEERING["any"])
        return {child: 1 for child in tilted if child is not None}
    out = {}
    for piece in position:
        letter, cells = piece
        if spec.metric == "piece":
            seen, todo = {cells}, [cells]
            while todo:
                here = todo.pop()
                moved = position - {piece} | {(letter, here)}
                for after, _ in _slides(spec, moved, (letter, here), spec.move):
                    if after not in seen:
                        seen.add(after)
                        todo.append(after)
            reached = [(after, 1) for after in seen - {cells}]
        elif spec.metric == "step":
            rule = "until_blocked" if spec.move == "until_blocked" else "step"
            reached = _slides(spec, position, piece, rule)
        else:
            reached = [(after, 1) for after, _ in _slides(spec, position, piece, spec.move)]
        for after, cost in reached:
            child = position - {piece} | {(letter, after)}
            assert child not in out
            out[child] = cost
    return out


def is_goal(spec: Spec, position: frozenset) -> bool:
    if any(letter in spec.out for letter, _ in position):
        return False
    if not spec.goal_letter:
        return True
    return any(letter == spec.goal_letter and spec.goal_cells <= cells for letter, cells in position)


@dataclass
class Analysis:
    distance: dict  # position -> distance (solvable positions only)
    solutions: dict  # position -> number of shortest solutions
    all_moves: set
    cluster: dict  # position -> size of its connected set


def analyze(spec: Spec) -> Analysis:
    everything = positions(spec)
    graph = {p: children(spec, p) for p in everything}
    parents = defaultdict(list)
    for p, kids in graph.items():
        for child, cost in kids.items():
            parents[child].append((p, cost))
    distance = {}
    heap = [(0, i, p) for i, p in enumerate(everything) if is_goal(spec, p)]
    order = {p: i for i, p in enumerate(everything)}
    heapq.heapify(heap)
    while heap:
        d, _, p = heapq.heappop(heap)
        if p in distance:
            continue
        distance[p] = d
        for q, cost in parents[p]:
            if q not in distance:
                heapq.heappush(heap, (d + cost, order[q], q))
    solutions = {}
    for p in sorted(distance, key=distance.get):
        if distance[p] == 0:
            solutions[p] = 1
        else:
            solutions[p] = sum(solutions[c] for c, cost in graph[p].items()
                               if c in distance and distance[c] + cost == distance[p])
    # A move here is one slide (or one tilt), whatever the metric counts: under the piece
    # metric a run of slides is one move of the distance, but each slide of it is a move.
    slides = {p: children(replace(spec, metric="line"), p) for p in everything}
    all_moves = {p for p in everything
                 if distance.get(p) != 0 and slides[p] and all(c in distance for c in slides[p])}
    neighbours = defaultdict(set)
    for p, kids in graph.items():
        for c in kids:
            neighbours[p].add(c)
            neighbours[c].add(p)
    cluster = {}
    for p in everything:
        if p in cluster:
            continue
        members, todo = {p}, [p]
        while todo:
            for q in neighbours[todo.pop()]:
                if q not in members:
                    members.add(q)
                    todo.append(q)
        for q in members:
            cluster[q] = len(members)
    return Analysis(distance, solutions, all_moves, cluster)


def draw(spec: Spec, position: frozenset) -> str:
    """The drawing curator parses: letters, '.' for empty cells, '#' for walls."""
    rows = max(r for r, _ in spec.cells) + 1
    cols = max(c for _, c in spec.cells) + 1
    grid = [["#" if (r, c) not in spec.cells else "." for c in range(cols)] for r in range(rows)]
    for letter, cells in position:
        for r, c in cells:
            grid[r][c] = letter
    return "\n".join("".join(row) for row in grid)
