"""A batched Widderkopf rules engine: N matches as numpy arrays (RULES R1-R20).

:class:`VecGame` holds N independent matches in struct-of-arrays form. Card sets are
uint64 bit masks (bit ``c`` = card id ``c``, as the 36-bit ints of the scalar engine);
every other field is an int64 array with one entry per game (or per game and player).
The fields have the names and meanings of :class:`~widderkopf_env.rules.Game`'s:

``hand``, ``upbits``, ``covered``, ``played``, ``won`` (N, 2) uint64; ``up``, ``down``
(N, 10) card or -1 (pile ``i`` of player ``i // 5``); ``discard``, ``trick_points``,
``scores``, ``initial_scores`` (N, 2); ``phase``, ``current`` (-1 once over), ``trump``
(-1 until named), ``dealer``, ``first_dealer``, ``chooser``, ``leader``, ``lead`` (-1 if
none), ``lead_pile``, ``level``, ``cracker``, ``recracker``, ``hand_no``, ``num_hands``,
``ntricks`` (N,); ``tricks`` (N, T, 4): ``(leader, led, other, winner)`` of the first
``ntricks`` tricks (T: the variant's tricks, 17 in the full game); ``legal`` (N,) uint64:
the legal action bits of the player to act.

The hand's public record, as the scalar engine keeps it for
:class:`~widderkopf_env.view.PlayerView`: ``deal_up``, ``deal_down`` (N, 10) the piles as
dealt, and ``history`` (N, 48) the hand's first ``hlen`` actions.

The latest finished hand of each game is in the ``res_*`` arrays (the
:class:`~widderkopf_env.rules.HandResult` fields; ``res_count`` hands finished so far).

Every method takes ``idx``, an int64 array of distinct game indices, and works on those
games only. :meth:`illegal` says which actions are not legal; callers reject those
first, as the vector env does (:meth:`apply` raises ``ValueError`` for one, before
anything changes). The deals come from a
``deal_source(idx, hand_no) -> (hand (k, 2) uint64, up (k, 10), down (k, 10))`` given at
construction, so a match's later hands (R20 included) are dealt as they start.

Variants: ``VecGame(n, deal_source, variant="small")`` plays a smaller
:class:`~widderkopf_env.cards.Variant` (all N games the same one; the deal source must
deal it): the same rules on its deck, ending a hand after ``variant.tricks`` tricks and
scoring it with the variant's thresholds; its missing piles stay -1 (pile ``i`` of player
``p`` keeps index ``5 * p + i``), and without 7s there is no Spitzer
(``res_spitzer`` -1). ``variant`` and ``tables`` (its numbers as numpy values,
:func:`~widderkopf_env.vector.tables.variant_tables`) are attributes of the batch.

The compiled core: where the C core is built (``csrc/``, :mod:`widderkopf_env.compiled`),
:meth:`apply`, the deal of each new hand and :func:`~.encode.encode` run in C over these
same arrays, in place, one call per batch, on ``num_threads`` threads (an attribute; each
thread owns whole games, so any count gives the same arrays). The core checks what it is
given: an illegal action or arrays out of range raise ``ValueError`` before anything
changes. :data:`ACCELERATED` says whether the core is available.

The pure-Python fallback (no compiler, ``WIDDERKOPF_PURE_PYTHON=1``, or
``VecGame(..., accelerated=False)`` for one batch) runs the rules' reference itself: each
step loads every game of ``idx`` from its row into a :class:`~widderkopf_env.rules.PyGame`
(:func:`~.rows.load`), applies the action with the PyGame's own legal set and
:meth:`~widderkopf_env.rules.PyGame.apply` (a hand's end and scoring included), starts a
new hand of a match with the PyGame's own hand start on the deal from ``deal_source``,
and writes the rows back (:func:`~.rows.store`). The differential tests step it beside
the core, so they tie the C core to the reference. Why this design rather than a batched
numpy twin of the rules: each rule procedure then has two homes, the reference (read by
the single-game envs, the agents and the docs too) and the C core; a batched twin would
be a third copy or, to keep two, would have to replace the reference, turning every
single-game reader onto arrays. The arrays stay the whole state (the env's snapshot and
rollback, copies and pickles read them), so nothing is cached between steps. The price
is speed, a few Python calls per game and step: the fallback serves machines without a
compiler, and the tests.
"""

from __future__ import annotations

import numpy as np

