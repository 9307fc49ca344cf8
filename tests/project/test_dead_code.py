"""No dead code: each public top-level name of the package (functions, classes, constants)
is used somewhere: in its own module, imported or reached as an attribute elsewhere (the
package, tests, examples, benchmarks, scripts), or named as ``module:name`` in a string
(the registry's entries, the console scripts)."""

from __future__ import annotations

import ast
import re

from helpers import ROOT

PACKAGE = ("src",)
USERS = PACKAGE + ("tests", "examples", "bench", "scripts", "docs")


def _trees(folders) -> dict:
    return {p: ast.parse(p.read_text(encoding="utf-8"), str(p))
            for d in folders for p in sorted((ROOT / d).rglob("*.py"))
            if ".venv" not in p.parts}


def _defined(tree: ast.Module):
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield node.name
        elif isinstance(node, ast.Assign):
            yield from (t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            yield node.target.id


def unused_names() -> list[str]:
    trees = _trees(USERS)
    used = set()
    for tree in trees.values():
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                used.update(alias.name for alias in node.names)
            elif isinstance(node, ast.Attribute):
                used.add(node.attr)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                used.update(re.findall(r"[\w.]+:(\w+)", node.value))
    used.update(re.findall(r"= \"[\w.]+:(\w+)\"",
                           (ROOT / "pyproject.toml").read_text(encoding="utf-8")))
    unused = []
    for path, tree in trees.items():
        if path.relative_to(ROOT).parts[0] not in PACKAGE:
            continue
        loads = {n.id for n in ast.walk(tree)
                 if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        for name in _defined(tree):
            if not name.startswith("_") and name not in loads and name not in used:
                unused.append(f"{path.relative_to(ROOT)}: {name}")
    return unused


def test_every_public_name_is_used():
    unused = unused_names()
    assert not unused, ("defined but used nowhere (remove it, or use it): "
                        + ", ".join(unused))
