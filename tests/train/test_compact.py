"""Compact rows (src/widderkopf_env/train/compact.py): flags as bits, other columns as codes into each column's
values, read back bit for bit; bad rows refused with the reason, the rows already put kept."""

from __future__ import annotations

import numpy as np
import pytest

from widderkopf_env.train import compact
from widderkopf_env.train.compact import CompactRows


def _rows(rng, n: int, flags: int = 20, few: int = 6) -> np.ndarray:
    x = np.empty((n, flags + few + 1), np.float32)
    x[:, :flags] = rng.integers(0, 2, (n, flags))
    x[:, flags:flags + few] = rng.integers(0, 122, (n, few)) / np.float32(121)
    x[:, -1] = rng.integers(0, 8, n) / 7  # float64 division, rounded to float32 on storing
    return x


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and np.array_equal(a.view(np.uint32), b.view(np.uint32))


def test_rows_read_back_bit_for_bit_in_any_order():
    rng = np.random.default_rng(3)
    x = _rows(rng, 1000)
    x[3, 20], x[4, 21], x[5, 22] = -0.0, np.nan, np.inf  # kept apart from 0.0, as they are
    c = CompactRows(len(x), x.shape[1], 20)
    for at in (0, 10, 700):  # chunks of any size; later chunks meet values seen before
        c.put(at, x[at:{0: 10, 10: 700, 700: 1000}[at]])
    assert c.codes.dtype == np.uint8
    assert _same_bits(c.get(np.arange(len(x))), x)
    some = np.array([999, 0, 5, 5, 3])
    assert _same_bits(c.get(some), x[some])
    assert _same_bits(c.get([]), x[:0])


@pytest.mark.parametrize("chunk", [4096, 64])
def test_a_column_of_many_values_widens_its_codes_and_stays_exact(chunk, monkeypatch):
    """Also when the codes widen in the middle of a put (rows are encoded by chunks)."""
    monkeypatch.setattr(compact, "CHUNK", chunk)
    rng = np.random.default_rng(4)
    x = _rows(rng, 2000)
    x[:, -1] = rng.random(2000)  # about 2000 distinct values in one column
    c = CompactRows(len(x), x.shape[1], 20)
    c.put(0, x[:100])
    assert c.codes.dtype == np.uint8
    c.put(100, x[100:])
    assert c.codes.dtype == np.uint16
    assert _same_bits(c.get(np.arange(len(x))), x)


def test_an_observation_row_takes_its_bits_and_a_byte_per_other_column():
    """540 observation columns (531 flags) and 238 card features: 67 + 247 bytes a row,
    against 3,112 as float32 (the columns' tables aside, a fixed cost)."""
    n = 3000
    c = CompactRows(n, 778, 531)
    assert c.nbytes - CompactRows(0, 778, 531).nbytes == n * (67 + 247)


def test_bad_rows_are_refused_with_the_reason_and_the_rows_put_are_kept():
    rng = np.random.default_rng(5)
    x = _rows(rng, 50)
    c = CompactRows(100, x.shape[1], 20)
    c.put(0, x)
    bad = x.copy()
    bad[7, 12] = 0.5
    with pytest.raises(ValueError, match=r"column 12 must be 0 or 1 \(a flag column: 0..19\), "
                                         r"got 0\.5"):
        c.put(50, bad)
    with pytest.raises(ValueError, match=r"rows must be float32 of 27 columns, got float64 of "
                                         r"shape \(50, 27\)"):
        c.put(50, x.astype(np.float64))
    with pytest.raises(ValueError, match="rows must be float32 of 27 columns"):
        c.put(50, x[:, :-1])
    assert _same_bits(c.get(np.arange(50)), x)
    c.put(50, x)  # still usable
    assert _same_bits(c.get(np.arange(50, 100)), x)
    with pytest.raises(ValueError, match="flags must be in 0..width"):
        CompactRows(3, 4, 5)
