"""Float32 rows held compactly and exactly, for the fits that hold all their data.

An observation row (and the card features beside it) is mostly flags, and its other
columns take few distinct values each (card points / 121, counts / 7, ...).
:class:`CompactRows` keeps the flag columns as bits and each other column as a one-byte
code into that column's table of the values it has taken (two bytes once a column has
taken more than 256). Codes are given to values by their bits, so the rows read back
bit for bit as they were put (``-0.0`` and ``0.0`` stay apart, NaN stays NaN). A row of
the 540 observation columns and 238 card features takes 314 bytes this way, against
3,112 as float32.
"""

from __future__ import annotations

import numpy as np

from widderkopf_env.observation import CARD_PIECES, FLAG_PIECES

__all__ = ["CHUNK", "OBS_FLAGS", "CompactRows"]

#: The observation's columns before this one (its card sets and flags) are 0 or 1; a
#: canonical observation (:mod:`~widderkopf_env.agents.canonical`) keeps them there.
OBS_FLAGS = sum(size for _name, size, _text in CARD_PIECES + FLAG_PIECES)

#: The codes of a column before its codes widen to two bytes.
_NARROW = 256
#: The most distinct values a column may take.
_WIDE = 65536
#: Rows encoded at a time (the working arrays of a put stay small whatever its size).
CHUNK = 4096


class CompactRows:
    """``rows`` float32 rows of ``width`` columns, the first ``flags`` of them 0 or 1.

    :meth:`put` stores rows (ValueError, naming the column, where a flag column holds
    anything but 0 or 1), :meth:`get` reads any rows back as float32; ``nbytes`` is the
    memory the rows take."""

    def __init__(self, rows: int, width: int, flags: int):
        if not 0 <= flags <= width:
            raise ValueError(f"flags must be in 0..width ({width}), got {flags}")
        self.width, self.flags = width, flags
        self.bits = np.zeros((rows, (flags + 7) // 8), np.uint8)
        self.codes = np.zeros((rows, width - flags), np.uint8)
        self._table = np.zeros((width - flags, _NARROW), np.float32)
        self._count = np.zeros(width - flags, np.int64)  # values in each column's table
        self._keys = np.empty(0, np.uint64)  # sorted (column << 32 | value bits)
        self._key_code = np.empty(0, np.int64)  # the code of each key

    def __len__(self) -> int:
        return len(self.bits)

    @property
    def nbytes(self) -> int:
        return self.bits.nbytes + self.codes.nbytes + self._table.nbytes

    def put(self, at: int, x: np.ndarray) -> None:
        """Rows ``at..at + len(x) - 1`` from float32 rows ``x``."""
        x = np.asarray(x)
        if x.dtype != np.float32 or x.ndim != 2 or x.shape[1] != self.width:
            raise ValueError(f"rows must be float32 of {self.width} columns, got "
                             f"{x.dtype} of shape {x.shape}")
        flags = x[:, :self.flags]
        bad = ~((flags == 0.0) | (flags == 1.0))
        if bad.any():
            col = int(np.flatnonzero(bad.any(0))[0])
            raise ValueError(f"column {col} must be 0 or 1 (a flag column: 0..{self.flags - 1}), "
                             f"got {float(flags[bad][0])!r}")
        for i in range(0, len(x), CHUNK):
            part = x[i:i + CHUNK]
            rows = slice(at + i, at + i + len(part))
            self.bits[rows] = np.packbits(part[:, :self.flags].astype(np.uint8), axis=1)
            self.codes[rows] = self._encode(part[:, self.flags:])

    def get(self, rows) -> np.ndarray:
        """The float32 rows ``rows`` (indices, any order, repeats allowed), as put."""
        rows = np.asarray(rows, np.intp)
        out = np.empty((len(rows), self.width), np.float32)
        out[:, :self.flags] = np.unpackbits(self.bits[rows], axis=1, count=self.flags)
        codes = self.codes[rows].astype(np.intp)
        codes += np.arange(self.width - self.flags) * self._table.shape[1]
        out[:, self.flags:] = self._table.ravel().take(codes)
        return out

    def _encode(self, x: np.ndarray) -> np.ndarray:
        """The codes of the rows ``x`` (the non-flag columns), new values added to the
        tables."""
        cols = np.arange(x.shape[1], dtype=np.uint64) << np.uint64(32)
        keys = x.view(np.uint32).astype(np.uint64) | cols
        at = np.searchsorted(self._keys, keys)
        known = at < len(self._keys)
        known[known] = self._keys[at[known]] == keys[known]
        if not known.all():
            self._add(np.unique(keys[~known]))
            at = np.searchsorted(self._keys, keys)
        return self._key_code[at].astype(self.codes.dtype)

    def _add(self, new: np.ndarray) -> None:
        """Give codes to the keys ``new`` (sorted, none known yet), each the next code of
        its column."""
        col = (new >> np.uint64(32)).astype(np.intp)
        first = np.searchsorted(col, col)  # where each key's column starts among the new
        code = self._count[col] + np.arange(len(new)) - first
        need = int(code.max()) + 1
        if need > _WIDE:
            raise ValueError(f"column {self.flags + int(col[code.argmax()])} takes more than "
                             f"{_WIDE} distinct values: too many to hold as codes")
        if need > self._table.shape[1]:  # two-byte codes from now on
            table = np.zeros((len(self._table), _WIDE), np.float32)
            table[:, :self._table.shape[1]] = self._table
            self._table, self.codes = table, self.codes.astype(np.uint16)
        self._table[col, code] = (new & np.uint64(0xFFFFFFFF)).astype(np.uint32).view(
            np.float32)
        np.add.at(self._count, col, 1)
        keys = np.concatenate([self._keys, new])
        order = np.argsort(keys, kind="stable")
        self._keys, self._key_code = keys[order], np.concatenate([self._key_code, code])[order]
