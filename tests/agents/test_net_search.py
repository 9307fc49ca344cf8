"""NetSearchAgent (``net-search``, ``net-search-fast``): PIMC over the shipped network."""

from __future__ import annotations

import io
import random

import numpy as np
import pytest
from helpers import plays_legal_moves
from indistinguishable import differs_in_hidden, hidden_cards, permutations, rebuild

from widderkopf_env import Game
from widderkopf_env.agents import load_agent
from widderkopf_env.agents.infer import likelihood, likelihoods, systematic_resample
from widderkopf_env.agents.net_search import FAST, NetModel, NetSearchAgent
from widderkopf_env.cards import ESCALATE, TRICKS
from widderkopf_env.rules import DISCARD, PLAY, TRUMP
from widderkopf_env.worlds import Resampler

#: A small budget: the tests check behaviour, not strength.
SMALL = {"worlds": 2, "actions": 2, "candidates": 2, "exact_tricks": 6, "tail_tricks": 10}


@pytest.fixture(scope="module")
def net():
    return load_agent("net")


def positions(net, games: int, seed: int = 0):
    """``(game, player)`` at every decision of ``net`` against itself (a copy each)."""
    for k in range(games):
        g = Game.new(seed=seed + k)
        while not g.is_over:
            yield g.clone(), g.current
            g.apply(net.act(g.view(g.current)))


def test_load_agent_names_the_strong_and_the_fast_setting():
    strong, fast = load_agent("net-search", seed=1), load_agent("net-search-fast", seed=1)
    assert isinstance(strong, NetSearchAgent) and strong.name == "net-search"
    assert fast.name == "net-search-fast"
    assert {k: getattr(fast, k) for k in FAST} == FAST
    assert fast.worlds < strong.worlds and fast.net.name == strong.net.name == "net-v2"


def test_the_rollout_policy_is_the_network(net):
    """In one batch, the model picks what ``net`` picks wherever it may not escalate."""
    views = [g.view(p) for g, p in positions(net, 3, seed=40)]
    views = [v for v in views if not v.legal >> ESCALATE & 1]
    model = NetModel(net)
    assert model.choices(views) == [net.act(v) for v in views]
    assert model.calls == 2  # one pass of each network for all the views
    assert {v.phase for v in views} >= {TRUMP, DISCARD, PLAY}


def test_the_opponent_model_is_a_distribution_led_by_the_networks_choice(net):
    model, checked = NetModel(net), 0
    for g, p in positions(net, 2, seed=50):
        view = g.view(p)
        legal = g.legal_actions()
        if len(legal) < 2:
            assert model.prob(view, legal[0]) == 1.0
            continue
        q = model.probs([view] * len(legal), legal)
        assert q.sum() == pytest.approx(1.0) and (q >= model.eps / len(legal) - 1e-12).all()
        if not view.legal >> ESCALATE & 1:
            assert legal[int(np.argmax(q))] == net.act(view)
        checked += 1
    assert checked > 40


def test_batched_likelihoods_are_the_likelihoods(net):
    model, rng, checked = NetModel(net), random.Random(3), 0
    for g, p in positions(net, 1, seed=60):
        view = g.view(p)
        if len(view.hand_history) < 6 or g.phase != PLAY or checked >= 4:
            continue
        worlds = [Resampler(view).sample(rng) for _ in range(5)]
        assert likelihoods(worlds, p, model) == pytest.approx(
            [likelihood(w, p, model) for w in worlds], rel=1e-5)
        checked += 1
    assert checked == 4


