"""EndgameAgent and ``load_agent("net-endgame")``: the network with an exact endgame."""

import random
import subprocess
import sys

import pytest

from widderkopf_env import Game
from widderkopf_env.agents import load_agent
from widderkopf_env.agents.endgame import EndgameAgent
from widderkopf_env.agents.heuristic import HeuristicAgent
from widderkopf_env.agents.solver import game_points, solve_actions
from widderkopf_env.cards import TRICKS
from widderkopf_env.rules import PLAY
from widderkopf_env.worlds import Resampler


def decisions(agent, games: int, seed: int = 0):
    """(game, view) at each decision of ``agent`` (seat alternating) against the
    heuristic; the game is positioned at the decision (do not apply to it)."""
    opp = HeuristicAgent()
    for k in range(games):
        g = Game.new(seed=seed + k)
        seat = k % 2
        while not g.is_over:
            p = g.current_player
            view = g.view(p)
            if p == seat:
                yield g, view
                g.apply(agent.act(view))
            else:
                g.apply(opp.act(view))


def test_load_agent_net_endgame():
    agent = load_agent("net-endgame", seed=3)
    assert isinstance(agent, EndgameAgent) and agent.name == "net-endgame"
    assert (agent.tricks, agent.worlds) == (5, 8) and agent.policy.name == "net-v2"


def deeper_endgame():
    # docs/bots.md: EndgameAgent(load_agent("net"), tricks=7), both from widderkopf_env.agents,
    # beats PIMC
    from widderkopf_env.agents import EndgameAgent as Exported

    assert Exported is EndgameAgent
    agent = Exported(load_agent("net"), tricks=7, seed=1)
    assert agent.name == "net+endgame" and (agent.tricks, agent.worlds) == (7, 8)
    return agent


@pytest.mark.parametrize("make, tricks", [
    (lambda: load_agent("net-endgame", seed=1), 5), (deeper_endgame, 7)],
    ids=["net-endgame", "tricks=7"])
def test_the_network_decides_until_the_last_tricks_and_the_solver_after(make, tricks):
    agent = make()
    net = agent.policy
    solved, lefts = 0, set()
    for g, view in decisions(agent, 12, seed=40):
        left = TRICKS - len(view.tricks)
        assert agent.solves(view) == (view.phase == g.phase == PLAY and left <= tricks)
        if agent.solves(view):
            solved += 1
            lefts.add(left)
            assert agent.act(view) in g.legal_actions()
        else:
            assert agent.act(view) == net.act(view)  # trump, discard, escalations, cards
    assert solved >= 12 * 4 and max(lefts) == tricks


def test_endgame_moves_are_nearly_perfect_where_the_policy_network_errs():
    """Regret against the exact value of each card in the true deal (which the agent does
    not see), over the last four tricks: the policy network alone loses card points
    there, the solver over sampled worlds almost none (the hidden cards are nearly
    known), and net's card-value network is in between."""
    agent = load_agent("net-endgame", seed=2)
    net = agent.policy
    regret = {"policy": 0.0, "net": 0.0, "endgame": 0.0}
    n = 0
    for g, view in decisions(agent, 40, seed=100):
        if not (agent.solves(view) and TRICKS - len(view.tricks) <= 4):
            continue
        if len(g.legal_actions()) < 2:
            continue
        value = {a: x + 2 * game_points(x, view.level) for a, x in solve_actions(g).items()}
        best = max(value.values())
        regret["policy"] += best - value[net.policy.act(view)]
        regret["net"] += best - value[net.act(view)]
        regret["endgame"] += best - value[agent.act(view)]
        n += 1
    assert n >= 100
    assert regret["endgame"] / n < 0.15 < regret["policy"] / n, (n, regret)
    assert regret["endgame"] <= regret["net"] < regret["policy"], (n, regret)


def test_the_decision_depends_on_the_view_only():
    """A world drawn from the view (other hidden cards, the same view) gets the same
    move from an agent reset with the same seed: nothing hidden is read (R8)."""
    agent, rng = load_agent("net-endgame"), random.Random(7)
    checked = 0
    for g, view in decisions(load_agent("net"), 10, seed=200):
        if not agent.solves(view) or len(g.legal_actions()) < 2:
            continue
        world = Resampler(view).sample(rng)
        other = world.view(view.player)
        assert other == view
        if world.hand[1 - view.player] == g.hand[1 - view.player]:
            continue  # the same hidden cards: proves nothing
        agent.reset(5)
        a = agent.act(view)
        agent.reset(5)
        assert agent.act(other) == a
        checked += 1
    assert checked >= 10


def test_seeded_agents_play_the_same_game():
    def play(seed):
        agent, g = load_agent("net-endgame", seed=seed), Game.new(seed=9)
        moves = []
        while not g.is_over:
            moves.append(agent.act(g.view(g.current_player)))
            g.apply(moves[-1])
        return moves

    assert play(4) == play(4)


@pytest.mark.parametrize("kwargs, message", [
    ({"tricks": 0}, "tricks must be 1..17, got 0"),
    ({"tricks": 18}, "tricks must be 1..17, got 18"),
    ({"tricks": True}, "tricks must be 1..17, got True"),
    ({"worlds": 0}, "worlds must be a positive int, got 0"),
    ({"worlds": 2.5}, "worlds must be a positive int, got 2.5"),
])
def test_bad_settings_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        EndgameAgent(HeuristicAgent(), **kwargs)
    with pytest.raises(TypeError, match="policy must be an agent"):
        EndgameAgent("net")


def test_net_endgame_needs_no_torch():
    code = ("import sys; sys.modules['torch'] = None; sys.modules['stable_baselines3'] = None\n"
            "from widderkopf_env import Game\n"
            "from widderkopf_env.agents import load_agent\n"
            "g = Game.new(seed=1); a = load_agent('net-endgame', seed=0)\n"
            "while not g.is_over: g.apply(a.act(g.view(g.current_player)))\n"
            "print('ok', g.results[-1].value)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.startswith("ok"), out.stderr
