"""Agents that act through the observation tensor and action mask (for learned policies).

:class:`PolicyAgent` wraps any function ``(obs, mask) -> action``; :class:`MaskablePPOAgent`
plays a saved sb3-contrib ``MaskablePPO`` model. Both see exactly what the environments
give a learner: ``widderkopf_env.observation.encode(view)`` and ``action_mask(view)``.

numpy, torch and sb3-contrib are imported only when these agents are used, so
``widderkopf_env.agents`` imports without the ``[train]`` extra.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

TRAIN_EXTRA_HINT = (
    "playing a MaskablePPO model needs torch, stable-baselines3 and sb3-contrib: "
    'pip install "widderkopf-env[train]"'
)


def _legal_or_raise(action, view) -> int:
    action = int(action)
    if action < 0 or not (view.legal >> action) & 1:
        raise ValueError(
            f"policy chose illegal action {action} for player {view.player}; "
            f"legal: {view.legal_actions()}")
    return action


class PolicyAgent:
    """An agent from a function ``fn(obs: np.ndarray, mask: np.ndarray) -> action``.

    ``obs`` is ``encode(view)`` (float32, ``(OBS_SIZE,)``) and ``mask`` is
    ``action_mask(view)`` (int8, ``(42,)``, 1 = legal). An illegal action raises
    ``ValueError``. ``reset(seed)`` is forwarded to ``fn.reset`` if it has one.
    """

    def __init__(self, fn, name: str = "policy"):
        if not callable(fn):
            raise TypeError(f"PolicyAgent needs a callable (obs, mask) -> action, got {fn!r}")
        self.fn, self.name = fn, name

    def reset(self, seed: int | None = None) -> None:
        reset = getattr(self.fn, "reset", None)
        if reset is not None:
            reset(seed)

    def act(self, view) -> int:
        from widderkopf_env.observation import encode_with_mask

        obs, mask = encode_with_mask(view)
        return _legal_or_raise(self.fn(obs, mask), view)


def _import_maskable_ppo():
    try:
        from sb3_contrib import MaskablePPO
    except ImportError as err:
        raise ImportError(f"{TRAIN_EXTRA_HINT} ({err})") from err
    return MaskablePPO


def _check_model_file(path: Path) -> None:
    """``ValueError`` naming the file when it is not a model saved by ``model.save()``
    (a zip archive holding ``data`` and ``policy.pth``); cheap, so it comes before torch
    is imported."""
    if not zipfile.is_zipfile(path):
        raise ValueError(f"{str(path)!r} is not a saved MaskablePPO model: not a zip archive")
    with zipfile.ZipFile(path) as archive:
        missing = {"data", "policy.pth"} - set(archive.namelist())
    if missing:
        raise ValueError(f"{str(path)!r} is a zip archive but not a saved MaskablePPO model "
                         f"(it lacks {', '.join(sorted(missing))})")


def _load_model(MaskablePPO, path: Path):
    """``MaskablePPO.load(path)``, any failure a ``ValueError`` naming the file."""
    try:
        return MaskablePPO.load(str(path), device="cpu")
    except Exception as err:  # SB3 raises many kinds on a damaged or foreign model
        raise ValueError(f"{str(path)!r} could not be loaded as a MaskablePPO model: "
                         f"{type(err).__name__}: {err}") from err


class MaskablePPOAgent:
    """Plays a trained sb3-contrib ``MaskablePPO`` model (a ``.zip`` path or the model).

    ``deterministic=True`` plays the most probable legal action
    (``model.predict(..., deterministic=True)``); otherwise it samples from the masked
    policy with its own generator, seeded by ``reset(seed)`` (the global torch and numpy
    random states are left alone). ``torch_threads`` (default 1: one decision is a tiny
    forward pass, and the arena runs one process per core) is applied when a model is
    loaded from a path; None leaves torch's setting alone.
    """

    def __init__(self, path_or_model, deterministic: bool = True, seed: int | None = None,
                 torch_threads: int | None = 1):
        import numpy as np

        self.deterministic = deterministic
        self._rng = np.random.default_rng(seed)
        if isinstance(path_or_model, (str, Path)):
            path = Path(path_or_model)
            if not path.is_file():
                raise FileNotFoundError(f"no MaskablePPO model file at {str(path)!r}")
            _check_model_file(path)
            MaskablePPO = _import_maskable_ppo()
            if torch_threads is not None:
                import torch

                torch.set_num_threads(torch_threads)
            self.model = _load_model(MaskablePPO, path)
            self.path, self.name = str(path), path.stem
        else:
            if not hasattr(path_or_model, "predict") or not hasattr(path_or_model, "policy"):
                raise TypeError(
                    f"expected a MaskablePPO model or a path to its .zip, got {path_or_model!r}")
            self.model, self.path, self.name = path_or_model, None, "maskable-ppo"
        self._torch_threads = torch_threads

    def __reduce__(self):
        # Pickle by path (the arena copies agents into worker processes).
        if self.path is None:
            raise TypeError("a MaskablePPOAgent built from an in-memory model cannot be "
                            "pickled; build it from a saved .zip path instead")
        return (_rebuild, (self.path, self.deterministic, self._torch_threads))

    def reset(self, seed: int | None = None) -> None:
        import numpy as np

        self._rng = np.random.default_rng(seed)

    def act(self, view) -> int:
        from widderkopf_env.observation import encode_with_mask

        obs, mask = encode_with_mask(view)
        if self.deterministic:
            action, _ = self.model.predict(obs, action_masks=mask, deterministic=True)
            return _legal_or_raise(action, view)
        import torch

        policy = self.model.policy
        with torch.no_grad():
            obs_t, _ = policy.obs_to_tensor(obs)
            dist = policy.get_distribution(obs_t, action_masks=mask)
            probs = dist.distribution.probs[0].cpu().numpy().astype("float64")
        probs *= mask  # exact zeros for illegal actions
        probs /= probs.sum()
        return _legal_or_raise(self._rng.choice(len(probs), p=probs), view)


def _rebuild(path, deterministic, torch_threads):
    return MaskablePPOAgent(path, deterministic=deterministic, torch_threads=torch_threads)


def load_model_agent(spec: str, seed: int | None = None):
    """The ``widderkopf_env.agent_loaders`` entry point of this package: a path ending in
    ``.zip`` is played as a :class:`MaskablePPOAgent`; other specs are not ours (None)."""
    if spec.lower().endswith(".zip"):
        return MaskablePPOAgent(spec, seed=seed)
    return None
