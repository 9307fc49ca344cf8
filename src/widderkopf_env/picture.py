"""A picture of the card table, for the ``rgb_array`` render mode and the replay pages.

The drawing is built only from :class:`~widderkopf_env.view.PlayerView` objects, never
from the game's hidden state: a player's picture from that player's view alone (RULES
R8), a spectator's from both players' views (both hands, both discards; face-down cards
stay face down, as in a real game nobody has seen them). So a player's picture cannot
show a card the player has not seen, whatever the code below does.

:func:`layout` turns one :class:`Table` into drawing primitives
(:mod:`widderkopf_env.canvas`); the same primitives become SVG (:func:`svg_of`, for the
replay page) or a ``uint8 (H, W, 3)`` array (:func:`rgb_of`, for ``render()``).

Shown: each player's hand (the opponent's as card backs in a player's picture), the five
strawman piles (a face-up card on a face-down back), the open trick (or the trick just
completed, with its winner) and the one before, tricks and card points captured, the
discards, trump, crack level, match score, dealer and whose turn it is; the acting
player's legal cards are outlined in gold where that player's hand is shown, and trumps
carry a gold band once trumps are named. The players are named ``player_0`` and
``player_1`` unless the caller gives other names (the browser table: "you" and "bot").

The header's texts stand in fixed columns wide enough for their longest text (the match
score stands in the right panel, between the two players' captures), so they never run
into each other: :func:`header_texts` lists them for the tests that check it.
"""

from __future__ import annotations

from dataclasses import dataclass

from .canvas import Circle, Poly, Rect, Text, Use, svg_elements, svg_open, to_rgb, to_svg
from .cards import ESCALATION_NAMES, NUM_CARDS, RANKS, TRUMP_MASK, card_name, from_bits
from .engine_types import Phase

WIDTH, HEIGHT = 960, 640  #: picture size in pixels
CARD_W, CARD_H = 56, 80

_FELT, _DARK, _INK, _LIGHT = "#1d6b3a", "#0f3d22", "#141414", "#f2f2ea"
_RED, _GOLD, _DIM = "#c8102e", "#f5b800", "#a9c9b3"
_SUIT_COLOURS = (_INK, _INK, _RED, _RED)


# --- the model: what a picture shows ----------------------------------------------------------

@dataclass(frozen=True)
class Seat:
    """One player's side of the table as the picture shows it."""

    player: int
    label: str  #: ``player_0``, ``player_0 (you)`` or the name given
    hand: tuple | None  #: card ids shown face up, or None when the hand is hidden
    hand_size: int
    piles: tuple  #: per pile ``(top card or -1, has a face-down card)``
    discard: int  #: the discarded card if shown, -1 if none or hidden
    discarded: bool
    tricks_won: int
    trick_points: int
    legal: int  #: bits of the cards to outline (legal moves of the acting player)


@dataclass(frozen=True)
class Table:
    """Everything one picture shows; ``bottom`` is the viewer's seat (player_0 for a
    spectator)."""

    perspective: int | None  #: the player whose picture this is; None for a spectator
    bottom: Seat
    top: Seat
    phase: int
    current: int | None
    hand_no: int
    num_hands: int
    scores: tuple
    dealer: int
    chooser: int
    trump: int
    level: int
    cracker: int
    lead: int
    leader: int
    tricks: tuple
    last_result: object
    names: tuple = ("player_0", "player_1")  #: the players' names, by player


def _seat(view, player: int, shown, label: str) -> Seat:
    """Seat ``player`` as seen in ``view``; ``shown`` is that player's own view when its
    hidden cards may be drawn (the player's own seat, or either seat for a spectator)."""
    mine = player == view.player
    legal = shown.legal & ((1 << NUM_CARDS) - 1) if shown is not None else 0
    return Seat(
        player=player, label=label,
        hand=tuple(from_bits(shown.hand)) if shown is not None else None,
        hand_size=view.hand.bit_count() if mine else view.hand_size_opp,
        piles=view.my_piles if mine else view.opp_piles,
        discard=shown.my_discard if shown is not None else -1,
        discarded=(view.my_discard >= 0) if mine else view.opp_discarded,
        tricks_won=sum(1 for t in view.tricks if t[3] == player),
        trick_points=view.trick_points[player], legal=legal)