def test_inferred_worlds_hold_more_of_the_opponents_true_hand(net):
    """Against ``net`` (the model is right), the worlds kept by the network's weights share
    more of the opponent's real hand than uniform ones do."""
    model, rng, share, n = NetModel(net), random.Random(0), {"uniform": 0.0, "kept": 0.0}, 0
    for g, p in positions(net, 6, seed=1000):
        if g.phase != PLAY or len(g.tricks) not in (2, 5, 8) or not g.hand[1 - p]:
            continue
        true, pool = g.hand[1 - p], [Resampler(g.view(p)).sample(rng) for _ in range(32)]
        kept = systematic_resample(likelihoods(pool, p, model), 16, rng)
        for what, worlds in (("uniform", pool[:16]), ("kept", [pool[i] for i in kept])):
            share[what] += sum((w.hand[1 - p] & true).bit_count() for w in worlds) / 16 / true.bit_count()
        n += 1
    assert n >= 20 and share["kept"] / n > share["uniform"] / n + 0.05, (n, share)


def test_systematic_resampling_keeps_worlds_in_proportion():
    rng = random.Random(0)
    kept = systematic_resample([0.0, 1.0, 0.0, 3.0], 4, rng)
    assert sorted(kept) == [1, 3, 3, 3]
    assert systematic_resample([0.0, 0.0, 0.0], 2, rng) == [0, 1]  # nothing explained


def test_the_decision_depends_on_the_view_only(net):
    """Games dealt with the hidden cards permuted (the opponent's hand, the face-down
    piles, their discard) but the same view get the same decision, evidence included,
    from an agent reset with the same seed (R8)."""
    agent, rng = NetSearchAgent(seed=0, **SMALL), random.Random(5)
    checked, phases = 0, set()
    for g, p in positions(net, 3, seed=70):
        if len(g.legal_actions()) < 2 or rng.random() < 0.6:
            continue
        hidden = hidden_cards(g, p)
        for sigma in permutations(hidden, rng):
            other = rebuild(g, sigma)
            if other is None or not differs_in_hidden(g, other, p):
                continue
            assert other.view(p) == g.view(p)
            agent.reset(11)
            mine = agent.decide(g.view(p))
            agent.reset(11)
            assert agent.decide(other.view(p)) == mine
            checked += 1
            phases.add(g.phase)
            break
    assert checked >= 8 and phases >= {PLAY, DISCARD}, (checked, phases)


def test_the_same_seed_plays_the_same_game():
    def moves(seed):
        agent, g, out = NetSearchAgent(seed=seed, **SMALL), Game.new(seed=9), []
        while not g.is_over:
            out.append(agent.act(g.view(g.current)))
            g.apply(out[-1])
        return out

    assert moves(4) == moves(4)


def early_play(net):
    """An early card-play position with several legal cards and a history to infer from."""
    for g, p in positions(net, 5, seed=80):
        view = g.view(p)
        if g.phase == PLAY and len(g.tricks) == 2 and (view.legal & ((1 << 36) - 1)).bit_count() >= 4:
            return view
    raise AssertionError("no early position found")


def test_the_budget_is_respected_and_the_network_batched(net):
    view = early_play(net)
    seen = {}
    for worlds in (2, 8):
        agent = NetSearchAgent(seed=1, net=net, worlds=worlds, actions=3, candidates=3,
                               exact_tricks=4, tail_tricks=6)
        d = agent.decide(view)
        c = agent.counts
        assert c["decisions"] == 1 and c["worlds"] == worlds and len(d.values) == 3
        assert c["scored"] <= worlds and c["rollouts"] == 3 * c["scored"]
        assert c["solves"] == c["rollouts"]
        seen[worlds] = c
    # the rollouts all reach the solver after the same number of plies: one network call
    # per ply (plus the ranking and the inference), whatever the number of worlds
    assert seen[2]["calls"] == seen[8]["calls"] <= 2 * TRICKS
    assert seen[8]["rows"] > seen[2]["rows"]


def test_actions_none_compares_every_legal_card_and_exact_solves_the_end(net):
    view = early_play(net)
    cards = (view.legal & ((1 << 36) - 1)).bit_count()
    agent = NetSearchAgent(seed=1, net=net, worlds=2, actions=None, exact_tricks=4)
    assert len(agent.decide(view).values) == cards
    late = NetSearchAgent(seed=1, net=net, worlds=3, exact_tricks=TRICKS)
    d = late.decide(view)
    assert late.counts["rollouts"] == 0 and late.counts["solves"] == late.counts["scored"]
    assert len(d.values) == cards and d.values[d.action] == max(d.values.values())


