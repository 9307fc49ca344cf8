"""pytest settings for the documentation's code blocks (``pytest --markdown-docs docs``):
each block runs in a fresh temporary folder, so what a block writes (videos, runs) stays
out of the checkout."""

import pytest


@pytest.fixture(autouse=True)
def _in_a_temporary_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
