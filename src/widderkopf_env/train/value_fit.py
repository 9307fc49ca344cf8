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

The rows are read shard by shard into :class:`ValueData`, compact and exact: the inputs
(canonical observation, card features) as :class:`~.compact.CompactRows` (flags as bits,
the other columns as one-byte codes), the card values as bytes (card points are whole
numbers), the targets made from them for each minibatch when it is drawn. A row takes
under 15% of the memory of the shards' float32 arrays, and no more than one shard is
held as those.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from widderkopf_env.agents.canonical import ROLES, to_canonical, trump_of
from widderkopf_env.agents.features import SIZE as FEATURES
from widderkopf_env.agents.solver import game_points
from widderkopf_env.cards import NUM_CARDS, TOTAL_POINTS, TRICKS
from widderkopf_env.observation import OBS_SIZE, OFFSETS

from .compact import CHUNK, OBS_FLAGS, CompactRows

__all__ = ["ValueData", "fit_values", "inputs", "load_value_rows", "targets"]

_LEVEL = OFFSETS["crack_level"][0]
_TRICKS_DONE = OFFSETS["tricks_done"][0]
#: The canonical observation's columns before this one are flags (0 or 1), kept as bits.
FLAGS = OBS_FLAGS
#: The byte of a card value that says the card is not legal.
_NOT_LEGAL = 255


def inputs(obs: np.ndarray, features: np.ndarray, chunk: int = 65536) -> np.ndarray:
    """``[canonical observation, card features]`` rows, float32, built in chunks: the
    network's inputs, as :meth:`ValueData.x` gives them from compact rows."""
    x = np.empty((len(obs), OBS_SIZE + FEATURES), np.float32)
    for i in range(0, len(obs), chunk):
        x[i:i + chunk, :OBS_SIZE] = to_canonical(obs[i:i + chunk].astype(np.float32))
        x[i:i + chunk, OBS_SIZE:] = features[i:i + chunk]
    return x


def targets(obs: np.ndarray, values: np.ndarray, game_weight: float = 0.0):
    """``(y, legal)`` in canonical card order: the centred values and the legal cards."""
    can = np.empty(values.shape, np.float32)
    np.put_along_axis(can, ROLES[trump_of(obs)], values.astype(np.float32), axis=1)
    return _centred(can, obs[:, _LEVEL:_LEVEL + 5].argmax(1), game_weight)


#: Game points by crack level and card points (R18-R19).
_GAME_POINTS = np.array([[game_points(x, lv) for x in range(TOTAL_POINTS + 1)]
                         for lv in range(5)], np.float32)


def _centred(can: np.ndarray, level: np.ndarray, game_weight: float):
    """:func:`targets` from the values in canonical order (NaN: not legal) and the crack
    levels, row by row."""
    v = can
    if game_weight:
        xi = np.nan_to_num(v, nan=0.0).astype(np.int64).clip(0, TOTAL_POINTS)
        v = v + game_weight * _GAME_POINTS[level[:, None], xi]
    legal = ~np.isnan(v)
    mean = np.where(legal, v, 0.0).sum(1, keepdims=True) / legal.sum(1, keepdims=True)
    return np.where(legal, v - mean, 0.0).astype(np.float32), legal


