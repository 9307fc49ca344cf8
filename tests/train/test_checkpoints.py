"""Crash-safe checkpoints (src/widderkopf_env/train/checkpoints.py): atomic writes, checksums,
resume from the newest checkpoint that verifies, and no silent restart over a run."""

from __future__ import annotations

import json
import os
import random
import shutil

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from widderkopf_env.train import checkpoints, run_folder  # noqa: E402
from widderkopf_env.train.config_file import save_config  # noqa: E402
from widderkopf_env.train.ppo import main, parse_config, train_from_args  # noqa: E402

STEPS = (100, 200, 300)
TINY = ["--net-arch", "8", "--n-envs", "1", "--n-steps", "64", "--batch-size", "64",
        "--epochs", "1", "--eval-every", "0", "--eval-pairs", "2", "--workers", "1",
        "--final-eval-pairs", "2", "--checkpoint-every", "0", "--crack-after", "0",
        "--no-progress", "--quiet"]


def state_at(steps: int) -> dict:
    rng = random.Random(steps)
    return {"steps": steps, "pool": [{"steps": steps, "weights": {
                "layers": [(np.full((2, 3), steps, np.float32), np.arange(2, dtype=np.float32))],
                "activation": "ReLU", "canonical": True}}],
            "history": [{"steps": steps, "heuristic": {"mean": -0.5, "ci95": (-1.0, 0.0)}}],
            "best": None, "rng": {"python": rng.getstate(),
                                  "numpy": np.random.RandomState(steps).get_state()}}


@pytest.fixture(scope="module")
def model():
    from sb3_contrib import MaskablePPO

    from widderkopf_env.train.build import make_vec_env
    cfg = parse_config(["--out", "/nonexistent/run", *TINY])
    return MaskablePPO("MlpPolicy", make_vec_env(cfg, 0), n_steps=64, batch_size=64,
                       policy_kwargs={"net_arch": [8]}, device="cpu")


@pytest.fixture(scope="module")
def written(model, tmp_path_factory):
    directory = tmp_path_factory.mktemp("ckpt") / "checkpoints"
    for steps in STEPS:
        model.num_timesteps = steps
        checkpoints.save(directory, model, state_at(steps))
    return directory


@pytest.fixture
def ckpt(written, tmp_path):
    return shutil.copytree(written, tmp_path / "checkpoints")


def assert_same(a, b):
    """Equal, with the same container types (tuples stay tuples) and array dtypes."""
    assert type(a) is type(b), (a, b)
    if isinstance(a, dict):
        assert a.keys() == b.keys()
        for k in a:
            assert_same(a[k], b[k])
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            assert_same(x, y)
    elif isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and np.array_equal(a, b)
    else:
        assert a == b


