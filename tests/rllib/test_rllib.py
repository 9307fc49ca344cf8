"""widderkopf_env.rllib: the RLlib MultiAgentEnv, the RLModules, league self-play training,
checkpoints as agents. One local Ray (2 CPUs) is shared by the tests that need it."""

from __future__ import annotations

import argparse
import json
import random

import numpy as np
import pytest

pytest.importorskip("ray.rllib", reason="needs the [rllib] extra")

from ray.rllib.utils.pre_checks.env import check_multiagent_environments  # noqa: E402

from widderkopf_env.agents import HeuristicAgent, load_agent  # noqa: E402
from widderkopf_env.agents.arena import run_duplicate  # noqa: E402
from widderkopf_env.agents.rllib_checkpoint import RLlibAgent  # noqa: E402
from widderkopf_env.cards import MAX_HAND_VALUE  # noqa: E402
from widderkopf_env.observation import encode_with_mask  # noqa: E402
from widderkopf_env.rllib.env import WidderkopfMultiAgentEnv  # noqa: E402
from widderkopf_env.rules import Game, IllegalActionError  # noqa: E402
from widderkopf_env.train.rllib import cli as train  # noqa: E402
from widderkopf_env.train.rllib import league  # noqa: E402
from widderkopf_env.train.rllib.modules import ObservedView  # noqa: E402
from widderkopf_env.view import PlayerView  # noqa: E402


def play_episode(env, seed, choose):
    """Play one episode with ``choose(agent, obs) -> action``; returns the step records."""
    obs, _ = env.reset(seed=seed)
    steps = []
    while True:
        assert len(obs) == 1, "only the acting agent observes during play"
        (agent, o), = obs.items()
        action = choose(agent, o)
        nxt, rew, term, trunc, info = env.step({agent: action})
        steps.append((agent, o, action, rew, term, trunc, info, nxt))
        if term["__all__"]:
            return steps
        obs = nxt


def replay_beside(steps, game: Game) -> Game:
    """Replay an episode's ``steps`` on ``game`` (the engine's game of the same seed):
    each observation is the encoder run on the acting player's view (so nothing hidden,
    R8), and the rewards add up to the engine's zero-sum game points."""
    totals = {"player_0": 0.0, "player_1": 0.0}
    for agent, o, action, rew, *_ in steps:
        p = int(agent[-1])
        assert game.current == p
        obs, mask = encode_with_mask(PlayerView.of(game, p))
        np.testing.assert_array_equal(o["observations"], obs)
        np.testing.assert_array_equal(o["action_mask"], mask.astype(np.float32))
        game.apply(action)
        for a, r in rew.items():
            totals[a] += r
    assert game.is_over and game.returns() == [totals["player_0"], totals["player_1"]]
    return game


def random_choice(seed):
    rng = random.Random(seed)
    return lambda agent, o: int(rng.choice(np.flatnonzero(o["action_mask"])))


# --- the env ---------------------------------------------------------------------------------

def test_env_passes_rllib_checker_and_sampled_illegal_actions_terminate():
    env = WidderkopfMultiAgentEnv()
    for _ in range(30):  # the checker steps action_space.sample(): mostly illegal
        check_multiagent_environments(env)
    obs, _ = env.reset(seed=3)
    (agent, o), = obs.items()
    illegal = int(np.flatnonzero(o["action_mask"] == 0)[0])
    nxt, rew, term, trunc, info = env.step({agent: illegal})
    assert term == {"player_0": True, "player_1": True, "__all__": True}
    other = "player_1" if agent == "player_0" else "player_0"
    assert rew == {agent: -float(MAX_HAND_VALUE), other: 0.0}
    assert info[agent]["illegal_action"] is True and info[agent]["action"] == illegal
    assert not nxt[agent]["action_mask"].any()
    assert env.get_observation_space(agent).contains(nxt[agent])


