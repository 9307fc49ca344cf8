"""The browser table's match record (``widderkopf_env.agents.web_record``) loses no match:
sessions of one server and servers on one data folder finishing together each get their
match recorded (a lock beside the record, appended lines); a match added to a large
record reads only what other writers appended; a line cut short by a crash is dropped,
an older record (one JSON document) is read and kept; a record damaged while serving
gives the page a message and the move its answer; a deal is rated once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading

import pytest
from web_client import Client, running_table

from widderkopf_env.agents import web_record
from widderkopf_env.agents.web_play import TableConfig, TableServer
from widderkopf_env.agents.web_record import MatchRecord, RecordDamaged, rate
from widderkopf_env.atomic import FileLock
from widderkopf_env.registry import load_agent


def entry(n: int, seed=None, won: int = 2, lost: int = 1) -> dict:
    return {"finished": "2000-01-01T00:00:00+00:00", "opponent": "heuristic",
            "variant": "full", "seat": 0, "seed": seed, "id": n,
            "scores": {"you": won, "bot": lost},
            "hands": [{"winner": "you", "value": 1}] * won + [{"winner": "bot", "value": 1}] * lost}


def journal(path) -> list[dict]:
    header, *lines = path.read_bytes().split(b"\n")
    assert json.loads(header) == {"format": "widderkopf-web-matches", "version": 2}
    assert lines[-1] == b""  # every line whole
    return [json.loads(line) for line in lines[:-1]]


def test_threads_adding_together_record_every_match(tmp_path):
    path = tmp_path / "data" / "matches.json"
    record = MatchRecord(path)
    threads, rounds = 8, 5
    barrier = threading.Barrier(threads, timeout=60)
    errors = []

    def add(t):
        try:
            for r in range(rounds):
                barrier.wait()
                record.add(entry(t * rounds + r))
        except Exception as err:  # reported below
            errors.append(err)

    workers = [threading.Thread(target=add, args=(t,)) for t in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(120)
    assert errors == []
    assert sorted(m["id"] for m in MatchRecord(path).matches) == list(range(threads * rounds))
    assert record.rating()["matches"] == threads * rounds
    assert [p.name for p in path.parent.iterdir()] == ["matches.json"]  # no lock or temporary


def finish_and_new(session, barrier) -> None:
    """Play ``session``'s match to its end, starting with the others (the same deal and
    moves in every session: they finish close together), then start the next one."""
    barrier.wait()
    state = session.state()
    while not state["over"]:
        state = session.move({"step": state["step"], "action": state["legal"][0]["action"]})
    session.new({"match": state["match"]})


def test_sessions_of_one_server_finishing_together_record_every_match(tmp_path):
    path = tmp_path / "matches.json"
    config = TableConfig(opponent="heuristic", make_bot=lambda: load_agent("random"),
                         record=MatchRecord(path), seed=5)
    server = TableServer(config)  # not serving: the sessions are driven directly
    try:
        sessions = [server.open_session() for _ in range(8)]
        errors = []

        def play(session):
            try:
                for _ in range(5):
                    finish_and_new(session, barrier)
            except Exception as err:  # reported below
                errors.append(err)

        barrier = threading.Barrier(8, timeout=60)
        workers = [threading.Thread(target=play, args=(s,)) for s in sessions]
        for w in workers:
            w.start()
        for w in workers:
            w.join(300)
    finally:
        server.server_close()
    assert errors == []
    assert len(MatchRecord(path).matches) == 40
    assert MatchRecord(path).rating()["matches"] == 40


SERVER = """
import sys, time
from pathlib import Path
from widderkopf_env.agents.web_play import TableConfig, TableServer
from widderkopf_env.agents.web_record import MatchRecord
from widderkopf_env.registry import load_agent
path, go, n = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
config = TableConfig(opponent="heuristic", make_bot=lambda: load_agent("random"),
                     record=MatchRecord(path))
server = TableServer(config)  # on 127.0.0.1; its sessions are driven directly
session = server.open_session()
for _ in range(6000):
    if go.exists():
        break
    time.sleep(0.005)
for _ in range(n):
    state = session.state()
    while not state["over"]:
        state = session.move({"step": state["step"], "action": state["legal"][0]["action"]})
    assert state["summary"]["rating"]["save_error"] is None, state["summary"]
    session.new({"match": state["match"]})
