"""``widderkopf-train --recipe NAME --minutes M``: the plan from a calibration (a pure
function: a faster machine gets more data, the floors hold, the plan fits the budget), the
command line's bounds, a run going on with its plan, and the summary's plan beside what
each stage got."""

from __future__ import annotations

import json
import math
from dataclasses import replace

import pytest
from helpers import usage_error
from hypothesis import given, settings
from hypothesis import strategies as st

from widderkopf_env.agents.shipped import NET_FILE
from widderkopf_env.train import train_cli
from widderkopf_env.train.recipes import budget
from widderkopf_env.train.recipes import run as recipe_run
from widderkopf_env.train.recipes.budget import BudgetTooSmall, Calibration, Plan, plan
from widderkopf_env.train.recipes.cli import report
from widderkopf_env.train.recipes.recipe import RECIPES, Recipe

NET, DEMO = RECIPES["net"], RECIPES["demo"]


def machine(speed: float = 1.0, seconds: float = 5.0) -> Calibration:
    """Figures of a machine ``speed`` times as fast as a reference one."""
    games = {"1-8/12": 0.05, "9-12/12": 0.5, "13-17/8": 0.3}
    return Calibration(
        clone_match=0.03 / speed, clone_rows=60.0, clone_row=3e-5 / speed,
        value_game={k: v / speed for k, v in games.items()},
        value_rows={"1-8/12": 11.0, "9-12/12": 7.0, "13-17/8": 9.0}, value_row=5e-5 / speed,
        pair=0.02 / speed, seconds=seconds)


def _data(r: Recipe) -> tuple[int, ...]:
    return (r.clone_shards * r.clone_matches,
            *(b.shards * b.games for b in r.values + r.values2))


def test_a_faster_machine_gets_more_data_in_the_same_minutes():
    slow, fast = plan(NET, machine(1.0), 60, 2), plan(NET, machine(3.0), 60, 2)
    assert all(f > s for f, s in zip(_data(fast.recipe), _data(slow.recipe), strict=True))
    assert fast.scale == pytest.approx(3 * slow.scale, rel=0.1)
    for p in (slow, fast):  # within the budget, and using it
        assert 0.85 * 3600 <= sum(p.seconds.values()) <= 3600
        assert p.recipe.final_pairs == NET.final_pairs and p.recipe.curve_pairs == NET.curve_pairs


@settings(max_examples=60, deadline=None)
@given(speed=st.floats(0.05, 50.0), minutes=st.floats(0.5, 600.0),
       workers=st.integers(1, 16), name=st.sampled_from(["net", "demo"]))
def test_every_plan_fits_its_budget_and_keeps_the_floors(speed, minutes, workers, name):
    recipe, cal = RECIPES[name], machine(speed, seconds=3.0)
    try:
        p = plan(recipe, cal, minutes, workers)
    except BudgetTooSmall as err:
        need = float(str(err).split("about ")[1].split(" minutes")[0])
        assert need > minutes
        assert plan(recipe, cal, need, workers).recipe is not None  # the smallest works
        return
    assert sum(p.seconds.values()) <= minutes * 60
    assert p.seconds["calibration"] == cal.seconds
    assert p.scale >= budget.MIN_SCALE
    floor = budget.sized(recipe, budget.MIN_SCALE, workers, pairs=0.0)
    assert all(g >= f for g, f in zip(_data(p.recipe), _data(floor), strict=True))
    for name_, least in budget.MIN_PAIRS.items():
        assert min(getattr(recipe, name_), least) <= getattr(p.recipe, name_) \
            <= getattr(recipe, name_)
    # the shape: each block's share of the value games is the recipe's (up to rounding)
    if p.scale >= 1:
        for b, b0 in zip(p.recipe.values, recipe.values, strict=True):
            assert b.shards * b.games == pytest.approx(p.scale * b0.shards * b0.games,
                                                       rel=0.05, abs=workers)


def test_a_machine_too_fast_to_time_stops_at_the_largest_scale():
    instant = Calibration(0.0, 60.0, 0.0, {k: 0.0 for k in machine().value_game},
                          machine().value_rows, 0.0, 0.0, 1.0)
    p = plan(NET, instant, 60, 2)
    assert budget.MAX_SCALE <= p.scale <= 2 * budget.MAX_SCALE


def test_a_budget_too_small_is_refused_naming_the_smallest():
    with pytest.raises(BudgetTooSmall, match=r"1 minutes are too few for the net recipe on "
                       r"this computer: its smallest run needs about [0-9.]+ minutes"):
        plan(NET, machine(1.0), 1, 2)
    with pytest.raises(ValueError, match="minutes must be a number > 0"):
        plan(NET, machine(), 0, 2)
    with pytest.raises(ValueError, match="without a PPO stage"):
        plan(Recipe("p", ppo_steps=1000), machine(), 60, 2)


