"""The batched observation encoder: for every game of a :class:`VecGame`, exactly the
arrays of :func:`widderkopf_env.game_encoder.encode_game` (same 540 entries, same bits).

The layout is read from :data:`~widderkopf_env.observation.PIECES` / ``OFFSETS``: each
piece below is computed by name and written at the offset the table gives it, so a
change of order or of a piece's size in the table moves it here too; the 0/1 pieces
(``CARD_PIECES``, ``FLAG_PIECES``) are packed as bits, the ``SCALED_PIECES`` written as
floats. What it reads per game is what the
scalar encoder reads (RULES R8): the observer's own cards and discard, the opponent's
hand *size*, whether the opponent has discarded, and public fields. Tests compare both
encoders at every position of thousands of random games. In a smaller variant the cards
outside its deck are 0 in ``unseen`` and ``trumps`` (as the scalar encoder writes them).
"""

from __future__ import annotations

import numpy as np

from ..cards import HAND_SIZE, NUM_ACTIONS, PILES, TOTAL_POINTS, TRICKS
from ..game_encoder import CORE as _core
from ..observation import (
    CARD_PIECES,
    FLAG_PIECES,
    HANDS_LEFT_CAP,
    NO_TRUMP_ENTRY,
    OBS_SIZE,
    OFFSETS,
    SCALED_PIECES,
    SCORE_SCALE,
    check_obs_dtype,
    to_compact,
)
from .engine import OVER, VecGame
from .tables import ALL_CARDS, BIT, U64, ZERO, popcount, unpack_bits

_BIT_PIECES = tuple(name for name, _, _ in CARD_PIECES + FLAG_PIECES)
#: The 0/1 entries come first, the scaled numbers after them (as the scalar encoder's).
_N_BITS = OFFSETS[SCALED_PIECES[0][0]][0]
if any(OFFSETS[name][0] >= _N_BITS for name in _BIT_PIECES) or \
        any(size > 56 for _, size, _ in CARD_PIECES + FLAG_PIECES):
    raise AssertionError("the batched encoder expects the 0/1 pieces before the scaled "
                         "ones, none over 56 entries; update widderkopf_env/vector/encode.py")
_N_WORDS = (_N_BITS + 63) // 64


class _Bits:
    """The 0/1 entries of k observations as 64-bit words (entry ``j`` is bit ``j % 64``
    of word ``j // 64``), filled piece by piece at the table's offsets. Words are stored
    word-major, so each piece is written with whole-column operations."""

    def __init__(self, k: int):
        self.words = np.zeros((_N_WORDS, k), U64)

    def put(self, name: str, value: np.ndarray) -> None:
        """Piece ``name`` from ``value``: uint64, bit ``j`` = entry ``j`` of the piece."""
        start, size = OFFSETS[name]
        w, shift = divmod(start, 64)
        self.words[w] |= value << np.uint64(shift)
        if shift + size > 64:
            self.words[w + 1] |= value >> np.uint64(64 - shift)

    def flags(self, name: str, *columns) -> None:
        """A piece of flags, one bool column per entry."""
        value = columns[0].astype(U64)
        for j, col in enumerate(columns[1:], 1):
            value |= col.astype(U64) << np.uint64(j)
        self.put(name, value)

    def one_hot(self, name: str, index: np.ndarray) -> None:
        self.put(name, BIT[index])

    def unpack(self, out: np.ndarray) -> None:
        raw = np.ascontiguousarray(self.words.T).view(np.uint8)
        out[:, :_N_BITS] = np.unpackbits(raw, axis=1, count=_N_BITS, bitorder="little")


def _put(out: np.ndarray, name: str, *columns) -> None:
    start, _ = OFFSETS[name]
    for k, col in enumerate(columns):
        out[:, start + k] = col


def _cond_bit(card: np.ndarray) -> np.ndarray:
    """``1 << card`` where ``card >= 0``, else 0."""
    return np.where(card >= 0, BIT[np.maximum(card, 0)], ZERO)


