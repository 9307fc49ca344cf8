"""MkDocs hooks for the API reference.

* ``agents/`` and ``train/`` install as ``widderkopf_env.agents`` and ``widderkopf_env.train``
  (``[tool.setuptools.package-dir]`` in pyproject.toml), a layout griffe cannot follow from
  the source tree. Before mkdocstrings starts, :func:`lay_out` copies the Python files into
  ``build/docs_src/`` in the installed layout, the path mkdocs.yml gives mkdocstrings.
* The docstrings cross-reference in Sphinx's roles (``:class:`Game```); the rendered page
  shows the name alone, as code (:func:`drop_roles`).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from mkdocs.plugins import event_priority

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "build" / "docs_src"


def package_dirs() -> dict[str, Path]:
    """``{package name: source folder}``: the top-level package and pyproject's package-dir."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    section = re.search(r"^\[tool\.setuptools\.package-dir\]\n(.*?)(?:^\[|\Z)", text, re.S | re.M)
    if section is None:
        raise RuntimeError("pyproject.toml has no [tool.setuptools.package-dir] section")
    dirs = {"widderkopf_env": ROOT / "widderkopf_env"}
    for name, folder in re.findall(r'^"([\w.]+)"\s*=\s*"([^"]+)"', section.group(1), re.M):
        dirs[name] = ROOT / folder
    return dirs


def lay_out(out: Path = OUT) -> Path:
    """Copy every package's ``.py`` files to ``out`` in the installed layout; returns ``out``."""
    shutil.rmtree(out, ignore_errors=True)
    dirs = package_dirs()
    for name, folder in dirs.items():
        target = out.joinpath(*name.split("."))
        for source in folder.rglob("*.py"):
            relative = source.relative_to(folder)
            # a subfolder that is itself a package of its own (installed elsewhere) is skipped
            if any(f"{name}.{'.'.join(relative.parts[:i])}" in dirs
                   for i in range(1, len(relative.parts))):
                continue
            if "__pycache__" in relative.parts:
                continue
            (target / relative).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / relative)
    return out


ROLE = re.compile(r":(?:py:)?(?:class|meth|func|attr|mod|data|exc|obj|const):<code>(~?)([^<]*)</code>")


def drop_roles(html: str) -> str:
    """``:class:<code>Game</code>`` -> ``<code>Game</code>``; ``~a.b.C`` shows as ``C``."""
    def name(match):
        tilde, target = match.groups()
        return f"<code>{target.rsplit('.', 1)[-1] if tilde else target}</code>"
    return ROLE.sub(name, html)


def on_page_content(html, page, config, files):
    return drop_roles(html)


@event_priority(100)  # before mkdocstrings loads any module
def on_config(config):
    lay_out()
    return config
