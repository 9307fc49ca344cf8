"""Ladder ratings: an agent's strength as one number on a fixed scale of baseline bots.

``widderkopf-eval AGENT --ladder`` (or :func:`run_ladder`) plays AGENT against every
baseline of the stored reference run in the duplicate arena and places it on the
baselines' scale.

What a rating means
-------------------
The unit of play is the arena's duplicate deal pair (:mod:`.arena`: one deal played twice,
the cards and the dealer swapped). A pair's result for A is A's game points over its two
hands, a continuous number. The ladder turns it into an outcome: a pair is *won* if A's
game points over the two hands are positive, *lost* if negative, *drawn* if zero (the
same cards won the same value both times), scored 1, 1/2 and 0 as chess scores a game.

Ratings are Elo points: the model (Bradley-Terry on the Elo scale) says A's expected score
per pair against B is

    E(A, B) = 1 / (1 + 10 ** (-(R_A - R_B) / 400))

so a gap of 400 points means the stronger agent scores 10 of every 11 pairs (91%, draws
counted half), 200 points 76%, 100 points 64%, 0 points 50%. The random bot is 0 by
definition. Counting outcomes rather than averaging game points keeps the rare 32- and
64-point hands from dominating a small sample, and the logistic curve saturates as pair
results do (a bot cannot win more than every pair); the mean game points per hand of each
matchup, with their 95% interval, are reported beside the rating.

The fit
-------
Maximum likelihood over the win/draw/loss counts (a draw counts as half a win and half a
loss, the usual Elo treatment), solved by Newton's method; the log-likelihood is concave,
so it has one maximum. Each matchup gets :data:`PRIOR_DRAWS` virtual drawn pair, which
keeps a clean sweep finite and pulls a rating towards its opponents' by a small amount
(1 pair in 200 moves a 91% score to 90.6%).

The scale is fixed by ``ladder_reference.json`` (next to this module; made by
``python scripts/ladder_reference.py``, which says how): a round robin among the baselines,
fitted jointly with random = 0. An agent is placed by fitting its rating alone with the
baselines held at their reference ratings, so numbers from different runs and agents are
comparable. Its 95% interval is a bootstrap over deal pairs: every matchup's pairs are
resampled with replacement, the rating refitted, and the 2.5% and 97.5% quantiles of
:data:`BOOTSTRAP_SAMPLES` refits taken. It covers the agent's sampling error only; the
baselines' own intervals (in the reference file) belong to the scale's definition.

Reproducible: pairs are played in blocks of :data:`CHUNK`, block ``k`` against opponent
``o`` on the deals of seed ``derive_seed(seed, "ladder", o, k)``, so a run with more pairs
extends one with fewer, every agent meets the same deals, and the bootstrap is seeded.
``time_budget`` stops early when the time is spent, so its pair counts depend on speed.
"""

from __future__ import annotations

import json
import math
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from widderkopf_env.cli import UsageError, missing_extra, number, output_file
from widderkopf_env.seeding import default_workers, derive_seed

from .arena import Progress, agent_label, mean_ci95, pair_cost, run_duplicate
from .cli_args import load_agents

ELO_SCALE = 400.0  #: rating points per factor of 10 in the odds of winning a pair
_C = math.log(10.0) / ELO_SCALE
PRIOR_DRAWS = 1.0  #: virtual drawn pairs added to every matchup
BOOTSTRAP_SAMPLES = 1000
CHUNK = 50  #: pairs per arena call (one block of deals)
DEFAULT_PAIRS = 200  #: pairs per opponent
#: The longest ``--time-budget`` taken (seconds): a week.
MAX_TIME_BUDGET = 7 * 24 * 3600
REFERENCE_FILE = Path(__file__).with_name("ladder_reference.json")


def expected_score(diff):
    """A's expected score per duplicate pair when A is rated ``diff`` points above B."""
    return 1.0 / (1.0 + 10.0 ** (-np.asarray(diff, dtype=float) / ELO_SCALE))


