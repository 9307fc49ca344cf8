"""Card features of a player's view: what a card-value network reads beside the observation.

The observation (:mod:`widderkopf_env.observation`) says where every card is, but not how
the cards relate: whether a card is the highest of its suit still out, how many cards
could beat it, whether it beats the card led, which suits the opponent has shown void
in (the observation has no trick-by-trick record). A small network learns those
relations slowly; :func:`card_features` computes them from the
:class:`~widderkopf_env.view.PlayerView`, in the trump-relative ("canonical") card order
of :mod:`.canonical`, so the card-value network of ``load_agent("net")``
(:mod:`.net_agent`) gets them ready-made.

It reads only the view, so it holds only what the player may see (R8;
``tests/agents/test_features.py`` permutes the hidden cards and checks the features do not
move). Before trumps are named there is no card order to speak of: all zeros.

The :data:`SIZE` = 238 entries, by canonical card ``i`` (36 each) unless said:

=====  ==================  =======================================================
at     name                meaning
=====  ==================  =======================================================
0      ``out_above``       cards above ``i`` in its class (trumps, or a plain
                           suit, R15) still out: unseen or face up in front of
                           the opponent, / 7
36     ``unseen_above``    of those, the unseen ones, / 7
72     ``opp_up_above``    1 if the opponent shows a card above ``i``
108    ``boss``            1 if ``i`` is not played and nothing above it is out
144    ``beats_lead``      1 if ``i``, played now, beats the card led (R16)
180    ``my_boss``         ``boss`` for the cards I can play (hand, face up)
216    ``opp_void``        by class (trumps, then the three plain suits): the
                           opponent has shown void in it (R15)
220    ``unseen_count``    unseen cards by class, / 7
224    ``opp_up_count``    the opponent's face-up cards by class, / 7
228    ``my_count``        my playable cards by class, / 7
232    ``unseen_points``   card points (Spitzer +1) of the unseen cards by class, / 30
236    ``lead_points``     card points of the card led, / 11
237    ``opp_hand``        cards in the opponent's hand, / 8
=====  ==================  =======================================================
"""

from __future__ import annotations

import numpy as np

from widderkopf_env.cards import BEATS, POINTS, SPITZER
from widderkopf_env.game_encoder import BYTE_BITS

from .canonical import CARD_AT, ROLES

__all__ = ["SIZE", "card_features"]

SIZE = 36 * 6 + 4 * 5 + 2

_CLASS = np.array([0] * 15 + [1] * 7 + [2] * 7 + [3] * 7)  # canonical card -> class
_FIRST = (0, 15, 22, 29)  # the canonical position of each class's highest card
#: ``_ABOVE[i, j]``: canonical card ``j`` is above ``i`` in the same class.
_ABOVE = np.array([[float(j < i and _CLASS[j] == _CLASS[i]) for j in range(36)]
                   for i in range(36)], np.float32)
#: ``_BEATS[l, i]``: canonical ``i`` played second beats canonical ``l`` led. The
#: canonical order is by role, so this is the same table under every trump suit.
_BEATS = np.array([[BEATS[0][CARD_AT[0][led] * 36 + CARD_AT[0][i]] for i in range(36)]
                   for led in range(36)], np.float32)
#: Card points in canonical order, the Spitzer (canonical 13, the 7 of trumps) +1.
_POINTS = np.array([POINTS[CARD_AT[0][i]] + (CARD_AT[0][i] == SPITZER[0])
                    for i in range(36)], np.float32)
#: ``_BY_CLASS[k, i]``: canonical card ``i`` is of class ``k``.
_BY_CLASS = np.array([[float(_CLASS[i] == k) for i in range(36)] for k in range(4)],
                     np.float32)
_ABOVE_T, _BY_CLASS_T = np.ascontiguousarray(_ABOVE.T), np.ascontiguousarray(_BY_CLASS.T)


#: ``_BYTE_CANON[t, k, b]``: the cards of byte value ``b`` at card ids ``8k..8k+7``, as a
#: set in canonical order under trump ``t``.
_BYTE_CANON = [[[sum(1 << int(ROLES[t][8 * k + i]) for i in range(8)
                    if b >> i & 1 and 8 * k + i < 36) for b in range(256)]
                for k in range(5)] for t in range(len(ROLES))]


def _canonical_rows(sets, t: int) -> np.ndarray:
    """Card sets as 0/1 rows in canonical order under trump ``t`` (one row per set)."""
    table = _BYTE_CANON[t]
    packed = 0
    for r, bits in enumerate(sets):
        c = 0
        for k in range(5):
            c |= table[k][bits >> (8 * k) & 255]
        packed |= c << (40 * r)  # 5 bytes a row
    rows = BYTE_BITS.take(np.frombuffer(packed.to_bytes(5 * len(sets), "little"),
                                         np.uint8), 0)
    return rows.reshape(len(sets), 40)[:, :36]


def card_features(view) -> np.ndarray:
    """The :data:`SIZE` card features of ``view`` (float32); see the module docstring."""
    out = np.zeros(SIZE, np.float32)
    t = view.trump
    if t < 0:
        return out
    roles = ROLES[t]
    sets = _canonical_rows((view.unseen, view.opp_up, view.hand | view.my_up,
                            view.played[0] | view.played[1]), t)
    unseen, opp_up, mine, played = sets
    above = sets[:2] @ _ABOVE_T  # unseen cards, opponent's face-up cards above each card
    out_above = above[0] + above[1]
    boss = (out_above == 0) * (1.0 - played)
    out[0:36] = out_above / 7
    out[36:72] = above[0] / 7
    out[72:108] = np.minimum(above[1], 1.0)
    out[108:144] = boss
    if view.lead >= 0:
        out[144:180] = _BEATS[roles[view.lead]]
    out[180:216] = mine * boss
    voids = view.opponent_voids
    out[216:220] = [voids >> int(CARD_AT[t][i]) & 1 for i in _FIRST]
    out[220:232] = (sets[:3] @ _BY_CLASS_T).ravel() / 7
    out[232:236] = (unseen * _POINTS) @ _BY_CLASS_T / 30
    out[236] = POINTS[view.lead] / 11 if view.lead >= 0 else 0.0
    out[237] = view.hand_size_opp / 8
    return out
