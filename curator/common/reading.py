"""Reading files people write (puzzle files, level packs): one error line naming file and key.

`read_puzzle_file` reads and decodes a puzzle file once, for whichever kind of puzzle its
`[rules] family` names; each kind parses its puzzle from the decoded tables.

`TableReader` checks decoded TOML or JSON tables key by key; every problem becomes one
`PuzzleError` "source: key: problem" with line breaks escaped, never a traceback. A key no
table of its kind knows is named, with the closest known key when one is close.
"""

from __future__ import annotations

import difflib
import os
import re
import stat
import sys
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from curator.common.board import Board
from curator.common.errors import PuzzleError

MAX_INPUT = 1 << 20
"""Most bytes of a file people write (a puzzle file, a board drawing): 1 MiB, far more than
any of them needs, so that no input makes a reader use much memory."""
MAX_PACK_INPUT = 64 << 20
"""Most bytes of a level pack (also read as a curve or as graded levels): 64 MiB, several
times the largest curator writes (at most 2,000 levels, a few KiB each), so that every pack
it writes can be read back."""


class InputRefused(ValueError):
    """A file that is not read at all: not a regular file, or larger than MAX_INPUT."""


def read_input(path: str | Path, limit: int = MAX_INPUT) -> str:
    """The UTF-8 text of a regular file of at most `limit` bytes (a byte-order mark, as some
    editors write, is not part of it). InputRefused for a device,
    folder or pipe (never opened for reading in a way that could block) and for a longer file;
    OSError if it cannot be opened, UnicodeDecodeError if it is not text."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise InputRefused("not a regular file (a folder, device or pipe)")
        if info.st_size > limit:
            raise InputRefused(f"{info.st_size:,} bytes; at most {limit:,} are read")
        data = b""
        while len(data) <= limit and (part := os.read(fd, limit + 1 - len(data))):
            data += part
    finally:
        os.close(fd)
    if len(data) > limit:
        raise InputRefused(f"more than {limit:,} bytes; at most {limit:,} are read")
    return data.decode("utf-8-sig").replace("\r\n", "\n").replace("\r", "\n")


def read_text(path: str | Path, error: type[PuzzleError] = PuzzleError, limit: int = MAX_INPUT) -> str:
    """The text of a file of at most `limit` bytes (see `read_input`); `error` naming the file
    if it cannot be read."""
    try:
        return read_input(path, limit)
    except InputRefused as exc:
        raise error(str(path), "file", str(exc)) from None
    except (OSError, UnicodeDecodeError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise error(str(path), "file", f"cannot be read ({exc.__class__.__name__}: {why})") from None


def read_toml(text: str, source: str) -> dict[str, Any]:
    """The tables of a TOML text; PuzzleError naming `source` if it is not TOML."""
    if len(text) > MAX_INPUT:
        raise PuzzleError(source, "file", f"{len(text):,} characters; at most {MAX_INPUT:,} are read")
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PuzzleError(source, "toml", f"not valid TOML ({exc})")
    except RecursionError:
        raise PuzzleError(source, "toml", "arrays or tables are nested too deeply") from None


@dataclass(frozen=True)
class PuzzleFile:
    """A puzzle file read once: its text, the name errors give it, and its decoded tables.
    Every kind of puzzle is parsed from one of these; `family` says which kind it is."""

    text: str
    source: str
    data: dict[str, Any] = field(repr=False)

    @property
    def family(self) -> str | None:
        """The `[rules] family` the file names, or None if it names none (the kind's own
        reader then says what is wrong)."""
        rules = self.data.get("rules")
        family = rules.get("family") if isinstance(rules, dict) else None
        return family if isinstance(family, str) else None


def puzzle_file(text: str, source: str) -> PuzzleFile:
    """Puzzle-file text decoded; PuzzleError naming `source` if it is not TOML."""
    return PuzzleFile(text, source, read_toml(text, source))


def read_puzzle_file(path: str | Path) -> PuzzleFile:
    """The puzzle file at `path`, read and decoded; PuzzleError naming it if it cannot be."""
    return puzzle_file(read_text(path), str(path))


def rules_family(path: str | Path) -> str | None:
    """The `[rules] family` a TOML file names, or None if it cannot be read or names none
    (the file's own reader then says what is wrong)."""
    try:
        return read_puzzle_file(path).family
    except PuzzleError:
        return None


def closest(word: str, known: Iterable[str]) -> str | None:
    """The known word most like `word`, if one is close enough to be a likely misspelling
    (difflib's ratio of at least 0.6)."""
    found = difflib.get_close_matches(word, [k for k in known if isinstance(k, str)], n=1)
    return found[0] if found else None


def unknown(what: str, word: str, known: Iterable[str]) -> str:
    """The problem of a `what` ("key", "family", ...) that is none of `known`: the closest
    known one when one is close, then all of them."""
    known = sorted(known)
    guess = closest(word, known)
    hint = f"did you mean `{guess}`? " if guess is not None else ""
    return f"unknown {what} ({hint}expected one of {', '.join(known) or 'none'})"


MAX_TITLE = 200
"""Most characters of a puzzle's title."""
NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
"""Puzzle names: plain, so that output/<name> always stays inside output/."""

KIND_NAMES = {str: "a string", int: "an integer", bool: "true or false", dict: "a table", list: "a list",
              float: "a number"}
"""How TOML files name the kinds of values (JSON readers use Python's type names)."""


FLOAT_MAX = sys.float_info.max
"""The largest number a key that takes decimals may hold (a larger whole number cannot be one)."""


class TableReader:
    """Reads one file's decoded tables, naming `source` and the key in every error."""

    error: type[PuzzleError] = PuzzleError
    document = "file"
    """What the key of the whole document is called in errors."""

    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, key: str, message: str) -> PuzzleError:
        return self.error(self.source, key, message)

    def kind_name(self, kind: type) -> str:
        return KIND_NAMES[kind]

    def get(self, table: Any, key: str, kind: type | tuple[type, ...], where: str, default: Any = ...,
            nullable: bool = False) -> Any:
        """table[key], which must be of `kind` (or None if `nullable`); `default` if missing
        and a default is given. `where` is the key path of `table` itself."""
        full = f"{where}.{key}" if where else key
        if not isinstance(table, dict):
            raise self.fail(where or self.document, "must be an object")
        if key not in table:
            if default is ...:
                raise self.fail(full, "is missing")
            return default
        value = table[key]
        if value is None and nullable:
            return None
        kinds = kind if isinstance(kind, tuple) else (kind,)
        if not isinstance(value, kinds) or (bool not in kinds and isinstance(value, bool)):
            raise self.fail(full, f"must be {' or '.join(self.kind_name(k) for k in kinds)}, got {value!r}")
        if float in kinds and isinstance(value, int) and abs(value) > FLOAT_MAX:
            raise self.fail(full, f"is a number of {len(str(abs(value)))} digits, too large to compute with")
        return value

    def name(self, data: dict[str, Any]) -> str:
        """The puzzle's `name`, which must be plain (see NAME_PATTERN)."""
        name: str = self.get(data, "name", str, "")
        if not NAME_PATTERN.fullmatch(name) or name in {".", ".."}:
            raise self.fail(
                "name",
                f"{name!r} is not a plain name (letters, digits, '_', '-', '.', up to 64 "
                "characters, starting with a letter or digit)",
            )
        return name

    def title(self, data: dict[str, Any], default: Any, where: str = "") -> str:
        """The `title`: one line of at most MAX_TITLE printable characters (`default` if none)."""
        title: str = self.get(data, "title", str, where, default)
        key = f"{where}.title" if where else "title"
        if len(title) > MAX_TITLE:
            raise self.fail(key, f"has {len(title):,} characters; at most {MAX_TITLE} are allowed")
        if not title.isprintable():
            raise self.fail(key, "must be one line of printable characters")
        return title

    def only(self, table: dict[str, Any], allowed: set[str], where: str) -> None:
        """Refuse keys of `table` that are not `allowed`, naming the closest allowed one."""
        for key in table:
            if key not in allowed:
                full = f"{where}.{key}" if where else key
                raise self.fail(full, unknown("key", key, allowed))

    def family(self, data: dict[str, Any], top_keys: set[str]) -> str:
        """`[rules] family`, read before anything else: it decides which kind of puzzle the
        file is, so a misspelt `family` key is named here rather than left to another kind's
        reader to trip over tables it does not know. (A file without a [rules] table has its
        top-level keys checked first, for a misspelt [rules].)"""
        rules = data.get("rules")
        if not isinstance(rules, dict):
            self.only(data, top_keys, "")
        elif "family" not in rules:
            near = closest("family", rules)
            if near is not None:
                raise self.fail(f"rules.{near}", "unknown key (did you mean `family`?)")
        family: str = self.get(self.get(data, "rules", dict, ""), "family", str, "rules")
        return family

    def cell(self, value: Any, board: Board, key: str) -> int:
        """The index of the board cell written [row, column]."""
        if (
            not isinstance(value, list)
            or len(value) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
        ):
            raise self.fail(key, f"a cell is [row, column], got {value!r}")
        index = board.index.get((value[0], value[1]))
        if index is None:
            raise self.fail(key, f"{value!r} is not a cell of the board")
        return index
