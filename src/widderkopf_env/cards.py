"""Cards, card names, bit masks and action ids (RULES R1-R5).

A card id is ``suit * 9 + rank`` with suits C, S, H, D = 0..3 and ranks
A, 10, K, Q, J, 9, 8, 7, 6 = 0..8, so ``QC`` is 3, ``10D`` is 28 and ``6D`` is 35.
A set of cards is a 36-bit int: bit ``c`` is set when card ``c`` is in the set.

Action ids are shared by the engine and the environments:

=======  ==========================================================
0..35    play (or, in the discard phase, discard) that card
36..39   name the trump suit C, S, H, D
40       escalate the crack (Crack, Recrack, Crackback or Around the
         Corner, whichever is next)
41       pass (decline to answer an escalation)
=======  ==========================================================
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property

NUM_CARDS = 36
NUM_ACTIONS = 42
TRUMP_ACTION = 36  # 36 + suit names that suit trumps
ESCALATE = 40
PASS = 41

SUITS = "CSHD"
SUIT_GLYPHS = "♣♠♥♦"
RANKS = ("A", "10", "K", "Q", "J", "9", "8", "7", "6")
RANK_POINTS = (11, 10, 4, 3, 2, 0, 0, 0, 0)
QUEEN, JACK, SEVEN = 3, 4, 7
ESCALATION_NAMES = ("Crack", "Recrack", "Crackback", "Crack Around the Corner")

#: Deal sizes (R7): hand cards and piles per player; tricks per hand (R15).
HAND_SIZE, PILES, TRICKS = 8, 5, 17
#: Card points in the deck; needed to win a hand (R18); Schneider (R19).
TOTAL_POINTS, WIN_POINTS, SCHNEIDER_POINTS = 121, 61, 91
#: Crack levels 0..4 (R11): no crack, Crack, Recrack, Crackback, Around the Corner.
MAX_LEVEL = 4


def hand_value(level: int, points: int, total: int = TOTAL_POINTS,
               schneider: int = SCHNEIDER_POINTS) -> int:
    """Game points of a hand won with ``points`` card points at crack level ``level``
    (R19): ``2**level``, doubled for Schneider (91+), x4 for Schwarz (all 121); a variant
    passes its own ``total`` and ``schneider`` thresholds."""
    return (1 << level) * (4 if points == total else 2 if points >= schneider else 1)


#: The largest value of a hand (level 4, Schwarz): 64.
MAX_HAND_VALUE = hand_value(MAX_LEVEL, TOTAL_POINTS)

#: Card points of each card id (R4).
POINTS: tuple[int, ...] = tuple(RANK_POINTS[c % 9] for c in range(NUM_CARDS))
ALL_CARDS = (1 << NUM_CARDS) - 1


def card_id(suit: int, rank: int) -> int:
    return suit * 9 + rank


def suit_of(card: int) -> int:
    return card // 9


def rank_of(card: int) -> int:
    return card % 9


#: Queens and jacks of every suit: always trumps, never of a plain suit (R2, R3).
QUEENS_JACKS = sum(1 << card_id(s, r) for s in range(4) for r in (QUEEN, JACK))
#: The ranks of a suit's seven plain cards, highest first: A 10 K 9 8 7 6.
PLAIN_RANKS = tuple(r for r in range(9) if r not in (QUEEN, JACK))
#: The seven plain cards (A 10 K 9 8 7 6) of each suit.
SUIT_MASK: tuple[int, ...] = tuple(
    sum(1 << card_id(s, r) for r in PLAIN_RANKS) for s in range(4)
)
#: The 15 trumps when suit ``t`` is named (R2).
TRUMP_MASK: tuple[int, ...] = tuple(QUEENS_JACKS | SUIT_MASK[t] for t in range(4))
#: The Spitzer (7 of trumps) for each trump suit (R5).
SPITZER: tuple[int, ...] = tuple(card_id(t, SEVEN) for t in range(4))


def trump_order(trump: int) -> tuple[int, ...]:
    """The 15 trumps for ``trump``, highest first: QC QS QH QD JC JS JH JD A 10 K 9 8 7 6."""
    queens = [card_id(s, QUEEN) for s in range(4)]
    jacks = [card_id(s, JACK) for s in range(4)]
    plain = [card_id(trump, r) for r in PLAIN_RANKS]
    return tuple(queens + jacks + plain)



# --- variants: the same rules on fewer cards ---------------------------------------------

@dataclass(frozen=True)
class Variant:
    """A deck and a deal size: the rules R1-R20 played on ``deck`` (a bit set of card ids).

    Each player gets ``hand_size`` hand cards and ``piles`` strawman piles (a face-up card
    on a face-down one), so the deck holds ``2 * (hand_size + 2 * piles)`` cards, all
    dealt; after the discards (R10) ``tricks = hand_size - 1 + 2 * piles`` tricks are
    played. The deck holds the 7 of every suit (the Spitzer, R5, exists whatever the
    trump) or none of them (a variant without the Spitzer); its card points plus the
    Spitzer make an odd :attr:`total_points`, so exactly one player wins (R18). The thresholds scale with the total as in the full
    game (121: win 61, Schneider 91): win ``(total + 1) // 2``, Schneider
    ``(3 * total + 3) // 4``, Schwarz all ``total``. Pile ``i`` of a player keeps its engine
    index ``5 * player + i``; piles ``piles..4`` stay empty.
    """

    name: str
    deck: int
    hand_size: int
    piles: int

    def __post_init__(self):
        size = self.deck.bit_count()
        if not (2 <= self.hand_size <= HAND_SIZE and 0 <= self.piles <= PILES
                and 0 <= self.deck <= ALL_CARDS):
            raise ValueError(f"variant {self.name!r}: hand_size must be in 2..{HAND_SIZE}, "
                             f"piles in 0..{PILES}, deck a set of card ids 0..35")
        if size != 2 * (self.hand_size + 2 * self.piles):
            raise ValueError(f"variant {self.name!r}: a deck of {size} cards cannot deal "
                             f"{self.hand_size} hand cards and {self.piles} piles to each")
        sevens = sum((self.deck >> s) & 1 for s in SPITZER)
        if sevens not in (0, 4) or not self.total_points % 2:
            raise ValueError(f"variant {self.name!r}: the deck must hold all four 7s or "
                             f"none, and an odd total (card points + 1 with the Spitzer)")

    @property
    def cards(self) -> list[int]:
        """The deck's card ids, ascending."""
        return [c for c in range(NUM_CARDS) if (self.deck >> c) & 1]

    @cached_property
    def spitzer(self) -> bool:
        """Whether the deck holds the 7s, so that the Spitzer (R5) counts."""
        return bool((self.deck >> SPITZER[0]) & 1)

    @cached_property
    def tricks(self) -> int:
        return self.hand_size - 1 + 2 * self.piles

    @cached_property
    def total_points(self) -> int:
        """Card points in the deck plus the Spitzer if any (121 in the full game)."""
        return sum(POINTS[c] for c in range(NUM_CARDS) if (self.deck >> c) & 1) + self.spitzer

    @cached_property
    def win_points(self) -> int:
        return (self.total_points + 1) // 2

    @cached_property
    def schneider_points(self) -> int:
        return (3 * self.total_points + 3) // 4

    @cached_property
    def max_hand_value(self) -> int:
        return self.hand_value(MAX_LEVEL, self.total_points)

    def hand_value(self, level: int, points: int) -> int:
        """Game points of a hand won with ``points`` at crack level ``level`` (R19)."""
        return hand_value(level, points, self.total_points, self.schneider_points)

    def describe(self) -> str:
        return (f"{self.name}: {self.deck.bit_count()} cards, {self.piles} piles and "
                f"{self.hand_size} hand cards each, {self.tricks} trick{'s' * (self.tricks > 1)}, "
                f"{self.total_points} points (win {self.win_points}, Schneider "
                f"{self.schneider_points}, Schwarz {self.total_points})")


