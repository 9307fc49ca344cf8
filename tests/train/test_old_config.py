"""A run folder written by an older version, whose config.json names some settings by
their old keys (src/widderkopf_env/train/config_file.py: RENAMED) and lacks the settings
added since, still loads and resumes; the resumed run writes today's keys."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("sb3_contrib")

from test_run_folder import TINY  # noqa: E402

from widderkopf_env.train.config import check_saved  # noqa: E402
from widderkopf_env.train.config_file import to_json  # noqa: E402
from widderkopf_env.train.ppo import main, parse_config  # noqa: E402

#: config.json keys as older versions wrote them -> today's key (written out here, not
#: taken from RENAMED, so that the test pins what old run folders hold).
OLD_KEYS = {"p_heuristic": "heuristic_share", "p_random": "random_share",
            "policy": "policy_class", "n_epochs": "epochs", "eval_workers": "workers"}
#: Settings that runs written before them lack.
ADDED_SINCE = ("variant", "self_play_symmetric", "algo", "magnet_coef", "magnet_every",
               "exploitability_every")
GIVEN = ["--heuristic-share", "0.3", "--random-share", "0.2", "--policy-class", "mlp"]


def _as_old(data: dict) -> dict:
    """``data`` (today's config.json) as an older version wrote it."""
    new_to_old = {new: old for old, new in OLD_KEYS.items()}
    return {new_to_old.get(k, k): v for k, v in data.items() if k not in ADDED_SINCE}


def test_old_keys_read_as_the_same_settings(tmp_path):
    cfg = parse_config(["--out", str(tmp_path / "run"), *TINY, *GIVEN])
    old = _as_old(to_json(cfg))
    assert set(OLD_KEYS) <= set(old) and not set(OLD_KEYS.values()) & set(old)
    assert check_saved(old) == cfg
    with pytest.raises(ValueError, match=r"\['n_epochs'\] and their new names \['epochs'\]"):
        check_saved({**old, "epochs": 4})


def test_a_run_with_an_old_config_json_resumes(tmp_path):
    out = tmp_path / "run"
    assert main(["--out", str(out), "--total-steps", "64", *TINY, *GIVEN]) == 0
    written = json.loads((out / "config.json").read_text())
    (out / "config.json").write_text(json.dumps(_as_old(written), indent=1))
    assert main(["--out", str(out), "--resume", "--total-steps", "128"]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert (summary["steps"], summary["resumed_from"]) == (128, 64)
    again = json.loads((out / "config.json").read_text())
    assert not set(OLD_KEYS) & set(again)
    assert again == {**written, "total_steps": 128, "resume": True}
    assert (again["epochs"], again["heuristic_share"], again["random_share"],
            again["policy_class"]) == (1, 0.3, 0.2, "mlp")
