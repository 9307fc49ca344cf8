"""League self-play on RLlib: who plays whom, and the frozen snapshots of ``main``.

The RLModules are ``"main"`` (the one trained), ``"league_0"`` .. ``"league_{k-1}"``
(frozen copies of ``main``) and ``"heuristic"`` (:class:`~.modules.HeuristicRLModule`).
The set is fixed, so checkpoints always hold the same modules; taking a snapshot copies
``main``'s weights into the oldest league slot. At the start every slot holds the initial
``main``.

:func:`league_mapping` (RLlib's ``policy_mapping_fn``) puts ``main`` in one seat of every
episode (chosen by the episode id) and in the other seat ``main`` itself with probability
``self_play``, the heuristic with probability ``heuristic``, else a league slot drawn
uniformly: the training pool's draw (:func:`~widderkopf_env.train.opponents.draw`, the
slots as its snapshots), seeded by the episode id. Only ``main`` is trained.
"""

from __future__ import annotations

import json
import zlib
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from widderkopf_env.atomic import write_atomic

from ..opponents import draw

MAIN = "main"
HEURISTIC = "heuristic"
LEAGUE_FILE = "league.json"


def slot_ids(slots: int) -> list[str]:
    return [f"league_{i}" for i in range(slots)]


def module_ids(slots: int) -> list[str]:
    """All module ids of a league with ``slots`` snapshot slots."""
    return [MAIN, *slot_ids(slots), HEURISTIC]


def league_mapping(agent_id, episode, *, slots: int, self_play: float, heuristic: float,
                   **kwargs) -> str:
    """The module that plays ``agent_id`` in ``episode`` (use with functools.partial)."""
    h = zlib.crc32(str(episode.id_).encode())
    seat = 0 if agent_id == "player_0" else 1
    if seat == h % 2:
        return MAIN
    label, k = draw({MAIN: self_play, HEURISTIC: heuristic}, slots, np.random.default_rng(h))
    return label if k is None else f"league_{k}"


@dataclass
class LeagueState:
    """What the driver keeps about the league (saved as ``league.json`` in checkpoints)."""

    slots: int
    snapshots: int = 0  #: snapshots taken so far (the next one goes to slot snapshots % slots)
    last_snapshot_iteration: int = 0
    history: list = field(default_factory=list)  #: [iteration, slot] of every snapshot

    def next_slot(self) -> str:
        return f"league_{self.snapshots % self.slots}"

    def save(self, checkpoint_dir) -> None:
        write_atomic(Path(checkpoint_dir, LEAGUE_FILE),
                     (json.dumps(asdict(self), indent=1) + "\n").encode())

    @classmethod
    def load(cls, checkpoint_dir) -> LeagueState:
        path = Path(checkpoint_dir, LEAGUE_FILE)
        if not path.is_file():
            raise FileNotFoundError(f"{str(path)!r} is missing: not a checkpoint written by "
                                    "widderkopf-train-rllib")
        return cls(**json.loads(path.read_text()))


def learner_weights(algo, module_id: str = MAIN) -> dict:
    """The learner's (latest, complete) state of RLModule ``module_id``. (The env
    runners' copies lag one update behind and lack the value function.)"""
    state = algo.learner_group.get_state(components=f"learner/rl_module/{module_id}")
    return state["learner"]["rl_module"][module_id]


def snapshot_main(algo, state: LeagueState, iteration: int) -> str:
    """Copy ``main``'s weights into the next league slot (learner and env runners)."""
    slot = state.next_slot()
    weights = learner_weights(algo)
    algo.set_state({"learner_group": {"learner": {"rl_module": {slot: weights}}}})
    state.snapshots += 1
    state.last_snapshot_iteration = iteration
    state.history.append([iteration, slot])
    return slot


def fill_league(algo, slots: int) -> None:
    """Every league slot gets ``main``'s current weights (at the start of training)."""
    weights = learner_weights(algo)
    algo.set_state({"learner_group": {"learner": {"rl_module": {
        slot: weights for slot in slot_ids(slots)}}}})
