"""``widderkopf-train --preset NAME|FILE`` (:mod:`widderkopf_env.train.presets`): a
shipped preset sets exactly the fields its file names, the command line overrides it, a
bad file is refused naming the field, and the run's config.json records the preset."""

from __future__ import annotations

import dataclasses
import json
from importlib import resources

import pytest

from widderkopf_env.train import presets
from widderkopf_env.train.config import TrainConfig, check_saved, parse_config
from widderkopf_env.train.config_file import to_json

SHIPPED = ("mmd", "ppo-default", "ppo-full-hour", "ppo-selfplay")


def shipped(name: str) -> dict:
    return json.loads((resources.files(presets) / f"{name}.json").read_text())


def changed(cfg: TrainConfig, plain: TrainConfig) -> set:
    return {f.name for f in dataclasses.fields(TrainConfig)
            if getattr(cfg, f.name) != getattr(plain, f.name)}


def test_the_shipped_presets_are_listed():
    assert presets.names() == list(SHIPPED)
    assert shipped("mmd") == {**shipped("ppo-selfplay"), "algo": "mmd",
                              "magnet_coef": 0.025, "magnet_every": 0}


def test_self_play_symmetric_alone_sets_the_ppo_selfplay_presets_values(tmp_path):
    """The preset file is the one home of ``--self-play-symmetric``'s own defaults."""
    flag = parse_config(["--self-play-symmetric", "--out", str(tmp_path / "run")])
    values = shipped("ppo-selfplay")
    assert {k: getattr(flag, k) for k in values} == values
    assert flag.preset is None


@pytest.mark.parametrize("name", SHIPPED)
def test_a_preset_sets_exactly_the_fields_of_its_file(name, tmp_path):
    out = ["--out", str(tmp_path / "run")]
    plain, cfg = parse_config(out), parse_config(["--preset", name, *out])
    values = shipped(name)
    assert {k: getattr(cfg, k) for k in values} == values
    # the fields the file names (where they differ from the defaults) and the name itself
    assert changed(cfg, plain) == {k for k in values if getattr(plain, k) != values[k]} \
        | {"preset"}
    assert cfg.preset == name


def test_the_command_line_overrides_a_preset(tmp_path):
    cfg = parse_config(["--preset", "mmd", "--ent-coef", "0.05", "--magnet-coef", "0.1",
                        "--out", str(tmp_path)])
    assert (cfg.ent_coef, cfg.magnet_coef, cfg.clip_range, cfg.algo) == (0.05, 0.1, 0.05, "mmd")
    before = parse_config(["--ent-coef", "0.05", "--preset", "ppo-selfplay",
                           "--out", str(tmp_path)])
    assert before.ent_coef == 0.05  # wherever the option stands


def test_a_settings_file_is_read_and_named_in_the_config(tmp_path):
    mine = tmp_path / "mine.json"
    mine.write_text(json.dumps({"ent_coef": 0.2, "net_arch": [32, 32], "variant": "small"}))
    cfg = parse_config(["--preset", str(mine), "--out", str(tmp_path / "run")])
    assert (cfg.ent_coef, cfg.net_arch, cfg.variant, cfg.preset) == (
        0.2, [32, 32], "small", str(mine))
    assert check_saved(json.loads(json.dumps(to_json(cfg)))) == cfg  # config.json round trip


@pytest.mark.parametrize(("content", "said"), [
    ({"ent_coeff": 0.1}, "unknown setting 'ent_coeff'"),
    ({"out": "runs/x"}, "unknown setting 'out'"),
    ({"ent_coef": -1}, "'ent_coef' = -1"),
    ({"clip_range": "0.1"}, "'clip_range' must be float"),
    ({"algo": "dqn"}, "'algo' = 'dqn': expected one of ['ppo', 'mmd']"),
    ({"n_envs": 10 ** 9}, "'n_envs'"),
    ([1, 2], "expected a JSON object"),
])
def test_a_bad_settings_file_is_refused_naming_the_field(content, said, tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(content))
    with pytest.raises(SystemExit) as exit_:
        parse_config(["--preset", str(bad), "--out", str(tmp_path / "run")])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and said in err and "Traceback" not in err
    assert err.strip().splitlines()[-1].startswith("widderkopf-train: error: --preset")


def test_an_unknown_preset_says_which_there_are(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        parse_config(["--preset", "ppo-tuned", "--out", str(tmp_path)])
    assert exit_.value.code == 2
    assert "no preset 'ppo-tuned' (the presets: mmd, ppo-default, ppo-full-hour, ppo-selfplay" in \
        capsys.readouterr().err


def test_preset_with_no_name_lists_them(capsys):
    with pytest.raises(SystemExit) as exit_:
        parse_config(["--preset"])
    lines = capsys.readouterr().out.splitlines()
    assert exit_.value.code == 0
    assert [line.split(":")[0] for line in lines] == list(SHIPPED)
    listed = dict(line.split(": ", 1) for line in lines)
    assert "--magnet-coef 0.025" in listed["mmd"] and "--ent-coef 0.1" in listed["ppo-selfplay"]
    assert "--n-envs 256 --n-steps 32 --minutes 60.0" in listed["ppo-full-hour"]


def test_an_old_config_without_a_preset_still_loads(tmp_path):
    old = to_json(parse_config(["--out", str(tmp_path)]))
    del old["preset"]
    assert check_saved(old).preset is None


def test_a_short_run_with_a_preset_records_it(tmp_path):
    pytest.importorskip("sb3_contrib")
    from widderkopf_env.train.ppo import train_from_args

    out = tmp_path / "run"
    train_from_args(["--preset", "ppo-selfplay", "--variant", "tiny", "--total-steps", "256",
                     "--n-envs", "4", "--n-steps", "64", "--net-arch", "16",
                     "--eval-every", "0", "--checkpoint-every", "0", "--final-eval-pairs", "2",
                     "--workers", "1", "--no-progress", "--quiet", "--out", str(out)])
    saved = json.loads((out / "config.json").read_text())
    assert saved["preset"] == "ppo-selfplay"
    assert (saved["self_play_symmetric"], saved["ent_coef"], saved["n_steps"]) == (True, 0.1, 64)
