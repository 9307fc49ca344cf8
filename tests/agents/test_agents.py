"""Agents: the heuristic is always legal and plays obvious moves right; load_agent; adapters."""

from __future__ import annotations

import random

import numpy as np
import pytest
from helpers import play

from widderkopf_env import Game, parse_card
from widderkopf_env.agents import (
    Agent,
    HeuristicAgent,
    RandomAgent,
    agent_names,
    load_agent,
    reset_agent,
)
from widderkopf_env.agents.sb3_model import MaskablePPOAgent, PolicyAgent
from widderkopf_env.cards import ESCALATE, PASS, POINTS, TRUMP_ACTION, card_name
from widderkopf_env.rules import Phase

ALL_NAMES = {card_name(c) for c in range(36)}


def layout(p0_hand: str, p0_up: str, p1_hand: str, p1_up: str) -> dict:
    """A deal spec from visible cards; the 10 remaining cards become the face-down ones."""
    parts = [p.split() for p in (p0_hand, p0_up, p1_hand, p1_up)]
    used = [card_name(parse_card(n)) for part in parts for n in part]
    assert [len(p) for p in parts] == [8, 5, 8, 5] and len(set(used)) == 26
    rest = sorted(ALL_NAMES - set(used), key=parse_card)
    return {
        "player_0": {"hand": parts[0], "up": parts[1], "down": rest[:5]},
        "player_1": {"hand": parts[2], "up": parts[3], "down": rest[5:]},
    }


def heuristic_move(game: Game) -> int:
    return HeuristicAgent().act(game.view(game.current))


# --- legality ------------------------------------------------------------------------------

@pytest.mark.parametrize("seat", [0, 1])
def test_heuristic_plays_whole_matches_legally_against_random(seat):
    """Game.apply raises IllegalActionError on any illegal action."""
    h, r = HeuristicAgent(), RandomAgent()
    for seed in range(120):
        game = Game.new(seed=seed, num_hands=3)
        reset_agent(r, seed)
        agents = (h, r) if seat == 0 else (r, h)
        while not game.is_over:
            p = game.current
            game.apply(agents[p].act(game.view(p)))


def test_heuristic_move_is_legal_in_positions_reached_by_random_play():
    h, r = HeuristicAgent(), RandomAgent(7)
    asked = 0
    for seed in range(250):
        game = Game.new(seed=10_000 + seed, num_hands=2)
        while not game.is_over:
            view = game.view(game.current)
            assert h.act(view) in view.legal_actions()
            asked += 1
            game.apply(r.act(view))
    assert asked > 9000


def test_heuristic_refuses_a_view_without_a_decision():
    game = Game.new(seed=1)
    waiting = game.view(1 - game.current)
    with pytest.raises(ValueError, match="no legal action"):
        HeuristicAgent().act(waiting)


def test_heuristic_is_deterministic_and_an_agent():
    h = HeuristicAgent(seed=3)
    assert isinstance(h, Agent)
    game = Game.new(seed=5)
    view = game.view(game.current)
    h.reset(99)
    assert len({HeuristicAgent().act(view), h.act(view), h.act(view)}) == 1


def test_heuristic_weights_are_written_once_in_named_constants():
    import re

    from widderkopf_env.agents import heuristic

    weights = [*heuristic.TRUMP_CHOICE.values(), *heuristic.WIN_MODEL.values(),
               *heuristic.HeuristicAgent.ESCALATE_P]
    for w in heuristic.DISCARD_CHOICE.values():
        weights += w if isinstance(w, tuple) else [w]
    written = {abs(float(x)) for x in re.findall(r"\d*\.\d+", heuristic.__doc__)}
    assert not written & {abs(w) for w in weights if w}, "the docstring repeats a weight"


def test_heuristic_rejects_unknown_parameters():
    assert HeuristicAgent(X=8.0).X == 8.0 and HeuristicAgent().X != 8.0
    with pytest.raises(TypeError, match="unknown"):
        HeuristicAgent(x=1.0)


# --- scripted positions --------------------------------------------------------------------
# In a fresh one-hand match with dealer 0, player 1 names trumps (R9), both discard
# (player 1 first, R10), and player 1 leads the first trick (R12).

