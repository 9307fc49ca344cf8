"""A run's config.json: written from its :class:`~.config.TrainConfig`
(:func:`save_config`), and what a saved one means today (:func:`upgrade`; read back and
checked key by key by :func:`.config.read_saved`).

The keys are the settings' field names. Keys that older versions wrote under another
name are read through :data:`RENAMED`, the one map of old key to field, and settings
that older runs lack take the value those runs had (:data:`~.algorithms.ADDED`), so a
run folder written before still loads and resumes.
"""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path

from . import run_folder
from .algorithms import ADDED

#: config.json keys of older versions -> the field that holds that setting now.
RENAMED = {"p_heuristic": "heuristic_share", "p_random": "random_share",
           "policy": "policy_class", "n_epochs": "epochs", "eval_workers": "workers"}
#: Settings that are not kept in config.json: ``force_restart`` is a one-time order (a
#: later ``--resume`` must not inherit it).
NOT_SAVED = frozenset({"force_restart"})


def to_json(cfg) -> dict:
    """The config.json object of the settings ``cfg`` (one key per saved field)."""
    return {f.name: _plain(getattr(cfg, f.name)) for f in fields(cfg)
            if f.name not in NOT_SAVED}


def _plain(value):
    return list(value) if isinstance(value, tuple) else value


def save_config(out: Path, cfg) -> None:
    """Write the run's config.json atomically (:func:`to_json`)."""
    run_folder.write_atomic(out / "config.json",
                            (json.dumps(to_json(cfg), indent=1) + "\n").encode())


def upgrade(data: dict) -> dict:
    """``data`` (a config.json object of any version) with today's keys: old names
    through :data:`RENAMED`, settings older runs lack as they had them; ValueError if an
    old key and its new name are both there."""
    both = sorted(old for old, new in RENAMED.items() if old in data and new in data)
    if both:
        raise ValueError(f"keys {both} and their new names {[RENAMED[k] for k in both]} "
                         "both given")
    data = {RENAMED.get(k, k): v for k, v in data.items()}
    return {"force_restart": False, "variant": "full", "preset": None, "minutes": None,
            **ADDED, **data}
