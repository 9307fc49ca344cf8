"""MCCFR's average policy (widderkopf_env.agents.mccfr): the table file, the agent on
tiny and medium, another variant's table refused, the fallback counted, and the agent's
choice a function of the player's view only (R8)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pyspiel", reason="needs the [openspiel] extra")

from indistinguishable import (  # noqa: E402
    differs_in_hidden,
    hidden_cards,
    permutations,
    random_positions,
    rebuild,
)

from widderkopf_env import Game, load_agent  # noqa: E402
from widderkopf_env.agents.cli_args import check_agent_spec  # noqa: E402
from widderkopf_env.agents.heuristic import HeuristicAgent  # noqa: E402
from widderkopf_env.agents.mccfr import MCCFRAgent, MCCFRTrainer, PolicyTable  # noqa: E402
from widderkopf_env.agents.openspiel_state import one_hand_game  # noqa: E402
from widderkopf_env.openspiel import deal_actions  # noqa: E402


@pytest.fixture(scope="module")
def tables():
    """Small tables of tiny and medium, trained once."""
    out = {}
    for variant, iterations in (("tiny", 300), ("medium", 60)):
        trainer = MCCFRTrainer(variant, seed=5)
        trainer.run(iterations=iterations)
        out[variant] = trainer.table()
    return out


def _play(agent, variant, seed):
    other = HeuristicAgent()
    g = Game.new(seed=seed, variant=variant)
    moves = []
    while not g.is_over:
        view = g.view(g.current)
        action = (agent if g.current == 0 else other).act(view)
        assert action in view.legal_actions()
        if g.current == 0:
            moves.append((action, len(view.legal_actions()) > 1))
        g.apply(action)
    return moves


def _true_key(game, player):
    """The information-state string of ``player`` in the OpenSpiel state replayed from
    the real deal (not from the player's view)."""
    state = one_hand_game(game.variant.name).new_initial_state()
    state.apply_action(game.first_dealer)
    for action in [*deal_actions(game.variant, game.deals[0]), *game.history]:
        state.apply_action(action)
    return state.information_state_string(player)


def test_the_table_round_trips_through_the_file(tmp_path, tables):
    table = tables["tiny"]
    path = table.save(tmp_path / "tiny")
    assert path.name == "tiny.npz"
    back = PolicyTable.load(path)
    assert back.keys == table.keys and len(back) > 100
    assert np.array_equal(back.offsets, table.offsets)
    assert np.array_equal(back.probs, table.probs)
    assert (back.variant, back.solver, back.seed, back.iterations) == ("tiny", "outcome", 5, 300)
    for i in (0, len(table) // 2, len(table) - 1):
        assert np.array_equal(back.get(table.keys[i]), table.get(table.keys[i]))
        assert abs(float(back.get(table.keys[i]).sum()) - 1.0) < 1e-5
    with np.load(path, allow_pickle=False) as z:  # plain arrays only
        assert all(z[name].dtype != object for name in z.files)


def test_the_same_seed_gives_the_same_table_however_the_run_is_split():
    np.random.seed(123)
    before = np.random.get_state()[1].copy()
    a, b = MCCFRTrainer("tiny", seed=9), MCCFRTrainer("tiny", seed=9)
    a.run(iterations=40)
    b.run(iterations=25)
    b.run(iterations=15)
    ta, tb = a.table(), b.table()
    assert ta.keys == tb.keys and np.array_equal(ta.probs, tb.probs)
    other = MCCFRTrainer("tiny", seed=10)
    other.run(iterations=40)
    assert other.table().keys != ta.keys or not np.array_equal(other.table().probs, ta.probs)
    assert np.array_equal(np.random.get_state()[1], before)  # the caller's state is kept


@pytest.mark.parametrize("variant", ["tiny", "medium"])
def test_the_agent_plays_legal_moves_reproducibly(variant, tables):
    agent = MCCFRAgent(tables[variant], seed=3)
    choices = 0
    for seed in range(3):
        agent.reset(7)
        first = _play(agent, variant, seed)
        agent.reset(7)
        assert _play(agent, variant, seed) == first
        choices += 2 * sum(choice for _, choice in first)
    assert agent.decisions == choices > 0  # forced moves are not counted
    if variant == "tiny":
        assert agent.fallbacks < agent.decisions  # the table answers on tiny


def test_load_agent_and_the_cli_take_a_table_file(tmp_path, tables):
    path = str(tables["tiny"].save(tmp_path / "t.npz"))
    agent = load_agent(path, seed=1)
    assert isinstance(agent, MCCFRAgent) and agent.table.keys == tables["tiny"].keys
    assert check_agent_spec(path) == path


def test_a_table_of_another_variant_is_refused(tmp_path, tables):
    path = tables["tiny"].save(tmp_path / "tiny.npz")
    with pytest.raises(ValueError, match="'tiny' variant, not of 'medium'"):
        MCCFRAgent.load(path, variant="medium")
    agent = MCCFRAgent.load(path, seed=0, variant="tiny")
    with pytest.raises(ValueError, match="made for the 'tiny' variant and cannot play 'medium'"):
        agent.act(Game.new(seed=0, variant="medium").view(0))
    _play(agent, "tiny", 0)  # still usable


def test_the_fallback_is_the_heuristic_and_is_counted():
    g = Game.new(seed=1, variant="medium")
    while len(g.legal_actions()) < 2:
        g.apply(g.legal_actions()[0])
    view = g.view(g.current)
    key = _true_key(g, g.current)
    legal = view.legal_actions()
    empty = PolicyTable("medium", (), np.zeros(1, np.int64), np.zeros(0, np.float32))
    agent = MCCFRAgent(empty, seed=0)
    assert agent.act(view) == HeuristicAgent().act(view)
    assert (agent.decisions, agent.fallbacks, agent.coverage) == (1, 1, 0.0)
    pick = next(a for a in legal if a != HeuristicAgent().act(view))
    probs = np.array([a == pick for a in legal], np.float32)
    seen = PolicyTable("medium", (key,), np.array([0, len(legal)]), probs)
    agent = MCCFRAgent(seen, seed=0)
    assert agent.act(view) == pick
    assert (agent.decisions, agent.fallbacks, agent.coverage) == (1, 0, 1.0)


def test_greedy_plays_the_most_likely_action_and_sampling_follows_the_probabilities():
    g = Game.new(seed=1, variant="medium")
    while len(g.legal_actions()) < 2:
        g.apply(g.legal_actions()[0])
    view, legal = g.view(g.current), g.legal_actions()
    probs = np.zeros(len(legal), np.float32)
    probs[:2] = (0.25, 0.75)
    table = PolicyTable("medium", (_true_key(g, g.current),), np.array([0, len(legal)]), probs)
    assert {MCCFRAgent(table, seed=s, greedy=True).act(view) for s in range(5)} == {legal[1]}
    agent = MCCFRAgent(table, seed=0)
    picks = [agent.act(view) for _ in range(400)]
    assert set(picks) == {legal[0], legal[1]} and 0.65 < picks.count(legal[1]) / 400 < 0.85


def test_the_choice_depends_only_on_the_view():
    """At random medium positions: the agent's key is the real information state's, and
    a game differing only in the cards the player has not seen gets the same action."""
    import random

    rng, checked = random.Random(0), 0
    for game, p in random_positions(60, seed=3, variant="medium"):
        if game.is_over or game.current != p or len(game.legal_actions()) < 2:
            continue
        hidden = hidden_cards(game, p)
        if len(hidden) < 2:
            continue
        key, legal = _true_key(game, p), game.legal_actions()
        probs = np.full(len(legal), 1.0 / len(legal), np.float32)  # a mixed strategy
        table = PolicyTable("medium", (key,), np.array([0, len(legal)]), probs)
        for sigma in permutations(hidden, rng):
            other = rebuild(game, sigma)
            if other is None or not differs_in_hidden(game, other, p):
                continue
            a, b = MCCFRAgent(table, seed=11), MCCFRAgent(table, seed=11)
            for _ in range(5):
                assert a.act(game.view(p)) == b.act(other.view(p))
            assert a.fallbacks == b.fallbacks == 0  # both found the real key
            checked += 1
            break
    assert checked >= 10