def regret(pred: np.ndarray, y: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """Points lost by the card of best ``pred`` against the best card, per row."""
    pick = np.where(legal, pred, -np.inf).argmax(1)
    best = np.where(legal, y, -np.inf).max(1)
    return best - y[np.arange(len(y)), pick]


class ValueData:
    """The rows of a card-value fit, compact: ``inputs`` (a :class:`~.compact.CompactRows`
    of :func:`inputs`' columns), ``values`` (each card's value in canonical order, card
    points as bytes, 255 where the card is not legal), ``level`` (the crack level),
    ``left`` (tricks left) and ``game``; :meth:`x` and :meth:`labels` give a minibatch's
    inputs and targets."""

    def __init__(self, rows: int, game_weight: float = 0.0):
        self.game_weight = game_weight
        self.inputs = CompactRows(rows, OBS_SIZE + FEATURES, FLAGS)
        self.values = np.zeros((rows, NUM_CARDS), np.uint8)
        self.level = np.zeros(rows, np.int8)
        self.left = np.zeros(rows, np.int8)
        self.game = np.zeros(rows, np.int64)

    def __len__(self) -> int:
        return len(self.game)

    @property
    def nbytes(self) -> int:
        """The memory the rows take."""
        return self.inputs.nbytes + sum(a.nbytes for a in (self.values, self.level,
                                                           self.left, self.game))

    def put(self, at: int, obs, features, values, game) -> None:
        """Rows ``at..`` from the arrays of a shard (``value_data.FIELDS``), a few
        thousand at a time."""
        v = np.asarray(values, np.float32)
        whole = np.isnan(v) | ((v == np.rint(v)) & (v >= 0) & (v <= TOTAL_POINTS + 1))
        if not whole.all():
            raise ValueError(f"card values must be whole card points 0..{TOTAL_POINTS + 1} "
                             f"or NaN (not legal), got {float(v[~whole][0])!r}")
        for i in range(0, len(obs), CHUNK):
            self._put(at + i, *(a[i:i + CHUNK] for a in (obs, features, v, game)))

    def _put(self, at: int, obs, features, values, game) -> None:
        end = at + len(obs)
        x = np.empty((len(obs), OBS_SIZE + FEATURES), np.float32)
        x[:, :OBS_SIZE] = to_canonical(np.asarray(obs, np.float32))
        x[:, OBS_SIZE:] = features
        try:
            self.inputs.put(at, x)
        except ValueError as err:
            raise ValueError(f"{err}; these shards do not come from this version's "
                             "encoder") from None
        can = np.empty_like(values)
        np.put_along_axis(can, ROLES[trump_of(obs)], values, axis=1)
        self.values[at:end] = np.where(np.isnan(can), _NOT_LEGAL, can).astype(np.uint8)
        self.level[at:end] = obs[:, _LEVEL:_LEVEL + 5].argmax(1)
        self.left[at:end] = np.rint(TRICKS - obs[:, _TRICKS_DONE] * TRICKS)
        self.game[at:end] = game

    def x(self, rows) -> np.ndarray:
        """The float32 inputs of ``rows``, as :func:`inputs` gives them."""
        return self.inputs.get(rows)

    def labels(self, rows):
        """``(y, legal)`` of ``rows``, as :func:`targets` gives them (with the data's
        ``game_weight``)."""
        v = self.values[np.asarray(rows)]
        can = np.where(v == _NOT_LEGAL, np.float32(np.nan), v.astype(np.float32))
        return _centred(can, self.level[np.asarray(rows)].astype(np.int64), self.game_weight)

    @classmethod
    def of(cls, data: dict, game_weight: float = 0.0, chunk: int = 65536) -> ValueData:
        """From arrays in memory (``load_shards(..., fields=value_data.FIELDS)``)."""
        out = cls(len(data["game"]), game_weight)
        for i in range(0, len(out), chunk):
            out.put(i, *(data[f][i:i + chunk] for f in ("obs", "features", "values", "game")))
        return out


def load_value_rows(dirs, max_shards: int | None = None, game_weight: float = 0.0) -> ValueData:
    """The value shards of the folders ``dirs`` (``shards.load_shards``'s choice),
    read one at a time into a :class:`ValueData`."""
    from .shards import read_shards

    return read_shards(dirs, max_shards, ("obs", "features", "values", "game"),
                       lambda counts: ValueData(sum(counts), game_weight))


def fit_values(data, hidden=(512, 512, 256), epochs: int = 12, batch: int = 512,
               lr: float = 1e-3, game_weight: float = 0.0, seed: int = 0,
               patience: int = 3, log=print, max_shards: int | None = None,
               init=None) -> list:
    """Fit a card-value network to ``data``: value shard folders (a folder or a list;
    ``max_shards`` as in :func:`load_value_rows`), a :class:`ValueData` made with the same
    ``game_weight``, or the shards' arrays (``load_shards(..., fields=value_data.FIELDS)``);
    returns its layers ``[(W (out, in), b), ...]``. ``init``: layers of the same shapes to
    start from (a warm start, e.g. an earlier fit's) instead of random ones."""
    import torch

    from .fit import fit, layer_arrays, linear_layers, relu_mlp, start

    if isinstance(data, ValueData):
        if data.game_weight != game_weight:
            raise ValueError(f"the data's targets have game_weight {data.game_weight}, the "
                             f"fit asks for {game_weight}")
        rows = data
    elif isinstance(data, dict):
        rows = ValueData.of(data, game_weight)
    elif isinstance(data, (str, Path, list, tuple)):
        rows = load_value_rows(data, max_shards, game_weight)
    else:
        raise TypeError(f"data must be value shard folders, a ValueData or a dict of "
                        f"their arrays, got {type(data).__name__}")
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    left = rows.left
    games = np.unique(rows.game)
    held = rng.choice(games, max(1, len(games) // 20), replace=False)
    is_val = np.isin(rows.game, held)
    val, train_rows = np.flatnonzero(is_val), np.flatnonzero(~is_val)
    log(f"{len(rows)} positions from {len(games)} games; {len(val)} held out")

    body, head = relu_mlp(OBS_SIZE + FEATURES, hidden, NUM_CARDS)
    model = torch.nn.Sequential(body, head)
    if init is not None:
        start(linear_layers(body, head), init)

    def batch_loss(j):
        j = j.numpy()
        y, m = (torch.as_tensor(a) for a in rows.labels(j))
        return ((model(torch.as_tensor(rows.x(j))) - y) ** 2 * m).sum() / m.sum()

    def held_out():
        with torch.no_grad():
            pred = np.concatenate([model(torch.as_tensor(rows.x(val[i:i + 8192]))).numpy()
                                   for i in range(0, len(val), 8192)])
        r = regret(pred, *rows.labels(val))
        by_left = " ".join(f"{k}:{r[left[val] == k].mean():.2f}"
                           for k in range(1, TRICKS + 1) if (left[val] == k).any())
        return r.mean(), (f"held-out regret {r.mean():.3f} points per decision (by tricks "
                          f"left {by_left})")

    fit(list(model.parameters()), batch_loss, held_out, train_rows, rng, epochs, batch, lr,
        patience, "held-out regret", log)
    return layer_arrays(body, head)
