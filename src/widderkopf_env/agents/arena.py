"""Duplicate-deal evaluation of agent A against agent B.

Each deal is played twice. Game 1 is ``Game.new(seed=deal_seed)`` (a single hand) with A
as ``player_0`` and B as ``player_1``. Game 2 deals the same physical cards the other way
round: ``player_0``'s hand, face-up and face-down cards go to ``player_1`` and vice
versa, and the dealer is swapped, so A (still ``player_0``) now holds exactly the cards,
the dealer role and hence the trump choice (R9) that B had in game 1. Luck of the cards
cancels within a pair; what is left is skill.

The score of a pair is the mean of A's game points (``Game.returns()[0]``: +value when A
wins the hand, -value when B does) over its two games. The reported ``mean`` is the mean
of the pair scores, i.e. A's game points per hand, with a 95% normal-approximation
confidence interval ``mean +- 1.96 * sd / sqrt(pairs)`` over pairs (:func:`mean_ci95`).

Reproducible: the deal seeds and the agents' seeds (passed to ``agent.reset(seed)`` before
every game) are derived from ``seed`` and the pair's index only, and results are merged in
pair order, so the same seed gives identical numbers for any number of workers.

Agents are given as specs: a name or path for :func:`load_agent` (``"random"``,
``"heuristic"``, ``"model.zip"``), a picklable agent object (copied into each worker), or a
picklable zero-argument factory returning an agent. Every worker builds its own agents.
"""

from __future__ import annotations

import math
import multiprocessing
import sys
import time
from dataclasses import asdict, dataclass, field
from typing import NamedTuple

from widderkopf_env.agent import reset_agent
from widderkopf_env.cards import get_variant
from widderkopf_env.rules import Game, deal_to_spec
from widderkopf_env.seeding import default_workers, derive_seed

Z95 = 1.959963984540054  # two-sided 95% quantile of the standard normal


def swapped_deal(game: Game) -> Game:
    """The duplicate of a fresh single-hand ``game``: the same cards to the other seat,
    dealer swapped (and hence the trump chooser, R9)."""
    spec = deal_to_spec(game.deals[0])
    swapped = {"player_0": spec["player_1"], "player_1": spec["player_0"]}
    return Game.from_deal(swapped, dealer=1 - game.dealer, seed=game.seed,
                          variant=game.variant)


def play_game(game: Game, agents) -> Game:
    """Let ``agents[p]`` act for player ``p`` until the game is over; returns the game."""
    while not game.is_over:
        p = game.current
        game.apply(agents[p].act(game.view(p)))
    return game


class GameRecord(NamedTuple):
    """One finished game from A's point of view (A is player_0)."""

    points: float  #: A's game points (+value if A won the hand, -value if B did)
    won: bool  #: A won the hand
    value: int
    schneider: bool
    schwarz: bool
    crack_level: int
    cracker: int  #: who cracked: 0 = A, 1 = B, -1 = nobody
    recracker: int  #: who recracked, likewise
    card_points: int  #: A's card points


def _record(game: Game) -> GameRecord:
    r = game.results[-1]
    return GameRecord(game.returns()[0], r.winner == 0, r.value, r.schneider, r.schwarz,
                      r.crack_level, game.cracker, game.recracker, r.card_points[0])


def play_pair(agent_a, agent_b, seed: int, index: int,
              save_dir=None, variant=None) -> tuple[GameRecord, GameRecord]:
    """Play deal pair ``index`` of the run with ``seed``; the two games' records.
    With ``save_dir`` both games are also written there (``game_files.save_game``).
    ``variant``: a name in ``widderkopf_env.VARIANTS`` (None: the full game)."""
    deal_seed = derive_seed(seed, "deal", index)
    first = Game.new(seed=deal_seed, variant=variant)
    records = []
    for k, game in enumerate((first, swapped_deal(first))):
        reset_agent(agent_a, derive_seed(deal_seed, k, "a"))
        reset_agent(agent_b, derive_seed(deal_seed, k, "b"))
        records.append(_record(play_game(game, (agent_a, agent_b))))
        if save_dir is not None:
            from .game_files import save_game

            save_game(game, save_dir, index, k)
    return records[0], records[1]


# --- workers -------------------------------------------------------------------------------

_AGENT_CACHE: dict = {}


def _make_agent(spec):
    """An agent from a spec: a load_agent name/path (cached per process), an agent object,
    or a zero-argument factory."""
    if isinstance(spec, str):
        if spec not in _AGENT_CACHE:
            from . import load_agent

            _AGENT_CACHE[spec] = load_agent(spec)
        return _AGENT_CACHE[spec]
    if hasattr(spec, "act") and not isinstance(spec, type):
        return spec
    if callable(spec):  # a factory, e.g. an agent class
        return spec()
    raise TypeError(f"agent spec must be a name, an agent or a factory, got {spec!r}")


def _run_chunk(job) -> list:
    spec_a, spec_b, seed, start, stop, save_dir, variant = job
    a, b = _make_agent(spec_a), _make_agent(spec_b)
    return [play_pair(a, b, seed, i, save_dir, variant) for i in range(start, stop)]


