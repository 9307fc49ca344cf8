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
    SUITS,
    TOTAL_POINTS,
    TRICKS,
    TRUMP_MASK,
)
from .engine_types import Phase

#: Card sets, one 0/1 entry per card id: ``(name, size, description)``.
CARD_PIECES: tuple[tuple[str, int, str], ...] = (
    ("hand", 36, "my hand cards"),
    ("my_up", 36, "my face-up cards: the playable top card of each of my piles (R13)"),
    ("my_covered", 36, "my face-up cards that lie on a face-down card (R7, R14)"),
    ("opp_up", 36, "the opponent's face-up cards"),
    ("opp_covered", 36, "the opponent's face-up cards that lie on a face-down card"),
    ("my_discard", 36, "the card I discarded (R10); all 0 before I discard"),
    ("lead", 36, "the card led in the open trick; all 0 when none is led"),
    ("my_played", 36, "cards I played to tricks this hand, the open trick included"),
    ("opp_played", 36, "cards the opponent played to tricks this hand"),
    ("my_won", 36, "cards I captured in tricks this hand (not the opponent's discard)"),
    ("opp_won", 36, "cards the opponent captured in tricks this hand"),
    ("unseen", 36, "cards I have not seen: the opponent's hand and discard and every "
                   "face-down card (`PlayerView.unseen`)"),
    ("trumps", 36, "the 15 trumps of the named trump suit (R2); all 0 before it is named"),
    ("legal_cards", 36, "cards I may play or discard now (card part of the action mask)"),
)
#: Flags and one-hots: 0/1 entries.
FLAG_PIECES: tuple[tuple[str, int, str], ...] = (
    ("pending", 2, "my / the opponent's face-down card whose face-up card is in the open "
                   "trick: it turns over when the trick is complete (R14)"),
    ("phase", 5, "one-hot phase: TRUMP, DISCARD, PLAY, ANSWER, OVER"),
    ("my_turn", 1, "1 when I am to act"),
    ("trump_suit", 5, "one-hot trump suit: C, S, H, D, none named yet"),
    ("crack_level", 5, "one-hot crack level 0..4 (game value x1, x2, x4, x8, x16; R11)"),
    ("may_escalate", 2, "I / the opponent still hold the right to the next escalation (R11)"),
    ("cracker", 2, "I / the opponent said Crack (the other said Recrack if level >= 2)"),
    ("roles", 3, "I am the dealer / I name (or named) trumps / I lead the open or next "
                 "trick"),
    ("opp_discarded", 1, "the opponent has discarded (the card itself stays hidden, R8)"),
    ("tiebreak", 1, "1 in an extra hand played because the scores were tied (R20)"),
)
#: Numbers scaled into [0, 1] (the only entries that are not 0 or 1).
SCALED_PIECES: tuple[tuple[str, int, str], ...] = (
    ("trick_points", 2, "card points I / the opponent took in tricks, / 121 (discards "
                        "count only at the hand's end, R8)"),
    ("tricks_done", 1, "completed tricks this hand / 17"),
    ("opp_hand_size", 1, "cards in the opponent's hand / 8"),
    ("face_down", 2, "face-down cards I / the opponent still have / 5 (covered cards plus "
                     "pending)"),
    ("match_scores", 2, "my / the opponent's match score s as s / (s + 8)"),
    ("hands_left", 1, "hands left in the match, this one included: min(n, 8) / 8; 0 when "
                      "the match is over"),
)
#: The layout, in order: ``(name, size, description)``.
PIECES: tuple[tuple[str, int, str], ...] = CARD_PIECES + FLAG_PIECES + SCALED_PIECES
#: ``match_scores``: a match score s is written as s / (s + SCORE_SCALE).
SCORE_SCALE = 8
#: ``hands_left``: n hands left are written as min(n, HANDS_LEFT_CAP) / HANDS_LEFT_CAP.
HANDS_LEFT_CAP = 8
#: The entry of the ``trump_suit`` one-hot that says no trump suit is named yet.
NO_TRUMP_ENTRY = len(SUITS)


def offsets() -> dict[str, tuple[int, int]]:
    """``{name: (offset, size)}`` for every piece, in table order."""
    out, at = {}, 0
    for name, size, _ in PIECES:
        out[name] = (at, size)
        at += size
    return out


OFFSETS: dict[str, tuple[int, int]] = offsets()
#: Length of the observation vector.
OBS_SIZE: int = sum(size for _, size, _ in PIECES)


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
