"""The observation tensor: one table of named pieces -> one flat float32 vector.

:data:`PIECES` is the whole layout: the card sets (:data:`CARD_PIECES`), then the 0/1
flags (:data:`FLAG_PIECES`), then the scaled numbers (:data:`SCALED_PIECES`). Each row
is ``(name, size, description)``; the offsets follow from the sizes (:func:`offsets`),
the docs' index table (docs/environments.md) is generated from it
(:func:`observation_table_markdown`) and a test checks the page against it.

:func:`encode_view` is the reference encoder: it fills the named pieces from a
:class:`~widderkopf_env.view.PlayerView`, so it cannot see more than the player may (RULES
R8); bots and policies use it (:func:`encode_with_mask`). The environments use the fast
encoders of :mod:`widderkopf_env.game_encoder` on the live game, and tests check that they
give the reference's arrays bit for bit at every position of many games. Everything is
relative to the observing player ("my", "opp"), not to absolute seats, so one policy can
play both seats. Card pieces have one entry per card id (``suit * 9 + rank``, suits C S H
D, ranks A 10 K Q J 9 8 7 6; see :mod:`widderkopf_env.cards`). All entries lie in [0, 1].
"""

from __future__ import annotations

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
from .engine_types import Phase
from .observation_layout import (  # the layout's table, free of numpy; read it here
    CARD_PIECES,
    FLAG_PIECES,
    HANDS_LEFT_CAP,
    NO_TRUMP_ENTRY,
    OBS_SIZE,
    OFFSETS,
    PIECES,
    SCALED_PIECES,
    SCORE_SCALE,
    offsets,
)

__all__ = ["CARD_PIECES", "FLAG_PIECES", "HANDS_LEFT_CAP", "NO_TRUMP_ENTRY", "OBS_SIZE",
           "COMPACT_SCALE", "OBS_DTYPES", "OFFSETS", "PIECES", "SCALED_PIECES", "SCORE_SCALE",
           "action_mask", "check_obs_dtype", "observation_table_markdown",
           "encode", "encode_view", "encode_with_mask", "observation_space", "offsets", "piece",
           "split", "to_compact"]

# --- the compact form (obs_dtype=np.uint8) ------------------------------------------------

#: The compact observation writes a scaled number ``x`` as ``round(x * COMPACT_SCALE)``.
COMPACT_SCALE = 255
#: The observation dtypes the environments offer: float32 (default) and the compact uint8.
OBS_DTYPES = (np.dtype(np.float32), np.dtype(np.uint8))


def check_obs_dtype(obs_dtype) -> np.dtype:
    """``obs_dtype`` as a numpy dtype, one of :data:`OBS_DTYPES`; ``ValueError`` otherwise."""
    try:
        dtype = np.dtype(obs_dtype)
    except TypeError:
        dtype = None
    if dtype not in OBS_DTYPES or isinstance(obs_dtype, bool):
        raise ValueError(f"obs_dtype must be np.float32 (the default) or np.uint8 (compact), "
                         f"got {obs_dtype!r}")
    return dtype


def to_compact(obs: np.ndarray) -> np.ndarray:
    """The compact (uint8) form of float32 observations, the one definition of it: the
    0/1 entries stay 0/1; a scaled number ``x`` becomes ``round(x * 255)`` (the float32
    value times 255 in float64, rounded half to even), so ``x`` is about ``entry / 255``."""
    return np.rint(np.asarray(obs, np.float32).astype(np.float64) * _COMPACT_FACTORS
                   ).astype(np.uint8)


def _compact_factors() -> np.ndarray:
    factors = np.ones(OBS_SIZE)
    for name, _, _ in SCALED_PIECES:
        start, size = OFFSETS[name]
        factors[start:start + size] = COMPACT_SCALE
    return factors


_COMPACT_FACTORS = _compact_factors()


def observation_space(obs_dtype=np.float32, shape=(OBS_SIZE,)):
    """The gymnasium ``Box`` of one observation: ``[0, 1]`` float32, or ``[0, 255]``
    uint8 in the compact form (0/1 entries stay 0/1, scaled numbers ``round(x * 255)``)."""
    from gymnasium import spaces

    dtype = check_obs_dtype(obs_dtype)
    high = 1.0 if dtype == np.float32 else COMPACT_SCALE
    return spaces.Box(0, high, shape, dtype)


def piece(obs: np.ndarray, name: str) -> np.ndarray:
    """The entries of piece ``name`` in an observation (a view into ``obs``)."""
    start, size = OFFSETS[name]
    return obs[..., start:start + size]


def split(obs: np.ndarray) -> dict[str, np.ndarray]:
    """All pieces of an observation by name (views), e.g. for debugging."""
    return {name: piece(obs, name) for name, _, _ in PIECES}


