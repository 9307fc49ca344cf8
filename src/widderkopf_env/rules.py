"""The Widderkopf rules engine (RULES R1-R20), free of any RL framework.

A :class:`Game` is a whole match (one hand by default). Drive it with
:meth:`Game.legal_actions` and :meth:`Game.apply`; read what one player may see with
:meth:`Game.view`. Card sets are 36-bit ints (see :mod:`widderkopf_env.cards`).
"""

from __future__ import annotations

from array import array
from functools import cache

from .cards import (
    BEATS,
    ESCALATE,
    FOLLOW,
    FULL,
    ID_TABLES,
    MAX_LEVEL,
    NUM_CARDS,
    PASS,
    PILES,
    POINTS,
    SPITZER,
    TRUMP_ACTION,
    VARIANTS,
    get_variant,
    to_bits,
)
from .checks import SEATS, as_int, check_num_hands, check_scores, check_seed, parse_player
from .compiled import CORE
from .deals import deal_to_spec, parse_deal, seeded_deal, seeded_dealer, seeded_variant_deal
from .engine_types import SCALAR_FIELDS, STATE_FIELDS, HandResult, IllegalActionError, Phase
from .game_file import from_json as _from_json
from .game_file import replay as _replay
from .game_file import state_dict as _state_dict
from .game_file import to_json as _to_json
from .game_slots import check_move
from .view import PlayerView

# Re-exported: the engine's public names for what deals.py defines.
__all__ = ["SEATS", "Game", "HandResult", "IllegalActionError", "Phase", "PyGame", "deal_to_spec",
           "parse_deal", "parse_player", "seeded_deal", "seeded_dealer"]

# The phases as plain ints, for speed on the hot paths (Phase is an IntEnum of them).
TRUMP, DISCARD, PLAY, ANSWER, OVER = (int(p) for p in Phase)
_T0, _T1, _T2, _T3 = ID_TABLES
_ESC_BIT = 1 << ESCALATE
_ANSWER_BITS = _ESC_BIT | (1 << PASS)
_TRUMP_BITS = 0b1111 << TRUMP_ACTION


@cache
def core_numbers(variant) -> tuple:
    """What the compiled Game reads of ``variant``: its numbers, deck and hand values
    (``variant.hand_value`` of every crack level and points, as native int64 bytes)."""
    values = array("q", [variant.hand_value(level, points) for level in range(MAX_LEVEL + 1)
                         for points in range(variant.total_points + 1)])
    return (variant.tricks, variant.win_points, variant.total_points,
            variant.schneider_points, bool(variant.spitzer), variant.deck, values.tobytes())


def _unpickle(cls, fields: dict):
    """A game of ``cls`` from :meth:`_GameApi.__reduce__`'s fields."""
    return cls._from_fields({**fields, "variant": get_variant(fields["variant"])})


