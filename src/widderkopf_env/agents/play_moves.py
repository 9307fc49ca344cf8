"""Moves and results in words, for a human player: what the terminal game
(:mod:`.play_cli`) and the browser table (:mod:`.web_match`) share.

:func:`parse_move` reads a typed move (``QC``, ``10d``, ``crack``, ``hearts``, a move
number) against a player's view and says why a move is refused; :func:`trick_line` and
:func:`hand_lines` tell a finished trick and a finished hand from one player's side.
"""

from __future__ import annotations

from widderkopf_env.cards import (
    ESCALATE,
    NUM_CARDS,
    PASS,
    POINTS,
    SUIT_GLYPHS,
    SUITS,
    TRUMP_ACTION,
    card_glyph,
    parse_card,
    trick_winner_offset,
)
from widderkopf_env.rules import Phase

SUIT_WORDS = {
    **{s.lower(): i for i, s in enumerate(SUITS)}, **{g: i for i, g in enumerate(SUIT_GLYPHS)},
    "clubs": 0, "club": 0, "spades": 1, "spade": 1, "hearts": 2, "heart": 2,
    "diamonds": 3, "diamond": 3,
}
ESCALATE_WORDS = {"crack", "escalate", "recrack", "crackback", "corner", "around",
                  "crack around the corner", "e", "x"}
PASS_WORDS = {"pass", "p", "no", "n"}


def parse_move(text: str, view) -> int:
    """The action id ``text`` names in ``view``; ``ValueError`` saying why not."""
    legal = view.legal_actions()
    word = " ".join(text.strip().lower().split())
    if not word:
        raise ValueError("please enter a move")
    if word.isdigit():
        if int(word) in legal:
            return int(word)
        raise ValueError(f"{word} is not one of the move numbers shown")
    if word in ESCALATE_WORDS:
        if ESCALATE in legal:
            return ESCALATE
        if view.phase in (Phase.TRUMP, Phase.DISCARD):
            raise ValueError("escalating starts with the card play (R11): name trumps and "
                             "discard first")
        raise ValueError("you may not escalate now")
    if word in PASS_WORDS:
        if PASS in legal:
            return PASS
        raise ValueError("there is nothing to pass on now")
    if view.phase == Phase.TRUMP:
        suit = SUIT_WORDS.get(word.removeprefix("trump").strip())
        if suit is not None:
            return TRUMP_ACTION + suit
        raise ValueError("name a trump suit: clubs, spades, hearts or diamonds")
    try:
        card = parse_card(word)
    except ValueError:
        raise ValueError(f"{text.strip()!r} is not a move (type 'help' to see how to enter "
                         "one)") from None
    if card in legal:
        return card
    if view.phase == Phase.DISCARD:
        raise ValueError(f"{card_glyph(card)} is not in your hand (discard from your hand)")
    if view.phase != Phase.PLAY:
        raise ValueError("answer the escalation: 'crack' or 'pass'")
    if not (view.playable >> card) & 1:
        raise ValueError(f"{card_glyph(card)} is not playable: play from your hand or your "
                         "face-up cards")
    raise ValueError(f"{card_glyph(card)} does not follow: you must follow the card led "
                     "if you can (queens and jacks are trumps)")


def completed_trick(view, action: int):
    """The trick ``(leader, led, other, winner)`` that ``action``, taken in ``view`` by the
    player to act, completes; None if it completes none. Read it before the action is
    applied: the engine may deal the next hand, and clear its tricks, at once."""
    if view.phase == Phase.PLAY and action < NUM_CARDS and view.lead >= 0:
        leader, led = view.leader, view.lead
        return (leader, led, action, leader ^ trick_winner_offset(view.trump, led, action))
    return None


def trick_line(trick, me: int, other: str = "opponent") -> str:
    """A completed trick ``(leader, led, second, winner)`` told to player ``me``; the
    other player is called ``other`` ("opponent"; the browser table: "bot")."""
    leader, led, second, winner = trick
    first = "you" if leader == me else f"the {other}"
    who = "You take" if winner == me else f"The {other} takes"
    return (f"Trick: {first} led {card_glyph(led)}, then {card_glyph(second)}. "
            f"{who} it ({POINTS[led] + POINTS[second]} points).")


def hand_lines(r, me: int, variant, other: str = "opponent") -> list[str]:
    """A finished hand (a :class:`~widderkopf_env.rules.HandResult` of ``variant``) told
    to player ``me`` (the other player called ``other``): the winner, the card points, the
    value and the match score. Both discards are named: they lie in the capture piles
    counted for the result (R17)."""
    won = "You win" if r.winner == me else f"The {other} wins"
    extra = (f" schwarz (all {variant.total_points})" if r.schwarz else
             f" schneider ({variant.schneider_points}+)" if r.schneider else "")
    notes = []
    if r.discards[me] >= 0:  # a variant without piles has no discards
        notes.append(f"discards: yours {card_glyph(r.discards[me])} went to the {other}, "
                     f"theirs {card_glyph(r.discards[1 - me])} to you")
    if r.spitzer >= 0:  # -1: a variant without the Spitzer
        notes.append(f"Spitzer to {'you' if r.spitzer == me else 'the ' + other}")
    return [f"Hand {r.hand + 1} over. {won}{extra}.",
            f"Card points: you {r.card_points[me]}, {other} {r.card_points[1 - me]}"
            + (f" ({'; '.join(notes)})" if notes else "") + ".",
            f"Value: {r.value} game point(s) (crack level {r.crack_level}). "
            f"Match score: you {r.scores[me]}, {other} {r.scores[1 - me]}."]