def table_of_view(view, spectator_views=None, names=None) -> Table:
    """The table as player ``view.player`` sees it; with ``spectator_views`` (both
    players' views, by player) the spectator's table, player_0 at the bottom. ``names``
    (two strings, by player) replaces ``player_0`` and ``player_1`` in every text; without
    it the viewer's own seat reads ``player_0 (you)``."""
    given = names is not None
    names = tuple(names) if given else ("player_0", "player_1")
    if len(names) != 2 or not all(isinstance(n, str) and n for n in names):
        raise ValueError(f"names must be two non-empty strings (by player), got {names!r}")
    if spectator_views is not None:
        views = tuple(spectator_views)
        seats = [_seat(views[p], p, views[p], names[p]) for p in (0, 1)]
        perspective, bottom, top = None, seats[0], seats[1]
    else:
        me, o = view.player, view.opponent
        perspective = me
        bottom = _seat(view, me, view, names[me] if given else f"{names[me]} (you)")
        top = _seat(view, o, None, names[o])
        views = (view,)
    v = views[0]
    return Table(perspective=perspective, bottom=bottom, top=top, phase=v.phase,
                 current=v.current, hand_no=v.hand_no, num_hands=v.num_hands,
                 scores=v.scores, dealer=v.dealer, chooser=v.chooser, trump=v.trump,
                 level=v.level, cracker=v.cracker, lead=v.lead, leader=v.leader,
                 tricks=v.tricks, last_result=v.last_result, names=names)


def table_of_game(game, perspective=None) -> Table:
    """The table of ``game`` for a spectator (``perspective=None``) or for player 0/1,
    built from ``game.view(...)`` only."""
    if perspective is None:
        return table_of_view(None, (game.view(0), game.view(1)))
    return table_of_view(game.view(perspective))


# --- cards and suits --------------------------------------------------------------------------

def suit_shape(suit: int, cx: float, cy: float, s: float) -> list:
    """A suit sign of height ``s`` centred on ``(cx, cy)``, from circles and polygons."""
    c = _SUIT_COLOURS[suit]
    if suit == 3:  # diamond
        return [Poly(((cx, cy - s / 2), (cx + 0.38 * s, cy), (cx, cy + s / 2),
                      (cx - 0.38 * s, cy)), c)]
    if suit == 2:  # heart
        r = 0.25 * s
        return [Circle(cx - 0.22 * s, cy - 0.2 * s, r, c), Circle(cx + 0.22 * s, cy - 0.2 * s, r, c),
                Poly(((cx - 0.465 * s, cy - 0.12 * s), (cx + 0.465 * s, cy - 0.12 * s),
                      (cx, cy + 0.48 * s)), c)]
    stem = Poly(((cx, cy + 0.05 * s), (cx - 0.2 * s, cy + 0.5 * s), (cx + 0.2 * s, cy + 0.5 * s)), c)
    if suit == 1:  # spade
        r = 0.235 * s
        return [Circle(cx - 0.21 * s, cy + 0.1 * s, r, c), Circle(cx + 0.21 * s, cy + 0.1 * s, r, c),
                Poly(((cx - 0.44 * s, cy + 0.03 * s), (cx + 0.44 * s, cy + 0.03 * s),
                      (cx, cy - 0.5 * s)), c), stem]
    r = 0.21 * s  # club
    return [Circle(cx, cy - 0.27 * s, r, c), Circle(cx - 0.25 * s, cy + 0.08 * s, r, c),
            Circle(cx + 0.25 * s, cy + 0.08 * s, r, c), Circle(cx, cy, 0.12 * s, c), stem]