# Player 0 holds no spades and one trump, 6C; player 1 holds all the spades.
RUFF_DEAL = layout("6C 7H 8H 9H 7D 8D 9D 6H", "6D KD KH 10H AH",
                   "AS 10S KS 9S 8S 7S 6S QC", "QS QH QD JC JS")
# Player 0 holds no trumps at all (clubs trump) but the ace of hearts.
NO_TRUMP_DEAL = layout("AH 7H 8H 9H 7D 8D 9D 6H", "6D KD KH 10H 10D",
                       "QC AS 10S KS 9S 8S 7S 6S", "QS QH QD JC JS")


def test_takes_an_unprotected_ace_with_the_only_winning_card():
    game = Game.from_deal(RUFF_DEAL, dealer=0)
    play(game, "trump C", "6S", "9H", "AS")
    assert game.current == 0
    assert card_name(heuristic_move(game)) == "6C"


def test_ruffs_an_ace_when_it_has_two_trumps():
    deal = layout("6C QH 8H 9H 7D 8D 9D 6H", "6D KD KH 10H AH",
                  "AS 10S KS 9S 8S 7S 6S QC", "QS 7H QD JC JS")
    game = Game.from_deal(deal, dealer=0)
    play(game, "trump C", "6S", "9H", "AS")
    assert card_name(heuristic_move(game)) in ("6C", "QH")  # either wins 11+ points


def test_does_not_waste_a_trump_on_a_pointless_trick():
    game = Game.from_deal(RUFF_DEAL, dealer=0)
    play(game, "trump C", "AS", "9H", "6S")
    move = heuristic_move(game)
    assert card_name(move) != "6C" and POINTS[move] == 0


def test_does_not_throw_an_ace_onto_a_trick_already_lost():
    game = Game.from_deal(NO_TRUMP_DEAL, dealer=0)
    play(game, "trump C", "6S", "9H", "QC")
    view = game.view(0)
    assert parse_card("AH") in view.legal_actions()  # any card may be played
    assert POINTS[heuristic_move(game)] == 0


def test_takes_a_point_rich_trick_it_can_win_when_following():
    deal = layout("AS 7S 8H 9H 7D 8D 9D 6H", "6D KD KH 10H AH",
                  "QC 10S KS 9S 8S 6S QD JD", "QS 7H QH JC JS")
    game = Game.from_deal(deal, dealer=0)
    play(game, "trump C", "6S", "9H", "10S")
    assert card_name(heuristic_move(game)) == "AS"  # +21; 7S would give the 10 away


def test_discards_a_zero_point_card_that_voids_a_suit():
    deal = layout("AH 10H KH QD AD 10D KD 9S", "AC 10C KC 9H 9D",
                  "QC QS QH JC JS JH JD 6S", "8S 7S 6C 7C 8C")
    game = Game.from_deal(deal, dealer=1)  # player 0 names trumps and discards first
    play(game, "trump D")
    assert game.phase == Phase.DISCARD and game.current == 0
    assert card_name(heuristic_move(game)) == "9S"


def test_never_discards_the_spitzer_when_a_blank_card_will_do():
    # Clubs trump: 7C is the Spitzer (R5); 9D, 8D are blanks.
    deal = layout("7C 9C AS 10S KS 9D 8D AH", "AC QS QD JS KD",
                  "QC QH JC JH JD 6S 7S 8S", "10C KC 8C 6C 7D")
    game = Game.from_deal(deal, dealer=1)
    play(game, "trump C")
    move = heuristic_move(game)
    assert card_name(move) != "7C" and POINTS[move] == 0


def test_names_the_suit_with_the_most_trumps():
    deal = layout("QC QS 6C 7C 6S 6D 8D 9D", "JD JS JC 8C 9C",
                  "AH 10H KH 9H 8H 7H 6H QH", "AS 10S KS 9S 8S")
    game = Game.from_deal(deal, dealer=0)
    assert game.current == 1 and game.phase == Phase.TRUMP
    assert heuristic_move(game) == TRUMP_ACTION + 2  # hearts: seven of them

    # the same cards for the other player (seats swapped): still the long suit
    deal = {"player_0": deal["player_1"], "player_1": deal["player_0"]}
    game = Game.from_deal(deal, dealer=1)
    assert heuristic_move(game) == TRUMP_ACTION + 2


