"""The layers run one way: core (widderkopf_env/*.py and widderkopf_env/vector/) <- agents
<- train (and rllib).

The core never imports the bots or the training code (opponent names resolve through
the core's registry and entry points), the core's own modules import each other without
cycles, and the core works with agents/ and train/ missing altogether.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "widderkopf_env"
CORE = sorted(p for p in PACKAGE.glob("*.py"))
VECTOR = sorted((PACKAGE / "vector").glob("*.py"))
MAX_LINES = 500


def imports_of(path: Path, package: str) -> set[str]:
    """Every module ``path`` imports, at module level or inside functions, resolved."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                module = f"{base}.{node.module}" if node.module else base
            else:
                module = node.module
            out.add(module)
            out.update(f"{module}.{alias.name}" for alias in node.names)
    return out


def package_of(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    return ".".join(rel.parts[:-1])


def upward(path: Path, forbidden: tuple[str, ...]) -> list[str]:
    return sorted(m for m in imports_of(path, package_of(path))
                  if m.startswith(forbidden))


@pytest.mark.parametrize("path", CORE + VECTOR, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_core_never_imports_agents_or_train(path):
    assert upward(path, ("widderkopf_env.agents", "widderkopf_env.train",
                         "widderkopf_env.rllib")) == []


@pytest.mark.parametrize("path", sorted((PACKAGE / "agents").glob("*.py")), ids=lambda p: p.name)
def test_agents_never_import_train(path):
    assert upward(path, ("widderkopf_env.train", "widderkopf_env.rllib")) == []


def test_the_check_catches_an_upward_import(tmp_path):
    bad = PACKAGE / "_probe_upward.py"
    try:
        bad.write_text("def f():\n    from .agents import load_agent\n")
        assert upward(bad, ("widderkopf_env.agents",)) == ["widderkopf_env.agents",
                                                          "widderkopf_env.agents.load_agent"]
    finally:
        bad.unlink()


def test_core_modules_import_each_other_without_cycles():
    names = {p.stem for p in CORE}
    graph = {p.stem: {m.split(".")[1] for m in imports_of(p, "widderkopf_env")
                      if m.startswith("widderkopf_env.") and m.split(".")[1] in names}
             - {p.stem} for p in CORE}
    graph["__init__"] = set()  # the package's lazy re-exports are not a layer
    done, stack = set(), []

    def visit(node):
        if node in stack:
            raise AssertionError(f"import cycle: {' -> '.join(stack[stack.index(node):])} -> {node}")
        if node in done:
            return
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            visit(nxt)
        stack.pop()
        done.add(node)

    for node in sorted(graph):
        visit(node)


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.py")),
                         ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_module_is_over_500_lines(path):
    assert len(path.read_text(encoding="utf-8").splitlines()) <= MAX_LINES


BLOCKED = """
import importlib.abc, sys

class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.startswith(("widderkopf_env.agents", "widderkopf_env.train")):
            raise ImportError(f"{name} is blocked")
        return None

sys.meta_path.insert(0, Block())
import widderkopf_env
from widderkopf_env import Game, WidderkopfEnv, env, load_agent

e = env()
e.reset(seed=3)
for agent in e.agent_iter():
    obs, reward, term, trunc, info = e.last()
    e.step(None if term or trunc else int(obs["action_mask"].nonzero()[0][0]))
g = WidderkopfEnv(opponent="random", seat=1)
obs, info = g.reset(seed=5)
done = False
while not done:
    obs, r, done, _, info = g.step(int(g.action_masks().nonzero()[0][-1]))
game = Game.new(seed=9)
while not game.is_over:
    game.apply(game.legal_actions()[0])
try:
    load_agent("heuristic")
except ImportError as err:
    assert "blocked" in str(err)
else:
    raise AssertionError("the heuristic came from a blocked package")
assert not any(m.startswith(("widderkopf_env.agents", "widderkopf_env.train"))
               for m in sys.modules)
print("ok")
"""


def test_core_works_with_agents_and_train_blocked():
    proc = subprocess.run([sys.executable, "-c", BLOCKED], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ok"