from ..cards import NUM_ACTIONS, PILES, from_bits, get_variant
from ..game_encoder import CORE as _core
from ..rules import IllegalActionError, Phase
from .rows import load as load_rows
from .rows import store as store_rows
from .tables import BIT, U64, ZERO, unpack_bits, variant_tables

TRUMP, DISCARD, PLAY, ANSWER, OVER = (int(p) for p in Phase)
#: Actions of one hand at most: trump, two discards, 34 cards, 4 escalations, 4 answers.
MAX_HAND_ACTIONS = 48
_PAIR = ("hand", "upbits", "covered", "played", "won")
_PAIR_INT = ("discard", "trick_points", "scores", "initial_scores")
_SCALAR = ("phase", "current", "trump", "dealer", "first_dealer", "chooser", "leader", "lead",
           "lead_pile", "level", "cracker", "recracker", "hand_no", "num_hands", "ntricks")
_RESULT_SCALAR = ("res_count", "res_hand", "res_dealer", "res_trump", "res_spitzer",
                  "res_winner", "res_crack_level", "res_value")
_RESULT_PAIR = ("res_card_points", "res_trick_points", "res_discards", "res_scores")
_RESULT_BOOL = ("res_schneider", "res_schwarz")
#: What ``PyGame.escalation_rights`` reads: all that :meth:`VecGame.escalation_rights` loads.
_RIGHTS_FIELDS = ("phase", "level", "cracker", "played")
#: Whether the compiled core (C) is available to step batches.
ACCELERATED: bool = _core is not None


