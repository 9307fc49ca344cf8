"""The fast observation encoders: bit-packed pure Python, and its compiled twin in C.

Both compute, from a live :class:`~widderkopf_env.rules.Game`, exactly the arrays that
the reference encoder :func:`widderkopf_env.observation.encode_view` computes from that
player's :class:`~widderkopf_env.view.PlayerView` (``tests/core/test_encoders_agree.py``
compares them with it at every position of many games; ``test_observation_hash.py`` pins
the output). The environments use them to save building a view at every decision. Every
offset comes from :data:`widderkopf_env.observation.OFFSETS` and every scale from
:mod:`~widderkopf_env.cards` and :mod:`~widderkopf_env.observation`; the C encoder checks
the whole table when it is configured.

Speed: the pure-Python encoder (``_encode_py``) makes every 0/1 entry, and the action
mask after them, a bit of one Python int, turned into floats by one table look-up per
byte (``np.take``); the scaled entries are then written with one ``struct.pack_into``.
Where the package was installed with a C compiler, its compiled twin does the same
faster: a compiled :class:`~widderkopf_env.rules.Game` writes its own observation and mask
in one call (``Game.encode``, ``csrc/game_io.c``), any other object is read by its
attributes (``_core.encode``);
:data:`ACCELERATED` says which one runs, ``WIDDERKOPF_PURE_PYTHON=1`` forces the
pure-Python one.
"""

from __future__ import annotations

import struct

import numpy as np

from .cards import (
    HAND_SIZE,
    NUM_ACTIONS,
    NUM_CARDS,
    PILES,
    TOTAL_POINTS,
    TRICKS,
    TRUMP_MASK,
)
from .compiled import CORE
from .engine_types import Phase
from .observation import (
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

# --- the bit-packed encoder -------------------------------------------------------------------------

def _o(name: str) -> int:
    return OFFSETS[name][0]


# Card pieces: bit offsets in the vector.
_MY_UP, _MY_COV, _OPP_UP, _OPP_COV = _o("my_up"), _o("my_covered"), _o("opp_up"), _o("opp_covered")
_DISCARD, _LEAD, _MY_PLAYED, _OPP_PLAYED = _o("my_discard"), _o("lead"), _o("my_played"), _o("opp_played")
_MY_WON, _OPP_WON, _UNSEEN, _LEGAL = _o("my_won"), _o("opp_won"), _o("unseen"), _o("legal_cards")
_TRUMPS = _o("trumps")
# Flag pieces: built as one small int, relative to _FLAGS, then shifted into place once.
_FLAGS = _o(FLAG_PIECES[0][0])
_PHASE, _MY_TURN, _LEVEL = _o("phase") - _FLAGS, _o("my_turn") - _FLAGS, _o("crack_level") - _FLAGS
_MAY, _CRACKER, _ROLES = _o("may_escalate") - _FLAGS, _o("cracker") - _FLAGS, _o("roles") - _FLAGS
_OPP_DISC, _TIEBREAK = _o("opp_discarded") - _FLAGS, _o("tiebreak") - _FLAGS
# The scaled entries are contiguous, after the 0/1 ones, and written at once.
_SCALARS = _o(SCALED_PIECES[0][0])
_N_SCALED = sum(size for _, size, _ in SCALED_PIECES)
if (_SCALARS + _N_SCALED != OBS_SIZE or _FLAGS != _o(CARD_PIECES[-1][0]) + NUM_CARDS
        or any(size != NUM_CARDS for _, size, _ in CARD_PIECES) or _o("hand") != 0):
    raise AssertionError("the encoder expects: card pieces of NUM_CARDS entries, the hand "
                         "first, then flags, then the scaled entries")
_PACK_SCALARS = struct.Struct(f"<{_N_SCALED}f")
_ALL_CARDS = (1 << NUM_CARDS) - 1
_OVER = int(Phase.OVER)
_SCORE_SCALE = float(SCORE_SCALE)
_U8, _I8 = np.dtype(np.uint8), np.dtype(np.int8)
#: Row b: the 8 bits of byte b, least significant first, as float32 0/1.
BYTE_BITS = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1,
                           bitorder="little").astype(np.float32)
