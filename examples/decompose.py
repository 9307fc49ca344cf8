"""Which decisions carry a strong bot's advantage: a base agent that hands some kinds of
decision to an expert, against an opponent, paired with the base agent alone.

    python examples/decompose.py --kinds play [--base net] [--expert pimc] [--opponent heuristic]
                              [--pairs 200] [--seed 2026] [--workers 2]

Kinds (several may be given): ``trump``, ``discard``, ``escalate`` (answers to an
escalation, and whether to escalate at a first card: the card itself stays the base's),
``play`` (which card, every trick), ``late`` (which card, the last 6 tricks: where PIMC
solves exactly), ``early`` (which card, before those). Both runs play the same duplicate
deals, so the printed difference (hybrid minus base, game points per hand, 95% interval
over pairs) is paired. ``docs/EXPERIMENTS.md`` ("Where the network loses to PIMC") has
the measurements.
"""

from __future__ import annotations

import argparse
import functools

import numpy as np

from widderkopf_env.agent import reset_agent
from widderkopf_env.agents import load_agent
from widderkopf_env.agents.arena import mean_ci95, run_duplicate
from widderkopf_env.agents.pimc import PIMCAgent
from widderkopf_env.cards import ESCALATE, TRICKS
from widderkopf_env.observation import encode_with_mask
from widderkopf_env.rules import ANSWER, DISCARD, TRUMP

KINDS = ("trump", "discard", "escalate", "play", "late", "early")
LATE = 6  #: tricks left (the open one counted) from which a card choice is "late"


class Hybrid:
    """``base`` decides except for the ``kinds`` of decision, which ``expert`` makes."""

    def __init__(self, base, expert, kinds):
        self.base, self.expert, self.kinds = base, expert, frozenset(kinds)
        self.name = f"{base.name}+{expert.name}[{','.join(sorted(self.kinds))}]"

    def reset(self, seed=None):
        reset_agent(self.base, seed)
        reset_agent(self.expert, seed)

    def _who(self, kind):
        return self.expert if kind in self.kinds else self.base

    def _card(self, agent, view):
        """``agent``'s card where it could also escalate (the escalation is decided apart)."""
        if isinstance(agent, PIMCAgent):
            crack, agent.crack = agent.crack, False
            try:
                return agent.act(view)
            finally:
                agent.crack = crack
        obs, mask = encode_with_mask(view)  # a policy snapshot: best card by its logits
        mask[ESCALATE] = 0
        legal = np.flatnonzero(mask)
        return int(legal[int(np.argmax(agent.logits(obs)[legal]))])

    def act(self, view):
        if view.phase in (TRUMP, DISCARD):
            return self._who("trump" if view.phase == TRUMP else "discard").act(view)
        if view.phase == ANSWER:
            return self._who("escalate").act(view)
        late = TRICKS - len(view.tricks) <= LATE
        card_kind = "play" if "play" in self.kinds else "late" if late else "early"
        player = self._who(card_kind)
        if not view.legal >> ESCALATE & 1:
            return player.act(view)
        if self._who("escalate").act(view) == ESCALATE:
            return ESCALATE
        return self._card(player, view)


def _hybrid(base: str, expert: str, kinds: tuple) -> Hybrid:
    return Hybrid(load_agent(base), load_agent(expert, seed=1), kinds)


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--kinds", nargs="+", choices=KINDS, required=True)
    p.add_argument("--base", default="net", help="a policy snapshot agent (default: net)")
    p.add_argument("--expert", default="pimc")
    p.add_argument("--opponent", default="heuristic")
    p.add_argument("--pairs", type=int, default=200)
    p.add_argument("--seed", type=int, default=2026)
    p.add_argument("--workers", type=int, default=2)
    a = p.parse_args(argv)
    hybrid = functools.partial(_hybrid, a.base, a.expert, tuple(a.kinds))
    h = run_duplicate(hybrid, a.opponent, a.pairs, seed=a.seed, workers=a.workers)
    b = run_duplicate(a.base, a.opponent, a.pairs, seed=a.seed, workers=a.workers)
    d = np.array(h.pair_scores) - np.array(b.pair_scores)
    diff, _, (lo, hi) = mean_ci95(d)
    print(f"{a.base} with {a.expert} for {' '.join(a.kinds)} vs {a.opponent}, {a.pairs} pairs, "
          f"seed {a.seed}: {h.mean:+.3f} [{h.ci95[0]:+.3f}, {h.ci95[1]:+.3f}] ({h.seconds:.0f} s); "
          f"{a.base} alone {b.mean:+.3f}; difference {diff:+.3f} "
          f"[{lo:+.3f}, {hi:+.3f}]")


if __name__ == "__main__":
    main()
