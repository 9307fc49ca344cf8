"""The observation tensor: one table of named pieces -> one flat float32 vector.

:data:`PIECES` is the whole layout. Each row is ``(name, size, description)``; the
offsets follow from the sizes (:func:`offsets`), the README's index table is generated
from it (:func:`observation_table_markdown`) and a test checks the README against it.

There is one encoder, :func:`encode_game`. The environments run it on the live
:class:`~widderkopf_env.rules.Game` (building a :class:`~widderkopf_env.view.PlayerView`
first would cost as much again); :func:`encode` and :func:`encode_with_mask` run it on a
stand-in made from a view, which holds nothing the player may not see (RULES R8). From a
game it reads the player's own cards, the opponent's hand *size*, whether they have
discarded, and public fields; tests check that both paths agree at every position of
many games (so the encoder cannot use more than the view has) and that observations do
not change when the hidden cards do. Everything is relative to the observing player ("my", "opp"), not to absolute seats, so one policy can play both
seats. Card pieces have one entry per card id (``suit * 9 + rank``, suits C S H D,
ranks A 10 K Q J 9 8 7 6; see :mod:`widderkopf_env.cards`). All entries lie in [0, 1].

Speed: the pure-Python encoder (``_encode_py``) makes every 0/1 entry, and the action
mask after them, a bit of one Python int, turned into floats by one table look-up per
byte (``np.take``); the 9 scaled entries are then written with one ``struct.pack_into``.
Where the package was installed with a C compiler, its compiled twin
(``widderkopf_env/_speedups.c``, set up by ``setup.py``) does the same in about half the
time; :data:`ACCELERATED` says which one runs, ``WIDDERKOPF_PURE_PYTHON=1`` forces the
pure-Python one, and tests check that both give the same bits at every position of many
games.
"""

from __future__ import annotations

import os
import struct
import warnings

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
# Entry i of the vector is bit i of one int, written little-endian: byte k gives entries
# 8k .. 8k+7 through row k of _BYTE_BITS.
_BOTH_BYTES = (OBS_SIZE + NUM_ACTIONS + 7) // 8  # encode_with_mask: the mask follows
_MASK_END = OBS_SIZE + NUM_ACTIONS
#: Trump one-hot (a flag, relative to _FLAGS) by ``trump + 1`` (-1 = none named yet).
_TRUMP_FLAG = tuple(1 << (_o("trump_suit") - _FLAGS + (t if t >= 0 else 4)) for t in range(-1, 4))
#: Phase and crack level one-hots (flags) by value.
_PHASE_FLAG = tuple(1 << (_PHASE + ph) for ph in range(5))
_LEVEL_FLAG = tuple(1 << (_LEVEL + lv) for lv in range(5))
#: The trumps card piece by ``trump + 1``.
_TRUMP_CARDS = (0,) + tuple(TRUMP_MASK[t] << _o("trumps") for t in range(4))
_PENDING = (-1, True)  # a pile entry of PlayerView.my_piles / opp_piles: (top, has down)
#: hands_left entry by ``num_hands - hand_no`` (>= 1 while playing; clipped to 1..8).
_HANDS_LEFT = tuple(min(max(n, 1), 8) / 8.0 for n in range(9))
#: The cracker flags by ``[player][cracker]`` (cracker -1, none, is the last entry).
_CRACKER_FLAGS = tuple((1 << (_CRACKER + (p != 0)), 1 << (_CRACKER + (p != 1)), 0)
                       for p in (0, 1))
# Scaled entries as look-ups: trick points / 121, tricks / 17, cards / 8, face-down / 5.
_BY_121 = tuple(n / 121.0 for n in range(122))
_BY_17 = tuple(n / 17.0 for n in range(18))
_BY_8 = tuple(n / 8.0 for n in range(9))
_BY_5 = tuple(n / 5.0 for n in range(7))


