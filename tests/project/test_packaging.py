"""Packaging checks: what `python -m build` makes, and that the sdist installs without
a C compiler.

The package lives in `src/widderkopf_env/` (the src layout); the bots and the training
code are its subpackages `widderkopf_env.agents` and `widderkopf_env.train`. The fixture builds the
sdist and, from it, the wheel, offline (no build isolation) from a copy of the repo; the
tests inspect both archives, then install the sdist in a fresh virtual environment with
no compiler to be found and play through its console script.
"""

from __future__ import annotations

import configparser
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers import ROOT

REPO_ROOT = ROOT

# Never copied into the build tree: virtualenvs, VCS data and build/test artefacts.
_IGNORE = shutil.ignore_patterns(
    ".venv",
    ".git",
    "build",
    "dist",
    "site",
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
    "widderkopf": "widderkopf_env.commands:main",
    "widderkopf-eval": "widderkopf_env.agents.eval_cli:main",
    "widderkopf-play": "widderkopf_env.agents.play_cli:main",
    "widderkopf-train": "widderkopf_env.train.train_cli:main",
    "widderkopf-exploit": "widderkopf_env.train.exploit:main",
    "widderkopf-train-rllib": "widderkopf_env.train.rllib.cli:main",
    "widderkopf-distill": "widderkopf_env.train.distill_cli:main",
    "widderkopf-values": "widderkopf_env.train.value_cli:main",
}


@dataclass(frozen=True)
class BuiltWheel:
    names: list[str]
    entry_points: str
    metadata: str
    sdist: Path
    sdist_names: list[str]
    wheel: Path
    tree: Path  # the copy of the repository it was built from: a fresh clone's stand-in


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> BuiltWheel:
    """`python -m build`: the sdist, then the wheel built from the unpacked sdist."""
    tmp = tmp_path_factory.mktemp("pkg")
    src = tmp / "src"
    out = tmp / "dist"
    # Build from a copy so that build/, *.egg-info etc. never land in the repo.
    shutil.copytree(REPO_ROOT, src, ignore=_IGNORE)
    proc = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out)],
        cwd=src,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, f"build failed:\n{proc.stdout}\n{proc.stderr}"
    wheels = sorted(out.glob("widderkopf_env-*.whl"))
    sdists = sorted(out.glob("widderkopf_env-*.tar.gz"))
    assert len(wheels) == 1 and len(sdists) == 1, f"expected a wheel and an sdist: {wheels} {sdists}"
    with zipfile.ZipFile(wheels[0]) as zf:
        names = zf.namelist()
        ep_files = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
        assert ep_files, "wheel has no entry_points.txt"
        entry_points = zf.read(ep_files[0]).decode()
        metadata = zf.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    with tarfile.open(sdists[0]) as tf:
        sdist_names = tf.getnames()
    return BuiltWheel(names=names, entry_points=entry_points, metadata=metadata,
                      sdist=sdists[0], sdist_names=sdist_names, wheel=wheels[0], tree=src)


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
    assert "widderkopf_env/train/rllib/__init__.py" in wheel.names
    assert "widderkopf_env/vector/__init__.py" in wheel.names
    assert "widderkopf_env/rllib/__init__.py" in wheel.names
    assert "widderkopf_env/agents/ppo_policy.npz" in wheel.names  # the shipped policy
    for page in ("web_table.html", "web_table.js", "web_table.css"):  # the browser table
        assert f"widderkopf_env/agents/{page}" in wheel.names


def test_console_scripts_declared(wheel: BuiltWheel) -> None:
    parser = configparser.ConfigParser()
    parser.optionxform = str  # keep script names as written
    parser.read_string(wheel.entry_points)
    assert parser.has_section("console_scripts"), wheel.entry_points
    scripts = {k: v.strip() for k, v in parser.items("console_scripts")}
    for name, target in EXPECTED_SCRIPTS.items():
        assert scripts.get(name) == target, f"{name}: {scripts.get(name)!r} != {target!r}"


# the optional C accelerators (setup.py): the path of each source in the repository, and
# the path of its compiled module (without the platform suffix) in the wheel
C_SOURCES = {"csrc/module.c": "widderkopf_env/_core",
             "csrc/solver/solver.c": "widderkopf_env/agents/_solver"}
# the other files the accelerators are compiled from (the sdist must hold them): the
# folder csrc/, whose every file setup.py builds from
C_HEADERS_AND_PARTS = tuple(
    str(path.relative_to(ROOT)) for path in sorted((ROOT / "csrc").rglob("*.[ch]")))


@pytest.mark.parametrize("source", sorted(C_SOURCES))
def test_wheel_has_the_c_accelerator_where_a_compiler_is(wheel: BuiltWheel, source) -> None:
    if not (shutil.which("cc") or shutil.which("gcc")):
        pytest.skip("no C compiler: the wheel is pure Python (the accelerators are optional)")
    module = C_SOURCES[source]
    assert any(n.startswith(module + ".") and n.endswith((".so", ".pyd"))
               for n in wheel.names), f"the wheel lacks {module.replace('/', '.')}"
    assert not any(n.endswith((".c", ".h")) for n in wheel.names)


