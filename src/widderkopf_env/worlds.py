"""Sampling full game states ("worlds") consistent with one player's view: the one home of
world sampling, used by the search bots (PIMC, ISMCTS) and the OpenSpiel game.

A player sees their own hand and discard, every face-up card and everything played
(RULES R8). The cards they have not seen (``view.unseen``) lie in four kinds of hidden
place: the opponent's hand, the face-down cards of *both* players' piles, and the
opponent's discard (once made). :class:`Resampler` deals the unseen cards to those places
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
    :meth:`Resampler.sample` builds a :class:`~widderkopf_env.rules.Game` directly from the view
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
    ``tests/agents/test_pimc.py`` checks that replaying the real history with the hidden cards
    relabelled as sampled is legal and ends in exactly the world built here.

Randomness
    A draw takes a :class:`random.Random` (``sample`` and ``shuffle``): the search bots'
    own seeded generator, or :class:`SamplerRandom` around a function returning floats in
    [0, 1) (OpenSpiel's ``probability_sampler``), so both draw the same way.
"""

from __future__ import annotations

import random

from .cards import PILES, from_bits
from .engine_types import Phase
from .rules import Game
from .view import HIDDEN, PlayerView

__all__ = ["HiddenInfo", "Resampler", "SamplerRandom", "from_view", "hidden_info", "resample",
           "world_fields"]


def from_view(view, opponent_hand, face_down, opponent_discard=-1, game_class=Game):
    """The game of ``view``'s public position with these hidden cards: a world for search.

    ``opponent_hand``: the opponent's hand (card ids or a bit set, as many cards as the view
    says); ``face_down``: ``{pile: card}`` for every pile (engine index ``5 * player + i``)
    that still holds a face-down card; ``opponent_discard``: their discard once they have
    discarded, else -1. The hidden cards must be exactly the view's unseen cards
    (:attr:`PlayerView.unseen`). The world plays on to the end of the hand as the real game
    would with those cards. Its history and deal are this hand's (from the view's public
    record and the hidden cards); seed 0, earlier deals None. Wrong types raise
    ``TypeError`` naming the argument. ``game_class``: :class:`~widderkopf_env.rules.Game`,
    or :class:`~widderkopf_env.rules.PyGame` for the Python reference.
    """
    return game_class._from_fields(world_fields(view, opponent_hand, face_down,
                                                opponent_discard))


def world_fields(view, opponent_hand, face_down, opponent_discard=-1) -> dict:
    """The state of the world of ``view``'s public position with these hidden cards, as the
    fields :func:`from_view` builds a game from
    (every state field of a Game; see that method for the arguments and their checks)."""
    if not isinstance(view, PlayerView):
        raise TypeError(f"view must be a PlayerView, got {type(view).__name__}")
    hand, face_down, opponent_discard = view.check_hidden(opponent_hand, face_down,
                                                          opponent_discard)
    me, opp = view.player, view.opponent
    over = view.phase == Phase.OVER
    history = list(view.hand_history)
    if HIDDEN in history:  # the opponent's discard, as the world has it
        history[history.index(HIDDEN)] = opponent_discard
    f = {"variant": view.variant, "seed": 0, "num_hands": view.num_hands,
         "hand_no": view.hand_no, "first_dealer": view.dealer ^ (view.hand_no & 1),
         "initial_scores": tuple(view.scores), "scores": list(view.scores),
         "results": [view.last_result] if view.last_result is not None else [],
         "deals": [None] * (view.hand_no - over)
         + [view.initial_deal(hand, face_down, opponent_discard)],
         "history": history, "hand_start": 0, "dealer": view.dealer, "phase": view.phase,
         "current": view.current, "trump": view.trump, "chooser": view.chooser,
         "won": list(view.won), "trick_points": list(view.trick_points),
         "played": list(view.played), "lead": view.lead, "leader": view.leader,
         "tricks": list(view.tricks), "level": view.level, "cracker": view.cracker,
         "recracker": view.recracker}
    pair = {"hand": (view.hand, hand), "upbits": (view.my_up, view.opp_up),
            "covered": (view.my_covered, view.opp_covered),
            "discard": (view.my_discard, opponent_discard)}
    for name, (mine, theirs) in pair.items():
        f[name] = [mine, theirs] if me == 0 else [theirs, mine]
    up, down, lead_pile = [-1] * (2 * PILES), [-1] * (2 * PILES), -1
    for p, piles in ((me, view.my_piles), (opp, view.opp_piles)):
        for i, (top, _has_down) in enumerate(piles):
            up[PILES * p + i] = top
    for pile, card in face_down.items():
        down[pile] = card
        if up[pile] < 0:  # the open trick's lead came off this pile (R14)
            lead_pile = pile
    f.update(up=up, down=down, lead_pile=lead_pile)
    return f


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


def hidden_info(view) -> HiddenInfo:
    """The hidden places of ``view`` (see :class:`HiddenInfo`). Raises ``ValueError`` if
    the view is inconsistent (more hidden places than unseen cards, or too few cards
    left for the opponent's hand)."""
    info = HiddenInfo()
    info.unseen = unseen = view.unseen
    info.void = void = view.opponent_voids
    info.allowed = unseen & ~void
    info.hand_size = view.hand_size_opp
    info.down_slots = slots = view.face_down_piles
    info.discard = bool(view.opp_discarded)
    places = info.hand_size + len(slots) + info.discard
    if places != unseen.bit_count():
        raise ValueError(f"view has {places} hidden places but {unseen.bit_count()} unseen cards")
    if info.allowed.bit_count() < info.hand_size:
        raise ValueError("no consistent deal: the opponent's hand cannot be filled")
    return info


class Resampler:
    """Draws worlds for one view: the analysis is done once, then each world is cheap."""

    def __init__(self, view):
        self.view, self.info = view, hidden_info(view)
        self._allowed = from_bits(self.info.allowed)

    def draw(self, rng: random.Random) -> tuple[int, dict, int]:
        """Hidden cards consistent with the view, uniform over all consistent deals:
        ``(opponent's hand as a bit set, {pile: face-down card}, opponent's discard or
        -1)``, the arguments of :func:`from_view`
        and :meth:`PlayerView.initial_deal <widderkopf_env.view.PlayerView.initial_deal>`."""
        info = self.info
        bits = 0
        if info.hand_size:
            for c in rng.sample(self._allowed, info.hand_size):
                bits |= 1 << c
        rest = from_bits(info.unseen & ~bits)
        rng.shuffle(rest)
        face_down = dict(zip(info.down_slots, rest, strict=False))
        return bits, face_down, rest[-1] if info.discard else -1

    def sample(self, rng: random.Random) -> Game:
        """A world consistent with the view, uniform over all consistent deals."""
        return from_view(self.view, *self.draw(rng))


def resample(view, rng) -> Game:
    """A world consistent with ``view`` (a :class:`~widderkopf_env.view.PlayerView`),
    uniform over all consistent deals; ``rng`` is a :class:`random.Random`."""
    return Resampler(view).sample(rng)


class SamplerRandom(random.Random):
    """A :class:`random.Random` drawing from ``sampler()``, a function returning floats in
    [0, 1) (as OpenSpiel's ``probability_sampler``): its ``sample`` and ``shuffle`` then
    consume only those floats, so a seeded sampler gives the same worlds every time."""

    def __init__(self, sampler):
        super().__init__(0)
        self._sampler = sampler

    def random(self) -> float:
        return float(self._sampler())
