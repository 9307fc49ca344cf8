"""Sampling full game states ("worlds") consistent with one player's view, for search bots.

A player sees their own hand and discard, every face-up card and everything played
(RULES R8). The cards they have not seen (``view.unseen``) lie in four kinds of hidden
place: the opponent's hand, the face-down cards of *both* players' piles, and the
opponent's discard (once made). :func:`resample` deals the unseen cards to those places
uniformly at random among all deals consistent with what the player has seen.

What the play reveals about the hidden places
    The only hard evidence is the following rule (R15). When the opponent, playing second
    to a card of class ``C`` (a plain suit, or trumps), played a card outside ``C``, none
    of the cards playable to them then (their hand and their face-up tops) was in ``C``.
    Their face-up cards are public anyway, so the news is about their hand: it held no
    card of ``C`` then, and as a hand only loses cards after the discard, it holds none
    now. Nothing else is learned:

    - face-down cards were not playable, so a void says nothing about them (a card still
      face down now was face down then, and a card turned over since is seen);
    - the opponent's discard left their hand before the first trick, so voids shown in
      play do not constrain it;
    - the opponent's trump choice, discard and escalations are legal whatever they hold.

    (Their *choices* carry soft evidence; uniform sampling ignores it on purpose, as
    PIMC bots usually do.)

Uniformity
    The constraint touches the opponent's hand only, so the consistent deals are: any
    ``h``-subset of the allowed cards (unseen minus the void classes) as their hand,
    times any arrangement of the remaining unseen cards over the face-down places and
    the discard. Every hand subset has the same number of arrangements, so drawing the
    hand uniformly from the allowed cards and then shuffling the rest into the other
    places is exactly uniform over the consistent deals (no rejection needed).

The world
    :func:`resample` builds a :class:`~widderkopf_env.rules.Game` directly from the view
    and the sampled cards: its public fields are copied from the view, so
    ``world.view(view.player) == view`` and the engine plays on from it as from the real
    game (the pile a lead came from, whose face-down card turns over after the trick
    (R14), is the leader's pile showing no top over a face-down card). A world is a
    search state, not a record: ``history`` is empty and ``deals`` holds no past deals,
    so ``to_json`` does not apply; ``initial_scores`` are the scores before this hand, so
    ``returns()`` counts from its start; a later hand of the match would be dealt from
    seed 0 (a world is meant for searching the current hand).

    The view does not say which played cards came from which pile (nor which were in
    the hand). That is public knowledge (both players saw it happen) but it is not
    needed: neither the hidden-card distribution nor the future play depends on it.
    ``tests/test_pimc.py`` checks that replaying the real history with the hidden cards
    relabelled as sampled is legal and ends in exactly the world built here.
"""

from __future__ import annotations

from widderkopf_env.cards import FOLLOW, from_bits
from widderkopf_env.rules import Game

__all__ = ["HiddenInfo", "Resampler", "hidden_info", "opponent_voids", "resample"]


class HiddenInfo:
    """The hidden places of a view and what may go where.

    Attributes: ``unseen`` (bit set), ``void`` (classes the opponent has shown void in),
    ``allowed`` (unseen cards their hand may hold), ``hand_size`` (opponent's hand),
    ``down_slots`` (engine pile indices 0..9 holding a face-down card), ``discard``
    (whether the opponent's discard is hidden).
    """

    __slots__ = ("unseen", "void", "allowed", "hand_size", "down_slots", "discard")

    def count_worlds(self) -> int:
        """The number of consistent deals (hand as a set; places ordered)."""
        from math import comb, factorial

        rest = self.unseen.bit_count() - self.hand_size
        return comb(self.allowed.bit_count(), self.hand_size) * factorial(rest)


def opponent_voids(view) -> int:
    """Union of the classes (FOLLOW masks) the opponent failed to follow (R15)."""
    me, t = view.player, view.trump
    void = 0
    for leader, led, other, _winner in view.tricks:
        if leader == me:
            cls = FOLLOW[t][led]
            if not (cls >> other) & 1:
                void |= cls
    return void


