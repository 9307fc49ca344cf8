"""The Widderkopf rules engine (RULES R1-R20), free of any RL framework.

A :class:`Game` is a whole match (one hand by default). Drive it with
:meth:`Game.legal_actions` and :meth:`Game.apply`; read what one player may see with
:meth:`Game.view`. Card sets are 36-bit ints (see :mod:`widderkopf_env.cards`).
"""

from __future__ import annotations

import hashlib
import json
import math
import operator
import secrets
from dataclasses import asdict, dataclass
from enum import IntEnum

from .cards import (
    BEATS,
    ESCALATE,
    FOLLOW,
    HAND_SIZE,
    ID_TABLES,
    NUM_ACTIONS,
    PASS,
    PILES,
    POINTS,
    SPITZER,
    TRICKS,
    TRUMP_ACTION,
    WIN_POINTS,
    action_name,
    card_name,
    from_bits,
    hand_value,
    parse_card,
    to_bits,
)


class Phase(IntEnum):
    """What the player to act decides (R9-R15)."""

    TRUMP = 0  #: the chooser names the trump suit (actions 36-39)
    DISCARD = 1  #: discard one hand card into the opponent's capture pile (0-35)
    PLAY = 2  #: the due player plays a card (0-35) or escalates (40)
    ANSWER = 3  #: the other player answers an escalation: escalate (40) or pass (41)
    OVER = 4  #: the match is over


TRUMP, DISCARD, PLAY, ANSWER, OVER = range(5)
_T0, _T1, _T2, _T3 = ID_TABLES
_ESC_BIT = 1 << ESCALATE
_ANSWER_BITS = _ESC_BIT | (1 << PASS)
_TRUMP_BITS = 0b1111 << TRUMP_ACTION
AGENTS = ("player_0", "player_1")


class IllegalActionError(ValueError):
    """An action that is not legal now. The game is left unchanged."""

    def __init__(self, message: str, action=None, phase=None, legal=()):
        super().__init__(message)
        self.action, self.phase, self.legal = action, phase, list(legal)


@dataclass(frozen=True, slots=True)
class HandResult:
    """The outcome of one finished hand (R17-R19)."""

    hand: int  #: index of the hand in the match, from 0
    dealer: int
    trump: int
    card_points: tuple[int, int]  #: final card points incl. discards and Spitzer; sum 121
    trick_points: tuple[int, int]  #: points taken in tricks only
    discards: tuple[int, int]  #: card each player discarded (into the other's pile)
    spitzer: int  #: player credited with the Spitzer
    winner: int
    crack_level: int
    schneider: bool  #: winner has 91+ (value doubled)
    schwarz: bool  #: winner has all 121 (value quadrupled instead)
    value: int  #: game points the winner scored: 2**crack_level x (1, 2 or 4)
    scores: tuple[int, int]  #: match scores after this hand


def as_action_id(action) -> int | None:
    """``action`` as a Python int if it is an integer (numpy integers included, bools not),
    else None. Range and legality are checked elsewhere."""
    if isinstance(action, bool):
        return None
    try:
        return operator.index(action)
    except TypeError:
        return None


def parse_player(player) -> int:
    """0, 1, ``'player_0'`` or ``'player_1'`` -> 0 or 1."""
    if player in (0, 1, "player_0", "player_1") and not isinstance(player, bool):
        return player if isinstance(player, int) else AGENTS.index(player)
    try:
        value = operator.index(player)
    except TypeError:
        value = None
    if value in (0, 1) and not isinstance(player, bool):
        return value
    raise ValueError(f"player must be 0, 1, 'player_0' or 'player_1', got {player!r}")


