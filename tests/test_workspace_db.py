"""The workspace's database (`curator.workspace_db`): packs against a plain model under random
sequences of edits, notes and tags, playtest figures, schema versions, and the files it
refuses with one line.
"""

from __future__ import annotations

import sqlite3
import statistics

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from curator.common.errors import StoreError
from curator.workspace_db import (
    SCHEMA_VERSION,
    NoSuchPack,
    PackLevel,
    Play,
    PuzzleKey,
    WorkspaceDB,
    WorkspaceError,
    figures_json,
)

TRIANGLE = PuzzleKey("triangle", "a" * 64)
FLING = PuzzleKey("fling", "b" * 64)


@pytest.fixture
def db():
    with WorkspaceDB(None) as opened:
        yield opened


# -- packs against a model ---------------------------------------------------------------------

NAMES = st.sampled_from(["easy", "hard", "Mixed bag", "pack 1", "  easy  "])
LEVELS = st.sampled_from(["0,1,1", "1,0,1", "1,1,0", "VSSV/N..N", "1,1,1"])
EDITS = st.lists(st.one_of(
    st.tuples(st.just("create"), st.sampled_from([TRIANGLE, FLING]), NAMES),
    st.tuples(st.just("rename"), st.integers(0, 4), NAMES),
    st.tuples(st.just("delete"), st.integers(0, 4)),
    st.tuples(st.just("add"), st.integers(0, 4), LEVELS, st.none() | st.integers(0, 6)),
    st.tuples(st.just("remove"), st.integers(0, 4), st.integers(0, 6)),
    st.tuples(st.just("move"), st.integers(0, 4), st.integers(0, 6), st.integers(0, 6)),
    st.tuples(st.just("set"), st.integers(0, 4), st.lists(LEVELS, max_size=4)),
), max_size=30)


class Model:
    """Packs as plain Python: {id: [puzzle, name, [levels]]}, and the rules the database keeps."""

    def __init__(self) -> None:
        self.packs: dict[int, list] = {}
        self.next = 1

    def apply(self, edit: tuple, ids: list[int]):
        """What the edit does to the model: None, or the exception class it must raise."""
        op = edit[0]
        if op == "create":
            name = " ".join(edit[2].split())
            if any(p[0] == edit[1] and p[1] == name for p in self.packs.values()):
                return WorkspaceError
            self.packs[self.next] = [edit[1], name, []]
            ids.append(self.next)
            self.next += 1
            return None
        pack_id = ids[edit[1]] if edit[1] < len(ids) else 999
        if pack_id not in self.packs:
            return NoSuchPack
        pack = self.packs[pack_id]
        levels = pack[2]
        if op == "rename":
            name = " ".join(edit[2].split())
            if any(i != pack_id and p[0] == pack[0] and p[1] == name for i, p in self.packs.items()):
                return WorkspaceError
            pack[1] = name
        elif op == "delete":
            del self.packs[pack_id]
        elif op == "add":
            at = len(levels) if edit[3] is None else edit[3]
            if at > len(levels) or edit[2] in levels:  # each level once
                return WorkspaceError
            levels.insert(at, edit[2])
        elif op == "remove":
            if edit[2] >= len(levels):
                return WorkspaceError
            del levels[edit[2]]
        elif op == "move":
            if edit[2] >= len(levels) or edit[3] >= len(levels):
                return WorkspaceError
            levels.insert(edit[3], levels.pop(edit[2]))
        elif op == "set":
            if len(set(edit[2])) < len(edit[2]):
                return WorkspaceError
            levels[:] = edit[2]
        return None


def run(db: WorkspaceDB, edit: tuple, ids: list[int]) -> None:
    op = edit[0]
    if op == "create":
        db.create_pack(edit[1], edit[2])
        return
    pack_id = ids[edit[1]] if edit[1] < len(ids) else 999
    if op == "rename":
        db.rename_pack(pack_id, edit[2])
    elif op == "delete":
        db.delete_pack(pack_id)
    elif op == "add":
        db.add_level(pack_id, PackLevel(edit[2], {"key": edit[2]}), edit[3])
    elif op == "remove":
        db.remove_level(pack_id, edit[2])
    elif op == "move":
        db.move_level(pack_id, edit[2], edit[3])
    elif op == "set":
        db.set_levels(pack_id, [PackLevel(level, {"key": level}) for level in edit[2]])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(EDITS)
