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

FLING_5X3 = """\
name = "fling35"
[board]
art = '''
.....
.....
.....
'''
[rules]
family = "fling"
[goal]
pieces = 1
final_step_once = true
"""

CHESS_5_PIECES = """\
name = "chess3"
[board]
art = '''
...
...
...
'''
[rules]
family = "capture"
[pieces]
R = 1
B = 1
N = 2
P = 1
[goal]
pieces = 1
"""

TRIANGLE_APEX = """\
name = "triangle-apex"
[board]
grid = "triangular"
art = '''
    .
   . .
  . . .
 . . . .
. . . . .
'''
[rules]
family = "jump"
[goal]
pieces = 1
cells = [[0, 0]]
"""
