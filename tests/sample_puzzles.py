"""Small puzzle files shared by several test modules."""

CHESS_3X3 = """\
name = "chess-3x3"
max_pieces = 4

[board]
art = \"\"\"
...
...
...
\"\"\"

[rules]
family = "capture"
king_safe = true

[pieces]
K = 1
R = 1
P = 2
"""
