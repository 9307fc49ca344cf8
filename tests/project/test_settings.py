"""Settings declared once (``widderkopf_env.settings``): a dataclass's fields generate the
command line, and a parsed command line gives back the dataclass."""

from __future__ import annotations

import argparse
import dataclasses

import pytest

from widderkopf_env.agents.eval_cli import EvalSettings
from widderkopf_env.cli import DeprecatedAlias, integer
from widderkopf_env.settings import add_options, from_namespace, option_name, setting
from widderkopf_env.train.distill_cli import DistillGenerateSettings, DistillTrainSettings
from widderkopf_env.train.exploit import ExploitSettings
from widderkopf_env.train.rllib.cli import RllibSettings
from widderkopf_env.train.value_cli import ValueDataSettings, ValueFitSettings


@dataclasses.dataclass
class Example:
    data: list = setting(None, "folders", nargs="+", required=True)
    batch_size: int = setting(64, "rows per step", type=integer(1), old="--batch")
    fast: bool = setting(False, "go fast", action="store_true")
    derived: int = setting(3, "worked out", cli=False)


def _parser(cls) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="example", exit_on_error=False)
    add_options(p, cls)
    return p


def test_the_fields_make_the_options_and_come_back(capsys):
    p = _parser(Example)
    got = from_namespace(Example, p.parse_args(["--data", "a", "b", "--batch", "8", "--fast"]))
    assert got == Example(data=["a", "b"], batch_size=8, fast=True, derived=3)
    assert "--batch is deprecated" in capsys.readouterr().err
    assert from_namespace(Example, p.parse_args(["--data", "x"])).batch_size == 64
    assert "--derived" not in p.format_help() and "--batch-size" in p.format_help()
    with pytest.raises(SystemExit):
        p.parse_args([])  # --data is required
    with pytest.raises(argparse.ArgumentError):
        p.parse_args(["--data", "x", "--batch-size", "0"])


@pytest.mark.parametrize("cls", [DistillGenerateSettings, DistillTrainSettings,
                                 ValueDataSettings, ValueFitSettings, ExploitSettings,
                                 EvalSettings, RllibSettings])
def test_each_command_option_is_a_field_with_its_default_and_help(cls):
    p = _parser(cls)
    options = {a.dest: a for a in p._actions
               if a.option_strings and not isinstance(a, (DeprecatedAlias, argparse._HelpAction))}
    for f in dataclasses.fields(cls):
        assert f.metadata["help"], f.name
        if not f.metadata["cli"]:
            assert f.name not in options
            continue
        action = options.pop(f.name)
        assert option_name(f) in action.option_strings
        if not f.metadata["required"]:
            default = f.default_factory() if f.default is dataclasses.MISSING else f.default
            assert action.default == default, f.name
    assert not options
