"""The hand's public record, worlds rebuilt from it, and PIMC's opponent inference."""

from __future__ import annotations

import itertools
import random

import pytest
from helpers import deal

from widderkopf_env import Game
from widderkopf_env.agents import HeuristicAgent, PIMCAgent, RandomAgent, load_agent
from widderkopf_env.agents.infer import HeuristicModel, likelihood, opponent_choices
from widderkopf_env.cards import ESCALATE, TRUMP_MASK, card_name, from_bits, to_bits
from widderkopf_env.rules import Phase, deal_to_spec
from widderkopf_env.view import HIDDEN
from widderkopf_env.worlds import Resampler, from_view

#: View fields that do not depend on the match's progress (hand number, scores)
CARD_NAMES = [card_name(c) for c in range(36)]
PUBLIC = ("phase", "current", "dealer", "chooser", "trump", "level", "cracker", "recracker",
          "hand", "hand_size_opp", "my_up", "opp_up", "my_piles", "opp_piles", "my_discard",
          "opp_discarded", "played", "won", "trick_points", "lead", "leader", "tricks",
          "legal", "initial_up", "revealed", "hand_history")


def matches(n: int, seed: int):
    """(game, player) at every decision of random/heuristic two-hand matches."""
    rng = random.Random(seed)
    h, r = HeuristicAgent(), RandomAgent(seed)
    for i in range(n):
        game = Game.new(seed=seed * 100 + i, num_hands=2)
        while not game.is_over:
            yield game.clone(), rng.randrange(2)
            agent = h if rng.random() < 0.5 else r
            game.apply(agent.act(game.view(game.current)))


def true_world(game: Game, me: int) -> Game:
    view, o = game.view(me), 1 - me
    face_down = {i: game.down[i] for i in view.face_down_piles}
    return from_view(view, game.hand[o], face_down, game.discard[o])


def test_the_record_masks_only_the_opponents_discard():
    game = Game.new(seed=3)
    while game.phase != Phase.PLAY:
        game.apply(HeuristicAgent().act(game.view(game.current)))
    for me in (0, 1):
        record = game.view(me).hand_history
        mine = 1 if me != game.dealer else 2  # the non-dealer discards first (R10)
        assert record[0] == game.history[0] and record[mine] == game.history[mine]
        assert record[3 - mine] == HIDDEN
    assert game.view(0).initial_up == tuple(game.deals[0][0][1] + game.deals[0][1][1])


def test_the_true_hidden_cards_rebuild_the_deal_and_the_hand_exactly():
    """worlds.from_view with the real hidden cards: the hand's deal and history are the
    real ones, and replaying them from the deal gives the same position."""
    checked = 0
    for game, me in matches(40, seed=1):
        world = true_world(game, me)  # the match's end included
        view = game.view(me)
        assert world.view(me) == view
        real = game.deals[game.hand_no - game.is_over]
        assert [(sorted(h), u, d) for h, u, d in world.deals[-1]] == \
            [(sorted(h), u, d) for h, u, d in real]
        assert world.history == game.history[game.hand_start:]
        replayed = Game.from_deal(deal_to_spec(real), dealer=game.dealer, scores=game.scores)
        for a in world.history:
            replayed.apply(a)
        again = replayed.view(me)
        assert all(getattr(again, f) == getattr(view, f) for f in PUBLIC), me
        checked += 1
    assert checked > 1000


def test_initial_deal_refuses_hidden_cards_that_do_not_complete_a_deal():
    game = Game.new(seed=5)
    view = game.view(0)
    face_down = {i: game.down[i] for i in view.face_down_piles}
    with pytest.raises(ValueError, match="face_down"):
        view.initial_deal(game.hand[1], {}, -1)
    with pytest.raises(ValueError, match="consistent"):
        view.initial_deal(game.hand[0], face_down, -1)


class Exact:
    """The heuristic as a deterministic model: its choice has probability 1."""

    def __init__(self):
        self.agent = HeuristicAgent()

    def prob(self, view, action):
        return float(self.agent.act(view) == action)


