"""The browser table's record of your matches, and your rating on the ladder's scale.

Every match finished at the table (``widderkopf-play --web``) is added to
``matches.json`` in the data folder: ``$XDG_DATA_HOME/widderkopf-env/``, by default
``~/.local/share/widderkopf-env/``; ``--no-record`` keeps matches in memory. The file is
a journal in JSON lines: a header line (``{"format": "widderkopf-web-matches",
"version": 2}``), then one line per match, appended. A writer holds the lock
``.matches.json.lock`` beside it (:class:`widderkopf_env.atomic.FileLock`), so that any
number of sessions and servers on one data folder record every match (a writer waits
for another, and gives up with an error after :attr:`MatchRecord.wait`); it first reads
only the lines other writers appended since it last looked, so that a match costs the
same at any size of the record. A line cut short by a crash is dropped by the next
writer. A record of version 1 (one JSON document) is read, and rewritten as a journal
(:func:`widderkopf_env.atomic.write_atomic`) when the first match is added to it.

The rating uses the ladder's model and scale (:mod:`.ladder`): Elo points, random = 0,
the bots held at their ratings in ``ladder_reference.json``. The ladder's unit is a
duplicate deal pair; a person plays single hands, so each hand counts as one game, won
or lost (exactly one player wins a hand, R18). Only full-game hands against a bot of the
reference run are rated, and each deal once: a match whose deal seed and variant were
recorded before (a page loaded again at a table started with ``--seed``) is kept and
counted as ``repeated``, not rated. Matches against other bots or variants are kept and
listed. A single hand carries the luck of the deal, which a duplicate pair cancels, so a
hand's outcome is nearer a coin toss than a pair's: the rating leans towards the bots'
ratings; its 95% interval is ``rating +- 1.96 / sqrt(I)``, ``I`` the curvature of the
log-likelihood at its maximum (the ladder's virtual drawn game included, so that it has
a width after a clean sweep too, where a bootstrap over hands has none); it is wide for
the first few dozen hands.
"""

from __future__ import annotations

import json
import math
import os
import threading
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from widderkopf_env.atomic import FileLock, fsync_dir, write_atomic
from widderkopf_env.cli import UsageError

FORMAT, VERSION = "widderkopf-web-matches", 2
FILE_NAME = "matches.json"
PLAYER = "you"  #: the human's name in the fit
_HEADER = (json.dumps({"format": FORMAT, "version": VERSION}) + "\n").encode()
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


def data_dir() -> Path:
    """``$XDG_DATA_HOME/widderkopf-env`` (an absolute ``XDG_DATA_HOME`` only, as the XDG
    specification says), else ``~/.local/share/widderkopf-env``."""
    base = os.environ.get("XDG_DATA_HOME", "")
    root = Path(base) if os.path.isabs(base) else Path.home() / ".local" / "share"
    return root / "widderkopf-env"


def match_entry(game, seat: int, opponent: str, seed) -> dict:
    """One finished match as the record keeps it."""
    me = seat
    return {
        "finished": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "opponent": opponent, "variant": game.variant.name, "seat": seat, "seed": seed,
        "scores": {"you": game.scores[me], "bot": game.scores[1 - me]},
        "hands": [{"winner": "you" if r.winner == me else "bot", "value": r.value}
                  for r in game.results]}


def _check_entry(m) -> None:
    if not (isinstance(m, dict) and isinstance(m.get("opponent"), str)
            and isinstance(m.get("variant"), str) and isinstance(m.get("hands"), list)
            and all(isinstance(h, dict) and h.get("winner") in ("you", "bot")
                    for h in m["hands"])):
        raise ValueError(f"not a match entry: {str(m)[:80]}")


class RecordDamaged(UsageError):
    """The match record cannot be read; the message names it and says what to do."""

    show_usage = False


class Tally:
    """What the rating needs of a list of matches, added to one match at a time: hands won
    and lost per (opponent, variant), the deals seen, the matches and the repeated ones."""

    def __init__(self, matches=()):
        self.hands: dict[tuple[str, str], list[int]] = {}
        self.deals: set = set()
        self.matches = self.repeated = 0
        for m in matches:
            self.add(m)

    def add(self, m: dict) -> bool:
        """Count match ``m``; False if its deal was counted before (a repeat)."""
        self.matches += 1
        seed = m.get("seed")
        if isinstance(seed, int) and not isinstance(seed, bool):
            deal = (seed, m["variant"])
            if deal in self.deals:
                self.repeated += 1
                return False
            self.deals.add(deal)
        won = self.hands.setdefault((m["opponent"], m["variant"]), [0, 0])
        for h in m["hands"]:
            won[h["winner"] != "you"] += 1
        return True