def _face(card: int) -> list:
    suit, rank = divmod(card, 9)
    colour = _SUIT_COLOURS[suit]
    return [Rect(0, 0, CARD_W, CARD_H, "#fdfdf8", "#6f6f6f", 1, 6),
            Text(5, 13, RANKS[rank], 17, colour, bold=True),
            *suit_shape(suit, 11, 31, 12),
            *suit_shape(suit, 32, 55, 30)]


def _back() -> list:
    return [Rect(0, 0, CARD_W, CARD_H, "#24427a", "#f2f2ea", 2, 6),
            Rect(6, 6, CARD_W - 12, CARD_H - 12, "#2f559b", "#8fa9de", 1.5, 3),
            Poly(((28, 20), (42, 40), (28, 60), (14, 40)), "#4a72bd")]


#: Every card face (``card12`` ...) and the card back (``back``), as drawing primitives.
SYMBOLS = {f"card{c}": _face(c) for c in range(NUM_CARDS)} | {"back": _back()}


def _card(x: float, y: float, card: int, table: Table, outline: bool = False,
          attrs: tuple = ()) -> list:
    """A card at ``(x, y)``: its face (or the back for ``card < 0``), a gold band if it
    is a trump, a gold outline if ``outline``."""
    if card < 0:
        return [Use(x, y, "back", attrs)]
    out = [Use(x, y, f"card{card}", (("data-card", card_name(card)),) + attrs)]
    if table.trump >= 0 and TRUMP_MASK[table.trump] >> card & 1:
        out.append(Rect(x + 5, y + CARD_H - 9, CARD_W - 10, 5, _GOLD, radius=2))
    if outline:
        out.append(Rect(x - 2, y - 2, CARD_W + 4, CARD_H + 4, None, _GOLD, 3, 7))
    return out


def _slot(x: float, y: float) -> Rect:
    return Rect(x, y, CARD_W, CARD_H, None, _DIM, 1, 6)


# --- the layout -------------------------------------------------------------------------------

_HAND_X, _HAND_STEP = 235, 62
_PILE_X, _PILE_STEP = 300, 76
_ROWS = {"top": (50, 146, 72), "bottom": (520, 414, 560)}  # hand y, pile y, label y


def _seat_items(seat: Seat, table: Table, where: str) -> list:
    hand_y, pile_y, label_y = _ROWS[where]
    items = []
    cards = seat.hand if seat.hand is not None else (-1,) * seat.hand_size
    for i, card in enumerate(cards):
        items += _card(_HAND_X + i * _HAND_STEP, hand_y, card, table,
                       outline=card >= 0 and bool(seat.legal >> card & 1),
                       attrs=(("data-role", f"hand-{seat.player}"),))
    for i, (top, has_down) in enumerate(seat.piles):
        x = _PILE_X + i * _PILE_STEP
        if has_down:
            items += _card(x + 8, pile_y - 8, -1, table)
        if top >= 0:
            items += _card(x, pile_y, top, table, outline=bool(seat.legal >> top & 1),
                           attrs=(("data-role", f"pile-{seat.player}"),))
        elif not has_down:
            items.append(_slot(x, pile_y))
    turn = table.current == seat.player
    sub = ["dealer" if table.dealer == seat.player else "non-dealer"]
    if table.chooser == seat.player:
        sub.append("trump" if table.trump >= 0 else "names trump")
    items += [Text(16, label_y - 16, seat.label, 16, _GOLD if turn else _LIGHT, bold=True,
                   attrs=(("data-role", f"name-{seat.player}"),)),
              Text(16, label_y + 6, ", ".join(sub), 13, _DIM)]
    if turn:
        items += [Rect(14, label_y + 20, 70, 22, _GOLD, radius=11),
                  Text(49, label_y + 31, "to act", 13, _INK, "middle", bold=True)]
    # right panel: captured tricks and the discard
    won_y, discard_y = hand_y, pile_y
    tricks = f"{seat.tricks_won} trick{'' if seat.tricks_won == 1 else 's'}"
    items += [Text(866, won_y + 18, tricks, 14, _LIGHT),
              Text(866, won_y + 42, f"{seat.trick_points} points", 14, _LIGHT, bold=True,
                   attrs=(("data-role", f"points-{seat.player}"),)),
              Text(866, won_y + 64, "captured", 12, _DIM)]
    items += _card(790, won_y, -1, table) if seat.tricks_won else [_slot(790, won_y)]
    if seat.discard >= 0:
        items += _card(790, discard_y, seat.discard, table)
        what = "discard"
    elif seat.discarded:
        items += _card(790, discard_y, -1, table)
        what = "discard\nhidden"
    else:
        items.append(_slot(790, discard_y))
        what = "no discard yet"
    for i, line in enumerate(what.split("\n")):
        items.append(Text(866, discard_y + 40 + 18 * i, line, 12, _DIM))
    return items


