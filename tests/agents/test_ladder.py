"""The ladder: the Elo fit on synthetic results with known strengths, the bootstrap, the
probe bots, and ``widderkopf-eval AGENT --ladder`` on a small budget."""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest
from helpers import usage_error

from widderkopf_env import Game
from widderkopf_env.agents import HeuristicAgent
from widderkopf_env.agents.arena import play_game, run_duplicate
from widderkopf_env.agents.eval_cli import main as eval_main
from widderkopf_env.agents.ladder import (
    Matchup,
    bootstrap_ratings,
    expected_score,
    fit_ratings,
    load_reference,
    run_ladder,
)
from widderkopf_env.agents.probes import AlwaysCrackAgent, FirstLegalAgent, NoTrumpsAgent
from widderkopf_env.cards import ESCALATE, TRUMP_MASK
from widderkopf_env.rules import Phase

TRUE = {"random": 0.0, "weak": 150.0, "mid": 420.0, "strong": 900.0, "best": 1010.0}


def synthetic(true: dict, pairs: int, seed: int, draw_share: float = 0.3) -> list:
    """Round-robin outcome counts drawn from the model itself: the stronger side's expected
    score is expected_score(gap); draws take ``draw_share`` of the closer outcomes."""
    rng = np.random.default_rng(seed)
    names = list(true)
    out = []
    for i, b in enumerate(names):
        for a in names[i + 1:]:
            p = float(expected_score(true[a] - true[b]))
            d = draw_share * 2 * min(p, 1 - p)
            w, dr, lo = rng.multinomial(pairs, [p - d / 2, d, 1 - p - d / 2])
            out.append(Matchup(a, b, int(w), int(dr), int(lo), 0.0, (0.0, 0.0)))
    return out


def test_expected_score_is_elo():
    assert float(expected_score(400)) == pytest.approx(10 / 11)
    assert float(expected_score(0)) == 0.5
    assert float(expected_score(-200)) == pytest.approx(1 - float(expected_score(200)))


def test_fit_recovers_known_strengths():
    matchups = synthetic(TRUE, pairs=3000, seed=1)
    fitted = fit_ratings(matchups, {"random": 0.0})
    assert fitted["random"] == 0.0
    for name, r in TRUE.items():
        assert fitted[name] == pytest.approx(r, abs=35), (name, fitted)
    order = sorted(fitted, key=fitted.get)
    assert order == list(TRUE)


def test_bootstrap_intervals_cover_the_truth_and_shrink_with_pairs():
    fixed = {"random": 0.0}
    small = bootstrap_ratings(synthetic(TRUE, 300, seed=2), fixed, seed=0, samples=400)
    large = bootstrap_ratings(synthetic(TRUE, 3000, seed=2), fixed, seed=0, samples=400)
    for name in ("weak", "mid", "strong"):
        lo, hi = large[name]
        assert lo <= TRUE[name] <= hi, (name, lo, hi)
        assert hi - lo < (small[name][1] - small[name][0]) * 0.6
    assert small["random"] == (0.0, 0.0)


def test_placing_one_agent_against_fixed_baselines():
    truth = dict(TRUE, agent=600.0)
    matchups = [m for m in synthetic(truth, 3000, seed=3) if "agent" in (m.a, m.b)]
    fixed = {k: v for k, v in TRUE.items()}
    assert fit_ratings(matchups, fixed)["agent"] == pytest.approx(600, abs=30)
    # a clean sweep still has a finite rating, above every beaten baseline
    sweep = [Matchup("agent", b, 50, 0, 0, 1.0, (1.0, 1.0)) for b in TRUE]
    r = fit_ratings(sweep, fixed)["agent"]
    assert TRUE["best"] < r < TRUE["best"] + 1500


def test_unlinked_players_are_an_error():
    linked = Matchup("c", "random", 5, 0, 5, 0.0, (0, 0))
    with pytest.raises(ValueError, match=r"no chain of matchups links \['a', 'b'\]"):
        fit_ratings([Matchup("a", "b", 5, 0, 5, 0.0, (0, 0)), linked], {"random": 0.0})
    with pytest.raises(ValueError, match="anchor"):
        fit_ratings([Matchup("a", "b", 5, 0, 5, 0.0, (0, 0))], {})


def test_matchup_counts_pair_outcomes():
    m = Matchup.from_scores("a", "b", [1.0, 0.0, -2.0, 0.5, 0.0])
    assert (m.wins, m.draws, m.losses, m.pairs) == (2, 2, 1, 5)
    assert m.score == pytest.approx(0.6)
    assert m.mean == pytest.approx(-0.1)


def test_arena_result_keeps_pair_scores_out_of_json():
    res = run_duplicate("heuristic", "random", 6, seed=3, workers=1, progress=False)
    assert len(res.pair_scores) == 6
    assert float(np.mean(res.pair_scores)) == pytest.approx(res.mean)
    assert "pair_scores" not in res.to_dict()


