"""Endgame solver speed: the C search against the landed one, on the same positions.

    python bench/solver.py [--positions N] [--tricks T ...] [--seed S] [--full]

For each number of tricks left, N positions at the start of a trick, each reached from
its own seeded deal by the heuristic bot playing both seats. Every position is solved
with a fresh table (``solve_actions(game, {})``, as PIMC and the values stages call it)
by the C search of this checkout (``csrc/solver/``) and by the landed one: the
``agents/_solver.c`` of commit ``LANDED``, compiled here from git under another module
name, with a node counter added and windows outside the values answered at once (as
``solver.make_search`` now does: without, some positions got wrong values), and run
behind the pure-Python root (as it shipped).
Both must give the same values for every card; with ``--python`` the pure-Python search
must too (rows up to 9 tricks left: it takes seconds a position beyond).

Prints, per row and search, the milliseconds per position (mean and slowest) and the
positions searched (trick starts, table hits included: mean and slowest), then how many
times as many positions per second the new search solves. Each row is timed over passes
repeated for at least half a second (at most 20), the two searches in turn, and each
position's fastest pass counts, the one least disturbed by other processes.

Then the values stages' way (``--games G``, 0 to skip; ``--stage-tricks LO HI``): every
position that ``train/value_data.py`` solves in G games of the heuristic against itself
(each card decision with ``LO..HI`` tricks left and more than one legal card, leads and
replies), solved game by game by each search, with a fresh table per position (how the
values stages called it before issue 39) and with one table per game
(``solver.world_table``, as they call it now), the four taking turns game by game. Each
game's fastest of five passes counts; all four must give the same values.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

from bench_args import parse

from widderkopf_env import Game
from widderkopf_env.agents import HeuristicAgent, solver
from widderkopf_env.rules import PLAY
from widderkopf_env.train.value_data import solved_here

LANDED = "dcbcdfa98be14543b3ef6e4770141372047da06e"  # agents/_solver.c before issue 39
ROOT = Path(__file__).resolve().parent.parent
PYTHON_UP_TO = 9
MIN_SECONDS, MAX_PASSES = 0.5, 20
STAGE_PASSES = 5
# (text, replacement) in the landed source: a node counter; windows outside 0..R answered
# at once (without, a window below 0 stores a wrong bound: the fix of solver.make_search);
# the module's own name
LANDED_PATCHES = (
    ("    int shift;     /* 64 - log2(cap) */\n} Searcher;",
     "    int shift;\n    unsigned long long nodes;\n} Searcher;"),
    ("    if (n <= 2) {\n        if (n == 2) return two_left",
     "    s->nodes++;\n    if (beta <= 0) return 0;\n    if (alpha >= R) return R;\n"
     "    if (n <= 2) {\n        if (n == 2) return two_left"),
    ("static PyGetSetDef Searcher_getset[] = {",
     "static PyObject *Searcher_get_nodes(Searcher *s, void *c) {\n    (void)c;\n"
     "    return PyLong_FromUnsignedLongLong(s->nodes);\n}\n\n"
     "static PyGetSetDef Searcher_getset[] = {"),
    ('    {"entries", (getter)Searcher_get_entries, NULL, "positions in the table", NULL},',
     '    {"entries", (getter)Searcher_get_entries, NULL, "positions in the table", NULL},\n'
     '    {"nodes", (getter)Searcher_get_nodes, NULL, "positions searched", NULL},'),
    ("PyInit__solver(", "PyInit__solver_landed("),
    ('.m_name = "_solver"', '.m_name = "_solver_landed"'),
)


def landed_search(workdir: str):
    """The landed C search (commit LANDED) built in ``workdir`` as ``_solver_landed``,
    configured with the solver's tables; SystemExit with the reason if it cannot be."""
    try:
        source = subprocess.run(["git", "-C", str(ROOT), "show", f"{LANDED}:agents/_solver.c"],
                                capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as err:
        raise SystemExit(f"the landed search needs a git checkout with commit {LANDED}: "
                         f"{err}") from err
    for old, new in LANDED_PATCHES:
        if source.count(old) != 1:
            raise SystemExit(f"the landed source does not have {old!r} once")
        source = source.replace(old, new)
    c_file = Path(workdir) / "_solver_landed.c"
    c_file.write_text(source)
    module = Path(workdir) / ("_solver_landed" + sysconfig.get_config_var("EXT_SUFFIX"))
    cc = sysconfig.get_config_var("CC") or "cc"
    try:
        subprocess.run([*cc.split(), "-O3", "-fwrapv", "-shared", "-fPIC",
                        "-I" + sysconfig.get_paths()["include"], str(c_file), "-o", str(module)],
                       capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError) as err:
        raise SystemExit(f"cannot compile the landed search: "
                         f"{getattr(err, 'stderr', err)}") from err
    spec = importlib.util.spec_from_file_location("_solver_landed", module)
    landed = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(landed)
    landed.configure(tuple(tables[2:] for tables in solver.TABLES))
    return landed


def positions(tricks_left: int, count: int, seed: int) -> list[Game]:
    """``count`` games at the start of a trick with ``tricks_left`` tricks to play."""
    out, heuristic, i = [], HeuristicAgent(seed=seed), 0
    while len(out) < count:
        game = Game.new(seed=seed * 100_003 + tricks_left * 1_000 + i)
        i += 1
        while not game.is_over:
            if game.phase == PLAY and game.lead < 0 and 17 - len(game.tricks) == tricks_left:
                out.append(game)
                break
            game.apply(heuristic.act(game.view(game.current)))
    return out


@contextlib.contextmanager
def searching_with(search):
    """The solver's calls inside run the C module ``search`` (None: the pure-Python
    search)."""
    saved, solver._accel = solver._accel, search
    try:
        yield
    finally:
        solver._accel = saved


def solve_pass(games: list[Game], search) -> tuple[list[float], list[int], list[dict]]:
    """Seconds, positions searched and values of each game, solved by the C module
    ``search`` (None: the pure-Python search), each with a fresh table."""
    seconds, nodes, values = [], [], []
    with searching_with(search):
        for game in games:
            tt: dict = {}
            t0 = time.perf_counter()
            values.append(solver.solve_actions(game, tt))
            seconds.append(time.perf_counter() - t0)
            nodes.append(tt[solver._C_TABLE].nodes if search is not None else 0)
    return seconds, nodes, values


def row(games: list[Game], searches: list) -> list[tuple[list[float], list[int]]]:
    """Per search: each game's fastest seconds over the passes, and its positions
    searched; SystemExit if the searches' values differ."""
    best = [[float("inf")] * len(games) for _ in searches]
    nodes, spent, passes, values = [None] * len(searches), 0.0, 0, None
    while spent < MIN_SECONDS and passes < MAX_PASSES:
        for k, search in enumerate(searches):
            seconds, nodes[k], got = solve_pass(games, search)
            best[k] = [min(a, b) for a, b in zip(best[k], seconds, strict=True)]
            spent += sum(seconds)
            if values is None:
                values = got
            elif got != values:
                raise SystemExit(f"the searches disagree at {17 - len(games[0].tricks)} "
                                 f"tricks left")
        passes += 1
    return list(zip(best, nodes, strict=True))


def game_positions(games: int, lo: int, hi: int, seed: int) -> list[list[Game]]:
    """Per game, the positions the values stages solve with ``lo..hi`` tricks left."""
    out, heuristic = [], HeuristicAgent(seed=seed)
    for i in range(games):
        game, seq = Game.new(seed=seed * 100_003 + 99_000 + i), []
        while not game.is_over:
            view = game.view(game.current)
            if solved_here(game, view, (lo, hi)):
                seq.append(game.clone())
            game.apply(heuristic.act(view))
        if seq:  # a hand given up before lo..hi tricks left has none
            out.append(seq)
    return out


def stage_game(seq: list[Game], search, kept: bool) -> tuple[float, list]:
    """Seconds and values of one game's positions, solved in order by the C module
    ``search``, with one table for the game (``kept``) or a fresh one per position."""
    with searching_with(search):
        t0 = time.perf_counter()
        tt = solver.world_table(seq[0]) if kept else None  # None: a fresh one each
        values = [solver.solve_actions(g, tt) for g in seq]
        return time.perf_counter() - t0, values


def stage(games: list[list[Game]], landed) -> list[float]:
    """The landed search and the new one, each with a table per position and one per
    game, taking turns game by game: each game's fastest seconds over the passes, summed;
    SystemExit if their values differ."""
    forms = [(landed, False), (landed, True), (solver._accel, False), (solver._accel, True)]
    best = [0.0] * len(forms)
    for seq in games:
        fastest, values = [float("inf")] * len(forms), None
        for _ in range(STAGE_PASSES):
            for k, (search, kept) in enumerate(forms):
                seconds, got = stage_game(seq, search, kept)
                fastest[k] = min(fastest[k], seconds)
                if values is None:
                    values = got
                elif got != values:
                    raise SystemExit("the values stages' solves disagree")
        best = [b + f for b, f in zip(best, fastest, strict=True)]
    return best


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--positions", type=int, default=5, help="positions per tricks-left count")
    p.add_argument("--tricks", type=int, nargs="+", default=[6, 9, 12],
                   help="the tricks-left counts, 2..17")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--games", type=int, default=4,
                   help="games solved the values stages' way (0: skip)")
    p.add_argument("--stage-tricks", type=int, nargs=2, default=[9, 12], metavar=("LO", "HI"),
                   help="the tricks left of the values stages' positions")
    p.add_argument("--python", action="store_true",
                   help=f"also check the pure-Python search's values (up to {PYTHON_UP_TO} "
                        "tricks left)")
    args = parse(p, argv, positions=20, tricks=[6, 8, 9, 10, 11, 12], games=30)
    if args.positions < 1:
        p.error("--positions must be at least 1")
    if args.games < 0:
        p.error("--games must be at least 0")
    lo, hi = args.stage_tricks
    if not 1 <= lo <= hi <= 17:
        p.error(f"--stage-tricks must be LO HI with 1 <= LO <= HI <= 17, got {lo} {hi}")
    if not all(2 <= t <= 17 for t in args.tricks):
        p.error(f"--tricks must be 2..17, got {args.tricks}")
    if not solver.ACCELERATED:
        raise SystemExit("the C search is not built (or WIDDERKOPF_PURE_PYTHON is set)")
    with tempfile.TemporaryDirectory() as workdir:
        landed = landed_search(workdir)
        print(f"solve_actions(game, {{}}) at a trick start, {args.positions} positions a row; "
              f"ms per position and positions searched, mean / slowest")
        print(f"  {'tricks':>6s} | {'landed ms':>15s} {'nodes':>17s} | {'new ms':>15s} "
              f"{'nodes':>17s} | {'speedup':>7s}")
        for left in args.tricks:
            games = positions(left, args.positions, args.seed)
            searches = [landed, solver._accel]
            if args.python and left <= PYTHON_UP_TO:
                searches.append(None)
            cells, totals = [], []
            for seconds, nodes in row(games, searches)[:2]:
                ms = [1000 * s for s in seconds]
                cells.append(f"{sum(ms) / len(ms):7.3f} / {max(ms):7.3f} "
                             f"{sum(nodes) / len(nodes):8.0f} / {max(nodes):7d}")
                totals.append(sum(seconds))
            print(f"  {left:6d} | {cells[0]} | {cells[1]} | {totals[0] / totals[1]:6.2f}x")
            sys.stdout.flush()
        if args.games:
            games = game_positions(args.games, lo, hi, args.seed)
            count = sum(map(len, games))
            ms = [1000 * t / count for t in stage(games, landed)]
            print(f"the values stages' way: {count} positions of {len(games)} game(s), {lo}-{hi} "
                  f"tricks left; ms per position")
            for k, name in enumerate(("landed, a table per position", "landed, a table per game",
                                      "new, a table per position", "new, a table per game")):
                print(f"  {name:28s} {ms[k]:8.3f}  {ms[0] / ms[k]:5.2f}x")


if __name__ == "__main__":
    main()