class VecGame:
    """N Widderkopf matches stepped together; see the module documentation."""

    def __init__(self, n: int, deal_source, variant=None, accelerated: bool | None = None):
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise ValueError(f"the number of games must be a positive int, got {n!r}")
        if accelerated and not ACCELERATED:
            raise ValueError("accelerated=True, but the compiled core is not available (not "
                             "built, or WIDDERKOPF_PURE_PYTHON is set)")
        #: Whether this batch steps in C (None at construction: wherever it is available).
        self.accelerated = ACCELERATED if accelerated is None else bool(accelerated)
        #: Threads that step and encode this batch in C (results do not depend on it).
        self.num_threads = 1
        self.n, self.deal_source = int(n), deal_source
        self.variant = v = get_variant(variant)
        dealt = getattr(deal_source, "variant", v)
        if dealt != v:
            raise ValueError(f"the deal source deals the variant {dealt.name!r}, the games "
                             f"play {v.name!r}: give both the same variant")
        self.tables = variant_tables(v)
        for name in _PAIR:
            setattr(self, name, np.zeros((n, 2), U64))
        for name in _PAIR_INT + _RESULT_PAIR:
            setattr(self, name, np.zeros((n, 2), np.int64))
        for name in _SCALAR + _RESULT_SCALAR:
            setattr(self, name, np.zeros(n, np.int64))
        for name in _RESULT_BOOL:
            setattr(self, name, np.zeros(n, bool))
        self.phase[:] = OVER
        self.current[:] = -1
        self.up = np.full((n, 2 * PILES), -1, np.int64)
        self.down = np.full((n, 2 * PILES), -1, np.int64)
        self.tricks = np.full((n, v.tricks, 4), -1, np.int64)
        self.legal = np.zeros(n, U64)
        self.deal_up = np.full((n, 2 * PILES), -1, np.int64)
        self.deal_down = np.full((n, 2 * PILES), -1, np.int64)
        self.history = np.zeros((n, MAX_HAND_ACTIONS), np.int8)
        self.hlen = np.zeros(n, np.int64)
        self.all = np.arange(n, dtype=np.int64)
        self._need = np.zeros(n, np.int64)  # the C core's list of games to deal
        t = self.tables
        self._cvariant = (self.n, v.tricks, v.win_points, v.total_points, v.schneider_points,
                          int(v.spitzer), v.deck, tuple(int(x) for x in t.trump_mask[:4]),
                          t.hand_value)

    def __getstate__(self) -> dict:
        """The state for ``copy.deepcopy`` and pickle: the arrays, without the C core's
        binding to them (``_cbind``, rebuilt at the next call)."""
        state = self.__dict__.copy()
        state.pop("_cbind", None)
        return state

    # --- set-up ------------------------------------------------------------------------

    def new_matches(self, idx, first_dealer, num_hands, scores=None) -> None:
        """Start new matches in games ``idx``: the first dealer per game (R6),
        ``num_hands`` hands (R20), the match scores before the first hand (default 0)."""
        self.first_dealer[idx] = first_dealer
        self.num_hands[idx] = num_hands
        self.scores[idx] = 0 if scores is None else scores
        self.initial_scores[idx] = self.scores[idx]
        self.hand_no[idx] = 0
        self.res_count[idx] = 0
        self.start_hands(idx)

    def start_hands(self, idx) -> None:
        """Deal and start the next hand of the matches of games ``idx`` (its ``hand_no``,
        from the deal source)."""
        hand_no = self.hand_no[idx]
        hand, up, down = self.deal_source(idx, hand_no)
        if self.accelerated:
            _core.vec_start_hands(self, np.ascontiguousarray(idx, np.int64),
                                  np.ascontiguousarray(hand, U64),
                                  np.ascontiguousarray(up, np.int64),
                                  np.ascontiguousarray(down, np.int64))
            return
        up, down = np.asarray(up, np.int64), np.asarray(down, np.int64)
        k = self.variant.piles  # each deal as the reference takes it: card ids, piles dealt
        deals = [((from_bits(h0), u[:k], d[:k]), (from_bits(h1), u[PILES:PILES + k],
                                                 d[PILES:PILES + k]))
                 for (h0, h1), u, d in zip(np.asarray(hand).tolist(), up.tolist(),
                                           down.tolist(), strict=True)]
        games = load_rows(self, idx, next_deals=deals)
        for g in games:
            g._start_hand()  # the reference's start of a hand, from the deal given
        store_rows(self, idx, games)
        self.deal_up[idx], self.deal_down[idx] = up, down  # the hand's public record

    # --- queries -------------------------------------------------------------------------

    def escalation_rights(self, idx) -> np.ndarray:
        """(k, 2) bool: the reference's ``PyGame.escalation_rights()`` of each game of
        ``idx`` (R11), read from the arrays (in C when the batch is accelerated)."""
        if self.accelerated:
            out = np.empty((len(idx), 2), bool)
            _core.vec_rights(self, np.ascontiguousarray(idx, np.int64), out)
            return out
        games = load_rows(self, idx, _RIGHTS_FIELDS)
        return np.array([g.escalation_rights() for g in games], bool).reshape(-1, 2)

    def illegal(self, idx, actions) -> np.ndarray:
        """Bool per game: ``actions`` (ints in 0..41) is not legal now."""
        if self.accelerated:
            idx = np.ascontiguousarray(idx, np.int64)
            out = np.empty(len(idx), bool)
            _core.vec_illegal(self, idx, np.ascontiguousarray(actions, np.int64), out)
            return out
        return (self.legal[idx] & BIT[actions]) == ZERO

    # --- transitions ---------------------------------------------------------------------

    def apply(self, idx, actions) -> None:
        """Apply one legal action per game in ``idx`` (see :meth:`illegal`)."""
        idx = np.asarray(idx, np.int64)
        a = np.asarray(actions, np.int64)
        if self.accelerated:
            k = _core.vec_apply(self, np.ascontiguousarray(idx), np.ascontiguousarray(a),
                                self._need, self.num_threads)
            if k:  # hands ended and their matches go on: deal them, all in one call
                self.start_hands(self._need[:k].copy())
            return
        games = load_rows(self, idx)
        for i, g, action in zip(idx.tolist(), games, a.tolist(), strict=True):
            try:
                g.apply(action)  # the reference's legal set and move (a hand's end too)
            except IllegalActionError as err:  # raised before any row is written
                raise IllegalActionError(f"game {i}: {err}; the batch is unchanged",
                                         err.action, err.phase, err.legal) from None
        hands = self.hand_no[idx]
        self.history[idx, self.hlen[idx]] = a  # the hand's record (a new hand starts it over)
        store_rows(self, idx, games)
        dealt = idx[(self.hand_no[idx] != hands) & (self.phase[idx] != OVER)]
        if len(dealt):  # hands ended and their matches go on: deal them from the deal source
            self.start_hands(dealt)

    # --- reading ---------------------------------------------------------------------------

    def legal_actions(self, i: int) -> list[int]:
        """The legal action ids of game ``i``, ascending."""
        m = int(self.legal[i])
        return [a for a in range(NUM_ACTIONS) if (m >> a) & 1]

    def mask(self, idx=None) -> np.ndarray:
        """(k, 42) int8 legal-action masks of games ``idx`` (default all)."""
        legal = self.legal if idx is None else self.legal[idx]
        return unpack_bits(legal, NUM_ACTIONS).view(np.int8)