#: What one decision of each shipped bot costs, relative to the heuristic's (the game's
#: own work included), for the progress bars: a deal pair weighs the sum of its two bots'
#: costs, so that a search bot's pairs count as the work they are (``bench/agents.py``
#: measures the bots; only the ratios matter here).
DECISION_COST = {"random": 1, "heuristic": 1, "ppo": 10, "ppo-v1": 10, "net-v1": 12, "net": 15,
                 "net-v2": 15, "net-endgame": 20, "net-search-fast": 1800, "net-search": 10000,
                 "pimc-uniform": 4000, "pimc": 6000, "ismcts-fast": 4000, "ismcts": 16000}
#: The cost of an agent :data:`DECISION_COST` does not name (a model file, your own class).
UNKNOWN_COST = 10


def pair_cost(agent_a, agent_b) -> float:
    """The weight of one deal pair of ``agent_a`` against ``agent_b`` in a progress bar:
    the sum of their :data:`DECISION_COST` (by :func:`agent_label`)."""
    return float(sum(DECISION_COST.get(agent_label(a), UNKNOWN_COST)
                     for a in (agent_a, agent_b)))


class Progress:
    """Deal pairs done, weighted by their cost: the bar moves by ``n * cost`` for ``n``
    pairs of that cost (:func:`pair_cost`), out of ``work`` (default: ``total``, every pair
    costing 1), so that its share and time left fit pairs of unequal cost; the pairs are
    counted beside it. tqdm if installed, else a plain stderr line; silent when disabled."""

    def __init__(self, total: int, enabled: bool, desc: str, work: float | None = None):
        self.total, self.done, self.bar, self.enabled = total, 0, None, enabled
        self.work, self.work_done = float(total if work is None else work), 0.0
        if enabled:
            try:
                from tqdm import tqdm
            except ImportError:
                self._line()
            else:
                self.bar = tqdm(total=self.work, desc=desc, file=sys.stderr,
                                bar_format="{desc}: {percentage:3.0f}%|{bar}| {postfix} "
                                           "[{elapsed}<{remaining}]",
                                postfix=self._pairs())

    def _pairs(self) -> str:
        return f"{self.done}/{self.total} deal pairs"

    def _line(self) -> None:
        share = 100 * self.work_done / self.work if self.work else 100.0
        sys.stderr.write(f"\r{self._pairs()}, {share:.0f}% of the work")
        sys.stderr.flush()

    def update(self, n: int, cost: float = 1.0) -> None:
        self.done += n
        self.work_done += n * cost
        if self.bar is not None:
            self.bar.set_postfix_str(self._pairs(), refresh=False)
            self.bar.update(n * cost)
        elif self.enabled:
            self._line()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
        elif self.enabled:
            sys.stderr.write("\n")


# --- results -------------------------------------------------------------------------------

@dataclass
class ArenaResult:
    """Summary of a duplicate match, from A's point of view. :meth:`to_dict` is JSON-ready."""

    agent_a: str
    agent_b: str
    seed: int
    pairs: int
    hands: int  #: games played: 2 per pair
    mean: float  #: A's game points per hand (mean of the pair scores)
    ci95: tuple[float, float]  #: 95% confidence interval of ``mean`` over pairs
    sd_pair: float  #: standard deviation of the pair scores
    win_rate: float  #: share of hands A won
    card_points: float  #: A's mean card points per hand (of 121)
    schneider: dict = field(default_factory=dict)  #: {"a", "b"}: share of hands won so
    schwarz: dict = field(default_factory=dict)  #: {"a", "b"}: share of hands won so
    cracks: dict = field(default_factory=dict)  #: crack statistics (see ``summarise``)
    seconds: float = 0.0  #: wall time (the only field that varies between runs)
    workers: int = 1
    #: A's score of each deal pair, in pair order (for bootstraps; left out of to_dict)
    pair_scores: list = field(default_factory=list, repr=False)

    def to_dict(self) -> dict:
        d = asdict(self)
        d["ci95"] = list(self.ci95)
        del d["pair_scores"]
        return d

    def table(self) -> str:
        """A human-readable summary."""
        c = self.cracks
        lo, hi = self.ci95
        lines = [
            f"{self.agent_a} (A) vs {self.agent_b} (B): {self.pairs} duplicate deal pairs, "
            f"{self.hands} hands, seed {self.seed}, {self.seconds:.1f} s on {self.workers} "
            "worker(s)",
            f"  A game points per hand   {self.mean:+.4f}   95% CI [{lo:+.4f}, {hi:+.4f}]",
            f"  A hands won              {100 * self.win_rate:.1f}%",
            f"  A card points per hand   {self.card_points:.2f} of 121",
            f"  schneider (91+) won      A {100 * self.schneider['a']:.1f}%   "
            f"B {100 * self.schneider['b']:.1f}%",
            f"  schwarz (121) won        A {100 * self.schwarz['a']:.1f}%   "
            f"B {100 * self.schwarz['b']:.1f}%",
            "  crack level reached      " + "   ".join(
                f"{lvl}: {100 * n / max(1, self.hands):.1f}%"
                for lvl, n in enumerate(c["levels"])),
        ]
        for side in ("a", "b"):
            s = c["by_" + side]
            if s["hands"]:
                lines.append(
                    f"  {side.upper()} cracked               {s['hands']} hands: A won "
                    f"{100 * s['a_win_rate']:.1f}%, A {s['a_mean']:+.3f} game points per hand")
            else:
                lines.append(f"  {side.upper()} cracked               never")
        return "\n".join(lines)


