"""One vocabulary across the command lines: each option name takes one kind of value in
every command, the retired spellings stay retired (or deprecated aliases), the old
spellings still work with a warning, ``widderkopf VERB`` runs each command, and the
options table of docs/api/cli.md is the parsers' own."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest
from helpers import ROOT

from widderkopf_env import commands
from widderkopf_env.cli import DeprecatedAlias

#: Names that had a synonym (issue 37's "one meaning, two names"): each lives on only as a
#: deprecated alias of the one name kept.
RETIRED = {"--n-epochs", "--no-progress-bar", "--steps", "--minibatch", "--eval-workers",
           "--batch", "--p-heuristic", "--p-random", "--heuristic"}


def _kind(kind: str) -> str:
    """Kinds that are the same value to a user: a path is a name of a file."""
    return kind.replace("path", "name")


def meanings(rows) -> dict:
    """Each current option name with the kinds of value it takes, by command."""
    out: dict = {}
    for name, command, kind, _default, _text, new in rows:
        if name.startswith("-") and not new:
            out.setdefault(name, {})[command] = _kind(kind)
    return out


def test_every_option_takes_one_kind_of_value_in_every_command():
    found = meanings(commands.option_rows())
    assert {"--seed", "--workers", "--out", "--epochs"} <= set(found)
    twice = {name: by for name, by in found.items() if len(set(by.values())) > 1}
    assert not twice, f"one name, two meanings (rename one, keep a deprecated alias): {twice}"


def test_the_check_finds_a_second_meaning():
    rows = [("--batch-size", "a", "int", "", "", ""), ("--batch-size", "b", "flag", "", "", "")]
    assert meanings(rows) == {"--batch-size": {"a": "int", "b": "flag"}}


def test_retired_names_are_only_deprecated_aliases():
    current = {name for name, *_, new in commands.option_rows() if not new}
    assert not RETIRED & current, f"retired spellings are options again: {RETIRED & current}"


@pytest.mark.parametrize("script, argv, dest, value", [
    ("widderkopf_env.train.config:build_parser", ["--n-epochs", "7"], "epochs", 7),
    ("widderkopf_env.train.config:build_parser", ["--no-progress-bar"], "progress_bar", False),
    ("widderkopf_env.train.config:build_parser", ["--eval-workers", "3"], "workers", 3),
    ("widderkopf_env.train.exploit:build_parser", ["heuristic", "--steps", "9"], "total_steps", 9),
    ("widderkopf_env.agents.play_cli:build_parser", ["--hands", "4"], "hands", 4),
    ("widderkopf_env.train.rllib.cli:parser", ["--minibatch", "64"], "batch_size", 64),
    ("widderkopf_env.train.rllib.cli:parser", ["--self-play", "0.5"], "self_play_share", 0.5),
    ("widderkopf_env.train.value_cli:parser", ["data", "--out", "x", "--shards", "1",
                                               "--tricks", "2", "5"], "tricks", [2, 5]),
])
def test_an_old_spelling_works_and_warns(script, argv, dest, value, capsys):
    module, _, name = script.partition(":")
    parser = getattr(importlib.import_module(module), name)()
    assert getattr(parser.parse_args(argv), dest) == value
    err = capsys.readouterr().err
    old = [a for a in argv if a.startswith("--") and a not in ("--out", "--shards")][0]
    assert f"{old} is deprecated" in err


def test_old_spellings_are_hidden_from_help_and_listed_in_the_table():
    parser = importlib.import_module("widderkopf_env.train.config").build_parser()
    assert "--n-epochs" not in parser.format_help() and "--epochs" in parser.format_help()
    aliases = {(name, new) for name, *_, new in commands.option_rows() if new}
    assert ("--n-epochs", "--epochs") in aliases
    assert all(isinstance(a, DeprecatedAlias) for a in parser._actions
               if "--n-epochs" in a.option_strings)


def test_the_docs_table_is_current():
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        cli_table = importlib.import_module("cli_table")
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    text = cli_table.PAGE.read_text(encoding="utf-8")
    assert cli_table.rewritten(text) == text, "docs/api/cli.md is stale: python scripts/cli_table.py"
    for _name, command, *_ in commands.option_rows():
        assert f"| {command} |" in text


def test_widderkopf_runs_each_verb(capsys):
    assert commands.main(["--help"]) == 0
    listing = capsys.readouterr().out
    assert all(verb in listing for verb in commands.COMMANDS)
    assert commands.main(["no-such-verb"]) == 2
    assert "unknown verb" in capsys.readouterr().err
    for verb in commands.COMMANDS:
        with pytest.raises(SystemExit) as ended:
            commands.main([verb, "--help"])
        assert ended.value.code == 0, verb
        assert "usage:" in capsys.readouterr().out, verb


def test_widderkopf_eval_plays_as_widderkopf_eval():
    proc = subprocess.run([sys.executable, "-m", "widderkopf_env.commands", "eval", "random",
                           "random", "--pairs", "1", "--workers", "1", "--json",
                           "--no-progress"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert '"hands": 2' in proc.stdout.splitlines()[-1]


def _commands_in(text: str):
    """The command lines of the code blocks of a page: ``(script words, options)``."""
    lines, block = [], False
    for line in text.split("\n"):
        if line.startswith("```"):
            block = not block
        elif block or line.startswith("    "):
            lines.append(line.strip())
    joined = "\n".join(lines).replace("\\\n", " ")
    for line in joined.split("\n"):
        words = line.split("#", 1)[0].split()
        while words and words[0] in ("nice", "$"):
            words = words[1:]
        if words and words[0].startswith("widderkopf"):
            yield words[:3], [w.split("=", 1)[0] for w in words if w.startswith("--")]


def _deprecated_by_command() -> dict:
    """For each command line (``widderkopf-values data``, ...), its deprecated spellings."""
    out: dict = {}
    for name, command, *_, new in commands.option_rows():
        if new:
            out.setdefault(command, set()).add(name)
    return out


def test_the_pages_teach_no_deprecated_spelling():
    """The command lines shown on the docs pages and the README use the current names
    (the experiments page records commands as they were run, and is left out)."""
    deprecated = _deprecated_by_command()
    verbs = {verb: c.script for verb, c in commands.COMMANDS.items()}
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    found = []
    for page in pages:
        if page.name in ("EXPERIMENTS.md", "cli.md", "changelog.md"):
            continue
        for words, options in _commands_in(page.read_text(encoding="utf-8")):
            script = verbs.get(words[1], words[0]) if words[0] == "widderkopf" else words[0]
            rest = words[2:] if words[0] == "widderkopf" else words[1:]
            names = [script]
            if rest and not rest[0].startswith("-"):
                names.insert(0, f"{script} {rest[0]}")
            if "--recipe" in options:
                names.insert(0, "widderkopf-train --recipe")
            old = next((deprecated[n] for n in names if n in deprecated), set())
            found += [(page.name, script, o) for o in options if o in old]
    assert not found, f"deprecated spellings on the pages: {found}"
