"""``widderkopf-train --recipe``: the pipeline from nothing to one agent file, its curve, and
going on after a stop (each stage's outputs verified by their sha256)."""

from __future__ import annotations

import dataclasses
import json
import os

import numpy as np
import pytest
from helpers import plays_legal_moves, usage_error

from widderkopf_env.agents import load_agent
from widderkopf_env.agents.heuristic import HeuristicAgent
from widderkopf_env.agents.net_agent import NetAgent
from widderkopf_env.train import train_cli
from widderkopf_env.train.distill_data import generate_shard
from widderkopf_env.train.recipes import run as recipe_run
from widderkopf_env.train.recipes.recipe import RECIPES, Recipe, RunState
from widderkopf_env.train.run_folder import RunFolderError

# a recipe small enough for a test: every stage runs, on a handful of games
TINY = Recipe("tiny", clone_shards=2, clone_matches=2, clone_epochs=1,
              values=((2, 3, 1, 4), (1, 2, 16, 17, 4)), value_random=0.1,
              value_epochs=1, value_tricks=17, values2=((1, 2, 1, 4),), value_epochs2=1,
              curve_pairs=2, final_pairs=2)
TINY_PPO = Recipe("tiny-ppo", clone_shards=1, clone_matches=1, clone_epochs=1,
                  ppo_steps=16384, ppo_legs=2, values=((1, 2, 1, 3),), value_epochs=1,
                  value_tricks=3, curve_pairs=1, final_pairs=1, ladder_pairs=1)


def _mtimes(folder):
    return {p: p.stat().st_mtime_ns for p in folder.rglob("*") if p.is_file()
            and p.name not in ("recipe.json", "recipe.log", "summary.json")}


@pytest.fixture(scope="module")
def done(tmp_path_factory):
    out = tmp_path_factory.mktemp("recipe") / "run"
    lines = []
    from widderkopf_env.train import value_data

    calls, generate = [], value_data.generate_values

    def recorded(*args, **kwargs):
        calls.append((args, kwargs))
        return generate(*args, **kwargs)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(value_data, "generate_values", recorded)
        summary = recipe_run.run_recipe(TINY, out, seed=3, workers=1, progress=False,
                                        log=lines.append)
    return out, summary, lines, calls


def test_the_recipe_ends_with_one_agent_file_and_its_figures(done):
    out, summary, lines, _ = done
    agent = load_agent(str(out / "agent.npz"))
    assert isinstance(agent, NetAgent) and agent.tricks == TINY.value_tricks
    plays_legal_moves(agent, 3)
    assert json.loads((out / "summary.json").read_text()) == summary
    assert summary["recipe"] == "tiny" and summary["final_pairs"] == 2
    assert set(summary["final"]) == {"heuristic", "net"}
    assert list(summary["stage_seconds"]) == ["clone", "values", "fit", "values2", "fit2",
                                              "evaluate"]
    assert summary["wall_seconds"] >= sum(summary["stage_seconds"].values()) - 1
    assert any(line.startswith("stage values") for line in lines)
    assert (out / "recipe.log").read_text().splitlines() == lines


