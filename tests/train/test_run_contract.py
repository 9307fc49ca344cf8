"""The run contract (src/widderkopf_env/train/run_folder.py): a delete touches only what a run wrote, the
lock never follows a link nor truncates a file it did not make, and a redone stage
rebuilds the data it cannot verify (issue 38)."""

from __future__ import annotations

import json
import os
import shutil

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from test_recipe import TINY, stopped_in  # noqa: E402

from widderkopf_env.train import train_cli  # noqa: E402
from widderkopf_env.train.recipes import run as recipe_run  # noqa: E402
from widderkopf_env.train.run_folder import LOCK_NAME, RunFolderError, RunLock  # noqa: E402


def snapshot(folder) -> dict:
    """Every entry under ``folder`` (relative path -> bytes; folders -> None)."""
    return {str(p.relative_to(folder)): (p.read_bytes() if p.is_file() else None)
            for p in sorted(folder.rglob("*"))}


def _users_folder(tmp_path):
    p = tmp_path / "p"
    p.mkdir()
    (p / "config.json").write_text("{}")
    (p / "thesis.txt").write_text("three years of work")
    (p / "data").mkdir()
    (p / "data" / "table.csv").write_text("1,2,3")
    return p


# --- defect 1: --force-restart deletes only what a run wrote -----------------------------------

def test_force_restart_of_a_recipe_refuses_a_folder_holding_a_users_files(tmp_path):
    p = _users_folder(tmp_path)
    before = snapshot(p)
    with pytest.raises(RunFolderError, match="thesis.txt") as err:
        recipe_run.run_recipe(TINY, p, force_restart=True, progress=False)
    assert "data" in str(err.value) and "config.json" in str(err.value)
    assert snapshot(p) == before


