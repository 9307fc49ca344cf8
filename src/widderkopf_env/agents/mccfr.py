"""OpenSpiel's Monte Carlo CFR on a variant, and its average policy as one of our agents.

Needs the ``[openspiel]`` extra to train and to play (reading a file does not).

Training (:class:`MCCFRTrainer`) runs OpenSpiel's Python MCCFR
(``open_spiel.python.algorithms``: ``outcome_sampling_mccfr.OutcomeSamplingSolver``, the
default, or ``external_sampling_mccfr.ExternalSamplingSolver``) on the one-hand
``python_widderkopf`` game of a variant, for a number of iterations or a time budget.
OpenSpiel's MCCFR draws from NumPy's global generator; the trainer runs it on a state of
its own, seeded by ``seed`` (the caller's global state is put back after each run), so
the same seed and iterations give the same table, however the iterations are split into
runs. A time budget gives as many iterations as fit, so its table is not reproducible.

The average policy is saved as a :class:`PolicyTable` (:meth:`PolicyTable.save`): a
compressed ``.npz`` of plain arrays (read with ``allow_pickle=False``) mapping each
information-state string of the game to the average strategy's probabilities over its
legal actions (in the order of ``legal_actions()``), with the variant, the solver, the
seed and the iterations.

:class:`MCCFRAgent` plays such a table: ``load_agent(PATH)`` (a table's ``.npz``, told
from a network ``.npz`` by its ``format`` entry), ``MCCFRAgent.load(PATH)``, or
``widderkopf-eval PATH heuristic --variant NAME``. At each decision with a choice it
looks up the information state of its view (:func:`~.openspiel_state.info_state_key`:
the hand as a one-hand game, so the match score is not part of it) and samples an
action from the average strategy with its own seeded generator (``greedy=True``: the
most likely action instead). MCCFR's guarantee is about the average strategy, a mixed
one, hence sampling by default. Where the table has no entry (an information state no
iteration reached), and where the one-hand game's trump chooser differs from the
match's (R9), it plays as the heuristic bot; :attr:`MCCFRAgent.decisions` and
:attr:`MCCFRAgent.fallbacks` count these (forced moves are not counted), across
``reset`` calls. A view of another variant than the table's raises ``ValueError``.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from importlib import import_module
from pathlib import Path

import numpy as np

from widderkopf_env.agent import reset_agent
from widderkopf_env.cards import get_variant

from .heuristic import HeuristicAgent
from .openspiel_state import info_state_key, one_hand_game

#: The ``format`` entry of a table file.
FORMAT = "widderkopf-mccfr-policy/1"

#: The MCCFR solvers: name -> OpenSpiel's solver class (``module:class``).
SOLVERS = {
    "outcome": "open_spiel.python.algorithms.outcome_sampling_mccfr:OutcomeSamplingSolver",
    "external": "open_spiel.python.algorithms.external_sampling_mccfr:ExternalSamplingSolver",
}


@dataclass(frozen=True, eq=False)
class PolicyTable:
    """An average policy: ``probs[offsets[i]:offsets[i + 1]]`` are the probabilities of
    the legal actions (in ``legal_actions()`` order) at information state ``keys[i]``."""

    variant: str
    keys: tuple[str, ...]
    offsets: np.ndarray
    probs: np.ndarray
    solver: str = "outcome"
    seed: int = 0
    iterations: int = 0
    _index: dict = field(init=False, repr=False)

    def __post_init__(self):
        get_variant(self.variant)  # an unknown name fails here, naming the variants
        if len(self.offsets) != len(self.keys) + 1:
            raise ValueError(f"offsets must have one entry more than keys ({len(self.keys)}),"
                             f" got {len(self.offsets)}")
        object.__setattr__(self, "_index", {k: i for i, k in enumerate(self.keys)})

    def __len__(self) -> int:
        return len(self.keys)

    def get(self, key: str) -> np.ndarray | None:
        """The probabilities at information state ``key``, or None if it is not here."""
        i = self._index.get(key)
        return None if i is None else self.probs[self.offsets[i]:self.offsets[i + 1]]

    def save(self, path) -> Path:
        """Write the table as a compressed ``.npz`` (the suffix is added if missing)."""
        if any("\n" in k for k in self.keys):
            raise ValueError("information-state strings must not contain newlines")
        path = Path(path)
        if path.suffix.lower() != ".npz":
            path = path.with_name(path.name + ".npz")
        blob = np.frombuffer("\n".join(self.keys).encode(), dtype=np.uint8)
        np.savez_compressed(
            path, format=np.array(FORMAT), variant=np.array(self.variant),
            solver=np.array(self.solver), seed=np.array(self.seed, np.int64),
            iterations=np.array(self.iterations, np.int64), num_keys=np.array(len(self.keys)),
            keys=blob, offsets=self.offsets.astype(np.int64),
            probs=self.probs.astype(np.float32))
        return path

    @classmethod
    def load(cls, path, variant: str | None = None) -> PolicyTable:
        """The table in ``path``; ``variant``: refuse a table made for another one."""
        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(f"no MCCFR table at {str(path)!r}")
        if not is_table_file(path):
            raise ValueError(f"{str(path)!r} is not an MCCFR table (its 'format' entry is "
                             f"not {FORMAT!r})")
        with np.load(path, allow_pickle=False) as z:
            made_for = str(z["variant"])
            if variant is not None and get_variant(variant).name != made_for:
                raise ValueError(f"{str(path)!r} is an MCCFR table of the {made_for!r} "
                                 f"variant, not of {get_variant(variant).name!r}: train one "
                                 f"for it (examples/openspiel_mccfr.py --variant "
                                 f"{get_variant(variant).name})")
            n = int(z["num_keys"])
            keys = tuple(bytes(z["keys"]).decode().split("\n")) if n else ()
            return cls(made_for, keys, z["offsets"], z["probs"], str(z["solver"]),
                       int(z["seed"]), int(z["iterations"]))


def is_table_file(path) -> bool:
    """Whether ``path`` is an existing ``.npz`` whose ``format`` entry is :data:`FORMAT`."""
    path = Path(path)
    if path.suffix.lower() != ".npz" or not path.is_file():
        return False
    try:
        with np.load(path, allow_pickle=False) as z:
            return "format" in z.files and str(z["format"]) == FORMAT
    except (OSError, ValueError):
        return False


class MCCFRTrainer:
    """OpenSpiel's MCCFR on the one-hand game of ``variant`` (see the module
    documentation); :meth:`run` continues where the last run stopped."""

    def __init__(self, variant: str = "medium", seed: int = 0, solver: str = "outcome"):
        if solver not in SOLVERS:
            raise ValueError(f"solver must be one of {', '.join(SOLVERS)}, got {solver!r}")
        self.variant, self.seed, self.solver_name = get_variant(variant).name, seed, solver
        self.game = one_hand_game(self.variant)
        module, _, name = SOLVERS[solver].partition(":")
        self.solver = getattr(import_module(module), name)(self.game)
        self.iterations, self.seconds = 0, 0.0
        self._np_state = np.random.RandomState(seed).get_state()

    def run(self, iterations: int | None = None, seconds: float | None = None) -> int:
        """Run ``iterations`` more iterations, or as many as fit in ``seconds`` of wall
        time (both: whichever ends first); returns how many ran."""
        if iterations is None and seconds is None:
            raise ValueError("give iterations, seconds or both")
        if iterations is not None and (isinstance(iterations, bool)
                                       or not isinstance(iterations, int) or iterations < 0):
            raise ValueError(f"iterations must be an int >= 0, got {iterations!r}")
        caller = np.random.get_state()
        np.random.set_state(self._np_state)
        start, done = time.perf_counter(), 0
        try:
            while (iterations is None or done < iterations) and (
                    seconds is None or time.perf_counter() - start < seconds):
                self.solver.iteration()
                done += 1
        finally:
            self._np_state = np.random.get_state()
            np.random.set_state(caller)
            self.iterations += done
            self.seconds += time.perf_counter() - start
        return done

    def average_policy(self):
        """OpenSpiel's average-policy object (uniform where the table has no entry)."""
        return self.solver.average_policy()

    def table(self) -> PolicyTable:
        """The average policy as a :class:`PolicyTable` (normalised, float32)."""
        infostates = self.solver._infostates  # OpenSpiel's table: key -> [regrets, avg]
        keys = tuple(infostates)
        sizes = [len(infostates[k][1]) for k in keys]
        offsets = np.zeros(len(keys) + 1, np.int64)
        np.cumsum(sizes, out=offsets[1:])
        probs = np.empty(int(offsets[-1]), np.float32)
        for i, k in enumerate(keys):
            avg = infostates[k][1]
            probs[offsets[i]:offsets[i + 1]] = avg / avg.sum()
        return PolicyTable(self.variant, keys, offsets, probs, self.solver_name, self.seed,
                           self.iterations)