def test_random_pack_edits_match_a_plain_model(edits):
    with WorkspaceDB(None) as db:
        model = Model()
        model_ids: list[int] = []
        db_ids: list[int] = []
        for edit in edits:
            before = {pack.id for pack in db.packs()}
            expected = model.apply(edit, model_ids)
            if expected is None:
                run(db, edit, db_ids)
            else:
                with pytest.raises(expected):
                    run(db, edit, db_ids)
            db_ids.extend(sorted({pack.id for pack in db.packs()} - before))
            stored = {pack.id: [pack.puzzle, pack.name, [item.level for item in pack.levels]]
                      for pack in db.packs()}
            assert len(stored) == len(model.packs)
            by_model = {db_ids[model_ids.index(i)]: value for i, value in model.packs.items()}
            assert stored == by_model
            for pack in db.packs():
                assert [item.data["key"] for item in pack.levels] == [item.level for item in pack.levels]


def test_packs_last_across_reopening(tmp_path):
    path = tmp_path / "deep" / "workspace.sqlite"
    with WorkspaceDB(path) as db:
        easy = db.create_pack(TRIANGLE, "easy")
        db.add_level(easy.id, PackLevel("0,1,1", {"difficulty": 1.5}))
        db.set_levels(db.create_pack(TRIANGLE, "hard").id, [PackLevel("1,1,1"), PackLevel("1,0,1")],
                      curve={"name": "linear", "pool": 10, "targets": [1.0, 2.0]})
        db.create_pack(FLING, "easy")
    with WorkspaceDB(path) as db:
        packs = db.packs(TRIANGLE)
        assert [(p.name, [i.level for i in p.levels]) for p in packs] == [
            ("easy", ["0,1,1"]), ("hard", ["1,1,1", "1,0,1"])]
        assert packs[0].levels[0].data == {"difficulty": 1.5}
        assert packs[1].curve == {"name": "linear", "pool": 10, "targets": [1.0, 2.0]}
        assert db.move_level(packs[1].id, 0, 1).curve is None  # changed by hand: no longer the curve's
        assert [p.puzzle for p in db.packs()] == [FLING, TRIANGLE, TRIANGLE]
    with WorkspaceDB(path, read_only=True) as db:
        assert len(db.packs()) == 3
        with pytest.raises(StoreError, match="cannot write the workspace database .attempt to write a read"):
            db.create_pack(FLING, "more")


def test_names_and_slots_are_checked(db):
    pack = db.create_pack(TRIANGLE, "  two   words ")
    assert pack.name == "two words"
    assert db.create_pack(TRIANGLE, "tab\there").name == "tab here"
    for bad in ("", "   ", "x" * 81, "bell\x07"):
        with pytest.raises(WorkspaceError):
            db.create_pack(TRIANGLE, bad)
    with pytest.raises(WorkspaceError, match="already called 'two words'"):
        db.create_pack(TRIANGLE, "two words")
    assert db.create_pack(FLING, "two words").name == "two words"  # another puzzle's pack
    with pytest.raises(WorkspaceError, match="the pack is empty"):
        db.remove_level(pack.id, 0)
    with pytest.raises(WorkspaceError, match="not JSON"):
        db.add_level(pack.id, PackLevel("0,1", {"x": float("nan")}))
    with pytest.raises(NoSuchPack):
        db.pack(pack.id + 10)
    db.delete_pack(pack.id)
    with pytest.raises(NoSuchPack):
        db.delete_pack(pack.id)


# -- notes and tags ------------------------------------------------------------------------------


def test_notes_and_tags(db):
    db.set_note(TRIANGLE, "0,1,1", "  opens with the only safe jump ", ["opener", "short", "opener"])
    db.set_note(TRIANGLE, "1,1,1", "", ["later"])
    db.set_note(FLING, "0,1,1", "another puzzle's level", [])
    notes = db.notes(TRIANGLE)
    assert list(notes) == ["0,1,1", "1,1,1"]
    assert notes["0,1,1"].note == "opens with the only safe jump"
    assert notes["0,1,1"].tags == ("opener", "short")
    assert notes["1,1,1"].tags == ("later",)
    db.set_note(TRIANGLE, "1,1,1", "", [])  # nothing left: removed
    assert list(db.notes(TRIANGLE)) == ["0,1,1"]
    assert db.notes(PuzzleKey("nothing", "c" * 64)) == {}
    with pytest.raises(WorkspaceError):
        db.set_note(TRIANGLE, "0,1,1", "x" * 5000)
    with pytest.raises(WorkspaceError):
        db.set_note(TRIANGLE, "0,1,1", "", [str(i) for i in range(21)])


# -- playtests -----------------------------------------------------------------------------------

PLAYS = st.lists(st.tuples(st.sampled_from(["a", "b"]), st.floats(0, 1000), st.integers(0, 50),
                           st.booleans(), st.integers(0, 5)), min_size=1, max_size=20)


