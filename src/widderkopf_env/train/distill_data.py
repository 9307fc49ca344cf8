"""Data for imitation: positions from varied play, labelled by an expert bot.

Each shard is one seeded batch of matches. At every decision of either seat that has
more than one legal action and is of a kind asked for (:data:`KINDS`, :func:`kind_of`),
the expert decides and the position is stored with its label: the observation and mask
the acting player's view encodes to, the expert's action, and for a search expert
(:meth:`~widderkopf_env.agents.pimc.PIMCAgent.decide`,
:meth:`~widderkopf_env.agents.net_search.NetSearchAgent.decide`) the mean world score of
every card or suit it compared and its estimated win chance (NaN where not compared, and
always for the heuristic expert, which only names its move). The move then actually
played is the expert's most of the time, else the heuristic's or a random legal one
(``mix``), or, in DAgger rounds, the current network's: the data covers the positions a
learner reaches, not only those the expert would.

Shards are written and read by :mod:`.shards` (atomically and durably), so an interrupted
run resumes where it stopped: :func:`generate` keeps the shards that read back whole and
writes the others again. Shard ``k`` of seed ``s`` is the same file whatever the number
of workers.
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np

from widderkopf_env.agents.heuristic import HeuristicAgent
from widderkopf_env.agents.network_file import load_net_agent
from widderkopf_env.agents.pimc import Decision, PIMCAgent
from widderkopf_env.cards import ESCALATE, NUM_ACTIONS, PASS
from widderkopf_env.observation import OBS_SIZE, encode_with_mask
from widderkopf_env.rules import DISCARD, TRUMP, Game

from .shards import run_shards, whole

__all__ = ["EXPERTS", "FIELDS", "KINDS", "MAX_MATCHES", "MAX_SAMPLES", "generate",
           "generate_shard", "kind_of"]

#: Arrays of a shard, one row per labelled position.
FIELDS = ("obs", "mask", "action", "values", "win", "phase")
#: The most matches of one shard (its rows are held in memory until it is written, about
#: 0.2 MB a match), and the most PIMC worlds per decision.
MAX_MATCHES, MAX_SAMPLES = 1000, 10_000


#: The experts that label positions: PIMC with opponent inference, PIMC with uniform
#: worlds, the heuristic bot (its move only: cheap, deterministic labels), and the search
#: over ``net-v2`` in its strong and its fast setting.
EXPERTS = ("pimc", "pimc-uniform", "heuristic", "net-search", "net-search-fast")
#: The kinds of decision (:func:`kind_of`).
KINDS = ("trump", "discard", "crack", "play")


def kind_of(view) -> str:
    """The kind of the decision at ``view``: ``"trump"`` (R9), ``"discard"`` (R10),
    ``"crack"`` where an escalation or a pass is legal (R11: an answer, or the due
    player's choice before their first card), else ``"play"``."""
    if view.phase == TRUMP:
        return "trump"
    if view.phase == DISCARD:
        return "discard"
    return "crack" if view.legal >> ESCALATE & 1 or view.legal >> PASS & 1 else "play"


class _HeuristicExpert:
    """The heuristic bot as an expert: its move, nothing compared."""

    def __init__(self):
        self.bot = HeuristicAgent()

    def decide(self, view) -> Decision:
        return Decision(self.bot.act(view))


def _expert(name: str, seed: int, samples: int | None, kinds=KINDS):
    if name == "heuristic":
        return _HeuristicExpert()
    if name in ("pimc", "pimc-uniform"):
        return PIMCAgent(seed=seed, samples=samples, infer=name == "pimc")
    if name in ("net-search", "net-search-fast"):
        from widderkopf_env.agents.net_search import FAST, NetSearchAgent

        settings = dict(FAST) if name == "net-search-fast" else {}
        if samples is not None:
            settings["worlds"] = samples
        # only the kinds labelled are searched; at the others it plays as ``net-v2``
        searched = [k for k in kinds if k in NetSearchAgent.SEARCHED]
        return NetSearchAgent(seed, searched=searched, name=name, **settings)
    raise ValueError(f"expert must be one of {', '.join(EXPERTS)}, got {name!r}")


def _behaviour(mix: tuple[float, float, float], rng: random.Random) -> str:
    x = rng.random()
    if x < mix[0]:
        return "expert"
    return "heuristic" if x < mix[0] + mix[1] else "other"


def _check_kinds(kinds) -> tuple[str, ...]:
    kinds = (kinds,) if isinstance(kinds, str) else tuple(kinds)
    unknown = sorted(set(kinds) - set(KINDS))
    if not kinds or unknown:
        raise ValueError(f"kinds must name one or more of {', '.join(KINDS)}, got "
                         f"{list(kinds)!r}")
    return kinds


def generate_shard(k: int, seed: int, matches: int, samples: int | None = None,
                   mix=(0.7, 0.2, 0.1), policy=None, expert: str = "pimc",
                   kinds=KINDS) -> dict[str, np.ndarray]:
    """The labelled positions of shard ``k`` (``matches`` matches of 1-3 hands).

    ``mix``: the chance that the move played is the expert's, the heuristic's, or the
    third kind's (a random legal move, or ``policy``'s when a policy agent is given:
    the DAgger rounds). ``samples``: a search expert's worlds per decision (None: its
    defaults); ``expert``: a name in :data:`EXPERTS`; ``kinds``: the kinds of decision
    labelled and stored (of :data:`KINDS`). At the others the expert is asked only for
    a move it plays, and a ``net-search`` expert plays those as ``net-v2`` does."""
    if len(mix) != 3 or min(mix) < 0 or abs(sum(mix) - 1.0) > 1e-9:
        raise ValueError(f"mix must be three non-negative shares summing to 1, got {mix!r}")
    kinds = _check_kinds(kinds)
    base = seed * 1_000_003 + k
    rng = random.Random(base)
    labeller = _expert(expert, base, samples, kinds)
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
            labelled = kind_of(view) in kinds
            kind = _behaviour(mix, rng)
            d = labeller.decide(view) if labelled or kind == "expert" else None
            if labelled:
                _store(rows, view, d)
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


def _store(rows: dict, view, d: Decision) -> None:
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


def _job(args) -> tuple[int, Path, dict]:
    k, out, seed, matches, samples, mix, policy_file, expert, kinds = args
    policy = None
    if policy_file is not None:
        policy = load_net_agent(policy_file, seed=k)
    return k, out, generate_shard(k, seed, matches, samples, mix, policy, expert, kinds)


def generate(out, shards: int, seed: int = 0, matches: int = 4, samples: int | None = None,
             mix=(0.7, 0.2, 0.1), workers: int = 1, policy_file=None, expert: str = "pimc",
             log=print, keep=whole, on_shard=None, kinds=KINDS) -> int:
    """Write shards ``0..shards-1`` of ``seed`` into ``out`` (keeping whole finished ones:
    ``keep`` and ``on_shard`` as in :func:`.shards.run_shards`), on ``workers`` processes;
    ``kinds`` as in :func:`generate_shard`. Returns the number of positions written by
    this call."""
    kinds = _check_kinds(kinds)
    return run_shards(out, shards, _job, (seed, matches, samples, tuple(mix), policy_file,
                                          expert, kinds), workers, log, keep, on_shard)
