"""The suite's shared modules (``helpers``, ``reference``, ``indistinguishable``) live in
tests/ itself; pytest puts this folder on ``sys.path`` when it loads this file, so the
test files in the subfolders import them by name. Shared fixtures are defined here."""

import pytest


@pytest.fixture
def one_torch_thread():
    """The test runs with torch on one thread; the previous thread count is restored
    after it."""
    import torch

    saved = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(saved)


@pytest.fixture(autouse=True, scope="session")
def sb3_logs_in_a_temporary_folder(tmp_path_factory):
    """Stable-Baselines3 makes a folder ``SB3-<date>`` in the system's temporary folder for
    every ``learn`` without a log folder; the suite's go under pytest's own temporary
    folder instead (``$SB3_LOGDIR``), so that a test run leaves none behind."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SB3_LOGDIR", str(tmp_path_factory.mktemp("sb3")))
        yield
