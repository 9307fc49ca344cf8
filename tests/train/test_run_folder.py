"""A run folder (src/widderkopf_env/train/run_folder.py, src/widderkopf_env/train/ppo.py): one process at a time, nothing
written before every check passed, every refusal one line with exit status 2 and the
folder as it was, and no crash on --resume of a folder in any state."""

from __future__ import annotations

import errno
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time

import pytest

pytest.importorskip("sb3_contrib")

from cli_helpers import default_sigint  # noqa: E402

from widderkopf_env.train import checkpoints  # noqa: E402
from widderkopf_env.train.callbacks import TrainingRun  # noqa: E402
from widderkopf_env.train.ppo import main  # noqa: E402

LOCK_NAME = ".widderkopf-train.lock"  # src/widderkopf_env/train/run_folder.py

TINY = ["--net-arch", "8", "--n-envs", "1", "--n-steps", "64", "--batch-size", "64",
        "--epochs", "1", "--eval-every", "64", "--eval-pairs", "2", "--workers", "1",
        "--final-eval-pairs", "2", "--checkpoint-every", "64", "--keep-checkpoints", "0",
        "--crack-after", "0", "--no-progress", "--quiet"]


def snapshot(folder) -> dict:
    """Every file under ``folder`` (relative path -> bytes; folders -> None)."""
    if not folder.exists():
        return {}
    return {str(p.relative_to(folder)): (p.read_bytes() if p.is_file() else None)
            for p in sorted(folder.rglob("*"))}


def error_lines(err: str) -> list[str]:
    assert "Traceback" not in err, err
    return [line for line in err.splitlines() if "error:" in line]


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """A finished 128-step run (evaluated and checkpointed at 64 and 128)."""
    out = tmp_path_factory.mktemp("runs") / "run"
    assert main(["--out", str(out), "--total-steps", "128", *TINY]) == 0
    return out


@pytest.fixture
def run(finished, tmp_path):
    return shutil.copytree(finished, tmp_path / "run")


# --- one process at a time --------------------------------------------------------------------

def test_a_second_trainer_on_the_same_folder_exits_2_naming_the_first(tmp_path, capsys):
    out = tmp_path / "run"
    first = subprocess.Popen(
        [sys.executable, "-m", "widderkopf_env.train.ppo", "--out", str(out), "--seed", "7",
         "--total-steps", "100000000", *TINY], stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE, text=True, preexec_fn=default_sigint)
    try:
        deadline = time.monotonic() + 300
        while not (out / "config.json").exists():
            assert first.poll() is None, first.stderr.read()
            assert time.monotonic() < deadline
            time.sleep(0.2)
        for extra in ([], ["--resume"], ["--force-restart"]):
            before = {k: v for k, v in snapshot(out).items() if k.startswith("config")}
            assert main(["--out", str(out), "--seed", "8", "--total-steps", "128", *TINY,
                         *extra]) == 2
            [line] = error_lines(capsys.readouterr().err)
            assert f"in use by another widderkopf-train (pid {first.pid} on " in line, line
            assert {k: v for k, v in snapshot(out).items() if k.startswith("config")} == before
    finally:
        first.send_signal(signal.SIGINT)
        _, err = first.communicate(timeout=120)
    assert first.returncode == 130, err
    assert json.loads((out / "config.json").read_text())["seed"] == 7  # the first run's
    assert not (out / LOCK_NAME).exists()  # released on exit
    # the folder holds the first run only: the second may not start over it
    assert main(["--out", str(out), "--seed", "8", "--total-steps", "128", *TINY]) == 2
    assert "already holds a run" in capsys.readouterr().err


# --- nothing written before every check ----------------------------------------------------------

@pytest.mark.parametrize("files", [
    ["best_model.zip", "checkpoints/step_0000099999.zip"],  # a run that lost config.json
    ["final_model.zip"], ["tb/ppo_1/events.out.tfevents.1.host.0.0"],
    [".best_model.zip.4242.tmp"],
])
def test_a_new_run_never_starts_over_a_runs_files(tmp_path, capsys, files):
    out = tmp_path / "run"
    for name in files:
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_bytes(b"an older run's file")
    before = snapshot(out)
    assert main(["--out", str(out), "--total-steps", "64", *TINY]) == 2
    [line] = error_lines(capsys.readouterr().err)
    assert "--force-restart" in line and files[0].split("/")[0] in line
    assert snapshot(out) == before
    # --force-restart deletes the old run's files: the folder holds one run
    assert main(["--out", str(out), "--total-steps", "64", *TINY, "--force-restart"]) == 0
    assert not any(p.name in ("step_0000099999.zip", "events.out.tfevents.1.host.0.0")
                   or p.name.endswith(".tmp")
                   for p in out.rglob("*"))
    assert checkpoints.list_steps(out / "checkpoints") == [64]