class _ViewSource:
    """A :class:`~widderkopf_env.view.PlayerView` in the shape :func:`encode_game` reads.

    It holds only what the view holds. Where a game has hidden cards it has stand-ins: the
    opponent's hand is a set of the right *size* with made-up cards, the opponent's
    discard is card 0 once they have discarded. So if :func:`encode_game` used anything
    of those but the count and the flag, or read a field not listed here, the view path
    and the game path would disagree, and a test compares them at every position of
    many games.
    """

    __slots__ = ("hand", "upbits", "covered", "discard", "played", "won", "current", "phase",
                 "trump", "cracker", "level", "dealer", "chooser", "leader", "lead",
                 "lead_pile", "num_hands", "hand_no", "trick_points", "scores", "tricks",
                 "legal_mask", "_rights")

    def __init__(self, v):
        p = v.player

        def by_seat(mine, theirs):
            return (mine, theirs) if p == 0 else (theirs, mine)

        self.hand = by_seat(v.hand, (1 << v.hand_size_opp) - 1)  # opponent: a count only
        self.upbits = by_seat(v.my_up, v.opp_up)
        self.covered = by_seat(v.my_covered, v.opp_covered)
        self.discard = by_seat(v.my_discard, 0 if v.opp_discarded else -1)
        self.played, self.won, self.trick_points = v.played, v.won, v.trick_points
        self.current, self.phase, self.trump, self.level = v.current, v.phase, v.trump, v.level
        self.cracker, self.dealer, self.chooser, self.leader = (v.cracker, v.dealer, v.chooser,
                                                               v.leader)
        self.lead, self.num_hands, self.hand_no = v.lead, v.num_hands, v.hand_no
        self.scores, self.tricks, self.legal_mask = v.scores, v.tricks, v.legal
        self._rights = v.may_escalate
        # the pile the open trick's lead came from, if a face-down card waits under it
        self.lead_pile = -1
        for seat, piles in ((p, v.my_piles), (1 - p, v.opp_piles)):
            if _PENDING in piles:
                self.lead_pile = 5 * seat + piles.index(_PENDING)

    def escalation_rights(self) -> tuple[bool, bool]:
        return self._rights


_take, _frombuffer, _pack = _BYTE_BITS.take, np.frombuffer, _PACK_SCALARS.pack_into
_SCALAR_BYTES = _SCALARS * 4


