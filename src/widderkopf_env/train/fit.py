"""The torch fit loop of the networks fitted to data (the distilled policy network, the
card-value network): an MLP, minibatch Adam with a cosine learning rate, early stopping
on a held-out score, one progress line per epoch.

Both fits build their network with :func:`relu_mlp`, hand :func:`fit` a minibatch loss
and a held-out score, and write the result with :func:`layer_arrays` as the plain
``(W (out, in), b)`` float32 arrays the numpy runtimes play. On the CPU; torch is
imported inside the functions, so this module loads without the train extra.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

import numpy as np

__all__ = ["fit", "layer_arrays", "linear_layers", "relu_mlp", "start"]


def relu_mlp(n_in: int, hidden, n_out: int):
    """``(body, head)``: ``Linear -> ReLU`` for each width in ``hidden``, then a
    ``Linear`` head to ``n_out`` (created in that order from torch's seeded generator)."""
    from torch import nn

    sizes = [n_in, *hidden]
    layers = []
    for a, b in zip(sizes[:-1], sizes[1:], strict=True):
        layers += [nn.Linear(a, b), nn.ReLU()]
    return nn.Sequential(*layers), nn.Linear(sizes[-1], n_out)


def linear_layers(body, head) -> list:
    """The ``Linear`` modules of ``(body, head)``, input first."""
    from torch import nn

    return [m for m in body if isinstance(m, nn.Linear)] + [head]


def start(linears: list, layers) -> None:
    """Set the ``Linear`` modules ``linears`` to ``layers`` (``[(W (out, in), b), ...]``,
    as :func:`layer_arrays` gives them); ValueError naming the first shape that differs."""
    import torch

    if len(layers) != len(linears):
        raise ValueError(f"the start has {len(layers)} layers, the network {len(linears)}")
    with torch.no_grad():
        for i, (m, (w, b)) in enumerate(zip(linears, layers, strict=True)):
            if tuple(np.shape(w)) != tuple(m.weight.shape) or \
                    tuple(np.shape(b)) != tuple(m.bias.shape):
                raise ValueError(f"layer {i} of the start is {np.shape(w)}, "
                                 f"the network's {tuple(m.weight.shape)}")
            m.weight.copy_(torch.as_tensor(np.asarray(w, np.float32)))
            m.bias.copy_(torch.as_tensor(np.asarray(b, np.float32)))


def layer_arrays(body, head) -> list:
    """The linear layers of ``(body, head)`` as ``[(W (out, in), b), ...]`` float32 arrays."""
    return [(m.weight.detach().numpy().astype(np.float32).copy(),
             m.bias.detach().numpy().astype(np.float32).copy())
            for m in linear_layers(body, head)]


def fit(params: list, batch_loss: Callable, held_out: Callable, train_rows: np.ndarray,
        rng: np.random.Generator, epochs: int, batch: int, lr: float, patience: int,
        criterion: str = "held-out loss", log=print) -> float:
    """Fit ``params`` (torch parameters) and return the best held-out score.

    Each epoch visits ``train_rows`` in an order drawn from ``rng``, in minibatches of
    ``batch`` rows: ``batch_loss(rows)`` (a torch index tensor) returns the mean loss to
    minimise, Adam (learning rate ``lr``, cosine-annealed over ``epochs``) steps on it.
    After each epoch ``held_out()`` returns ``(score, text)``: the score to minimise on
    held-out rows and a few words on it for the progress line. The fit stops early when
    the score has not improved (by more than 1e-4) for ``patience`` epochs, and leaves
    ``params`` at their values of the best epoch.
    """
    import torch

    opt = torch.optim.Adam(params, lr=lr)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, epochs)
    best, best_state, bad = math.inf, None, 0
    for epoch in range(epochs):
        t0, total = time.perf_counter(), 0.0
        order = torch.as_tensor(rng.permutation(train_rows))
        for i in range(0, len(order), batch):
            rows = order[i:i + batch]
            loss = batch_loss(rows)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss.detach()) * len(rows)
        sched.step()
        score, text = held_out()
        log(f"epoch {epoch + 1}/{epochs}: train loss {total / max(1, len(order)):.4g}, {text} "
            f"({time.perf_counter() - t0:.0f} s)")
        if score < best - 1e-4:
            best, bad = score, 0
            best_state = [p.detach().clone() for p in params]
        else:
            bad += 1
            if bad >= patience:
                log(f"stopping early: no better {criterion} for {patience} epochs")
                break
    if best_state is None:
        raise RuntimeError(f"the {criterion} was never finite: nothing to keep (a learning "
                           "rate too high, or bad data?)")
    with torch.no_grad():
        for p, s in zip(params, best_state, strict=True):
            p.copy_(s)
    return best