#: The header's columns: where each of its texts starts (x), from the left edge.
_HEAD_HAND, _HEAD_TRUMP, _HEAD_SUIT, _HEAD_CRACK = 14, 176, 230, 340


def _header(table: Table) -> list:
    n = table.hand_no if table.current is None else table.hand_no + 1
    items = [Rect(0, 0, WIDTH, 40, _DARK),
             Text(_HEAD_HAND, 20, f"Hand {n} of {table.num_hands}", 15, _LIGHT, bold=True,
                  attrs=(("data-role", "head-hand"),)),
             Text(_HEAD_TRUMP, 20, "Trump", 15, _LIGHT, attrs=(("data-role", "head-trump"),))]
    if table.trump >= 0:
        items += [Rect(_HEAD_SUIT, 7, 26, 26, _LIGHT, radius=5,
                       attrs=(("data-role", "head-suit"),)),
                  *suit_shape(table.trump, _HEAD_SUIT + 13, 20, 18)]
    else:
        items.append(Text(_HEAD_SUIT + 2, 20, "not named", 15, _DIM,
                          attrs=(("data-role", "head-suit"),)))
    if table.level:
        who = table.cracker if table.level % 2 else 1 - table.cracker
        crack = (f"{ESCALATION_NAMES[table.level - 1]} by {table.names[who]}: "
                 f"x{1 << table.level}")
    else:
        crack = "No crack: x1"
    return items + [Text(_HEAD_CRACK, 20, crack, 14, _GOLD if table.level else _LIGHT,
                         attrs=(("data-role", "head-crack"),))]


def header_texts(table: Table) -> list:
    """The texts of the picture's header (the top band), in drawing primitives."""
    return [p for p in _header(table) if isinstance(p, Text)]


def _score(table: Table) -> list:
    """The match score in the right panel, the top player's line above the bottom's."""
    items = [Text(786, 262, "Match score", 13, _DIM)]
    for i, seat in enumerate((table.top, table.bottom)):
        p = seat.player
        items.append(Text(786, 288 + 24 * i, f"{table.names[p]}: {table.scores[p]}", 15,
                          _LIGHT, bold=True, attrs=(("data-role", f"score-{p}"),)))
    return items


_PHASE_TEXT = {Phase.TRUMP: "{} to name trump", Phase.DISCARD: "{} to discard",
               Phase.PLAY: "{} to play", Phase.ANSWER: "{} to answer the {}: escalate or pass"}


