"""Sizes are checked before any allocation or write: a bound too large is a clear
``ValueError`` (or exit status 2 with one line), never a memory traceback or a state left
unusable (issue 38)."""

from __future__ import annotations

import pytest
from helpers import usage_error

from widderkopf_env.checks import MAX_HANDS


def test_the_vector_env_refuses_a_num_envs_beyond_its_bound():
    from widderkopf_env.vector.env import MAX_NUM_ENVS, WidderkopfVectorEnv

    for n in (10**12, MAX_NUM_ENVS + 1):
        with pytest.raises(ValueError, match=f"num_envs must be an int in 1..{MAX_NUM_ENVS:,}"):
            WidderkopfVectorEnv(num_envs=n)
    env = WidderkopfVectorEnv(num_envs=2)  # the class is still usable
    env.reset(seed=0)
    env.close()


@pytest.mark.parametrize("params", [{"num_hands": MAX_HANDS + 1},
                                    {"variant": "tiny", "num_hands": 10**9},
                                    {"num_hands": 0}])
def test_openspiel_refuses_num_hands_beyond_the_engines_bound(params):
    pyspiel = pytest.importorskip("pyspiel")
    import widderkopf_env.openspiel  # noqa: F401 (registers python_widderkopf)

    with pytest.raises(ValueError, match=f"num_hands must be an int in 1..{MAX_HANDS:,}"):
        pyspiel.load_game("python_widderkopf", params)


def test_openspiel_plays_a_game_at_the_largest_num_hands():
    pyspiel = pytest.importorskip("pyspiel")
    import widderkopf_env.openspiel  # noqa: F401

    for variant in ("full", "tiny"):
        game = pyspiel.load_game("python_widderkopf", {"variant": variant,
                                                       "num_hands": MAX_HANDS})
        state = game.new_initial_state()
        for _ in range(60):  # the deal's chance actions and some play
            if state.is_terminal():
                break
            if state.is_chance_node():
                state.apply_action(state.chance_outcomes()[0][0])
            else:
                state.apply_action(state.legal_actions()[0])
        assert game.max_game_length() > MAX_HANDS


def test_exploit_refuses_a_rollout_too_large_at_once(capsys):
    pytest.importorskip("sb3_contrib")
    from widderkopf_env.train.exploit import MAX_ROLLOUT, exploit, main

    err = usage_error(main, ["heuristic", "--n-steps", "100000000000", "--steps", "1000"],
                      capsys)
    assert f"--n-steps: expected an integer in 1..{MAX_ROLLOUT:,}" in err
    err = usage_error(main, ["heuristic", "--n-steps", str(MAX_ROLLOUT), "--n-envs", "2",
                             "--steps", "1000"], capsys)
    assert f"--n-steps x --n-envs must be at most {MAX_ROLLOUT:,}" in err
    assert "Traceback" not in err and "MemoryError" not in err
    with pytest.raises(ValueError, match="n_steps x n_envs must be at most"):
        exploit("heuristic", 1000, n_steps=10**11)
    err = usage_error(main, ["heuristic", "--n-envs", "100000000"], capsys)
    assert "--n-envs: expected an integer in 1.." in err
