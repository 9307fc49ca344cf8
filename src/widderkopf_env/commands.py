"""One form of command: ``widderkopf VERB [options]``, and the table of every option.

    widderkopf eval net heuristic --pairs 200       # = widderkopf-eval net heuristic ...
    widderkopf ladder net                            # = widderkopf-eval net --ladder
    widderkopf recipe demo --out runs/demo           # = widderkopf-train --recipe demo ...
    widderkopf --help                                # the verbs

Each verb runs the console script of the same job (``widderkopf-eval``, ...), which keep
working. :data:`COMMANDS` names them by ``module:function`` strings, so the core imports
no bot or training code until a verb runs. :func:`options_table` builds the table of
every option of every command from their parsers (the docs' Command lines page shows it;
``python scripts/cli_table.py`` rewrites it there and a test checks that it is current).
"""

from __future__ import annotations

import argparse
import importlib
import re
import sys
from dataclasses import dataclass

__all__ = ["COMMANDS", "Command", "main", "options_table", "parsers"]


@dataclass(frozen=True)
class Command:
    """A verb of ``widderkopf``: its console script, its entry point and parser (as
    ``module:function``), the arguments it puts first, and one line of help."""

    script: str
    main: str
    parser: str
    summary: str
    first: tuple[str, ...] = ()


_AGENTS, _TRAIN = "widderkopf_env.agents.", "widderkopf_env.train."

#: The verbs, in the order ``widderkopf --help`` lists them.
COMMANDS: dict[str, Command] = {
    "play": Command("widderkopf-play", _AGENTS + "play_cli:main",
                    _AGENTS + "play_cli:build_parser", "play a match in the terminal"),
    "eval": Command("widderkopf-eval", _AGENTS + "eval_cli:main",
                    _AGENTS + "eval_cli:build_parser", "a duplicate match of two agents"),
    "ladder": Command("widderkopf-eval --ladder", _AGENTS + "eval_cli:main",
                      _AGENTS + "eval_cli:build_parser",
                      "rate an agent against the baselines", ("--ladder",)),
    "replay": Command("widderkopf-replay", "widderkopf_env.replay:main",
                      "widderkopf_env.replay:build_parser", "a game file as an HTML replay"),
    "train": Command("widderkopf-train", _TRAIN + "ppo:main", _TRAIN + "config:build_parser",
                     "train a PPO agent"),
    "recipe": Command("widderkopf-train --recipe", _TRAIN + "recipes.cli:main",
                      _TRAIN + "recipes.cli:build_parser",
                      "from nothing to one agent file", ("--recipe",)),
    "distill": Command("widderkopf-distill", _TRAIN + "distill_cli:main",
                       _TRAIN + "distill_cli:parser", "imitation data and its fit"),
    "values": Command("widderkopf-values", _TRAIN + "value_cli:main",
                      _TRAIN + "value_cli:parser", "exact card values and their fit"),
    "exploit": Command("widderkopf-exploit", _TRAIN + "exploit:main",
                       _TRAIN + "exploit:build_parser", "train a best response to an agent"),
    "train-rllib": Command("widderkopf-train-rllib", _TRAIN + "rllib.cli:main",
                           _TRAIN + "rllib.cli:parser", "league self-play on Ray RLlib"),
}


def _load(target: str):
    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)


def _usage() -> str:
    width = max(map(len, COMMANDS))
    lines = ["usage: widderkopf VERB [options]   (widderkopf VERB --help for a verb's options)",
             "", "verbs:"]
    lines += [f"  {verb:<{width}}  {c.summary} ({c.script})" for verb, c in COMMANDS.items()]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    """The ``widderkopf`` console script: runs the verb's command; returns its status."""
    args = sys.argv[1:] if argv is None else list(argv)
    if not args or args[0] in ("-h", "--help"):
        sys.stdout.write(_usage())
        return 0 if args else 2
    verb, rest = args[0], args[1:]
    if verb not in COMMANDS:
        sys.stderr.write(_usage() + f"widderkopf: error: unknown verb {verb!r}; the verbs: "
                         f"{', '.join(COMMANDS)}\n")
        return 2
    command = COMMANDS[verb]
    if command.first == ("--recipe",) and (not rest or rest[0].startswith("-")):
        first: tuple = ()  # `widderkopf recipe --help`: the recipe's own help
    else:
        first = command.first
    return _load(command.main)([*first, *rest])


