"""Loading models: load_agent checks a model zip's spaces and rejects files that are not
models with a ValueError naming the file; the shipped policy is read without pickle."""

from __future__ import annotations

import random
import zipfile

import gymnasium
import numpy as np
import pytest
from gymnasium import spaces

from widderkopf_env import Game
from widderkopf_env.agents import load_agent
from widderkopf_env.agents.network_file import load_policy, save_policy
from widderkopf_env.agents.shipped import POLICY_FILE
from widderkopf_env.observation import OBS_SIZE

pytest.importorskip("sb3_contrib")

from sb3_contrib import MaskablePPO  # noqa: E402

from widderkopf_env.agents.sb3_model import MaskablePPOAgent  # noqa: E402


class Spaces(gymnasium.Env):
    """An env with given spaces, only to build models for them."""

    def __init__(self, obs, act):
        self.observation_space, self.action_space = obs, act


def save_model(path, obs=None, act=None):
    obs = obs or spaces.Box(0.0, 1.0, (OBS_SIZE,), np.float32)
    act = act or spaces.Discrete(42)
    MaskablePPO("MlpPolicy", Spaces(obs, act), policy_kwargs={"net_arch": [8]}, n_steps=64,
                batch_size=64, device="cpu").save(path)
    return str(path)


def test_a_fitting_model_loads_and_plays_legal_moves(tmp_path):
    agent = load_agent(save_model(tmp_path / "good.zip"))
    rng = random.Random(0)
    game = Game.new(seed=3)
    while not game.is_over:
        p = game.current_player
        game.apply(agent.act(game.view(p)) if p == 0 else rng.choice(game.legal_actions()))


@pytest.mark.parametrize("obs, act, expected, found", [
    (spaces.Box(0.0, 1.0, (100,), np.float32), None, "Box(shape=(540,), float32)", "(100,)"),
    (spaces.Box(0.0, 1.0, (OBS_SIZE,), np.float64), None, "float32", "float64"),
    (None, spaces.Discrete(10), "Discrete(42)", "Discrete(10)"),
    (None, spaces.MultiDiscrete([42, 2]), "Discrete(42)", "MultiDiscrete"),
])
def test_a_model_for_other_spaces_is_rejected_on_load(tmp_path, obs, act, expected, found):
    path = save_model(tmp_path / "other.zip", obs, act)
    with pytest.raises(ValueError, match="does not fit the Widderkopf envs") as err:
        load_agent(path)
    message = str(err.value)
    assert path in message and expected in message and found in message
    model = MaskablePPO.load(path, device="cpu")  # an in-memory model: the same check
    with pytest.raises(ValueError, match=r"expected, found"):
        MaskablePPOAgent(model)


def write_zip(path, entries: dict) -> str:
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return str(path)


@pytest.mark.parametrize("kind", ["text", "empty", "zip without model", "damaged model",
                                  "truncated model"])
def test_a_file_that_is_not_a_model_gives_a_value_error_naming_it(tmp_path, kind):
    path = tmp_path / "model.zip"
    if kind == "text":
        path.write_text("not a model\n")
        expected = "not a zip archive"
    elif kind == "empty":
        path.write_bytes(b"")
        expected = "not a zip archive"
    elif kind == "zip without model":
        write_zip(path, {"readme.txt": "hello"})
        expected = "a zip archive without the 'data', 'policy.pth' entries"
    elif kind == "damaged model":
        write_zip(path, {"data": "{not json", "policy.pth": b"\0" * 16})
        expected = "cannot load it as a MaskablePPO model"
    else:
        data = open(save_model(tmp_path / "good.zip"), "rb").read()
        path.write_bytes(data[:len(data) // 2])  # (what remains may hold a .pth's zip end)
        expected = "is not a saved MaskablePPO model"
    with pytest.raises(ValueError) as err:
        load_agent(str(path))
    assert str(path) in str(err.value) and expected in str(err.value), str(err.value)


def test_shipped_policy_is_plain_arrays_and_pickles_are_refused(tmp_path):
    with np.load(POLICY_FILE, allow_pickle=False) as data:  # would raise on object arrays
        assert all(data[k].dtype != object for k in data.files)
    # a policy file that smuggles in a pickled object is refused, not run
    weights = load_policy(POLICY_FILE)
    path = tmp_path / "policy.npz"
    save_policy(weights, path)
    assert load_policy(path)["activation"] == weights["activation"]
    arrays = dict(np.load(path))
    arrays["activation"] = np.array([{"a": 1}], dtype=object)
    np.savez(path, **arrays)
    with pytest.raises(ValueError, match="allow_pickle"):
        load_policy(path)
