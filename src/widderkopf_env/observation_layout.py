"""The observation's layout: the table of named pieces (:data:`PIECES`), their offsets
and the scales of the numbers, free of numpy, so that the compiled core
(:mod:`widderkopf_env.compiled`) is configured from it at import without loading numpy.
:mod:`widderkopf_env.observation` builds the arrays on it and is where to read it."""

from __future__ import annotations

from .cards import SUITS

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
