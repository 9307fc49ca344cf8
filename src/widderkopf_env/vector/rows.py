"""One game of a batch in the shape of a scalar :class:`~widderkopf_env.rules.Game`.

:class:`GameRow` copies game ``i`` of a :class:`~widderkopf_env.vector.engine.VecGame`
into plain Python ints and lists with the scalar engine's field names, so that
:meth:`PlayerView.of <widderkopf_env.view.PlayerView.of>` can build the view an
:class:`~widderkopf_env.agent.Agent` reads (one game at a time: the slow path for
opponents that are not vectorised), and tests can compare a batch with scalar games
field by field.

:func:`load` and :func:`store` carry games between a batch's rows and the rules'
reference, :class:`~widderkopf_env.rules.PyGame`: the batch's pure-Python fallback steps
each game by loading it, moving it with the reference's own methods and storing it back.
"""

from __future__ import annotations

from itertools import chain
from operator import attrgetter

import numpy as np

from ..engine_types import RESULT_FIELDS, STATE_FIELDS, Phase
from ..rules import HandResult, PyGame
from ..view import PlayerView

OVER = Phase.OVER
#: The fields held as ints, and as per-player (or per-pile) lists, with the batch's names
#: (a GameRow and a loaded PyGame alike).
SCALARS = ("num_hands", "first_dealer", "hand_no", "dealer", "phase", "trump", "chooser",
           "lead", "lead_pile", "leader", "level", "cracker", "recracker")
LISTS = ("scores", "hand", "up", "down", "upbits", "covered", "discard", "won",
         "trick_points", "played")


class GameRow:
    """A read-only snapshot of game ``i`` with :class:`Game`'s attribute names
    (:meth:`of_games`: many at once, reading each array once)."""

    def __init__(self, game, i: int):
        _fill(self, _Columns(game, np.array([i], np.int64)), 0)

    @classmethod
    def of_games(cls, game, idx) -> list[GameRow]:
        """``[GameRow(game, i) for i in idx]``, each array of ``game`` read once for all."""
        columns = _Columns(game, np.asarray(idx, np.int64))
        rows = [cls.__new__(cls) for _ in range(len(columns.idx))]
        for r, row in enumerate(rows):
            _fill(row, columns, r)
        return rows

    def escalation_rights(self) -> tuple[bool, bool]:
        return self._rights

    def view(self, player: int) -> PlayerView:
        return PlayerView.of(self, player)


class _Columns:
    """The fields of games ``idx`` as Python lists, one entry per game."""

    def __init__(self, game, idx: np.ndarray):
        self.variant, self.idx = game.variant, idx
        self.fields = {name: getattr(game, name)[idx].tolist() for name in SCALARS + LISTS}
        self.current, self.legal = game.current[idx].tolist(), game.legal[idx].tolist()
        self.tricks = _played_tricks(game, idx)
        self.hlen, self.history = game.hlen[idx].tolist(), game.history[idx].tolist()
        self.rights = game.escalation_rights(idx).tolist()
        self.up, self.down = game.deal_up[idx].tolist(), game.deal_down[idx].tolist()
        ended = idx[game.res_count[idx] > 0]
        self.results = dict(zip(ended.tolist(), hand_results(game, ended), strict=True))


def _played_tricks(game, idx: np.ndarray) -> list[list[tuple]]:
    """Each game's closed tricks as tuples; only those rows of ``game.tricks`` are read
    (the unplayed rest, 4 ints each, would cost more to convert than the play itself)."""
    n = game.ntricks[idx]
    played = np.arange(game.tricks.shape[1]) < n[:, None]
    flat = list(map(tuple, game.tricks[idx][played].tolist()))
    ends = np.cumsum(n).tolist()
    return [flat[end - k:end] for end, k in zip(ends, n.tolist(), strict=True)]


def _fill(row: GameRow, c: _Columns, r: int) -> None:
    """Set ``row``'s attributes from entry ``r`` of the columns ``c``."""
    row.variant = c.variant
    for name in SCALARS + LISTS:
        setattr(row, name, c.fields[name][r])
    row.current = None if c.current[r] < 0 else c.current[r]
    row.tricks = c.tricks[r]
    row.legal_mask, row._rights = c.legal[r], tuple(c.rights[r])
    i = int(c.idx[r])
    row.results = [c.results[i]] if i in c.results else []
    # the hand's public record: its deal's piles and its actions (hands not needed)
    up, down, k = c.up[r], c.down[r], c.variant.piles  # the piles dealt (missing: -1)
    deal = (([], up[:k], down[:k]), ([], up[5:5 + k], down[5:5 + k]))
    row.deals = [None] * (row.hand_no - (row.phase == OVER)) + [deal]
    row.history, row.hand_start = c.history[r][:c.hlen[r]], 0


def hand_result(game, i: int) -> HandResult:
    """The latest finished hand of game ``i`` (its ``res_*`` arrays) as a HandResult."""
    return hand_results(game, np.array([i], np.int64))[0]


