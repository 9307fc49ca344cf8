"""The card-value fit's compact rows (train/value_fit.py): read shard by shard, the same
inputs and targets as the float32 arrays give, the same fit."""

from __future__ import annotations

import numpy as np
import pytest

from widderkopf_env.train.distill_data import load_shards
from widderkopf_env.train.value_data import FIELDS, generate_values
from widderkopf_env.train.value_fit import (
    FLAGS,
    ValueData,
    fit_values,
    inputs,
    load_values,
    targets,
)


@pytest.fixture(scope="module")
def shards(tmp_path_factory):
    out = tmp_path_factory.mktemp("values")
    generate_values(out, 3, seed=7, games=3, tricks=(1, 14), exact_tricks=8,
                    log=lambda *_: None)
    return out


def test_compact_rows_give_the_inputs_and_targets_of_the_arrays(shards):
    data = load_shards(shards, fields=FIELDS)
    for weight in (0.0, 2.0):
        rows = load_values(shards, game_weight=weight)
        n = len(data["game"])
        assert len(rows) == n > 60
        everything = np.arange(n)
        np.testing.assert_array_equal(rows.x(everything), inputs(data["obs"], data["features"]))
        y, legal = targets(data["obs"], data["values"], weight)
        np.testing.assert_array_equal(rows.y, y)
        np.testing.assert_array_equal(rows.legal, legal)
        np.testing.assert_array_equal(rows.game, data["game"])
        some = np.array([n - 1, 0, n // 2, 0])  # any order, repeats included
        np.testing.assert_array_equal(rows.x(some), rows.x(everything)[some])
    left = rows.left
    assert left.min() >= 1 and left.max() == 14
    # a row costs 40% of the float32 arrays' bytes or less
    compact = sum(a.nbytes for a in (rows.bits, rows.dense, rows.y, rows.legal, rows.left,
                                     rows.game))
    assert 5 * compact < 2 * sum(data[f].nbytes for f in FIELDS)


def test_shards_read_one_by_one_equal_the_arrays_in_memory(shards):
    data = load_shards(shards, max_shards=2, fields=FIELDS)
    streamed, in_memory = load_values(shards, max_shards=2), ValueData.of(data, chunk=7)
    for f in ("bits", "dense", "y", "legal", "left", "game"):
        np.testing.assert_array_equal(getattr(streamed, f), getattr(in_memory, f))


def test_the_fit_is_the_same_from_folders_and_from_arrays(shards):
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)
    quiet = {"hidden": (8,), "epochs": 2, "batch": 32, "log": lambda *_: None}
    a = fit_values(shards, **quiet)
    b = fit_values(load_shards(shards, fields=FIELDS), **quiet)
    c = fit_values([shards], **quiet, game_weight=1.0)
    assert all(np.array_equal(wa, wb) and np.array_equal(ba, bb)
               for (wa, ba), (wb, bb) in zip(a, b, strict=True))
    assert not np.array_equal(a[-1][0], c[-1][0])  # the game weight changes the targets


def test_bad_data_is_refused_with_the_reason(shards):
    pytest.importorskip("torch")
    with pytest.raises(TypeError, match="value shard folders"):
        fit_values(42)
    with pytest.raises(ValueError, match="game_weight 2.0"):
        fit_values(load_values(shards, game_weight=2.0), game_weight=0.0)
    with pytest.raises(FileNotFoundError, match="no shards"):
        load_values(shards / "nothing-here")
    data = load_shards(shards, fields=FIELDS)
    data["obs"] = data["obs"].copy()
    data["obs"][3, FLAGS - 1] = 0.5  # the last flag column (tiebreak) half set
    with pytest.raises(ValueError, match="must be 0 or 1"):
        ValueData.of(data)


def test_load_shards_fills_one_array_per_field_as_concatenation_would(shards, tmp_path):
    other = tmp_path / "more"
    other.mkdir()
    for k in (0, 1):  # a second folder, its shards in another order on disk
        (other / f"shard_0000{k}.npz").write_bytes((shards / f"shard_0000{1 - k}.npz").read_bytes())
    (other / "shard_00002.tmp.npz").write_bytes(b"unfinished")  # skipped
    paths = [shards / f"shard_0000{k}.npz" for k in range(2)] + \
        [other / f"shard_0000{k}.npz" for k in range(2)]
    got = load_shards([shards, other], max_shards=2, fields=FIELDS)
    for f in FIELDS:
        parts = []
        for path in paths:
            with np.load(path) as z:
                parts.append(z[f])
        np.testing.assert_array_equal(got[f], np.concatenate(parts))
        assert got[f].dtype == parts[0].dtype
