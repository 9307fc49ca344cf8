"""The files each kind of run writes in its folder, at any depth (:data:`RUN_FILES`), and
:func:`survey`, which sorts a folder's contents into the run's files and everything else.

A pattern is a path inside the run folder, ``/`` between its parts; each part is a name
or an ``fnmatch`` pattern matched against one name (``*`` never crosses a ``/``), and a
part ``**`` stands for any number of folders and files (an RLlib checkpoint is RLlib's
own tree). :class:`~widderkopf_env.train.run_folder.RunFolder` records a run's patterns
in its manifest and deletes (``--force-restart``) only what they match.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from pathlib import Path

from widderkopf_env.atomic import is_temporary

LOCK_NAME = ".widderkopf-train.lock"
MANIFEST = ".widderkopf-run.json"

_PPO = ("config.json", "checkpoints/step_*.zip", "checkpoints/step_*.state.npz",
        "checkpoints/step_*.state.pkl", "best_model.*", "final_model.*", "final_policy.npz",
        "eval_history.json", "learning_curve.png", "summary.json", "exploitability.csv",
        "exploitability.png",
        "tb/*/events.out.tfevents.*")

#: The files each kind of run writes (patterns, see the module documentation); the
#: temporary files of its atomic writes are the run's too, in any folder of the run.
RUN_FILES = {
    "ppo": _PPO,
    "recipe": ("recipe.json", "recipe.log", "clone/data/shard_*.npz", "clone/policy.npz",
               *(f"ppo/{p}" for p in (*_PPO, MANIFEST, LOCK_NAME)),
               "values/*/shard_*.npz", "values/agent.npz", "values2/*/shard_*.npz",
               "agent.npz", "evaluation.json", "summary.json", "curve.png", "curve.json"),
    "exploit": ("exploit.json", "best_response.zip", "learning_curve.png",
                "tb/*/events.out.tfevents.*"),
    "shards": ("shard_*.npz",),
    "rllib": ("checkpoint_*/**",),
}


def top_level(patterns) -> tuple:
    """The top-level entries of ``patterns`` (each once, in their order)."""
    return tuple(dict.fromkeys(p.split("/")[0] for p in patterns))


def matches(parts: tuple, pattern: tuple) -> bool:
    """Whether the path ``parts`` (names) is a file of ``pattern`` (its parts)."""
    if not pattern:
        return not parts
    if pattern[0] == "**":
        return any(matches(parts[i:], pattern[1:]) for i in range(len(parts) + 1))
    return (bool(parts) and fnmatch.fnmatchcase(parts[0], pattern[0])
            and matches(parts[1:], pattern[1:]))


def holds(parts: tuple, pattern: tuple) -> bool:
    """Whether the folder ``parts`` (names) is one that files of ``pattern`` lie in."""
    for i, name in enumerate(parts):
        if i < len(pattern) and pattern[i] == "**":
            return True
        if i >= len(pattern) - 1 or not fnmatch.fnmatchcase(name, pattern[i]):
            return False
    return True


@dataclass
class Survey:
    """A run folder's contents: ``files`` the run wrote, its ``folders`` (deepest first)
    and ``other``, the paths (relative, ``/`` between parts) of everything else: a
    folder no run writes is named once, not its contents."""

    files: list[Path] = field(default_factory=list)
    folders: list[Path] = field(default_factory=list)
    other: list[str] = field(default_factory=list)


def survey(out: Path, patterns) -> Survey:
    """Sort everything under ``out`` (its lock and manifest aside) by ``patterns``. A
    symbolic link is never the run's (a run writes none) and never followed; a folder
    that cannot be listed is named in ``other``."""
    split = [tuple(p.split("/")) for p in patterns]
    found = Survey()

    def visit(folder: Path, parts: tuple) -> None:
        try:
            children = sorted(folder.iterdir())
        except OSError:
            found.other.append("/".join(parts) + " (cannot be listed)")
            return
        for child in children:
            rel = (*parts, child.name)
            if not parts and child.name in (LOCK_NAME, MANIFEST):
                continue
            if child.is_symlink():
                found.other.append("/".join(rel))
            elif child.is_dir():
                if any(holds(rel, p) for p in split):
                    visit(child, rel)
                    found.folders.append(child)
                else:
                    found.other.append("/".join(rel))
            elif is_temporary(child.name) or any(matches(rel, p) for p in split):
                found.files.append(child)
            else:
                found.other.append("/".join(rel))

    if out.is_dir():
        visit(out, ())
    return found
