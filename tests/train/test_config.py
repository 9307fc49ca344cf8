"""widderkopf-train's settings declared once (src/widderkopf_env/train/config.py): the parser, the saved
config.json's checks (config_file.py) and the docs' defaults table all come from TrainConfig,
and the trainer reads one TrainConfig object."""

from __future__ import annotations

import ast
import dataclasses
import re
import subprocess
import sys
from pathlib import Path

import pytest

from widderkopf_env import settings
from widderkopf_env.cli import DeprecatedAlias
from widderkopf_env.train import config
from widderkopf_env.train.config import TrainConfig, build_parser, check_saved, defaults_table
from widderkopf_env.train.config_file import RENAMED, to_json

ROOT = Path(__file__).resolve().parents[2]
TABLE = re.compile(r"<!-- ppo-defaults:start -->\n(.*?)<!-- ppo-defaults:end -->", re.S)


def test_every_option_is_a_field_with_its_default_and_help():
    parser = build_parser()
    options = {a.dest: a for a in parser._actions
               if a.option_strings and not isinstance(a, DeprecatedAlias)}
    for f in dataclasses.fields(TrainConfig):
        assert f.metadata["help"], f.name
        if not f.metadata["cli"]:
            assert f.name not in options
            continue
        action = options.pop(f.name)
        default = f.default if f.default is not dataclasses.MISSING else f.default_factory()
        if f.name == "net_arch":
            default = ",".join(map(str, default))
        assert action.default == default, f.name
    assert set(options) == {"help", "version", "net_size"}  # net_size: a preset of net_arch


def test_the_docs_show_the_table_of_the_dataclass():
    docs = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    shown = [(p, m) for p in docs for m in TABLE.findall(p.read_text())]
    assert shown, "no <!-- ppo-defaults:start --> table in README.md or docs/"
    for path, table in shown:
        assert table == defaults_table(), f"{path}: regenerate with defaults_table()"
    for f in dataclasses.fields(TrainConfig):
        assert f.metadata["help"].replace("|", "/") in defaults_table()


def _saved() -> dict:
    return to_json(config.resolve(TrainConfig(out="runs/x")))


@pytest.mark.parametrize("key, value, message", [
    ("epochs", "4", "'epochs' must be int"),
    ("n_epochs", "4", "'epochs' must be int"),  # an old key, checked under its new name
    ("seed", True, "'seed' must be int"),
    ("lr", "fast", "'lr' must be float"),
    ("net_arch", [256, "x"], "'net_arch' must be list[int]"),
    ("n_envs", 0, "'n_envs' = 0: expected"),
    ("gamma", 1.5, "'gamma' = 1.5: expected"),
    ("policy_class", "cnn", "'policy_class' = 'cnn': expected one of"),
    ("reward_shaping", 1, "'reward_shaping' must be bool"),
])
def test_a_saved_config_is_checked_key_by_key(key, value, message):
    data = {**_saved(), key: value}
    if key in RENAMED:
        del data[RENAMED[key]]
    with pytest.raises(ValueError, match=re.escape(message)):
        check_saved(data)


def test_a_saved_config_round_trips_and_names_missing_and_unknown_keys():
    saved = _saved()
    assert check_saved(saved) == config.resolve(TrainConfig(out="runs/x"))
    assert to_json(check_saved(saved)) == saved
    del saved["net_arch"]
    saved["colour"] = "red"
    with pytest.raises(ValueError, match=r"missing \['net_arch'\], unknown \['colour'\]"):
        check_saved(saved)


def test_config_does_not_import_the_trainer():
    tree = ast.parse((ROOT / "src" / "widderkopf_env" / "train" / "config.py").read_text())
    imported = {node.module for node in ast.walk(tree)
                if isinstance(node, ast.ImportFrom) and node.module}
    assert not any(m.endswith("ppo") for m in imported), imported
    code = ("import sys, widderkopf_env.train.config; "
            "assert 'widderkopf_env.train.ppo' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_settings_object_gives_the_config_its_command_line_gives(tmp_path):
    """The recipe hands PPO a TrainConfig object, not argv strings: ``config_of`` makes
    the same run settings as ``parse_config`` does from the equivalent command line."""
    out = str(tmp_path / "run")
    argv = ["--out", out, "--total-steps", "4096", "--workers", "1", "--no-progress",
            "--lr", "1e-4", "--net-arch", "32,32", "--self-play", "--eval-every", "0"]
    settings = TrainConfig(out=out, total_steps=4096, workers=1, progress_bar=False,
                           lr=1e-4, net_arch=[32, 32], self_play=True, eval_every=0)
    assert config.config_of(settings) == config.parse_config(argv)
    assert config.config_of(dataclasses.replace(settings, lr=2e-4)).lr == 2e-4


def _help_options() -> set[str]:
    """The options ``widderkopf-train --help`` prints (the command itself, as a user runs it)."""
    text = subprocess.run([sys.executable, "-m", "widderkopf_env.train.train_cli", "--help"],
                          capture_output=True, text=True, check=True).stdout
    return set(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", text))


def test_every_field_has_its_option_in_help_and_the_option_maps_back():
    """Each settings field names its command-line option (``--`` and its name with dashes,
    or its ``flag``); ``--help`` lists that option, and parsing it sets that field."""
    shown = _help_options()
    parser = build_parser()
    by_option = {o: a for a in parser._actions for o in a.option_strings
                 if not isinstance(a, DeprecatedAlias)}
    for f in dataclasses.fields(TrainConfig):
        if not f.metadata["cli"]:
            continue
        option = settings.option_name(f)
        assert option in shown, f"{f.name}: {option} is not in widderkopf-train --help"
        assert by_option[option].dest == f.name, (option, by_option[option].dest)
        flag = f.metadata["flag"]
        assert flag is None or f.name == "progress_bar", \
            f"{f.name}: name the field after its option ({flag}), old key in RENAMED"
    fields = {f.name for f in dataclasses.fields(TrainConfig)}
    assert set(RENAMED.values()) <= fields and not set(RENAMED) & fields
    # and back: every option --help names sets a field (but the preset --net-size, and
    # --recipe, another command that the epilog names)
    for option in shown - {"--help", "--version", "--net-size", "--recipe"}:
        assert option in by_option and by_option[option].dest in fields, option


def test_the_settings_object_is_frozen():
    cfg = TrainConfig()
    with pytest.raises(dataclasses.FrozenInstanceError):
        cfg.lr = 1.0  # type: ignore[misc]


def test_no_setting_is_read_by_string_key_in_train():
    train = ROOT / "src" / "widderkopf_env" / "train"
    found = [f"{p.relative_to(ROOT)}:{n}" for p in sorted(train.rglob("*.py"))
             for n, line in enumerate(p.read_text().splitlines(), 1) if 'cfg["' in line]
    assert not found, f"settings read by string key, not attribute: {found}"