def test_illegal_action_raise_mode_and_penalty_are_configurable():
    env = WidderkopfMultiAgentEnv({"illegal_action": "raise"})
    obs, _ = env.reset(seed=5)
    (agent, o), = obs.items()
    before = env.game.to_json()
    illegal = int(np.flatnonzero(o["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionError, match="legal"):
        env.step({agent: illegal})
    assert env.game.to_json() == before  # unchanged: a legal action still works
    env.step({agent: int(np.flatnonzero(o["action_mask"])[0])})
    env = WidderkopfMultiAgentEnv({"illegal_reward": -1.5, "num_hands": 3})
    obs, _ = env.reset(seed=5)
    (agent, o), = obs.items()
    _, rew, *_ = env.step({agent: int(np.flatnonzero(o["action_mask"] == 0)[0])})
    assert rew[agent] == -1.5
    obs, _ = env.reset(seed=1)
    with pytest.raises(IllegalActionError, match="0..41"):
        env.step({next(iter(obs)): 42})


@pytest.mark.parametrize("config, match", [
    ({"num_hand": 1}, r"unknown config key\(s\) \['num_hand'\]; allowed: "
                      r"\['illegal_action', 'illegal_reward', 'num_hands', 'obs_dtype', "
                      r"'variant'\]"),
    ({"num_hands": 0}, "num_hands'] must be a positive int"),
    ({"illegal_action": "ignore"}, "must be 'terminate' or 'raise'"),
    ({"illegal_reward": "x"}, "must be a number or None"),
    ({"variant": "huge"}, r"config\['variant'\] must be one of tiny, small, medium, full, "
                          "got 'huge'"),
    ({"obs_dtype": "float64"}, r"config\['obs_dtype'\]: obs_dtype must be np.float32"),
])
def test_bad_config_names_what_is_allowed(config, match):
    with pytest.raises(ValueError, match=match):
        WidderkopfMultiAgentEnv(config)


@pytest.mark.parametrize("variant", ["tiny", "medium"])
def test_variant_config_deals_the_variant_and_passes_the_checker(variant):
    """config["variant"]: the episode is the engine's game of that variant on the same
    seed, observed through the same encoder, with the variant's game points."""
    from widderkopf_env import VARIANTS

    env = WidderkopfMultiAgentEnv({"variant": variant})
    check_multiagent_environments(env)
    for seed in range(4):
        steps = play_episode(env, seed, random_choice(seed))
        assert env.game.variant is VARIANTS[variant]
        game = replay_beside(steps, Game.new(seed=env.game.seed, variant=variant))
        assert sum(game.results[0].card_points) == VARIANTS[variant].total_points


def test_compact_observations_pass_the_checker():
    """config["obs_dtype"] = "uint8": the compact observation, in its space."""
    env = WidderkopfMultiAgentEnv({"obs_dtype": "uint8"})
    check_multiagent_environments(env)
    obs, _ = env.reset(seed=2)
    (agent, o), = obs.items()
    assert o["observations"].dtype == np.uint8
    assert env.get_observation_space(agent).contains(o)


def test_bad_config_type():
    with pytest.raises(TypeError, match="config must be a dict or None"):
        WidderkopfMultiAgentEnv([("num_hands", 1)])


def test_episode_follows_the_engine_and_observations_are_the_players_view():
    """Random legal play: every observation equals the encoder run on that player's view
    (so nothing hidden, R8), rewards are the engine's zero-sum game points, and the same
    seed replays the same episode."""
    env = WidderkopfMultiAgentEnv({"num_hands": 2})
    for seed in range(6):
        steps = play_episode(env, seed, random_choice(seed))
        replay_beside(steps, Game.new(seed=env.game.seed, num_hands=2))
        again = play_episode(env, seed, random_choice(seed))
        assert [s[2] for s in again] == [s[2] for s in steps]


def test_heuristic_module_plays_as_the_heuristic_without_trick_history():
    """The view rebuilt from an observation drives HeuristicAgent exactly as the real
    view does once the trick history (which observations lack) is removed."""
    bot, rng = HeuristicAgent(), random.Random(0)
    checked = 0
    for seed in range(25):
        game = Game.new(seed=seed)
        while not game.is_over:
            p = game.current
            view = PlayerView.of(game, p)
            obs, mask = encode_with_mask(view)
            view.tricks = ()
            seen = ObservedView(obs, mask)
            assert bot.act(seen) == bot.act(view)
            if view.trump >= 0:  # the escalation estimate, exactly (dealer, cards, ...)
                assert bot.win_probability(seen) == bot.win_probability(view)
            checked += 1
            game.apply(rng.choice(game.legal_actions()))
    assert checked > 500


def test_league_mapping_puts_main_in_one_seat_of_every_episode():
    class Ep:
        def __init__(self, i):
            self.id_ = f"episode-{i}"

    seen = set()
    for i in range(400):
        ep = Ep(i)
        pair = [league.league_mapping(a, ep, slots=3, self_play=0.2, heuristic=0.2)
                for a in ("player_0", "player_1")]
        assert "main" in pair
        seen.add(pair[0] if pair[1] == "main" else pair[1])
    assert seen == {"main", "heuristic", "league_0", "league_1", "league_2"}


# --- the command line ------------------------------------------------------------------------

@pytest.mark.parametrize("argv, message", [
    (["--iterations", "1", "--num-env-runners", "-1"],
     "--num-env-runners: expected an integer in 0..1,024"),
    (["--iterations", "1", "--self-play-share", "0.7", "--heuristic-share", "0.5"], "must be <= 1"),
    (["--batch-size", "500", "--iteration-steps", "100", "--iterations", "1"], "must not exceed"),
    ([], "give --iterations or --minutes"),
    (["--iterations", "0"], "--iterations: expected an integer in 1..10,000,000"),
    (["--iterations", "1", "--net-arch", "64,0"], "--net-arch: expected at most 8 comma-separated"),
    (["--iterations", "1", "--self-play-share", "nan"], "--self-play-share: expected a number from 0 to 1"),
    (["--iterations", "1", "--resume-from", "/nonexistent"], "not a checkpoint"),
    (["--iterations", "1", "--variant", "huge"], "--variant: invalid choice: 'huge'"),
])
def test_cli_usage_errors_exit_2(argv, message, capsys):
    with pytest.raises(SystemExit) as exc:
        train.main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "usage: widderkopf-train-rllib" in err and message in err


# --- training on a local Ray ---------------------------------------------------------------

@pytest.fixture(scope="module")
def local_ray():
    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


def tiny_args(out, *extra) -> argparse.Namespace:
    p = train.parser()
    args = p.parse_args(["--iterations", "2", "--num-env-runners", "0", "--iteration-steps", "128",
                         "--batch-size", "64", "--epochs", "1", "--net-arch", "32",
                         "--eval-pairs", "2", "--eval-every", "0", "--checkpoint-every", "1",
                         "--snapshot-return", "-1000", "--out", str(out), *extra])
    train.check_args(p, args)
    return args


def test_self_play_ppo_trains_checkpoints_resumes_and_plays(local_ray, tmp_path):
    """Two PPO iterations of league self-play with masking (the env raises on any illegal
    action, so one would fail the run), a snapshot each iteration, a checkpoint that loads
    as an Agent and plays a duplicate match, and a resume that carries on from it."""
    args = tiny_args(tmp_path / "run")
    config = train.build_config(args)
    # RLlib's checker steps sampled (illegal) actions: it is tested on its own above
    config.environment(env_config={"illegal_action": "raise"}, disable_env_checking=True)
    lines = []
    summary = train.run(args, log=lines.append, config=config)
    assert summary["iteration"] == 2
    assert summary["league"] == [[1, "league_0"], [2, "league_1"]]
    assert [ln.split(":")[0] for ln in lines[:2]] == ["iter 1", "iter 2"]
    ckpt = summary["checkpoint"]
    assert ckpt.endswith("checkpoint_000002")
    assert json.loads((tmp_path / "run" / "checkpoint_000002" / "league.json").read_text())[
        "snapshots"] == 2
    ev = summary["evaluations"][-1]
    assert ev["iteration"] == 2 and set(ev) == {"random", "heuristic", "iteration"}

    agent = load_agent(ckpt)
    result = run_duplicate(agent, "random", pairs=3, seed=1, workers=1, progress=False)
    assert result.pairs == 3 and result.hands == 6
    again = run_duplicate(load_agent(ckpt), "random", pairs=3, seed=1, workers=1,
                          progress=False)
    assert again.mean == result.mean  # deterministic play, same deals
    sampled = [run_duplicate(RLlibAgent(ckpt, deterministic=False), "random", pairs=2, seed=4,
                             workers=1, progress=False).mean for _ in range(2)]
    assert sampled[0] == sampled[1]  # sampling is seeded by the arena's reset(seed)

    # resume: one more iteration starts from the checkpoint's iteration and league
    args2 = tiny_args(tmp_path / "run", "--iterations", "1", "--resume-from", ckpt,
                      "--eval-pairs", "0")
    summary2 = train.run(args2, log=lines.append)
    assert summary2["iteration"] == 3
    assert summary2["league"][:2] == [[1, "league_0"], [2, "league_1"]]
    assert summary2["league"][2] == [3, "league_2"]


def test_variant_trains_and_evaluates_on_that_variant(local_ray, tmp_path, monkeypatch):
    """--variant tiny: the env config names the variant, the env runners deal it and the
    evaluations play duplicate pairs of its deals; the default is the full game."""
    from widderkopf_env import VARIANTS
    from widderkopf_env.agents import arena

    dealt, real = [], arena.run_duplicate

    def recording(*args, **kwargs):
        dealt.append(kwargs.get("variant"))
        return real(*args, **kwargs)

    monkeypatch.setattr(arena, "run_duplicate", recording)
    assert train.build_config(tiny_args(tmp_path / "full")).env_config == {"variant": "full"}
    args = tiny_args(tmp_path / "tiny", "--variant", "tiny", "--iterations", "1")
    config = train.build_config(args)
    assert config.env_config == {"variant": "tiny"}
    algo = config.build_algo()
    try:
        summary = train._train(algo, args, log=lambda line: None)
        assert algo.env_runner.env.envs[0].unwrapped.game.variant is VARIANTS["tiny"]
    finally:
        algo.stop()
    assert summary["iteration"] == 1 and dealt == ["tiny", "tiny"]  # random, heuristic


def test_checkpoint_agent_rejects_bad_paths(tmp_path):
    with pytest.raises(ValueError, match="unknown agent .*an RLlib checkpoint directory"):
        load_agent(str(tmp_path))
    with pytest.raises(FileNotFoundError, match="no RLlib checkpoint directory"):
        RLlibAgent(tmp_path / "missing")


@pytest.mark.parametrize("seed, error", [(-1, ValueError), (10**5000, ValueError),
                                         ("3", TypeError), (True, TypeError)],
                         ids=["negative", "huge", "str", "bool"])
def test_a_bad_reset_seed_raises_as_in_every_env_and_changes_nothing(seed, error):
    """The same check as the AEC, Gymnasium and vector envs (widderkopf_env.checks)."""
    env = WidderkopfMultiAgentEnv()
    obs, _ = env.reset(seed=5)
    with pytest.raises(error, match="seed must be None or a non-negative int"):
        env.reset(seed=seed)
    again = WidderkopfMultiAgentEnv()
    assert {k: v["observations"].tolist() for k, v in again.reset(seed=5)[0].items()} == {
        k: v["observations"].tolist() for k, v in obs.items()}
    env.reset(seed=np.int64(5))  # numpy ints are seeds like Python ints