class _GameApi:
    """The API of a match written once for both forms: :class:`PyGame` (Python) and the
    compiled :class:`Game`; each supplies the state and the moves (``_setup``,
    ``_start_hand``, ``apply``, ``_may_escalate`` ...)."""

    __slots__ = ()

    # --- construction --------------------------------------------------------------------

    @classmethod
    def new(cls, seed: int | None = None, dealer=None, num_hands: int = 1,
            scores=(0, 0), variant=None) -> Game:
        """A match with random deals drawn from ``seed`` (same seed, same match).

        ``dealer`` is the first dealer (0/1 or ``'player_0'``/``'player_1'``); None draws it
        from the seed (R6). ``num_hands`` hands are played, more while tied (R20).
        ``variant``: a name in :data:`widderkopf_env.VARIANTS` (None: the full game).
        """
        seed, variant = check_seed(seed), get_variant(variant)
        dealer = seeded_dealer(seed) if dealer is None else parse_player(dealer, "dealer")
        return cls._create(seed, dealer, num_hands, scores, [], variant)

    @classmethod
    def from_deal(cls, deal: dict, dealer=0, num_hands: int = 1, seed: int | None = None,
                  scores=(0, 0), variant=None) -> Game:
        """A match whose first hand is the given deal spec (see :func:`parse_deal`).

        Later hands of a match are dealt from ``seed``. ``scores`` are the match scores
        before the hand (they decide who names trumps, R9).
        """
        variant = get_variant(variant)
        return cls._create(check_seed(seed), parse_player(dealer, "dealer"), num_hands, scores,
                           [parse_deal(deal, variant)], variant)

    @classmethod
    def _create(cls, seed, dealer, num_hands, scores, deals, variant=FULL) -> Game:
        num_hands, scores = check_num_hands(num_hands), check_scores(scores)
        g = cls.__new__(cls)
        g._setup(seed, dealer, num_hands, scores, deals, variant, core_numbers(variant))
        g._start_hand()
        return g

    def _next_deal(self):
        """The deal of the hand about to begin (``hand_no``): the one stored, or the next
        one drawn from the seed (then stored)."""
        n = self.hand_no
        if n == len(self.deals):
            self.deals.append(seeded_variant_deal(self.seed, n, self.variant))
        return self.deals[n]

    def deal_hand(self, deal: dict) -> None:
        """Play the hand about to begin with ``deal`` (a deal spec, as :meth:`from_deal`)
        instead of the one drawn from the seed: for a caller that deals the cards itself,
        such as the OpenSpiel game's chance nodes. Raises ``ValueError`` for a bad deal, or
        once the hand has begun (an action played in it) or the match is over."""
        if self.is_over or len(self.history) != self.hand_start:
            raise ValueError("deal_hand: only a hand not yet begun can be dealt; this one "
                             "has begun or the match is over")
        self.deals[self.hand_no] = parse_deal(deal, self.variant)
        self._start_hand()

    def __reduce__(self):
        """Pickled as its public fields, a shipped variant by its name (the seeded deals
        tell FULL by identity); rebuilt by ``_from_fields``."""
        fields = {f: getattr(self, f) for f in STATE_FIELDS if f != "_legal"}
        if VARIANTS.get(self.variant.name) is self.variant:
            fields["variant"] = self.variant.name
        return (_unpickle, (type(self), fields))

    # --- queries -------------------------------------------------------------------------

    def may_escalate(self, player) -> bool:
        """Whether ``player`` (0, 1, ``'player_0'``, ``'player_1'``) holds the right to the next
        escalation (R11): level below 4, no card played this hand, and the next escalation
        is theirs (legal only when they are also due, or answering)."""
        return self._may_escalate(parse_player(player))

    # --- the errors of apply (the compiled apply calls these too) ------------------------

    def _coerce(self, action, mask: int) -> int:
        value = as_int(action)
        if value is None:
            raise IllegalActionError.not_an_id(action, Phase(self.phase), mask)
        return value

    def _reject(self, action: int, mask: int) -> None:
        raise IllegalActionError.not_legal(action, self.current, Phase(self.phase), mask)

    # --- views and serialisation ---------------------------------------------------------

    def view(self, player) -> PlayerView:
        """What ``player`` may see now (R8): a :class:`~widderkopf_env.view.PlayerView`."""
        return PlayerView.of(self, parse_player(player))

    def to_json(self) -> str:
        """The match as JSON: seed, set-up, the deal of every hand so far and all actions
        (the format is :data:`widderkopf_env.game_file.DOCUMENT_SCHEMA`)."""
        return _to_json(self)

    @classmethod
    def from_json(cls, text):
        """Rebuild a game from :meth:`to_json` (exact round trip: it replays the actions).

        Every field is checked (:func:`widderkopf_env.game_file.decode_document`) and every
        action must be legal when replayed; anything else raises ``ValueError`` naming it.
        """
        return _from_json(cls, text)

    def replay(self, length: int | None = None):
        """A new game: this match replayed from its deals up to its first ``length``
        actions (all of them by default), e.g. to undo moves."""
        return _replay(self, length)

    def state_dict(self) -> dict:
        """The full live state as plain data (for tests, debugging and golden files)."""
        return _state_dict(self)

    def __repr__(self) -> str:
        return (f"<Game hand {self.hand_no + (self.phase != OVER)}/{self.num_hands} "
                f"phase={Phase(self.phase).name} current={self.current} trump={self.trump} "
                f"level={self.level} tricks={len(self.tricks)} scores={self.scores}>")