def parse_deal(deal) -> tuple[tuple[list[int], list[int], list[int]], ...]:
    """Validate a deal spec and return ``((hand, up, down), (hand, up, down))`` as card ids.

    The spec is ``{"player_0": {"hand": [8 names], "up": [5], "down": [5]}, "player_1": ...}``
    with ``up[i]`` lying on ``down[i]`` (R7). Raises ``ValueError`` saying what is wrong.
    """
    if not isinstance(deal, dict) or set(deal) != set(AGENTS):
        got = sorted(deal) if isinstance(deal, dict) else type(deal).__name__
        raise ValueError(f"deal must be a dict with keys 'player_0' and 'player_1', got {got}")
    sizes = {"hand": HAND_SIZE, "up": PILES, "down": PILES}
    out, seen = [], {}
    for agent in AGENTS:
        part = deal[agent]
        if not isinstance(part, dict) or set(part) != set(sizes):
            got = sorted(part) if isinstance(part, dict) else type(part).__name__
            raise ValueError(f"deal[{agent!r}] must have keys 'hand', 'up', 'down', got {got}")
        ids = []
        for key, size in sizes.items():
            names = part[key]
            if isinstance(names, str) or not hasattr(names, "__len__") or len(names) != size:
                raise ValueError(
                    f"deal[{agent!r}][{key!r}] must list {size} card names, got {names!r}"
                )
            cards = []
            for name in names:
                try:
                    card = parse_card(name)
                except ValueError as err:
                    raise ValueError(f"deal[{agent!r}][{key!r}]: {err}") from None
                if card in seen:
                    raise ValueError(
                        f"card {card_name(card)} is dealt twice: in {seen[card]} and in "
                        f"{agent}.{key}"
                    )
                seen[card] = f"{agent}.{key}"
                cards.append(card)
            ids.append(cards)
        out.append(tuple(ids))
    return tuple(out)


def deal_to_spec(deal) -> dict:
    """The inverse of :func:`parse_deal`: card ids -> the named deal spec."""
    return {
        agent: {key: [card_name(c) for c in cards] for key, cards in zip(("hand", "up", "down"), part, strict=True)}
        for agent, part in zip(AGENTS, deal, strict=True)
    }


_PERMUTATIONS = math.factorial(36)


def _hash_int(text: str) -> int:
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=64).digest(), "little")