def test_license_is_in_both_archives(wheel: BuiltWheel) -> None:
    license_text = (REPO_ROOT / "LICENSE").read_text()
    assert license_text.startswith("MIT License")
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in wheel.names), wheel.names
    top = wheel.sdist.name.removesuffix(".tar.gz")
    assert f"{top}/LICENSE" in wheel.sdist_names, wheel.sdist_names
    with tarfile.open(wheel.sdist) as tf:
        assert tf.extractfile(f"{top}/LICENSE").read().decode() == license_text
    assert "License-Expression: MIT" in wheel.metadata
    assert "License-File: LICENSE" in wheel.metadata


def test_the_version_is_the_packages_own(wheel: BuiltWheel) -> None:
    """One version, widderkopf_env.__version__: the metadata, the file names and the
    CHANGELOG's newest section agree with it."""
    import widderkopf_env

    version = widderkopf_env.__version__
    assert f"\nVersion: {version}\n" in wheel.metadata
    assert wheel.sdist.name == f"widderkopf_env-{version}.tar.gz"
    newest = re.search(r"^## \[?(\d[^\]\s]*)", (REPO_ROOT / "CHANGELOG.md").read_text(), re.M)
    assert newest and newest[1] == version
    top = wheel.sdist.name.removesuffix(".tar.gz")
    for source in [*C_SOURCES, *C_HEADERS_AND_PARTS]:  # it can build the accelerators
        assert f"{top}/{source}" in wheel.sdist_names


def fresh_venv(where: Path) -> tuple[Path, dict]:
    """A venv at ``where`` with no packages of its own (the dependencies reached offline
    through a .pth line naming this environment's site-packages, placed after its own),
    and the environment to run it in; returns its bin folder and that environment."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True,
                   timeout=120)
    bindir = where / "bin"
    site = subprocess.run([bindir / "python", "-c", "import sysconfig; print(sysconfig."
                           "get_paths()['purelib'])"], capture_output=True, text=True,
                          check=True).stdout.strip()
    ours = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    Path(site, "zz_dependencies.pth").write_text("\n".join(sorted(ours)) + "\n")
    env = {**os.environ, "PATH": f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}",
           "PIP_NO_INDEX": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    env.pop("PYTHONPATH", None)
    return bindir, env


@pytest.mark.skipif(os.name != "posix", reason="hides the compiler the POSIX way")
def test_sdist_installs_and_plays_without_a_c_compiler(wheel: BuiltWheel, tmp_path) -> None:
    """A fresh venv, no compiler on the PATH and CC pointing to `false`: the sdist still
    installs (pure-Python observation encoder) and its console script plays hands.

    Offline: the fresh venv reaches the dependencies (numpy, gymnasium, pettingzoo, and
    setuptools for the build) through a .pth line naming this environment's
    site-packages, placed after its own; `--no-deps --ignore-installed` makes pip install
    the package itself into the fresh venv and touch nothing else."""
    fresh = tmp_path / "fresh"
    bindir, env = fresh_venv(fresh)
    python = bindir / "python"
    false = shutil.which("false") or "/bin/false"
    env.update(PATH=str(bindir), CC=false, CXX=false, LDSHARED=false)
    for compiler in ("cc", "gcc", "clang"):
        assert shutil.which(compiler, path=env["PATH"]) is None
    install = subprocess.run(
        [python, "-m", "pip", "install", "--no-deps", "--ignore-installed",
         "--no-build-isolation", str(wheel.sdist)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert install.returncode == 0, install.stdout + install.stderr
    check = subprocess.run(
        [python, "-c", "import widderkopf_env, widderkopf_env.game_encoder as o; "
                       "import widderkopf_env.agents.solver as s; "
                       "print(widderkopf_env.__file__, o.ACCELERATED, s.ACCELERATED)"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    where, encoder, solver = check.stdout.split()
    assert where.startswith(str(fresh)), check.stdout + check.stderr
    assert encoder == solver == "False", check.stdout + check.stderr
    assert not list(Path(where).parent.glob("_core*"))
    assert not list(Path(where).parent.glob("agents/_solver*"))
    play = subprocess.run(
        [bindir / "widderkopf-eval", "heuristic", "random", "--pairs", "1", "--workers", "1",
         "--json"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert play.returncode == 0, play.stderr
    assert '"hands": 2' in play.stdout.splitlines()[-1]




#: A script a new user saves in the clone's root: the README's Python blocks, then a bot
#: loaded by name and a few duplicate pairs (the failure of issue 55: the source folder
#: shadowed the installed package there).
USER_SCRIPT = """
import widderkopf_env
from widderkopf_env.agents import load_agent

