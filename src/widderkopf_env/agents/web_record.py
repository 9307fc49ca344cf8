"""The browser table's record of your matches, and your rating on the ladder's scale.

Every match finished at the table (``widderkopf-play --web``) is added to
``matches.json`` in the data folder: ``$XDG_DATA_HOME/widderkopf-env/``, by default
``~/.local/share/widderkopf-env/``. The file is rewritten whole and atomically
(:func:`widderkopf_env.atomic.write_atomic`); ``--no-record`` keeps matches in memory.

The rating uses the ladder's model and scale (:mod:`.ladder`): Elo points, random = 0,
the bots held at their ratings in ``ladder_reference.json``. The ladder's unit is a
duplicate deal pair; a person plays single hands, so each hand counts as one game, won
or lost (exactly one player wins a hand, R18). Only full-game hands against a bot of the
reference run are rated; matches against other bots or variants are kept and listed.
A single hand carries the luck of the deal, which a duplicate pair cancels, so a hand's
outcome is nearer a coin toss than a pair's: the rating leans towards the bots' ratings
its 95% interval is ``rating +- 1.96 / sqrt(I)``, ``I`` the curvature of the
log-likelihood at its maximum (the ladder's virtual drawn game included, so that it has
a width after a clean sweep too, where a bootstrap over hands has none); it is wide for
the first few dozen hands.
"""

from __future__ import annotations

import json
import math
import os
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from widderkopf_env.atomic import write_atomic
from widderkopf_env.cli import UsageError

FORMAT, VERSION = "widderkopf-web-matches", 1
FILE_NAME = "matches.json"
PLAYER = "you"  #: the human's name in the fit


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


class MatchRecord:
    """The matches played at the table: in the file at ``path``, or in memory (None)."""

    def __init__(self, path: Path | None):
        self.path = None if path is None else Path(path)
        self.matches: list[dict] = self._read() if self.path is not None else []

    def _read(self) -> list[dict]:
        if not self.path.exists():
            return []
        try:
            doc = json.loads(self.path.read_text(encoding="utf-8"))
            if not (isinstance(doc, dict) and doc.get("format") == FORMAT
                    and doc.get("version") == VERSION and isinstance(doc.get("matches"), list)):
                raise ValueError(f"expected a {FORMAT} version {VERSION} document")
            for m in doc["matches"]:
                _check_entry(m)
        except (ValueError, UnicodeDecodeError) as err:
            raise UsageError(f"the match record {str(self.path)!r} cannot be read ({err}): "
                             "move it away, or play with --no-record") from None
        return doc["matches"]

    def add(self, entry: dict) -> None:
        """Add a finished match; with a file, reread it first (another table may have
        added matches since) and write it back atomically."""
        if self.path is not None:
            self.matches = self._read()
        self.matches.append(entry)
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            doc = {"format": FORMAT, "version": VERSION, "matches": self.matches}
            write_atomic(self.path, (json.dumps(doc, indent=1) + "\n").encode())

    def rating(self, reference=None) -> dict:
        """:func:`rate` of the recorded matches."""
        return rate(self.matches, reference)


def rate(matches, reference=None) -> dict:
    """Your rating from ``matches`` (see the module documentation): ``rating`` and
    ``ci95`` (None before any rated hand), the hands won and lost per rated bot, and the
    bots and variants that are not rated."""
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
    for m in matches:
        if m["variant"] != "full" or m["opponent"] not in players:
            unrated.add(m["opponent"] if m["variant"] == "full"
                        else f"{m['opponent']} ({m['variant']})")
            continue
        won = counts.setdefault(m["opponent"], [0, 0])
        for h in m["hands"]:
            won[h["winner"] != "you"] += 1
    out = {"scale": "Elo, as the ladder's (random = 0)", "rating": None, "ci95": None,
           "hands": sum(w + lost for w, lost in counts.values()),
           "opponents": {o: {"won": w, "lost": lost, "reference": players[o]["rating"]}
                         for o, (w, lost) in counts.items()},
           "unrated": sorted(unrated), "matches": len(matches)}
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
