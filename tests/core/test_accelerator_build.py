"""The optional C accelerator of the observation encoder (csrc/, built as widderkopf_env._core):
built where a C compiler is, ordinary arrays out, clear exceptions on bad input, the
pure-Python fallback (forced, or for a build that does not fit the layout). That it
gives the reference's arrays is checked in test_encoders_agree.py."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from widderkopf_env import Game, game_encoder
from widderkopf_env.cards import TRUMP_MASK
from widderkopf_env.observation import OBS_SIZE, OFFSETS
from widderkopf_env.rules import PyGame

needs_core = pytest.mark.skipif(not game_encoder.ACCELERATED,
                                    reason="the C accelerator is not built or is disabled")
CSRC = Path(__file__).resolve().parents[2] / "csrc"


def _reload():
    """The core as compiled.py loads and configures it, loaded again."""
    from widderkopf_env import compiled
    from widderkopf_env.accelerators import load_accelerator

    return load_accelerator("widderkopf_env._core", configure=compiled._configure,
                            replaces="rules engine and encoder")


@needs_core
def test_accelerator_arrays_are_ordinary_numpy_arrays():
    game = Game.new(seed=3)
    obs, mask = game_encoder._encode_c(game, game.current)
    obs2, _ = game_encoder._encode_c(game, game.current)
    for a in (obs, mask):
        assert a.flags.writeable and a.flags.aligned and a.flags.c_contiguous
    assert not np.shares_memory(obs, obs2)
    obs[:] = 2
    assert obs2.max() == 1.0


@needs_core
def test_accelerator_rejects_bad_input_with_exceptions():
    from widderkopf_env import _core as core

    game = Game.new(seed=3)
    with pytest.raises(ValueError, match="player"):
        core.encode(game, 2, False)
    with pytest.raises(AttributeError):
        core.encode(object(), 0, False)
    with pytest.raises(TypeError):
        core.encode(game, 0)
    broken = PyGame.new(seed=3)  # encode reads any object's attributes
    broken.trump = 7
    with pytest.raises(ValueError, match="out of range"):
        core.encode(broken, 0, False)


def test_accelerator_is_built_where_a_c_compiler_is():
    """An install with a C compiler must have built the accelerator (a silent fallback
    would halve the env's speed unnoticed)."""
    if os.environ.get("WIDDERKOPF_PURE_PYTHON", "") not in ("", "0"):
        pytest.skip("WIDDERKOPF_PURE_PYTHON is set")
    if not (shutil.which("cc") or shutil.which("gcc")):
        pytest.skip("no C compiler here: the pure-Python encoder is used")
    assert game_encoder.ACCELERATED


def test_pure_python_mode_runs_the_env(tmp_path):
    """With WIDDERKOPF_PURE_PYTHON=1 the pure-Python encoder runs, and the env still
    passes PettingZoo's API test."""
    script = (
        "from widderkopf_env import game_encoder, env\n"
        "from pettingzoo.test import api_test\n"
        "assert not game_encoder.ACCELERATED\n"
        "assert game_encoder.encode_game is game_encoder._encode_py\n"
        "api_test(env(), num_cycles=200)\n"
        "print('ok')\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env={**os.environ, "WIDDERKOPF_PURE_PYTHON": "1"}, timeout=300,
                          cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().endswith("ok")


@needs_core
def test_a_stale_accelerator_falls_back_to_python_with_a_warning(monkeypatch):
    from widderkopf_env import _core as core

    def stale(*args):
        raise ValueError("configure: the layout does not match core.c")

    monkeypatch.setattr(core, "configure", stale)
    with pytest.warns(RuntimeWarning, match="pure-Python rules engine and encoder"):
        assert _reload() is None


@needs_core
def test_accelerator_refuses_a_layout_it_was_not_written_for():
    """A layout change in PIECES without the matching change in encode.h's WK_PIECES (a
    size, the order, the total) is refused (and the loader then warns and falls
    back), never run: the encoder's offsets are compile-time constants."""
    from widderkopf_env import _core as core

    resized = dict(OFFSETS)
    resized["phase"] = (OFFSETS["phase"][0], 6)
    swapped = dict(OFFSETS)
    swapped["hand"], swapped["my_up"] = OFFSETS["my_up"], OFFSETS["hand"]
    try:
        with pytest.raises(ValueError, match="piece phase must be"):
            core.configure(resized, OBS_SIZE, 42, tuple(TRUMP_MASK))
        with pytest.raises(ValueError, match=r"piece hand must be \(0, 36\)"):
            core.configure(swapped, OBS_SIZE, 42, tuple(TRUMP_MASK))
        with pytest.raises(ValueError, match="the observation has"):
            core.configure(dict(OFFSETS), OBS_SIZE + 1, 42, tuple(TRUMP_MASK))
        with pytest.raises(RuntimeError, match="configure"):
            core.encode(Game.new(seed=1), 0, False)
    finally:
        assert _reload() is core  # configured right again
    obs, _ = game_encoder._encode_c(Game.new(seed=1), 0)
    np.testing.assert_array_equal(obs, game_encoder._encode_py(Game.new(seed=1), 0)[0])



C_FILES = sorted(str(p.relative_to(CSRC)) for p in CSRC.rglob("*.c"))


@pytest.mark.parametrize("source", C_FILES + [f"{name}+numpy" for name in C_FILES])
def test_the_c_core_compiles_without_warnings(source, tmp_path):
    """The compiled core and the solver (which includes ``core.h``) build clean under
    ``-Wall -Wextra -Werror`` (C99, optimised); every file with numpy's headers (as
    setup.py builds it, for ``game_io.c``'s arrays) and without them."""
    import sysconfig

    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("no C compiler here")
    root = CSRC
    source, _, extra = source.partition("+")
    flags = [f"-I{np.get_include()}", "-DWK_NUMPY=1"] if extra else []
    proc = subprocess.run(
        [compiler, "-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", "-fPIC", *flags,
         f"-I{sysconfig.get_paths()['include']}", f"-I{root}", "-c",
         str(root / source),
         "-o", str(tmp_path / "out.o")], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr


@needs_core
def test_the_batch_core_rejects_bad_arrays_with_exceptions():
    from widderkopf_env import _core as core
    from widderkopf_env.vector import DealSource, VecGame

    game = VecGame(4, DealSource(4, 0))
    game.new_matches(game.all, [0, 1, 0, 1], 1)
    need = np.zeros(4, np.int64)
    with pytest.raises(ValueError, match="out of range"):
        core.vec_apply(game, np.array([7]), np.array([36]), need, 1)
    with pytest.raises(ValueError, match="idx must be"):
        core.vec_apply(game, np.array([0.5]), np.array([36]), need, 1)
    with pytest.raises(ValueError, match="action 99 out of range"):
        core.vec_apply(game, np.array([0]), np.array([99]), need, 1)
    with pytest.raises(ValueError, match="num_threads"):
        core.vec_apply(game, np.array([0]), np.array([36]), need, 0)
    saved = {k: v.copy() for k, v in vars(game).items() if isinstance(v, np.ndarray)}
    game.hand = game.hand.astype(np.int64)  # a field of the wrong dtype
    with pytest.raises(ValueError, match="hand must hold 8 uint64"):
        core.vec_apply(game, np.array([0]), np.array([36]), need, 1)
    game.hand = saved["hand"]
    obs = np.zeros((1, OBS_SIZE), np.float64)
    with pytest.raises(ValueError, match="obs_out must hold"):
        core.vec_encode(game, np.array([0]), np.array([0]), None, obs,
                             np.zeros((1, 42), np.int8), 1)
    with pytest.raises(ValueError, match="game 1: action 3 is not legal"):
        game.apply(np.array([0, 1]), np.array([36, 3]))  # a card while trumps are named
    broken = game.phase.copy()
    game.phase[2] = 9  # a corrupted array: refused, never indexed with
    with pytest.raises(ValueError, match="game 2: state out of range"):
        core.vec_encode(game, np.array([2]), np.array([0]), None,
                             np.zeros((1, OBS_SIZE), np.float32), np.zeros((1, 42), np.int8), 1)
    with pytest.raises(ValueError, match="game 2"):
        core.vec_apply(game, np.array([2]), np.array([36]), need, 1)
    game.phase = broken
    for name, value in saved.items():  # nothing was changed by the refused calls
        np.testing.assert_array_equal(getattr(game, name), value, err_msg=name)