def _centre(table: Table) -> list:
    items = []
    done = len(table.tricks)
    if table.lead >= 0:
        trick = (table.leader, table.lead, -1, -1)
        caption = f"Trick {done + 1} of 17"
        previous = table.tricks[-1] if table.tricks else None
    elif table.tricks:
        trick = table.tricks[-1]
        caption = f"Trick {done} of 17, won by {table.names[trick[3]]}"
        previous = table.tricks[-2] if done > 1 else None
    else:
        trick, caption, previous = None, "", None
    if table.current is not None:
        text = _PHASE_TEXT[table.phase].format(table.names[table.current],
                                               ESCALATION_NAMES[max(table.level - 1, 0)])
        caption = f"{caption}: {text}" if caption and trick[3] < 0 else caption or text
    items.append(Text(480, 250, caption, 15, _LIGHT, "middle", bold=True,
                      attrs=(("data-role", "trick-caption"),)))
    for i, x in enumerate((412, 492)):
        if trick is None or (i == 1 and trick[2] < 0):
            items.append(_slot(x, 268))
            continue
        player = trick[0] if i == 0 else 1 - trick[0]
        card = trick[1] if i == 0 else trick[2]
        items += _card(x, 268, card, table, outline=trick[3] == player,
                       attrs=(("data-role", "trick"), ("data-player", player)))
        items.append(Text(x + CARD_W / 2, 362, table.names[player], 12, _LIGHT, "middle"))
    result = table.last_result
    if result is not None and (table.current is None or not table.tricks):
        kind = " Schwarz" if result.schwarz else " Schneider" if result.schneider else ""
        pts = result.card_points
        items.append(Text(480, 388, f"Hand {result.hand + 1}: {table.names[result.winner]} won "
                          f"{pts[result.winner]} to {pts[1 - result.winner]}{kind}, "
                          f"+{result.value} game point{'s' if result.value > 1 else ''}", 15, _GOLD, "middle", bold=True,
                          attrs=(("data-role", "result"),)))
    items.append(Text(95, 250, "Previous trick", 13, _DIM, "middle"))
    for i, x in enumerate((36, 98)):
        if previous is None:
            items.append(_slot(x, 268))
        else:
            player = previous[0] if i == 0 else 1 - previous[0]
            items += _card(x, 268, previous[1 + i], table, outline=previous[3] == player)
    if previous is not None:
        items.append(Text(95, 362, f"won by {table.names[previous[3]]}", 12, _DIM, "middle"))
    return items


def layout(table: Table) -> list:
    """The drawing primitives of one table picture (:data:`WIDTH` x :data:`HEIGHT`)."""
    items = [Rect(0, 0, WIDTH, HEIGHT, _FELT), Rect(770, 40, 190, HEIGHT - 40, "#185c32")]
    items += _header(table)
    items += _seat_items(table.top, table, "top")
    items += _seat_items(table.bottom, table, "bottom")
    items += _centre(table)
    items += _score(table)
    return items


# --- the two outputs --------------------------------------------------------------------------

def rgb_of(table: Table):
    """The picture as a ``uint8`` array of shape ``(HEIGHT, WIDTH, 3)`` (needs Pillow)."""
    return to_rgb(layout(table), (WIDTH, HEIGHT), SYMBOLS, (CARD_W, CARD_H))


def _svg_attrs(table: Table) -> tuple:
    view = "spectator" if table.perspective is None else f"player_{table.perspective}"
    return (("data-view", view),)


def svg_of(table: Table, standalone: bool = True) -> str:
    """The picture as an ``<svg>`` element; ``standalone=False`` leaves out the card
    definitions (a page includes :func:`canvas.svg_symbols` of :data:`SYMBOLS` once)."""
    return to_svg(layout(table), (WIDTH, HEIGHT), SYMBOLS if standalone else None,
                  (CARD_W, CARD_H), attrs=_svg_attrs(table))


def svg_parts(table: Table) -> tuple[str, list[str]]:
    """``svg_of(table, standalone=False)`` in pieces: the opening tag and the elements
    (joined and closed with ``</svg>`` they are that string)."""
    return svg_open((WIDTH, HEIGHT), _svg_attrs(table)), svg_elements(layout(table))


def game_rgb(game, perspective=None):
    """``rgb_of(table_of_game(game, perspective))``: what ``render()`` returns."""
    return rgb_of(table_of_game(game, perspective))