def hand_results(game, idx) -> list[HandResult]:
    """:func:`hand_result` of each game of ``idx``, each ``res_*`` array read once."""
    idx = np.asarray(idx, np.int64)
    columns = []
    for name in RESULT_FIELDS:
        values = getattr(game, "res_" + name)[idx]
        columns.append([tuple(v) for v in values.tolist()] if values.ndim == 2
                       else values.tolist())
    return [HandResult(*values) for values in zip(*columns, strict=True)]


# --- the reference's games over a batch's rows ----------------------------------------------

#: What a loaded game holds: every state field of a PyGame but ``_legal`` (it computes it).
FIELDS = tuple(f for f in STATE_FIELDS if f != "_legal")
_NO_TRICK = (-1,) * 4


def _column(game, idx, name: str, next_deals) -> list:
    """Field ``name`` of games ``idx`` as a PyGame holds it, one value per game."""
    if name in SCALARS or name in LISTS:
        return getattr(game, name)[idx].tolist()
    if name == "current":
        return [None if c < 0 else c for c in game.current[idx].tolist()]
    if name == "initial_scores":
        return [tuple(s) for s in game.initial_scores[idx].tolist()]
    # the records: a None per entry (see load)
    if name == "history":  # the live hand's actions: hand_start is 0
        return [[None] * n for n in game.hlen[idx].tolist()]
    if name == "tricks":
        return [[None] * n for n in game.ntricks[idx].tolist()]
    if name == "results":
        return [[None] * n for n in game.res_count[idx].tolist()]
    if name == "deals":  # the hands dealt, then the deal of the hand about to begin
        hands = game.hand_no[idx].tolist()
        if next_deals is None:
            return [[None] * (h + 1) for h in hands]
        return [[None] * h + [d] for h, d in zip(hands, next_deals, strict=True)]
    if name == "variant":
        return [game.variant] * len(idx)
    if name in ("seed", "hand_start"):
        return [0] * len(idx)
    raise KeyError(f"no column for the PyGame field {name!r}")


def load(game, idx, fields=FIELDS, next_deals=None) -> list[PyGame]:
    """Games ``idx`` of ``game`` (a :class:`~widderkopf_env.vector.engine.VecGame`) as
    :class:`~widderkopf_env.rules.PyGame` objects, the rules' reference, holding ``fields``
    (the default: all; a method that reads fewer may be given fewer).

    The live hand is the game's whole history (``hand_start`` 0). The records that the
    rules only append to and count (``history``, ``tricks``, ``results``) hold a None per
    entry; so does ``deals``, one per hand dealt, then ``next_deals[r]`` if given: the deal
    that the reference's hand start reads for the hand about to begin in game ``idx[r]``
    (card ids, as :func:`~widderkopf_env.deals.seeded_variant_deal` gives them). The seed
    is 0: a hand the reference starts without a deal given is dealt from it, and the batch
    deals that hand again from its deal source.
    :func:`store` writes back what the reference changed and appended."""
    idx = np.asarray(idx, np.int64)
    columns = [_column(game, idx, name, next_deals) for name in fields]
    make = PyGame._from_fields
    return [make(dict(zip(fields, values, strict=True)))
            for values in zip(*columns, strict=True)]


def store(game, idx, games) -> None:
    """Write each of ``games`` (loaded by :func:`load`, then moved by the reference) into
    its row of ``idx``: the state, the legal set, the trick record, a hand result it
    appended, and the length of the hand's history (the batch records the actions)."""
    if not games:
        return
    idx = np.asarray(idx, np.int64)
    ints, lists = attrgetter(*SCALARS), attrgetter(*LISTS, "initial_scores")
    numbers = [(*ints(g), *chain.from_iterable(lists(g)),
                -1 if g.current is None else g.current, g.legal_mask,
                len(g.history) - g.hand_start, len(g.tricks), len(g.results)) for g in games]
    flat = np.fromiter(chain.from_iterable(numbers), np.int64,  # each row's numbers in order
                       len(games) * len(numbers[0])).reshape(len(games), -1)
    j = 0
    for name in SCALARS + LISTS + ("initial_scores", "current", "legal", "hlen", "ntricks",
                                  "res_count"):
        array = getattr(game, name)
        width = array.shape[1] if array.ndim == 2 else 0
        array[idx] = flat[:, j:j + width] if width else flat[:, j]
        j += width or 1
    ntricks = flat[:, -2]
    game.tricks[idx[ntricks == 0]] = _NO_TRICK  # a new hand: no trick yet
    closed = [r for r, g in enumerate(games) if g.tricks and g.tricks[-1] is not None]
    if closed:  # a trick each of these moves closed
        game.tricks[idx[closed], [ntricks[r] - 1 for r in closed]] = [
            games[r].tricks[-1] for r in closed]
    for r, g in enumerate(games):
        if g.results and g.results[-1] is not None:  # a hand this move ended
            for name in RESULT_FIELDS:  # HandResult field x in the array res_x
                getattr(game, "res_" + name)[idx[r]] = getattr(g.results[-1], name)
