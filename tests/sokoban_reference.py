"""A plain reference for Sokoban: the room read from XSB, positions as sets of cells, every
step simulated cell by cell, and a breadth-first search forward from a position.

A position is (boxes, player cell) under the moves metric and (boxes, the player's region)
under the pushes metric; it shares nothing with curator's ranking, normalisation or compiled
moves, so the two can be compared.
"""

from __future__ import annotations

from collections import deque
from itertools import combinations

DIRECTIONS = {"u": (-1, 0), "r": (0, 1), "d": (1, 0), "l": (0, -1)}


class Reference:
    """A room read from XSB, and its positions and moves simulated cell by cell."""

    def __init__(self, xsb: str, metric: str) -> None:
        lines = [line for line in xsb.split("\n") if line.strip()]
        chars = {(r, c): ch for r, line in enumerate(lines) for c, ch in enumerate(line)}
        (player,) = [cell for cell, ch in chars.items() if ch in "@+"]
        floor, todo = {player}, [player]
        while todo:
            r, c = todo.pop()
            for dr, dc in DIRECTIONS.values():
                near = (r + dr, c + dc)
                if chars.get(near, "#") != "#" and near not in floor:
                    floor.add(near)
                    todo.append(near)
        self.floor = floor
        self.goals = frozenset(cell for cell in floor if chars[cell] in ".*+")
        self.start_boxes = frozenset(cell for cell in floor if chars[cell] in "$*")
        self.start_player = player
        self.metric = metric

    def reach(self, boxes: frozenset, player) -> frozenset:
        seen, todo = {player}, deque([player])
        while todo:
            r, c = todo.popleft()
            for dr, dc in DIRECTIONS.values():
                near = (r + dr, c + dc)
                if near in self.floor and near not in boxes and near not in seen:
                    seen.add(near)
                    todo.append(near)
        return frozenset(seen)

    def state(self, boxes: frozenset, player) -> tuple:
        """A position: the boxes, and the player's cell (moves) or its whole region (pushes)."""
        return (boxes, player) if self.metric == "moves" else (boxes, self.reach(boxes, player))

    def start(self) -> tuple:
        return self.state(self.start_boxes, self.start_player)

    def positions(self) -> set:
        out = set()
        for boxes in combinations(sorted(self.floor), len(self.start_boxes)):
            region: set = set()  # pushes: a player in a region found already adds nothing new
            for player in self.floor - set(boxes):
                if player not in region:
                    position = self.state(frozenset(boxes), player)
                    out.add(position)
                    if self.metric == "pushes":
                        region |= position[1]
        return out

    def step(self, boxes: frozenset, player, letter: str):
        """The boxes and player after one step (None if it is not legal)."""
        dr, dc = DIRECTIONS[letter.lower()]
        ahead = (player[0] + dr, player[1] + dc)
        if ahead not in self.floor:
            return None
        if ahead not in boxes:
            return boxes, ahead
        beyond = (ahead[0] + dr, ahead[1] + dc)
        if beyond not in self.floor or beyond in boxes:
            return None
        return boxes - {ahead} | {beyond}, ahead

    def children(self, position: tuple) -> set:
        boxes, where = position
        if self.metric == "moves":
            found = (self.step(boxes, where, letter) for letter in DIRECTIONS)
            return {self.state(*after) for after in found if after is not None}
        out = set()
        for cell in where:
            for letter in DIRECTIONS:
                after = self.step(boxes, cell, letter)
                if after is not None and after[0] != boxes:
                    out.add(self.state(*after))
        return out

    def solved(self, position: tuple) -> bool:
        return position[0] <= self.goals

    def search(self, position: tuple) -> tuple[int | None, int]:
        """Breadth-first from `position`: the fewest moves to a solved position (None if there
        is none) and the number of shortest solutions (sequences of positions)."""
        paths, depth, layer = {position: 1}, 0, {position}
        while layer:
            goals = [p for p in layer if self.solved(p)]
            if goals:
                return depth, sum(paths[p] for p in goals)
            following: dict = {}
            for p in layer:
                for child in self.children(p):
                    if child not in paths:
                        following[child] = following.get(child, 0) + paths[p]
            paths.update(following)
            layer, depth = set(following), depth + 1
        return None, 0

    def replay(self, letters: str) -> tuple[frozenset, int]:
        """The boxes after playing a LURD solution from the start, and its pushes."""
        boxes, player, pushes = self.start_boxes, self.start_player, 0
        for letter in letters:
            after = self.step(boxes, player, letter)
            assert after is not None, letters
            assert (after[0] != boxes) == letter.isupper(), letters
            pushes += after[0] != boxes
            boxes, player = after
        return boxes, pushes