def observation_table_markdown() -> str:
    """The layout as the Markdown index table shown in docs/environments.md."""
    lines = [
        f"The observation is a float32 vector of {OBS_SIZE} entries, all in [0, 1], from "
        "the acting player's point of view (`my` = the observing player, `opp` = the "
        "opponent). Pieces of size 36 have one entry per card id (`suit * 9 + rank`; "
        "suits C S H D, ranks A 10 K Q J 9 8 7 6).",
        "",
        "| offset | size | name | meaning |",
        "|-------:|-----:|------|---------|",
    ]
    for name, size, text in PIECES:
        lines.append(f"| {OFFSETS[name][0]} | {size} | `{name}` | {text} |")
    return "\n".join(lines) + "\n"


# --- the reference encoder --------------------------------------------------------------

_ALL_CARDS = (1 << NUM_CARDS) - 1


def _bits(bits: int, size: int = NUM_CARDS) -> np.ndarray:
    """Entry ``i`` is bit ``i`` of ``bits``."""
    return np.array([(bits >> i) & 1 for i in range(size)], np.float32)


def encode_view(view) -> tuple[np.ndarray, np.ndarray]:
    """The observation and action mask of ``view`` (a :class:`~widderkopf_env.view.
    PlayerView`): the reference encoder, written piece by piece from :data:`PIECES`.

    Returns a fresh float32 ``(OBS_SIZE,)`` array and a fresh int8 ``(42,)`` mask. It reads
    nothing but the view, so it holds no hidden card (R8). The environments run the fast
    encoders of :mod:`widderkopf_env.game_encoder` on the live game instead; tests check
    that they give the very same arrays.
    """
    p, o = view.player, view.opponent
    obs = np.zeros(OBS_SIZE, np.float32)
    x = split(obs)
    pending = [any(top < 0 and down for top, down in piles)
               for piles in (view.my_piles, view.opp_piles)]
    # card sets
    for name, bits in (("hand", view.hand), ("my_up", view.my_up),
                       ("my_covered", view.my_covered), ("opp_up", view.opp_up),
                       ("opp_covered", view.opp_covered), ("my_played", view.played[p]),
                       ("opp_played", view.played[o]), ("my_won", view.won[p]),
                       ("opp_won", view.won[o]), ("unseen", view.unseen),
                       ("legal_cards", view.legal & _ALL_CARDS)):
        x[name][:] = _bits(bits)
    if view.my_discard >= 0:
        x["my_discard"][view.my_discard] = 1
    if view.lead >= 0:
        x["lead"][view.lead] = 1
    if view.trump >= 0:
        x["trumps"][:] = _bits(TRUMP_MASK[view.trump] & view.variant.deck)
    # flags
    x["pending"][:] = pending
    x["phase"][view.phase] = 1
    x["my_turn"][0] = view.current == p
    x["trump_suit"][view.trump if view.trump >= 0 else NO_TRUMP_ENTRY] = 1
    x["crack_level"][view.level] = 1
    x["may_escalate"][:] = view.may_escalate[p], view.may_escalate[o]
    x["cracker"][:] = view.cracker == p, view.cracker == o
    x["roles"][:] = view.dealer == p, view.chooser == p, view.leader == p
    x["opp_discarded"][0] = view.opp_discarded
    hands_left = view.num_hands - view.hand_no  # 0 or less in a tie-break hand (R20)
    over = view.phase == Phase.OVER
    x["tiebreak"][0] = hands_left <= 0 and not over
    # scaled numbers
    x["trick_points"][:] = (view.trick_points[p] / TOTAL_POINTS,
                            view.trick_points[o] / TOTAL_POINTS)
    x["tricks_done"][0] = len(view.tricks) / TRICKS
    x["opp_hand_size"][0] = view.hand_size_opp / HAND_SIZE
    x["face_down"][:] = ((view.my_covered.bit_count() + pending[0]) / PILES,
                         (view.opp_covered.bit_count() + pending[1]) / PILES)
    s, t = view.scores[p], view.scores[o]
    x["match_scores"][:] = s / (s + SCORE_SCALE), t / (t + SCORE_SCALE)
    x["hands_left"][0] = (0.0 if over else
                          min(max(hands_left, 1), HANDS_LEFT_CAP) / HANDS_LEFT_CAP)
    return obs, _bits(view.legal, NUM_ACTIONS).astype(np.int8)


def encode(view) -> np.ndarray:
    """The observation of ``view``: a fresh float32 array of shape ``(OBS_SIZE,)``."""
    return encode_view(view)[0]


def action_mask(view) -> np.ndarray:
    """The legal actions of ``view``: a fresh int8 array of shape ``(42,)`` (1 = legal).

    All zeros when it is not this player's turn or the game is over.
    """
    return _bits(view.legal, NUM_ACTIONS).astype(np.int8)


def encode_with_mask(view) -> tuple[np.ndarray, np.ndarray]:
    """``(encode(view), action_mask(view))`` in one pass: what bots and policies use
    (:func:`~widderkopf_env.game_encoder.encode_view_packed` is its faster twin, the same
    arrays, which the shipped bots run)."""
    return encode_view(view)
