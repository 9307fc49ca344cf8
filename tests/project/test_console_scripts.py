"""The console scripts as installed (``widderkopf-eval``, ``-play``, ``-train``, ``-replay``,
``-exploit``, ``-distill``, ``-values``, ``-train-rllib`` next to the interpreter, and ``python -m
widderkopf_env.train.demo``), run as a user runs them: a short run exits 0; every bad
command line exits 2 with a usage error and writes nothing; a missing extra is named with
its pip command; Ctrl-C (SIGINT to the whole process group, as a terminal sends it) exits
130 with one line and no traceback from the script or its worker processes; no file is
loaded while the command line is parsed, and ``--safe`` loads none that runs code.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import threading
import time
import zipfile
from pathlib import Path

import pytest
from cli_helpers import command, default_sigint, make_files, run, snapshot

SCRIPTS = ("widderkopf-eval", "widderkopf-play", "widderkopf-train", "widderkopf-replay",
           "widderkopf-exploit", "widderkopf-distill", "widderkopf-values",
           "widderkopf-train-rllib")
TRAIN_HINT = 'pip install "widderkopf-env[train]"'
# a tiny, fast training configuration
TINY = ["--net-arch", "8", "--n-steps", "64", "--batch-size", "64", "--epochs", "1",
        "--eval-every", "0", "--eval-pairs", "2", "--workers", "1",
        "--final-eval-pairs", "2", "--crack-after", "0"]


class Interactive:
    """A console script in its own process group, its output collected by a thread."""

    def __init__(self, cmd: list[str], cwd: Path):
        self.proc = subprocess.Popen(
            cmd, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, start_new_session=True, preexec_fn=default_sigint)
        self.chunks: list[bytes] = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        while chunk := os.read(self.proc.stdout.fileno(), 65536):
            self.chunks.append(chunk)

    @property
    def output(self) -> str:
        return b"".join(self.chunks).decode(errors="replace")

    def wait_for(self, ready, timeout: float = 90) -> None:
        deadline = time.monotonic() + timeout
        while not ready():
            if self.proc.poll() is not None:
                raise AssertionError(f"ended early ({self.proc.returncode}):\n{self.output}")
            if time.monotonic() > deadline:
                self.proc.kill()
                raise AssertionError(f"not ready after {timeout} s:\n{self.output}")
            time.sleep(0.05)

    def ctrl_c(self) -> tuple[int, str]:
        os.killpg(self.proc.pid, signal.SIGINT)
        try:
            code = self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            raise
        self.reader.join(timeout=10)
        return code, self.output


def assert_one_interrupt_line(code: int, output: str, prog: str) -> str:
    assert code == 130, output
    assert "Traceback" not in output and "Exception ignored" not in output, output
    lines = [line for line in output.splitlines() if line.startswith(f"{prog}: ")]
    assert len(lines) == 1, output
    return lines[0]


@pytest.fixture
def spawn():
    """``spawn(cmd, cwd)`` starts an :class:`Interactive`; whatever still runs at the end
    of the test is killed."""
    started: list[Interactive] = []

    def start(cmd: list[str], cwd: Path) -> Interactive:
        started.append(Interactive(cmd, cwd))
        return started[-1]

    yield start
    for item in started:
        if item.proc.poll() is None:
            os.killpg(item.proc.pid, signal.SIGKILL)
            item.proc.wait(timeout=30)


def children(pid: int) -> list[str]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return path.read_text().split() if path.exists() else []


@pytest.fixture
def files(tmp_path: Path) -> Path:
    """:func:`cli_helpers.make_files`: the bad and good inputs of the table."""
    return make_files(tmp_path)


# --- successful runs exit 0 -------------------------------------------------------------------

def test_eval_short_run_exits_0(tmp_path):
    done = run(command("widderkopf-eval", "heuristic", "random", "--pairs", "2",
                       "--workers", "1", "--json"), tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1])["hands"] == 4
    assert done.stderr == ""


def test_play_a_whole_hand_exits_0(tmp_path, spawn):
    """Answers every prompt with the first legal move shown, through a pipe."""
    game = spawn(command("widderkopf-play", "--opponent", "random", "--seed", "5"),
                       tmp_path)
    answered = 0
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        prompts = game.output.count("Your move:")
        if prompts > answered and game.output.endswith("> "):
            first = re.findall(r"Your move: \[(\d+)\]", game.output)[-1]
            game.proc.stdin.write(f"{first}\n".encode())
            game.proc.stdin.flush()
            answered = prompts
        elif game.proc.poll() is not None:
            break  # the match is over and the process ended
        time.sleep(0.02)
    assert game.proc.wait(timeout=60) == 0, game.output
    game.reader.join(timeout=10)
    assert "Hand 1 over" in game.output and "Match over" in game.output
    assert "Not accepted" not in game.output and answered >= 9


def test_train_interrupt_then_resume_exits_130_then_0(tmp_path, spawn):
    """Ctrl-C after the first checkpoint (SubprocVecEnv workers and the progress bar
    running): one line saying how to resume; that command then finishes with exit 0
    and prints the summary once, as JSON."""
    from widderkopf_env.train import checkpoints

    cmd = command("widderkopf-train", "--out", "run", "--total-steps", "1000000",
                  "--n-envs", "2", "--vec-env", "subproc", "--checkpoint-every", "128", *TINY)
    train = spawn(cmd, tmp_path)
    train.wait_for(lambda: checkpoints.list_steps(tmp_path / "run" / "checkpoints"), 120)
    code, output = train.ctrl_c()
    line = assert_one_interrupt_line(code, output, "widderkopf-train")
    match = re.fullmatch(r"widderkopf-train: stopped at step ([\d,]+); resume with: "
                         r"(widderkopf-train --out run --resume)( \(it goes on from the "
                         r"checkpoint at step [\d,]+\))?", line)
    assert match, line
    last = checkpoints.list_steps(tmp_path / "run" / "checkpoints")[-1]
    assert int(match[1].replace(",", "")) >= last

    done = run(command(*match[2].split(), "--total-steps", str(last + 128),
                       "--no-progress", "--quiet"), tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    summary = json.loads(done.stdout.splitlines()[-1])
    assert summary["resumed_from"] == last and summary["steps"] == last + 128
    assert "Traceback" not in done.stderr and "'steps'" not in done.stderr


@pytest.mark.parametrize("name", SCRIPTS)
def test_version_exits_0(tmp_path, name):
    import widderkopf_env

    done = run(command(name, "--version"), tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"{name} (widderkopf-env) {widderkopf_env.__version__}\n"


# --- bad command lines exit 2 and write nothing -----------------------------------------------

BAD = [
    ("widderkopf-eval", ["nobody", "random"], "unknown agent 'nobody'"),
    ("widderkopf-eval", ["corrupt.zip", "random"], "not a saved MaskablePPO model: not a zip"),
    ("widderkopf-eval", ["random", "notmodel.zip"], "not a saved MaskablePPO model: a zip archive without"),
    ("widderkopf-eval", ["missing.zip", "random"], "no MaskablePPO model file"),
    ("widderkopf-eval", ["random", "random", "--pairs", "0"], "--pairs: expected an integer"),
    ("widderkopf-eval", ["random", "random", "--hands", "5"], "--hands must be even"),
    ("widderkopf-eval", ["random", "random", "--seed", "-1"], "--seed: expected an integer"),
    ("widderkopf-eval", ["random", "random", "--workers", "0"], "--workers: expected"),
    ("widderkopf-play", ["--num-hands", "0"], "--num-hands: expected an integer in 1..1,000,000"),
    ("widderkopf-play", ["--seed", "x"], "--seed: expected an integer in 0..4,294,967,295, got 'x'"),
    ("widderkopf-play", ["--opponent", "nosuchbot"], "unknown agent 'nosuchbot'"),
    ("widderkopf-play", ["--opponent", "notmodel.zip"], "not a saved MaskablePPO model"),
    ("widderkopf-play", ["--seat", "2"], "--seat: invalid choice"),
    ("widderkopf-train", ["--total-steps", "0"], "--total-steps: expected an integer in 1..10,000,000,000"),
    ("widderkopf-train", ["--total-steps", "-5"], "--total-steps: expected an integer in 1..10,000,000,000"),
    ("widderkopf-train", ["--opponent", "nosuchbot"], "unknown agent 'nosuchbot'"),
    ("widderkopf-train", ["--n-envs", "0"], "--n-envs: expected an integer in 1..1,024"),
    ("widderkopf-train", ["--net-arch", "abc"], "--net-arch: expected at most 8 comma-separated"),
    ("widderkopf-train", ["--lr", "-1"], "--lr: expected a number > 0"),
    ("widderkopf-train", ["--lr", "nan"], "--lr: expected a number > 0"),
    ("widderkopf-train", ["--gamma", "1.5"], "--gamma: expected a number from 0 to 1"),
    ("widderkopf-train", ["--batch-size", "1"], "--batch-size: expected an integer in 2..2,097,152"),
    ("widderkopf-train", ["--n-steps", "1", "--n-envs", "1"], "must be at least 2"),
    ("widderkopf-train", ["--self-play", "--heuristic-share", "0.8", "--random-share", "0.5"],
     "must be at most 1"),
    ("widderkopf-train", ["--self-play", "--heuristic-share", "0", "--random-share", "0"],
     "must be above 0: the pool has no snapshot"),
    ("widderkopf-train", ["--resume"], "--resume: no run in"),
    ("widderkopf-train", ["--out", "afile"], "exists and is not a folder"),
    ("widderkopf-distill", ["values", "--out", "v", "--shards", "1"], "invalid choice: 'values'"),
    ("widderkopf-distill", ["generate", "--out", "d", "--shards", "0"],
     "--shards: expected an integer in 1..100,000"),
    ("widderkopf-values", ["data", "--out", "v", "--shards", "1", "--tricks-left", "0", "8"],
     "--tricks-left: expected an integer in 1..17"),
    ("widderkopf-values", ["fit", "--data", "afile", "--policy", "net", "--out", "n.npz"],
     "no shards"),
    ("widderkopf-values", ["fit", "--data", "afile", "--policy", "net", "--out", "n.npz",
                           "--net-arch", "256 256"], "--net-arch: expected at most 8 comma-separated"),
    ("widderkopf-distill", ["train", "--data", "afile", "--out", "n.npz", "--init", "nobody"],
     "--init: 'nobody' is neither a shipped network"),
    ("demo", ["--pairs", "0"], "--pairs: expected an integer in 1..1,000,000"),
    # a .npz that is not a network, or one of the wrong shapes (checked when loaded)
    ("widderkopf-eval", ["plain.npz", "random"], "'plain.npz' is not a network file: no array"),
    ("widderkopf-eval", ["wrong.npz", "random", "--pairs", "1", "--workers", "1"],
     "layer 0 has weights (256, 10)"),
    ("widderkopf-play", ["--opponent", "plain.npz"], "'plain.npz' is not a network file"),
    ("widderkopf-train", ["--opponent", "plain.npz"], "'plain.npz' is not a network file"),
    ("widderkopf-train", ["--init", "plain.npz"], "'plain.npz' is not a network file"),
    ("widderkopf-exploit", ["plain.npz"], "'plain.npz' is not a network file"),
    ("widderkopf-distill", ["generate", "--out", "g", "--shards", "1", "--policy",
                            "corrupt.zip"], "'corrupt.zip' is not a network file"),
    # a missing file says so, whatever its kind
    ("widderkopf-eval", ["missing.npz", "random"], "no network file at 'missing.npz'"),
    ("widderkopf-play", ["--opponent", "missing.npz"], "no network file at 'missing.npz'"),
    # inputs are bounded
    ("widderkopf-play", ["--num-hands", "2000000"], "--num-hands: expected an integer in 1..1,000,000"),
    ("widderkopf-eval", ["random", "random", "--pairs", "10" + "0" * 28],
     "--pairs: expected an integer in 1..1,000,000"),
    ("widderkopf-eval", ["random", "random", "--hands", "10" + "0" * 28],
     "--hands: expected an integer in 1..2,000,000"),
    # output paths are checked before the work
    ("widderkopf-eval", ["random", "random", "--save-games", "afile"], "is not a folder"),
    ("widderkopf-eval", ["random", "--ladder", "--plot", "nodir/ladder.png"], "no folder"),
    ("widderkopf-eval", ["random", "--ladder", "--plot", "ladder.nopicture"],
     "name the picture's format"),
    ("widderkopf-exploit", ["random", "--out", "afile"], "exists and is not a folder"),
    ("widderkopf-exploit", ["random", "--n-steps", "1", "--n-envs", "1", "--out", "new"],
     "--n-steps x --n-envs must be at least 2"),
    ("widderkopf-exploit", ["random", "--out", "trainrun"], "holds a widderkopf-train run"),
    ("widderkopf-distill", ["generate", "--out", "afile", "--shards", "1"],
     "exists and is not a folder"),
    ("widderkopf-distill", ["train", "--data", "d", "--out", "."], "is a folder, not a file"),
    ("widderkopf-distill", ["train", "--data", "d", "--out", "nodir/net.npz"], "no folder"),
    # widderkopf-replay: a file that is not UTF-8, and never over its input
    ("widderkopf-replay", ["latin1.json"], "not UTF-8 text"),
    ("widderkopf-replay", ["game.json", "-o", "game.json"], "would overwrite the game"),
    ("widderkopf-replay", ["missing.json"], "cannot read 'missing.json': no such file"),
    # --safe loads no file that runs code
    ("widderkopf-eval", ["evil.zip", "random", "--safe"], "--safe refuses 'evil.zip'"),
    ("widderkopf-play", ["--opponent", "evil.zip", "--safe"], "--safe refuses 'evil.zip'"),
    ("widderkopf-exploit", ["evil.zip", "--safe"], "--safe refuses 'evil.zip'"),
]


@pytest.mark.parametrize("name,args,message", BAD, ids=[f"{n} {' '.join(a)}" for n, a, _ in BAD])
def test_bad_command_line_exits_2_and_writes_nothing(files, name, args, message):
    if name in ("widderkopf-train", "demo") and "--out" not in args:
        args = [*args, "--out", "run"]
    before = snapshot(files)
    done = run(command(name, *args), files)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert lines[0].startswith("usage: ") and "error: " in lines[-1], done.stderr
    assert name == "demo" or lines[-1].startswith(f"{name}"), lines[-1]  # its own name
    assert message in lines[-1]
    assert snapshot(files) == before  # nothing written, nothing loaded (no "pwned")
    assert done.stdout == ""


# a folder that cannot be used: one line (no usage: the command line is right), exit 2
REFUSED = [
    ("demo", ["--out", "."], "holds files that are not a run's"),
    ("widderkopf-train", ["--recipe", "demo", "--out", "afile"], "is a file, not a folder"),
    ("widderkopf-train", ["--recipe", "demo", "--out", ".", "--force-restart"],
     "--force-restart deletes only what a run wrote"),
]


@pytest.mark.parametrize("name,args,message", REFUSED,
                         ids=[f"{n} {' '.join(a)}" for n, a, _ in REFUSED])
def test_a_folder_that_cannot_be_used_is_one_line_and_exit_2(files, name, args, message):
    before = snapshot(files)
    done = run(command(name, *args), files)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    [line] = [x for x in done.stderr.strip().splitlines() if not x.startswith("recipe ")]
    assert "error: " in line and message in line, line
    assert snapshot(files) == before


def test_missing_train_extra_is_named_with_its_pip_command(files):
    """With torch unimportable (a stand-in module that raises as a missing one does)."""
    (files / "hide").mkdir()
    (files / "hide" / "torch.py").write_text(
        "raise ModuleNotFoundError(\"No module named 'torch'\", name='torch')\n")
    env = {"PYTHONPATH": str(files / "hide")}
    with zipfile.ZipFile(files / "model.zip", "w") as archive:  # looks like a model
        archive.writestr("data", "{}")
        archive.writestr("policy.pth", "")
    before = sorted(p.name for p in files.iterdir())
    for cmd in (command("widderkopf-train", "--out", "run"),
                command("demo", "--out", "run"),
                command("widderkopf-train", "--recipe", "demo", "--out", "run"),
                command("widderkopf-eval", "model.zip", "random"),
                command("widderkopf-play", "--opponent", "model.zip")):
        done = run(cmd, files, env=env)
        assert done.returncode == 2, done.stderr
        assert "Traceback" not in done.stderr
        assert "No module named 'torch'" in done.stderr
        assert TRAIN_HINT in done.stderr, done.stderr
    assert sorted(p.name for p in files.iterdir()) == before
    # the engine, the bots and the shipped policy need no torch
    done = run(command("widderkopf-eval", "ppo", "random", "--pairs", "1", "--workers", "1"),
               files, env=env)
    assert done.returncode == 0, done.stderr


# --- Ctrl-C exits 130 with one line ---------------------------------------------------------

@pytest.mark.skipif(not Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children").exists(),
                    reason="needs /proc/PID/task/PID/children to see the worker processes")
def test_eval_ctrl_c_with_workers_exits_130(tmp_path, spawn):
    match = spawn(command("widderkopf-eval", "heuristic", "random", "--pairs", "100000",
                                "--workers", "2"), tmp_path)
    match.wait_for(lambda: len(children(match.proc.pid)) >= 2)
    time.sleep(0.5)  # the workers are playing
    code, output = match.ctrl_c()
    assert assert_one_interrupt_line(code, output, "widderkopf-eval") == (
        "widderkopf-eval: interrupted")


def test_recipe_ctrl_c_in_a_data_stage_exits_130(tmp_path, spawn):
    """Ctrl-C while the clone stage's workers write shards: one line saying that the
    same command goes on."""
    job = spawn(command("widderkopf-train", "--recipe", "demo", "--out", "run", "--workers",
                        "2", "--minutes", "0"), tmp_path)  # fixed sizes: no calibration
    data = tmp_path / "run" / "clone" / "data"
    job.wait_for(lambda: data.is_dir() and any(data.glob("shard_*.npz")), 180)
    code, output = job.ctrl_c()
    assert assert_one_interrupt_line(code, output, "widderkopf-train --recipe") == (
        "widderkopf-train --recipe: stopped; the same command goes on from there")
    assert (tmp_path / "run" / "recipe.json").is_file()


def test_exploit_ctrl_c_while_training_exits_130(tmp_path, spawn):
    run_dir = tmp_path / "out"
    job = spawn(command("widderkopf-exploit", "random", "--total-steps", "1000000", "--n-envs", "2",
                        "--eval-pairs", "2", "--curve-pairs", "2", "--workers", "1",
                        "--init", "none", "--no-progress", "--out", str(run_dir)), tmp_path)
    job.wait_for(lambda: (run_dir / "tb").exists(), 180)
    time.sleep(1.0)  # learning
    code, output = job.ctrl_c()
    assert assert_one_interrupt_line(code, output, "widderkopf-exploit") == (
        "widderkopf-exploit: interrupted")


def test_play_ctrl_c_at_the_prompt_exits_130(tmp_path, spawn):
    game = spawn(command("widderkopf-play", "--seed", "3"), tmp_path)
    game.wait_for(lambda: game.output.endswith("> "))
    code, output = game.ctrl_c()
    assert assert_one_interrupt_line(code, output, "widderkopf-play") == (
        "widderkopf-play: interrupted")