def test_evaluation_pairs_shrink_only_when_the_data_floor_does_not_fit():
    cal = machine(1.0)

    def minutes(pairs):  # the budget the data's floor needs with this share of the pairs
        seconds = budget.planned_seconds(budget.sized(NET, budget.MIN_SCALE, 2, pairs), cal, 2)
        return (sum(seconds.values()) + cal.seconds) / budget.FILL / 60

    roomy = plan(NET, cal, minutes(1.0) * 1.01, 2)
    assert roomy.recipe.final_pairs == NET.final_pairs and roomy.scale > budget.MIN_SCALE
    tight = plan(NET, cal, (minutes(1.0) + minutes(0.0)) / 2, 2)
    assert tight.scale == budget.MIN_SCALE
    assert budget.MIN_PAIRS["final_pairs"] < tight.recipe.final_pairs < NET.final_pairs


def test_the_second_round_is_resized_from_what_the_first_took():
    p, workers = plan(NET, machine(1.0), 60, 2), 2
    done = ("clone", "values", "fit")
    elapsed = p.seconds["calibration"] + sum(p.seconds[s] for s in done) + p.seconds["curve"] / 3
    as_planned = p.second_round({s: p.seconds[s] for s in done}, elapsed, workers)
    assert 0.6 < as_planned["factor"] < 1.0  # the rest re-planned with SPARE to spare
    slower = p.second_round({s: 1.25 * p.seconds[s] for s in done}, 1.25 * elapsed, workers)
    faster = p.second_round({s: p.seconds[s] / 2 for s in done}, elapsed / 2, workers)
    assert faster["factor"] > as_planned["factor"] > slower["factor"] > budget.MIN_SCALE / p.scale

    def games(record):
        return sum(s * g for s, g, *_ in record["values2"])

    assert games(faster) > games(as_planned) > games(slower)
    for record, x in ((slower, 1.25), (as_planned, 1.0)):  # within the budget
        rest = sum(record["seconds"].values()) + x * (p.seconds["evaluate"]
                                                      + p.seconds["curve"] / 3)
        assert x * elapsed + rest <= 3600 * budget.FILL + 1
        assert record["end"] == pytest.approx(x * elapsed + rest, abs=1.0)  # overheads
    late = p.second_round({s: 3 * p.seconds[s] for s in done}, 3 * elapsed, workers)
    assert late["factor"] == pytest.approx(budget.MIN_SCALE / p.scale, rel=1e-3)  # the floor
    again = Plan.from_dict(p.as_dict() | {"second_round": slower})
    assert [list(b) for b in again.recipe.values2] == slower["values2"]
    assert again.recipe.values == p.recipe.values


@pytest.mark.parametrize("recipe", [DEMO, NET], ids=["demo", "net"])
def test_the_value_data_is_resized_from_what_the_clone_took(recipe):
    minutes, workers = recipe.minutes, 2
    p = plan(recipe, machine(1.0), minutes, workers)
    points = 2 + bool(recipe.values2)

    def after_clone(x):  # the clone (and the calibration, its curve point) took x times
        return p.first_round(x * (p.seconds["calibration"] + p.seconds["clone"]
                                  + p.seconds["curve"] / points), workers)

    as_planned, slower, faster = after_clone(1.0), after_clone(1.25), after_clone(0.5)
    assert 0.6 < as_planned["factor"] < 1.0  # the rest re-planned with SPARE to spare
    assert faster["factor"] > as_planned["factor"] > slower["factor"] > budget.MIN_SCALE / p.scale

    def games(record):
        return sum(s * g for s, g, *_ in record["values"] + record.get("values2", []))

    assert games(faster) > games(as_planned) > games(slower)
    for record in (slower, as_planned, faster):  # the rest planned within the budget
        assert record["end"] <= minutes * 60 * budget.FILL + 1
        assert set(record["seconds"]) == ({"values", "fit", "values2", "fit2"}
                                          if recipe.values2 else {"values", "fit"})
    again = Plan.from_dict(p.as_dict() | {"first_round": faster})
    assert [list(b) for b in again.recipe.values] == faster["values"]
    assert again.recipe.clone_shards == p.recipe.clone_shards
    assert again.scale == pytest.approx(p.scale * faster["factor"], rel=1e-3)
    assert again.seconds["values"] == faster["seconds"]["values"] and again.end == faster["end"]
    quicker = {k: v / 2 for k, v in p.calibration.value_game.items()}  # timed again
    retimed = p.first_round(p.seconds["calibration"] + p.seconds["clone"]
                            + p.seconds["curve"] / points, workers,
                            replace(p.calibration, value_game=quicker))
    assert games(retimed) > games(as_planned)
    assert Plan.from_dict(p.as_dict() | {"first_round": retimed}).calibration.value_game \
        == quicker
    if recipe.values2:  # the second round starts from the first's sizes
        second = again.second_round({s: again.seconds[s] for s in ("clone", "values", "fit")},
                                    faster["end"] - sum(again.seconds[s] for s in (
                                        "values2", "fit2", "evaluate")), workers)
        both = Plan.from_dict(p.as_dict() | {"first_round": faster, "second_round": second})
        assert both.recipe.values == again.recipe.values
        assert [list(b) for b in both.recipe.values2] == second["values2"]