def seeded_deal(seed: int, hand: int):
    """The deal of hand ``hand`` of the match with ``seed``: a uniform random permutation.

    The 512-bit BLAKE2b hash of ``"widderkopf/<seed>/hand/<hand>"`` is reduced modulo 36!
    and decoded in the factorial number system (bias below 2**-370). The same seed gives
    the same deals on every platform and Python version.
    """
    x = _hash_int(f"widderkopf/{seed}/hand/{hand}") % _PERMUTATIONS
    cards = list(range(36))
    for i in range(35, 0, -1):  # Fisher-Yates, with the swaps read off x
        x, j = divmod(x, i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    return tuple((cards[b:b + 8], cards[b + 8:b + 13], cards[b + 13:b + 18]) for b in (0, 18))


def seeded_dealer(seed: int) -> int:
    """The first dealer drawn from ``seed`` (R6)."""
    return _hash_int(f"widderkopf/{seed}/dealer") & 1


_STATE_FIELDS = (
    "seed", "num_hands", "first_dealer", "initial_scores", "scores", "hand_no", "results",
    "deals", "history", "dealer", "phase", "current", "trump", "chooser", "hand", "up",
    "down", "upbits", "covered", "discard", "won", "trick_points", "played", "lead",
    "lead_pile", "leader", "tricks", "level", "cracker", "recracker", "_legal",
)
# Fields holding lists that clone() must copy (everything else is immutable).
_LIST_FIELDS = frozenset({
    "scores", "results", "deals", "history", "hand", "up", "down", "upbits", "covered",
    "discard", "won", "trick_points", "played", "tricks",
})
_SCALAR_FIELDS = tuple(f for f in _STATE_FIELDS if f not in _LIST_FIELDS)


class Game:
    """A Widderkopf match between players 0 and 1 (a single hand by default).

    Create one with :meth:`new` (a seeded random deal) or :meth:`from_deal`; then, while
    not :attr:`is_over`, let :attr:`current_player` pick one of :meth:`legal_actions` and
    :meth:`apply` it. Read-only attributes of the live hand:

    ``phase`` (:class:`Phase`), ``current`` (player to act or None), ``dealer``, ``trump``
    (-1 until named), ``chooser``, ``level`` (crack level 0..4), ``cracker``/``recracker``
    (-1 if none), ``hand[p]``/``upbits[p]``/``played[p]``/``won[p]`` (card bit sets),
    ``up[5p+i]``/``down[5p+i]`` (card on pile i or -1), ``covered[p]`` (face-up cards lying
    on a face-down card), ``discard[p]``, ``trick_points[p]``, ``lead`` (card led in the
    open trick or -1), ``leader``, ``tricks`` (``(leader, led, other, winner)`` per trick),
    ``scores`` (match), ``hand_no``, ``results`` (:class:`HandResult` per finished hand).
    These are the full state: hidden cards included. Agents should read :meth:`view`.
    """

    __slots__ = _STATE_FIELDS

    # --- construction --------------------------------------------------------------------

    @classmethod
    def new(cls, seed: int | None = None, dealer=None, num_hands: int = 1,
            scores=(0, 0)) -> Game:
        """A match with random deals drawn from ``seed`` (same seed, same match).

        ``dealer`` is the first dealer (0/1 or ``'player_0'``/``'player_1'``); None draws it
        from the seed (R6). ``num_hands`` hands are played, more while tied (R20).
        """
        seed = _check_seed(seed)
        if dealer is None:
            dealer = seeded_dealer(seed)
        return cls._create(seed, parse_player(dealer), num_hands, scores, [])

    @classmethod
    def from_deal(cls, deal: dict, dealer=0, num_hands: int = 1, seed: int | None = None,
                  scores=(0, 0)) -> Game:
        """A match whose first hand is the given deal spec (see :func:`parse_deal`).

        Later hands of a match are dealt from ``seed``. ``scores`` are the match scores
        before the hand (they decide who names trumps, R9).
        """
        return cls._create(_check_seed(seed), parse_player(dealer), num_hands, scores,
                           [parse_deal(deal)])

    @classmethod
    def _create(cls, seed, dealer, num_hands, scores, deals) -> Game:
        if isinstance(num_hands, bool) or not isinstance(num_hands, int) or num_hands < 1:
            raise ValueError(f"num_hands must be a positive int, got {num_hands!r}")
        if (len(scores) != 2 or any(isinstance(s, bool) or not isinstance(s, int) or s < 0
                                    for s in scores)):
            raise ValueError(f"scores must be two non-negative ints, got {scores!r}")
        g = cls.__new__(cls)
        g.seed, g.num_hands, g.first_dealer = seed, num_hands, dealer
        g.initial_scores = tuple(scores)
        g.scores, g.hand_no, g.results, g.deals, g.history = list(scores), 0, [], deals, []
        g._start_hand()
        return g

    def _start_hand(self) -> None:
        n = self.hand_no
        if n == len(self.deals):
            self.deals.append(seeded_deal(self.seed, n))
        deal = self.deals[n]
        self.dealer = dealer = self.first_dealer ^ (n & 1)
        s0, s1 = self.scores
        self.chooser = (0 if s0 < s1 else 1) if s0 != s1 else 1 - dealer
        self.phase, self.current, self.trump = TRUMP, self.chooser, -1
        (h0, u0, d0), (h1, u1, d1) = deal
        self.hand = [to_bits(h0), to_bits(h1)]
        self.up, self.down = [*u0, *u1], [*d0, *d1]
        self.upbits = [to_bits(u0), to_bits(u1)]
        self.covered = self.upbits[:]
        self.discard, self.won, self.trick_points, self.played = [-1, -1], [0, 0], [0, 0], [0, 0]
        self.lead = self.lead_pile = -1
        self.leader = 1 - dealer
        self.tricks = []
        self.level, self.cracker, self.recracker = 0, -1, -1
        self._legal = -1

    def clone(self) -> Game:
        """An independent copy (cheap; no deepcopy)."""
        g = Game.__new__(Game)
        for f in _SCALAR_FIELDS:
            setattr(g, f, getattr(self, f))
        g.scores, g.results, g.deals = self.scores[:], self.results[:], self.deals[:]
        g.history, g.hand, g.up, g.down = self.history[:], self.hand[:], self.up[:], self.down[:]
        g.upbits, g.covered, g.discard = self.upbits[:], self.covered[:], self.discard[:]
        g.won, g.trick_points, g.played = self.won[:], self.trick_points[:], self.played[:]
        g.tricks = self.tricks[:]
        return g

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
        return m if m >= 0 else self._compute_legal()

    def legal_actions(self) -> list[int]:
        """Legal action ids of :attr:`current_player`, ascending (empty once over)."""
        m = self._legal
        if m < 0:
            m = self._compute_legal()
        return list(_T0[m & 4095] + _T1[(m >> 12) & 4095] + _T2[(m >> 24) & 4095] + _T3[m >> 36])

    def may_escalate(self, player: int) -> bool:
        """Whether ``player`` still holds the right to the next escalation (R11): the level
        is below 4, they have played no card this hand, and the next escalation is theirs.
        (It is a legal action only when they are also due, or answering.)"""
        level = self.level
        if level >= 4 or self.played[player] or self.phase == OVER:
            return False
        return level == 0 or player == (self.cracker if level % 2 == 0 else 1 - self.cracker)

    def escalation_rights(self) -> tuple[bool, bool]:
        """``(may_escalate(0), may_escalate(1))``."""
        played = self.played
        if played[0] and played[1]:  # from the second trick on nobody may escalate (R11)
            return (False, False)
        return (self.may_escalate(0), self.may_escalate(1))

    def _compute_legal(self) -> int:
        ph = self.phase
        if ph == PLAY:
            p = self.current
            m = self.hand[p] | self.upbits[p]
            if self.lead >= 0:
                f = m & FOLLOW[self.trump][self.lead]
                if f:
                    m = f
            if self.level < 4 and not self.played[p] and self.may_escalate(p):
                m |= _ESC_BIT
        elif ph == ANSWER:
            m = _ANSWER_BITS
        elif ph == DISCARD:
            m = self.hand[self.current]
        elif ph == TRUMP:
            m = _TRUMP_BITS
        else:
            m = 0
        self._legal = m
        return m

    def card_points(self) -> tuple[int, int]:
        """Card points in each capture pile, discards included (full information, R17).

        While a hand is played these are the points so far; once the match is over, the
        final points of the last hand (with the Spitzer).
        """
        if self.phase == OVER:
            return self.results[-1].card_points
        d0, d1 = self.discard
        return (self.trick_points[0] + (POINTS[d1] if d1 >= 0 else 0),
                self.trick_points[1] + (POINTS[d0] if d0 >= 0 else 0))

    def returns(self) -> list[float]:
        """Zero-sum game points: ``[s0 - s1, s1 - s0]`` of the match scores gained so far.

        For a single hand this is +value for the winner and -value for the loser (R19).
        """
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
            m = self._compute_legal()
        if type(action) is not int:
            action = self._coerce(action, m)
        if action < 0 or not (m >> action) & 1:  # m has no bit past 41
            self._reject(action, m)
        self._legal = -1
        self.history.append(action)
        ph = self.phase
        if ph == 2:  # PLAY
            if action < 36:
                self._play(action)
            else:
                self._escalate_due()
        elif ph == 3:  # ANSWER
            if action == ESCALATE:
                self._raise_level(self.current)
            self.phase, self.current = PLAY, 1 - self.current
        elif ph == 1:  # DISCARD
            p = self.current
            self.hand[p] ^= 1 << action
            self.discard[p] = action
            if p == self.dealer:
                self.phase = PLAY
                self.current = 1 - self.dealer
            else:
                self.current = self.dealer
        else:  # TRUMP
            self.trump = action - TRUMP_ACTION
            self.phase, self.current = DISCARD, 1 - self.dealer

    def _coerce(self, action, mask: int) -> int:
        value = as_action_id(action)
        if value is not None:
            return value
        raise IllegalActionError(
            f"action must be an integer action id, got {type(action).__name__} {action!r}; "
            f"legal now ({Phase(self.phase).name}): {_describe(mask)}",
            action, Phase(self.phase), from_bits(mask))

    def _reject(self, action: int, mask: int) -> None:
        phase = Phase(self.phase)
        if phase == OVER:
            msg = f"action {action} rejected: the match is over (no legal actions)"
        else:
            what = action_name(action) if 0 <= action < NUM_ACTIONS else "out of range 0..41"
            msg = (f"illegal action {action} ({what}) for player {self.current} in phase "
                   f"{phase.name}; legal: {_describe(mask)}")
        raise IllegalActionError(msg, action, phase, from_bits(mask))

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
        if self.may_escalate(other):  # R11 step 2: the other player answers at once
            self.phase, self.current = ANSWER, other

    def _play(self, card: int) -> None:
        p = self.current
        bit = 1 << card
        pile = -1
        if self.hand[p] & bit:
            self.hand[p] ^= bit
        else:  # a face-up card from pile i (R13); what lies under it turns over later (R14)
            self.upbits[p] ^= bit
            i = self.up.index(card, 5 * p, 5 * p + 5)
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
        winner = p if BEATS[self.trump][lead * 36 + card] else leader
        self.won[winner] |= (1 << lead) | bit
        self.trick_points[winner] += POINTS[lead] + POINTS[card]
        self.tricks.append((leader, lead, card, winner))
        if self.lead_pile >= 0:
            self._turn_over(self.lead_pile)
        if pile >= 0:
            self._turn_over(pile)
        self.lead = self.lead_pile = -1
        if len(self.tricks) == TRICKS:
            self._finish_hand()
        else:
            self.current = self.leader = winner

    def _turn_over(self, i: int) -> None:
        card = self.down[i]
        self.down[i], self.up[i] = -1, card
        self.upbits[i // 5] |= 1 << card

    def _finish_hand(self) -> None:
        t, (d0, d1) = self.trump, self.discard
        pts = [self.trick_points[0] + POINTS[d1], self.trick_points[1] + POINTS[d0]]
        pile0 = self.won[0] | (1 << d1)
        spitzer = 0 if (pile0 >> SPITZER[t]) & 1 else 1
        pts[spitzer] += 1
        winner = 0 if pts[0] >= WIN_POINTS else 1
        best = pts[winner]
        value = hand_value(self.level, best)
        self.scores[winner] += value
        self.results.append(HandResult(
            self.hand_no, self.dealer, t, tuple(pts), tuple(self.trick_points), (d0, d1),
            spitzer, winner, self.level, 91 <= best < 121, best == 121, value,
            tuple(self.scores)))
        self.hand_no += 1
        if self.hand_no >= self.num_hands and self.scores[0] != self.scores[1]:
            self.phase, self.current = OVER, None
        else:
            self._start_hand()

    # --- views and serialisation ---------------------------------------------------------

    def view(self, player):
        """What ``player`` may see now (R8): a :class:`~widderkopf_env.view.PlayerView`."""
        from .view import PlayerView

        return PlayerView.of(self, parse_player(player))

    def to_json(self) -> str:
        """The match as JSON: seed, set-up, the deal of every hand so far and all actions."""
        return json.dumps({
            "format": "widderkopf-game", "version": 1, "seed": self.seed,
            "num_hands": self.num_hands, "first_dealer": self.first_dealer,
            "initial_scores": list(self.initial_scores),
            "deals": [deal_to_spec(d) for d in self.deals],
            "actions": [action_name(a) for a in self.history],
        })

    @classmethod
    def from_json(cls, text: str) -> Game:
        """Rebuild a game from :meth:`to_json` (exact round trip: it replays the actions)."""
        data = json.loads(text)
        if data.get("format") != "widderkopf-game" or data.get("version") != 1:
            raise ValueError("not a widderkopf-game version 1 JSON document")
        deals = [parse_deal(d) for d in data["deals"]]
        g = cls._create(data["seed"], data["first_dealer"], data["num_hands"],
                        tuple(data["initial_scores"]), deals[:1])
        g.deals.extend(deals[1:])
        by_name = {action_name(a): a for a in range(NUM_ACTIONS)}
        for name in data["actions"]:
            g.apply(by_name[name])
        return g

    def state_dict(self) -> dict:
        """The full live state as plain data (for tests, debugging and golden files)."""
        out = {f: getattr(self, f) for f in _STATE_FIELDS if f not in ("_legal", "results")}
        out["results"] = [asdict(r) for r in self.results]
        out["deals"] = [deal_to_spec(d) for d in self.deals]
        out["tricks"] = [list(t) for t in self.tricks]
        out["initial_scores"] = list(self.initial_scores)
        return json.loads(json.dumps(out))

    def __repr__(self) -> str:
        return (f"<Game hand {self.hand_no + (self.phase != OVER)}/{self.num_hands} "
                f"phase={Phase(self.phase).name} current={self.current} trump={self.trump} "
                f"level={self.level} tricks={len(self.tricks)} scores={self.scores}>")


def _describe(mask: int) -> str:
    acts = from_bits(mask)
    return ", ".join(f"{a} ({action_name(a)})" for a in acts) if acts else "none"


def _check_seed(seed) -> int:
    if seed is None:
        return secrets.randbits(63)
    if isinstance(seed, bool):
        raise ValueError(f"seed must be an int or None, got {seed!r}")
    try:
        return operator.index(seed)
    except TypeError:
        raise ValueError(f"seed must be an int or None, got {seed!r}") from None