# Entry i of the vector is bit i of one int, written little-endian: byte k gives entries
# 8k .. 8k+7 through row k of BYTE_BITS.
_BOTH_BYTES = (OBS_SIZE + NUM_ACTIONS + 7) // 8  # encode_with_mask: the mask follows
_MASK_END = OBS_SIZE + NUM_ACTIONS
#: Trump one-hot (a flag, relative to _FLAGS) by ``trump + 1`` (-1 = none named yet).
_TRUMP_FLAG = tuple(1 << (_o("trump_suit") - _FLAGS + (t if t >= 0 else NO_TRUMP_ENTRY))
                    for t in range(-1, len(TRUMP_MASK)))
#: Phase and crack level one-hots (flags) by value.
_PHASE_FLAG = tuple(1 << (_PHASE + ph) for ph in range(OFFSETS["phase"][1]))
_LEVEL_FLAG = tuple(1 << (_LEVEL + lv) for lv in range(OFFSETS["crack_level"][1]))
#: The trumps card piece by ``trump + 1``.
_TRUMP_CARDS = (0,) + tuple(mask << _o("trumps") for mask in TRUMP_MASK)
#: hands_left entry by ``num_hands - hand_no`` (>= 1 while playing; clipped to 1..cap).
_HANDS_LEFT = tuple(min(max(n, 1), HANDS_LEFT_CAP) / HANDS_LEFT_CAP
                    for n in range(HANDS_LEFT_CAP + 1))
_FEW_HANDS_LEFT = _HANDS_LEFT[1]  # a tie-break hand (none left by the count) shows 1
#: The cracker flags by ``[player][cracker]`` (cracker -1, none, is the last entry).
_CRACKER_FLAGS = tuple((1 << (_CRACKER + (p != 0)), 1 << (_CRACKER + (p != 1)), 0)
                       for p in (0, 1))
# Scaled entries as look-ups: trick points, tricks, the opponent's cards, face-down cards.
_BY_POINTS = tuple(n / TOTAL_POINTS for n in range(TOTAL_POINTS + 1))
_BY_TRICKS = tuple(n / TRICKS for n in range(TRICKS + 1))
_BY_HAND = tuple(n / HAND_SIZE for n in range(HAND_SIZE + 1))
_BY_PILES = tuple(n / PILES for n in range(PILES + 2))  # + 1 pending while it is played

_take, _frombuffer, _pack = BYTE_BITS.take, np.frombuffer, _PACK_SCALARS.pack_into
_SCALAR_BYTES = _SCALARS * 4