def _deck(*names: str) -> int:
    return sum(1 << (SUITS.index(n[-1]) * 9 + RANKS.index(n[:-1])) for n in names)


_SEVENS = ("7C", "7S", "7H", "7D")
#: The full game (R1-R20): all 36 cards, 5 piles and 8 hand cards each, 17 tricks.
FULL = Variant("full", ALL_CARDS, HAND_SIZE, PILES)
#: The variants by name, smallest first, the full game last.
VARIANTS: dict[str, Variant] = {
    # 4 cards, 2 hand cards each, no piles, no 7s (no Spitzer): 1 trick (Kuhn-poker scale)
    "tiny": Variant("tiny", _deck("QC", "10H", "KS", "9D"), 2, 0),
    # 6 cards, 3 hand cards each, no piles: 2 tricks
    "small": Variant("small", _deck("QC", "AC", *_SEVENS), 3, 0),
    # 20 cards (Q, J, A, 10, 7 of every suit), 4 hand cards and 3 piles each: 9 tricks
    "medium": Variant("medium", _deck(*(r + s for r in ("Q", "J", "A", "10", "7")
                                         for s in SUITS)), 4, 3),
    "full": FULL,
}


def get_variant(variant) -> Variant:
    """A :class:`Variant` from its name or itself; None is the full game."""
    if variant is None:
        return FULL
    if isinstance(variant, Variant):
        return variant
    if isinstance(variant, str) and variant in VARIANTS:
        return VARIANTS[variant]
    raise ValueError(f"unknown variant {variant!r}: expected one of {', '.join(VARIANTS)} "
                     "(or a Variant)")


