"""The card-value fit's compact rows (src/widderkopf_env/train/value_fit.py): read shard by shard, the same
inputs and targets as the float32 arrays give (bit for bit, any rows), the same fit."""

from __future__ import annotations

import numpy as np
import pytest

from widderkopf_env.train.shards import load_shards
from widderkopf_env.train.value_data import FIELDS, generate_values
from widderkopf_env.train.value_fit import (
    FLAGS,
    ValueData,
    fit_values,
    inputs,
    load_value_rows,
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
        rows = load_value_rows(shards, game_weight=weight)
        n = len(data["game"])
        assert len(rows) == n > 60
        everything = np.arange(n)
        np.testing.assert_array_equal(rows.x(everything), inputs(data["obs"], data["features"]))
        y, legal = targets(data["obs"], data["values"], weight)
        got_y, got_legal = rows.labels(everything)
        np.testing.assert_array_equal(got_y, y)
        np.testing.assert_array_equal(got_legal, legal)
        np.testing.assert_array_equal(rows.game, data["game"])
        some = np.array([n - 1, 0, n // 2, 0])  # any order, repeats included
        np.testing.assert_array_equal(rows.x(some), rows.x(everything)[some])
        for got, want in zip(rows.labels(some), (y[some], legal[some]), strict=True):
            np.testing.assert_array_equal(got, want)
    left = rows.left
    assert left.min() >= 1 and left.max() == 14
    # a row: 67 bytes of flags, 247 codes, 36 card values, level, tricks left, game id;
    # under a ninth of the shards' float32 arrays (the columns' tables aside, a fixed cost)
    per_row = (rows.nbytes - ValueData(0).nbytes) / n
    assert per_row == 67 + 247 + 36 + 1 + 1 + 8
    assert 9 * per_row < sum(data[f].nbytes for f in FIELDS) / n


def test_shards_read_one_by_one_equal_the_arrays_in_memory(shards, monkeypatch):
    from widderkopf_env.train import value_fit

    data = load_shards(shards, max_shards=2, fields=FIELDS)
    in_memory = ValueData.of(data, chunk=7)
    monkeypatch.setattr(value_fit, "CHUNK", 5)  # a shard's rows put a few at a time
    streamed = load_value_rows(shards, max_shards=2)
    for f in ("values", "level", "left", "game"):
        np.testing.assert_array_equal(getattr(streamed, f), getattr(in_memory, f))
    everything = np.arange(len(streamed))
    np.testing.assert_array_equal(streamed.x(everything), in_memory.x(everything))


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
        fit_values(load_value_rows(shards, game_weight=2.0), game_weight=0.0)
    with pytest.raises(FileNotFoundError, match="no shards"):
        load_value_rows(shards / "nothing-here")
    data = load_shards(shards, fields=FIELDS)
    data["obs"] = data["obs"].copy()
    data["obs"][3, FLAGS - 1] = 0.5  # the last flag column (tiebreak) half set
    with pytest.raises(ValueError, match="column 530 must be 0 or 1 .*this version's encoder"):
        ValueData.of(data)
    data = load_shards(shards, fields=FIELDS)
    legal = np.flatnonzero(~np.isnan(data["values"][2]))[0]
    data["values"][2, legal] = 3.5  # card points are whole numbers
    with pytest.raises(ValueError, match=r"card values must be whole card points 0..122 or "
                                         r"NaN \(not legal\), got 3.5"):
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


def test_a_fit_starts_from_the_layers_it_is_given(shards):
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)
    quiet = {"hidden": (8,), "batch": 32, "log": lambda *_: None}
    first = fit_values(shards, epochs=1, **quiet)
    again = fit_values(shards, epochs=1, lr=1e-9, init=first, seed=5, **quiet)
    cold = fit_values(shards, epochs=1, lr=1e-9, seed=5, **quiet)
    for (w, b), (w2, b2) in zip(first, again, strict=True):
        np.testing.assert_allclose(w2, w, atol=1e-5)  # barely moved from the start
        np.testing.assert_allclose(b2, b, atol=1e-5)
    assert not np.allclose(cold[0][0], first[0][0], atol=1e-3)
    with pytest.raises(ValueError, match=r"layer 0 of the start is \(8, 778\), the network's "
                                         r"\(16, 778\)"):
        fit_values(shards, epochs=1, init=first, **{**quiet, "hidden": (16,)})
    with pytest.raises(ValueError, match="2 layers, the network 3"):
        fit_values(shards, epochs=1, init=first, **{**quiet, "hidden": (8, 8)})


def test_the_recipe_s_second_fit_starts_from_the_first(tmp_path, monkeypatch):
    pytest.importorskip("torch")
    from widderkopf_env.agents.network_file import load_values
    from widderkopf_env.train import value_fit
    from widderkopf_env.train.recipes import run as recipe_run
    from widderkopf_env.train.recipes.recipe import Recipe

    tiny = Recipe("tiny", clone_shards=1, clone_matches=1, clone_epochs=1,
                  values=((1, 2, 1, 4),), value_epochs=1, value_tricks=17,
                  values2=((1, 2, 1, 4),), value_epochs2=1, curve_pairs=1, final_pairs=1)
    starts, real = [], value_fit.fit_values

    def recording(*args, init=None, **kwargs):
        starts.append(init)
        return real(*args, init=init, **kwargs)

    monkeypatch.setattr(value_fit, "fit_values", recording)
    out = tmp_path / "run"
    recipe_run.run_recipe(tiny, out, seed=1, workers=1, progress=False, log=lambda *_: None)
    first = load_values(out / "values" / "agent.npz")[0]
    assert len(starts) == 2 and starts[0] is None
    for (w, b), (w2, b2) in zip(first, starts[1], strict=True):
        np.testing.assert_array_equal(w, w2)
        np.testing.assert_array_equal(b, b2)
