"""Settings for the client-library suite (see docs/clients.md, "Use with your RL library").

Tianshou's replay buffers and n-step returns are numba kernels compiled on first use:
on this project's 2-core machine that compilation took 12 s of CPU, as long as the rest
of the Tianshou test (imports included). The same functions run as plain Python with
``NUMBA_DISABLE_JIT=1``, which numba reads when it is first imported (only Tianshou
imports it here), so the suite sets it unless the caller chose otherwise.
"""

import os

os.environ.setdefault("NUMBA_DISABLE_JIT", "1")


def pytest_collection_modifyitems(items):
    """Mark this suite ``clients``: ``pytest -m "not clients"`` leaves it out."""
    here = os.path.dirname(__file__)
    for item in items:
        if str(item.path).startswith(here):
            item.add_marker("clients")
