"""Play a policy from an RLlib checkpoint as an :class:`~widderkopf_env.agents.Agent`.

``RLlibAgent(path)`` takes the directory written by ``Algorithm.save_to_path`` (what
``widderkopf-train-rllib`` writes as ``checkpoint_<iteration>``) or the directory of one
RLModule inside it, loads the module (``"main"`` by default) and plays its most probable
legal action, or samples from the masked policy with ``deterministic=False``. It sees
only ``encode_with_mask(view)``, like every learned agent. ``load_agent(path)`` builds one
for such a directory, so ``widderkopf-eval`` and ``widderkopf-play`` accept it.
"""

from __future__ import annotations

from pathlib import Path

MODULE_DIR = ("learner_group", "learner", "rl_module")


def module_dir(path, module_id: str = "main") -> Path:
    """The directory of RLModule ``module_id`` in checkpoint ``path``."""
    p = Path(path)
    if not p.is_dir():
        raise FileNotFoundError(f"no RLlib checkpoint directory at {str(p)!r}")
    inner = p.joinpath(*MODULE_DIR)
    if inner.is_dir():
        found = sorted(q.name for q in inner.iterdir() if q.is_dir())
        if module_id not in found:
            raise ValueError(f"checkpoint {str(p)!r} has no module {module_id!r}; "
                             f"modules: {found}")
        return inner / module_id
    if any(p.glob("module_state*")):
        return p
    raise ValueError(f"{str(p)!r} is not an RLlib checkpoint (no {'/'.join(MODULE_DIR)} "
                     "and no module_state file)")


class RLlibAgent:
    """An agent playing one RLModule of an RLlib checkpoint; see the module docs."""

    def __init__(self, path, module_id: str = "main", deterministic: bool = True,
                 seed: int | None = None, torch_threads: int | None = 1):
        import numpy as np

        self.path, self.module_id, self.deterministic = str(path), module_id, deterministic
        self._torch_threads = torch_threads
        self.name = f"rllib:{Path(path).name}:{module_id}"
        self._rng = np.random.default_rng(seed)
        where = module_dir(path, module_id)
        import torch
        from ray.rllib.core.rl_module.rl_module import RLModule

        if torch_threads is not None:
            torch.set_num_threads(torch_threads)
        self.module = RLModule.from_checkpoint(str(where))
        self.module.eval()

    def __reduce__(self):
        # pickled by path: the arena copies agents into its worker processes
        return (RLlibAgent, (self.path, self.module_id, self.deterministic, None,
                             self._torch_threads))

    def reset(self, seed: int | None = None) -> None:
        import numpy as np

        self._rng = np.random.default_rng(seed)

    def probabilities(self, obs, mask):
        """The masked policy's action probabilities (float64, exact 0 for illegal)."""
        import torch
        from ray.rllib.core.columns import Columns

        batch = {Columns.OBS: {"observations": torch.from_numpy(obs)[None],
                               "action_mask": torch.from_numpy(mask.astype("float32"))[None]}}
        with torch.no_grad():
            logits = self.module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS][0]
        probs = torch.softmax(logits.double(), -1).numpy() * mask
        return probs / probs.sum()

    def act(self, view) -> int:
        from widderkopf_env.observation import encode_with_mask

        obs, mask = encode_with_mask(view)
        probs = self.probabilities(obs, mask)
        action = (int(probs.argmax()) if self.deterministic
                  else int(self._rng.choice(len(probs), p=probs)))
        if not (view.legal >> action) & 1:
            raise ValueError(f"{self.name} chose illegal action {action} for player "
                             f"{view.player}; legal: {view.legal_actions()}")
        return action


def is_checkpoint(spec) -> bool:
    """Whether ``spec`` names a folder that holds an RLlib checkpoint (or one RLModule's
    folder); nothing in it is read."""
    path = Path(spec)
    return bool(str(spec)) and path.is_dir() and (path.joinpath(*MODULE_DIR).is_dir()
                                                 or any(path.glob("module_state*")))


def load_checkpoint_agent(spec: str, seed: int | None = None):
    """The ``widderkopf_env.agent_loaders`` entry point of the ``[rllib]`` part: a
    checkpoint directory is played as an :class:`RLlibAgent` (deterministic); other specs
    are not ours (None). Needs ray only when it is given a checkpoint."""
    if not is_checkpoint(spec):
        return None  # not a directory holding an RLlib checkpoint
    try:
        import ray.rllib  # noqa: F401
    except ImportError as err:
        from widderkopf_env.cli import missing_extra

        raise ImportError(missing_extra(f"{spec!r} is an RLlib checkpoint: playing it",
                                        "rllib", err)) from err
    return RLlibAgent(spec, seed=seed)
