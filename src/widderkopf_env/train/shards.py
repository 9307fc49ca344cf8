"""Shards: the data files of the data commands (``widderkopf-distill generate``,
``widderkopf-values data``, the recipes' data stages), written and read in one place.

A shard is ``shard_00042.npz`` (:func:`shard_path`): one seeded batch of rows, arrays of
equal length, written atomically and durably (a temporary file, fsynced, renamed over:
:func:`write_shard`). :func:`run_shards` writes shards ``0..N-1`` on worker processes and
resumes: a shard that reads back whole (:func:`whole`) is kept, the others are written
again; shard ``k`` of a seed is the same file whatever the number of workers. What a
shard holds is the caller's (:mod:`.distill_data`, :mod:`.value_data`).

:func:`load_shards` reads a folder's shards into one array per field, each allocated
once; :func:`read_shards` reads them shard by shard into the caller's compact rows.
"""

from __future__ import annotations

import io
import time
from pathlib import Path

import numpy as np

from . import run_folder

__all__ = ["load_shards", "read_shards", "run_shards", "shard_files", "shard_path", "whole",
           "write_shard"]


def shard_path(out: Path, k: int) -> Path:
    return Path(out) / f"shard_{k:05d}.npz"


def write_shard(path: Path, data: dict) -> None:
    """Shard ``data`` as ``path``, atomically and durably (:func:`.run_folder.write_atomic`)."""
    buf = io.BytesIO()
    np.savez_compressed(buf, **data)
    run_folder.write_atomic(path, buf.getvalue())


def whole(path: Path) -> bool:
    """Whether the shard ``path`` reads back whole (every array, the zip's checksums)."""
    try:
        with np.load(path, allow_pickle=False) as z:
            for name in z.files:
                z[name]
        return True
    except Exception:  # whatever a damaged file makes numpy or zipfile raise
        return False


def _timed(job):
    """Run ``job(args)`` -> ``(k, out, data)``, write shard ``k``; ``(k, rows, seconds)``."""
    fn, args = job
    t0 = time.perf_counter()
    k, out, data = fn(args)
    write_shard(shard_path(out, k), data)
    return k, len(next(iter(data.values()))), time.perf_counter() - t0


def run_shards(out, shards: int, job, args, workers: int = 1, log=print, keep=whole,
               on_shard=None) -> int:
    """Write shards ``0..shards-1`` into ``out`` on ``workers`` processes (never more
    than the shards to write): shard ``k`` is ``job((k, out, *args))`` -> ``(k, out,
    arrays)``, written atomically. A shard already there is kept when ``keep(path)`` says
    it is whole (default :func:`whole`), else written again; ``on_shard(path)`` is called
    after each shard is written. Returns the number of rows written by this call.

    Only the shard files that exist are looked at first; the shards to write are made
    one at a time, so no list of ``shards`` entries is built."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    kept = set()
    for k in _present(out, shards):
        path = shard_path(out, k)
        if path.is_file() and not path.is_symlink() and keep(path):
            kept.add(k)
            continue
        log(f"damaged {path}: written again")
        path.unlink()
    if kept:
        log(f"{len(kept)} of {shards} shards exist already in {out}; resuming")
    count = shards - len(kept)
    jobs = ((job, (k, out, *args)) for k in range(shards) if k not in kept)
    workers = max(1, min(workers, count))
    written, t0 = 0, time.perf_counter()
    if workers == 1:
        results = map(_timed, jobs)
    else:
        import multiprocessing as mp
        pool = mp.Pool(workers)
        results = pool.imap_unordered(_timed, jobs)
    try:
        for i, (k, n, dt) in enumerate(results, 1):
            written += n
            if on_shard is not None:
                on_shard(shard_path(out, k))
            el = time.perf_counter() - t0
            log(f"shard {k}: {n} positions in {dt:.0f} s; {i}/{count} done, "
                f"{written / el:.1f} positions/s, {el:.0f} s elapsed")
    finally:
        if workers > 1:
            pool.terminate()
    return written


def _present(out: Path, shards: int) -> list[int]:
    """The shards ``k < shards`` whose name is taken in ``out`` (by a file, a link or
    anything else), in order: found by listing the folder, not by trying every ``k``."""
    found = []
    for path in out.iterdir():
        stem = path.name.removeprefix("shard_").removesuffix(".npz")
        if stem.isascii() and stem.isdigit() and int(stem) < shards \
                and path.name == shard_path(out, int(stem)).name:
            found.append(int(stem))
    return sorted(found)


def shard_files(dirs, max_shards: int | None = None) -> list[Path]:
    """The finished shards of the given folders (shards ``0..max_shards-1`` of each when
    given), in order; FileNotFoundError if there are none."""
    out = []
    for d in ([dirs] if isinstance(dirs, (str, Path)) else dirs):
        for path in sorted(Path(d).glob("shard_*.npz")):
            if path.name.endswith(".tmp.npz"):
                continue
            if max_shards is not None and int(path.stem.split("_")[1]) >= max_shards:
                continue
            out.append(path)
    if not out:
        raise FileNotFoundError(f"no shards in {dirs}")
    return out


def _header(z, field: str) -> tuple[tuple, np.dtype]:
    """Shape and dtype of array ``field`` of the open ``.npz`` ``z``, from its header."""
    with z.zip.open(field + ".npy") as fp:
        version = np.lib.format.read_magic(fp)
        read = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                else np.lib.format.read_array_header_2_0)
        shape, _fortran, dtype = read(fp)
    return shape, dtype


def load_shards(dirs, max_shards: int | None = None, fields=None) -> dict[str, np.ndarray]:
    """The shards of the given folders (shards ``0..max_shards-1`` of each when given),
    concatenated; ``fields``: the arrays to read (default: every array of the first
    shard, in its order). Each array is allocated once, from the shards' headers, and
    filled shard by shard (no second copy of the data is held)."""
    paths, heads = shard_files(dirs, max_shards), []
    for path in paths:
        with np.load(path, allow_pickle=False) as z:
            if fields is None:
                fields = tuple(z.files)
            heads.append({f: _header(z, f) for f in fields})
    out = {}
    for f in fields:
        (_n, *tail), dtype = heads[0][f]
        out[f] = np.empty((sum(h[f][0][0] for h in heads), *tail), dtype)
    at = 0
    for path, head in zip(paths, heads, strict=True):
        with np.load(path, allow_pickle=False) as z:
            for f in fields:
                out[f][at:at + head[f][0][0]] = z[f]
        at += head[fields[0]][0][0]
    return out


def read_shards(dirs, max_shards: int | None, fields, make, count=None):
    """The shards of the given folders (as :func:`load_shards` chooses them) read one at a
    time into rows: ``make(counts)`` makes the rows from ``count(shard)`` of each shard (an
    open ``.npz``; default: its rows, from a header), and their ``put(at, *arrays)`` takes
    each shard's arrays ``fields`` in turn. Only one shard's arrays are held at a time."""
    paths, counts = shard_files(dirs, max_shards), []
    for path in paths:
        with np.load(path, allow_pickle=False) as z:
            counts.append(_header(z, fields[0])[0][0] if count is None else count(z))
    out, at = make(counts), 0
    for path in paths:
        with np.load(path, allow_pickle=False) as z:
            arrays = [z[f] for f in fields]
        out.put(at, *arrays)
        at += len(arrays[0])
    return out
