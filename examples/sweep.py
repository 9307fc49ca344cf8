"""The sweep behind the self-play presets: exact exploitability on ``tiny`` or ``small``
for a grid of settings around a preset.

    python examples/sweep.py                                   # ppo-selfplay on tiny
    python examples/sweep.py --preset mmd --grid magnet_coef=0.01,0.025,0.1 magnet_every=0,16
    python examples/sweep.py --variant small --steps 196608 --grid ent_coef=0.05,0.1

Each point of the grid (every combination of the ``--grid`` values, each a field of the
training settings, ``widderkopf-train``'s option without ``--`` and with underscores) is
one ``widderkopf-train --preset PRESET --self-play-symmetric`` run of ``--steps`` steps
per seed, in a process of its own, ``--workers`` at a time, each with one torch thread.
Its exact exploitability (the softmax policy's, ``mixed``, and the arena's greedy play,
``greedy``) is computed every ``--every`` steps into the run's ``exploitability.csv``.
The script prints one Markdown row per point, best first (the final ``mixed`` averaged
over the seeds, then the mean over the curve's later half, which rewards getting there
early), and writes them to ``OUT/sweep.csv``. A row's own command is
``widderkopf-train --preset PRESET --self-play-symmetric --variant V --total-steps N
--seed S --exploitability-every E`` plus its ``--field value`` options.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import io
import itertools
import os
import statistics
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from widderkopf_env.train.config import TrainConfig
from widderkopf_env.train.exploitability_curve import CSV, read_rows

#: The grid around the seat-symmetric preset: the study's ranges (entropy 0.05-0.2,
#: clip 0.025-0.1) with the old defaults beside them, and two rollout sizes.
GRID = {"ent_coef": [0.01, 0.05, 0.1, 0.2], "clip_range": [0.05, 0.1, 0.2],
        "n_steps": [128, 512]}
FIELDS = {f.name for f in dataclasses.fields(TrainConfig)}


def grid_arg(text: str) -> tuple[str, list[str]]:
    name, _, values = text.partition("=")
    if name not in FIELDS or not values:
        raise argparse.ArgumentTypeError(
            f"{text!r}: expected FIELD=V1,V2,... with FIELD a training setting (e.g. "
            f"ent_coef=0.05,0.1)")
    return name, values.split(",")


def command(args, point: dict, seed: int, out: Path) -> list[str]:
    options = [x for k, v in point.items() for x in (f"--{k.replace('_', '-')}", str(v))]
    return [sys.executable, "-m", "widderkopf_env.train.ppo", "--preset", args.preset,
            "--self-play-symmetric", "--variant", args.variant, "--total-steps",
            str(args.steps), "--seed", str(seed), "--exploitability-every", str(args.every),
            "--eval-every", "0", "--checkpoint-every", "0", "--final-eval-pairs", "10",
            "--workers", "1", "--torch-threads", "1", "--no-progress", "--quiet",
            *options, "--out", str(out)]


def run_one(args, point: dict, seed: int) -> dict:
    name = "-".join(f"{k}={v}" for k, v in point.items()) or "preset"
    out = args.out / name / f"seed{seed}"
    rows = read_rows(out / CSV)
    if not rows or rows[-1]["steps"] < args.steps:  # a finished point is kept
        done = subprocess.run(command(args, point, seed, out) + ["--force-restart"],
                              capture_output=True, text=True,
                              env={**os.environ, "OMP_NUM_THREADS": "1"})
        if done.returncode != 0:
            raise SystemExit(f"{name} seed {seed} failed:\n{done.stderr[-2000:]}")
        rows = read_rows(out / CSV)
    half = [r["mixed"] for r in rows if r["steps"] >= args.steps / 2]
    return {"point": name, "seed": seed, "mixed": rows[-1]["mixed"],
            "greedy": rows[-1]["greedy"], "later_half": statistics.fmean(half),
            "cpu_seconds": rows[-1]["cpu_seconds"]}


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--preset", default="ppo-selfplay", help="the preset swept around")
    p.add_argument("--variant", choices=("tiny", "small"), default="tiny")
    p.add_argument("--steps", type=int, default=98_304, help="steps per run")
    p.add_argument("--every", type=int, default=16_384, help="steps between exact points")
    p.add_argument("--seeds", type=int, nargs="+", default=[0])
    p.add_argument("--grid", type=grid_arg, nargs="*", default=None,
                   help="FIELD=V1,V2,... (default: " +
                        " ".join(f"{k}={','.join(map(str, v))}" for k, v in GRID.items()) + ")")
    p.add_argument("--workers", type=int, default=2, help="runs at a time")
    p.add_argument("--out", type=Path, default=Path("runs/sweep"))
    args = p.parse_args(argv)
    grid = dict(args.grid) if args.grid is not None else {k: list(map(str, v))
                                                          for k, v in GRID.items()}
    points = [dict(zip(grid, values, strict=True)) for values in itertools.product(*grid.values())]
    jobs = [(point, seed) for point in points for seed in args.seeds]
    print(f"{len(points)} points x {len(args.seeds)} seed(s) on {args.variant}, "
          f"{args.steps:,} steps each, {args.workers} at a time -> {args.out}", flush=True)
    with ThreadPoolExecutor(args.workers) as pool:
        results = list(pool.map(lambda job: run_one(args, *job), jobs))
    table = []
    for point in points:
        name = "-".join(f"{k}={v}" for k, v in point.items()) or "preset"
        mine = [r for r in results if r["point"] == name]
        table.append({"point": name, "seeds": len(mine),
                      "mixed": statistics.fmean(r["mixed"] for r in mine),
                      "mixed_max": max(r["mixed"] for r in mine),
                      "greedy": statistics.fmean(r["greedy"] for r in mine),
                      "later_half": statistics.fmean(r["later_half"] for r in mine),
                      "cpu_seconds": statistics.fmean(r["cpu_seconds"] for r in mine)})
    table.sort(key=lambda r: (round(r["mixed"], 3), r["later_half"]))
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(table[0]))
    writer.writeheader()
    writer.writerows(table)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "sweep.csv").write_text(buf.getvalue())
    print("| settings | seeds | final mixed (mean; max) | final greedy | mean mixed, later "
          "half | CPU s per run |")
    print("|---|---:|---|---:|---:|---:|")
    for r in table:
        print(f"| {r['point']} | {r['seeds']} | {r['mixed']:.4f}; {r['mixed_max']:.4f} | "
              f"{r['greedy']:.4f} | {r['later_half']:.4f} | {r['cpu_seconds']:.0f} |")


if __name__ == "__main__":
    main()