def _mean(xs) -> float:
    return math.fsum(xs) / len(xs) if xs else 0.0


def mean_ci95(scores) -> tuple[float, float, tuple[float, float]]:
    """The mean of ``scores``, their sample standard deviation and the 95%
    normal-approximation confidence interval of the mean, ``mean +- Z95 * sd / sqrt(n)``
    (infinite with fewer than two scores). Sums are exact (``math.fsum``)."""
    scores = [float(s) for s in scores]
    n = len(scores)
    mean = _mean(scores)
    sd = math.sqrt(math.fsum((s - mean) ** 2 for s in scores) / (n - 1)) if n > 1 else 0.0
    half = Z95 * sd / math.sqrt(n) if n > 1 else math.inf
    return mean, sd, (mean - half, mean + half)


def summarise(pairs: list, agent_a: str, agent_b: str, seed: int) -> ArenaResult:
    """Aggregate per-pair records (in pair order) into an :class:`ArenaResult`."""
    games = [g for pair in pairs for g in pair]
    n = len(pairs)
    scores = [(x.points + y.points) / 2 for x, y in pairs]
    mean, sd, ci95 = mean_ci95(scores)
    levels = [0] * 5
    for g in games:
        levels[g.crack_level] += 1

    def by(side: int) -> dict:
        sel = [g for g in games if g.cracker == side]
        return {"hands": len(sel), "a_win_rate": _mean([g.won for g in sel]),
                "a_mean": _mean([g.points for g in sel]),
                "recracked": sum(1 for g in sel if g.recracker >= 0)}

    def rate(field: str, won: bool) -> float:
        return _mean([bool(getattr(g, field)) and g.won == won for g in games])

    return ArenaResult(
        agent_a=agent_a, agent_b=agent_b, seed=seed, pairs=n, hands=len(games),
        mean=mean, ci95=ci95, sd_pair=sd,
        win_rate=_mean([g.won for g in games]), card_points=_mean([g.card_points for g in games]),
        schneider={"a": rate("schneider", True), "b": rate("schneider", False)},
        schwarz={"a": rate("schwarz", True), "b": rate("schwarz", False)},
        cracks={"levels": levels, "by_a": by(0), "by_b": by(1)}, pair_scores=scores,
    )


def agent_label(spec) -> str:
    """The name an agent spec is reported under: the spec itself, or the object's
    ``name`` (or its class's)."""
    if isinstance(spec, str):
        return spec
    return getattr(spec, "name", None) or getattr(spec, "__name__", None) or type(spec).__name__


def run_duplicate(agent_a, agent_b, pairs: int, seed: int = 0, workers: int | None = None,
                  progress: bool | None = None, chunk: int | None = None,
                  save_games=None, variant=None) -> ArenaResult:
    """Play ``pairs`` duplicate deal pairs (``2 * pairs`` hands) of A against B.

    ``workers``: processes (default: all cores; 1 runs in this process). ``progress``:
    show a progress bar on stderr (default: only when stderr is a terminal).
    ``save_games``: an existing directory to keep every game in as JSON
    (:mod:`widderkopf_env.agents.game_files`). ``variant``: the variant dealt (a name in
    ``widderkopf_env.VARIANTS``; None, the default, is the full game).
    """
    get_variant(variant)  # an unknown name fails here, naming the variants
    if isinstance(pairs, bool) or not isinstance(pairs, int) or pairs < 1:
        raise ValueError(f"pairs must be a positive int, got {pairs!r}")
    workers = max(1, min(workers or default_workers(), pairs))
    chunk = chunk or max(1, min(100, -(-pairs // (workers * 8))))
    jobs = [(agent_a, agent_b, seed, i, min(i + chunk, pairs), save_games, variant)
            for i in range(0, pairs, chunk)]
    if progress is None:
        progress = sys.stderr.isatty()
    cost = pair_cost(agent_a, agent_b)
    bar = Progress(pairs, progress, f"{agent_label(agent_a)} vs {agent_label(agent_b)}",
                   work=pairs * cost)
    t0 = time.perf_counter()
    results: list = []
    try:
        if workers == 1:
            for job in jobs:
                results.extend(_run_chunk(job))
                bar.update(job[4] - job[3], cost)
        else:
            with multiprocessing.get_context().Pool(workers) as pool:
                for part in pool.imap(_run_chunk, jobs):
                    results.extend(part)
                    bar.update(len(part), cost)
    finally:
        bar.close()
    out = summarise(results, agent_label(agent_a), agent_label(agent_b), seed)
    out.seconds, out.workers = time.perf_counter() - t0, workers
    return out
