"""TorchRL's ``PettingZooWrapper`` over ``widderkopf_env.env()``, alone and batched
(``SerialEnv``, ``ParallelEnv``), with random and masked rollouts.

The batched envs' random actions ignore the mask (their action spec carries none): those
rollouts must run, each illegal action ending its episode with the documented penalty.
A masked policy (TorchRL's ``MaskedCategorical`` over each group's ``action_mask``) must
play every hand to its end.
"""

from __future__ import annotations

import warnings

import pytest

import widderkopf_env
from widderkopf_env.cards import MAX_HAND_VALUE

pytest.importorskip("torchrl")
import torch  # noqa: E402
from torchrl.envs import ParallelEnv, SerialEnv  # noqa: E402
from torchrl.envs.libs.pettingzoo import PettingZooWrapper  # noqa: E402
from torchrl.modules import MaskedCategorical  # noqa: E402

MIN_DECISIONS = 37  # trump, two discards, 34 cards
GROUPS = ("player_0", "player_1")

pytestmark = pytest.mark.filterwarnings(
    "ignore:PettingZoo in TorchRL is tested using version",
    "ignore:an illegal action ended the episode",
)


def make_env() -> PettingZooWrapper:
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="PettingZoo in TorchRL is tested")
        return PettingZooWrapper(env=widderkopf_env.env(), use_mask=True)


def masked_policy(td):
    """Each group's action from its ``action_mask`` (TorchRL sets the non-acting group's
    mask to all True; its action is not used)."""
    for group in GROUPS:
        mask = td[group, "action_mask"]
        td[group, "action"] = MaskedCategorical(logits=torch.zeros(mask.shape),
                                                mask=mask).sample()
    return td


def episode_lengths(done: torch.Tensor) -> list[int]:
    """Lengths of the episodes that ended in a ``[batch, time]`` done tensor."""
    lengths = []
    for row in done:
        start = 0
        for t in torch.nonzero(row).flatten().tolist():
            lengths.append(t + 1 - start)
            start = t + 1
    return lengths


def rewards(td) -> torch.Tensor:
    """``[..., 2]``: both groups' rewards at each step."""
    return torch.stack([td["next", g, "reward"].reshape(td.shape) for g in GROUPS], dim=-1)


def test_single_env_random_rollout_uses_the_updated_mask():
    env = make_env()
    env.set_seed(0)
    td = env.rollout(200)  # stops at the end of the hand
    assert td.shape[0] >= MIN_DECISIONS and td["next", "done"][-1].all()
    assert rewards(td).sum() == 0 and rewards(td).abs().sum() > 0  # zero-sum game points


@pytest.mark.parametrize("batched", ["serial", "parallel"])
def test_batched_random_and_masked_rollouts(batched):
    if batched == "serial":
        env = SerialEnv(2, make_env)
    else:  # fork: spawned workers would each import torch and torchrl again (seconds each)
        env = ParallelEnv(2, make_env, mp_start_method="fork")
    try:
        env.set_seed(0)
        td = env.rollout(60, break_when_any_done=False)  # random actions, no mask
        done = td["next", "done"].reshape(td.shape)
        assert done.sum() >= 10  # most random actions are illegal and end the episode
        assert (rewards(td)[done] == -MAX_HAND_VALUE).any(dim=-1).all()

        td = env.rollout(80, masked_policy, break_when_any_done=False)
        lengths = episode_lengths(td["next", "done"].reshape(td.shape))
        assert len(lengths) >= 2 and min(lengths) >= MIN_DECISIONS
        assert rewards(td).sum() == 0
    finally:
        env.close()
