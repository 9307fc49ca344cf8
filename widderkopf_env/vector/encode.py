"""The batched observation encoder: for every game of a :class:`VecGame`, exactly the
arrays of :func:`widderkopf_env.observation.encode_game` (same 540 entries, same bits).

The layout is read from :data:`~widderkopf_env.observation.PIECES` / ``OFFSETS``: each
piece below is computed by name and written at the offset the table gives it, so a
change of order or of a piece's size in the table moves it here too (and a piece this
module does not know about is an error at import). What it reads per game is what the
scalar encoder reads (RULES R8): the observer's own cards and discard, the opponent's
hand *size*, whether the opponent has discarded, and public fields. Tests compare both
encoders at every position of thousands of random games.
"""

from __future__ import annotations

import numpy as np

from ..cards import HAND_SIZE, NUM_ACTIONS, NUM_CARDS, PILES, TOTAL_POINTS, TRICKS
from ..observation import OBS_SIZE, OFFSETS, PIECES
from .engine import OVER, VecGame
from .tables import ALL_CARDS, BIT, TRUMP_MASK_NP, ZERO, popcount, unpack_bits

#: The card pieces (one entry per card id), in table order.
_CARD_PIECES = tuple(name for name, size, _ in PIECES if size == NUM_CARDS)
_CARD_OFFSETS = tuple(OFFSETS[name][0] for name in _CARD_PIECES)
# When the card pieces lie back to back (as in today's table) one copy writes them all.
_CARDS_CONTIGUOUS = _CARD_OFFSETS == tuple(_CARD_OFFSETS[0] + NUM_CARDS * k
                                           for k in range(len(_CARD_OFFSETS)))
_KNOWN = set(_CARD_PIECES) | {
    "pending", "phase", "my_turn", "trump_suit", "crack_level", "may_escalate", "cracker",
    "roles", "opp_discarded", "tiebreak", "trick_points", "tricks_done", "opp_hand_size",
    "face_down", "match_scores", "hands_left"}
_UNKNOWN = [name for name, _, _ in PIECES if name not in _KNOWN]
if _UNKNOWN or len(_CARD_PIECES) != 14:
    raise AssertionError(f"the batched encoder does not know the observation pieces "
                         f"{_UNKNOWN}; update widderkopf_env/vector/encode.py")
_MAX_HANDS_LEFT = 8  # the hands_left piece is min(n, 8) / 8 (observation.PIECES)


def _one_hot(out: np.ndarray, name: str, index: np.ndarray) -> None:
    start, size = OFFSETS[name]
    out[np.arange(len(index)), start + index] = 1.0


def _put(out: np.ndarray, name: str, *columns) -> None:
    start, size = OFFSETS[name]
    for k, col in enumerate(columns):
        out[:, start + k] = col


def _cond_bit(card: np.ndarray) -> np.ndarray:
    """``1 << card`` where ``card >= 0``, else 0."""
    return np.where(card >= 0, BIT[np.maximum(card, 0)], ZERO)


def encode(game: VecGame, idx: np.ndarray, player: np.ndarray,
           over: np.ndarray | bool = False) -> tuple[np.ndarray, np.ndarray]:
    """``(obs (k, 540) float32, mask (k, 42) int8)`` of games ``idx`` seen by ``player``.

    Row ``r`` equals ``encode_game(game_r, player[r], over[r])`` of the scalar encoder:
    ``over`` marks episodes ended early (the mask and ``legal_cards`` are all zeros).
    """
    idx = np.asarray(idx, np.int64)
    k = len(idx)
    p = np.broadcast_to(np.asarray(player, np.int64), (k,))
    o = 1 - p
    over = np.broadcast_to(np.asarray(over, bool), (k,))
    g = game
    hand, upbits, covered, played = g.hand[idx], g.upbits[idx], g.covered[idx], g.played[idx]
    discard, won = g.discard[idx], g.won[idx]
    rows = np.arange(k)
    phase, current, trump = g.phase[idx], g.current[idx], g.trump[idx]
    legal = np.where((current == p) & ~over, g.legal[idx], ZERO)
    my_hand, my_up, opp_up = hand[rows, p], upbits[rows, p], upbits[rows, o]
    my_cov, opp_cov = covered[rows, p], covered[rows, o]
    my_played, opp_played = played[rows, p], played[rows, o]
    my_discard = _cond_bit(discard[rows, p])
    seen = my_hand | my_up | opp_up | my_played | opp_played | my_discard
    pieces = {
        "hand": my_hand, "my_up": my_up, "my_covered": my_cov, "opp_up": opp_up,
        "opp_covered": opp_cov, "my_discard": my_discard, "lead": _cond_bit(g.lead[idx]),
        "my_played": my_played, "opp_played": opp_played, "my_won": won[rows, p],
        "opp_won": won[rows, o], "unseen": ALL_CARDS ^ seen,
        "trumps": TRUMP_MASK_NP[trump], "legal_cards": legal & ALL_CARDS,
    }
    out = np.zeros((k, OBS_SIZE), np.float32)
    bits = unpack_bits(np.stack([pieces[name] for name in _CARD_PIECES], axis=1), NUM_CARDS)
    if _CARDS_CONTIGUOUS:
        start = _CARD_OFFSETS[0]
        out[:, start:start + NUM_CARDS * len(_CARD_PIECES)] = bits.reshape(k, -1)
    else:
        for j, start in enumerate(_CARD_OFFSETS):
            out[:, start:start + NUM_CARDS] = bits[:, j]
    # flags
    pile = g.lead_pile[idx]
    my_pending = (pile >= 0) & (pile // PILES == p)
    opp_pending = (pile >= 0) & (pile // PILES != p)
    _put(out, "pending", my_pending, opp_pending)
    _one_hot(out, "phase", phase)
    _put(out, "my_turn", current == p)
    _one_hot(out, "trump_suit", np.where(trump >= 0, trump, 4))
    _one_hot(out, "crack_level", g.level[idx])
    rights = g.escalation_rights(idx)
    _put(out, "may_escalate", rights[rows, p], rights[rows, o])
    cracker = g.cracker[idx]
    _put(out, "cracker", cracker == p, cracker == o)
    _put(out, "roles", g.dealer[idx] == p, g.chooser[idx] == p, g.leader[idx] == p)
    _put(out, "opp_discarded", discard[rows, o] >= 0)
    left = g.num_hands[idx] - g.hand_no[idx]
    _put(out, "tiebreak", (left <= 0) & (phase != OVER))
    # scaled numbers: computed in float64 and rounded once to float32, as the scalar one
    tp, scores = g.trick_points[idx], g.scores[idx]
    s, t = scores[rows, p], scores[rows, o]
    _put(out, "trick_points", tp[rows, p] / float(TOTAL_POINTS), tp[rows, o] / float(TOTAL_POINTS))
    _put(out, "tricks_done", g.ntricks[idx] / float(TRICKS))
    _put(out, "opp_hand_size", popcount(hand[rows, o]) / float(HAND_SIZE))
    _put(out, "face_down", (popcount(my_cov) + my_pending) / float(PILES),
         (popcount(opp_cov) + opp_pending) / float(PILES))
    _put(out, "match_scores", s / (s + 8.0), t / (t + 8.0))
    _put(out, "hands_left", np.where(phase == OVER, 0.0,
                                     np.clip(left, 1, _MAX_HANDS_LEFT) / float(_MAX_HANDS_LEFT)))
    return out, unpack_bits(legal, NUM_ACTIONS).view(np.int8)