#: ``TRUMP_ORDER[t]``: :func:`trump_order` of each trump suit (R2, R3).
TRUMP_ORDER: tuple[tuple[int, ...], ...] = tuple(trump_order(t) for t in range(4))
#: Power of the lowest trump in :data:`POWER` (the 15 trumps have 101..115).
LOWEST_TRUMP_POWER = 101


def _power(trump: int, card: int) -> int:
    order = TRUMP_ORDER[trump]
    if card in order:
        return LOWEST_TRUMP_POWER + len(order) - 1 - order.index(card)
    return 9 - rank_of(card)


#: ``POWER[t][c]``: trick-taking power of card ``c`` under trump suit ``t`` (R16): the
#: trumps 101..115 (the club queen highest), a plain card 1..9 within its suit (the ace
#: highest); a higher power wins when both cards are trumps or of the suit led.
POWER: tuple[tuple[int, ...], ...] = tuple(
    tuple(_power(t, c) for c in range(NUM_CARDS)) for t in range(4))


#: ``FOLLOW[t][c]``: the cards that follow a lead of card ``c`` under trump ``t`` (R15).
FOLLOW: tuple[tuple[int, ...], ...] = tuple(
    tuple(TRUMP_MASK[t] if (TRUMP_MASK[t] >> c) & 1 else SUIT_MASK[suit_of(c)] for c in range(36))
    for t in range(4)
)


def _beats_table(trump: int) -> bytes:
    power = POWER[trump]
    table = bytearray(NUM_CARDS * NUM_CARDS)
    for led in range(NUM_CARDS):
        for other in range(NUM_CARDS):
            p_led, p_other = power[led], power[other]
            if p_led >= LOWEST_TRUMP_POWER or p_other >= LOWEST_TRUMP_POWER:
                wins = p_other > p_led
            else:
                wins = suit_of(other) == suit_of(led) and p_other > p_led
            table[led * NUM_CARDS + other] = wins
    return bytes(table)


#: ``BEATS[t][led * 36 + other]`` is 1 when ``other``, played second, wins the trick (R16).
BEATS: tuple[bytes, ...] = tuple(_beats_table(t) for t in range(4))


def trick_winner_offset(trump: int, led: int, other: int) -> int:
    """0 if the card led wins the trick, 1 if the second card does (R16)."""
    return BEATS[trump][led * NUM_CARDS + other]


