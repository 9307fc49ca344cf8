"""Fixtures of the project tests."""

from __future__ import annotations

import importlib
import sys

import pytest
from helpers import ROOT


@pytest.fixture(scope="module")
def procedures_table():
    """``scripts/procedures_table.py`` as a module (the rule procedures' list and its checks)."""
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        yield importlib.import_module("procedures_table")
    finally:
        sys.path.remove(str(ROOT / "scripts"))
