"""Sokoban tables: the distance to the goal, uniqueness and connected sets of every placement
of a Sokoban room's boxes with the player (rules family `push`)."""
