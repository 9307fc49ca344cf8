"""Without the [openspiel] extra the OpenSpiel parts say what to install."""

from __future__ import annotations

import subprocess
import sys


def test_missing_pyspiel_names_the_extra():
    script = (
        "import sys\n"
        "sys.modules['pyspiel'] = None  # as if OpenSpiel were not installed\n"
        "import numpy as np\n"
        "from widderkopf_env import load_agent\n"
        "from widderkopf_env.agents.mccfr import MCCFRAgent, PolicyTable\n"
        "empty = PolicyTable('tiny', (), np.zeros(1, np.int64), np.zeros(0, np.float32))\n"
        "for load in (lambda: __import__('widderkopf_env.openspiel'),\n"
        "             lambda: load_agent('ismcts'), lambda: MCCFRAgent(empty)):\n"
        "    try:\n"
        "        load()\n"
        "    except ImportError as err:\n"
        "        print(err)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=300, check=True).stdout.splitlines()
    assert len(out) == 3 and all("widderkopf-env[openspiel]" in line for line in out)
