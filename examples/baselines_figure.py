"""The baselines' figures: exact exploitability against CPU seconds, several algorithms;
strength against minutes, several full-game runs.

    python examples/baselines_figure.py --variant small --out docs/baselines_small.png \\
        --runs "self-play PPO=runs/small-0,runs/small-1,runs/small-2" \\
               "MMD=runs/small-mmd-0,runs/small-mmd-1,runs/small-mmd-2" \\
        --solver "CFR+ (OpenSpiel)=runs/cfr_small.csv"

Each ``--runs`` entry is NAME=FOLDER,FOLDER,...: ``widderkopf-train`` run folders with an
``exploitability.csv`` (``--exploitability-every``), one line per folder (a seed); each
``--solver`` entry is NAME=CSV, the curve ``examples/openspiel_cfr.py --curve`` writes.

    python examples/baselines_figure.py --out docs/baselines_full.png \\
        --strength "self-play PPO, seed 0=runs/full-0"

Each ``--strength`` entry is NAME=FOLDER: a run's ``eval_history.json`` (its periodic
evaluations), drawn against the heuristic by the run's minutes.
"""

from __future__ import annotations

import argparse
import csv
import json
from pathlib import Path

from widderkopf_env.train.exploitability_curve import CSV, read_rows
from widderkopf_env.train.plots import plot_exploitability_by_cpu, plot_strength_by_minutes


def entry(text: str) -> tuple[str, list[Path]]:
    name, _, paths = text.partition("=")
    if not name or not paths:
        raise argparse.ArgumentTypeError(f"{text!r}: expected NAME=PATH[,PATH...]")
    return name, [Path(p) for p in paths.split(",")]


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--variant", default="small", help="the variant named in the title")
    p.add_argument("--runs", type=entry, nargs="*", default=[])
    p.add_argument("--solver", type=entry, nargs="*", default=[])
    p.add_argument("--strength", type=entry, nargs="*", default=[])
    p.add_argument("--out", type=Path, required=True)
    args = p.parse_args(argv)
    if args.strength:
        runs = {name: json.loads((folders[0] / "eval_history.json").read_text())
                for name, folders in args.strength}
        plot_strength_by_minutes(runs, args.out, "heuristic",
                                 "Full game: strength against the run's minutes")
        print(f"wrote {args.out}")
        return
    curves = {}
    for name, folders in args.runs:
        runs = [read_rows(folder / CSV) for folder in folders]
        missing = [str(f) for f, rows in zip(folders, runs, strict=True) if not rows]
        if missing:
            raise SystemExit(f"no {CSV} in {', '.join(missing)}")
        curves[name] = runs
    for name, files in args.solver:
        curves[name] = [[{k: float(v) for k, v in row.items()}
                         for row in csv.DictReader(f.open())] for f in files]
    plot_exploitability_by_cpu(curves, args.out,
                               f"Exact exploitability on {args.variant} against CPU time")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