def test_a_plan_survives_its_json():
    p = plan(DEMO, machine(2.0), 5, 2)
    back = Plan.from_dict(json.loads(json.dumps(p.as_dict())))
    assert back.recipe == p.recipe and back.calibration == p.calibration
    assert back.seconds == pytest.approx(p.seconds, abs=0.06)


def test_the_recipes_default_budgets():
    assert NET.minutes == 60 and DEMO.minutes == 5


def test_the_minutes_option_is_checked(capsys, tmp_path):
    for bad in ("-1", "nan", "inf", "ten", "20000"):
        err = usage_error(train_cli.main, ["--recipe", "demo", "--minutes", bad,
                                           "--out", str(tmp_path / "r")], capsys)
        assert "--minutes: expected a number from 0 to 10080, got" in err
    assert not (tmp_path / "r").exists()


def test_the_minutes_reach_the_run(tmp_path, monkeypatch, capsys):
    from widderkopf_env.train import demo
    from widderkopf_env.train.recipes import cli as recipe_cli

    got = []

    def run(recipe, out, *args, minutes=None, **kwargs):
        got.append((recipe.name, minutes))
        return {"curve": [], "stage_seconds": {}, "wall_seconds": 0.0, "final": None,
                "ladder": None}

    monkeypatch.setattr(recipe_cli, "run_recipe", run)
    for argv in ([], ["--minutes", "0"], ["--minutes", "12.5"]):
        assert train_cli.main(["--recipe", "net", "--out", str(tmp_path), *argv]) == 0
    assert got == [("net", 60.0), ("net", None), ("net", 12.5)]
    assert demo.build_parser().parse_args([]).minutes is None  # the recipe's, 5
    assert "sized for 60 minutes on this computer" in capsys.readouterr().out


def test_the_demo_runs_its_smallest_run_where_its_default_budget_is_too_small(
        tmp_path, monkeypatch, capsys):
    """``make demo`` on a machine too slow for 5 minutes runs the smallest run (planned for
    the minutes it needs) instead of refusing; a budget asked for is kept to (exit 2)."""
    from widderkopf_env.train import demo
    from widderkopf_env.train.recipes import run as recipe_run

    got = []

    def run(recipe, out, *args, minutes=None, **kwargs):
        got.append(minutes)
        if minutes < 7.0:
            raise budget.BudgetTooSmall(f"{minutes:g} minutes are too few", 7.0)
        return {"curve": [], "stage_seconds": {}, "wall_seconds": 0.0, "final": None,
                "ladder": None}

    monkeypatch.setattr(recipe_run, "run_recipe", run)
    assert demo.main(["--out", str(tmp_path / "d"), "--workers", "1"]) == 0
    assert got == [5.0, 7.7]
    assert "needs about 7 minutes for the demo's smallest run" in capsys.readouterr().out
    assert demo.main(["--out", str(tmp_path / "d"), "--workers", "1", "--minutes", "5"]) == 2
    assert "5 minutes are too few" in capsys.readouterr().err