# --- the options table -----------------------------------------------------------------------

def parsers():
    """``(command line, parser)`` of every command and subcommand, in :data:`COMMANDS`'
    order (``ladder`` shares ``eval``'s parser and is left out)."""
    seen = set()
    for command in COMMANDS.values():
        if command.parser in seen:
            continue
        seen.add(command.parser)
        yield from _walk(command.script, _load(command.parser)())


def _walk(name: str, parser: argparse.ArgumentParser):
    yield name, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub, subparser in action.choices.items():
                yield from _walk(f"{name} {sub}", subparser)


def _skipped(action) -> bool:
    return isinstance(action, (argparse._HelpAction, argparse._VersionAction,
                               argparse._SubParsersAction))


def value_kind(action) -> str:
    """What an option takes, in words: ``flag``, or the value's kind (``int``,
    ``number``, ``name``, ``path``, ``agent``, ``list``), times its count."""
    from widderkopf_env.cli import DeprecatedAlias

    if isinstance(action, DeprecatedAlias):
        action = action.target
    if action.nargs == 0:
        return "flag"
    kind = getattr(action.type, "kind", None) or {
        int: "int", float: "number", str: "name", None: "name"}.get(action.type)
    if kind is None:
        kind = getattr(action.type, "__name__", "value")
        kind = {"int_list": "list", "agent_spec": "agent", "_agent": "agent",
                "network_file_arg": "path", "Path": "path", "output_dir": "path",
                "output_file": "path", "existing_file": "path", "_mix": "list"}.get(kind, kind)
    if action.choices is not None and action.type in (None, str):
        kind = "choice"
    if isinstance(action.nargs, int):
        return f"{action.nargs} x {kind}"
    return {"+": f"{kind}...", "?": f"[{kind}]", "*": f"[{kind}...]"}.get(action.nargs, kind)


def option_rows():
    """One row per option of every command: ``(option, command, kind, default, help,
    deprecated)``; ``deprecated`` names the new spelling of a deprecated alias."""
    from widderkopf_env.checks import MAX_WORKERS
    from widderkopf_env.cli import DeprecatedAlias
    from widderkopf_env.seeding import default_workers

    rows = []
    for command, parser in parsers():
        for action in parser._actions:
            if _skipped(action):
                continue
            old = isinstance(action, DeprecatedAlias)
            name = action.option_strings[-1] if action.option_strings else (
                action.metavar or action.dest).upper()
            shown = action.target if old else action
            default = shown.default
            if default is None or default is False or shown.nargs == 0:
                default = ""
            elif name == "--workers" and default == min(default_workers(), MAX_WORKERS):
                default = "the CPU cores"  # the same table on every machine
            text = " ".join((shown.help or "").replace("%%", "%").split())
            text = re.sub(r", here \d+\)", ")", text)
            rows.append((name, command, value_kind(action), str(default), text,
                         action.new if old else ""))
    return sorted(rows, key=lambda r: (r[0].startswith("-"), r[0].lstrip("-"), r[1]))


def options_table() -> str:
    """The Markdown table of every option of every command, and the deprecated spellings."""
    def cell(text: str) -> str:
        return text.replace("|", "/").replace("\n", " ")

    rows = option_rows()
    out = ["| option | command | takes | default | meaning |", "|---|---|---|---|---|"]
    out += [f"| `{name}` | {command} | {kind} | {cell(default)} | {cell(text)} |"
            for name, command, kind, default, text, new in rows if not new]
    out += ["", "Deprecated spellings (they work and print a warning; removed in the next "
            "release):", "", "| old | new | command |", "|---|---|---|"]
    out += [f"| `{name}` | `{new}` | {command} |" for name, command, *_, new in rows if new]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    raise SystemExit(main())