def test_cracks_a_monster_and_passes_with_a_weak_hand():
    deal = layout("6C 7C 8C 9S 8S 7S 6S 9H", "8H 7H 6H 9D 8D",
                  "QC QS QH QD JC JS JH 6D", "AC AS AH 10D KD")
    game = Game.from_deal(deal, dealer=0)
    play(game, "trump D", "6D", "9S")
    assert game.phase == Phase.PLAY and game.current == 1
    assert heuristic_move(game) == ESCALATE
    play(game, "crack")
    assert game.phase == Phase.ANSWER and game.current == 0
    assert heuristic_move(game) == PASS


# --- load_agent and the adapters -----------------------------------------------------------

def test_load_agent_names_paths_and_objects():
    assert isinstance(load_agent("heuristic"), HeuristicAgent)
    assert isinstance(load_agent("random", seed=1), RandomAgent)
    assert set(agent_names()) >= {"random", "heuristic"}
    obj = HeuristicAgent()
    assert load_agent(obj) is obj
    with pytest.raises(ValueError, match="known names: 'random', 'heuristic'"):
        load_agent("grandmaster")
    with pytest.raises(FileNotFoundError):
        load_agent("no/such/model.zip")


def test_policy_agent_sees_the_observation_and_mask():
    from widderkopf_env.observation import OBS_SIZE

    seen = []

    def first_legal(obs, mask):
        seen.append((obs.shape, obs.dtype.name, mask.shape, mask.dtype.name))
        return int(np.flatnonzero(mask)[0])

    agent = PolicyAgent(first_legal)
    game = Game.new(seed=3)
    while not game.is_over:
        view = game.view(game.current)
        action = agent.act(view)
        assert action == view.legal_actions()[0]
        game.apply(action)
    assert set(seen) == {((OBS_SIZE,), "float32", (42,), "int8")}

    bad = PolicyAgent(lambda obs, mask: int(np.flatnonzero(mask == 0)[0]))
    game = Game.new(seed=3)
    with pytest.raises(ValueError, match="illegal action"):
        bad.act(game.view(game.current))


def test_maskable_ppo_agent_needs_a_model():
    with pytest.raises(FileNotFoundError):
        MaskablePPOAgent("missing-model.zip")
    with pytest.raises(TypeError, match="MaskablePPO model"):
        MaskablePPOAgent(object())


def test_random_agent_is_reproducible():
    game = Game.new(seed=8)
    view = game.view(game.current)
    a, b = RandomAgent(4), RandomAgent(4)
    assert [a.act(view) for _ in range(20)] == [b.act(view) for _ in range(20)]
    rng = random.Random(0)
    assert all(RandomAgent(rng.random()).act(view) in view.legal_actions() for _ in range(20))


def test_maskable_ppo_agent_plays_a_saved_model(tmp_path):
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    from widderkopf_env.agents.arena import run_duplicate
    from widderkopf_env.gym_env import WidderkopfEnv

    path = tmp_path / "untrained.zip"
    MaskablePPO("MlpPolicy", WidderkopfEnv(opponent="random"), seed=0).save(path)
    agent = load_agent(str(path))
    assert isinstance(agent, MaskablePPOAgent) and agent.deterministic
    game = Game.new(seed=4)
    while not game.is_over:
        view = game.view(game.current)
        action = agent.act(view)
        assert action in view.legal_actions()
        game.apply(action)

    sampler = MaskablePPOAgent(path, deterministic=False)
    view = Game.new(seed=4).view(Game.new(seed=4).current)
    sampler.reset(1)
    first = [sampler.act(view) for _ in range(10)]
    sampler.reset(1)
    assert [sampler.act(view) for _ in range(10)] == first  # seeded sampling
    assert set(first) <= set(view.legal_actions())

    # by path in the arena: the agent is rebuilt from its file in each worker
    r = run_duplicate(MaskablePPOAgent(path), "random", 2, seed=0, workers=2)
    assert r.hands == 4
