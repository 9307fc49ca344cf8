"""The observation tensor: one table of named pieces -> one flat float32 vector.

:data:`PIECES` is the whole layout. Each row is ``(name, size, description)``; the
offsets follow from the sizes (:func:`offsets`), the README's index table is generated
from it (:func:`observation_table_markdown`) and a test checks the README against it.

The encoder reads a :class:`~widderkopf_env.view.PlayerView` and nothing else, so it
cannot leak what the player may not see (RULES R8). Everything is relative to the
observing player ("my", "opp"), not to absolute seats, so one policy can play both
seats. Card pieces have one entry per card id (``suit * 9 + rank``, suits C S H D,
ranks A 10 K Q J 9 8 7 6; see :mod:`widderkopf_env.cards`). All entries lie in [0, 1].

Speed: every 0/1 entry is a bit of one Python int, turned into floats by one table
look-up per byte (``np.take``); the 9 scaled entries are then written with one
``struct.pack_into``.
"""

from __future__ import annotations

import struct

import numpy as np

from .cards import NUM_ACTIONS, TRUMP_MASK

#: The layout, in order: ``(name, size, description)``.
PIECES: tuple[tuple[str, int, str], ...] = (
    # card sets: one entry per card id
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
    # flags
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
    # scaled numbers
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


def piece(obs: np.ndarray, name: str) -> np.ndarray:
    """The entries of piece ``name`` in an observation (a view into ``obs``)."""
    start, size = OFFSETS[name]
    return obs[..., start:start + size]


def split(obs: np.ndarray) -> dict[str, np.ndarray]:
    """All pieces of an observation by name (views), e.g. for debugging."""
    return {name: piece(obs, name) for name, _, _ in PIECES}


def observation_table_markdown() -> str:
    """The layout as the Markdown index table shown in README.md."""
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


# --- the encoder -------------------------------------------------------------------------

def _o(name: str) -> int:
    return OFFSETS[name][0]


# Card pieces: bit offsets in the vector.
_MY_UP, _MY_COV, _OPP_UP, _OPP_COV = _o("my_up"), _o("my_covered"), _o("opp_up"), _o("opp_covered")
_DISCARD, _LEAD, _MY_PLAYED, _OPP_PLAYED = _o("my_discard"), _o("lead"), _o("my_played"), _o("opp_played")
_MY_WON, _OPP_WON, _UNSEEN, _LEGAL = _o("my_won"), _o("opp_won"), _o("unseen"), _o("legal_cards")
# Flag pieces: built as one small int, relative to _FLAGS, then shifted into place once.
_FLAGS = _o("pending")
_PHASE, _MY_TURN, _LEVEL = _o("phase") - _FLAGS, _o("my_turn") - _FLAGS, _o("crack_level") - _FLAGS
_MAY, _CRACKER, _ROLES = _o("may_escalate") - _FLAGS, _o("cracker") - _FLAGS, _o("roles") - _FLAGS
_OPP_DISC, _TIEBREAK = _o("opp_discarded") - _FLAGS, _o("tiebreak") - _FLAGS
# The scaled entries (trick_points .. hands_left) are contiguous and written at once.
_SCALARS = _o("trick_points")
_SCALED = ("trick_points", "tricks_done", "opp_hand_size", "face_down", "match_scores",
           "hands_left")
_N_SCALED = sum(OFFSETS[name][1] for name in _SCALED)
if ([n for n, _, _ in PIECES[-len(_SCALED):]] != list(_SCALED)
        or _SCALARS + _N_SCALED != OBS_SIZE or _FLAGS < _LEGAL + 36
        or _o("tiebreak") >= _SCALARS):
    raise AssertionError("the encoder expects: card pieces, then flags, then the scaled "
                         "entries trick_points .. hands_left")
_PACK_SCALARS = struct.Struct(f"<{_N_SCALED}f")
_ALL36 = (1 << 36) - 1
_U8, _I8 = np.dtype(np.uint8), np.dtype(np.int8)
#: Row b: the 8 bits of byte b, least significant first, as float32 0/1.
_BYTE_BITS = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1,
                           bitorder="little").astype(np.float32)
# Entry i of the vector is bit i of one int, written little-endian and unpacked with
# bitorder "little" (passed positionally: parsing the keyword costs more than unpacking).
_NBYTES = (OBS_SIZE + 7) // 8
_BOTH_BYTES = (OBS_SIZE + NUM_ACTIONS + 7) // 8  # encode_with_mask: the mask follows
_MASK_END = OBS_SIZE + NUM_ACTIONS
#: Trump one-hot (a flag, relative to _FLAGS) by ``trump + 1`` (-1 = none named yet).
_TRUMP_FLAG = tuple(1 << (_o("trump_suit") - _FLAGS + (t if t >= 0 else 4)) for t in range(-1, 4))
#: The trumps card piece by ``trump + 1``.
_TRUMP_CARDS = (0,) + tuple(TRUMP_MASK[t] << _o("trumps") for t in range(4))
_PENDING = (-1, True)  # a pile entry of PlayerView.my_piles / opp_piles: (top, has down)
#: hands_left entry by ``num_hands - hand_no`` (>= 1 while playing; clipped to 1..8).
_HANDS_LEFT = tuple(min(max(n, 1), 8) / 8.0 for n in range(9))


