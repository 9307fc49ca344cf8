"""load_agent("ismcts"): OpenSpiel's ISMCTS bot as our Agent."""

from __future__ import annotations

import pytest

pytest.importorskip("pyspiel", reason="needs the [openspiel] extra")

from widderkopf_env import Game, load_agent  # noqa: E402
from widderkopf_env.agents.ismcts import ISMCTSAgent  # noqa: E402


def _play(variant, seed, agent_seed, simulations=20):
    bot = ISMCTSAgent(seed=agent_seed, simulations=simulations)
    other = load_agent("heuristic")
    g = Game.new(seed=seed, variant=variant)
    moves = []
    while not g.is_over:
        p = g.current
        view = g.view(p)
        action = (bot if p == 0 else other).act(view)
        assert action in view.legal_actions()
        if p == 0:
            moves.append(action)
        g.apply(action)
    return moves


def test_ismcts_is_a_registered_agent():
    agent = load_agent("ismcts", seed=3)
    assert isinstance(agent, ISMCTSAgent) and agent.simulations == 200


def test_ismcts_fast_is_a_registered_agent_with_fewer_simulations():
    agent = load_agent("ismcts-fast", seed=3)
    assert isinstance(agent, ISMCTSAgent) and agent.simulations == 50
    assert agent.name == "ismcts-fast" and load_agent("ismcts").name == "ismcts"
    g = Game.new(seed=4, variant="small")
    while not g.is_over:
        g.apply(agent.act(g.view(g.current)))


@pytest.mark.parametrize("variant", ["tiny", "small", "medium"])
def test_ismcts_plays_legal_moves_reproducibly(variant):
    for seed in range(3):
        assert _play(variant, seed, agent_seed=7) == _play(variant, seed, agent_seed=7)


def test_the_root_state_has_the_views_information_state():
    g = Game.new(seed=2, variant="medium")
    heuristic = load_agent("heuristic")
    for _ in range(9):
        g.apply(heuristic.act(g.view(g.current)))
    view = g.view(g.current)
    bot = ISMCTSAgent(seed=1)
    a, b = bot.root_state(view), bot.root_state(view)
    assert a.current_player() == view.player
    assert a.information_state_string() == b.information_state_string()
    assert a.legal_actions() == view.legal_actions()


def test_bad_simulations_are_refused():
    with pytest.raises(ValueError, match="simulations must be a positive int"):
        ISMCTSAgent(simulations=0)
