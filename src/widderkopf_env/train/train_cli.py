"""``widderkopf-train``: one PPO run (:mod:`.ppo`), or with ``--recipe NAME`` a whole
recipe from nothing to one agent file (:mod:`.recipes.cli`)."""

from __future__ import annotations

import sys

__all__ = ["main"]


def main(argv=None) -> int:
    """The console script; returns the exit status."""
    args = sys.argv[1:] if argv is None else list(argv)
    if any(a == "--recipe" or a.startswith("--recipe=") for a in args):
        from .recipes.cli import main as recipe_main

        return recipe_main(args)
    from .ppo import main as ppo_main

    return ppo_main(args)


if __name__ == "__main__":
    raise SystemExit(main())
