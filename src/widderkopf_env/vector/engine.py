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
games only, with whole-array numpy operations (no Python loop over games). :meth:`apply`
does not check legality (that would cost a pass per step): :meth:`illegal` says which
actions are not legal, and callers reject those first, as the vector env does. The deals come from a
``deal_source(idx, hand_no) -> (hand (k, 2) uint64, up (k, 10), down (k, 10))`` given at
construction, so a match's later hands (R20 included) are dealt as they start.

Variants: ``VecGame(n, deal_source, variant="small")`` plays a smaller
:class:`~widderkopf_env.cards.Variant` (all N games the same one; the deal source must
deal it): the same rules on its deck, ending a hand after ``variant.tricks`` tricks and
scoring it with the variant's thresholds; its missing piles stay -1 (pile ``i`` of player
``p`` keeps index ``5 * p + i``), and without 7s there is no Spitzer
(``res_spitzer`` -1). ``variant`` and ``tables`` (its numbers as numpy values,
:func:`~widderkopf_env.vector.tables.variant_tables`) are attributes of the batch.

The compiled core: where the C accelerator is built (``widderkopf_env/_core.h``, bound in
``_batch.c``), :meth:`apply`, the deal of each new hand and :func:`~.encode.encode` run in
C over these same arrays, in place, one call per batch, on ``num_threads`` threads (an
attribute; each thread owns whole games, so any count gives the same arrays). The numpy
code here is the reference and the fallback (no compiler, or
``WIDDERKOPF_PURE_PYTHON=1``); ``VecGame(..., accelerated=False)`` forces it for one batch,
and the differential tests step both side by side. :data:`ACCELERATED` says whether the
core is available. The core checks what it is given: an illegal action (which the numpy
code would apply unchecked) or arrays out of range raise ``ValueError`` before anything
changes.
"""

from __future__ import annotations

import numpy as np

from ..cards import ESCALATE, NUM_ACTIONS, PILES, TRUMP_ACTION, get_variant
from ..game_encoder import CORE as _core
from ..rules import Phase
from .tables import (
    ANSWER_BITS,
    BEATS_NP,
    BIT,
    CARD_BIT,
    ESC_BIT,
    FOLLOW_NP,
    POINTS_NP,
    SPITZER_NP,
    TRUMP_BITS,
    U64,
    ZERO,
    unpack_bits,
    variant_tables,
)

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
        # the variant's numbers, read per finished hand and trick
        self._tricks, self._win, self._total = v.tricks, v.win_points, v.total_points
        self._schneider, self._spitzer = v.schneider_points, v.spitzer
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
        dealer = self.first_dealer[idx] ^ (hand_no & 1)
        s = self.scores[idx]
        chooser = np.where(s[:, 0] != s[:, 1], (s[:, 0] > s[:, 1]).astype(np.int64), 1 - dealer)
        self.dealer[idx], self.chooser[idx] = dealer, chooser
        self.phase[idx], self.current[idx], self.trump[idx] = TRUMP, chooser, -1
        self.hand[idx], self.up[idx], self.down[idx] = hand, up, down
        self.deal_up[idx], self.deal_down[idx], self.hlen[idx] = up, down, 0
        upbits = np.stack([np.bitwise_or.reduce(CARD_BIT[up[:, :PILES]], axis=1),
                           np.bitwise_or.reduce(CARD_BIT[up[:, PILES:]], axis=1)], axis=1)
        self.upbits[idx] = self.covered[idx] = upbits
        self.discard[idx] = -1
        self.won[idx] = self.played[idx] = ZERO
        self.trick_points[idx] = 0
        self.lead[idx] = self.lead_pile[idx] = -1
        self.leader[idx] = 1 - dealer
        self.ntricks[idx] = 0
        self.tricks[idx] = -1
        self.level[idx], self.cracker[idx], self.recracker[idx] = 0, -1, -1
        self.compute_legal(idx)

    # --- queries -------------------------------------------------------------------------

    def may_escalate(self, idx, player) -> np.ndarray:
        """Whether ``player`` (per game) still holds the right to the next escalation (R11),
        as :meth:`Game.may_escalate <widderkopf_env.rules.Game.may_escalate>`."""
        level, cracker = self.level[idx], self.cracker[idx]
        turn = np.where(level % 2 == 0, cracker, 1 - cracker)
        return ((level < 4) & (self.played[idx, player] == ZERO) & (self.phase[idx] != OVER)
                & ((level == 0) | (player == turn)))

    def escalation_rights(self, idx) -> np.ndarray:
        """(k, 2) bool: ``Game.escalation_rights()`` per game."""
        both = (self.played[idx, 0] != ZERO) & (self.played[idx, 1] != ZERO)
        zeros = np.zeros(len(idx), np.int64)
        rights = np.stack([self.may_escalate(idx, zeros), self.may_escalate(idx, zeros + 1)], 1)
        rights[both] = False
        return rights

    def compute_legal(self, idx) -> None:
        """Refresh ``legal[idx]`` from the state (as ``Game._compute_legal``)."""
        phase, p = self.phase[idx], np.maximum(self.current[idx], 0)
        hand = self.hand[idx, p]
        base = hand | self.upbits[idx, p]
        lead = self.lead[idx]
        follow = base & FOLLOW_NP[np.maximum(self.trump[idx], 0), np.maximum(lead, 0)]
        play = np.where((lead >= 0) & (follow != ZERO), follow, base)
        play |= np.where(self.may_escalate(idx, p), ESC_BIT, ZERO)
        self.legal[idx] = np.select(
            [phase == PLAY, phase == ANSWER, phase == DISCARD, phase == TRUMP],
            [play, np.broadcast_to(ANSWER_BITS, play.shape), hand,
             np.broadcast_to(TRUMP_BITS, play.shape)], ZERO)

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
        n = self.hlen[idx]
        self.history[idx, n] = a
        self.hlen[idx] = n + 1
        phase = self.phase[idx]
        is_play = phase == PLAY
        card = is_play & (a < TRUMP_ACTION)
        self._play(idx[card], a[card])
        if not card.all():  # the rarer decisions: escalations, answers, discards, trumps
            esc = is_play & (a == ESCALATE)
            if esc.any():
                self._escalate_due(idx[esc])
            ans = phase == ANSWER
            if ans.any():
                self._answer(idx[ans], a[ans] == ESCALATE)
            dis = phase == DISCARD
            if dis.any():
                self._discard(idx[dis], a[dis])
            tr = phase == TRUMP
            j = idx[tr]
            self.trump[j] = a[tr] - TRUMP_ACTION
            self.phase[j], self.current[j] = DISCARD, 1 - self.dealer[j]
        over = self.phase[idx] == OVER
        if over.any():
            self.legal[idx[over]] = ZERO
            idx = idx[~over]
        self.compute_legal(idx)

    def _raise_level(self, idx, player) -> None:
        level = self.level[idx] + 1
        self.level[idx] = level
        self.cracker[idx] = np.where(level == 1, player, self.cracker[idx])
        self.recracker[idx] = np.where(level == 2, player, self.recracker[idx])

    def _escalate_due(self, idx) -> None:
        due = self.current[idx]
        self._raise_level(idx, due)
        other = 1 - due
        answer = self.may_escalate(idx, other)  # R11 step 2: the other player answers
        self.phase[idx[answer]], self.current[idx[answer]] = ANSWER, other[answer]

    def _answer(self, idx, escalate) -> None:
        j = idx[escalate]
        self._raise_level(j, self.current[j])
        self.phase[idx], self.current[idx] = PLAY, 1 - self.current[idx]

    def _discard(self, idx, card) -> None:
        p = self.current[idx]
        self.hand[idx, p] ^= BIT[card]
        self.discard[idx, p] = card
        last = p == self.dealer[idx]
        j = idx[last]
        self.phase[j], self.current[j] = PLAY, 1 - self.dealer[j]
        k = idx[~last]
        self.current[k] = self.dealer[k]

    def _play(self, idx, card) -> None:
        if not len(idx):
            return
        p = self.current[idx]
        bit = BIT[card]
        mine = 2 * idx + p  # flat indices into the (N, 2) arrays: faster than [idx, p]
        hand = self.hand.reshape(-1)
        held = hand[mine]
        in_hand = (held & bit) != ZERO
        hand[mine] = held ^ np.where(in_hand, bit, ZERO)
        pile = np.full(len(idx), -1, np.int64)
        j, pj, cj = idx[~in_hand], p[~in_hand], card[~in_hand]
        if len(j):  # a face-up card from pile i (R13); what lies under it turns over later
            self.upbits[j, pj] ^= BIT[cj]
            i = np.argmax(self.up[j] == cj[:, None], axis=1)
            self.up[j, i] = -1
            has_down = self.down[j, i] >= 0
            self.covered[j, pj] &= np.where(has_down, ~BIT[cj], ~ZERO)
            pile[~in_hand] = np.where(has_down, i, -1)
        played = self.played.reshape(-1)
        played[mine] |= bit
        leading = self.lead[idx] < 0
        j = idx[leading]
        self.lead[j], self.lead_pile[j], self.current[j] = card[leading], pile[leading], 1 - p[leading]
        second = ~leading
        if second.any():
            self._close_trick(idx[second], p[second], card[second], pile[second])

    def _close_trick(self, idx, p, card, pile) -> None:
        lead, leader = self.lead[idx], 1 - p
        winner = np.where(BEATS_NP[self.trump[idx], lead, card], p, leader)
        self.won[idx, winner] |= BIT[lead] | BIT[card]
        self.trick_points[idx, winner] += POINTS_NP[lead] + POINTS_NP[card]
        t = self.ntricks[idx]
        self.tricks[idx, t] = np.stack([leader, lead, card, winner], axis=1)
        self.ntricks[idx] = t + 1
        for piles in (self.lead_pile[idx], pile):
            turn = piles >= 0
            if turn.any():
                self._turn_over(idx[turn], piles[turn])
        self.lead[idx] = self.lead_pile[idx] = -1
        done = t + 1 == self._tricks
        if done.any():
            self._finish_hand(idx[done])
            idx, winner = idx[~done], winner[~done]
        self.current[idx] = self.leader[idx] = winner

    def _turn_over(self, idx, pile) -> None:
        card = self.down[idx, pile]
        self.down[idx, pile], self.up[idx, pile] = -1, card
        self.upbits[idx, pile // PILES] |= BIT[card]

    def _finish_hand(self, idx) -> None:
        if not len(idx):
            return
        trump, disc = self.trump[idx], self.discard[idx]
        tp = self.trick_points[idx]
        pts = tp + POINTS_NP[disc[:, ::-1]]  # each player's pile holds the other's discard
        rows = np.arange(len(idx))
        if self._spitzer:
            pile0 = self.won[idx, 0] | BIT[disc[:, 1]]
            spitzer = np.where((pile0 & BIT[SPITZER_NP[trump]]) != ZERO, 0, 1)
            pts[rows, spitzer] += 1
        else:  # a variant without 7s has no Spitzer (-1)
            spitzer = np.full(len(idx), -1, np.int64)
        winner = np.where(pts[:, 0] >= self._win, 0, 1)
        best = pts[rows, winner]
        value = self.tables.hand_value[self.level[idx], best]
        self.scores[idx, winner] += value
        self.res_count[idx] += 1
        self.res_hand[idx], self.res_dealer[idx], self.res_trump[idx] = (
            self.hand_no[idx], self.dealer[idx], trump)
        self.res_card_points[idx], self.res_trick_points[idx] = pts, tp
        self.res_discards[idx], self.res_spitzer[idx], self.res_winner[idx] = disc, spitzer, winner
        self.res_crack_level[idx] = self.level[idx]
        self.res_schneider[idx] = (best >= self._schneider) & (best < self._total)
        self.res_schwarz[idx] = best == self._total
        self.res_value[idx], self.res_scores[idx] = value, self.scores[idx]
        self.hand_no[idx] += 1
        s = self.scores[idx]
        over = (self.hand_no[idx] >= self.num_hands[idx]) & (s[:, 0] != s[:, 1])
        j = idx[over]
        self.phase[j], self.current[j] = OVER, -1
        if not over.all():
            self.start_hands(idx[~over])

    # --- reading ---------------------------------------------------------------------------

    def legal_actions(self, i: int) -> list[int]:
        """The legal action ids of game ``i``, ascending."""
        m = int(self.legal[i])
        return [a for a in range(NUM_ACTIONS) if (m >> a) & 1]

    def mask(self, idx=None) -> np.ndarray:
        """(k, 42) int8 legal-action masks of games ``idx`` (default all)."""
        legal = self.legal if idx is None else self.legal[idx]
        return unpack_bits(legal, NUM_ACTIONS).view(np.int8)