def hidden_info(view) -> HiddenInfo:
    """The hidden places of ``view`` (see :class:`HiddenInfo`). Raises ``ValueError`` if
    the view is inconsistent (more hidden places than unseen cards, or too few cards
    left for the opponent's hand)."""
    info = HiddenInfo()
    me, opp = view.player, view.opponent
    info.unseen = unseen = view.unseen
    info.void = void = opponent_voids(view) if view.tricks else 0
    info.allowed = unseen & ~void
    info.hand_size = view.hand_size_opp
    slots = []
    for p, piles in ((me, view.my_piles), (opp, view.opp_piles)):
        slots.extend(5 * p + i for i, (_top, has_down) in enumerate(piles) if has_down)
    info.down_slots = tuple(sorted(slots))
    info.discard = bool(view.opp_discarded)
    places = info.hand_size + len(slots) + info.discard
    if places != unseen.bit_count():
        raise ValueError(f"view has {places} hidden places but {unseen.bit_count()} unseen cards")
    if info.allowed.bit_count() < info.hand_size:
        raise ValueError("no consistent deal: the opponent's hand cannot be filled")
    return info


def _template(view) -> Game:
    """A Game holding the public part of ``view`` (hidden places left to fill)."""
    me, opp = view.player, view.opponent
    g = Game.__new__(Game)
    g.seed = 0
    g.num_hands, g.hand_no = view.num_hands, view.hand_no
    g.first_dealer = view.dealer ^ (view.hand_no & 1)
    g.initial_scores = tuple(view.scores)
    g.scores = list(view.scores)
    g.results = [view.last_result] if view.last_result is not None else []
    g.deals = [None] * (view.hand_no + 1)
    g.history = []
    g.dealer, g.phase, g.current = view.dealer, view.phase, view.current
    g.trump, g.chooser = view.trump, view.chooser
    hand, upbits, covered, discard = [0, 0], [0, 0], [0, 0], [-1, -1]
    hand[me] = view.hand
    upbits[me], upbits[opp] = view.my_up, view.opp_up
    covered[me], covered[opp] = view.my_covered, view.opp_covered
    discard[me] = view.my_discard
    g.hand, g.upbits, g.covered, g.discard = hand, upbits, covered, discard
    up, down = [-1] * 10, [-1] * 10
    lead_pile = -1
    for p, piles in ((me, view.my_piles), (opp, view.opp_piles)):
        for i, (top, has_down) in enumerate(piles):
            up[5 * p + i] = top
            if has_down:
                down[5 * p + i] = 99  # placeholder for a hidden card
                if top < 0:  # the lead of the open trick came off this pile (R14)
                    lead_pile = 5 * p + i
    g.up, g.down = up, down
    g.won, g.trick_points = list(view.won), list(view.trick_points)
    g.played = list(view.played)
    g.lead, g.leader, g.lead_pile = view.lead, view.leader, lead_pile
    g.tricks = list(view.tricks)
    g.level, g.cracker, g.recracker = view.level, view.cracker, view.recracker
    g._legal = -1
    return g


class Resampler:
    """Draws worlds for one view: the analysis is done once, each world costs ~10 us."""

    def __init__(self, view):
        self.view, self.info = view, hidden_info(view)
        self._template = _template(view)
        self._allowed = from_bits(self.info.allowed)

    def sample(self, rng) -> Game:
        """A world consistent with the view, uniform over all consistent deals."""
        info, opp = self.info, self.view.opponent
        g = self._template.clone()
        bits = 0
        if info.hand_size:
            for c in rng.sample(self._allowed, info.hand_size):
                bits |= 1 << c
        g.hand[opp] = bits
        rest = from_bits(info.unseen & ~bits)
        rng.shuffle(rest)
        down = g.down
        for i, slot in enumerate(info.down_slots):
            down[slot] = rest[i]
        if info.discard:
            g.discard[opp] = rest[-1]
        return g


def resample(view, rng) -> Game:
    """A world consistent with ``view`` (a :class:`~widderkopf_env.view.PlayerView`),
    uniform over all consistent deals; ``rng`` is a :class:`random.Random`."""
    return Resampler(view).sample(rng)