@settings(max_examples=40, deadline=None)
@given(PLAYS)
def test_playtest_figures_are_the_plays_summed_up(plays):
    with WorkspaceDB(None) as db:
        for level, seconds, moves, solved, hints in plays:
            db.record_play(TRIANGLE, Play(level, seconds, moves, moves, 0, 1, hints, solved))
        figures = {f.level: f for f in db.figures(TRIANGLE)}
        assert sorted(figures) == sorted({p[0] for p in plays})
        for level, f in figures.items():
            mine = [p for p in plays if p[0] == level]
            won = [p for p in mine if p[3]]
            assert (f.plays, f.solved, f.gave_up) == (len(mine), len(won), len(mine) - len(won))
            assert f.give_up_rate == pytest.approx((len(mine) - len(won)) / len(mine))
            assert f.median_seconds == (pytest.approx(statistics.median(p[1] for p in won)) if won else None)
            assert f.mean_hints == pytest.approx(sum(p[4] for p in mine) / len(mine))
            assert f.mean_resets == 1
        assert db.figures(FLING) == []


def test_plays_are_checked_and_stamped(db):
    stored = db.record_play(FLING, Play("1,0", 12.25, 7, 5, 2, 0, 1, True))
    assert stored.recorded.endswith("Z") and len(stored.recorded) == 20
    ((key, play),) = db.plays()
    assert key == FLING and play == stored
    for bad in (Play("1,0", -1, 1, 1, 0, 0, 0, True), Play("1,0", float("inf"), 1, 1, 0, 0, 0, True),
                Play("1,0", 1, 1, 2, 0, 0, 0, True), Play("1,0", 1, -1, 0, 0, 0, 0, False),
                Play("", 1, 1, 1, 0, 0, 0, False), Play("1,0", 1, 3, 1, 3, 0, 0, True)):
        with pytest.raises(WorkspaceError):
            db.record_play(FLING, bad)
    (figures,) = db.figures()
    assert figures_json(figures) == {
        "puzzle": "fling", "puzzle_sha256": "b" * 64, "level": "1,0", "plays": 1, "solved": 1, "gave_up": 0,
        "give_up_rate": 0.0, "median_seconds": 12.25, "median_moves": 7.0, "mean_undos": 2.0,
        "mean_resets": 0.0, "mean_hints": 1.0}


# -- schema versions and files it refuses ------------------------------------------------------------


def test_schema_version_is_kept_and_newer_ones_refused(tmp_path):
    path = tmp_path / "w.sqlite"
    with WorkspaceDB(path) as db:
        assert db.schema_version() == SCHEMA_VERSION
    with sqlite3.connect(path) as raw:
        assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        raw.execute("UPDATE schema_version SET version = ?", (SCHEMA_VERSION + 1,))
    raw.close()
    for read_only in (False, True):
        with pytest.raises(StoreError, match=f"newer curator \\(schema {SCHEMA_VERSION + 1}"):
            WorkspaceDB(path, read_only=read_only)


def test_files_that_are_no_workspace_database_are_one_line(tmp_path):
    text = tmp_path / "notes.txt"
    text.write_text("not a database at all, " * 100)
    other = tmp_path / "other.sqlite"
    with sqlite3.connect(other) as raw:
        raw.execute("CREATE TABLE things (x)")
    raw.close()
    empty = tmp_path / "empty.sqlite"
    sqlite3.connect(empty).close()
    cases = [(text, False, "not a workspace database"), (other, False, "something else"),
             (other, True, "holds no workspace database"), (empty, True, "holds no workspace database"),
             (tmp_path / "missing.sqlite", True, "no workspace database here"),
             (tmp_path, False, "cannot open")]
    for path, read_only, words in cases:
        with pytest.raises(StoreError) as caught:
            WorkspaceDB(path, read_only=read_only)
        assert words in str(caught.value) and "\n" not in str(caught.value), (path, read_only)


@pytest.mark.parametrize(("change", "words"), [
    ("UPDATE plays SET seconds = 'abc' WHERE id = 1", "play 1: seconds is 'abc', not a time"),
    ("UPDATE plays SET undos = -3 WHERE id = 2", "play 2: undos is -3, not a count"),
    ("UPDATE plays SET moves = 2.5 WHERE id = 2", "play 2: moves is 2.5, not a count"),
    ("DROP TABLE plays", "damaged workspace database (no such table: plays)"),
])
def test_plays_another_program_damaged_are_named_not_summed(tmp_path, change, words):
    path = tmp_path / "kept.sqlite"
    key = PuzzleKey("triangle", "0" * 64)
    with WorkspaceDB(path) as db:
        for seconds in (10, 20):
            db.record_play(key, Play("1" + ",0" * 14, seconds, 1, 1, 0, 0, 0, True))
    with sqlite3.connect(path) as raw:
        raw.execute(change)
    raw.close()
    with WorkspaceDB(path, read_only=True) as db, pytest.raises(StoreError) as caught:
        db.figures(key)
    said = "" if "damaged" in words else " (damaged workspace database)"
    assert str(caught.value) == f"{path}: {words}{said}"