class PyGame(_GameApi):
    """A Widderkopf match between players 0 and 1 (a single hand by default), in Python:
    the reference of the rules, which :class:`Game` runs in C where the core is built.

    Create one with :meth:`new` (a seeded random deal) or :meth:`from_deal`; then, while
    not :attr:`is_over`, let :attr:`current_player` pick one of :meth:`legal_actions` and
    :meth:`apply` it. ``variant``: the :class:`~widderkopf_env.cards.Variant` played.
    Read-only attributes of the live hand:

    ``phase`` (:class:`Phase`), ``current`` (player to act or None), ``dealer``, ``trump``
    (-1 until named), ``chooser``, ``level`` (crack level 0..4), ``cracker``/``recracker``
    (-1 if none), ``hand[p]``/``upbits[p]``/``played[p]``/``won[p]`` (card bit sets),
    ``up[5p+i]``/``down[5p+i]`` (card on pile i or -1), ``covered[p]`` (face-up cards lying
    on a face-down card), ``discard[p]``, ``trick_points[p]``, ``lead`` (card led in the
    open trick or -1), ``leader``, ``tricks`` (``(leader, led, other, winner)`` per trick),
    ``scores`` (match), ``hand_no``, ``results`` (:class:`HandResult` per finished hand).
    These are the full state: hidden cards included. Agents should read :meth:`view`.
    """

    __slots__ = STATE_FIELDS

    # --- construction --------------------------------------------------------------------

    def _setup(self, seed, dealer, num_hands, scores, deals, variant, numbers=None) -> None:
        """A match before its first hand (``_create``'s checked arguments)."""
        self.variant = variant
        self.seed, self.num_hands, self.first_dealer = seed, num_hands, dealer
        self.initial_scores = scores
        self.scores, self.hand_no, self.results = list(scores), 0, []
        self.deals, self.history = deals, []

    def _start_hand(self) -> None:
        """The start of hand ``hand_no`` from its deal (:meth:`_next_deal`)."""
        deal = self._next_deal()
        n = self.hand_no
        self.hand_start = len(self.history)
        self.dealer = dealer = self.first_dealer ^ (n & 1)
        s0, s1 = self.scores
        self.chooser = (0 if s0 < s1 else 1) if s0 != s1 else 1 - dealer
        self.phase, self.current, self.trump = TRUMP, self.chooser, -1
        (h0, u0, d0), (h1, u1, d1) = deal
        self.hand = [to_bits(h0), to_bits(h1)]
        pad = (-1,) * (PILES - len(u0))  # a variant's missing piles stay empty
        self.up, self.down = [*u0, *pad, *u1, *pad], [*d0, *pad, *d1, *pad]
        self.upbits = [to_bits(u0), to_bits(u1)]
        self.covered = self.upbits[:]
        self.discard, self.won, self.trick_points, self.played = [-1, -1], [0, 0], [0, 0], [0, 0]
        self.lead = self.lead_pile = -1
        self.leader = 1 - dealer
        self.tricks = []
        self.level, self.cracker, self.recracker = 0, -1, -1
        self._legal = -1

    def clone(self) -> Game:
        """An independent copy (cheap; ``copy.copy`` and ``copy.deepcopy`` give the same)."""
        g = type(self).__new__(type(self))
        for f in SCALAR_FIELDS:
            setattr(g, f, getattr(self, f))
        g.scores, g.results, g.deals = self.scores[:], self.results[:], self.deals[:]
        g.history, g.hand, g.up, g.down = self.history[:], self.hand[:], self.up[:], self.down[:]
        g.upbits, g.covered, g.discard = self.upbits[:], self.covered[:], self.discard[:]
        g.won, g.trick_points, g.played = self.won[:], self.trick_points[:], self.played[:]
        g.tricks = self.tricks[:]
        return g

    __copy__ = clone

    @classmethod
    def _from_fields(cls, fields: dict):
        """A game holding ``fields`` (every state field but ``_legal``), as
        :func:`widderkopf_env.worlds.world_fields` gives them."""
        g = cls.__new__(cls)
        for name, value in fields.items():
            setattr(g, name, value)
        g._legal = -1
        return g

    def __deepcopy__(self, memo) -> Game:
        return self.clone()  # everything clone() does not copy is immutable

    # --- queries -------------------------------------------------------------------------

    @property
    def current_player(self) -> int | None:
        """The player to act (0 or 1), or None once the match is over."""
        return self.current

    @property
    def is_over(self) -> bool:
        return self.phase == OVER

    @property
    def legal_mask(self) -> int:
        """The legal actions as a 42-bit int (bit ``a`` set when action ``a`` is legal)."""
        m = self._legal
        if m < 0:
            m = self._legal = self._LEGAL[self.phase](self)
        return m

    def legal_actions(self) -> list[int]:
        """Legal action ids of :attr:`current_player`, ascending (empty once over)."""
        m = self.legal_mask
        return list(_T0[m & 4095] + _T1[(m >> 12) & 4095] + _T2[(m >> 24) & 4095] + _T3[m >> 36])

    def _may_escalate(self, player: int) -> bool:
        level = self.level
        if level >= 4 or self.played[player] or self.phase == OVER:
            return False
        return level == 0 or player == (self.cracker if level % 2 == 0 else 1 - self.cracker)

    def escalation_rights(self) -> tuple[bool, bool]:
        """``(may_escalate(0), may_escalate(1))``."""
        played = self.played
        if played[0] and played[1]:  # from the second trick on nobody may escalate (R11)
            return (False, False)
        return (self._may_escalate(0), self._may_escalate(1))

    def _legal_discard(self) -> int:
        return self.hand[self.current]

    def _legal_play(self) -> int:
        p = self.current
        m = self.hand[p] | self.upbits[p]
        if self.lead >= 0:
            f = m & FOLLOW[self.trump][self.lead]
            if f:
                m = f
        if self.level < 4 and not self.played[p] and self._may_escalate(p):
            m |= _ESC_BIT
        return m

    def _legal_trump(self) -> int:
        return _TRUMP_BITS

    def _legal_answer(self) -> int:
        return _ANSWER_BITS

    def _legal_over(self) -> int:
        return 0

    def card_points(self) -> tuple[int, int]:
        """Card points in each capture pile, discards included (full information, R17):
        the points so far while a hand is played; once the match is over, the final points
        of the last hand (with the Spitzer)."""
        if self.phase == OVER:
            return self.results[-1].card_points
        d0, d1 = self.discard
        return (self.trick_points[0] + (POINTS[d1] if d1 >= 0 else 0),
                self.trick_points[1] + (POINTS[d0] if d0 >= 0 else 0))

    def returns(self) -> list[float]:
        """Zero-sum game points: ``[s0 - s1, s1 - s0]`` of the match scores gained so far
        (for a single hand, +value for the winner and -value for the loser, R19)."""
        d = (self.scores[0] - self.initial_scores[0]) - (self.scores[1] - self.initial_scores[1])
        return [float(d), float(-d)]

    # --- transitions ---------------------------------------------------------------------

    def apply(self, action) -> None:
        """Apply ``action`` for :attr:`current_player`.

        Raises :class:`IllegalActionError` (a ``ValueError``) naming the action, the phase
        and the legal actions if the action is not legal now; the game is then unchanged.
        """
        m = self._legal
        if m < 0:
            m = self._legal = self._LEGAL[self.phase](self)
        if type(action) is not int:
            action = self._coerce(action, m)
        if action < 0 or not (m >> action) & 1:  # m has no bit past 41
            self._reject(action, m)
        check_move(self, action)  # the attributes it reads and writes, before any change
        self._legal = -1
        self.history.append(action)
        self._APPLY[self.phase](self, action)

    def _apply_trump(self, action: int) -> None:
        self.trump = action - TRUMP_ACTION
        self.phase, self.current = DISCARD, 1 - self.dealer

    def _apply_discard(self, card: int) -> None:
        p = self.current
        self.hand[p] ^= 1 << card
        self.discard[p] = card
        if p == self.dealer:
            self.phase, self.current = PLAY, 1 - self.dealer
        else:
            self.current = self.dealer

    def _apply_answer(self, action: int) -> None:
        if action == ESCALATE:
            self._raise_level(self.current)
        self.phase, self.current = PLAY, 1 - self.current

    def _raise_level(self, player: int) -> None:
        self.level += 1
        if self.level == 1:
            self.cracker = player
        elif self.level == 2:
            self.recracker = player

    def _escalate_due(self) -> None:
        due = self.current
        self._raise_level(due)
        other = 1 - due
        if self._may_escalate(other):  # R11 step 2: the other player answers at once
            self.phase, self.current = ANSWER, other

    def _apply_play(self, card: int) -> None:
        if card >= NUM_CARDS:  # the due player escalates (R11)
            self._escalate_due()
            return
        p = self.current
        bit = 1 << card
        pile = -1
        if self.hand[p] & bit:
            self.hand[p] ^= bit
        else:  # a face-up card from pile i (R13); what lies under it turns over later (R14)
            self.upbits[p] ^= bit
            i = self.up.index(card, PILES * p, PILES * p + PILES)
            self.up[i] = -1
            if self.down[i] >= 0:
                pile = i
                self.covered[p] &= ~bit
        self.played[p] |= bit
        lead = self.lead
        if lead < 0:
            self.lead, self.lead_pile, self.current = card, pile, 1 - p
            return
        leader = 1 - p
        winner = p if BEATS[self.trump][lead * NUM_CARDS + card] else leader
        self.won[winner] |= (1 << lead) | bit
        self.trick_points[winner] += POINTS[lead] + POINTS[card]
        self.tricks.append((leader, lead, card, winner))
        if self.lead_pile >= 0:
            self._turn_over(self.lead_pile)
        if pile >= 0:
            self._turn_over(pile)
        self.lead = self.lead_pile = -1
        if len(self.tricks) == self.variant.tricks:
            self._finish_hand()
        else:
            self.current = self.leader = winner

    def _turn_over(self, i: int) -> None:
        card = self.down[i]
        self.down[i], self.up[i] = -1, card
        self.upbits[i // PILES] |= 1 << card

    def _finish_hand(self) -> None:
        t, (d0, d1) = self.trump, self.discard
        pts = [self.trick_points[0] + POINTS[d1], self.trick_points[1] + POINTS[d0]]
        pile0 = self.won[0] | (1 << d1)
        spitzer = (0 if (pile0 >> SPITZER[t]) & 1 else 1) if self.variant.spitzer else -1
        pts[spitzer] += spitzer >= 0  # a variant without 7s has no Spitzer (-1)
        v = self.variant
        winner = 0 if pts[0] >= v.win_points else 1
        best = pts[winner]
        value = v.hand_value(self.level, best)
        self.scores[winner] += value
        self.results.append(HandResult(
            self.hand_no, self.dealer, t, tuple(pts), tuple(self.trick_points), (d0, d1),
            spitzer, winner, self.level, v.schneider_points <= best < v.total_points,
            best == v.total_points, value, tuple(self.scores)))
        self.hand_no += 1
        if self.hand_no >= self.num_hands and self.scores[0] != self.scores[1]:
            self.phase, self.current = OVER, None
        else:
            self._start_hand()

    # One method per phase (indexed by Phase): the legal actions and what an action does.
    _LEGAL = (_legal_trump, _legal_discard, _legal_play, _legal_answer, _legal_over)
    _APPLY = (_apply_trump, _apply_discard, _apply_play, _apply_answer)


#: Game's bases: the API and the compiled state where the core is built, else PyGame.
_BASES = (_GameApi, CORE.GameState) if CORE is not None else (PyGame,)


class Game(*_BASES):
    """A Widderkopf match between players 0 and 1 (a single hand by default):
    :class:`PyGame`'s rules, run by the compiled core where it is built (else the same
    Python code). Create one with :meth:`new` (a seeded random deal) or
    :meth:`from_deal`; then, while not :attr:`is_over`, let :attr:`current_player` pick one
    of :meth:`legal_actions` and :meth:`apply` it. Its attributes are :class:`PyGame`'s,
    read-only: a list read is new, but ``history``, ``results`` and ``deals``, its own."""

    __slots__ = ()

    if CORE is not None:
        @classmethod
        def _from_fields(cls, fields: dict):
            """A game holding ``fields`` (every state field but ``_legal``), as
            :func:`widderkopf_env.worlds.world_fields` gives them."""
            g = cls.__new__(cls)
            g._load(fields, core_numbers(fields["variant"]))
            return g