def test_the_recipe_command_with_force_restart_exits_2_and_deletes_nothing(tmp_path, capsys,
                                                                        monkeypatch):
    def never(self):
        raise AssertionError("the recipe started over a user's files")

    monkeypatch.setattr(recipe_run.Pipeline, "run", never)
    p = _users_folder(tmp_path)
    before = snapshot(p)
    assert train_cli.main(["--recipe", "demo", "--out", str(p), "--force-restart"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "thesis.txt" in err
    assert snapshot(p) == before


def test_force_restart_of_a_finished_recipe_leaves_a_users_file_and_refuses(tmp_path):
    out = tmp_path / "run"
    recipe_run.run_recipe(TINY, out, seed=5, workers=1, progress=False)
    (out / "notes.txt").write_text("mine")
    before = snapshot(out)
    with pytest.raises(RunFolderError, match=r"notes\.txt"):
        recipe_run.run_recipe(TINY, out, seed=6, force_restart=True, progress=False)
    assert snapshot(out) == before
    (out / "notes.txt").unlink()
    lines = []
    recipe_run.run_recipe(TINY, out, seed=6, workers=1, force_restart=True, progress=False,
                          log=lines.append)
    assert [x for x in lines if x.startswith("stage ")][0] == "stage clone"


@pytest.mark.parametrize("manifest", ['{"kind": "recipe", "entries": ["*", "thesis.txt"]}',
                                      '{"kind": "any", "entries": ["*"]}', '{"entries": "*"}',
                                      "[]"])
def test_an_edited_manifest_claims_no_users_file(tmp_path, manifest):
    from widderkopf_env.train.run_folder import MANIFEST, RunFolder

    p = _users_folder(tmp_path)
    (p / "recipe.json").write_text("{}")
    (p / MANIFEST).write_text(manifest)
    before = snapshot(p)
    with RunFolder(p, "recipe") as folder:
        assert set(folder.owned()) <= {"recipe.json"}
        with pytest.raises(RunFolderError, match="thesis.txt"):
            folder.clear()
    assert snapshot(p) == before


# --- defect 2: the lock never follows a link nor truncates another file -------------------------

@pytest.mark.parametrize("how", ["symlink", "dangling symlink", "hard link"])
def test_the_lock_never_writes_through_a_link(tmp_path, how):
    out = tmp_path / "R"
    out.mkdir()
    victim = tmp_path / "victim.txt"
    if how != "dangling symlink":
        victim.write_text("precious")
    if how == "hard link":
        os.link(victim, out / LOCK_NAME)
    else:
        (out / LOCK_NAME).symlink_to(os.path.join("..", "victim.txt"))
    with pytest.raises(RunFolderError, match=LOCK_NAME.replace(".", r"\.")):
        with RunLock(out):
            pass
    if how == "dangling symlink":
        assert not victim.exists()
    else:
        assert victim.read_text() == "precious"
    assert (out / LOCK_NAME).is_symlink() == (how != "hard link")


def test_widderkopf_train_on_a_folder_with_a_symlinked_lock_exits_2(tmp_path, capsys):
    from test_run_folder import TINY as PPO_TINY

    from widderkopf_env.train.ppo import main

    out = tmp_path / "R"
    out.mkdir()
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    (out / LOCK_NAME).symlink_to(victim)
    assert main(["--out", str(out), "--total-steps", "64", *PPO_TINY]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "symbolic link" in err
    assert victim.read_text() == "precious"
    assert sorted(os.listdir(out)) == [LOCK_NAME]


def test_a_symlinked_entry_of_a_run_folder_is_refused(tmp_path):
    out = tmp_path / "run"
    out.mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "keep.txt").write_text("mine")
    (out / "recipe.json").write_text("{}")
    (out / "clone").symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(RunFolderError, match="symbolic link"):
        recipe_run.run_recipe(TINY, out, force_restart=True, progress=False)
    assert (elsewhere / "keep.txt").read_text() == "mine"


# --- defect 3: damaged shards are rebuilt; a redone stage invalidates what used it --------------

@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    out = tmp_path_factory.mktemp("contract") / "run"
    recipe_run.run_recipe(TINY, out, seed=3, workers=1, progress=False)
    return out


def _copy(finished, tmp_path):
    return shutil.copytree(finished, tmp_path / "run", symlinks=True)


def _stages(lines):
    return [x for x in lines if x.startswith("stage ")]


# --- issue 57 item 5: --force-restart looks inside the run's folders ---------------------------

USERS = ["values/notes.txt", "values/1-4/mine.npz", "clone/data/README", "clone/policy_v2.npz",
         "values2/1-4/kept/table.csv"]


def test_force_restart_of_a_recipe_refuses_a_users_file_in_each_subfolder(finished, tmp_path,
                                                                        capsys, monkeypatch):
    out = _copy(finished, tmp_path)
    for name in USERS:
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_text("a user's file")
    named = [*USERS[:4], "values2/1-4/kept"]  # a folder no run writes is named once
    before = snapshot(out)
    with pytest.raises(RunFolderError) as err:
        recipe_run.run_recipe(TINY, out, seed=4, force_restart=True, progress=False)
    assert all(n in str(err.value) for n in named), str(err.value)
    assert snapshot(out) == before
    monkeypatch.setattr(recipe_run.Pipeline, "run", lambda self: pytest.fail("it started"))
    assert train_cli.main(["--recipe", "demo", "--out", str(out), "--force-restart"]) == 2
    [line] = [x for x in capsys.readouterr().err.splitlines() if x.strip()]
    assert "Traceback" not in line and all(n in line for n in named[:4]), line
    assert snapshot(out) == before
    for name in USERS:
        (out / name).unlink()
    (out / "values2/1-4/kept").rmdir()
    from widderkopf_env.train.run_folder import RunFolder

    with RunFolder(out, "recipe") as folder:  # the run's own files, at any depth, go
        folder.clear()
    assert snapshot(out) == {}


def test_a_truncated_value_shard_is_rebuilt(finished, tmp_path):
    out = _copy(finished, tmp_path)
    shard = out / "values" / "1-4" / "shard_00001.npz"
    good = shard.read_bytes()
    shard.write_bytes(good[: len(good) // 2])
    lines = []
    recipe_run.run_recipe(TINY, out, seed=3, workers=1, progress=False, log=lines.append)
    assert _stages(lines)[0] == "stage values"
    with np.load(shard) as z:
        assert len(z["game"]) > 0
    assert shard.read_bytes() == good  # the same shard again: it comes from the seed


def test_a_shard_damaged_at_the_same_size_is_rebuilt(finished, tmp_path):
    out = _copy(finished, tmp_path)
    shard = out / "values" / "1-4" / "shard_00000.npz"
    good = shard.read_bytes()
    shard.write_bytes(good[:-10] + b"0123456789")
    recipe_run.run_recipe(TINY, out, seed=3, workers=1, progress=False)
    assert shard.read_bytes() == good


def test_a_shard_damaged_by_a_stop_inside_the_clone_is_rebuilt(tmp_path):
    from widderkopf_env.train import distill

    out = tmp_path / "run"
    stopped_in(distill, "train", out, seed=2)
    shard = out / "clone" / "data" / "shard_00000.npz"
    good = shard.read_bytes()
    shard.write_bytes(good[: len(good) // 3])  # as a power loss leaves an unsynced file
    summary = recipe_run.run_recipe(TINY, out, seed=2, workers=1, progress=False)
    assert summary["final"] and shard.read_bytes() == good


def test_a_redone_clone_invalidates_the_value_data_of_the_old_policy(finished, tmp_path):
    out = _copy(finished, tmp_path)
    policy = out / "clone" / "policy.npz"
    policy.write_bytes(policy.read_bytes()[:-10] + b"0123456789")
    state = json.loads((out / "recipe.json").read_text())
    lines = []
    recipe_run.run_recipe(TINY, out, seed=3, workers=1, progress=False, log=lines.append)
    assert _stages(lines) == ["stage clone", "stage values", "stage fit", "stage values2",
                              "stage fit2", "stage evaluate"]
    assert not any("exist already" in x for x in lines if str(out / "values") in x), lines
    assert json.loads((out / "recipe.json").read_text())["seed"] == state["seed"]


# --- defect 4: Ctrl-C in the final evaluation: the hint works, the summary is written -----------

def test_ctrl_c_in_the_final_evaluation_gives_a_hint_that_works(tmp_path, capsys, monkeypatch):
    import re
    import shlex

    from test_run_folder import TINY as PPO_TINY

    from widderkopf_env.train import evaluation
    from widderkopf_env.train.ppo import main

    out = tmp_path / "fe"
    real = evaluation.evaluate
    calls = []

    def stopped_in_the_final(*a, **k):
        calls.append(a[1])
        if a[1] == 3:  # the final evaluation's pairs
            raise KeyboardInterrupt
        return real(*a, **k)

    monkeypatch.setattr(evaluation, "evaluate", stopped_in_the_final)
    args = [a for a in PPO_TINY]
    args[args.index("--final-eval-pairs") + 1] = "3"
    assert main(["--out", str(out), "--total-steps", "128", *args]) == 130
    err = capsys.readouterr().err
    command = re.search(r"resume with: (widderkopf-train .*?--resume)", err).group(1)
    summary = json.loads((out / "summary.json").read_text())  # written as the run ended
    assert summary["steps"] == 128 and summary["final"] is None
    monkeypatch.setattr(evaluation, "evaluate", real)
    assert main(shlex.split(command)[1:]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["steps"] == 128 and summary["final"]["heuristic"]["pairs"] == 3
    history = json.loads((out / "eval_history.json").read_text())
    assert [e["steps"] for e in history] == [64, 128]  # nothing trained or evaluated twice


# --- defect 5: recipe.json that is not a run's -----------------------------------------------------

@pytest.mark.parametrize("text", ["[]", "3", '"a"', "null", '{"recipe": []}'])
def test_a_recipe_json_that_is_not_an_object_is_one_clear_refusal(tmp_path, text):
    out = tmp_path / "run"
    out.mkdir()
    (out / "recipe.json").write_text(text)
    before = snapshot(out)
    with pytest.raises(RunFolderError, match="recipe.json"):
        recipe_run.run_recipe(TINY, out, progress=False)
    assert snapshot(out) == before


# --- defect 9: a checkpoint replaced by a folder is found before any write -------------------------

@pytest.mark.parametrize("name", ["checkpoints/step_0000000128.zip", "best_model.zip",
                                  "summary.json", "final_policy.npz"])
def test_a_file_of_the_run_replaced_by_a_folder_stops_resume_before_any_write(tmp_path, capsys,
                                                                            name):
    from test_run_folder import TINY as PPO_TINY

    from widderkopf_env.train.ppo import main

    out = tmp_path / "run"
    assert main(["--out", str(out), "--total-steps", "128", *PPO_TINY]) == 0
    path = out / name
    path.unlink()
    path.mkdir()
    (path / "inside").write_text("x")
    before = snapshot(out)
    assert main(["--out", str(out), "--resume", "--total-steps", "256"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and f"{name} is a folder" in err, err
    assert snapshot(out) == before


# --- defect 11: config.json's opponent; --recipe --out FILE ----------------------------------------

def test_resume_refuses_an_opponent_in_config_json_that_would_run_code(tmp_path, capsys):
    from test_run_folder import TINY as PPO_TINY

    from widderkopf_env.train.ppo import main

    out = tmp_path / "run"
    assert main(["--out", str(out), "--total-steps", "64", *PPO_TINY]) == 0
    evil = tmp_path / "evil.zip"
    evil.write_bytes(b"PK not a model")
    for opponent in (str(evil), "nobody-at-all"):
        cfg = json.loads((out / "config.json").read_text())
        cfg["opponent"] = opponent
        (out / "config.json").write_text(json.dumps(cfg))
        before = snapshot(out)
        assert main(["--out", str(out), "--resume", "--total-steps", "128"]) == 2
        err = capsys.readouterr().err
        assert "Traceback" not in err and "'opponent'" in err, err
        assert snapshot(out) == before
    model = tmp_path / "model.zip"  # a real model: loading it unpickles its entries
    shutil.copy(out / "final_model.zip", model)
    cfg["opponent"] = str(model)
    (out / "config.json").write_text(json.dumps(cfg))
    assert main(["--out", str(out), "--resume", "--total-steps", "128"]) == 2
    assert "give --opponent with it again to confirm" in capsys.readouterr().err
    assert main(["--out", str(out), "--resume", "--total-steps", "128", "--opponent",
                 str(model)]) == 0


def test_the_recipe_with_out_naming_a_file_says_so(tmp_path, capsys):
    afile = tmp_path / "afile"
    afile.write_text("mine")
    assert train_cli.main(["--recipe", "demo", "--out", str(afile)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "is a file, not a folder" in err, err
    assert afile.read_text() == "mine"


def test_the_summary_is_written_whenever_a_run_ends(tmp_path, capsys, monkeypatch):
    from test_run_folder import TINY as PPO_TINY
    from test_run_folder import stop_training_at

    from widderkopf_env.train import value_fit
    from widderkopf_env.train.ppo import main

    out = tmp_path / "ppo"
    undo = stop_training_at(monkeypatch, 128)
    assert main(["--out", str(out), "--total-steps", "256", *PPO_TINY]) == 130
    summary = json.loads((out / "summary.json").read_text())
    assert summary["steps"] == 128 and summary["final"] is None
    undo()
    assert main(["--out", str(out), "--resume"]) == 0  # goes on from its checkpoint
    assert json.loads((out / "summary.json").read_text())["final"] is not None

    recipe = tmp_path / "recipe"
    stopped_in(value_fit, "fit_values", recipe, seed=2)
    summary = json.loads((recipe / "summary.json").read_text())
    assert list(summary["stage_seconds"]) == ["clone", "values"]
    assert summary["final"] is None and [p["stage"] for p in summary["curve"]] == ["clone"]


def test_ctrl_c_in_a_recipe_started_with_force_restart_hints_a_command_that_goes_on(
        tmp_path, capsys, monkeypatch):
    import shlex

    def stopped(self):
        raise KeyboardInterrupt

    monkeypatch.setattr(recipe_run.Pipeline, "run", stopped)
    out = tmp_path / "my run"
    assert train_cli.main(["--recipe", "demo", "--out", str(out), "--force-restart",
                           "--workers", "1"]) == 130
    line = capsys.readouterr().err.strip().splitlines()[-1]
    command = line.split("go on with: ")[1]
    assert shlex.split(command) == ["widderkopf-train", "--recipe", "demo", "--out", str(out),
                                    "--workers", "1"]