class MCCFRAgent:
    """Plays a :class:`PolicyTable` (see the module documentation); seeded by ``seed``."""

    name = "mccfr"

    def __init__(self, table: PolicyTable, seed: int | None = None, greedy: bool = False):
        if not isinstance(table, PolicyTable):
            raise TypeError(f"table must be a PolicyTable (MCCFRAgent.load reads a file), "
                            f"got {type(table).__name__}")
        one_hand_game(table.variant)  # a clear ImportError without the [openspiel] extra
        self.table, self.greedy = table, bool(greedy)
        self.decisions = 0  #: decisions with a choice, since the agent was made
        self.fallbacks = 0  #: those of them played as the heuristic (no table entry)
        self._fallback = HeuristicAgent()
        self.reset(seed)

    @classmethod
    def load(cls, path, seed: int | None = None, variant: str | None = None,
             greedy: bool = False) -> MCCFRAgent:
        """The agent of the table in ``path``; ``variant``: refuse another variant's."""
        return cls(PolicyTable.load(path, variant), seed, greedy)

    @property
    def coverage(self) -> float:
        """The share of :attr:`decisions` answered by the table (1.0 before any)."""
        return 1.0 - self.fallbacks / self.decisions if self.decisions else 1.0

    def reset(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)
        reset_agent(self._fallback, seed)

    def act(self, view) -> int:
        if view.variant.name != self.table.variant:
            raise ValueError(f"this MCCFR table was made for the {self.table.variant!r} "
                             f"variant and cannot play {view.variant.name!r}")
        legal = view.legal_actions()
        if len(legal) == 1:
            return legal[0]
        self.decisions += 1
        key = info_state_key(view)
        probs = None if key is None else self.table.get(key)
        if probs is None or len(probs) != len(legal):
            self.fallbacks += 1
            return self._fallback.act(view)
        if self.greedy:
            return legal[int(np.argmax(probs))]
        return legal[self._rng.choices(range(len(legal)), weights=probs.tolist())[0]]


def load_table_agent(spec: str, seed: int | None = None) -> MCCFRAgent | None:
    """Loader for :func:`~widderkopf_env.registry.load_agent`: an MCCFR table's ``.npz``
    is its agent; any other spec is not ours (None)."""
    if not isinstance(spec, str) or not is_table_file(spec):
        return None
    return MCCFRAgent.load(spec, seed=seed)