def _encode(v, nbytes: int, mask: int) -> tuple[np.ndarray, np.ndarray]:
    """The observation of view ``v`` and the unpacked bits it came from.

    ``mask`` (the legal actions, or 0) is packed just after the observation's bits.
    """
    p, o = v.player, v.opponent
    hand, my_up, opp_up, played = v.hand, v.my_up, v.opp_up, v.played
    my_played, opp_played = played[p], played[o]
    my_cov, opp_cov = v.my_covered, v.opp_covered
    discard, lead, trump, won, legal = v.my_discard, v.lead, v.trump, v.won, v.legal
    # the same set as PlayerView.unseen (a test checks it), inlined for speed
    seen = hand | my_up | opp_up | my_played | opp_played
    if discard >= 0:
        seen |= 1 << discard
    may, cracker, phase = v.may_escalate, v.cracker, v.phase
    # a pile with a face-down card but no face-up card: its top is in the open trick
    my_pending, opp_pending = _PENDING in v.my_piles, _PENDING in v.opp_piles
    flags = (my_pending | opp_pending << 1
             | 1 << (_PHASE + phase) | (v.current == p) << _MY_TURN
             | _TRUMP_FLAG[trump + 1] | 1 << (_LEVEL + v.level)
             | (may[p] | may[o] << 1) << _MAY
             | ((cracker == p) | (cracker == o) << 1) << _CRACKER
             | ((v.dealer == p) | (v.chooser == p) << 1 | (v.leader == p) << 2) << _ROLES
             | v.opp_discarded << _OPP_DISC)
    left = v.num_hands - v.hand_no
    if left <= 0 and phase != 4:
        flags |= 1 << _TIEBREAK
    x = (hand | my_up << _MY_UP | my_cov << _MY_COV | opp_up << _OPP_UP
         | opp_cov << _OPP_COV | my_played << _MY_PLAYED | opp_played << _OPP_PLAYED
         | won[p] << _MY_WON | won[o] << _OPP_WON | (_ALL36 ^ seen) << _UNSEEN
         | _TRUMP_CARDS[trump + 1] | (legal & _ALL36) << _LEGAL | flags << _FLAGS
         | mask << OBS_SIZE)
    if discard >= 0:
        x |= 1 << (_DISCARD + discard)
    if lead >= 0:
        x |= 1 << (_LEAD + lead)
    # one row of _BYTE_BITS per byte: the float32 bits of the whole vector in one take
    flat = _BYTE_BITS.take(np.frombuffer(x.to_bytes(nbytes, "little"), _U8), 0).reshape(-1)
    out = flat[:OBS_SIZE]
    tp, scores = v.trick_points, v.scores
    s, t = scores[p], scores[o]
    _PACK_SCALARS.pack_into(
        out, _SCALARS * 4, tp[p] / 121.0, tp[o] / 121.0, len(v.tricks) / 17.0,
        v.hand_size_opp / 8.0, (my_cov.bit_count() + my_pending) / 5.0,
        (opp_cov.bit_count() + opp_pending) / 5.0, s / (s + 8.0), t / (t + 8.0),
        0.0 if phase == 4 else _HANDS_LEFT[left] if 0 <= left <= 8 else
        (1.0 if left > 8 else 0.125))
    return out, flat


def encode(view) -> np.ndarray:
    """The observation of ``view``: a fresh float32 array of shape ``(OBS_SIZE,)``."""
    return _encode(view, _NBYTES, 0)[0]


def action_mask(view) -> np.ndarray:
    """The legal actions of ``view``: a fresh int8 array of shape ``(42,)`` (1 = legal).

    All zeros when it is not this player's turn or the game is over.
    """
    raw = np.frombuffer(view.legal.to_bytes(6, "little"), _U8)
    return np.unpackbits(raw, None, None, "little")[:NUM_ACTIONS].view(_I8)


def encode_with_mask(view) -> tuple[np.ndarray, np.ndarray]:
    """``(encode(view), action_mask(view))`` in one pass (what the environments use)."""
    out, flat = _encode(view, _BOTH_BYTES, view.legal)
    return out, flat[OBS_SIZE:_MASK_END].astype(_I8)
