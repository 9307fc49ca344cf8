"""The one torch fit loop (src/widderkopf_env/train/fit.py): minibatches, early stopping, the best epoch kept."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from widderkopf_env.train.fit import fit, layer_arrays, relu_mlp  # noqa: E402


def _setup(scores):
    w = torch.nn.Parameter(torch.zeros(1))
    seen, batches, lines = [], [], []

    def batch_loss(rows):
        batches.append(sorted(rows.tolist()))
        return ((w - 10.0) ** 2).mean()

    def held_out():
        seen.append(float(w.detach()))
        score = scores[len(seen) - 1]
        return score, f"score {score}"

    return w, seen, batches, lines, batch_loss, held_out


def test_fit_stops_early_and_keeps_the_best_epoch():
    w, seen, batches, lines, batch_loss, held_out = _setup([3.0, 1.0, 2.0, 1.5, 0.5])
    best = fit([w], batch_loss, held_out, np.arange(10), np.random.default_rng(0), epochs=5,
               batch=4, lr=0.1, patience=2, criterion="score", log=lines.append)
    assert best == 1.0
    assert len(seen) == 4  # epochs 3 and 4 did not improve: stopped before the 5th
    assert float(w.detach()) == seen[1]  # the parameters of the best (2nd) epoch
    assert [len(b) for b in batches[:3]] == [4, 4, 2]  # every row once per epoch
    assert sorted(sum(batches[:3], [])) == list(range(10))
    assert lines[1].startswith("epoch 2/5: train loss ") and "score 1.0" in lines[1]
    assert lines[-1] == "stopping early: no better score for 2 epochs"


def test_fit_refuses_a_score_that_is_never_finite():
    w, *_, batch_loss, held_out = _setup([float("nan")] * 3)
    with pytest.raises(RuntimeError, match="never finite"):
        fit([w], batch_loss, held_out, np.arange(4), np.random.default_rng(0), epochs=3,
            batch=2, lr=0.1, patience=5, log=lambda _: None)


def test_relu_mlp_and_its_arrays():
    torch.manual_seed(0)
    body, head = relu_mlp(5, (4, 3), 2)
    arrays = layer_arrays(body, head)
    assert [w.shape for w, _ in arrays] == [(4, 5), (3, 4), (2, 3)]
    assert all(w.dtype == np.float32 and b.dtype == np.float32 for w, b in arrays)
    x = np.ones((1, 5), np.float32)
    for k, (w, b) in enumerate(arrays):
        x = x @ w.T + b
        x = np.maximum(x, 0) if k < 2 else x
    np.testing.assert_allclose(x, head(body(torch.ones(1, 5))).detach().numpy(), rtol=1e-5)
