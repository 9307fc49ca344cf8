"""Training and exploiting on a smaller variant: ``widderkopf-train --variant`` and
``widderkopf-exploit --variant`` train and evaluate on that variant's deals (the batched
engine, ``--vec-env native``, too); unknown names are refused; runs saved before the
option read as the full game."""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers import usage_error

pytest.importorskip("sb3_contrib")

from widderkopf_env import VARIANTS  # noqa: E402
from widderkopf_env.train import config as train_config  # noqa: E402
from widderkopf_env.train import exploit as exploit_module  # noqa: E402
from widderkopf_env.train.build import make_vec_env  # noqa: E402
from widderkopf_env.train.ppo import build_parser, parse_config, train_from_args  # noqa: E402

TINY_POINTS = VARIANTS["tiny"].total_points  # 17 card points in a tiny hand
QUICK = ["--net-arch", "16,16", "--n-steps", "64", "--batch-size", "64", "--epochs", "1",
         "--eval-every", "0", "--eval-pairs", "8", "--workers", "1",
         "--final-eval-pairs", "24", "--checkpoint-every", "0", "--crack-after", "0",
         "--no-progress", "--quiet"]


def test_train_on_the_tiny_variant_plays_and_evaluates_tiny_deals(tmp_path):
    out = tmp_path / "tiny"
    summary = train_from_args(["--total-steps", "128", "--n-envs", "2", "--variant", "tiny",
                               "--out", str(out), *QUICK])
    assert json.loads((out / "config.json").read_text())["variant"] == "tiny"
    for opponent, result in summary["final"].items():
        assert result["pairs"] == 24
        # A's mean card points per hand: a tiny hand holds 17 (the full game's 121)
        assert 0 <= result["card_points"] <= TINY_POINTS, (opponent, result)


def test_train_on_the_native_vec_env_plays_the_variant(tmp_path):
    """--vec-env native --variant tiny: the batched engine trains on tiny deals (a hand is
    worth at most the variant's largest value) and the run evaluates on them."""
    out = tmp_path / "native"
    summary = train_from_args(["--total-steps", "128", "--n-envs", "2", "--vec-env", "native",
                               "--opponent", "random", "--variant", "tiny", "--out", str(out),
                               *QUICK])
    saved = json.loads((out / "config.json").read_text())
    assert (saved["variant"], saved["vec_env"], summary["steps"]) == ("tiny", "native", 128)
    for opponent, result in summary["final"].items():
        assert 0 <= result["card_points"] <= TINY_POINTS, (opponent, result)
    cfg = parse_config(["--n-envs", "4", "--vec-env", "native", "--opponent", "random",
                        "--variant", "small", "--no-reward-shaping", "--out",
                        "/nonexistent-h31b"])
    env = make_vec_env(cfg, 0)
    env.reset()
    assert env.venv.game.variant is VARIANTS["small"]
    ended, rng = 0, np.random.default_rng(0)
    for _ in range(40):
        masks = env.action_masks()
        _, rewards, dones, infos = env.step((rng.random(masks.shape) * masks).argmax(1))
        for i in np.flatnonzero(dones):
            ended += 1
            assert 1 <= abs(infos[i]["game_points"]) <= VARIANTS["small"].max_hand_value
    assert ended > 4
    env.close()


def test_the_training_envs_deal_the_variant():
    cfg = parse_config(["--n-envs", "2", "--variant", "small", "--out", "/nonexistent-h31b"])
    vec_env = make_vec_env(cfg, 0)
    vec_env.reset()
    for env in vec_env.envs:
        assert env.unwrapped.game.variant is VARIANTS["small"]
    full = parse_config(["--n-envs", "1", "--out", "/nonexistent-h31b"])
    assert full.variant == "full"
    env = make_vec_env(full, 0)
    env.reset()
    assert env.envs[0].unwrapped.game.variant is VARIANTS["full"]


@pytest.mark.parametrize("argv, message", [
    (["--variant", "huge"], "--variant: invalid choice: 'huge'"),
    (["--variant", "huge", "--vec-env", "native"], "--variant: invalid choice: 'huge'"),
])
def test_train_refuses_a_variant_it_cannot_play(argv, message, capsys, tmp_path):
    with pytest.raises(SystemExit) as exit_info:
        parse_config([*argv, "--out", str(tmp_path / "x")], build_parser())
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_a_config_saved_before_variants_reads_as_the_full_game():
    from widderkopf_env.train.config_file import to_json

    saved = to_json(train_config.resolve(train_config.TrainConfig(out="runs/x")))
    del saved["variant"]
    assert train_config.check_saved(saved).variant == "full"
    with pytest.raises(ValueError, match=r"'variant' = 'huge': expected one of"):
        train_config.check_saved({**saved, "variant": "huge"})


def test_exploit_trains_and_measures_on_the_variant(monkeypatch):
    played = []
    real = exploit_module.run_duplicate

    def spy(*args, **kwargs):
        played.append(kwargs.get("variant"))
        return real(*args, **kwargs)

    monkeypatch.setattr(exploit_module, "run_duplicate", spy)
    res = exploit_module.exploit("first-legal", steps=128, n_envs=2, eval_pairs=12,
                                 curve_pairs=6, workers=1, init="none", variant="tiny")
    assert res["variant"] == "tiny" and res["edge"]["pairs"] == 12
    assert played and set(played) == {"tiny"}  # every curve point and the final edge
    with pytest.raises(ValueError, match="unknown variant 'huge'"):
        exploit_module.exploit("first-legal", steps=128, variant="huge")


def test_exploit_cli_takes_variant(capsys):
    parsed = exploit_module.build_parser().parse_args(["heuristic", "--variant", "tiny"])
    assert parsed.variant == "tiny"
    assert "--variant: invalid choice: 'huge'" in usage_error(
        exploit_module.main, ["heuristic", "--variant", "huge"], capsys)