def corrupt(path, how: str) -> None:
    data = path.read_bytes()
    if how == "missing":
        path.unlink()
    elif how == "empty":
        path.write_bytes(b"")
    elif how == "truncated":
        path.write_bytes(data[:len(data) // 2])
    elif how == "garbage":
        path.write_bytes(os.urandom(len(data)))
    elif how == "one bit":
        i = len(data) // 3
        path.write_bytes(data[:i] + bytes([data[i] ^ 1]) + data[i + 1:])


def test_state_round_trips_exactly_and_without_pickle(ckpt):
    (zip_path, state), skipped = checkpoints.find_latest(ckpt)
    assert zip_path == checkpoints.paths(ckpt, 300)[0] and skipped == []
    assert_same(state, state_at(300))
    r = random.Random()
    r.setstate(state["rng"]["python"])
    assert r.random() == random.Random(300).random()
    with np.load(checkpoints.paths(ckpt, 300)[1], allow_pickle=False) as data:
        assert {a.dtype.kind for a in map(data.__getitem__, data.files)} <= {"U", "f", "u", "i"}


@pytest.mark.parametrize("how", ["truncated", "empty", "garbage", "missing", "one bit"])
@pytest.mark.parametrize("which", [0, 1], ids=["model", "state"])
def test_a_bad_newest_checkpoint_is_skipped_and_named(ckpt, which, how):
    corrupt(checkpoints.paths(ckpt, 300)[which], how)
    (zip_path, state), skipped = checkpoints.find_latest(ckpt)
    assert zip_path == checkpoints.paths(ckpt, 200)[0]
    assert_same(state, state_at(200))
    assert len(skipped) == 1 and "step 300" in skipped[0], skipped
    name = checkpoints.paths(ckpt, 300)[which].name
    if how == "missing":
        reason = f"file {name} missing"
    elif which == 1:
        reason = f"state file {name} unreadable"
    elif how in ("empty", "truncated"):
        reason = f"model file {name} has {len(b'') if how == 'empty' else ''}"
    else:
        reason = f"model file {name} does not match its SHA-256 checksum"
    assert reason in skipped[0], skipped


def test_several_bad_checkpoints_fall_back_to_the_oldest_good_one(ckpt):
    corrupt(checkpoints.paths(ckpt, 300)[1], "garbage")
    # a model file that is whole but not the one the state file was written with
    shutil.copy(checkpoints.paths(ckpt, 100)[0], checkpoints.paths(ckpt, 200)[0])
    (zip_path, _), skipped = checkpoints.find_latest(ckpt)
    assert zip_path == checkpoints.paths(ckpt, 100)[0]
    assert [line.split(":")[0] for line in skipped] == [
        "skipping the checkpoint at step 300", "skipping the checkpoint at step 200"]
    for p in checkpoints.paths(ckpt, 100):
        corrupt(p, "missing")
    found, skipped = checkpoints.find_latest(ckpt)
    assert found is None and len(skipped) == 2  # nothing left of step 100


def test_a_pickle_state_file_of_an_older_version_is_not_loaded(ckpt):
    zip_path, state_path = checkpoints.paths(ckpt, 300)
    state_path.rename(str(state_path).replace(".npz", ".pkl"))
    (found_zip, _), skipped = checkpoints.find_latest(ckpt)
    assert found_zip == checkpoints.paths(ckpt, 200)[0]
    assert "older version" in skipped[0]


def test_writes_are_atomic_and_fsynced(model, tmp_path, monkeypatch):
    synced = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: synced.append(os.readlink(f"/proc/self/fd/{fd}"))
                        or real_fsync(fd))
    model.num_timesteps = 400
    checkpoints.save(tmp_path, model, state_at(400))
    zip_path, state_path = checkpoints.paths(tmp_path, 400)
    # each file fsynced under its temporary name, then the folder after each rename
    names = [os.path.basename(p) for p in synced]
    assert [n.rsplit("-", 1)[0] if n.endswith(".tmp") else n for n in names] == [
        f".{zip_path.name}.{os.getpid()}", tmp_path.name,
        f".{state_path.name}.{os.getpid()}", tmp_path.name]
    # a crash before the rename leaves the old file as it was and no temporary file
    before = state_path.read_bytes()

    def crash(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError, match="disk full"):
        run_folder.write_atomic(state_path, b"new")
    assert state_path.read_bytes() == before
    assert {p.name for p in tmp_path.iterdir()} == {zip_path.name, state_path.name}


def test_keep_prunes_only_older_checkpoints_and_stale_temporaries(ckpt, model):
    (ckpt / ".step_0000000300.zip.123.tmp").write_bytes(b"left by a crash")
    (ckpt / "step_0000009999.zip").write_bytes(b"a newer, unverifiable file")
    model.num_timesteps = 400
    checkpoints.save(ckpt, model, state_at(400), keep=2)
    assert checkpoints.list_steps(ckpt) == [300, 400]
    assert sorted(p.name for p in ckpt.iterdir() if p.name.startswith(".")) == []
    (zip_path, _), skipped = checkpoints.find_latest(ckpt)
    assert zip_path.name == "step_0000000400.zip"
    assert skipped == ["skipping the checkpoint at step 9999: state file "
                       "step_0000009999.state.npz missing"]


# --- the CLI: no silent restart over a run --------------------------------------------------

def make_run(tmp_path):
    """A run folder as left by a run whose checkpoints are all gone or damaged."""
    out = tmp_path / "run"
    out.mkdir()
    save_config(out, parse_config(["--out", str(out), *TINY, "--total-steps", "128"]))
    (out / "best_model.zip").write_bytes(b"the best model so far")
    (out / "checkpoints").mkdir()
    (out / "checkpoints" / "step_0000000064.state.npz").write_bytes(b"garbage")
    return out


@pytest.mark.parametrize("checkpoints_folder", ["damaged", "gone"])
def test_resume_without_a_good_checkpoint_refuses_to_overwrite(tmp_path, capsys,
                                                               checkpoints_folder):
    out = make_run(tmp_path)
    if checkpoints_folder == "gone":
        shutil.rmtree(out / "checkpoints")
    before = sorted(p.name for p in out.iterdir())
    assert main(["--out", str(out), "--resume"]) == 2
    err = capsys.readouterr().err
    assert "widderkopf-train: error: --resume: no checkpoint" in err and "Traceback" not in err
    skipped = "skipping the checkpoint at step 64: model file step_0000000064.zip missing"
    assert (skipped in err) == (checkpoints_folder == "damaged")
    assert "best_model.zip" in err and "--force-restart" in err
    assert (out / "best_model.zip").read_bytes() == b"the best model so far"
    assert sorted(p.name for p in out.iterdir()) == before


def test_force_restart_starts_again_and_is_not_remembered(tmp_path, capsys):
    out = make_run(tmp_path)
    summary = train_from_args(["--out", str(out), "--resume", "--force-restart"])
    assert summary["resumed_from"] is None and summary["steps"] == 128
    assert (out / "best_model.zip").read_bytes()[:2] == b"PK"  # a real model now
    assert "force_restart" not in json.loads((out / "config.json").read_text())
    assert checkpoints.latest(out / "checkpoints")[0].name == "step_0000000128.zip"
    # a later --resume goes on from the good checkpoint, naming the bad one it skipped
    (out / "checkpoints" / "step_0000009999.zip").write_bytes(b"")
    capsys.readouterr()
    summary = train_from_args(["--out", str(out), "--resume", "--total-steps", "192"])
    assert summary["resumed_from"] == 128 and summary["steps"] == 192
    assert capsys.readouterr().err == ("--resume: skipping the checkpoint at step 9999: state "
                                       "file step_0000009999.state.npz missing\n")


def test_ctrl_c_inside_a_step_does_not_hang_the_workers_shutdown():
    """A Ctrl-C between two workers' answers leaves one answer unread: ``stop_workers``
    ends the SubprocVecEnv's processes at once (a polite close would wait forever)."""
    import threading

    from widderkopf_env.train.build import make_vec_env, stop_workers

    cfg = parse_config(["--out", "unused", "--n-envs", "2", "--vec-env", "subproc"])
    env = make_vec_env(cfg, 0)
    env.reset()
    masks = env.env_method("action_masks")
    env.step_async(np.array([int(np.flatnonzero(m)[0]) for m in masks]))
    env.remotes[0].recv()  # the interrupt came after this worker's answer was read
    closer = threading.Thread(target=lambda: (stop_workers(env), env.close()), daemon=True)
    closer.start()
    closer.join(30)
    alive = [p for p in env.processes if p.is_alive()]
    for p in alive:
        p.kill()
    assert not closer.is_alive() and not alive