class MatchRecord:
    """The matches played at the table: in the file at ``path`` (see the module
    documentation), or in memory (None). Safe to share between threads; :meth:`add`
    waits at most ``wait`` seconds for another writer's lock."""

    def __init__(self, path: Path | None, wait: float = 30.0):
        self.path = None if path is None else Path(path)
        self.wait = wait  #: seconds a match waits for another writer before it gives up
        self._lock = threading.Lock()
        self._memory: list[dict] = []
        self._tally = Tally()
        self._seen = (None, 0)  # the file (device, inode) and the bytes of it counted
        self._version = VERSION
        if self.path is not None:
            try:
                with open(self.path, "rb") as f:
                    self._catch_up(f.fileno())
            except FileNotFoundError:
                pass
            except OSError as err:
                raise UsageError(f"the match record {str(self.path)!r} cannot be read "
                                 f"({err.strerror or err}): move it away, or play with "
                                 "--no-record") from None

    @property
    def lock_path(self) -> Path | None:
        """The lock file of the record (beside it)."""
        return None if self.path is None else self.path.with_name(f".{self.path.name}.lock")

    @property
    def matches(self) -> list[dict]:
        """Every recorded match, read from the file (the whole file: not on a hot path)."""
        if self.path is None:
            return list(self._memory)
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return []
        rows: list[dict] = []
        self._parse(data, 0, rows.append)
        return rows

    def add(self, entry: dict) -> bool:
        """Add a finished match: under the record's lock, count the lines other writers
        appended since, then append this one; False if its deal was rated before (a
        repeat, not rated). An ``OSError`` names the record; :class:`RecordDamaged` says
        the record cannot be read (the match is not added)."""
        _check_entry(entry)
        with self._lock:
            if self.path is None:
                self._memory.append(entry)
                return self._tally.add(entry)
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                with FileLock(self.lock_path, timeout=self.wait):
                    return self._append(entry)
            except OSError as err:
                raise OSError(err.errno, err.strerror or str(err), str(self.path)) from err

    def rating(self, reference=None) -> dict:
        """:func:`rate` of the recorded matches (from the counts kept as they are added)."""
        with self._lock:
            return _rate_tally(self._tally, reference)

    # -- the journal ---------------------------------------------------------------------------

    def _append(self, entry: dict) -> bool:
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND | _CLOEXEC, 0o666)
        try:
            end = self._catch_up(fd)
            if self._version != VERSION:  # an older record: rewritten once as a journal
                rows: list[dict] = []
                self._parse(os.pread(fd, end, 0), 0, rows.append)
                write_atomic(self.path, _HEADER + b"".join(map(_line, rows)))
                os.close(fd)
                fd = os.open(self.path, os.O_RDWR | os.O_APPEND | _CLOEXEC)
                self._seen, self._version = (_identity(fd), os.fstat(fd).st_size), VERSION
            elif end > self._seen[1]:  # a line a crash cut short
                os.ftruncate(fd, self._seen[1])
            line = _line(entry)
            fresh = self._seen[1] == 0
            if fresh:  # a new record: its header and first line in one write
                line = _HEADER + line
            _write_all(fd, line)
            os.fsync(fd)
            if fresh:
                fsync_dir(self.path.parent)
            self._seen = (self._seen[0], self._seen[1] + len(line))
            return self._tally.add(entry)
        finally:
            os.close(fd)

    def _catch_up(self, fd: int) -> int:
        """Count what the file ``fd`` holds beyond what was counted (all of it if it is
        another file now, or shorter); its size. Reads only the new bytes."""
        ident, size = _identity(fd), os.fstat(fd).st_size
        seen_ident, done = self._seen
        tally, version = self._tally, self._version
        if ident != seen_ident or size < done:
            tally, version, done = Tally(), VERSION, 0
        if size > done:  # a damaged record raises here, and the counts stay as they were
            version, used = self._parse(os.pread(fd, size - done, done), done, tally.add)
            done += used
        self._tally, self._version, self._seen = tally, version, (ident, done)
        return size

    def _parse(self, data: bytes, start: int, each) -> tuple[int, int]:
        """Call ``each`` with every match of ``data``, the file's bytes from ``start`` on;
        the version and the bytes used: complete lines only (a cut line at the end is
        left), or, at the start of a version 1 record, the whole document."""
        where = "the header"
        try:
            if start == 0 and b"\n" not in data and _HEADER.startswith(data):
                return VERSION, 0  # empty, or a first write a crash cut short
            if start == 0:
                head = data.split(b"\n", 1)[0]
                try:
                    doc = json.loads(head)
                except (ValueError, UnicodeDecodeError, RecursionError):
                    doc = None  # a version 1 document's first line
                if not (isinstance(doc, dict) and doc.get("format") == FORMAT
                        and doc.get("version") == VERSION):
                    for m in _version_1(data):
                        each(m)
                    return 1, len(data)
                used, data = len(head) + 1, data[len(head) + 1:]
            else:
                used = 0
            complete = data[:data.rfind(b"\n") + 1]
            lines = complete[:-1].split(b"\n") if complete else []
            rows = _all_at_once(lines)
            if rows is None:  # a damaged line: found one by one
                at, rows = start + used, []
                for raw in lines:
                    where = f"the line at byte {at}"
                    rows.append(json.loads(raw))
                    _check_entry(rows[-1])
                    at += len(raw) + 1
            for m in rows:
                each(m)
            return VERSION, used + len(complete)
        except (ValueError, UnicodeDecodeError, RecursionError) as err:
            if isinstance(err, RecursionError):
                err = ValueError("nested too deeply")
            raise RecordDamaged(f"the match record {str(self.path)!r} cannot be read ({where}: "
                                f"{err}): move it away, or play with --no-record") from None