def test_a_budget_too_small_exits_2_before_the_run_starts(capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(budget, "calibrate", lambda *a, **k: machine(0.01))
    assert train_cli.main(["--recipe", "demo", "--minutes", "0.5", "--out",
                           str(tmp_path / "r"), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "0.5 minutes are too few for the demo recipe" in err
    assert not (tmp_path / "r" / "recipe.json").exists()


# a recipe small enough for a test run, and figures that plan it at about its own sizes
TINY = Recipe("tiny", clone_shards=2, clone_matches=2, clone_epochs=1,
              values=((2, 2, 1, 4),), value_epochs=1, value_tricks=4, values2=((1, 2, 1, 4),),
              value_epochs2=1, curve_pairs=2, final_pairs=2, minutes=1.0)
TINY_CAL = Calibration(clone_match=4.0, clone_rows=60.0, clone_row=1e-3,
                       value_game={"1-4/12": 4.0}, value_rows={"1-4/12": 4.0},
                       value_row=1e-3, pair=0.2, seconds=0.1)


def test_a_run_goes_on_with_its_plan_and_reports_plan_and_actual(tmp_path, monkeypatch):
    from widderkopf_env.train import value_fit

    calibrations = []

    def fake(recipe, seed=0, log=None):
        calibrations.append(recipe.name)
        return TINY_CAL

    out, fit = tmp_path / "run", value_fit.fit_values
    monkeypatch.setattr(budget, "calibrate", fake)

    def stopped(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(value_fit, "fit_values", stopped)
    with pytest.raises(KeyboardInterrupt):
        recipe_run.run_recipe(TINY, out, seed=1, progress=False, minutes=1.0)
    first = json.loads((out / "recipe.json").read_text())
    assert calibrations == ["tiny"] and first["minutes"] == 1.0
    assert first["plan"]["sizes"]["clone"]["shards"] == first["plan"]["recipe"]["clone_shards"]
    monkeypatch.setattr(value_fit, "fit_values", fit)
    monkeypatch.setattr(budget, "calibrate", lambda *a, **k: pytest.fail("calibrated again"))
    summary = recipe_run.run_recipe(TINY, out, seed=1, progress=False, minutes=1.0)
    kept = json.loads((out / "recipe.json").read_text())["plan"]
    second = kept.pop("second_round")  # re-sized once, before the second round
    assert kept == first["plan"]
    [(shards, games, *_)] = second["values2"]
    assert len(list((out / "values2" / "1-4").glob("shard_*.npz"))) == shards
    assert summary["plan"]["sizes"]["values2"][0]["games"] == games
    assert summary["plan"]["stages"]["values2"]["planned"] == second["seconds"]["values2"]
    assert summary["plan"]["planned_seconds"] == second["end"] <= 60
    rows = summary["plan"]["stages"]
    assert list(rows) == ["clone", "values", "fit", "values2", "fit2", "evaluate", "other"]
    assert all(rows[s]["actual"] == summary["stage_seconds"][s] for s in summary["stage_seconds"])
    assert all(row["planned"] > 0 for row in rows.values())
    assert math.isclose(sum(r["actual"] for r in rows.values()), summary["wall_seconds"],
                        abs_tol=0.5)
    assert json.loads((out / "summary.json").read_text())["plan"] == summary["plan"]
    text = report(summary)
    assert "Plan for 1 minutes" in text
    assert f"  fit2      {rows['fit2']['planned']:9.0f} {rows['fit2']['actual']:9.0f}  1 epochs" \
        in text
    with pytest.raises(recipe_run.RunFolderError, match="another recipe, seed or budget"):
        recipe_run.run_recipe(TINY, out, seed=1, progress=False, minutes=2.0)
    with pytest.raises(recipe_run.RunFolderError, match="fixed sizes|1 minutes"):
        recipe_run.run_recipe(TINY, out, seed=1, progress=False)


def test_a_damaged_plan_is_refused_with_a_way_out(tmp_path, monkeypatch):
    out = tmp_path / "run"
    monkeypatch.setattr(budget, "calibrate", lambda *a, **k: TINY_CAL)

    def stopped(self, started):
        raise KeyboardInterrupt

    monkeypatch.setattr(recipe_run.Pipeline, "_clone", stopped)
    with pytest.raises(KeyboardInterrupt):
        recipe_run.run_recipe(TINY, out, seed=1, progress=False, minutes=1.0)
    state = json.loads((out / "recipe.json").read_text())
    del state["plan"]["calibration"]
    (out / "recipe.json").write_text(json.dumps(state))
    with pytest.raises(recipe_run.RunFolderError, match="the plan in recipe.json cannot be "
                       r"read \(KeyError\('calibration'\)\); --force-restart starts afresh"):
        recipe_run.run_recipe(TINY, out, seed=1, progress=False, minutes=1.0)


def test_the_calibration_times_every_stage_of_the_recipe():
    cal = budget.calibrate(TINY, seed=2)
    assert set(cal.value_game) == set(cal.value_rows) == {"1-4/12"}
    figures = [cal.clone_match, cal.clone_rows, cal.clone_row, cal.value_row, cal.pair,
               *cal.value_game.values(), *cal.value_rows.values()]
    assert all(math.isfinite(x) and x > 0 for x in figures)
    assert cal.clone_load >= 0 and cal.value_load >= 0 and cal.shard >= 0  # fixed costs
    again = budget.retimed(cal, TINY, NET_FILE, seed=2)  # played by the shipped net
    assert set(again.value_game) == {"1-4/12"} and again.value_game != cal.value_game
    assert all(x > 0 for x in (*again.value_game.values(), *again.value_rows.values()))
    assert again.clone_row == cal.clone_row and again.seconds > cal.seconds
    assert cal.seconds >= cal.clone_match * 2 + cal.pair * 4
