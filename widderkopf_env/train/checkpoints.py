"""Checkpoint files of a training run.

A checkpoint at step ``n`` is two files in ``<out>/checkpoints/``:

- ``step_<n>.zip``: ``MaskablePPO.save`` (policy, value net, Adam optimiser state, the
  step counter and the learning-rate schedule's progress);
- ``step_<n>.state.pkl``: everything else the run needs to go on: the self-play pool
  (numpy weights), the evaluation history, the best evaluation, when the next snapshot /
  evaluation / checkpoint are due, the accumulated timings, and the Python, numpy and
  torch RNG states.

Both are written to a temporary name and renamed, the state file last, so a checkpoint
whose state file exists is complete; :func:`latest` ignores incomplete ones.
"""

from __future__ import annotations

import os
import pickle
import re
from pathlib import Path

_NAME = re.compile(r"^step_(\d+)\.state\.pkl$")


def paths(directory: Path, steps: int) -> tuple[Path, Path]:
    stem = directory / f"step_{steps:010d}"
    return stem.with_suffix(".zip"), Path(f"{stem}.state.pkl")


def save(directory: Path, model, state: dict, keep: int = 0) -> Path:
    """Write the checkpoint of ``model`` at its current step; keep the ``keep`` newest
    (all if 0). Returns the model file's path."""
    directory.mkdir(parents=True, exist_ok=True)
    steps = int(model.num_timesteps)
    zip_path, state_path = paths(directory, steps)
    tmp_zip = zip_path.with_name(zip_path.stem + ".tmp.zip")
    model.save(tmp_zip)
    os.replace(tmp_zip, zip_path)
    tmp_state = state_path.with_name(state_path.name + ".tmp")
    with open(tmp_state, "wb") as f:
        pickle.dump(state, f, protocol=pickle.HIGHEST_PROTOCOL)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp_state, state_path)
    if keep > 0:
        for old in list_steps(directory)[:-keep]:
            for p in paths(directory, old):
                p.unlink(missing_ok=True)
    return zip_path


def list_steps(directory: Path) -> list[int]:
    """Steps of the complete checkpoints in ``directory``, ascending."""
    if not directory.is_dir():
        return []
    steps = []
    for p in directory.iterdir():
        m = _NAME.match(p.name)
        if m and paths(directory, int(m.group(1)))[0].exists():
            steps.append(int(m.group(1)))
    return sorted(steps)


def latest(directory: Path) -> tuple[Path, dict] | None:
    """``(model zip, state dict)`` of the newest complete checkpoint, or None."""
    steps = list_steps(directory)
    if not steps:
        return None
    zip_path, state_path = paths(directory, steps[-1])
    with open(state_path, "rb") as f:
        return zip_path, pickle.load(f)
