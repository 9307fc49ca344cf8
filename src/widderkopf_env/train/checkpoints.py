"""Checkpoint files of a training run, written crash-safe and verified on resume.

A checkpoint at step ``n`` is two files in ``<out>/checkpoints/``:

- ``step_<n>.zip``: ``MaskablePPO.save`` (policy, value net, Adam optimiser state, the
  step counter and the learning-rate schedule's progress). SB3 stores some of its
  attributes (spaces, schedules) as pickles inside this zip, so loading a model file
  runs code from it: resume only from checkpoints you wrote yourself.
- ``step_<n>.state.npz``: everything else the run needs to go on (the self-play pool,
  the evaluation history, the best evaluation, when the next snapshot / evaluation /
  checkpoint are due, the accumulated timings, the Python, numpy and torch RNG states).
  No pickle: a JSON document (``meta``) plus plain numpy arrays, read with
  ``allow_pickle=False``. ``meta`` records the SHA-256 of the model zip and a SHA-256 of
  the state itself (its JSON and every array).

Each file is written to a temporary file in the same folder, flushed and fsynced, renamed
over its final name, and the folder is fsynced; the model first, the state file last. So a
crash leaves either a complete checkpoint or files that fail verification, never a
checkpoint that verifies but is incomplete.

:func:`find_latest` returns the newest checkpoint that verifies (both files present and
readable, both checksums right) and the reason each newer one was skipped.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import shlex
import sys
from pathlib import Path

import numpy as np

from . import run_folder
from .run_folder import RunFolder, RunFolderError

FORMAT, VERSION = "widderkopf-checkpoint", 2
_NAME = re.compile(r"^step_(\d+)\.(zip|state\.npz|state\.pkl)$")


class NothingToResume(RunFolderError):
    """``--resume`` found no checkpoint that verifies, and starting afresh would overwrite
    the run's outputs (see :func:`check_restart`)."""


def paths(directory: Path, steps: int) -> tuple[Path, Path]:
    """``(model zip, state file)`` of the checkpoint at ``steps``."""
    stem = directory / f"step_{steps:010d}"
    return stem.with_suffix(".zip"), Path(f"{stem}.state.npz")


def save_model(model, path: Path) -> str:
    """``model.save`` to ``path`` atomically (:func:`.run_folder.write_atomic`); returns
    the file's SHA-256."""
    buf = io.BytesIO()
    model.save(buf)
    data = buf.getvalue()
    run_folder.write_atomic(path, data)
    return hashlib.sha256(data).hexdigest()


# --- the state file: JSON + numpy arrays, no pickle ---------------------------------------------

def _encode(obj, arrays: dict):
    """``obj`` as JSON data; numpy arrays go to ``arrays`` and leave a reference."""
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    if isinstance(obj, np.ndarray):
        name = f"a{len(arrays)}"
        arrays[name] = obj
        return {"__array__": name}
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, tuple):
        return {"__tuple__": [_encode(x, arrays) for x in obj]}
    if isinstance(obj, list):
        return [_encode(x, arrays) for x in obj]
    if isinstance(obj, dict):
        bad = [k for k in obj if not isinstance(k, str)]
        if bad or any(k.startswith("__") for k in obj):
            raise TypeError(f"checkpoint state keys must be strings not starting with '__', "
                            f"got {sorted(map(repr, obj))}")
        return {k: _encode(v, arrays) for k, v in obj.items()}
    raise TypeError(f"cannot store {type(obj).__name__} in a checkpoint state; allowed: "
                    "None, bool, int, float, str, list, tuple, dict, numpy arrays")


def _decode(obj, arrays):
    if isinstance(obj, list):
        return [_decode(x, arrays) for x in obj]
    if isinstance(obj, dict):
        if "__array__" in obj:
            return arrays[obj["__array__"]]
        if "__tuple__" in obj:
            return tuple(_decode(x, arrays) for x in obj["__tuple__"])
        return {k: _decode(v, arrays) for k, v in obj.items()}
    return obj


def _digest(meta: dict, arrays: dict) -> str:
    """SHA-256 over the JSON of ``meta`` (without its own ``sha256``) and every array."""
    h = hashlib.sha256()
    body = {k: v for k, v in meta.items() if k != "sha256"}
    h.update(json.dumps(body, sort_keys=True).encode())
    for name in sorted(arrays):
        a = np.ascontiguousarray(arrays[name])
        h.update(f"{name}:{a.dtype.str}:{a.shape}".encode())
        h.update(a.tobytes())
    return h.hexdigest()


