"""``import widderkopf_env`` registers ``Widderkopf-v0`` with Gymnasium and PettingZoo
without importing them (nor NumPy): engine users do not pay for the frameworks. Each
check runs in a fresh interpreter, since import order is the point."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest


def run(code: str) -> str:
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


def test_importing_the_package_loads_no_framework():
    out = run("""
        import sys
        import widderkopf_env
        game = widderkopf_env.Game.new(seed=1)
        game.apply(game.legal_actions()[0])
        print(sorted(m for m in ("numpy", "gymnasium", "pettingzoo") if m in sys.modules))
    """)
    assert out == "[]"


def test_the_bots_and_clis_load_no_framework():
    out = run("""
        import sys
        from widderkopf_env.agents import HeuristicAgent, eval_cli, play_cli
        print(sorted(m for m in ("gymnasium", "pettingzoo") if m in sys.modules))
    """)
    assert out == "[]"


@pytest.mark.parametrize("first", ["widderkopf_env", "gymnasium", "pettingzoo"])
def test_the_env_id_is_registered_whichever_is_imported_first(first):
    out = run(f"""
        import sys
        import {first}
        import widderkopf_env, gymnasium, pettingzoo
        from widderkopf_env.env_registration import _AfterImport
        assert "Widderkopf-v0" in gymnasium.registry
        assert "Widderkopf-v0" in pettingzoo.aec_registry
        assert not any(isinstance(f, _AfterImport) for f in sys.meta_path)  # gone when done
        env = gymnasium.make("Widderkopf-v0")
        obs, _ = env.reset(seed=3)
        aec = pettingzoo.make("aec", "Widderkopf-v0")
        aec.reset(seed=3)
        print(obs.shape, aec.agents)
    """)
    assert out == "(540,) ['player_0', 'player_1']"


def test_gymnasium_imports_the_package_by_its_module_prefix():
    out = run("""
        import gymnasium
        env = gymnasium.make("widderkopf_env:Widderkopf-v0")
        print(env.spec.id)
    """)
    assert out == "Widderkopf-v0"