server.server_close()
print(config.record.rating()["matches"])
"""


def test_two_servers_on_one_data_folder_record_every_match(tmp_path):
    path, go = tmp_path / "matches.json", tmp_path / "go"
    MatchRecord(path).add(entry(-1))
    procs = [subprocess.Popen([sys.executable, "-c", SERVER, str(path), str(go), "15"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(2)]
    go.touch()
    outs = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    matches = MatchRecord(path).matches
    assert len(matches) == 31 and all(m["opponent"] == "heuristic" for m in matches)
    # each server counted the other's matches too, up to its last one
    assert max(int(out) for out, _ in outs) == 31


class Reads:
    """Counts the bytes read from files with ``os.read``/``os.pread`` and refuses whole-file
    reads through ``open``/``Path.read_bytes`` of the record."""

    def __init__(self, monkeypatch, path):
        self.bytes = 0
        real_read, real_pread = os.read, os.pread

        def read(fd, n):
            data = real_read(fd, n)
            self.bytes += len(data)
            return data

        def pread(fd, n, offset):
            data = real_pread(fd, n, offset)
            self.bytes += len(data)
            return data

        monkeypatch.setattr(os, "read", read)
        monkeypatch.setattr(os, "pread", pread)
        real_open = open

        def guarded_open(file, *args, **kwargs):
            assert os.fspath(file) != os.fspath(path), "the whole record was opened and read"
            return real_open(file, *args, **kwargs)

        monkeypatch.setattr("builtins.open", guarded_open)


def test_a_match_added_to_a_large_record_reads_only_what_others_appended(tmp_path, monkeypatch):
    path = tmp_path / "matches.json"
    row = json.dumps(entry(0, won=5, lost=3), separators=(",", ":")).encode() + b"\n"
    rows = 45_000_000 // len(row)
    path.write_bytes(b'{"format": "widderkopf-web-matches", "version": 2}\n' + row * rows)
    size = path.stat().st_size
    assert size > 44_000_000
    record = MatchRecord(path)  # reads the record once, to check it and count it
    assert record.rating()["hands"] == 8 * rows
    reads = Reads(monkeypatch, path)
    record.add(entry(1))
    assert reads.bytes == 0  # nothing new to read: the match is appended
    with path.open("ab") as other:  # another server's match
        other.write(json.dumps(entry(2)).encode() + b"\n")
    grown = path.stat().st_size
    record.add(entry(3))
    assert reads.bytes == grown - size - len(json.dumps(entry(1), separators=(",", ":"))) - 1
    assert record.rating()["matches"] == rows + 3 and reads.bytes < 1000
    monkeypatch.undo()
    with path.open("rb") as f:
        f.seek(size)
        assert [json.loads(line)["id"] for line in f] == [1, 2, 3]


def test_a_line_cut_short_by_a_crash_is_dropped(tmp_path):
    path = tmp_path / "matches.json"
    record = MatchRecord(path)
    record.add(entry(0))
    with path.open("ab") as f:
        f.write(json.dumps(entry(1)).encode()[:30])  # a write a crash cut short
    assert [m["id"] for m in MatchRecord(path).matches] == [0]
    MatchRecord(path).add(entry(2))
    assert [m["id"] for m in journal(path)] == [0, 2]


def test_an_older_record_is_read_and_rewritten_as_a_journal(tmp_path):
    path = tmp_path / "matches.json"
    old = {"format": "widderkopf-web-matches", "version": 1, "matches": [entry(0), entry(1)]}
    path.write_text(json.dumps(old, indent=1) + "\n")
    record = MatchRecord(path)
    assert record.matches == old["matches"] and record.rating()["matches"] == 2
    record.add(entry(2))
    assert [m["id"] for m in journal(path)] == [0, 1, 2]
    assert MatchRecord(path).rating()["matches"] == 3
    assert [p.name for p in tmp_path.iterdir()] == ["matches.json"]


def test_a_damaged_record_names_the_place(tmp_path):
    path = tmp_path / "matches.json"
    MatchRecord(path).add(entry(0))
    record = MatchRecord(path)
    with path.open("ab") as f:
        f.write(b"[" * 100_000 + b"\n")
    with pytest.raises(RecordDamaged, match=r"matches.json.*line at byte \d+.*nested too deeply"):
        record.add(entry(1))
    assert record.rating()["matches"] == 1  # the matches counted before
    path.write_bytes(b"{damaged")  # another file now, shorter
    with pytest.raises(RecordDamaged, match="cannot be read"):
        record.add(entry(1))
    assert record.rating()["matches"] == 1
    path.write_bytes(b"[" * 100_000 + b"\n")
    with pytest.raises(RecordDamaged, match="move it away, or play with --no-record"):
        MatchRecord(path)
    assert path.read_bytes().endswith(b"[\n")  # nothing appended to a damaged record


def test_a_record_that_cannot_be_written_is_named(tmp_path, monkeypatch):
    path = tmp_path / "matches.json"
    record = MatchRecord(path)
    real = os.open

    def read_only(name, flags, *args):
        if flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT):
            raise PermissionError(13, "Permission denied", os.fspath(name))
        return real(name, flags, *args)

    monkeypatch.setattr(os, "open", read_only)
    with pytest.raises(OSError) as err:
        record.add(entry(0))
    assert err.value.filename == str(path) and err.value.strerror == "Permission denied"


def test_a_record_damaged_while_serving_keeps_the_moves_answer(tmp_path):
    path = tmp_path / "matches.json"
    config = TableConfig(opponent="heuristic", make_bot=lambda: load_agent("heuristic"),
                         record=MatchRecord(path), seed=7)
    with running_table(config) as server:
        client = Client(server)
        state = client.state()
        path.write_text("{damaged")
        while not state["over"]:
            status, body = client.post("/api/move", {"step": state["step"],
                                                     "action": state["legal"][0]["action"]})
            assert status == 200, body
            state = json.loads(body)
    rating = state["summary"]["rating"]
    assert "could not be recorded" in rating["save_error"] and str(path) in rating["save_error"]
    assert "move it away" in rating["save_error"] and rating["matches"] == 0
    assert path.read_text() == "{damaged"


def test_a_seeded_deal_is_rated_once(tmp_path):
    path = tmp_path / "matches.json"
    config = TableConfig(opponent="heuristic", make_bot=lambda: load_agent("heuristic"),
                         record=MatchRecord(path), seed=7)
    with running_table(config) as server:
        summaries = []
        for _ in range(2):  # the page loaded twice: match 0, the same deal, each time
            client = Client(server)
            state = client.state()
            while not state["over"]:
                state = client.call("/api/move", {"step": state["step"],
                                                  "action": state["legal"][0]["action"]})
            summaries.append(state["summary"])
    first, second = (s["rating"] for s in summaries)
    assert first["matches"] == 1 and second["matches"] == 2  # both kept
    assert second["repeated"] == 1 and second["hands"] == first["hands"]  # rated once
    assert second["rating"] == first["rating"]
    assert first["repeated_deal"] is False and second["repeated_deal"] is True
    assert rate(journal(path)) == {k: v for k, v in second.items()
                                   if k not in ("recorded", "save_error", "repeated_deal")}


def test_the_repeat_rule_counts_a_deal_once():
    games = [entry(0, seed=9), entry(1, seed=9, won=0, lost=3), entry(2, seed=10),
             entry(3), entry(4)]
    out = rate(games)
    assert out["repeated"] == 1 and out["matches"] == 5
    assert out["opponents"]["heuristic"]["won"] == 8 and out["hands"] == 12
    assert web_record.Tally([entry(0, seed=9), dict(entry(1, seed=9), variant="medium")]).repeated == 0


def test_a_first_write_cut_short_is_started_again(tmp_path):
    path = tmp_path / "matches.json"
    path.write_bytes(b'{"format": "widderkopf-we')  # the header a crash cut short
    record = MatchRecord(path)
    assert record.matches == [] and record.rating()["matches"] == 0
    record.add(entry(0))
    assert [m["id"] for m in journal(path)] == [0]


def test_a_writer_that_holds_the_lock_too_long_gives_an_error(tmp_path):
    path = tmp_path / "matches.json"
    record = MatchRecord(path, wait=0.2)
    with FileLock(record.lock_path):  # another writer, stuck
        with pytest.raises(OSError, match="held by another writer") as err:
            record.add(entry(0))
    assert err.value.filename == str(path)
    record.add(entry(1))
    assert [m["id"] for m in journal(path)] == [1]


def test_a_record_nested_deeply_is_refused_in_one_line(tmp_path):
    path = tmp_path / "matches.json"
    path.write_bytes(b"[" * 100_000)
    with pytest.raises(RecordDamaged, match="nested too deeply.*move it away"):
        MatchRecord(path)


def test_a_record_that_is_a_link_is_written_through(tmp_path):
    target, path = tmp_path / "synced" / "matches.json", tmp_path / "matches.json"
    target.parent.mkdir()
    path.symlink_to(target)
    MatchRecord(path).add(entry(0))
    MatchRecord(path).add(entry(1))
    assert path.is_symlink() and [m["id"] for m in journal(target)] == [0, 1]