def test_impossible_worlds_get_weight_zero_and_the_truth_does_not():
    """Against a heuristic opponent the true world explains every choice (weight 1 under
    the exact model); worlds where the model would have chosen otherwise get 0, and so
    does a world where a recorded play is illegal (a card of a class the opponent did
    not follow put in their hand)."""
    zero = illegal = 0
    h = HeuristicAgent()
    for i in range(15):
        game = Game.new(seed=700 + i)
        while not game.is_over and len(game.tricks) < 8:
            game.apply(h.act(game.view(game.current)))
        for me in (0, 1):
            assert likelihood(true_world(game, me), me, Exact()) == 1.0
            assert likelihood(true_world(game, me), me, HeuristicModel()) > 0.0
            view, o = game.view(me), 1 - me
            rng = random.Random(i)
            sampler = Resampler(view)
            zero += sum(likelihood(sampler.sample(rng), me, Exact()) == 0.0
                        for _ in range(20))
            void = view.opponent_voids
            outside = from_bits(view.unseen & void)  # never in their hand since then
            if outside and game.hand[o]:
                a, b = from_bits(game.hand[o])[0], outside[0]
                hand = (game.hand[o] & ~(1 << a)) | (1 << b)
                face_down = {i: (a if game.down[i] == b else game.down[i])
                             for i in view.face_down_piles}
                disc = a if game.discard[o] == b else game.discard[o]
                world = from_view(view, hand, face_down, disc)
                assert likelihood(world, me, HeuristicModel()) == 0.0
                illegal += 1
    assert zero > 50 and illegal > 0


def test_a_crack_makes_the_inferred_worlds_hold_more_trumps():
    """The heuristic cracks only with a strong hand: after its trump choice and crack,
    most worlds kept by inference are ones where the heuristic would have done the same
    (few uniform worlds are), and they give it more trumps."""
    strong = "QC QS QH QD JC JS AD 10D".split(), "AC AS AH KD 9D".split()
    used = set(strong[0] + strong[1])
    rest = [c for c in CARD_NAMES if c not in used]
    d = deal((" ".join(rest[5:13]), " ".join(rest[13:18]), " ".join(rest[18:23])),
             (" ".join(strong[0]), " ".join(strong[1]), " ".join(rest[:5])))
    game = Game.from_deal(d, dealer=0)  # player 1 names trumps and leads
    h = HeuristicAgent()
    while not (game.current == 0 and game.phase in (Phase.PLAY, Phase.ANSWER)):
        game.apply(h.act(game.view(game.current)))
    assert game.level >= 1 and game.cracker == 1  # the heuristic cracked
    view = game.view(0)
    trumps = TRUMP_MASK[game.trump]

    def mean_trumps(worlds):
        return sum((to_bits(w.deals[-1][1][0]) & trumps).bit_count()
                   for w in worlds) / len(worlds)

    rng = random.Random(0)
    uniform = [Resampler(view).sample(rng) for _ in range(300)]
    inferred = list(PIMCAgent(seed=0)._inferred(Resampler(view), view, 300))
    assert mean_trumps(inferred) > mean_trumps(uniform) + 0.25

    def explained(worlds):  # share of worlds where the heuristic would have done the same
        return sum(likelihood(w, 0, Exact()) for w in worlds) / len(worlds)

    assert explained(uniform) < 0.2 and explained(inferred) > 0.5


def test_inferring_pimc_plays_legally_and_is_reproducible():
    a, b = PIMCAgent(seed=3, samples=4), PIMCAgent(seed=3, samples=4)
    assert a.infer and a.name == "pimc"
    views = [g.view(g.current) for g, _ in itertools.islice(matches(2, seed=9), 0, None, 3)
             if not g.is_over]
    first = [a.act(v) for v in views]
    assert all(x in v.legal_actions() for x, v in zip(first, views, strict=True))
    assert [b.act(v) for v in views] == first
    uniform = load_agent("pimc-uniform", seed=1)
    assert not uniform.infer and uniform.name == "pimc-uniform"
    assert load_agent("pimc").infer


def test_opponent_choices_are_the_opponents_decisions_in_order():
    game = Game.new(seed=11)
    h = HeuristicAgent()
    while not game.is_over and len(game.tricks) < 5:
        game.apply(h.act(game.view(game.current)))
    world = true_world(game, 0)
    choices = list(opponent_choices(world, 0))
    replay = Game.from_deal(deal_to_spec(game.deals[0]), dealer=game.dealer)
    expected = []
    for a in game.history:
        if replay.current == 1:
            expected.append((replay.view(1), a))
        replay.apply(a)
    assert [(v.key(), a) for v, a in choices] == [(v.key(), a) for v, a in expected]
    assert any(a == ESCALATE for _v, a in choices) or len(choices) >= 6
