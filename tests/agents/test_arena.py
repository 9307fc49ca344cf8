"""The duplicate arena: the swap really swaps, results are reproducible, statistics add up."""

from __future__ import annotations

import json
import math

import pytest

from widderkopf_env import Game
from widderkopf_env.agents import HeuristicAgent, RandomAgent
from widderkopf_env.agents.arena import (
    GameRecord,
    mean_ci95,
    play_pair,
    run_duplicate,
    summarise,
    swapped_deal,
)


def _numbers(result) -> dict:
    """Everything but the wall time and the number of workers."""
    d = result.to_dict()
    del d["seconds"], d["workers"]
    return d


def test_swapped_deal_gives_the_same_cards_to_the_other_seat_and_swaps_the_dealer():
    for seed in range(20):
        game = Game.new(seed=seed)
        twin = swapped_deal(game)
        (h0, u0, d0), (h1, u1, d1) = game.deals[0]
        assert twin.deals[0] == ((h1, u1, d1), (h0, u0, d0))
        assert twin.dealer == 1 - game.dealer
        assert twin.chooser == 1 - game.chooser  # the non-dealer names trumps (R9)
        assert twin.current == 1 - game.current
        assert twin.hand[0] == game.hand[1] and twin.upbits[1] == game.upbits[0]


class Recorder:
    """Remembers the first view it gets after each reset (what it was dealt)."""

    def __init__(self, inner):
        self.inner, self.first = inner, []

    def reset(self, seed=None):
        self.first.append(None)
        if hasattr(self.inner, "reset"):
            self.inner.reset(seed)

    def act(self, view):
        if self.first[-1] is None:
            self.first[-1] = (view.hand | view.my_up, view.player == view.dealer)
        return self.inner.act(view)


def test_a_pair_gives_each_agent_the_other_agents_cards():
    a, b = Recorder(HeuristicAgent()), Recorder(RandomAgent())
    for index in range(5):
        play_pair(a, b, seed=11, index=index)
        (a1, a_dealt1), (a2, a_dealt2) = a.first[-2:]
        (b1, b_dealt1), (b2, b_dealt2) = b.first[-2:]
        assert a1 == b2 and b1 == a2 and a1 != b1  # same physical cards, other agent
        assert a_dealt1 == b_dealt2 and a_dealt2 == b_dealt1 and a_dealt1 != a_dealt2


def test_identical_deterministic_agents_cancel_exactly():
    r = run_duplicate("heuristic", "heuristic", 40, seed=3, workers=1)
    assert r.mean == 0.0 and r.sd_pair == 0.0 and r.win_rate == 0.5
    assert r.card_points == pytest.approx(60.5)
    assert r.cracks["by_a"]["hands"] == r.cracks["by_b"]["hands"]


def test_same_seed_same_numbers_for_any_number_of_workers():
    one = run_duplicate("heuristic", "random", 24, seed=5, workers=1)
    again = run_duplicate("heuristic", "random", 24, seed=5, workers=1)
    two = run_duplicate("heuristic", "random", 24, seed=5, workers=2, chunk=5)
    assert _numbers(one) == _numbers(again) == _numbers(two)
    other = run_duplicate("heuristic", "random", 24, seed=6, workers=1)
    assert _numbers(other) != _numbers(one)


def test_agent_objects_and_factories_are_accepted():
    by_name = run_duplicate("random", "heuristic", 10, seed=2, workers=1)
    by_object = run_duplicate(RandomAgent(), HeuristicAgent(), 10, seed=2, workers=2)
    by_factory = run_duplicate(RandomAgent, HeuristicAgent, 10, seed=2, workers=1)
    assert _numbers(by_name) | {"agent_a": "", "agent_b": ""} == \
        _numbers(by_object) | {"agent_a": "", "agent_b": ""} == \
        _numbers(by_factory) | {"agent_a": "", "agent_b": ""}
    assert by_object.agent_a == "random" and by_object.agent_b == "heuristic"