def encode(game: VecGame, idx: np.ndarray, player: np.ndarray,
           over: np.ndarray | bool = False, out: np.ndarray | None = None,
           mask_out: np.ndarray | None = None, dtype=np.float32
           ) -> tuple[np.ndarray, np.ndarray]:
    """``(obs (k, 540) float32, mask (k, 42) int8)`` of games ``idx`` seen by ``player``.

    Row ``r`` equals ``encode_game(game_r, player[r], over[r])`` of the scalar encoder:
    ``over`` marks episodes ended early (the mask and ``legal_cards`` are all zeros).
    ``dtype=np.uint8`` gives the compact form (:func:`~widderkopf_env.observation.to_compact`).
    ``out`` and ``mask_out``: arrays of those shapes (C-contiguous, ``out`` of ``dtype``)
    to write into and return instead of new ones (the vector env's preallocated buffers).
    """
    idx = np.ascontiguousarray(idx, np.int64)
    k = len(idx)
    dtype = check_obs_dtype(dtype)
    if out is None:
        out = np.empty((k, OBS_SIZE), dtype)
    if mask_out is None:
        mask_out = np.empty((k, NUM_ACTIONS), np.int8)
    if game.accelerated:
        p = np.ascontiguousarray(np.broadcast_to(np.asarray(player, np.int64), (k,)))
        ended = None if over is False else np.ascontiguousarray(
            np.broadcast_to(np.asarray(over, bool), (k,)))
        _core.vec_encode(game, idx, p, ended, out, mask_out, game.num_threads)
        return out, mask_out
    obs, mask = _encode_np(game, idx, player, over)
    out[...] = obs if dtype == np.float32 else to_compact(obs)
    mask_out[...] = mask
    return out, mask_out


def _encode_np(game: VecGame, idx: np.ndarray, player: np.ndarray,
               over: np.ndarray | bool = False) -> tuple[np.ndarray, np.ndarray]:
    """:func:`encode` in numpy (float32): the reference of the compiled core's encoder."""
    k = len(idx)
    p = np.broadcast_to(np.asarray(player, np.int64), (k,))
    o = 1 - p
    over = np.broadcast_to(np.asarray(over, bool), (k,))
    g = game
    deck, trump_mask = g.tables.deck, g.tables.trump_mask
    mine, theirs = 2 * idx + p, 2 * idx + o  # flat indices into the (N, 2) arrays

    def pair(a):
        flat = a.reshape(-1)
        return flat.take(mine), flat.take(theirs)

    phase, current, trump = g.phase[idx], g.current[idx], g.trump[idx]
    legal = np.where((current == p) & ~over, g.legal[idx], ZERO)
    my_hand, opp_hand = pair(g.hand)
    my_up, opp_up = pair(g.upbits)
    my_cov, opp_cov = pair(g.covered)
    my_played, opp_played = pair(g.played)
    my_won, opp_won = pair(g.won)
    my_disc, opp_disc = pair(g.discard)
    my_discard = _cond_bit(my_disc)
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
    put("my_won", my_won)
    put("opp_won", opp_won)
    put("unseen", deck ^ seen)
    put("trumps", trump_mask[trump])
    put("legal_cards", legal & ALL_CARDS)
    pile = g.lead_pile[idx]
    my_pending = (pile >= 0) & (pile // PILES == p)
    opp_pending = (pile >= 0) & (pile // PILES != p)
    bits.flags("pending", my_pending, opp_pending)
    bits.one_hot("phase", phase)
    bits.flags("my_turn", current == p)
    bits.one_hot("trump_suit", np.where(trump >= 0, trump, NO_TRUMP_ENTRY))
    bits.one_hot("crack_level", g.level[idx])
    rights = g.escalation_rights(idx).reshape(-1)
    rows2 = 2 * np.arange(k)
    bits.flags("may_escalate", rights.take(rows2 + p), rights.take(rows2 + o))
    cracker = g.cracker[idx]
    bits.flags("cracker", cracker == p, cracker == o)
    bits.flags("roles", g.dealer[idx] == p, g.chooser[idx] == p, g.leader[idx] == p)
    bits.flags("opp_discarded", opp_disc >= 0)
    left = g.num_hands[idx] - g.hand_no[idx]
    bits.flags("tiebreak", (left <= 0) & (phase != OVER))
    out = np.empty((k, OBS_SIZE), np.float32)
    bits.unpack(out)
    # scaled numbers: computed in float64 and rounded once to float32, as the scalar one
    my_tp, opp_tp = pair(g.trick_points)
    s, t = pair(g.scores)
    _put(out, "trick_points", my_tp / float(TOTAL_POINTS), opp_tp / float(TOTAL_POINTS))
    _put(out, "tricks_done", g.ntricks[idx] / float(TRICKS))
    _put(out, "opp_hand_size", popcount(opp_hand) / float(HAND_SIZE))
    _put(out, "face_down", (popcount(my_cov) + my_pending) / float(PILES),
         (popcount(opp_cov) + opp_pending) / float(PILES))
    scale, cap = float(SCORE_SCALE), float(HANDS_LEFT_CAP)
    _put(out, "match_scores", s / (s + scale), t / (t + scale))
    _put(out, "hands_left", np.where(phase == OVER, 0.0, np.clip(left, 1, cap) / cap))
    return out, unpack_bits(legal, NUM_ACTIONS).view(np.int8)
