"""Agents that act through the observation tensor and action mask (for learned policies).

:class:`PolicyAgent` wraps any function ``(obs, mask) -> action``; :class:`MaskablePPOAgent`
plays a saved sb3-contrib ``MaskablePPO`` model. Both see exactly what the environments
give a learner: ``widderkopf_env.observation.encode(view)`` and ``action_mask(view)``.

numpy, torch and sb3-contrib are imported only when these agents are used, so
``widderkopf_env.agents`` imports without the ``[train]`` extra.

Trust: an SB3 model zip stores some attributes (the spaces, schedules) as pickles, so
loading one runs code from the file. Load only models you trained or otherwise trust. A
file that is not an SB3 model, or a model made for other observation or action spaces, is
rejected with a ``ValueError`` naming the file (:func:`check_model_file`,
:func:`check_model_spaces`); the shipped policy (``load_agent("ppo")``) is a plain ``.npz``
of arrays and needs no such trust.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

from widderkopf_env.cli import missing_extra


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


def check_model_path(path: Path) -> None:
    """:func:`check_model_file` after checking that ``path`` is a file
    (``FileNotFoundError`` otherwise)."""
    if not path.is_file():
        raise FileNotFoundError(f"no MaskablePPO model file at {str(path)!r}")
    check_model_file(path)


def check_model_file(path: Path) -> None:
    """Raise ``ValueError`` naming ``path`` unless it is a zip archive holding the
    ``data`` and ``policy.pth`` entries of a stable-baselines3 model (read without
    unpickling anything)."""
    if not zipfile.is_zipfile(path):
        raise ValueError(f"{str(path)!r} is not a saved MaskablePPO model: not a zip archive")
    try:
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
    except (zipfile.BadZipFile, OSError) as err:
        raise ValueError(f"{str(path)!r} is not a saved MaskablePPO model: {err}") from err
    missing = sorted({"data", "policy.pth"} - names)
    if missing:
        raise ValueError(f"{str(path)!r} is not a saved MaskablePPO model: a zip archive without "
                         f"the {', '.join(map(repr, missing))} entries of a stable-baselines3 "
                         "model (another file, or a damaged one)")


def check_model_spaces(model, source: str = "the model") -> None:
    """Raise ``ValueError`` unless ``model`` observes ``Box((OBS_SIZE,), float32)`` and acts
    in ``Discrete(NUM_ACTIONS)``, the spaces of the Widderkopf envs."""
    import numpy as np
    from gymnasium import spaces

    from widderkopf_env.cards import NUM_ACTIONS
    from widderkopf_env.observation import OBS_SIZE

    obs, act = getattr(model, "observation_space", None), getattr(model, "action_space", None)
    problems = []
    if not (isinstance(obs, spaces.Box) and obs.shape == (OBS_SIZE,)
            and obs.dtype == np.float32):
        problems.append(f"observation space Box(shape=({OBS_SIZE},), float32) expected, "
                        f"found {obs}")
    if not (isinstance(act, spaces.Discrete) and int(act.n) == NUM_ACTIONS
            and int(act.start) == 0):
        problems.append(f"action space Discrete({NUM_ACTIONS}) expected, found {act}")
    if problems:
        raise ValueError(f"{source} does not fit the Widderkopf envs: {'; '.join(problems)}")


def _import_maskable_ppo():
    try:
        from sb3_contrib import MaskablePPO
    except ImportError as err:
        raise ImportError(missing_extra("playing a MaskablePPO model", "train", err)) from err
    return MaskablePPO


def _load_model(MaskablePPO, path: Path):
    """``MaskablePPO.load(path)``, any failure a ``ValueError`` naming the file."""
    try:
        return MaskablePPO.load(str(path), device="cpu")
    except Exception as err:  # SB3 raises many kinds on a damaged or foreign model
        raise ValueError(f"{str(path)!r}: cannot load it as a MaskablePPO model "
                         f"({type(err).__name__}: {err})") from err


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
            check_model_path(path)  # cheap, before torch is imported
            MaskablePPO = _import_maskable_ppo()
            if torch_threads is not None:
                import torch

                torch.set_num_threads(torch_threads)
            self.model = _load_model(MaskablePPO, path)
            check_model_spaces(self.model, repr(str(path)))
            self.path, self.name = str(path), path.stem
        else:
            if not hasattr(path_or_model, "predict") or not hasattr(path_or_model, "policy"):
                raise TypeError(
                    f"expected a MaskablePPO model or a path to its .zip, got {path_or_model!r}")
            check_model_spaces(path_or_model)
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