@pytest.mark.parametrize(("change", "words"), [
    ("UPDATE pack_levels SET data = 'oops' WHERE slot = 1",
     "pack 1, slot 1: data is 'oops', not a JSON object"),
    ("UPDATE pack_levels SET data = '[1, 2]' WHERE slot = 0",
     "pack 1, slot 0: data is '[1, 2]', not a JSON object"),
    ("UPDATE pack_levels SET level = x'41' WHERE slot = 0", "pack 1, slot 0: level is b'A', not text"),
    ("UPDATE packs SET curve = '[1' WHERE id = 1", "pack 1: curve is '[1', not a JSON object"),
])
def test_packs_another_program_damaged_are_named(tmp_path, change, words):
    path = tmp_path / "kept.sqlite"
    with WorkspaceDB(path) as db:
        pack = db.create_pack(TRIANGLE, "kept")
        db.set_levels(pack.id, [PackLevel("0,1,1", {"at": 0}), PackLevel("1,0,1")], {"name": "linear"})
    with sqlite3.connect(path) as raw:
        raw.execute(change)
    raw.close()
    with WorkspaceDB(path, read_only=True) as db:
        for read in (db.packs, lambda: db.pack(pack.id)):
            with pytest.raises(StoreError) as caught:
                read()
            assert str(caught.value) == f"{path}: {words} (damaged workspace database)"


def test_a_change_while_another_program_holds_the_lock_is_refused_whole(tmp_path, monkeypatch):
    from curator import workspace_db

    monkeypatch.setattr(workspace_db, "BUSY_MS", 50)
    path = tmp_path / "kept.sqlite"
    with WorkspaceDB(path) as db:
        other = sqlite3.connect(path, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        with pytest.raises(workspace_db.WorkspaceBusy, match="locked by another program; nothing was"):
            db.record_play(TRIANGLE, Play("1" + ",0" * 14, 10, 1, 1, 0, 0, 0, True))
        other.execute("ROLLBACK")
        other.close()
        assert db.plays() == []
        db.record_play(TRIANGLE, Play("1" + ",0" * 14, 10, 1, 1, 0, 0, 0, True))
        assert len(db.plays()) == 1

def test_a_play_whose_puzzle_is_gone_is_named_not_dropped(tmp_path):
    path = tmp_path / "kept.sqlite"
    with WorkspaceDB(path) as db:
        for key in (TRIANGLE, FLING):
            db.record_play(key, Play("1" + ",0" * 14, 10, 1, 1, 0, 0, 0, True))
    with sqlite3.connect(path) as raw:  # foreign keys are off in a plain connection
        raw.execute("DELETE FROM puzzles WHERE name = 'fling'")
    raw.close()
    with WorkspaceDB(path, read_only=True) as db:
        assert [key for key, _ in db.plays(TRIANGLE)] == [TRIANGLE]
        with pytest.raises(StoreError) as caught:
            db.figures()
    assert str(caught.value) == (f"{path}: play 2: its puzzle is not in the database "
                                 "(damaged workspace database)")


def test_an_older_schema_is_migrated_one_version_at_a_time(tmp_path, monkeypatch):
    from curator import workspace_db

    path = tmp_path / "w.sqlite"
    with WorkspaceDB(path) as db:
        db.create_pack(TRIANGLE, "kept")
    later = {**workspace_db.MIGRATIONS, SCHEMA_VERSION + 1: ("ALTER TABLE packs ADD COLUMN colour TEXT",)}
    monkeypatch.setattr(workspace_db, "MIGRATIONS", later)
    monkeypatch.setattr(workspace_db, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
    said = rf"has schema {SCHEMA_VERSION}; the workspace of this curator \(`curator serve`\) brings it"
    with pytest.raises(StoreError, match=said):
        WorkspaceDB(path, read_only=True)  # reading never changes the file
    with WorkspaceDB(path) as db:
        assert db.schema_version() == SCHEMA_VERSION + 1
        assert [pack.name for pack in db.packs()] == ["kept"]
    with sqlite3.connect(path) as raw:
        assert "colour" in [row[1] for row in raw.execute("PRAGMA table_info(packs)")]
    raw.close()


def test_a_reader_sees_what_a_writer_keeps(tmp_path):
    path = tmp_path / "w.sqlite"
    with WorkspaceDB(path) as writer:
        writer.record_play(TRIANGLE, Play("0,1", 1.0, 1, 1, 0, 0, 0, True))
        with WorkspaceDB(path, read_only=True) as reader:
            assert len(reader.plays()) == 1
            writer.record_play(TRIANGLE, Play("0,1", 2.0, 1, 1, 0, 0, 0, False))
            assert [play.solved for _, play in reader.plays()] == [True, False]
