"""Data for imitation: positions from varied play, labelled by an expert bot.

Each shard is one seeded batch of matches. At every decision of either seat that has
more than one legal action, the expert decides and the position is stored with its
label: the observation and mask the acting player's view encodes to, the expert's
action, and for a PIMC expert (:meth:`~widderkopf_env.agents.pimc.PIMCAgent.decide`)
the mean world score of every card or suit it compared and its estimated win chance
(NaN where not compared, and always for the heuristic expert, which only names its
move). The move then actually played is the
expert's most of the time, else the heuristic's or a random legal one (``mix``), or, in
DAgger rounds, the current network's: the data covers the positions a learner reaches,
not only those the expert would.

Shards are ``shard_00042.npz`` files written atomically and durably (a temporary file,
fsynced, renamed over), so an interrupted run resumes where it stopped: :func:`generate`
keeps the shards that read back whole and writes the others again. Shard ``k`` of seed ``s`` is the same file whatever the number of workers.
"""

from __future__ import annotations

import io
import random
import time
from pathlib import Path

import numpy as np

from widderkopf_env.agents.heuristic import HeuristicAgent
from widderkopf_env.agents.network_file import load_net_agent
from widderkopf_env.agents.pimc import Decision, PIMCAgent
from widderkopf_env.cards import NUM_ACTIONS
from widderkopf_env.observation import OBS_SIZE, encode_with_mask
from widderkopf_env.rules import Game

from . import run_folder

__all__ = ["EXPERTS", "FIELDS", "MAX_MATCHES", "MAX_SAMPLES", "generate", "generate_shard", "load_shards", "read_shards",
           "run_shards", "shard_files", "shard_path"]

#: Arrays of a shard, one row per labelled position.
FIELDS = ("obs", "mask", "action", "values", "win", "phase")
#: The most matches of one shard (its rows are held in memory until it is written, about
#: 0.2 MB a match), and the most PIMC worlds per decision.
MAX_MATCHES, MAX_SAMPLES = 1000, 10_000


def shard_path(out: Path, k: int) -> Path:
    return Path(out) / f"shard_{k:05d}.npz"


#: The experts that label positions: PIMC with opponent inference, PIMC with uniform
#: worlds, the heuristic bot (its move only: cheap, deterministic labels).
EXPERTS = ("pimc", "pimc-uniform", "heuristic")


class _HeuristicExpert:
    """The heuristic bot as an expert: its move, nothing compared."""

    def __init__(self):
        self.bot = HeuristicAgent()

    def decide(self, view) -> Decision:
        return Decision(self.bot.act(view))


def _expert(name: str, seed: int, samples: int | None):
    if name == "heuristic":
        return _HeuristicExpert()
    if name in ("pimc", "pimc-uniform"):
        return PIMCAgent(seed=seed, samples=samples, infer=name == "pimc")
    raise ValueError(f"expert must be one of {', '.join(EXPERTS)}, got {name!r}")


def _behaviour(mix: tuple[float, float, float], rng: random.Random) -> str:
    x = rng.random()
    if x < mix[0]:
        return "expert"
    return "heuristic" if x < mix[0] + mix[1] else "other"


def generate_shard(k: int, seed: int, matches: int, samples: int | None = None,
                   mix=(0.7, 0.2, 0.1), policy=None, expert: str = "pimc") -> dict[str, np.ndarray]:
    """The labelled positions of shard ``k`` (``matches`` matches of 1-3 hands).

    ``mix``: the chance that the move played is the expert's, the heuristic's, or the
    third kind's (a random legal move, or ``policy``'s when a policy agent is given:
    the DAgger rounds). ``samples``: a PIMC expert's worlds per decision (None: its
    defaults); ``expert``: a name in :data:`EXPERTS`."""
    if len(mix) != 3 or min(mix) < 0 or abs(sum(mix) - 1.0) > 1e-9:
        raise ValueError(f"mix must be three non-negative shares summing to 1, got {mix!r}")
    base = seed * 1_000_003 + k
    rng = random.Random(base)
    labeller = _expert(expert, base, samples)
    heuristic = HeuristicAgent()
    rows: dict[str, list] = {f: [] for f in FIELDS}
    for m in range(matches):
        game = Game.new(seed=base * 1000 + m, num_hands=rng.randint(1, 3))
        while not game.is_over:
            view = game.view(game.current)
            legal = view.legal_actions()
            if len(legal) == 1:
                game.apply(legal[0])
                continue
            d = labeller.decide(view)
            obs, mask = encode_with_mask(view)
            values = np.full(NUM_ACTIONS, np.nan, np.float32)
            for a, v in d.values.items():
                values[a] = v
            rows["obs"].append(obs)
            rows["mask"].append(mask.astype(np.int8))
            rows["action"].append(d.action)
            rows["values"].append(values)
            rows["win"].append(np.nan if d.win_chance is None else d.win_chance)
            rows["phase"].append(int(view.phase))
            kind = _behaviour(mix, rng)
            if kind == "expert":
                move = d.action
            elif kind == "heuristic":
                move = heuristic.act(view)
            elif policy is not None:
                move = policy.act(view)
            else:
                move = rng.choice(legal)
            game.apply(move)
    return {
        "obs": np.asarray(rows["obs"], np.float32).reshape(-1, OBS_SIZE),
        "mask": np.asarray(rows["mask"], np.int8).reshape(-1, NUM_ACTIONS),
        "action": np.asarray(rows["action"], np.int16),
        "values": np.asarray(rows["values"], np.float32).reshape(-1, NUM_ACTIONS),
        "win": np.asarray(rows["win"], np.float32),
        "phase": np.asarray(rows["phase"], np.int8),
    }


def _write(path: Path, data: dict) -> None:
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


def _job(args) -> tuple[int, Path, dict]:
    k, out, seed, matches, samples, mix, policy_file, expert = args
    policy = None
    if policy_file is not None:
        policy = load_net_agent(policy_file, seed=k)
    return k, out, generate_shard(k, seed, matches, samples, mix, policy, expert)


def _timed(job):
    """Run ``job(args)`` -> ``(k, out, data)``, write shard ``k``; ``(k, rows, seconds)``."""
    fn, args = job
    t0 = time.perf_counter()
    k, out, data = fn(args)
    _write(shard_path(out, k), data)
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


def generate(out, shards: int, seed: int = 0, matches: int = 4, samples: int | None = None,
             mix=(0.7, 0.2, 0.1), workers: int = 1, policy_file=None, expert: str = "pimc",
             log=print, keep=whole, on_shard=None) -> int:
    """Write shards ``0..shards-1`` of ``seed`` into ``out`` (keeping whole finished ones:
    ``keep`` and ``on_shard`` as in :func:`run_shards`), on ``workers`` processes.
    Returns the number of positions written by this call."""
    return run_shards(out, shards, _job, (seed, matches, samples, tuple(mix), policy_file,
                                          expert), workers, log, keep, on_shard)


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


def load_shards(dirs, max_shards: int | None = None, fields=FIELDS) -> dict[str, np.ndarray]:
    """The shards of the given folders (shards ``0..max_shards-1`` of each when given),
    concatenated; ``fields``: the arrays to read. Each array is allocated once, from the
    shards' headers, and filled shard by shard (no second copy of the data is held)."""
    paths, heads = shard_files(dirs, max_shards), []
    for path in paths:
        with np.load(path, allow_pickle=False) as z:
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