def _encode_py(game, player: int, over: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """``encode_view(game.view(player))`` without building the view: the envs' path.

    ``over``: the episode has ended early (e.g. by an illegal action), so the mask and
    the ``legal_cards`` piece are all zeros. The result is a fresh float32 observation
    and a fresh int8 mask.

    Hidden information (R8): from ``game`` this reads the player's own hand and discard,
    the opponent's hand *size* and whether they have discarded, and public fields; a
    test checks that it gives the arrays of the reference encoder, which sees only the
    view, at every position of many games, and the no-leak tests run on both.
    """
    p = player
    o = 1 - p
    hand, upbits, covered, discard = game.hand, game.upbits, game.covered, game.discard
    played, won = game.played, game.won
    current, phase, trump = game.current, game.phase, game.trump
    my_hand = hand[p]
    my_up, opp_up, my_cov, opp_cov = upbits[p], upbits[o], covered[p], covered[o]
    my_played, opp_played = played[p], played[o]
    legal = game.legal_mask if current == p and not over else 0
    # the same set as PlayerView.unseen (a test checks it), inlined for speed
    seen = my_hand | my_up | opp_up | my_played | opp_played
    x = my_hand  # the hand piece is at offset 0
    my_discard = discard[p]
    if my_discard >= 0:
        seen |= 1 << my_discard
        x |= 1 << (_DISCARD + my_discard)
    lead = game.lead
    if lead >= 0:
        x |= 1 << (_LEAD + lead)
    # the open trick's lead came from this pile: its face-down card turns over after it
    pile = game.lead_pile
    my_pending = opp_pending = 0
    if pile >= 0:
        if pile // PILES == p:
            my_pending = 1
        else:
            opp_pending = 1
    if my_played and opp_played:  # nobody may escalate once both have played (R11)
        may = 0
    else:
        r0, r1 = game.escalation_rights()
        may = (r1 | r0 << 1) if p else (r0 | r1 << 1)
    flags = (my_pending | opp_pending << 1 | _PHASE_FLAG[phase]
             | (current == p) << _MY_TURN | _TRUMP_FLAG[trump + 1]
             | _LEVEL_FLAG[game.level] | may << _MAY | _CRACKER_FLAGS[p][game.cracker]
             | ((game.dealer == p) | (game.chooser == p) << 1 | (game.leader == p) << 2)
             << _ROLES
             | (discard[o] >= 0) << _OPP_DISC)
    left = game.num_hands - game.hand_no
    if left <= 0 and phase != _OVER:
        flags |= 1 << _TIEBREAK
    x |= (my_up << _MY_UP | my_cov << _MY_COV | opp_up << _OPP_UP
          | opp_cov << _OPP_COV | my_played << _MY_PLAYED | opp_played << _OPP_PLAYED
          | won[p] << _MY_WON | won[o] << _OPP_WON | (_ALL_CARDS ^ seen) << _UNSEEN
          | _TRUMP_CARDS[trump + 1] | (legal & _ALL_CARDS) << _LEGAL | flags << _FLAGS
          | legal << OBS_SIZE)
    absent = _ALL_CARDS ^ game.variant.deck
    if absent:  # a smaller variant: its absent cards are neither unseen nor trumps
        x &= ~(absent << _UNSEEN | absent << _TRUMPS)
    return _arrays(x, game.trick_points, game.scores, p, len(game.tricks),
                   hand[o].bit_count(), my_cov.bit_count() + my_pending,
                   opp_cov.bit_count() + opp_pending, phase, left)


def _arrays(x: int, tp, scores, p: int, tricks: int, opp_hand: int, my_down: int,
            opp_down: int, phase: int, left: int) -> tuple[np.ndarray, np.ndarray]:
    """The observation and mask of the bit-packed 0/1 entries ``x`` (the mask's bits after
    the vector's) and the scaled entries from these counts: one row of ``BYTE_BITS``
    per byte gives the float32 bits of the vector and the mask at once."""
    flat = _take(_frombuffer(x.to_bytes(_BOTH_BYTES, "little"), _U8), 0).ravel()
    out = flat[:OBS_SIZE]
    s, t = scores[p], scores[1 - p]
    _pack(out, _SCALAR_BYTES, _BY_POINTS[tp[p]], _BY_POINTS[tp[1 - p]], _BY_TRICKS[tricks],
          _BY_HAND[opp_hand], _BY_PILES[my_down], _BY_PILES[opp_down],
          s / (s + _SCORE_SCALE), t / (t + _SCORE_SCALE),
          0.0 if phase == _OVER else _HANDS_LEFT[left] if 0 <= left <= HANDS_LEFT_CAP else
          (1.0 if left > HANDS_LEFT_CAP else _FEW_HANDS_LEFT))
    return out, flat[OBS_SIZE:_MASK_END].astype(_I8)


def encode_view_packed(view) -> tuple[np.ndarray, np.ndarray]:
    """``encode_view(view)`` bit-packed as :func:`_encode_py` packs it: the shipped bots'
    encoder, the faster twin of :func:`~widderkopf_env.observation.encode_with_mask`. It reads only the
    :class:`~widderkopf_env.view.PlayerView` (R8), as the reference does; the same
    differential test ties the two. A fresh float32 observation and int8 mask."""
    p, o = view.player, view.opponent
    trump, phase, deck = view.trump, view.phase, view.variant.deck
    my_cov, opp_cov, played, won, legal = (view.my_covered, view.opp_covered, view.played,
                                           view.won, view.legal)
    my_pending = opp_pending = 0
    for top, down in view.my_piles:
        if top < 0 and down:
            my_pending = 1
    for top, down in view.opp_piles:
        if top < 0 and down:
            opp_pending = 1
    x = view.hand
    if view.my_discard >= 0:
        x |= 1 << (_DISCARD + view.my_discard)
    if view.lead >= 0:
        x |= 1 << (_LEAD + view.lead)
    if trump >= 0:
        x |= (TRUMP_MASK[trump] & deck) << _TRUMPS
    may = view.may_escalate
    flags = (my_pending | opp_pending << 1 | _PHASE_FLAG[phase]
             | (view.current == p) << _MY_TURN | _TRUMP_FLAG[trump + 1]
             | _LEVEL_FLAG[view.level] | (may[p] | may[o] << 1) << _MAY
             | _CRACKER_FLAGS[p][view.cracker]
             | ((view.dealer == p) | (view.chooser == p) << 1 | (view.leader == p) << 2)
             << _ROLES | view.opp_discarded << _OPP_DISC)
    left = view.num_hands - view.hand_no
    if left <= 0 and phase != _OVER:
        flags |= 1 << _TIEBREAK
    x |= (view.my_up << _MY_UP | my_cov << _MY_COV | view.opp_up << _OPP_UP
          | opp_cov << _OPP_COV | played[p] << _MY_PLAYED | played[o] << _OPP_PLAYED
          | won[p] << _MY_WON | won[o] << _OPP_WON | view.unseen << _UNSEEN
          | (legal & _ALL_CARDS) << _LEGAL | flags << _FLAGS | legal << OBS_SIZE)
    return _arrays(x, view.trick_points, view.scores, p, len(view.tricks),
                   view.hand_size_opp, my_cov.bit_count() + my_pending,
                   opp_cov.bit_count() + opp_pending, phase, left)


# --- the optional C accelerator ------------------------------------------------------------

#: Whether observations are encoded by the C accelerator (same arrays, faster).
ACCELERATED: bool = CORE is not None

_F32 = np.dtype(np.float32)


def _encode_c(game, player: int, over: bool = False) -> tuple[np.ndarray, np.ndarray]:
    if _c_arrays and isinstance(game, _GameState):  # a Game writes its own row, in one call
        return game.encode(player, over, False)
    obs, mask = _c_encode(game, player, over)  # any object's attributes: bytearrays
    return _frombuffer(obs, _F32), _frombuffer(mask, _I8)


if ACCELERATED:
    _c_encode, _GameState = CORE.encode, CORE.GameState
    #: whether a compiled Game's ``encode`` makes the arrays (False where the core was
    #: built without numpy's headers): float32, or the compact uint8 form
    _c_arrays = bool(CORE.numpy_api())
    encode_game = _encode_c
else:
    _c_encode = _GameState = None
    _c_arrays = False
    encode_game = _encode_py


def compiled_form(obs_dtype) -> int | None:
    """How the compiled core writes an env's observations of ``obs_dtype`` into arrays
    (0: float32, 1: the compact uint8 form), or None where the Python encoder runs (no
    core, one built without numpy's headers, or ``encode_game`` replaced, as
    ``bench/env.py`` does to time the pure-Python form)."""
    if encode_game is not _encode_c or not _c_arrays:
        return None
    return 0 if check_obs_dtype(obs_dtype) == np.float32 else 1


def encoder_for(obs_dtype=np.float32):
    """``encode_game`` for an env's ``obs_dtype``: itself for float32, and for the compact
    uint8 form the compiled core's uint8 arrays where it runs (else ``encode_game``'s
    observation through :func:`~widderkopf_env.observation.to_compact`: the same bytes)."""
    if check_obs_dtype(obs_dtype) == np.float32:
        return encode_game
    compiled = compiled_form(obs_dtype) is not None

    def encode_compact(game, player: int, over: bool = False):
        if compiled and isinstance(game, _GameState):
            return game.encode(player, over, True)
        obs, mask = encode_game(game, player, over)
        return to_compact(obs), mask

    return encode_compact