def test_reference_file_is_consistent():
    ref = load_reference()
    players = ref["players"]
    assert players[ref["anchor"]]["rating"] == 0.0
    matchups = [Matchup.from_dict(m) for m in ref["matchups"]]
    refit = fit_ratings(matchups, {ref["anchor"]: 0.0})
    for name, p in players.items():
        assert refit[name] == pytest.approx(p["rating"], abs=0.1)
        assert p["ci95"][0] <= p["rating"] <= p["ci95"][1]


# --- the probe bots --------------------------------------------------------------------------

def _decisions(agent, seeds=range(6)):
    """(view, action) for every decision ``agent`` makes as player 0 against the heuristic."""
    out = []

    class Spy:
        def act(self, view):
            a = agent.act(view)
            out.append((view, a))
            return a

    for s in seeds:
        play_game(Game.new(seed=s), (Spy(), HeuristicAgent()))
    return out


def test_always_crack_escalates_whenever_it_may():
    seen = _decisions(AlwaysCrackAgent())
    may = [(v, a) for v, a in seen if v.legal >> ESCALATE & 1]
    assert may and all(a == ESCALATE for _, a in may)


def test_no_trumps_never_plays_a_trump_by_choice():
    chose = 0
    for v, a in _decisions(NoTrumpsAgent(), seeds=range(10)):
        trumps = TRUMP_MASK[v.trump] if v.trump >= 0 else 0
        if v.phase == Phase.PLAY and a < 36 and v.legal & ~trumps & ((1 << 36) - 1):
            assert not trumps >> a & 1
            chose += 1
    assert chose > 20


def test_first_legal_is_deterministic_and_cracks():
    seen = _decisions(FirstLegalAgent(), seeds=range(3))
    for v, a in seen:
        legal = v.legal_actions()
        assert a == (ESCALATE if ESCALATE in legal else legal[0])


# --- the command line ------------------------------------------------------------------------

def _ladder_json(capsys, agent, *extra):
    assert eval_main([agent, "--ladder", "--baselines", "random,heuristic", "--pairs", "12",
                      "--seed", "5", "--workers", "1", "--json", "--no-progress", *extra]) == 0
    return json.loads(capsys.readouterr().out.strip().splitlines()[-1])


def test_ladder_json_orders_random_below_heuristic(capsys):
    rnd = _ladder_json(capsys, "random")
    heu = _ladder_json(capsys, "heuristic")
    assert rnd["ci95"][1] < heu["ci95"][0], (rnd["ci95"], heu["ci95"])
    assert rnd["ci95"][0] <= rnd["rating"] <= rnd["ci95"][1]
    assert [m["b"] for m in heu["matchups"]] == ["random", "heuristic"]
    assert all(m["pairs"] == 12 for m in heu["matchups"])
    # the agent is itself a baseline: kept apart, and a deterministic bot draws itself
    assert heu["agent"] == "heuristic (this run)"
    assert heu["matchups"][1]["draws"] == 12


def test_ladder_same_seed_same_numbers():
    a = run_ladder("heuristic", pairs=8, seed=1, workers=1, baselines=["random"], samples=200,
                   progress=False)
    b = run_ladder("heuristic", pairs=8, seed=1, workers=2, baselines=["random"], samples=200,
                   progress=False)
    da, db = a.to_dict(), b.to_dict()
    for d in (da, db):
        d.pop("seconds")
        for m in d["matchups"]:
            m.pop("seconds")
    assert da == db


def test_time_budget_stops_early():
    res = run_ladder("random", pairs=100_000, seed=0, workers=1, time_budget=1.0,
                     baselines=["random", "heuristic"], samples=100, progress=False)
    assert all(1 <= m.pairs < 100_000 for m in res.matchups)


@pytest.mark.parametrize("argv, message", [
    (["random", "heuristic", "--ladder"], "drop AGENT_B"),
    (["random", "--time-budget", "5"], "go with --ladder"),
    (["random", "--ladder", "--time-budget", "-1"], "--time-budget: expected a number > 0"),
    (["random", "--ladder", "--baselines", "random,nobody"], "--baselines"),
    (["nobody", "--ladder"], "unknown agent"),
    (["random"], "AGENT_B is required"),
])
def test_ladder_usage_errors(argv, message, capsys):
    assert message in usage_error(eval_main, argv, capsys)


def test_ladder_table_and_plot(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    png = tmp_path / "ladder.png"
    assert eval_main(["heuristic", "--ladder", "--baselines", "random", "--pairs", "4",
                      "--workers", "1", "--no-progress", "--plot", str(png)]) == 0
    out = capsys.readouterr().out
    assert "Elo, 95% CI" in out and "random" in out
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_ladder_plot_without_matplotlib_names_the_extra(monkeypatch, capsys, tmp_path):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib fails
    err = usage_error(eval_main, ["random", "--ladder", "--plot", str(tmp_path / "x.png")],
                      capsys)
    assert "widderkopf-env[train]" in err
    assert not (tmp_path / "x.png").exists()
