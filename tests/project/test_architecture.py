"""The layers run one way: core (``src/widderkopf_env/``) <- agents (``src/widderkopf_env/agents/``, installed as
``widderkopf_env.agents``) <- train (``src/widderkopf_env/train/``, installed as ``widderkopf_env.train``).

The core never imports the bots or the training code (the registry names the shipped bots
by import path, as strings), the bots never import the training code, no module of the
whole package takes part in an import cycle, no module imports another's private names,
no module and no C source (csrc/) is over 500 lines, and the core works with src/widderkopf_env/agents/ and src/widderkopf_env/train/ missing
altogether.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT

#: The folders of the package and the dotted names they install as.
SRC = ROOT / "src"
LAYERS = {"widderkopf_env": SRC / "widderkopf_env",
          "widderkopf_env.agents": SRC / "widderkopf_env" / "agents",
          "widderkopf_env.train": SRC / "widderkopf_env" / "train"}
PACKAGE = LAYERS["widderkopf_env"]
MAX_LINES = 500


def module_name(path: Path) -> str:
    """The dotted name ``path`` installs as (``src/widderkopf_env/agents/arena.py`` ->
    ``widderkopf_env.agents.arena``); the innermost layer that holds it names it."""
    for name, folder in sorted(LAYERS.items(), key=lambda kv: -len(kv[0])):
        if path.is_relative_to(folder):
            parts = path.relative_to(folder).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            return ".".join((name, *parts))
    raise ValueError(path)


MODULES = {module_name(p): p for folder in LAYERS.values() for p in sorted(folder.rglob("*.py"))}
CORE = sorted(p for m, p in MODULES.items()
              if not m.startswith(("widderkopf_env.agents", "widderkopf_env.train")))
AGENTS = sorted(p for m, p in MODULES.items() if m.startswith("widderkopf_env.agents"))
#: The compiled core's C sources (csrc/ and its folders), under the same size rule.
C_SOURCES = sorted(p for p in (ROOT / "csrc").rglob("*") if p.suffix in (".c", ".h"))


def imports_of(path: Path, package: str | None = None) -> set[str]:
    """Every module ``path`` imports, at module level or inside functions, resolved."""
    if package is None:
        name = module_name(path)
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
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


def upward(path: Path, forbidden: tuple[str, ...]) -> list[str]:
    return sorted(m for m in imports_of(path) if m.startswith(forbidden))


@pytest.mark.parametrize("path", CORE, ids=lambda p: str(p.relative_to(ROOT)))
def test_core_never_imports_agents_or_train(path):
    assert upward(path, ("widderkopf_env.agents", "widderkopf_env.train")) == []


@pytest.mark.parametrize("path", AGENTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_agents_never_import_train(path):
    assert upward(path, ("widderkopf_env.train",)) == []


def private_imports(path: Path) -> list[str]:
    """The names ``path`` imports from another module that are private to it (``_x``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return sorted(f"{node.module or '.'}:{alias.name}" for node in ast.walk(tree)
                  if isinstance(node, ast.ImportFrom) for alias in node.names
                  if alias.name.startswith("_") and not alias.name.startswith("__"))


@pytest.mark.parametrize("path", sorted(MODULES.values()), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_module_imports_the_private_names_of_another(path):
    assert private_imports(path) == []


def test_the_private_import_check_catches_one(tmp_path):
    (tmp_path / "m.py").write_text("def f():\n    from .arena import _label, run_duplicate\n")
    assert private_imports(tmp_path / "m.py") == ["arena:_label"]


def test_the_check_catches_an_upward_import():
    bad = PACKAGE / "_probe_upward.py"
    try:
        bad.write_text("def f():\n    from .agents import load_agent\n")
        assert upward(bad, ("widderkopf_env.agents",)) == ["widderkopf_env.agents",
                                                          "widderkopf_env.agents.load_agent"]
    finally:
        bad.unlink()


def import_graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    """Module -> the package's modules it imports (a name imported from a package counts
    as that package unless it is a module of its own)."""
    graph = {}
    for name, path in modules.items():
        edges = set()
        for m in imports_of(path):
            while m and m not in modules:
                m = m.rpartition(".")[0]
            if m and m != name:
                edges.add(m)
        graph[name] = edges
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    done, stack = set(), []

    def visit(node):
        if node in stack:
            return stack[stack.index(node):] + [node]
        if node in done:
            return None
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            cycle = visit(nxt)
            if cycle:
                return cycle
        stack.pop()
        done.add(node)
        return None

    for node in sorted(graph):
        cycle = visit(node)
        if cycle:
            return cycle
    return None


def test_no_import_cycle_in_the_whole_package():
    cycle = find_cycle(import_graph(MODULES))
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_the_cycle_check_finds_a_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_the_size_rule_reads_the_c_sources():
    assert {"core.h", "batch.c", "module.c"} <= {p.name for p in C_SOURCES}


@pytest.mark.parametrize("path", sorted(MODULES.values()) + C_SOURCES,
                         ids=lambda p: str(p.relative_to(ROOT)))
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