def test_summary_statistics_and_json():
    r = run_duplicate("heuristic", "random", 30, seed=1, workers=1)
    assert r.pairs == 30 and r.hands == 60
    lo, hi = r.ci95
    assert lo < r.mean < hi
    assert (hi - lo) / 2 == pytest.approx(1.959964 * r.sd_pair / math.sqrt(30), rel=1e-6)
    assert r.mean > 0.5 and r.win_rate > 0.7  # the heuristic beats random clearly
    assert sum(r.cracks["levels"]) == 60
    assert 0 <= r.schneider["a"] <= 1 and 0 <= r.schwarz["b"] <= 1
    d = json.loads(json.dumps(r.to_dict()))
    assert {"mean", "ci95", "win_rate", "hands", "pairs", "seconds"} <= set(d)
    assert "game points per hand" in r.table()


def test_one_interval_function_serves_the_arena_and_the_ladder():
    from widderkopf_env.agents.ladder import Matchup

    scores = [1.0, 0.0, -2.0, 0.5, 0.0, 3.5]
    mean, sd, (lo, hi) = mean_ci95(scores)
    assert mean == math.fsum(scores) / 6
    assert sd == pytest.approx(math.sqrt(16 / 5))
    assert (hi - lo) / 2 == pytest.approx(1.959964 * sd / math.sqrt(6), rel=1e-6)
    assert mean_ci95([2.0]) == (2.0, 0.0, (-math.inf, math.inf))
    assert Matchup.from_scores("a", "b", scores).ci95 == (lo, hi)
    r = run_duplicate("heuristic", "random", 8, seed=3, workers=1)
    assert (r.mean, r.sd_pair, r.ci95) == mean_ci95(r.pair_scores)


def test_summarise_by_hand():
    # pair records: (A points, A won, value, schneider, schwarz, level, cracker,
    #                recracker, A card points)
    win = GameRecord(2.0, True, 2, False, False, 1, 0, -1, 70)
    loss = GameRecord(-1.0, False, 1, False, False, 0, -1, -1, 50)
    schneider_loss = GameRecord(-4.0, False, 4, True, False, 1, 1, -1, 20)
    r = summarise([(win, loss), (win, schneider_loss)], "a", "b", seed=0)
    assert r.mean == pytest.approx(((2 - 1) / 2 + (2 - 4) / 2) / 2)
    assert r.win_rate == 0.5 and r.card_points == pytest.approx(52.5)
    assert r.schneider == {"a": 0.0, "b": 0.25}
    assert r.cracks["levels"] == [1, 3, 0, 0, 0]
    assert r.cracks["by_a"]["hands"] == 2 and r.cracks["by_a"]["a_win_rate"] == 1.0
    assert r.cracks["by_b"] == {"hands": 1, "a_win_rate": 0.0, "a_mean": -4.0, "recracked": 0}


def test_bad_pairs_are_rejected():
    with pytest.raises(ValueError, match="pairs"):
        run_duplicate("random", "random", 0)


def test_the_arena_and_widderkopf_eval_deal_a_variant(capsys):
    import json

    from widderkopf_env import VARIANTS, load_agent
    from widderkopf_env.agents.arena import play_pair, run_duplicate
    from widderkopf_env.agents.eval_cli import main

    res = run_duplicate("heuristic", "random", pairs=4, seed=2, workers=1, variant="tiny")
    assert res.hands == 8 and res.card_points <= VARIANTS["tiny"].total_points
    bot = load_agent("heuristic")
    first, second = play_pair(bot, bot, seed=2, index=0, variant="small")
    assert first.card_points + second.card_points == VARIANTS["small"].total_points
    assert main(["heuristic", "random", "--pairs", "3", "--variant", "small", "--workers",
                 "1", "--json", "--no-progress"]) == 0
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert out["hands"] == 6 and out["card_points"] <= VARIANTS["small"].total_points
    with pytest.raises(ValueError, match="tiny, small, medium, full"):
        run_duplicate("heuristic", "random", pairs=1, workers=1, variant="huge")