def core_tables() -> tuple:
    """The tables the compiled core (``csrc/``) is handed at import, in the order of its
    ``configure_rules``: ``FOLLOW``, ``BEATS``, ``POINTS``, ``SPITZER``, ``TRUMP_MASK``."""
    return FOLLOW, BEATS, POINTS, SPITZER, TRUMP_MASK


# --- names -------------------------------------------------------------------------------

def card_name(card: int) -> str:
    """``'QC'``, ``'10D'``, ``'7H'``."""
    if not 0 <= card < NUM_CARDS:
        raise ValueError(f"card id must be in 0..35, got {card!r}")
    return RANKS[card % 9] + SUITS[card // 9]


def card_glyph(card: int) -> str:
    """``'Q♣'``, ``'10♦'``: the name with a suit symbol, for rendering."""
    return RANKS[card % 9] + SUIT_GLYPHS[card // 9]


_RANK_ALIASES = {r: i for i, r in enumerate(RANKS)} | {"T": 1}
_SUIT_ALIASES = {s: i for i, s in enumerate(SUITS)} | {g: i for i, g in enumerate(SUIT_GLYPHS)}
_SUIT_ALIASES |= {"♧": 0, "♤": 1, "♡": 2, "♢": 3}


def parse_card(name: str) -> int:
    """Card id of a name like ``'QC'``, ``'10D'``, ``'TD'``, ``'7h'`` or ``'Q♣'``."""
    if not isinstance(name, str):
        raise ValueError(f"card name must be a string like 'QC' or '10D', got {name!r}")
    text = name.strip().upper()
    rank, suit = _RANK_ALIASES.get(text[:-1]), _SUIT_ALIASES.get(text[-1:])
    if rank is None or suit is None:
        raise ValueError(
            f"unknown card name {name!r}: expected a rank (A, 10 or T, K, Q, J, 9, 8, 7, 6) "
            "followed by a suit (C, S, H, D), e.g. 'QC', '10D', '7H'"
        )
    return suit * 9 + rank


def to_bits(cards: Iterable[int]) -> int:
    bits = 0
    for c in cards:
        bits |= 1 << c
    return bits


# Bits -> sorted ids through four 12-bit lookup tables: one table read per 12 bits.
_CHUNK = 12


def _ids_table(base: int) -> tuple[tuple[int, ...], ...]:
    """Entry ``m``: the sorted ids ``base + i`` of the set bits ``i`` of ``m``, each built
    from the entry without its lowest bit (cheap at import)."""
    table = [()] * (1 << _CHUNK)
    for m in range(1, 1 << _CHUNK):
        table[m] = (base + (m & -m).bit_length() - 1,) + table[m & (m - 1)]
    return tuple(table)


_TABLES = tuple(_ids_table(base) for base in (0, 12, 24, 36))
_T0, _T1, _T2, _T3 = _TABLES
#: The four lookup tables behind :func:`from_bits` (for inlining in hot loops).
ID_TABLES = _TABLES


def from_bits(bits: int) -> list[int]:
    """Sorted ids of the set bits of ``bits`` (cards or action ids, up to 48 bits)."""
    return list(_T0[bits & 4095] + _T1[(bits >> 12) & 4095] + _T2[(bits >> 24) & 4095]
                + _T3[bits >> 36])


def names(bits_or_cards: int | Iterable[int]) -> list[str]:
    """Card names of a bit set or a list of ids."""
    cards = from_bits(bits_or_cards) if isinstance(bits_or_cards, int) else bits_or_cards
    return [card_name(c) for c in cards]


def action_name(action: int) -> str:
    """Readable name of an action id: ``'QC'``, ``'trump H'``, ``'escalate'``, ``'pass'``."""
    if 0 <= action < NUM_CARDS:
        return card_name(action)
    if TRUMP_ACTION <= action < TRUMP_ACTION + 4:
        return "trump " + SUITS[action - TRUMP_ACTION]
    if action == ESCALATE:
        return "escalate"
    if action == PASS:
        return "pass"
    raise ValueError(f"action id must be in 0..{NUM_ACTIONS - 1}, got {action!r}")
