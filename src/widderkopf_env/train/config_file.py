"""A run's config.json: written from its :class:`~.config.TrainConfig`
(:func:`save_config`), what a saved one means today (:func:`upgrade`) and whether each
value fits its setting (:func:`check_value`; read back and checked key by key by
:func:`.config.read_saved`, and a preset's values by :mod:`.presets`).

The keys are the settings' field names. Keys that older versions wrote under another
name are read through :data:`RENAMED`, the one map of old key to field, and settings
that older runs lack take the value those runs had (:data:`~.algorithms.ADDED`), so a
run folder written before still loads and resumes.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import fields
from pathlib import Path

from widderkopf_env.agents.cli_args import agent_spec, check_agent_spec
from widderkopf_env.cli import int_list

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


NULLABLE = {"init", "preset", "minutes"}  # settings that stay None once resolved
_TYPES = {"int": (int,), "float": (int, float), "bool": (bool,), "str": (str,)}


def check_value(f, value) -> None:
    """ValueError naming field ``f`` unless ``value`` is of its type, among its choices
    and in its range."""
    name, kind = f.name, f.type.replace(" | None", "")
    if value is None and name in NULLABLE:
        return
    if kind == "list[int]":
        ok = isinstance(value, list) and all(type(v) is int for v in value)
    else:
        allowed = _TYPES[kind]
        ok = isinstance(value, allowed) and (kind == "bool" or not isinstance(value, bool))
    if not ok:
        raise ValueError(f"{name!r} must be {f.type}, got {value!r}")
    convert = f.metadata["type"]
    try:
        if f.metadata["choices"] and value not in f.metadata["choices"]:
            raise ValueError(f"one of {list(f.metadata['choices'])}")
        if kind == "list[int]":
            int_list(",".join(map(str, value)))
        elif convert is agent_spec:
            check_agent_spec(value)
        elif convert is not None and kind != "str":
            convert(repr(value))
    except (ValueError, OSError, argparse.ArgumentTypeError) as err:
        raise ValueError(f"{name!r} = {value!r}: expected {err}") from None
