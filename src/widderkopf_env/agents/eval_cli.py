"""``widderkopf-eval``: play two agents against each other on duplicate deals.

    widderkopf-eval AGENT_A AGENT_B [--pairs P | --hands N] [--seed S] [--workers W] [--json]
                    [--save-games DIR] [--variant NAME]
    widderkopf-eval AGENT --ladder [--pairs P] [--time-budget S] [--plot PNG] [--json]

AGENT specs go through :func:`widderkopf_env.agents.load_agent`: a bot name
(``random``, ``heuristic``, ``pimc``, ``ppo``, ...), a network ``.npz``, the path of a
saved MaskablePPO ``.zip`` or an RLlib checkpoint folder. They are checked while the
command line is parsed without running anything stored in a file, and loaded once after
it, before the match starts, so a bad spec or a file that is not a model ends the command
with a usage error (exit status 2). Loading a ``.zip`` or a checkpoint runs code stored
in it (pickles); ``--safe`` refuses them (see :mod:`.cli_args`).

Counting: a *deal pair* is one random deal played twice, the second time with the cards
and the dealer swapped (see :mod:`widderkopf_env.agents.arena`). ``--pairs P`` plays P
pairs, i.e. 2P hands; ``--hands N`` is the same thing counted in hands (N must be even:
N hands = N/2 pairs). The default is 1000 pairs (2000 hands).

The result is from A's point of view: ``mean`` is A's game points per hand (the winner
of a hand scores its value, the loser as much negative), with a 95% confidence interval
over deal pairs; ``win_rate`` is the share of hands A won. With ``--json`` the last line
of output is one JSON object with these and the other statistics (``hands``, ``pairs``,
``seconds``, schneider/schwarz rates, crack statistics). Ctrl-C stops the match
with one line and exit status 130 (see :mod:`widderkopf_env.cli`).

``--save-games DIR`` keeps every game as JSON (``DIR/pair00017_game2.json``, agent A is
``player_0``; see :mod:`widderkopf_env.agents.game_files`) and the summary names A's
biggest losses; ``widderkopf-replay FILE -o game.html`` shows one in the browser.

``--variant NAME`` deals a smaller variant of the game (``widderkopf_env.VARIANTS``:
``tiny``, ``small``, ``medium``; default ``full``).

``--ladder`` rates one agent against every baseline on one Elo scale instead (P pairs
per opponent, default 200); see :mod:`widderkopf_env.agents.ladder` for what the rating
means.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

from widderkopf_env.cards import VARIANTS
from widderkopf_env.checks import MAX_SEED, MAX_WORKERS
from widderkopf_env.cli import UsageError, add_version, integer, output_dir, run_cli
from widderkopf_env.settings import add_options, from_namespace, setting, with_limit

from . import ladder
from .arena import run_duplicate
from .cli_args import add_safe, agent_help, agent_spec, load_agents
from .game_files import biggest_losses, losses_text

DEFAULT_PAIRS = 1000
#: The most deal pairs one command plays (per opponent with --ladder).
MAX_PAIRS = 1_000_000


@dataclass
class EvalSettings:
    """The settings of ``widderkopf-eval``: the agents, the deal pairs (``pairs`` or
    ``hands``), the ladder's (:func:`.ladder.add_arguments`) and ``--safe`` have options
    of their own; every other field is one generated option."""

    agent_a: str = setting(None, "agent A", cli=False)
    agent_b: str | None = setting(None, "agent B", cli=False)
    pairs: int | None = setting(None, "duplicate deal pairs to play", cli=False)
    hands: int | None = setting(None, "hands to play in total", cli=False)
    seed: int = setting(0, "run seed (default 0)", type=integer(0, MAX_SEED))
    workers: int | None = setting(None, "processes (default: all cores; never more than the "
                                  "deal pairs)", type=integer(1, MAX_WORKERS))
    json: bool = setting(False, "print the summary as one JSON object on the last line",
                         action="store_true")
    no_progress: bool = setting(False, "no progress bar", action="store_true")
    variant: str = setting("full", "the variant dealt (default full; not with --ladder)",
                           choices=list(VARIANTS))
    save_games: Path | None = setting(None, "keep every game in DIR as JSON (replay one "
                                      "with widderkopf-replay) and name A's biggest losses "
                                      "in the summary", type=output_dir, metavar="DIR")
    safe: bool = setting(False, "load no file that can run code", cli=False)
    ladder: bool = setting(False, "rate AGENT_A on the ladder", cli=False)
    time_budget: float | None = setting(None, "the ladder's time budget", cli=False)
    baselines: str | None = setting(None, "the ladder's baselines", cli=False)
    plot: Path | None = setting(None, "the ladder's plot", cli=False)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="widderkopf-eval",
        description="Duplicate-deal match of AGENT_A against AGENT_B (results from A's side).",
        epilog="A deal pair is one deal played twice with the cards and the dealer swapped, "
               "so --hands N equals --pairs N/2.")
    p.add_argument("agent_a", metavar="AGENT_A", type=agent_spec,
                   help=agent_help("agent A", safe_option=True))
    p.add_argument("agent_b", metavar="AGENT_B", type=agent_spec, nargs="?",
                   help="agent B, of the same kinds (none with --ladder)")
    count = p.add_mutually_exclusive_group()
    pairs, hands = integer(1, MAX_PAIRS), integer(1, 2 * MAX_PAIRS)
    count.add_argument("--pairs", type=pairs, help=with_limit(
        f"duplicate deal pairs to play (default {DEFAULT_PAIRS})", pairs))
    count.add_argument("--hands", type=hands, help=with_limit(
        "hands to play in total (even: 2 hands per deal pair)", hands))
    add_options(p, EvalSettings)
    add_safe(p)
    ladder.add_arguments(p)
    add_version(p)
    return p


def main(argv=None) -> int:
    """The console script; returns the exit status (0, 2 for a usage error, 130 after
    Ctrl-C)."""
    parser = build_parser()
    return run_cli(parser, lambda: _run(parser, from_namespace(EvalSettings,
                                                               parser.parse_args(argv))))


def _run(parser, args: EvalSettings) -> int:
    if args.hands is not None:
        if args.hands % 2:
            raise UsageError(f"--hands must be even (2 hands per deal pair), got {args.hands}")
        pairs = args.hands // 2
    else:
        pairs = args.pairs
    if args.ladder or any(x is not None for x in (args.time_budget, args.baselines, args.plot)):
        if args.variant != "full":
            raise UsageError("--ladder rates the full game only; leave out --variant")
        return ladder.main(parser, args, pairs)
    if args.agent_b is None:
        raise UsageError("AGENT_B is required (or rate AGENT_A alone with --ladder)")
    pairs = pairs or DEFAULT_PAIRS
    load_agents(args.agent_a, args.agent_b, safe=args.safe)
    save_games = None if args.save_games is None else str(args.save_games)
    if save_games is not None:
        Path(save_games).mkdir(parents=True, exist_ok=True)
    result = run_duplicate(args.agent_a, args.agent_b, pairs, seed=args.seed,
                           workers=args.workers, progress=False if args.no_progress else None,
                           save_games=save_games, variant=args.variant)
    losses = biggest_losses(save_games, pairs) if save_games is not None else None
    if args.json:
        extra = {} if losses is None else {"saved_games": save_games,
                                           "biggest_losses": losses}
        print(json.dumps(result.to_dict() | extra))
    else:
        print(result.table())
        if losses is not None:
            print(losses_text(losses, args.agent_a))
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