def _state_bytes(steps: int, state: dict, model_sha256: str, model_size: int) -> bytes:
    arrays: dict = {}
    meta = {"format": FORMAT, "version": VERSION, "steps": steps,
            "model_sha256": model_sha256, "model_size": model_size,
            "state": _encode(state, arrays)}
    meta["sha256"] = _digest(meta, arrays)
    buf = io.BytesIO()
    np.savez(buf, meta=np.array(json.dumps(meta)), **arrays)
    return buf.getvalue()


def _read_state(path: Path) -> tuple[dict, dict]:
    """``(meta, arrays)`` of a state file; raises ValueError if it does not verify."""
    with np.load(path, allow_pickle=False) as data:
        if "meta" not in data.files:
            raise ValueError("no 'meta' entry")
        meta = json.loads(str(data["meta"]))
        arrays = {k: data[k] for k in data.files if k != "meta"}
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise ValueError(f"not a {FORMAT} file")
    if meta.get("version") != VERSION:
        raise ValueError(f"format version {meta.get('version')!r}, this version reads {VERSION}")
    if meta.get("sha256") != _digest(meta, arrays):
        raise ValueError("state checksum mismatch")
    return meta, arrays


# --- saving and finding ------------------------------------------------------------------------

def save(directory: Path, model, state: dict, keep: int = 0) -> Path:
    """Write the checkpoint of ``model`` at its current step (the model, then the state
    file; both atomic); then delete older checkpoints but the ``keep`` newest (all kept
    if 0). Returns the model file's path."""
    directory.mkdir(parents=True, exist_ok=True)
    steps = int(model.num_timesteps)
    run_folder.remove_temporaries_in(directory)
    zip_path, state_path = paths(directory, steps)
    digest = save_model(model, zip_path)
    run_folder.write_atomic(state_path, _state_bytes(steps, state, digest, zip_path.stat().st_size))
    if keep > 0:
        older = [s for s in list_steps(directory) if s < steps]
        for old in older[:max(0, len(older) - (keep - 1))]:
            for p in paths(directory, old):
                p.unlink(missing_ok=True)
    return zip_path


def _candidates(directory: Path) -> list[int]:
    """Steps with any checkpoint file in ``directory``, newest first."""
    if not directory.is_dir():
        return []
    found = {int(m.group(1)) for p in directory.iterdir() if (m := _NAME.match(p.name))}
    return sorted(found, reverse=True)


def list_steps(directory: Path) -> list[int]:
    """Steps at which both files of a checkpoint exist (verified or not), ascending."""
    return sorted(s for s in _candidates(directory)
                  if all(p.is_file() for p in paths(directory, s)))


def verify(directory: Path, steps: int) -> dict:
    """The run state of the checkpoint at ``steps``; raises ValueError saying why it does
    not verify (a file missing, unreadable, or not matching its checksum)."""
    zip_path, state_path = paths(directory, steps)
    if not state_path.is_file():
        legacy = directory / f"step_{steps:010d}.state.pkl"
        if legacy.is_file():
            raise ValueError(f"{legacy.name} is a pickle state file of an older version "
                             "(not loaded)")
        raise ValueError(f"state file {state_path.name} missing")
    if not zip_path.is_file():
        raise ValueError(f"model file {zip_path.name} missing")
    try:
        meta, arrays = _read_state(state_path)
        state = _decode(meta["state"], arrays)
    except Exception as err:  # any unreadable file is skipped, whatever numpy raises
        raise ValueError(f"state file {state_path.name} unreadable "
                         f"({type(err).__name__}: {err})") from err
    if meta.get("steps") != steps:
        raise ValueError(f"state file {state_path.name} is for step {meta.get('steps')}")
    data = zip_path.read_bytes()
    if len(data) != meta.get("model_size"):
        raise ValueError(f"model file {zip_path.name} has {len(data)} bytes, "
                         f"{meta.get('model_size')} were written")
    if hashlib.sha256(data).hexdigest() != meta.get("model_sha256"):
        raise ValueError(f"model file {zip_path.name} does not match its SHA-256 checksum")
    return state