# --- --force-restart deletes only what a run wrote, at any depth (issue 57 item 5) ----------

USERS = ["checkpoints/my_notes.txt", "checkpoints/best/agent.zip", "tb/README.md",
         "tb/ppo_0/my_plot.png", "checkpoints/step_0000000064.zip.bak"]


def _add(out, names):
    for name in names:
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_text("a user's file")


@pytest.mark.parametrize("users", [[name] for name in USERS] + [USERS])
def test_force_restart_refuses_a_users_file_inside_the_runs_folders(run, capsys, users):
    _add(run, users)
    before = snapshot(run)
    assert main(["--out", str(run), "--total-steps", "64", *TINY, "--force-restart"]) == 2
    [line] = error_lines(capsys.readouterr().err)
    named = [n if "/best/" not in n else "checkpoints/best" for n in users]
    assert "not a run's" in line and all(n in line for n in named), line
    assert snapshot(run) == before


@pytest.mark.parametrize("manifest", ["written now", "entries only", "none"])
def test_clear_deletes_the_runs_nested_files_and_refuses_a_users(run, manifest):
    """A manifest of an older version (top-level entries only) or none: the kind's files."""
    from widderkopf_env.train.run_folder import KINDS, MANIFEST, RunFolder, RunFolderError

    if manifest == "entries only":
        (run / MANIFEST).write_text(json.dumps({"kind": "ppo", "entries": KINDS["ppo"]}))
    elif manifest == "none":
        (run / MANIFEST).unlink()
    assert {"checkpoints/step_0000000064.zip", "tb"} <= set(snapshot(run))
    _add(run, ["tb/ppo_0/mine.txt"])
    before = snapshot(run)
    with RunFolder(run, "ppo") as folder, pytest.raises(RunFolderError,
                                                       match="tb/ppo_0/mine.txt"):
        folder.clear()
    assert snapshot(run) == before
    (run / "tb/ppo_0/mine.txt").unlink()
    with RunFolder(run, "ppo") as folder:
        folder.clear()
    assert snapshot(run) == {}


@pytest.mark.parametrize("flag", ["--net-arch", "--n-steps"])
@pytest.mark.parametrize("folder", ["new", "empty"])
def test_sizes_that_cannot_be_allocated_fail_before_anything_is_written(tmp_path, capsys,
                                                                         flag, folder):
    out = tmp_path / "run"
    if folder == "empty":
        out.mkdir()
    args = [a for a in TINY]
    args[args.index(flag) + 1] = "100000000000"
    with pytest.raises(SystemExit) as ended:  # refused by its bound, while parsing
        main(["--out", str(out), "--total-steps", "64", *args])
    assert ended.value.code == 2
    [line] = error_lines(capsys.readouterr().err)
    assert f"argument {flag}: expected" in line, line
    assert snapshot(out) == {} and out.exists() == (folder == "empty")


# --- --resume of a folder in any state ----------------------------------------------------------