agent = load_agent("heuristic")
print(widderkopf_env.__file__)
"""


def test_the_quickstart_runs_from_a_fresh_clones_root(wheel: BuiltWheel, tmp_path) -> None:
    """After a non-editable install (the wheel `pip install .` builds), the README's
    quickstart, a script loading a bot and the console scripts run from the root of the
    clone, and import the installed package, not the source tree."""
    bindir, env = fresh_venv(tmp_path / "fresh")
    install = subprocess.run(
        [bindir / "python", "-m", "pip", "install", "--no-deps", "--ignore-installed",
         str(wheel.wheel)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert install.returncode == 0, install.stdout + install.stderr
    root = wheel.tree
    assert (root / "README.md").exists() and (root / "src" / "widderkopf_env").is_dir()
    blocks = re.findall(r"^```python\n(.*?)^```", (root / "README.md").read_text(), re.S | re.M)
    assert len(blocks) >= 3, "the README lost its quickstart blocks"
    script = root / "my_first_script.py"
    script.write_text("\n".join(blocks) + USER_SCRIPT)
    try:
        run = subprocess.run([bindir / "python", script.name], cwd=root, env=env,
                             capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, run.stderr
        assert run.stdout.strip().splitlines()[-1].startswith(str(tmp_path / "fresh"))
        inline = subprocess.run([bindir / "python", "-c", "from widderkopf_env.agents import "
                                 "load_agent; print(load_agent('random'))"],
                                cwd=root, env=env, capture_output=True, text=True, timeout=120)
        assert inline.returncode == 0, inline.stderr
        play = subprocess.run([bindir / "widderkopf-eval", "heuristic", "random", "--pairs",
                               "1", "--workers", "1", "--json"],
                              cwd=root, env=env, capture_output=True, text=True, timeout=120)
        assert play.returncode == 0, play.stderr
    finally:
        script.unlink()


def _wheel_test_commands() -> list[str]:
    """The `test-command` list of pyproject.toml's [tool.cibuildwheel] table (read without
    tomllib, which Python 3.10 lacks: the list's lines are TOML basic strings)."""
    text = (REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8")
    table = text.split("[tool.cibuildwheel]", 1)[1]
    block = re.search(r"^test-command = \[\n(.*?)^\]", table, re.M | re.S)
    assert block, "pyproject.toml's [tool.cibuildwheel] has no test-command list"
    lines = re.findall(r'^\s*"((?:[^"\\]|\\.)*)",?\s*$', block[1], re.M)
    return [line.replace('\\"', '"').replace("\\\\", "\\") for line in lines]


@pytest.mark.parametrize("command", _wheel_test_commands())
def test_the_wheels_test_commands_pass_here(command: str) -> None:
    """cibuildwheel runs pyproject.toml's `test-command` in each built wheel; running the
    same lines here makes a renamed module or option fail `make test`, not the release."""
    if not (shutil.which("cc") or shutil.which("gcc")):
        pytest.skip("no C compiler: the accelerators these commands assert were not built")
    import shlex

    argv = shlex.split(command)
    assert argv[0] == "python", f"a wheel test command starts with `python`: {command}"
    proc = subprocess.run([sys.executable, *argv[1:]], cwd=REPO_ROOT, capture_output=True,
                          text=True, timeout=300,
                          env={**os.environ, "WIDDERKOPF_PURE_PYTHON": "0"})
    assert proc.returncode == 0, f"{command}\n{proc.stdout}\n{proc.stderr}"


def test_the_sdist_ships_the_tests_and_nothing_they_leave_behind(wheel: BuiltWheel) -> None:
    """Under tests/ the sdist holds the suite's Python files and golden files, exactly the
    ones git tracks: no screenshot or other artefact of a test run."""
    top = wheel.sdist.name.removesuffix(".tar.gz") + "/"
    shipped = {n.removeprefix(top) for n in wheel.sdist_names
               if n.startswith(top + "tests/") and not n.endswith("/")}
    shipped = {n for n in shipped if (REPO_ROOT / n).is_file()}  # files, not folders
    strays = sorted(n for n in shipped
                    if not (n.endswith(".py") or "/golden/" in n))
    assert not strays, f"the sdist ships files that are not tests: {strays}"
    if (REPO_ROOT / ".git").exists() and shutil.which("git"):
        tracked = subprocess.run(["git", "ls-files", "tests"], cwd=REPO_ROOT, text=True,
                                 capture_output=True, check=True).stdout.split()
        assert shipped == set(tracked), (
            f"shipped, not tracked: {sorted(shipped - set(tracked))}; "
            f"tracked, not shipped: {sorted(set(tracked) - shipped)}")


def test_every_package_data_glob_matches_a_file() -> None:
    """Each glob of pyproject.toml's [tool.setuptools.package-data] names at least one file
    in its package's folder (a glob matching nothing promises data that is not there)."""
    text = (REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8")
    table = text.split("[tool.setuptools.package-data]", 1)[1].split("\n[", 1)[0]
    rows = re.findall(r'^"([\w.]+)" = \[(.*)\]$', table, re.M)
    assert rows, "no package-data rows found"
    for package, globs in rows:
        folder = REPO_ROOT / "src" / package.replace(".", "/")
        for glob in re.findall(r'"([^"]+)"', globs):
            assert list(folder.glob(glob)), f"package-data {package}: {glob!r} matches no file"