def find_latest(directory: Path) -> tuple[tuple[Path, dict] | None, list[str]]:
    """``((model zip, state), skipped)``: the newest checkpoint that verifies (or None)
    and one line for each newer checkpoint that did not, saying why."""
    skipped = []
    for steps in _candidates(directory):
        try:
            state = verify(directory, steps)
        except ValueError as err:
            skipped.append(f"skipping the checkpoint at step {steps}: {err}")
            continue
        return (paths(directory, steps)[0], state), skipped
    return None, skipped


def latest(directory: Path) -> tuple[Path, dict] | None:
    """``(model zip, state dict)`` of the newest checkpoint that verifies, or None."""
    return find_latest(directory)[0]


def check_restart(out: Path, skipped: list[str], force: bool) -> None:
    """Called when ``--resume`` found no checkpoint that verifies: unless ``force``, raise
    :class:`NothingToResume` if ``out`` holds any artefact of the run (a run resumed with
    ``--resume`` always has its config.json, so without ``force`` it never restarts)."""
    found = [name for name in RunFolder(out, "ppo").owned() if name != "checkpoints"]
    if skipped:
        found.append(f"checkpoints/ (none of {len(skipped)} verifies)")
    if found and not force:
        raise NothingToResume(
            f"--resume: no checkpoint in {out / 'checkpoints'} verifies, and starting afresh "
            f"would overwrite the run's outputs ({', '.join(found)}); pass --force-restart "
            "to start it again from step 0, or choose another --out")


def resume_point(out: Path, cfg, log=print) -> tuple[Path, dict] | None:
    """What ``--resume`` of the run in ``out`` starts from: the newest checkpoint that
    verifies, or None (start afresh) if none does and ``cfg.force_restart`` is set or the
    folder holds no output. Each skipped checkpoint is named on stderr, one line each.
    Raises :class:`NothingToResume` otherwise."""
    found, skipped = find_latest(out / "checkpoints")
    for line in skipped:
        print(f"--resume: {line}", file=sys.stderr)
    if found is None:
        check_restart(out, skipped, cfg.force_restart)
        log(f"--resume: no checkpoint in {out / 'checkpoints'} verifies; starting again "
            "from step 0")
    return found


def final_evaluation_due(out: Path, steps: int) -> bool:
    """Whether the run in ``out`` trained to ``steps`` and stopped before its final
    evaluation (summary.json missing, or written without the final figures)."""
    try:
        summary = json.loads((out / "summary.json").read_text())
        return summary.get("steps") == steps and summary.get("final") is None
    except (OSError, ValueError, AttributeError):
        return True


def load_best(out: Path) -> dict | None:
    """The actor of the run's best_model.zip (None if there is none);
    :class:`RunFolderError` if it does not load."""
    path = out / "best_model.zip"
    if not path.exists():
        return None
    from sb3_contrib import MaskablePPO

    from .export import export_policy

    try:
        return export_policy(MaskablePPO.load(path, device="cpu"))
    except Exception as err:  # whatever a damaged zip raises
        raise RunFolderError(f"--resume: {path} does not load as a model "
                             f"({type(err).__name__}: {err}); delete it and "
                             "best_model.json to resume without the best model so far") from None


class TrainingInterrupted(KeyboardInterrupt):
    """Ctrl-C during :func:`train`: ``steps`` learned so far, ``checkpoint`` the step of
    the newest complete checkpoint in ``out`` (None: none yet). A ``KeyboardInterrupt``,
    so code that catches those still does."""

    def __init__(self, steps: int, checkpoint: int | None, out: str):
        super().__init__(steps, checkpoint, out)
        self.steps, self.checkpoint, self.out = steps, checkpoint, out

    def __str__(self) -> str:
        resume = f"widderkopf-train --out {shlex.quote(self.out)} --resume"
        if self.checkpoint is None:
            return (f"stopped at step {self.steps:,}, before the first checkpoint; "
                    f"{resume} --force-restart starts the run again from step 0 with its "
                    "settings")
        back = "" if self.checkpoint == self.steps else (
            f" (it goes on from the checkpoint at step {self.checkpoint:,})")
        return f"stopped at step {self.steps:,}; resume with: {resume}{back}"
