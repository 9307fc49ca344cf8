"""``--algo mmd`` (:class:`widderkopf_env.train.mmd.MMD`): MaskablePPO plus
``magnet_coef * KL(pi || magnet)``. The KL is exact over the legal actions; during a
training step the policy's entropy term carries ``ent_coef * entropy - magnet_coef * KL``
with ``ent_coef`` 1, which MaskablePPO's loss turns into the MMD loss; the magnet is
replaced on its schedule, and it is saved with the model and loaded back."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import torch as th  # noqa: E402
from sb3_contrib import MaskablePPO  # noqa: E402

from widderkopf_env.train.build import new_model  # noqa: E402
from widderkopf_env.train.mmd import MMD, masked_kl  # noqa: E402
from widderkopf_env.train.ppo import parse_config  # noqa: E402
from widderkopf_env.train.selfplay import SymmetricSelfPlayVecEnv  # noqa: E402


def model_of(tmp_path, *argv):
    cfg = parse_config(["--variant", "tiny", "--self-play-symmetric", "--algo", "mmd",
                        "--n-envs", "4", "--n-steps", "64", "--batch-size", "64",
                        "--net-arch", "32,32", "--out", str(tmp_path), *argv])
    return new_model(cfg, SymmetricSelfPlayVecEnv(cfg, seed=0))


def test_the_kl_is_exact_over_the_legal_actions():
    rng = np.random.default_rng(0)
    p, q = rng.normal(size=(6, 42)), rng.normal(size=(6, 42))
    masks = (rng.random((6, 42)) < 0.3).astype(np.float32)
    masks[:, 0] = 1
    got = masked_kl(th.tensor(p), th.tensor(q), th.tensor(masks)).numpy()
    for row in range(6):
        legal = masks[row] > 0
        a = np.exp(p[row][legal]) / np.exp(p[row][legal]).sum()
        b = np.exp(q[row][legal]) / np.exp(q[row][legal]).sum()
        assert got[row] == pytest.approx(np.sum(a * np.log(a / b)))
    assert masked_kl(th.tensor(p), th.tensor(p), th.tensor(masks)).abs().max() < 1e-9


def test_maskableppos_loss_takes_the_entropy_term_as_mmd_relies_on():
    source = inspect.getsource(MaskablePPO.train)
    assert "entropy_loss = -th.mean(entropy)" in source
    assert "loss = policy_loss + self.ent_coef * entropy_loss" in source


def test_a_training_step_sees_the_mmd_regulariser(tmp_path, monkeypatch):
    model = model_of(tmp_path, "--ent-coef", "0.07", "--magnet-coef", "0.5", "--lr", "0.01")
    model.learn(256)  # one rollout and update: the policy moved away from the magnet
    seen = {}

    def fake_train(self):
        batch = next(self.rollout_buffer.get(64))
        actions = batch.actions.long().flatten()
        _, _, term = self.policy.evaluate_actions(batch.observations, actions,
                                                  action_masks=batch.action_masks)
        seen.update(ent_coef=self.ent_coef, term=term.detach(), batch=batch)

    monkeypatch.setattr(MaskablePPO, "train", fake_train)
    model.train()
    batch = seen["batch"]
    dist = model.policy.get_distribution(batch.observations, batch.action_masks)
    magnet = model.magnet.get_distribution(batch.observations, batch.action_masks)
    masks = th.as_tensor(batch.action_masks).reshape(dist.distribution.logits.shape)
    kl = masked_kl(dist.distribution.logits, magnet.distribution.logits, masks)
    assert seen["ent_coef"] == 1.0 and model.ent_coef == 0.07
    assert kl.mean() > 1e-4
    assert th.allclose(seen["term"], 0.07 * dist.entropy() - 0.5 * kl, atol=1e-6)
    assert "evaluate_actions" not in vars(model.policy)  # the policy's own method again


def test_the_magnet_is_replaced_every_n_updates_and_saved(tmp_path):
    model = model_of(tmp_path, "--magnet-every", "2")
    first = {k: v.clone() for k, v in model.magnet.state_dict().items()}
    model.learn(256)
    assert all(th.equal(first[k], v) for k, v in model.magnet.state_dict().items())
    model.learn(256, reset_num_timesteps=False)  # the second update: replaced
    now = model.policy.state_dict()
    assert all(th.equal(now[k], v) for k, v in model.magnet.state_dict().items())
    model.learn(256, reset_num_timesteps=False)
    model.save(tmp_path / "m.zip")
    back = MMD.load(tmp_path / "m.zip", device="cpu")
    assert (back.magnet_coef, back.magnet_every, back.magnet_updates) == (0.025, 2, 1)
    assert all(th.equal(model.magnet.state_dict()[k], v)
               for k, v in back.magnet.state_dict().items())
    plain = MaskablePPO.load(tmp_path / "m.zip", device="cpu")  # plays as a PPO model
    obs = np.zeros((1, 540), np.float32)
    assert np.array_equal(plain.policy.predict_values(th.tensor(obs)).detach().numpy(),
                          back.policy.predict_values(th.tensor(obs)).detach().numpy())


def test_a_negative_coefficient_is_refused(capsys):
    with pytest.raises(SystemExit):
        parse_config(["--algo", "mmd", "--magnet-coef", "-1"])
    assert "--magnet-coef" in capsys.readouterr().err
