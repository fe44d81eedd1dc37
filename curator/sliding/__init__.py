"""Sliding-block tables: the distance to the goal, uniqueness and connected sets of every
placement of a sliding-block puzzle's pieces (rules family `slide`)."""