def _encode_py(game, player: int, over: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """``encode_with_mask(game.view(player))`` without building the view: the envs' path.

    ``over``: the episode has ended early (e.g. by an illegal action), so the mask and
    the ``legal_cards`` piece are all zeros. The result is a fresh float32 observation
    and a fresh int8 mask.

    Hidden information (R8): from ``game`` this reads the player's own hand and discard,
    the opponent's hand *size* and whether they have discarded, and public fields. It
    is also the encoder of :func:`encode_with_mask`, run on a stand-in built from the
    view (:class:`_ViewSource`) that has nothing else; a test checks that both paths give
    the same arrays at every position of many games, and the no-leak tests run on both.
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
    x = my_hand
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
        if pile // 5 == p:
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
    if left <= 0 and phase != 4:
        flags |= 1 << _TIEBREAK
    x |= (my_up << _MY_UP | my_cov << _MY_COV | opp_up << _OPP_UP
          | opp_cov << _OPP_COV | my_played << _MY_PLAYED | opp_played << _OPP_PLAYED
          | won[p] << _MY_WON | won[o] << _OPP_WON | (_ALL36 ^ seen) << _UNSEEN
          | _TRUMP_CARDS[trump + 1] | (legal & _ALL36) << _LEGAL | flags << _FLAGS
          | legal << OBS_SIZE)
    # one row of _BYTE_BITS per byte: the float32 bits of the vector and the mask at once
    flat = _take(_frombuffer(x.to_bytes(_BOTH_BYTES, "little"), _U8), 0).ravel()
    out = flat[:OBS_SIZE]
    tp, scores = game.trick_points, game.scores
    s, t = scores[p], scores[o]
    _pack(out, _SCALAR_BYTES, _BY_121[tp[p]], _BY_121[tp[o]], _BY_17[len(game.tricks)],
          _BY_8[hand[o].bit_count()], _BY_5[my_cov.bit_count() + my_pending],
          _BY_5[opp_cov.bit_count() + opp_pending], s / (s + 8.0), t / (t + 8.0),
          0.0 if phase == 4 else _HANDS_LEFT[left] if 0 <= left <= 8 else
          (1.0 if left > 8 else 0.125))
    return out, flat[OBS_SIZE:_MASK_END].astype(_I8)


# --- the optional C accelerator ------------------------------------------------------------

#: The pieces whose offsets ``_speedups.configure`` takes, in its order.
_C_LAYOUT = ("hand", "my_up", "my_covered", "opp_up", "opp_covered", "my_discard", "lead",
             "my_played", "opp_played", "my_won", "opp_won", "unseen", "trumps",
             "legal_cards", "pending", "phase", "my_turn", "trump_suit", "crack_level",
             "may_escalate", "cracker", "roles", "opp_discarded", "tiebreak", "trick_points",
             "tricks_done", "opp_hand_size", "face_down", "match_scores", "hands_left")
if [name for name, _, _ in PIECES] != list(_C_LAYOUT):
    raise AssertionError("widderkopf_env/_speedups.c expects the pieces of _C_LAYOUT")


def _load_speedups():
    """The compiled twin of :func:`_encode_py` (``widderkopf_env/_speedups.c``), or None
    when it was not built (no C compiler at install) or ``WIDDERKOPF_PURE_PYTHON`` is set
    to a non-empty value other than ``0``."""
    if os.environ.get("WIDDERKOPF_PURE_PYTHON", "") not in ("", "0"):
        return None
    try:
        from . import _speedups
    except ImportError:
        return None
    try:
        _speedups.configure(tuple(OFFSETS[name][0] for name in _C_LAYOUT),
                            tuple(OFFSETS[name][1] for name in _C_LAYOUT), OBS_SIZE,
                            NUM_ACTIONS, tuple(TRUMP_MASK))
    except (TypeError, ValueError) as err:  # a stale build from another version
        warnings.warn(f"widderkopf_env._speedups does not fit this version ({err}); using "
                      "the pure-Python encoder. Reinstall widderkopf-env to rebuild it.",
                      RuntimeWarning, stacklevel=2)
        return None
    return _speedups


_speedups = _load_speedups()
#: Whether observations are encoded by the C accelerator (same arrays, faster).
ACCELERATED: bool = _speedups is not None
_F32 = np.dtype(np.float32)


def _encode_c(game, player: int, over: bool = False) -> tuple[np.ndarray, np.ndarray]:
    obs, mask = _c_encode(game, player, over)  # bytearrays: float32 and int8
    return _frombuffer(obs, _F32), _frombuffer(mask, _I8)


if ACCELERATED:
    _c_encode = _speedups.encode
    encode_game = _encode_c
else:
    encode_game = _encode_py
encode_game.__doc__ = _encode_py.__doc__


def encode(view) -> np.ndarray:
    """The observation of ``view``: a fresh float32 array of shape ``(OBS_SIZE,)``."""
    return encode_game(_ViewSource(view), view.player)[0]


def action_mask(view) -> np.ndarray:
    """The legal actions of ``view``: a fresh int8 array of shape ``(42,)`` (1 = legal).

    All zeros when it is not this player's turn or the game is over.
    """
    raw = np.frombuffer(view.legal.to_bytes(6, "little"), _U8)
    return np.unpackbits(raw, None, None, "little")[:NUM_ACTIONS].view(_I8)


def encode_with_mask(view) -> tuple[np.ndarray, np.ndarray]:
    """``(encode(view), action_mask(view))`` in one pass: what bots and policies use (the
    environments call :func:`encode_game` on the game, which gives the same arrays)."""
    return encode_game(_ViewSource(view), view.player)

