"""``widderkopf-train --preset NAME``: settings files, one per preset, shipped here.

A preset is a JSON object of :class:`~widderkopf_env.train.config.TrainConfig` field
names and values (``ppo-default.json``: the default PPO; ``ppo-selfplay.json``: the
seat-symmetric self-play defaults of :data:`~widderkopf_env.train.algorithms.SYMMETRIC_DEFAULTS`;
``mmd.json``: the same with ``--algo mmd``; ``ppo-full-hour.json``: the default PPO
against the heuristic for 60 minutes on 256 batched envs). It sets the fields it names; the options
given on the command line override it. ``--preset FILE.json`` reads a file of the same
form. :func:`apply` is called by :mod:`..config` while it parses a command line (and
passes the fields and their check: this package does not import it).
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

from widderkopf_env.cli import UsageError

#: Fields a preset may not set: they name the run folder, not how to train.
NOT_IN_PRESETS = frozenset({"out", "resume", "force_restart", "preset"})


def names() -> list[str]:
    """The shipped presets' names."""
    return sorted(p.name.removesuffix(".json") for p in resources.files(__name__).iterdir()
                  if p.name.endswith(".json"))


def listing() -> str:
    """One line per shipped preset: its name and the options it amounts to."""
    lines = []
    for name in names():
        values = _read(resources.files(__name__) / f"{name}.json", name)
        lines.append(f"{name}: " + " ".join(_option(k, v) for k, v in values.items()))
    return "\n".join(lines)


def load(spec: str, settings, check_value) -> tuple[str, dict]:
    """The preset ``spec`` (a shipped name, or a path to a .json file) as its name and
    its settings, each one of the fields ``settings`` and checked by ``check_value(field,
    value)`` (ValueError); UsageError naming what is wrong and what is allowed."""
    if spec in names():
        name, source = spec, resources.files(__name__) / f"{spec}.json"
    elif spec.endswith(".json"):
        name, source = spec, Path(spec)
        if not source.is_file():
            raise UsageError(f"--preset: no file {spec}")
    else:
        raise UsageError(f"--preset: no preset {spec!r} (the presets: "
                         f"{', '.join(names())}; or a settings file ending in .json)")
    return name, _check(_read(source, spec), spec, settings, check_value)


def apply(args: dict, given: set, settings, check_value) -> tuple[dict, set]:
    """The parsed options ``args`` with the preset they name (``args["preset"]``) filled
    in where the command line did not give the setting (``given``), and ``given`` with
    the preset's settings (so no other default replaces them). ``--preset`` with no
    name prints :func:`listing` and exits 0."""
    if args.get("preset") is None:
        print(listing())
        raise SystemExit(0)
    name, values = load(args["preset"], settings, check_value)
    return ({**args, **{k: v for k, v in values.items() if k not in given}, "preset": name},
            given | set(values))


def shipped(name: str) -> dict:
    """The settings of the shipped preset ``name`` as its file holds them (unchecked)."""
    return _read(resources.files(__name__) / f"{name}.json", name)


def _read(source, spec: str) -> dict:
    try:
        data = json.loads(source.read_text())
    except (OSError, ValueError) as err:
        raise UsageError(f"--preset {spec}: not a readable JSON file ({err})") from None
    if not isinstance(data, dict):
        raise UsageError(f"--preset {spec}: expected a JSON object of settings, got "
                         f"{type(data).__name__}")
    return data


def _check(data: dict, spec: str, settings, check_value) -> dict:
    known = {f.name: f for f in settings if f.name not in NOT_IN_PRESETS}
    for key, value in data.items():
        if key not in known:
            raise UsageError(f"--preset {spec}: unknown setting {key!r} (allowed: the "
                             "settings of widderkopf-train --help as field names, dashes "
                             "as underscores, e.g. 'ent_coef'; not "
                             f"{', '.join(sorted(NOT_IN_PRESETS))})")
        try:
            check_value(known[key], value)
        except ValueError as err:
            raise UsageError(f"--preset {spec}: {err}") from None
    return data


def _option(key: str, value) -> str:
    flag = "--" + key.replace("_", "-")
    if isinstance(value, bool):
        return flag if value else f"(no {flag})"
    return f"{flag} {','.join(map(str, value)) if isinstance(value, list) else value}"
