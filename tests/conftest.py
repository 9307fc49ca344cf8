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