def _damage(out, how: str) -> None:
    cfg_path = out / "config.json"
    cfg = json.loads(cfg_path.read_text())
    if how == "wrong type":
        cfg["epochs"] = "four"
        cfg_path.write_text(json.dumps(cfg))
    elif how == "missing key":
        del cfg["net_arch"]
        cfg_path.write_text(json.dumps(cfg))
    elif how == "bool for int":
        cfg["seed"] = True
        cfg_path.write_text(json.dumps(cfg))
    elif how in ("checkpoints is a file", "tb is a file"):
        name = how.split()[0]
        shutil.rmtree(out / name)
        (out / name).write_text("a file")
    elif how == "truncated best_model.json":
        data = (out / "best_model.json").read_bytes()
        (out / "best_model.json").write_bytes(data[:len(data) // 2])
    elif how == "garbage best_model.zip":
        (out / "best_model.zip").write_bytes(os.urandom(3000))


@pytest.mark.parametrize("how", ["wrong type", "missing key", "bool for int",
                                 "checkpoints is a file", "tb is a file",
                                 "truncated best_model.json", "garbage best_model.zip"])
def test_resume_of_a_damaged_folder_exits_2_and_changes_nothing(run, capsys, how):
    _damage(run, how)
    before = snapshot(run)
    assert main(["--out", str(run), "--resume", "--total-steps", "256"]) == 2
    [line] = error_lines(capsys.readouterr().err)
    assert line.startswith("widderkopf-train: error: --resume: ")
    assert snapshot(run) == before


@pytest.mark.parametrize("state", ["finished", "killed after the first checkpoint"])
def test_resume_to_a_step_already_reached_exits_2_and_changes_nothing(run, tmp_path, capsys,
                                                                     state):
    if state != "finished":  # no evaluation at the newest checkpoint's step
        run = tmp_path / "killed"
        args = [a for a in TINY]
        args[args.index("--eval-every") + 1] = "0"
        assert main(["--out", str(run), "--total-steps", "128", *args]) == 0
        for p in checkpoints.paths(run / "checkpoints", 128):
            p.unlink()
    at = 128 if state == "finished" else 64
    before = snapshot(run)
    for total in (at, at - 32):
        assert main(["--out", str(run), "--resume", "--total-steps", str(total)]) == 2
        [line] = error_lines(capsys.readouterr().err)
        assert f"is at step {at} already" in line
        assert snapshot(run) == before
    assert main(["--out", str(run), "--resume", "--total-steps", "192"]) == 0  # still fine


def test_resuming_a_finished_run_evaluates_each_step_once(run):
    assert main(["--out", str(run), "--resume", "--total-steps", "192"]) == 0
    history = json.loads((run / "eval_history.json").read_text())
    assert [e["steps"] for e in history] == [64, 128, 192]


def test_stale_temporary_files_are_removed_when_a_run_goes_on(run):
    """kill -9 during a write leaves its temporary file; the next session removes it."""
    for path in (run / ".best_model.zip.999999.tmp", run / ".config.json.999999.tmp",
                 run / "checkpoints" / ".step_0000000128.zip.999999.tmp"):
        path.write_bytes(b"half a file")
    assert main(["--out", str(run), "--resume", "--total-steps", "192"]) == 0
    assert [p.name for p in run.rglob("*.tmp")] == []


def stop_training_at(monkeypatch, steps: int):
    """Ctrl-C at the first rollout at or after ``steps`` of a run; returns the undo."""
    real = TrainingRun.on_rollout_start

    def stop(self, model):
        if model.num_timesteps >= steps:
            raise KeyboardInterrupt
        real(self, model)

    monkeypatch.setattr(TrainingRun, "on_rollout_start", stop)
    return lambda: monkeypatch.setattr(TrainingRun, "on_rollout_start", real)


def test_ctrl_c_before_the_first_checkpoint_suggests_a_command_that_works(tmp_path, capsys,
                                                                          monkeypatch):
    out = tmp_path / "run"
    undo = stop_training_at(monkeypatch, 64)
    args = [a for a in TINY]
    args[args.index("--checkpoint-every") + 1] = "0"
    args[args.index("--eval-every") + 1] = "0"
    assert main(["--out", str(out), "--total-steps", "192", *args]) == 130
    err = capsys.readouterr().err
    assert "before the first checkpoint" in err
    command = re.search(r"(widderkopf-train --out .*?) starts", err).group(1)
    undo()
    assert main(shlex.split(command)[1:]) == 0
    assert checkpoints.list_steps(out / "checkpoints")[-1] == 192


class _FullDisk:
    """A file whose writes fail as on a full disk (an OSError that names no file)."""

    def __init__(self, *args, **kwargs):
        self.f = open(*args, **kwargs)  # noqa: SIM115 (closed in __exit__)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.f.close()

    def write(self, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_a_full_disk_is_one_line_naming_the_file_and_exit_2(tmp_path, capsys, monkeypatch):
    from widderkopf_env import atomic

    def full(path, mode="r", *args, **kwargs):
        if "w" in mode and "config.json" not in str(path) and ".widderkopf-run" not in str(path):
            return _FullDisk(path, mode, *args, **kwargs)
        return open(path, mode, *args, **kwargs)

    monkeypatch.setattr(atomic, "open", full, raising=False)
    out = tmp_path / "run"
    assert main(["--out", str(out), "--total-steps", "128", *TINY]) == 2
    [line] = error_lines(capsys.readouterr().err)
    assert os.strerror(errno.ENOSPC) in line
    assert re.search(r"No space left on device: \S*run/\S+", line), line  # names the file
    assert not (out / LOCK_NAME).exists()
    assert not [p for p in out.rglob("*.tmp")]


def test_the_lock_names_its_holder_and_leaves_nothing_behind(tmp_path):
    from widderkopf_env.train.run_folder import FolderInUse, RunLock

    out = tmp_path / "new" / "run"
    with RunLock(out):
        holder = json.loads((out / LOCK_NAME).read_text())
        assert holder["pid"] == os.getpid() and holder["host"] and holder["started"]
        with pytest.raises(FolderInUse, match=f"pid {os.getpid()} on "), RunLock(out):
            pass
        assert (out / LOCK_NAME).exists()  # the refused second lock removed nothing
    assert not (tmp_path / "new").exists()  # folders made for the lock alone are removed
    (out / "keep").mkdir(parents=True)
    with RunLock(out):
        pass
    assert [p.name for p in out.iterdir()] == ["keep"]
