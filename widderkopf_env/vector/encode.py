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

from ..cards import HAND_SIZE, NUM_ACTIONS, PILES, TOTAL_POINTS, TRICKS
from ..observation import OBS_SIZE, OFFSETS, PIECES
from .engine import OVER, VecGame
from .tables import ALL_CARDS, BIT, TRUMP_MASK_NP, U64, ZERO, popcount, unpack_bits

_SCALED = ("trick_points", "tricks_done", "opp_hand_size", "face_down", "match_scores",
           "hands_left")
_BIT_PIECES = ("hand", "my_up", "my_covered", "opp_up", "opp_covered", "my_discard", "lead",
               "my_played", "opp_played", "my_won", "opp_won", "unseen", "trumps",
               "legal_cards", "pending", "phase", "my_turn", "trump_suit", "crack_level",
               "may_escalate", "cracker", "roles", "opp_discarded", "tiebreak")
_UNKNOWN = sorted(set(OFFSETS) ^ set(_BIT_PIECES + _SCALED))
#: The 0/1 entries come first, the scaled numbers after them (as the scalar encoder's).
_N_BITS = min(OFFSETS[name][0] for name in _SCALED)
if _UNKNOWN or any(OFFSETS[name][0] >= _N_BITS for name in _BIT_PIECES) or \
        any(size > 56 for _, size, _ in PIECES):
    raise AssertionError(f"the batched encoder does not fit the observation table (pieces "
                         f"{_UNKNOWN}); update widderkopf_env/vector/encode.py")
_N_BYTES = (_N_BITS + 7) // 8 + 8  # room for a piece's 8 bytes written at any offset
_MAX_HANDS_LEFT = 8  # the hands_left piece is min(n, 8) / 8 (observation.PIECES)


class _Bits:
    """The 0/1 entries of k observations as packed little-endian bytes, filled piece by
    piece at the table's offsets."""

    def __init__(self, k: int):
        self.packed = np.zeros((k, _N_BYTES), np.uint8)

    def put(self, name: str, value: np.ndarray) -> None:
        """Piece ``name`` from ``value``: uint64, bit ``j`` = entry ``j`` of the piece."""
        start = OFFSETS[name][0]
        b = start // 8
        shifted = np.ascontiguousarray(value, U64) << np.uint64(start % 8)
        self.packed[:, b:b + 8] |= shifted.view(np.uint8).reshape(-1, 8)

    def flags(self, name: str, *columns) -> None:
        """A piece of flags, one bool column per entry."""
        value = np.zeros(len(self.packed), U64)
        for j, col in enumerate(columns):
            value |= np.where(col, BIT[j], ZERO)
        self.put(name, value)

    def one_hot(self, name: str, index: np.ndarray) -> None:
        self.put(name, BIT[index])

    def unpack(self, out: np.ndarray) -> None:
        out[:, :_N_BITS] = np.unpackbits(self.packed, axis=1, count=_N_BITS, bitorder="little")


def _put(out: np.ndarray, name: str, *columns) -> None:
    start, _ = OFFSETS[name]
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
    bits = _Bits(k)
    put = bits.put
    put("hand", my_hand)
    put("my_up", my_up)
    put("my_covered", my_cov)
    put("opp_up", opp_up)
    put("opp_covered", opp_cov)
    put("my_discard", my_discard)
    put("lead", _cond_bit(g.lead[idx]))
    put("my_played", my_played)
    put("opp_played", opp_played)
    put("my_won", won[rows, p])
    put("opp_won", won[rows, o])
    put("unseen", ALL_CARDS ^ seen)
    put("trumps", TRUMP_MASK_NP[trump])
    put("legal_cards", legal & ALL_CARDS)
    pile = g.lead_pile[idx]
    my_pending = (pile >= 0) & (pile // PILES == p)
    opp_pending = (pile >= 0) & (pile // PILES != p)
    bits.flags("pending", my_pending, opp_pending)
    bits.one_hot("phase", phase)
    bits.flags("my_turn", current == p)
    bits.one_hot("trump_suit", np.where(trump >= 0, trump, 4))
    bits.one_hot("crack_level", g.level[idx])
    rights = g.escalation_rights(idx)
    bits.flags("may_escalate", rights[rows, p], rights[rows, o])
    cracker = g.cracker[idx]
    bits.flags("cracker", cracker == p, cracker == o)
    bits.flags("roles", g.dealer[idx] == p, g.chooser[idx] == p, g.leader[idx] == p)
    bits.flags("opp_discarded", discard[rows, o] >= 0)
    left = g.num_hands[idx] - g.hand_no[idx]
    bits.flags("tiebreak", (left <= 0) & (phase != OVER))
    out = np.empty((k, OBS_SIZE), np.float32)
    bits.unpack(out)
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
