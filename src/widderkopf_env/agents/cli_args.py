"""What the console scripts share about agents: the AGENT argument and its help.

The rest of the plumbing (value types, :func:`~widderkopf_env.cli.run_cli`) is the
core's :mod:`widderkopf_env.cli`.

An AGENT argument is parsed as a string and checked without running anything stored in
a file (:func:`agent_spec`); the agent itself is loaded after the whole command line is
parsed (:func:`load_agents`), so ``widderkopf-eval FILE --help`` loads nothing.

Trust: a MaskablePPO ``.zip`` and an RLlib checkpoint folder hold pickles, which run
code when loaded, and a Python agent (``module:Class``, ``file.py:Class``) is code. Bot
names and network ``.npz`` files (plain arrays, read with ``allow_pickle=False``) run
none. ``--safe`` refuses every spec of the first kind.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from widderkopf_env.cli import UsageError

#: The trust note of every option that may load an agent from a file.
TRUST_NOTE = ("a .zip or a checkpoint folder holds pickles, which run code when loaded, "
              "and a Python agent is code: load only files you trust")


def check_agent_spec(spec: str) -> str:
    """``spec`` if :func:`~widderkopf_env.agents.load_agent` may accept it, checked without
    running code from any file: a bot name; an existing network ``.npz`` (its arrays and
    shapes) or MCCFR table ``.npz`` (its format entry); an existing ``.zip`` holding a
    stable-baselines3 model's entries (not unpickled); an RLlib checkpoint folder; a Python
    agent, ``module:Class`` or ``file.py:Class`` (the file read, not run:
    :func:`~widderkopf_env.registry.check_code_spec`). Raises ``ValueError`` (not one of
    these) or ``FileNotFoundError`` (a ``.npz`` or ``.zip`` that does not exist)."""
    from widderkopf_env.registry import (
        LOADER_GROUP,
        agent_names,
        check_code_spec,
        code_spec,
        load_agent,
    )

    if spec in agent_names():
        return spec
    if code_spec(spec) is not None:
        return check_code_spec(spec)
    suffix = Path(spec).suffix.lower()
    if suffix == ".npz":
        from .mccfr import is_table_file
        from .network_file import load_snapshot_agent

        if is_table_file(spec):
            return spec  # an MCCFR table: plain arrays, read when loaded

        load_snapshot_agent(spec)  # plain arrays: reading them runs no code
        return spec
    if suffix == ".zip":
        from .sb3_model import check_model_path

        check_model_path(Path(spec))
        return spec
    from .rllib_checkpoint import is_checkpoint

    if is_checkpoint(spec):
        return spec
    from importlib.metadata import entry_points

    if entry_points(group=LOADER_GROUP):
        return spec  # another package's loader may take it: checked when loaded
    load_agent(spec)  # none of this package's loaders takes it: raises "unknown agent"
    return spec


def agent_spec(text: str) -> str:
    """An argparse type: :func:`check_agent_spec`, its errors as argparse's."""
    try:
        return check_agent_spec(text)
    except (ValueError, TypeError, OSError) as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def runs_code(spec: str) -> bool:
    """Whether loading ``spec`` may run code stored in a file: every spec except a bot
    name and a network ``.npz``."""
    from widderkopf_env.registry import agent_names

    return spec not in agent_names() and Path(spec).suffix.lower() != ".npz"


def check_safe(spec: str, option: str = "--safe") -> None:
    """Raise :class:`UsageError` if ``spec`` may run code when loaded (``--safe``)."""
    if runs_code(spec):
        raise UsageError(f"{option} refuses {spec!r}: only bot names and network .npz files "
                         "are loaded, as a .zip, a checkpoint folder or a Python agent "
                         "(module:Class, file.py:Class) runs code")


def load_agents(*specs: str, safe: bool = False) -> list:
    """The agents of ``specs``, loaded once here (so that a spec that does not load ends
    the command before any work); every failure a :class:`UsageError`."""
    from widderkopf_env.registry import load_agent

    if safe:
        for spec in specs:
            check_safe(spec)
    agents = []
    for spec in specs:
        try:
            agents.append(load_agent(spec))
        except (ValueError, TypeError, OSError, ImportError) as err:
            raise UsageError(str(err)) from None
    return agents


def add_safe(parser: argparse.ArgumentParser) -> None:
    """``--safe``: refuse agent files that run code when loaded."""
    parser.add_argument("--safe", action="store_true",
                        help="load no file that can run code: only bot names and network "
                             ".npz files (refuses a .zip, an RLlib checkpoint folder and a "
                             "Python agent)")


def agent_help(what: str, safe_option: bool = False) -> str:
    """Help text for an agent option: the names, the kinds of file, the trust note."""
    from widderkopf_env.registry import agent_names

    safe = "; --safe refuses them" if safe_option else ""
    return (f"{what}: " + ", ".join(agent_names()) + ", a network .npz, an MCCFR table "
            ".npz, a MaskablePPO .zip, an RLlib checkpoint folder "
            f"or a Python agent, module:Class or file.py:Class ({TRUST_NOTE}{safe})")
