"""Packaging checks: the wheel installs only the `widderkopf_env` top-level package.

The bots and the training code live in `widderkopf_env/agents/` and
`widderkopf_env/train/`, subpackages of the one top-level package. This test builds a wheel offline
(no build isolation) from a copy of the repo and inspects its contents.
"""

from __future__ import annotations

import configparser
import shutil
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent

# Never copied into the build tree: virtualenvs, VCS data and build/test artefacts.
_IGNORE = shutil.ignore_patterns(
    ".venv",
    ".git",
    "build",
    "dist",
    "*.egg-info",
    "__pycache__",
    "*.pyc",
    ".pytest_cache",
    ".ruff_cache",
    ".hypothesis",
    "runs",
    "*.so",
    "*.pyd",
)

EXPECTED_SCRIPTS = {
    "widderkopf-eval": "widderkopf_env.agents.eval_cli:main",
    "widderkopf-play": "widderkopf_env.agents.play_cli:main",
    "widderkopf-train": "widderkopf_env.train.train_ppo:main",
    "widderkopf-train-rllib": "widderkopf_env.rllib.train:main",
}


@dataclass(frozen=True)
class BuiltWheel:
    names: list[str]
    entry_points: str


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> BuiltWheel:
    tmp = tmp_path_factory.mktemp("pkg")
    src = tmp / "src"
    out = tmp / "dist"
    # Build from a copy so that build/, *.egg-info etc. never land in the repo.
    shutil.copytree(REPO_ROOT, src, ignore=_IGNORE)
    proc = subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(out)],
        cwd=src,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, f"wheel build failed:\n{proc.stdout}\n{proc.stderr}"
    wheels = sorted(out.glob("widderkopf_env-*.whl"))
    assert len(wheels) == 1, f"expected one wheel, got {wheels}"
    with zipfile.ZipFile(wheels[0]) as zf:
        names = zf.namelist()
        ep_files = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
        assert ep_files, "wheel has no entry_points.txt"
        entry_points = zf.read(ep_files[0]).decode()
    return BuiltWheel(names=names, entry_points=entry_points)


def test_only_widderkopf_env_at_top_level(wheel: BuiltWheel) -> None:
    top_level = {name.split("/", 1)[0] for name in wheel.names}
    unexpected = {
        t
        for t in top_level
        if t != "widderkopf_env"
        and not (t.startswith("widderkopf_env-") and t.endswith(".dist-info"))
    }
    assert not unexpected, f"unexpected top-level entries in wheel: {sorted(unexpected)}"


def test_subpackages_are_mapped(wheel: BuiltWheel) -> None:
    assert "widderkopf_env/__init__.py" in wheel.names
    assert "widderkopf_env/agents/__init__.py" in wheel.names
    assert "widderkopf_env/train/__init__.py" in wheel.names
    assert "widderkopf_env/rllib/__init__.py" in wheel.names
    assert "widderkopf_env/agents/ppo_policy.npz" in wheel.names  # the shipped policy


def test_console_scripts_declared(wheel: BuiltWheel) -> None:
    parser = configparser.ConfigParser()
    parser.optionxform = str  # keep script names as written
    parser.read_string(wheel.entry_points)
    assert parser.has_section("console_scripts"), wheel.entry_points
    scripts = {k: v.strip() for k, v in parser.items("console_scripts")}
    for name, target in EXPECTED_SCRIPTS.items():
        assert scripts.get(name) == target, f"{name}: {scripts.get(name)!r} != {target!r}"


def test_wheel_has_the_c_accelerator_where_a_compiler_is(wheel: BuiltWheel) -> None:
    if not (shutil.which("cc") or shutil.which("gcc")):
        pytest.skip("no C compiler: the wheel is pure Python (the accelerator is optional)")
    assert any(n.startswith("widderkopf_env/_speedups") and n.endswith((".so", ".pyd"))
               for n in wheel.names), "the wheel lacks widderkopf_env._speedups"
    assert "widderkopf_env/_speedups.c" not in wheel.names
