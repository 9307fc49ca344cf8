"""Text rendering of a game (spectators) or of one player's view, with card glyphs.

``render_game(game)`` shows the whole table: both hands, both players' strawmen (a
face-down card as ``[##]`` under its face-up card), discards, the open trick, trump,
crack level, tricks, points and the match score. ``render_view(view)`` shows what one
player may see (R8): the opponent's hand only as a count, no opponent discard, and the
player's legal moves with their action ids. :func:`render_for_mode` is the environments'
``render()``; its ``"rgb_array"`` pictures come from :mod:`widderkopf_env.picture`, which
is imported (with Pillow) only when that mode is used.
"""

from __future__ import annotations

import warnings

from .cards import (
    ESCALATE,
    ESCALATION_NAMES,
    NUM_CARDS,
    PASS,
    SUIT_GLYPHS,
    TRUMP_ACTION,
    card_glyph,
    from_bits,
    trump_order,
)
from .rules import Phase, parse_player

_DOWN = "[##]"


def _hand(bits: int, trump: int) -> str:
    """A hand as glyphs, as a player sorts it: the trumps first, highest first (before
    trumps are named: the queens and jacks, which are always trumps, R2), then each plain
    suit (C S H D) from the ace down; groups are two spaces apart."""
    order = trump_order(max(trump, 0))[:8 if trump < 0 else None]
    groups = [[c for c in order if (bits >> c) & 1]]
    placed = bits & ~sum(1 << c for c in order)
    groups += [[c for c in from_bits(placed) if c // 9 == s] for s in range(4)]
    return "  ".join(" ".join(map(card_glyph, g)) for g in groups if g) or "-"


def _pile_lines(piles, down_cards=None) -> tuple[str, str]:
    """Two lines for five piles: face-up tops, then face-down markers under them.

    ``piles`` is ``[(top or -1, has a face-down card)]``; ``down_cards`` (spectator reveal
    only) the face-down card ids to show instead of ``[##]``.
    """
    tops, downs = [], []
    for i, (top, has_down) in enumerate(piles):
        tops.append(f"[{card_glyph(top)}]" if top >= 0 else " .  ")
        if has_down:
            downs.append(f"({card_glyph(down_cards[i])})" if down_cards else _DOWN)
        else:
            downs.append("")
    width = max(len(s) for s in tops + downs) + 1
    return ("".join(s.ljust(width) for s in tops).rstrip(),
            "".join(s.ljust(width) for s in downs).rstrip())


def _crack(level: int, cracker: int, name) -> str:
    if level == 0:
        return "no crack (x1)"
    who = name(cracker if level % 2 == 1 else 1 - cracker)
    return f"{ESCALATION_NAMES[level - 1]} by {who} (level {level}, x{1 << level})"


def _trump(trump: int, chooser: int, name) -> str:
    if trump < 0:
        who = name(chooser)
        return f"not named yet ({who} {'name' if who == 'you' else 'names'} it)"
    return f"{SUIT_GLYPHS[trump]} (named by {name(chooser)})"


def _trick_lines(tricks, lead: int, leader: int, current, name) -> list[str]:
    n = len(tricks)
    lines = []
    if tricks:
        t_leader, led, other, winner = tricks[-1]
        lines.append(f"Last trick: {name(t_leader)} {card_glyph(led)}, {name(1 - t_leader)} "
                     f"{card_glyph(other)} -> {name(winner)}")
    if n < 17:
        if lead >= 0:
            lines.append(f"Trick {n + 1}: {name(leader)} led {card_glyph(lead)}")
        elif current is not None:
            lines.append(f"Trick {n + 1}: {name(leader)} to lead")
    return lines


def _result_line(result, name) -> str:
    extra = " Schwarz" if result.schwarz else " Schneider" if result.schneider else ""
    pts = result.card_points
    return (f"Hand {result.hand + 1} result: {name(result.winner)} won {pts[result.winner]} to "
            f"{pts[1 - result.winner]}, level {result.crack_level}{extra}: "
            f"{result.value} game point(s)")


def _header(phase: int, hand_no: int, num_hands: int, current, name) -> str:
    n = hand_no if phase == Phase.OVER else hand_no + 1
    extra = " (extra hand: scores tied)" if n > num_hands else ""
    if current is None:
        tail = "match over"
    else:
        who = name(current)
        tail = "your turn" if who == "you" else f"{who} to act"
    return f"=== Widderkopf: hand {n} of {num_hands}{extra} - {Phase(phase).name} - {tail} ==="


def render_game(game, reveal: bool = False) -> str:
    """The whole table as text, for spectators (``reveal`` also shows face-down cards)."""
    def name(p):
        return f"player_{p}"

    lines = [_header(game.phase, game.hand_no, game.num_hands, game.current, name),
             f"Trump: {_trump(game.trump, game.chooser, name)} | "
             f"{_crack(game.level, game.cracker, name)} | dealer: {name(game.dealer)}",
             f"Match score: player_0 {game.scores[0]}, player_1 {game.scores[1]}"]
    for p in (1, 0):
        piles = [(game.up[i], game.down[i] >= 0) for i in range(5 * p, 5 * p + 5)]
        tops, downs = _pile_lines(piles, game.down[5 * p:5 * p + 5] if reveal else None)
        d = game.discard[p]
        lines += [
            "",
            f"{name(p)}  hand ({game.hand[p].bit_count()}): {_hand(game.hand[p], game.trump)}",
            f"          piles: {tops}",
            f"                 {downs}",
            f"          tricks: {sum(1 for t in game.tricks if t[3] == p)}, card points "
            f"{game.trick_points[p]} | discard: {card_glyph(d) if d >= 0 else '-'}",
        ]
    lines.append("")
    lines += _trick_lines(game.tricks, game.lead, game.leader, game.current, name)
    if game.results:
        lines.append(_result_line(game.results[-1], name))
    return "\n".join(line.rstrip() for line in lines)


def action_label(action: int, view) -> str:
    """A legal move of ``view`` in a few words: ``"Q♣"``, ``"trump ♥"``, ``"Crack"``, ``"pass"``."""
    if action < NUM_CARDS:
        return card_glyph(action)
    if action < TRUMP_ACTION + 4:
        return f"trump {SUIT_GLYPHS[action - TRUMP_ACTION]}"
    if action == ESCALATE:
        return ESCALATION_NAMES[view.level] if view.level < 4 else "escalate"
    if action == PASS:
        return "pass"
    return str(action)


def describe_action(action: int, phase: int, level: int, who: str,
                    hide_discard: bool = False) -> str:
    """``action``, taken by ``who`` in ``phase`` at crack level ``level`` (both before it
    is applied), in words: ``"player_0 plays Q♣"``, ``"Opponent names trump ♥"``,
    ``"player_1 says Crack"``, ``"Opponent passes"``, ``"you play Q♣"`` (``who`` "you"
    takes the verb without its s). A discard is named unless ``hide_discard`` (for anyone
    but its maker and spectators, R8): ``"... discards a card"``. The replay page's
    captions and the terminal play CLI use it."""
    def said(verb: str, rest: str = "") -> str:
        if who.lower() == "you":
            verb = verb[:-2] if verb.endswith("sses") else verb[:-1]
        return f"{who} {verb}" + (f" {rest}" if rest else "")

    if 0 <= action < NUM_CARDS:
        if phase == Phase.DISCARD:
            return said("discards", "a card" if hide_discard else card_glyph(action))
        return said("plays", card_glyph(action))
    if TRUMP_ACTION <= action < TRUMP_ACTION + len(SUIT_GLYPHS):
        return said("names", f"trump {SUIT_GLYPHS[action - TRUMP_ACTION]}")
    if action == ESCALATE:
        return said("says", ESCALATION_NAMES[level])
    if action == PASS:
        return said("passes")
    raise ValueError(f"action id must be in 0..{PASS}, got {action!r}")


def legal_moves_text(view) -> str:
    """``"[3] Q♣  [40] Crack ..."``: the legal moves of a view with their action ids."""
    return "  ".join(f"[{a}] {action_label(a, view)}" for a in view.legal_actions())


def render_view(view) -> str:
    """One player's view as text (what the terminal play CLI shows)."""
    me = view.player

    def name(p):
        return "you" if p == me else "opponent"

    lines = [_header(view.phase, view.hand_no, view.num_hands, view.current, name),
             f"Trump: {_trump(view.trump, view.chooser, name)} | "
             f"{_crack(view.level, view.cracker, name)} | dealer: {name(view.dealer)}",
             f"Match score: you {view.scores[me]}, opponent {view.scores[1 - me]}"]
    if view.may_escalate[me] and view.level < 4:
        crack = ESCALATION_NAMES[view.level]
        lines[-1] += (f" | you may escalate ({crack}) once the card play starts"
                      if view.phase < Phase.PLAY else f" | you may still escalate ({crack})")
    o = view.opponent
    tops, downs = _pile_lines(view.opp_piles)
    lines += [
        "",
        f"Opponent  hand: {view.hand_size_opp} card{'' if view.hand_size_opp == 1 else 's'}",
        f"          piles: {tops}",
        f"                 {downs}",
        f"          tricks: {sum(1 for t in view.tricks if t[3] == o)}, card points "
        f"{view.trick_points[o]} | discarded: {'yes (hidden)' if view.opp_discarded else 'not yet'}",
        "",
    ]
    lines += _trick_lines(view.tricks, view.lead, view.leader, view.current, name)
    tops, downs = _pile_lines(view.my_piles)
    d = view.my_discard
    lines += [
        "",
        f"You       piles: {tops}",
        f"                 {downs}",
        f"          hand ({view.hand.bit_count()}): {_hand(view.hand, view.trump)}",
        f"          tricks: {sum(1 for t in view.tricks if t[3] == me)}, card points "
        f"{view.trick_points[me]} | your discard: {card_glyph(d) if d >= 0 else '-'}",
    ]
    if view.last_result is not None:
        lines.append(_result_line(view.last_result, name))
    if view.legal:
        lines.append(f"Your move: {legal_moves_text(view)}")
    return "\n".join(line.rstrip() for line in lines)


#: The render modes of both environments.
RENDER_MODES = ("ansi", "human", "rgb_array")


def check_perspective(perspective) -> int | None:
    """A ``render_perspective`` argument as None (spectator) or 0/1.

    Accepts None, ``"spectator"``, 0, 1, ``"player_0"`` and ``"player_1"``; anything else
    raises ``ValueError``.
    """
    if perspective is None or perspective == "spectator":
        return None
    try:
        return parse_player(perspective)
    except ValueError:
        raise ValueError("render_perspective must be None or 'spectator' (the whole table), "
                         f"0, 1, 'player_0' or 'player_1', got {perspective!r}") from None


def render_for_mode(game, render_mode: str | None, perspective: int | None = None,
                    supported=RENDER_MODES):
    """What an environment's ``render()`` does.

    ``"ansi"``: the table as a string (:func:`render_game`, or :func:`render_view` of
    ``game.view(perspective)`` for a player's perspective); ``"human"``: that string
    printed (returning None); ``"rgb_array"``: the picture of
    :mod:`widderkopf_env.picture` as a ``uint8 (640, 960, 3)`` array (needs Pillow, the
    ``[render]`` extra); a player's perspective is drawn from that player's view only
    (R8). Any other mode: a warning and None.
    """
    if game is None:
        raise RuntimeError("reset() must be called before render()")
    if render_mode not in supported:
        warnings.warn(f"render() does nothing with render_mode={render_mode!r}; "
                      f"use one of {', '.join(map(repr, supported))}", stacklevel=3)
        return None
    if render_mode == "rgb_array":
        from .picture import game_rgb

        return game_rgb(game, perspective)
    text = render_game(game) if perspective is None else render_view(game.view(perspective))
    if render_mode == "human":
        print(text)
        return None
    return text
