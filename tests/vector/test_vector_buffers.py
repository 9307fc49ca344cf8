"""The vector env's threads, compact observations and in-place buffers.

``num_threads`` must not change a single number of a trajectory; ``obs_dtype=np.uint8``
must give exactly :func:`~widderkopf_env.observation.to_compact` of the float32
observations (final observations included). The copy rule (fresh arrays by default, the
env's own buffers with ``copy=False``): ``test_vector_copies.py``.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from gymnasium import spaces

from widderkopf_env.observation import OBS_SIZE, to_compact
from widderkopf_env.vector import WidderkopfVectorEnv
from widderkopf_env.vector.engine import ACCELERATED

#: Games per run: the threads split the compiled core's work; on the pure-Python fallback
#: they have nothing to split, and a small batch shows that they change nothing.
N = 300 if ACCELERATED else 50


def run(steps=60, n=N, **kwargs):
    env = WidderkopfVectorEnv(n, **kwargs)
    obs, info = env.reset(seed=5)
    rng = np.random.default_rng(0)
    out = [obs.copy(), info["action_mask"].copy()]
    for _ in range(steps):
        keys = rng.random(info["action_mask"].shape) * info["action_mask"]
        obs, reward, term, trunc, info = env.step(keys.argmax(1))
        finals = [f for f in info.get("final_obs", []) if f is not None]
        out += [obs.copy(), info["action_mask"].copy(), reward, term, *finals]
    return out


@pytest.mark.parametrize("opponent", ["self", "random"])
def test_any_number_of_threads_gives_the_same_trajectory(opponent):
    one = run(opponent=opponent, num_hands=2)
    for threads in (2, 3):
        other = run(opponent=opponent, num_hands=2, num_threads=threads)
        assert len(other) == len(one)
        for a, b in zip(one, other, strict=True):
            np.testing.assert_array_equal(a, b)


def digest(out) -> str:
    import hashlib
    h = hashlib.sha256()
    for a in out:
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


def test_batches_stepped_from_two_python_threads_at_once_step_as_alone():
    """The worker pool serves one call at a time; a call made meanwhile starts its own
    threads: both trajectories are those of a batch stepped alone."""
    import threading
    want = digest(run(opponent="self", num_threads=3, steps=120))
    got = [None, None]

    def work(r):
        got[r] = digest(run(opponent="self", num_threads=2 + r, steps=120))

    threads = [threading.Thread(target=work, args=(r,)) for r in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert got == [want, want]


def _child_digest(queue):
    queue.put(digest(run(opponent="self", num_threads=3)))


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork here")
def test_a_forked_child_steps_on_threads_of_its_own():
    """The pool's workers stay in the parent: a child forked after the parent stepped on
    threads starts its own (it neither hangs nor differs)."""
    import multiprocessing
    want = digest(run(opponent="self", num_threads=3))
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    child = ctx.Process(target=_child_digest, args=(queue,))
    child.start()
    got = queue.get(timeout=300)
    child.join(timeout=60)
    assert got == want and child.exitcode == 0


def test_the_compact_observations_are_the_float_ones_rounded():
    floats = run(opponent="self", variant="medium")
    compact = run(opponent="self", variant="medium", obs_dtype=np.uint8)
    assert len(floats) == len(compact)
    finals = 0
    for a, b in zip(floats, compact, strict=True):
        if a.ndim and a.shape[-1] == OBS_SIZE:
            assert a.dtype == np.float32 and b.dtype == np.uint8
            np.testing.assert_array_equal(b, to_compact(a))
            finals += a.ndim == 1
        else:
            np.testing.assert_array_equal(a, b)
    assert finals > 0  # final observations were compared too


def test_the_compact_space_says_what_it_holds():
    env = WidderkopfVectorEnv(3, opponent="random", obs_dtype=np.uint8)
    space = env.single_observation_space
    assert isinstance(space, spaces.Box) and space.dtype == np.uint8
    assert space.low.min() == 0 and space.high.max() == 255
    obs, _ = env.reset(seed=1)
    assert obs.dtype == np.uint8 and env.observation_space.contains(obs)


@pytest.mark.parametrize("bad", [0, -1, 65, 1.5, True, "2"])
def test_a_bad_thread_count_is_refused(bad):
    with pytest.raises(ValueError, match="num_threads must be an int in 1..64"):
        WidderkopfVectorEnv(2, num_threads=bad)


@pytest.mark.parametrize("bad", [np.float64, np.int8, "float16", bool, None])
def test_a_bad_observation_dtype_is_refused(bad):
    with pytest.raises(ValueError, match="obs_dtype must be np.float32"):
        WidderkopfVectorEnv(2, obs_dtype=bad)
