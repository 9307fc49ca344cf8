"""Running the console scripts as a user does (the command-line tests of tests/project/):
the installed script next to the interpreter, its output captured, and a folder of bad
and good inputs."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent


def default_sigint() -> None:
    """``preexec_fn`` of a child that Ctrl-C must reach: a shell starts background jobs
    (CI's, a ``&`` job) with SIGINT ignored, and a Python started so never raises
    ``KeyboardInterrupt``; a terminal's foreground job, which these tests imitate, has the
    default disposition."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


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


def make_files(tmp_path: Path) -> Path:
    """A folder with a corrupt zip, a zip that is not a model, a plain file, an evil
    model, a plain .npz and a network .npz of the wrong shapes, a saved game, a file that
    is not UTF-8 and the folder of a widderkopf-train run (``trainrun``)."""
    import numpy as np

    from widderkopf_env import Game
    from widderkopf_env.agents.network_file import load_policy, save_policy
    from widderkopf_env.agents.shipped import POLICY_FILE

    (tmp_path / "corrupt.zip").write_bytes(b"PK\x03\x04 not really a zip")
    with zipfile.ZipFile(tmp_path / "notmodel.zip", "w") as archive:
        archive.writestr("readme.txt", "hello")
    (tmp_path / "afile").write_text("x")
    (tmp_path / "trainrun").mkdir()
    (tmp_path / "trainrun" / "config.json").write_text("{}")
    evil_model(tmp_path / "evil.zip")
    np.savez(tmp_path / "plain.npz", a=np.zeros(3))
    weights = load_policy(POLICY_FILE)
    weights["layers"][0] = (weights["layers"][0][0][:, :10], weights["layers"][0][1])
    save_policy(weights, tmp_path / "wrong.npz")
    (tmp_path / "game.json").write_text(Game.new(seed=1).to_json())
    (tmp_path / "latin1.json").write_bytes('{"format": "widderkopf-game", "é": 1}'.encode(
        "latin-1"))
    return tmp_path