def test_a_forced_move_is_played_without_search(net):
    agent = NetSearchAgent(seed=0, net=net, **SMALL)
    for g, p in positions(net, 1, seed=90):
        if len(g.legal_actions()) == 1:
            assert agent.act(g.view(p)) == g.legal_actions()[0]
            break
    assert agent.counts["calls"] == agent.counts["decisions"] == 0


def test_rollouts_to_the_end_of_the_hand(net):
    """``tail_tricks=0``: the rollouts play the hand out, the solver is never asked."""
    agent = NetSearchAgent(seed=0, net=net, worlds=2, actions=2, exact_tricks=0,
                           tail_tricks=0, candidates=1)
    for g, p in positions(net, 1, seed=95):
        if g.phase == PLAY and TRICKS - len(g.tricks) <= 3 and len(g.legal_actions()) > 1:
            assert agent.act(g.view(p)) in g.legal_actions()
    assert agent.counts["decisions"] > 0 and agent.counts["solves"] == 0


def test_plays_legal_moves_through_whole_matches(net):
    agent = NetSearchAgent(seed=2, net=net, **SMALL)
    plays_legal_moves(agent, 1)
    g = Game.new(seed=5, num_hands=2, scores=(4, 1))
    while not g.is_over:
        a = agent.act(g.view(g.current))
        assert a in g.legal_actions()
        g.apply(a)


@pytest.mark.parametrize("kwargs, message", [
    ({"worlds": 0}, "worlds must be a positive int, got 0"),
    ({"worlds": 2.0}, "worlds must be a positive int, got 2.0"),
    ({"candidates": True}, "candidates must be a positive int, got True"),
    ({"actions": 0}, "actions must be a positive int or None, got 0"),
    ({"exact_tricks": TRICKS + 1}, f"exact_tricks must be an int in 0..{TRICKS}, got 18"),
    ({"tail_tricks": -1}, f"tail_tricks must be an int in 0..{TRICKS}, got -1"),
    ({"searched": ("play", "bid")}, r"searched: unknown kinds of decision \['bid'\]"),
    ({"temperature": 0}, "temperature must be a positive number, got 0"),
    ({"eps": 1.5}, r"eps must be a number in \[0, 1\], got 1.5"),
])
def test_bad_settings_are_refused(net, kwargs, message):
    with pytest.raises(ValueError, match=message):
        NetSearchAgent(net=net, **kwargs)


def test_a_net_that_is_no_net_agent_is_refused():
    with pytest.raises(TypeError, match="net must be a NetAgent"):
        NetSearchAgent(net=load_agent("heuristic"))


def test_unsearched_kinds_are_the_networks_decisions(net):
    agent, checked = NetSearchAgent(seed=0, net=net, searched=("play",), **SMALL), 0
    for g, p in positions(net, 2, seed=100):
        if g.phase in (TRUMP, DISCARD):
            assert agent.act(g.view(p)) == net.act(g.view(p))
            checked += 1
    assert checked == 6 and agent.counts["calls"] == agent.counts["decisions"] == 0


@pytest.mark.parametrize("name", ["net-search", "net-search-fast"])
def test_the_browser_table_offers_it(name, monkeypatch, tmp_path):
    """``widderkopf-play --web --opponent NAME --safe`` takes it and makes it the bot."""
    from widderkopf_env.agents import web_play
    from widderkopf_env.agents.play_cli import main as play_main

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    made = {}

    def serve(config, *args, **kwargs):
        made["bot"] = config.make_bot()
        return 0

    monkeypatch.setattr(web_play, "serve", serve)
    assert play_main(["--web", "--no-browser", "--safe", "--opponent", name],
                     stdout=io.StringIO()) == 0
    assert isinstance(made["bot"], NetSearchAgent) and made["bot"].name == name