def test_the_curve_is_measured_after_each_stage_on_the_same_deals(done):
    out, summary, *_ = done
    curve = summary["curve"]
    assert [p["stage"] for p in curve] == ["clone", "card values", "card values 2"]
    minutes = [p["minutes"] for p in curve]
    assert minutes == sorted(minutes) and minutes[-1] <= summary["wall_seconds"] / 60 + 0.01
    for p in curve:
        for opp in ("heuristic", "net"):
            r = p[opp]
            assert r["pairs"] == 2 and r["ci95"][0] <= r["mean"] <= r["ci95"][1]
    assert (out / "curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_every_file_the_docs_promise_is_in_the_run_folder(done):
    """The files of a finished run named by the recipe's docstring and the Training page
    (``OUT/...``) exist: a promise that nothing keeps fails here."""
    import re

    from helpers import ROOT

    from widderkopf_env.train.recipes import recipe

    out = done[0]
    page = (ROOT / "docs" / "training.md").read_text(encoding="utf-8")
    section = page.split("\n## From nothing to a strong agent", 1)[1].split("\n## ", 1)[0]
    promised = set(re.findall(r"OUT/([\w./]+\w)", section))
    promised |= set(re.findall(r"``([\w/]+\.(?:json|png|npz|log))``", recipe.__doc__))
    promised |= set(re.findall(r"^    ((?:\w+\.\w+  )+\w+\.\w+)$", section, re.M)[0].split())
    assert {"agent.npz", "summary.json", "curve.png", "recipe.json"} <= promised
    missing = sorted(name for name in promised if not (out / name).is_file())
    assert not missing, f"promised but not written: {missing}"


def test_value_blocks_use_their_exact_depth_and_the_random_share(done):
    """Early positions (16-17 tricks left) get rollout values down to their block's
    exact depth (the others: exact, 12); every block plays the recipe's share of random
    moves."""
    from widderkopf_env.observation import OFFSETS

    out, _, _, calls = done
    assert [(a[4], a[6], a[7]) for a, _ in calls] == [((1, 4), 0.1, 12), ((16, 17), 0.1, 4),
                                                      ((1, 4), 0.1, 12)]
    rows = np.concatenate([np.load(f)["obs"] for f in (out / "values" / "16-17").glob("*.npz")])
    done_tricks = np.rint(rows[:, OFFSETS["tricks_done"][0]] * 17)
    assert len(rows) and set(done_tricks) <= {0, 1}


def test_clone_data_is_labelled_with_the_heuristics_move():
    data = generate_shard(0, seed=1, matches=1, mix=(0.9, 0.0, 0.1), expert="heuristic")
    assert len(data["action"]) > 20 and np.isnan(data["values"]).all()
    # replay: every stored label is what the heuristic plays at that position
    import random

    from widderkopf_env.observation import encode_with_mask
    from widderkopf_env.rules import Game

    rng, bot = random.Random(1 * 1_000_003 + 0), HeuristicAgent()
    game = Game.new(seed=(1 * 1_000_003) * 1000, num_hands=rng.randint(1, 3))
    row = 0
    while not game.is_over:
        view = game.view(game.current)
        legal = view.legal_actions()
        if len(legal) == 1:
            game.apply(legal[0])
            continue
        assert np.array_equal(encode_with_mask(view)[0], data["obs"][row])
        assert data["action"][row] == bot.act(view)
        row += 1
        move = bot.act(view) if rng.random() < 0.9 else rng.choice(legal)
        game.apply(move)
    assert row == len(data["action"])


def test_an_unknown_expert_is_refused():
    with pytest.raises(ValueError, match="expert must be one of pimc, pimc-uniform, heuristic"):
        generate_shard(0, seed=1, matches=1, expert="oracle")


def test_the_second_round_is_played_by_the_first_rounds_agent(done):
    """DAgger: the second round's games are played by the agent of the first fit, and
    the last fit reads both rounds' data."""
    out, _, lines, calls = done
    players = [a[5] for a, _ in calls]
    assert players == [str(out / "clone" / "policy.npz")] * 2 + [str(out / "values" / "agent.npz")]
    assert isinstance(load_agent(players[2]), NetAgent)
    first, second = (int(x.split()[0]) for x in lines if "positions from" in x)
    sizes = {d: sum(len(np.load(f)["game"]) for f in (out / d).rglob("shard_*.npz"))
             for d in ("values", "values2")}
    assert (first, second) == (sizes["values"], sizes["values"] + sizes["values2"])


def test_the_last_fit_may_read_the_second_round_alone(done, monkeypatch):
    """``refit_both=False`` (the ``net`` recipe): the last fit reads only the second
    round's shards, still starting from the first fit's network."""
    out = done[0]
    r = dataclasses.replace(TINY, refit_both=False)
    fits = []
    monkeypatch.setattr(recipe_run.Pipeline, "_fit_values",
                        lambda self, stage, data, epochs, started, label, init=None:
                        fits.append((stage, [name for name, _ in data], init is not None)))
    runner = recipe_run.Pipeline(r, out, 3, 1, RunState(out, r, 3), False, None)
    try:
        runner._fit2(0.0)
    finally:
        runner._logfile.close()
    assert fits == [("fit2", ["values2"], True)]
    assert RECIPES["net"].refit_both is False and TINY.refit_both is True


def test_a_rerun_of_a_finished_run_redoes_nothing(done, tmp_path):
    out, summary, *_ = done
    before = _mtimes(out)
    again = recipe_run.run_recipe(TINY, out, seed=3, workers=1, progress=False)
    assert _mtimes(out) == before
    assert again["curve"] == summary["curve"] and again["final"] == summary["final"]


def test_a_damaged_output_is_redone_with_the_stages_after_it(tmp_path):
    out = tmp_path / "run"
    recipe_run.run_recipe(TINY, out, seed=1, workers=1, progress=False)
    before = _mtimes(out)
    agent = out / "agent.npz"
    agent.write_bytes(agent.read_bytes()[:-10] + b"0123456789")  # corrupted, same size
    lines = []
    recipe_run.run_recipe(TINY, out, seed=1, workers=1, progress=False, log=lines.append)
    assert [x for x in lines if x.startswith("stage ")] == ["stage fit2", "stage evaluate"]
    after = _mtimes(out)
    assert all(after[p] == t for p, t in before.items()
               if {"clone", "values", "values2"} & set(p.parts))
    assert load_agent(str(agent)) is not None
    assert len(json.loads((out / "recipe.json").read_text())["curve"]) == 4


def stopped_in(module, name: str, out, seed: int) -> None:
    """Run TINY in ``out`` with ``module.name`` raising KeyboardInterrupt (a Ctrl-C in
    it); the real function is back afterwards."""
    def stopped(*a, **k):
        raise KeyboardInterrupt

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(module, name, stopped)
        with pytest.raises(KeyboardInterrupt):
            recipe_run.run_recipe(TINY, out, seed=seed, workers=1, progress=False)


def test_a_stop_in_a_stage_goes_on_from_there(tmp_path):
    from widderkopf_env.train import value_fit

    out = tmp_path / "run"
    stopped_in(value_fit, "fit_values", out, seed=2)
    state = json.loads((out / "recipe.json").read_text())
    assert set(state["stages"]) == {"clone", "values"} and state["seconds"] > 0
    kept = _mtimes(out / "clone")
    lines = []
    summary = recipe_run.run_recipe(TINY, out, seed=2, workers=1, progress=False,
                                    log=lines.append)
    assert [x for x in lines if x.startswith("stage ")] == ["stage fit", "stage values2",
                                                            "stage fit2", "stage evaluate"]
    assert _mtimes(out / "clone") == kept
    assert summary["wall_seconds"] >= state["seconds"]


def test_ppo_runs_in_legs_and_the_ladder_rates_the_agent(tmp_path):
    out = tmp_path / "run"
    summary = recipe_run.run_recipe(TINY_PPO, out, seed=0, workers=1, progress=False)
    assert [p["stage"] for p in summary["curve"]] == ["clone", "ppo 8,192", "ppo 16,384",
                                                       "card values"]
    assert json.loads((out / "ppo" / "summary.json").read_text())["steps"] == 16384
    assert list(summary["stage_seconds"]) == ["clone", "ppo", "values", "fit", "evaluate"]
    assert summary["ladder"]["ci95"][0] <= summary["ladder"]["rating"] <= summary["ladder"]["ci95"][1]


def test_the_folder_is_checked_before_anything_is_written(done, tmp_path):
    out, *_ = done
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    with pytest.raises(RunFolderError, match="holds no recipe run"):
        recipe_run.run_recipe(TINY, other, progress=False)
    with pytest.raises(RunFolderError, match="files that are not a run's"):
        recipe_run.run_recipe(TINY, other, force_restart=True, progress=False)
    assert sorted(os.listdir(other)) == ["notes.txt"]
    with pytest.raises(RunFolderError, match="another recipe, seed or budget"):
        recipe_run.run_recipe(TINY, out, seed=4, progress=False)


def test_the_recipe_command_line(capsys):
    assert "demo" in RECIPES and "net" in RECIPES
    err = usage_error(train_cli.main, ["--recipe", "huge"], capsys)
    assert "--recipe: invalid choice: 'huge'" in err
    err = usage_error(train_cli.main, ["--recipe", "demo", "--workers", "0"], capsys)
    assert "--workers: expected an integer in 1..32" in err
    with pytest.raises(SystemExit) as exc:
        train_cli.main(["--recipe", "demo", "--help"])
    assert exc.value.code == 0
    text = capsys.readouterr().out
    assert "widderkopf-train --recipe" in text and "net:" in text