def _version_1(data: bytes) -> list[dict]:
    try:
        doc = json.loads(data)
    except ValueError:
        doc = None
    if not (isinstance(doc, dict) and doc.get("format") == FORMAT
            and doc.get("version") == 1 and isinstance(doc.get("matches"), list)):
        raise ValueError(f"expected a {FORMAT} journal (version {VERSION}) or document "
                         "(version 1)")
    for m in doc["matches"]:
        _check_entry(m)
    return doc["matches"]


def _all_at_once(lines: list[bytes]) -> list[dict] | None:
    """The matches of ``lines`` parsed as one JSON array (one call, fast), or None if
    any line is not one match entry."""
    if len(lines) < 2:
        return None
    try:
        rows = json.loads(b"[" + b",".join(lines) + b"]")
        if len(rows) != len(lines):
            return None
        for m in rows:
            _check_entry(m)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None
    return rows


def _line(entry: dict) -> bytes:
    return (json.dumps(entry, ensure_ascii=False, separators=(",", ":")) + "\n").encode()


def _identity(fd: int) -> tuple[int, int]:
    st = os.fstat(fd)
    return st.st_dev, st.st_ino


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def rate(matches, reference=None) -> dict:
    """Your rating from ``matches`` (see the module documentation): ``rating`` and
    ``ci95`` (None before any rated hand), the hands won and lost per rated bot, the bots
    and variants that are not rated, and the matches whose deal was rated before."""
    return _rate_tally(Tally(matches), reference)


def _rate_tally(tally: Tally, reference=None) -> dict:
    from .ladder import (  # the ladder and its arena only once a match is over
        ELO_SCALE,
        PRIOR_DRAWS,
        Matchup,
        expected_score,
        fit_ratings,
        load_reference,
    )

    players = load_reference(reference)["players"]
    counts: dict[str, list[int]] = {}
    unrated = set()
    for (opponent, variant), (won, lost) in tally.hands.items():
        if variant != "full" or opponent not in players:
            unrated.add(opponent if variant == "full" else f"{opponent} ({variant})")
            continue
        counts[opponent] = [won, lost]
    out = {"scale": "Elo, as the ladder's (random = 0)", "rating": None, "ci95": None,
           "hands": sum(w + lost for w, lost in counts.values()),
           "opponents": {o: {"won": w, "lost": lost, "reference": players[o]["rating"]}
                         for o, (w, lost) in counts.items()},
           "unrated": sorted(unrated), "matches": tally.matches, "repeated": tally.repeated}
    if counts:
        matchups = [Matchup(PLAYER, o, w, 0, lost, 0.0, (0.0, 0.0))
                    for o, (w, lost) in counts.items()]
        fixed = {o: players[o]["rating"] for o in counts}
        rating = fit_ratings(matchups, fixed)[PLAYER]
        p = expected_score([rating - r for r in fixed.values()])
        n = np.array([m.pairs + PRIOR_DRAWS for m in matchups])
        half = 1.96 / math.sqrt(float((n * p * (1 - p)).sum())) * ELO_SCALE / math.log(10)
        out["rating"], out["ci95"] = round(rating), [round(rating - half), round(rating + half)]
    return out
