"""Fit the card-value network of ``load_agent("net")`` to exact-value shards.

The inputs are the observation in trump-relative order and the card features
(:class:`~widderkopf_env.agents.net_agent.CardValues`); the targets are each legal
card's exact value in the true deal (:mod:`.value_data`) minus their mean over the
legal cards (only the differences between cards matter for the choice); the loss is
the squared error over the legal cards. With ``game_weight`` ``g`` > 0 a value is
``x + g * game points(x)`` at the position's crack level (R18-R19), as PIMC scores its
worlds, instead of the card points ``x`` alone.

Early stopping on the positions of a held-out 5% of the games, by *regret*: how many
points the card the network prefers loses on average against the best card in the true
deal (0 is perfect play with every card known; no player can reach it while cards are
hidden). On the CPU with torch; the result is plain arrays.
"""

from __future__ import annotations

import numpy as np

from widderkopf_env.agents.canonical import ROLES, to_canonical, trump_of
from widderkopf_env.agents.features import SIZE as FEATURES
from widderkopf_env.agents.solver import game_points
from widderkopf_env.cards import NUM_CARDS, TOTAL_POINTS, TRICKS
from widderkopf_env.observation import OBS_SIZE, OFFSETS

__all__ = ["fit_values", "inputs", "targets"]

_LEVEL = OFFSETS["crack_level"][0]
_TRICKS_DONE = OFFSETS["tricks_done"][0]


def inputs(obs: np.ndarray, features: np.ndarray, chunk: int = 65536) -> np.ndarray:
    """``[canonical observation, card features]`` rows, float32, built in chunks."""
    x = np.empty((len(obs), OBS_SIZE + FEATURES), np.float32)
    for i in range(0, len(obs), chunk):
        x[i:i + chunk, :OBS_SIZE] = to_canonical(obs[i:i + chunk].astype(np.float32))
        x[i:i + chunk, OBS_SIZE:] = features[i:i + chunk]
    return x


def targets(obs: np.ndarray, values: np.ndarray, game_weight: float = 0.0):
    """``(y, legal)`` in canonical card order: the centred values and the legal cards."""
    v = values.astype(np.float32)
    if game_weight:
        table = np.array([[game_points(x, lv) for x in range(TOTAL_POINTS + 1)]
                          for lv in range(5)], np.float32)
        level = obs[:, _LEVEL:_LEVEL + 5].argmax(1)
        xi = np.nan_to_num(v, nan=0.0).astype(np.int64).clip(0, TOTAL_POINTS)
        v = v + game_weight * table[level[:, None], xi]
    can = np.empty_like(v)
    np.put_along_axis(can, ROLES[trump_of(obs)], v, axis=1)
    legal = ~np.isnan(can)
    mean = np.where(legal, can, 0.0).sum(1, keepdims=True) / legal.sum(1, keepdims=True)
    return np.where(legal, can - mean, 0.0).astype(np.float32), legal


def regret(pred: np.ndarray, y: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """Points lost by the card of best ``pred`` against the best card, per row."""
    pick = np.where(legal, pred, -np.inf).argmax(1)
    best = np.where(legal, y, -np.inf).max(1)
    return best - y[np.arange(len(y)), pick]


def fit_values(data: dict, hidden=(512, 512, 256), epochs: int = 12, batch: int = 512,
               lr: float = 1e-3, game_weight: float = 0.0, seed: int = 0,
               patience: int = 3, log=print) -> list:
    """Fit a card-value network to ``data`` (``load_shards(..., fields=value_data.FIELDS)``);
    returns its layers ``[(W (out, in), b), ...]``."""
    import torch

    from .fit import fit, layer_arrays, relu_mlp

    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    x = torch.as_tensor(inputs(data["obs"], data["features"]))
    y_np, legal_np = targets(data["obs"], data["values"], game_weight)
    y, legal = torch.as_tensor(y_np), torch.as_tensor(legal_np)
    left = np.rint(TRICKS - data["obs"][:, _TRICKS_DONE] * TRICKS).astype(int)
    games = np.unique(data["game"])
    held = rng.choice(games, max(1, len(games) // 20), replace=False)
    is_val = np.isin(data["game"], held)
    val, train_rows = np.flatnonzero(is_val), np.flatnonzero(~is_val)
    log(f"{len(x)} positions from {len(games)} games; {len(val)} held out")

    body, head = relu_mlp(OBS_SIZE + FEATURES, hidden, NUM_CARDS)
    model = torch.nn.Sequential(body, head)

    def batch_loss(j):
        m = legal[j]
        return ((model(x[j]) - y[j]) ** 2 * m).sum() / m.sum()

    def held_out():
        with torch.no_grad():
            pred = np.concatenate([model(x[val[i:i + 8192]]).numpy()
                                   for i in range(0, len(val), 8192)])
        r = regret(pred, y_np[val], legal_np[val])
        by_left = " ".join(f"{k}:{r[left[val] == k].mean():.2f}"
                           for k in range(1, TRICKS + 1) if (left[val] == k).any())
        return r.mean(), (f"held-out regret {r.mean():.3f} points per decision (by tricks "
                          f"left {by_left})")

    fit(list(model.parameters()), batch_loss, held_out, train_rows, rng, epochs, batch, lr,
        patience, "held-out regret", log)
    return layer_arrays(body, head)
