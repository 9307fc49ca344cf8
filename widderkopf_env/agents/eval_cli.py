"""``widderkopf-eval``: play two agents against each other on duplicate deals.

    widderkopf-eval AGENT_A AGENT_B [--pairs P | --hands N] [--seed S] [--workers W] [--json]
    widderkopf-eval AGENT --ladder [--pairs P] [--time-budget S] [--plot PNG] [--json]

AGENT specs go through :func:`widderkopf_env.agents.load_agent`: ``random``,
``heuristic``, or a path to a MaskablePPO ``.zip``.

Counting: a *deal pair* is one random deal played twice, the second time with the cards
and the dealer swapped (see :mod:`widderkopf_env.agents.arena`). ``--pairs P`` plays P
pairs, i.e. 2P hands; ``--hands N`` is the same thing counted in hands (N must be even:
N hands = N/2 pairs). The default is 1000 pairs (2000 hands).

The result is from A's point of view: ``mean`` is A's game points per hand (the winner
of a hand scores its value, the loser as much negative), with a 95% confidence interval
over deal pairs; ``win_rate`` is the share of hands A won. With ``--json`` the last line
of output is one JSON object with these and the other statistics (``hands``, ``pairs``,
``seconds``, schneider/schwarz rates, crack statistics).

``--ladder`` rates one agent against every baseline on one Elo scale instead (P pairs
per opponent, default 200); see :mod:`widderkopf_env.agents.ladder` for what the rating
means.
"""

from __future__ import annotations

import argparse
import json
import sys

from . import AGENTS, ladder
from .arena import default_workers, run_duplicate

DEFAULT_PAIRS = 1000


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value}")
    return value


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="widderkopf-eval",
        description="Duplicate-deal match of AGENT_A against AGENT_B (results from A's side).",
        epilog="A deal pair is one deal played twice with the cards and the dealer swapped, "
               "so --hands N equals --pairs N/2.")
    known = ", ".join(repr(name) for name in AGENTS) + " or a model .zip"
    p.add_argument("agent_a", metavar="AGENT_A", help=known)
    p.add_argument("agent_b", metavar="AGENT_B", nargs="?", help=known + " (none with --ladder)")
    count = p.add_mutually_exclusive_group()
    count.add_argument("--pairs", type=_positive,
                       help=f"duplicate deal pairs to play (default {DEFAULT_PAIRS})")
    count.add_argument("--hands", type=_positive,
                       help="hands to play in total (even: 2 hands per deal pair)")
    p.add_argument("--seed", type=int, default=0, help="run seed (default 0)")
    p.add_argument("--workers", type=_positive, default=None,
                   help=f"processes (default: all cores, here {default_workers()})")
    p.add_argument("--json", action="store_true",
                   help="print the summary as one JSON object on the last line")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    ladder.add_arguments(p)
    return p


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.hands is not None:
        if args.hands % 2:
            parser.error(f"--hands must be even (2 hands per deal pair), got {args.hands}")
        pairs = args.hands // 2
    else:
        pairs = args.pairs
    if args.ladder or any(x is not None for x in (args.time_budget, args.baselines, args.plot)):
        return ladder.main(parser, args, pairs)
    if args.agent_b is None:
        parser.error("AGENT_B is required (or rate AGENT_A alone with --ladder)")
    pairs = pairs or DEFAULT_PAIRS
    from . import load_agent

    for spec in (args.agent_a, args.agent_b):  # fail early, in this process, with a clear error
        try:
            load_agent(spec)
        except (ValueError, FileNotFoundError, ImportError) as err:
            parser.error(str(err))
    result = run_duplicate(args.agent_a, args.agent_b, pairs, seed=args.seed,
                           workers=args.workers, progress=False if args.no_progress else None)
    if args.json:
        print(json.dumps(result.to_dict()))
    else:
        print(result.table())
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