@dataclass
class Matchup:
    """Duplicate results of ``a`` against ``b``: pair outcomes and game points."""

    a: str
    b: str
    wins: int
    draws: int
    losses: int
    mean: float  #: a's game points per hand
    ci95: tuple  #: 95% interval of ``mean`` over pairs (normal approximation)
    seconds: float = 0.0

    @property
    def pairs(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        """a's share of the pair points (won 1, drawn 1/2)."""
        return (self.wins + 0.5 * self.draws) / self.pairs if self.pairs else 0.5

    @classmethod
    def from_scores(cls, a: str, b: str, scores, seconds: float = 0.0) -> Matchup:
        """From the arena's pair scores (a's game points per hand in each pair)."""
        s = np.asarray(scores, dtype=float)
        n = s.size
        if n == 0:
            raise ValueError(f"no pairs played between {a} and {b}")
        mean, _, ci95 = mean_ci95(s)
        return cls(a, b, int((s > 0).sum()), int((s == 0).sum()), int((s < 0).sum()), mean,
                   ci95, seconds)

    def to_dict(self) -> dict:
        return {**asdict(self), "ci95": list(self.ci95), "pairs": self.pairs,
                "score": self.score}

    @classmethod
    def from_dict(cls, d: dict) -> Matchup:
        return cls(d["a"], d["b"], d["wins"], d["draws"], d["losses"], d["mean"],
                   tuple(d["ci95"]), d.get("seconds", 0.0))


# --- the fit -------------------------------------------------------------------------------

def _newton(players: list, matchups: list, fixed: dict, wdl: np.ndarray,
            prior: float) -> np.ndarray:
    """Maximum-likelihood ratings for a batch of outcome counts.

    ``wdl``: ``(B, M, 3)`` win/draw/loss counts of the M matchups in each of B samples.
    Returns ``(B, len(players))`` ratings; players in ``fixed`` keep their values."""
    index = {p: i for i, p in enumerate(players)}
    inc = np.zeros((len(matchups), len(players)))  # +1 for a, -1 for b
    for m, mu in enumerate(matchups):
        inc[m, index[mu.a]] += 1.0
        inc[m, index[mu.b]] -= 1.0
    n = wdl.sum(axis=2) + prior  # (B, M)
    w = wdl[..., 0] + 0.5 * wdl[..., 1] + 0.5 * prior
    free = [i for i, p in enumerate(players) if p not in fixed]
    r = np.zeros((wdl.shape[0], len(players)))
    for name, value in fixed.items():
        if name in index:
            r[:, index[name]] = value
    if not free:
        return r
    a = inc[:, free]
    for _ in range(200):
        p = 1.0 / (1.0 + np.exp(-_C * (r @ inc.T)))
        grad = (w - n * p) @ a  # the log-likelihood's gradient / _C
        hess = np.einsum("mi,bm,mj->bij", a, n * p * (1.0 - p), a)
        step = np.linalg.solve(hess, grad[..., None])[..., 0] / _C
        step = np.clip(step, -ELO_SCALE, ELO_SCALE)
        r[:, free] += step
        if np.abs(step).max() < 1e-7:
            break
    return r


def _check_connected(players: list, matchups: list, fixed: dict) -> None:
    reached = {p for p in players if p in fixed}
    if not reached:
        raise ValueError("at least one player's rating must be fixed (the anchor)")
    grew = True
    while grew:
        grew = False
        for m in matchups:
            if (m.a in reached) != (m.b in reached):
                reached |= {m.a, m.b}
                grew = True
    missing = sorted(set(players) - reached)
    if missing:
        raise ValueError(f"no chain of matchups links {missing} to a fixed rating")


def fit_ratings(matchups: list, fixed: dict, prior_draws: float = PRIOR_DRAWS) -> dict:
    """Elo ratings of every player in ``matchups`` (maximum likelihood, see the module
    documentation); the players in ``fixed`` (name -> rating, at least one) keep theirs."""
    players = _players(matchups)
    _check_connected(players, matchups, fixed)
    counts = np.array([[[m.wins, m.draws, m.losses] for m in matchups]], dtype=float)
    r = _newton(players, matchups, fixed, counts, prior_draws)[0]
    return {p: float(v) for p, v in zip(players, r, strict=True)}


def bootstrap_ratings(matchups: list, fixed: dict, seed: int = 0,
                      samples: int = BOOTSTRAP_SAMPLES, prior_draws: float = PRIOR_DRAWS) -> dict:
    """95% intervals of :func:`fit_ratings` by a bootstrap over deal pairs: each matchup's
    pairs resampled with replacement (its win/draw/loss counts drawn multinomially, which
    is the same thing), ``samples`` times. Returns name -> (low, high)."""
    players = _players(matchups)
    _check_connected(players, matchups, fixed)
    rng = np.random.default_rng(seed)
    wdl = np.empty((samples, len(matchups), 3))
    for i, m in enumerate(matchups):
        wdl[:, i] = rng.multinomial(m.pairs, np.array([m.wins, m.draws, m.losses]) / m.pairs,
                                    size=samples)
    r = _newton(players, matchups, fixed, wdl, prior_draws)
    lo, hi = np.quantile(r, [0.025, 0.975], axis=0)
    return {p: (float(a), float(b)) for p, a, b in zip(players, lo, hi, strict=True)}


def _players(matchups: list) -> list:
    """Everyone in ``matchups``, in order of appearance."""
    return list(dict.fromkeys(p for m in matchups for p in (m.a, m.b)))


# --- playing -------------------------------------------------------------------------------

def play_matchup(agent, opponent, pairs: int, seed: int = 0, workers: int | None = None,
                 deadline: float | None = None, on_block=None) -> Matchup:
    """Play up to ``pairs`` duplicate pairs of ``agent`` against ``opponent`` in blocks of
    :data:`CHUNK` (see the module documentation). With a ``deadline`` (a
    ``time.perf_counter()`` value) the first block is small (two pairs per worker) and
    times the games; later blocks are cut to what fits before the deadline, and play stops
    when not one more pair fits. ``on_block(n)`` is called after each block of n pairs."""
    name = agent_label(opponent)
    scores: list = []
    t0 = time.perf_counter()
    block = 0
    while len(scores) < pairs:
        n = min(CHUNK, pairs - len(scores))
        if deadline is not None and not scores:  # a first, small block to time the games
            n = min(n, 2 * (workers or default_workers()))
        elif deadline is not None:
            left = deadline - time.perf_counter()
            rate = (time.perf_counter() - t0) / len(scores)  # seconds per pair so far
            n = min(n, int(left / rate))
            if n < 1:
                break
        res = run_duplicate(agent, opponent, n, seed=derive_seed(seed, "ladder", name, block),
                            workers=workers, progress=False)
        scores.extend(res.pair_scores)
        block += 1
        if on_block is not None:
            on_block(n)
    return Matchup.from_scores(agent_label(agent), name, scores, time.perf_counter() - t0)


def load_reference(path=None) -> dict:
    """The stored reference run (``ladder_reference.json``): ``players`` (name ->
    ``{"rating", "ci95"}``), ``matchups``, ``anchor`` and how it was made."""
    path = Path(path) if path is not None else REFERENCE_FILE
    if not path.is_file():
        raise FileNotFoundError(f"no ladder reference file at {str(path)!r}")
    return json.loads(path.read_text())


@dataclass
class LadderResult:
    """An agent's place on the ladder. :meth:`to_dict` is JSON-ready."""

    agent: str
    rating: float  #: Elo points, random = 0
    ci95: tuple  #: bootstrap 95% interval over deal pairs
    matchups: list  #: a :class:`Matchup` per baseline, the agent as ``a``
    baselines: dict  #: name -> {"rating", "ci95"} from the reference run
    seed: int
    pairs: int  #: pairs asked for per opponent (fewer where a time budget ran out)
    seconds: float
    bootstrap_samples: int = BOOTSTRAP_SAMPLES
    scale: dict | None = None  #: every player of the reference run (for the plot)

    def to_dict(self) -> dict:
        return {"agent": self.agent, "rating": self.rating, "ci95": list(self.ci95),
                "scale": "Elo over duplicate deal pairs (won 1, drawn 1/2, lost 0): expected "
                         "score 1 / (1 + 10^(-(R_A - R_B) / 400)); random = 0",
                "matchups": [m.to_dict() for m in self.matchups], "baselines": self.baselines,
                "seed": self.seed, "pairs": self.pairs, "seconds": self.seconds,
                "bootstrap_samples": self.bootstrap_samples}

    def table(self) -> str:
        lo, hi = self.ci95
        played = sum(m.pairs for m in self.matchups)
        lines = [
            f"{self.agent}: {self.rating:.0f} Elo, 95% CI [{lo:.0f}, {hi:.0f}]  (random = 0; "
            f"{played} duplicate deal pairs, seed {self.seed}, {self.seconds:.1f} s)",
            f"  {'opponent':<12}{'rating':>7}{'pairs':>7}{'won':>6}{'drawn':>7}{'lost':>6}"
            f"{'score':>7}{'expected':>10}   game points per hand [95% CI]",
        ]
        for m in self.matchups:
            r = self.baselines[m.b]["rating"]
            lines.append(
                f"  {m.b:<12}{r:>7.0f}{m.pairs:>7}{m.wins:>6}{m.draws:>7}{m.losses:>6}"
                f"{m.score:>7.3f}{float(expected_score(self.rating - r)):>10.3f}   "
                f"{m.mean:+.3f} [{m.ci95[0]:+.3f}, {m.ci95[1]:+.3f}]")
        lines.append("  score: share of pairs won (drawn = 1/2); expected: the fitted model's. "
                     "A 400-point gap means a 10:1 score.")
        return "\n".join(lines)

    def plot(self, path) -> None:
        """Draw the baselines (reference intervals) and the agent (its interval) on the
        rating axis as a PNG."""
        try:
            import matplotlib
        except ImportError as err:
            raise ImportError(missing_extra("the ladder plot", "train", err)) from err
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        scale = self.scale or self.baselines
        rows = [(b["rating"], b["ci95"], name, "tab:blue" if name in self.baselines else "grey")
                for name, b in scale.items()]
        rows.append((self.rating, self.ci95, f"{self.agent} (this run)", "tab:red"))
        rows.sort(key=lambda row: row[0])
        fig, ax = plt.subplots(figsize=(7, 0.6 * len(rows) + 1.4), dpi=100)
        for y, (r, (lo, hi), label, colour) in enumerate(rows):
            ax.errorbar([r], [y], xerr=[[r - lo], [hi - r]], fmt="o", color=colour, capsize=4)
            ax.annotate(f"{label}  {r:.0f}", (r, y), textcoords="offset points", xytext=(0, 7),
                        ha="center", fontsize=9, color=colour)
        ax.set_yticks([])
        ax.set_ylim(-0.7, len(rows) - 0.3)
        ax.set_xlabel("Elo over duplicate deal pairs (random = 0; 400 points = 10:1 score)")
        ax.set_title("Widderkopf ladder (bars: 95% intervals; grey: not played this run)"
                     if len(scale) > len(self.baselines) else
                     "Widderkopf ladder (bars: 95% intervals)")
        ax.grid(axis="x", alpha=0.3)
        fig.tight_layout()
        fig.savefig(path)
        plt.close(fig)


def run_ladder(agent, pairs: int = DEFAULT_PAIRS, seed: int = 0, workers: int | None = None,
               time_budget: float | None = None, baselines=None, reference=None,
               progress: bool | None = None, samples: int = BOOTSTRAP_SAMPLES) -> LadderResult:
    """Play ``agent`` (a :func:`load_agent` spec or an agent) against every baseline of the
    reference run (or those named in ``baselines``), ``pairs`` duplicate pairs each (fewer
    if ``time_budget`` seconds run out: the budget is shared out evenly over the opponents
    still to play), and place it on the reference scale. ``progress``: a progress bar on
    stderr (default: when stderr is a terminal)."""
    if isinstance(pairs, bool) or not isinstance(pairs, int) or pairs < 1:
        raise ValueError(f"pairs must be a positive int, got {pairs!r}")
    if time_budget is not None and not time_budget > 0:
        raise ValueError(f"time_budget must be a positive number of seconds, got {time_budget!r}")
    ref = load_reference(reference)
    if baselines is None:
        baselines = ref["players"]
    else:
        unknown = [b for b in baselines if b not in ref["players"]]
        if unknown or not baselines:
            raise ValueError(f"baselines must be some of the reference run's players "
                             f"{list(ref['players'])}, got {list(baselines)}")
        baselines = {b: ref["players"][b] for b in baselines}
    t0 = time.perf_counter()
    costs = {opponent: pair_cost(agent, opponent) for opponent in baselines}
    bar = Progress(pairs * len(baselines),
                    sys.stderr.isatty() if progress is None else progress,
                    f"{agent_label(agent)} ladder", work=pairs * sum(costs.values()))
    matchups = []
    try:
        for k, opponent in enumerate(baselines):
            deadline = None
            if time_budget is not None:
                left = time_budget - (time.perf_counter() - t0)
                deadline = time.perf_counter() + left / (len(baselines) - k)
            matchups.append(play_matchup(agent, opponent, pairs, seed, workers, deadline,
                                         on_block=lambda n, c=costs[opponent]: bar.update(n, c)))
    finally:
        bar.close()
    name = agent_label(agent)
    if name in baselines:  # the agent is itself a baseline: keep the two apart in the fit
        name += " (this run)"
        for m in matchups:
            m.a = name
    fixed = {b: v["rating"] for b, v in baselines.items()}
    rating = fit_ratings(matchups, fixed)[name]
    lo, hi = bootstrap_ratings(matchups, fixed, seed=derive_seed(seed, "ladder-bootstrap"),
                               samples=samples)[name]
    return LadderResult(name, rating, (lo, hi), matchups, baselines, seed, pairs,
                        time.perf_counter() - t0, samples, scale=ref["players"])


# --- the command line (widderkopf-eval AGENT --ladder) ---------------------------------------


def add_arguments(parser) -> None:
    """The ladder's options of ``widderkopf-eval``."""
    g = parser.add_argument_group(
        "ladder", "AGENT against every baseline, placed on one Elo scale (random = 0)")
    g.add_argument("--ladder", action="store_true",
                   help="rate AGENT_A on the ladder (give no AGENT_B); --pairs counts pairs "
                        f"per opponent (default {DEFAULT_PAIRS})")
    g.add_argument("--time-budget", type=number(0, MAX_TIME_BUDGET, low_open=True),
                   metavar="SECONDS",
                   help="with --ladder: stop each opponent's games when its share of the "
                        "budget is spent (pair counts then depend on speed; at most "
                        f"{MAX_TIME_BUDGET:,} seconds, a week)")
    g.add_argument("--baselines", metavar="LIST",
                   help="with --ladder: comma-separated baselines to play (default: all of "
                        "the reference run, e.g. random,heuristic,ppo-v1 to leave out pimc-uniform)")
    g.add_argument("--plot", metavar="PNG", type=output_file,
                   help="with --ladder: draw the ladder to this file (.png, .svg, .pdf, ...; "
                        "needs matplotlib: the [train] extra)")


def _check_plot_format(path) -> None:
    """``--plot``'s matplotlib is installed and writes the file's format."""
    try:
        import matplotlib  # noqa: F401  (first: its submodules may be imported already)
        from matplotlib.backend_bases import FigureCanvasBase
    except ImportError as err:
        raise UsageError(missing_extra("the ladder plot (--plot)", "train", err)) from None
    formats = FigureCanvasBase.get_supported_filetypes()
    suffix = Path(path).suffix.lower().lstrip(".")
    if suffix not in formats:
        raise UsageError(f"--plot {str(path)!r}: name the picture's format by its ending, "
                         f"one of {', '.join('.' + f for f in sorted(formats))}")


def main(parser, args, pairs: int | None) -> int:
    """Run ``widderkopf-eval AGENT --ladder`` from parsed ``args``; usage errors through
    ``parser.error`` (exit 2)."""
    if not args.ladder:
        parser.error("--time-budget, --baselines and --plot go with --ladder")
    if args.agent_b is not None:
        parser.error(f"--ladder plays AGENT_A against every baseline: drop AGENT_B "
                     f"({args.agent_b!r})")
    if args.plot is not None:
        _check_plot_format(args.plot)
    load_agents(args.agent_a, safe=getattr(args, "safe", False))
    baselines = None
    if args.baselines is not None:
        baselines = [b.strip() for b in args.baselines.split(",") if b.strip()]
        known = list(load_reference()["players"])
        if not baselines or any(b not in known for b in baselines):
            parser.error(f"--baselines: expected some of {','.join(known)}, "
                         f"got {args.baselines!r}")
    result = run_ladder(args.agent_a, pairs or DEFAULT_PAIRS, seed=args.seed,
                        workers=args.workers, time_budget=args.time_budget,
                        baselines=baselines, progress=False if args.no_progress else None)
    if args.plot is not None:
        result.plot(args.plot)
    print(json.dumps(result.to_dict()) if args.json else result.table())
    sys.stdout.flush()
    return 0
