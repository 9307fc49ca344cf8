"""The console scripts as installed (``widderkopf-eval``, ``-play``, ``-train``, ``-replay``,
``-exploit``, ``-distill``, ``-train-rllib`` next to the interpreter, and ``python -m
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
import sys
import threading
import time
import zipfile
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent
SCRIPTS = ("widderkopf-eval", "widderkopf-play", "widderkopf-train", "widderkopf-replay",
           "widderkopf-exploit", "widderkopf-distill", "widderkopf-train-rllib")
TRAIN_HINT = 'pip install "widderkopf-env[train]"'
# a tiny, fast training configuration
TINY = ["--net-arch", "8", "--n-steps", "64", "--batch-size", "64", "--n-epochs", "1",
        "--eval-every", "0", "--eval-pairs", "2", "--eval-workers", "1",
        "--final-eval-pairs", "2", "--crack-after", "0"]


def command(name: str, *args: str) -> list[str]:
    if name == "demo":
        return [sys.executable, "-m", "widderkopf_env.train.demo", *args]
    path = BIN / name
    if not path.exists():
        pytest.skip(f"{name} is not installed next to {sys.executable}")
    return [str(path), *args]


def run(cmd: list[str], cwd: Path, env: dict | None = None, stdin: str = "",
        timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, cwd=cwd, input=stdin, capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, **(env or {})})


def _default_sigint() -> None:
    # a shell starts background jobs with SIGINT ignored; a terminal's foreground job
    # (what these tests imitate) has the default disposition
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class Interactive:
    """A console script in its own process group, its output collected by a thread."""

    def __init__(self, cmd: list[str], cwd: Path):
        self.proc = subprocess.Popen(
            cmd, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, start_new_session=True, preexec_fn=_default_sigint)
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


class Evil:
    """Unpickling it makes the folder ``pwned`` in the working directory."""

    def __reduce__(self):
        return (os.mkdir, ("pwned",))


def evil_model(path: Path) -> None:
    """A zip shaped like a stable-baselines3 model whose ``data`` holds a pickle that
    runs code when the model is loaded (as SB3 stores spaces and schedules)."""
    import base64
    import pickle

    item = {":type:": "x", ":serialized:": base64.b64encode(pickle.dumps(Evil())).decode()}
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("data", json.dumps({"observation_space": item}))
        archive.writestr("policy.pth", b"")


@pytest.fixture
def files(tmp_path: Path) -> Path:
    """A folder with a corrupt zip, a zip that is not a model, a plain file, an evil
    model, a plain .npz and a network .npz of the wrong shapes, a saved game and a file
    that is not UTF-8."""
    import numpy as np

    from widderkopf_env import Game
    from widderkopf_env.agents.shipped import load_policy, save_policy

    (tmp_path / "corrupt.zip").write_bytes(b"PK\x03\x04 not really a zip")
    with zipfile.ZipFile(tmp_path / "notmodel.zip", "w") as archive:
        archive.writestr("readme.txt", "hello")
    (tmp_path / "afile").write_text("x")
    evil_model(tmp_path / "evil.zip")
    np.savez(tmp_path / "plain.npz", a=np.zeros(3))
    weights = load_policy()
    weights["layers"][0] = (weights["layers"][0][0][:, :10], weights["layers"][0][1])
    save_policy(weights, tmp_path / "wrong.npz")
    (tmp_path / "game.json").write_text(Game.new(seed=1).to_json())
    (tmp_path / "latin1.json").write_bytes('{"format": "widderkopf-game", "é": 1}'.encode(
        "latin-1"))
    return tmp_path


def snapshot(folder: Path) -> dict:
    """Every path under ``folder`` with the bytes of each file (None for a folder)."""
    return {str(p.relative_to(folder)): p.read_bytes() if p.is_file() else None
            for p in sorted(folder.rglob("*"))}


def unwritable_folder() -> str | None:
    """An existing folder that accepts no new file even for root (a read-only file
    system: /sys), or None where there is none."""
    import tempfile

    if not Path("/sys").is_dir():
        return None
    try:
        with tempfile.TemporaryFile(dir="/sys"):
            return None
    except OSError:
        return "/sys"


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
                       "--no-progress-bar", "--quiet"), tmp_path)
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
    ("widderkopf-play", ["--hands", "0"], "--hands: expected an integer in 1..1,000,000"),
    ("widderkopf-play", ["--seed", "x"], "--seed: expected an integer >= 0, got 'x'"),
    ("widderkopf-play", ["--opponent", "nosuchbot"], "unknown agent 'nosuchbot'"),
    ("widderkopf-play", ["--opponent", "notmodel.zip"], "not a saved MaskablePPO model"),
    ("widderkopf-play", ["--seat", "2"], "--seat: invalid choice"),
    ("widderkopf-train", ["--total-steps", "0"], "--total-steps: expected an integer >= 1"),
    ("widderkopf-train", ["--total-steps", "-5"], "--total-steps: expected an integer >= 1"),
    ("widderkopf-train", ["--opponent", "nosuchbot"], "unknown agent 'nosuchbot'"),
    ("widderkopf-train", ["--n-envs", "0"], "--n-envs: expected an integer >= 1"),
    ("widderkopf-train", ["--net-arch", "abc"], "--net-arch: expected comma-separated"),
    ("widderkopf-train", ["--lr", "-1"], "--lr: expected a number > 0"),
    ("widderkopf-train", ["--lr", "nan"], "--lr: expected a number > 0"),
    ("widderkopf-train", ["--gamma", "1.5"], "--gamma: expected a number from 0 to 1"),
    ("widderkopf-train", ["--batch-size", "1"], "--batch-size: expected an integer >= 2"),
    ("widderkopf-train", ["--n-steps", "1", "--n-envs", "1"], "must be at least 2"),
    ("widderkopf-train", ["--self-play", "--p-heuristic", "0.8", "--p-random", "0.5"],
     "must be at most 1"),
    ("widderkopf-train", ["--resume"], "--resume: no run in"),
    ("widderkopf-train", ["--out", "afile"], "exists and is not a folder"),
    ("demo", ["--steps", "0"], "--steps: expected an integer >= 1"),
    ("demo", ["--out", "."], "not an earlier demo's folder"),
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
    ("widderkopf-play", ["--hands", "2000000"], "--hands: expected an integer in 1..1,000,000"),
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


@pytest.mark.parametrize("name,args", [
    ("widderkopf-eval", ["random", "random", "--save-games", "{ro}/games"]),
    ("widderkopf-eval", ["random", "random", "--save-games", "{ro}"]),
    ("widderkopf-eval", ["random", "--ladder", "--plot", "{ro}/ladder.png"]),
    ("widderkopf-exploit", ["random", "--out", "{ro}"]),
    ("widderkopf-distill", ["generate", "--out", "{ro}", "--shards", "1"]),
    ("widderkopf-distill", ["train", "--data", "d", "--out", "{ro}/net.npz"]),
    ("widderkopf-replay", ["game.json", "-o", "{ro}/game.html"]),
])
def test_output_in_a_read_only_folder_exits_2_before_any_work(files, name, args):
    """A folder that accepts no new file, even for root (whose permissions do not stop)."""
    ro = unwritable_folder()
    if ro is None:
        pytest.skip("no read-only file system here (/sys)")
    before = snapshot(files)
    done = run(command(name, *[a.format(ro=ro) for a in args]), files, timeout=60)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert "does not accept new files" in done.stderr.splitlines()[-1], done.stderr
    assert snapshot(files) == before and done.stdout == ""


def test_help_loads_nothing_and_names_every_kind_of_agent_and_the_trust_note(files):
    """``widderkopf-eval evil.zip --help`` used to load the model while parsing (and run its
    pickle); every command that may load a pickle-bearing file says so."""
    done = run(command("widderkopf-eval", "evil.zip", "--help"), files)
    assert done.returncode == 0, done.stderr
    assert not (files / "pwned").exists()
    for cmd in (["widderkopf-eval"], ["widderkopf-play"], ["widderkopf-exploit"],
                ["widderkopf-train"]):
        text = " ".join(run(command(*cmd, "--help"), files).stdout.split())
        assert "a network .npz" in text and "RLlib checkpoint" in text, text
        assert "runs code stored in it (pickles)" in text, text
        if cmd[0] != "widderkopf-train":
            assert "--safe refuses them" in text and "--safe" in text, text
    text = " ".join(run(command("widderkopf-train-rllib", "--help"), files).stdout.split())
    assert "pickles that run code" in text
    exploit = " ".join(run(command("widderkopf-exploit", "--help"), files).stdout.split())
    assert "(default: 200000)" in exploit and "(default: ppo)" in exploit, exploit


def test_a_model_is_loaded_once_after_parsing(files):
    """Without --safe the evil model is loaded (and its pickle runs) only after the whole
    command line is parsed: a usage error elsewhere leaves it unloaded."""
    done = run(command("widderkopf-eval", "evil.zip", "random", "--pairs", "0"), files)
    assert done.returncode == 2 and not (files / "pwned").exists(), done.stderr


def test_missing_rllib_extra_is_named_with_both_pip_commands(files):
    """widderkopf-train-rllib without ray (a stand-in module that raises as a missing one)."""
    (files / "hide").mkdir()
    (files / "hide" / "ray.py").write_text(
        "raise ModuleNotFoundError(\"No module named 'ray'\", name='ray')\n")
    done = run(command("widderkopf-train-rllib", "--iterations", "1", "--out", "r"), files,
               env={"PYTHONPATH": str(files / "hide")})
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    line = done.stderr.strip().splitlines()[-1]
    assert line.startswith("widderkopf-train-rllib: error: ") and "[rllib] extra" in line
    assert 'pip install "widderkopf-env[rllib]"' in line and 'pip install ".[rllib]"' in line
    assert not (files / "r").exists()


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


def test_exploit_ctrl_c_while_training_exits_130(tmp_path, spawn):
    run_dir = tmp_path / "out"
    job = spawn(command("widderkopf-exploit", "random", "--steps", "1000000", "--n-envs", "2",
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


# --- the argparse types, in process ------------------------------------------------------------

def test_argument_types_accept_the_range_and_name_it_otherwise():
    import argparse

    from widderkopf_env.cli import int_list, integer, number

    assert integer(1)("1_000") == 1000 and integer(0)("0") == 0
    assert number(0, 1)("1") == 1.0 and number(0, low_open=True)("1e-9") == 1e-9
    assert int_list(" 64, 32 ") == [64, 32]
    for convert, text, message in [
        (integer(1), "0", "expected an integer >= 1, got 0"),
        (integer(0), "1.5", "expected an integer >= 0, got '1.5'"),
        (number(0, 1), "1.01", "expected a number from 0 to 1, got 1.01"),
        (number(0, 1), "nan", "expected a number from 0 to 1, got nan"),
        (number(0, low_open=True), "0", "expected a number > 0, got 0"),
        (number(0, low_open=True), "inf", "expected a number > 0, got inf"),
        (number(0), "-0.5", "expected a number >= 0, got -0.5"),
        (int_list, "64,,32", "expected comma-separated positive integers"),
        (int_list, "64,0", "expected comma-separated positive integers"),
        (int_list, "²", "expected comma-separated positive integers"),
    ]:
        with pytest.raises(argparse.ArgumentTypeError, match=re.escape(message)):
            convert(text)


def test_path_types_check_without_writing(files):
    import argparse

    from widderkopf_env.cli import existing_file, output_dir, output_file

    before = snapshot(files)
    assert output_dir(str(files / "new" / "deeper")) == files / "new" / "deeper"
    assert output_file(str(files / "page.html")) == files / "page.html"
    assert existing_file(str(files / "afile")) == files / "afile"
    for convert, text, message in [
        (output_dir, "afile", "exists and is not a folder"),
        (output_dir, "afile/sub", "afile' is not a folder"),
        (output_file, ".", "is a folder, not a file"),
        (output_file, "nodir/x.html", "nodir/x.html': no folder"),
        (existing_file, "missing.json", "missing.json': no such file"),
        (existing_file, ".", "': not a file"),
    ]:
        with pytest.raises(argparse.ArgumentTypeError, match=re.escape(message)):
            convert(str(files / text) if text != "." else str(files))
    assert snapshot(files) == before


def test_the_install_hint_works_from_a_clone_and_once_published():
    from widderkopf_env.cli import install_hint, missing_extra

    hint = install_hint("render")
    assert 'pip install "widderkopf-env[render]"' in hint and 'pip install ".[render]"' in hint
    message = missing_extra("pictures", "render", ImportError("No module named 'PIL'"))
    assert message.startswith("pictures needs the [render] extra") and hint in message
